/* contention.h: the seed's contention experiment, mpiscope-contention
 * (docs/alltoall-contention.md): its options, its measured data, its
 * output. */
#ifndef MPISCOPE_CONTENTION_H
#define MPISCOPE_CONTENTION_H

#include "mpiscope/stats.h"
#include "mpiscope/timer.h"

#include <stddef.h>

enum { CONTENTION_MAX_SIZES = 64 };

typedef struct contention_options {
    size_t sizes_bytes[CONTENTION_MAX_SIZES];
    int n_sizes;
    long iterations;   /* timed ping-pongs per size and phase */
    long warmup;       /* untimed ones before them */
    long stream_bytes; /* bytes of each streamed message */
    int window;        /* Isends (and Irecvs) in flight per streamer and round */
    int streamers_all; /* 0: local ranks >= 1 stream; 1: also local rank 0 of nodes >= 2 */
    int nodes;         /* 0: nodes from MPI_COMM_TYPE_SHARED; K: K virtual nodes */
    mpiscope_timer_kind_t timer;
    const char *out; /* JSON file, NULL: none */
} contention_options_t;

/* Parse argv; on error writes one line (no program prefix) into message
 * and returns -1; returns 1 for --help (usage text into message). */
int contention_parse(int argc, char **argv, contention_options_t *o, char *message, size_t message_size);

/* What rank 0 reports. */
typedef struct contention_result {
    int nodes, ranks, ranks_per_node, partner_rank, streamer_count, nodes_virtual;
    mpiscope_stats_t stats[2][CONTENTION_MAX_SIZES]; /* [0] without contention, [1] with */
    double p90_ns[2][CONTENTION_MAX_SIZES];
    long long streamed_messages, streamed_end_messages;
    mpiscope_timer_info_t timer;
} contention_result_t;

/* The JSON document (schema mpiscope-contention, version 1) into path;
 * returns 0 or -1 (errno set). */
int contention_write_json(const char *path, const contention_options_t *o, const contention_result_t *r);

/* The short table on stdout. */
void contention_print_table(const contention_options_t *o, const contention_result_t *r);

#endif
