/* environment.h (internal): where a run happened, for the result document. */
#ifndef MPISCOPE_ENVIRONMENT_H
#define MPISCOPE_ENVIRONMENT_H

#include <mpi.h>
#include "json.h"

typedef struct mpiscope__environment {
    char library_version[MPI_MAX_LIBRARY_VERSION_STRING];
    int mpi_version, mpi_subversion;
    char *hosts;      /* JSON array of unique host names (rank 0) */
    char *rank_nodes; /* JSON array: each rank's index in hosts (rank 0) */
    long *rank_pids;  /* each rank's process id (rank 0; NULL in simulated runs: one process) */
    char *rank_cpus;  /* JSON array: each rank's allowed CPUs, "0-3" (rank 0; NULL: unknown) */
    int ranks, nodes, ranks_per_node;
    char cpu_model[256];
    char start_time_utc[32];
    const char *thread_level; /* "MPI_THREAD_MULTIPLE"... the World model's level, NULL: not known */
} mpiscope__environment_t;

/* "MPI_THREAD_SINGLE" ... "MPI_THREAD_MULTIPLE" for a level, "unknown" otherwise. */
const char *mpiscope__thread_level_name(int level);

/* "single", "funneled", "serialized", "multiple" (any case; "MPI_THREAD_"
 * may precede) to its MPI_THREAD_* value; -1 for anything else. Needs no MPI. */
int mpiscope__thread_level_parse(const char *name);

/* The thread level of the World model (MPI_Query_thread), -1 when MPI_Init
 * was not called (a program of the Sessions model). */
int mpiscope__thread_level(void);

/* Collective over comm. */
int mpiscope__environment_gather(MPI_Comm comm, mpiscope__environment_t *env);
void mpiscope__environment_free(mpiscope__environment_t *env);

/* Write the environment's fields into the open JSON object. */
void mpiscope__environment_write(const mpiscope__environment_t *env, mpiscope__json_t *j);

/* Current UTC time as 2026-11-22T10:00:00Z. */
void mpiscope__utc_now(char *buf, size_t size);

#endif
