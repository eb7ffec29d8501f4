/* noise_mpi.c: error agreement, node communicator and binding lines. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "affinity.h"
#include "cli.h"
#include "noise_mpi.h"

#define BINDING_LEN 8192

int mpiscope__noise_agree(MPI_Comm comm, int code, const char *message)
{
    int rank;
    MPI_Comm_rank(comm, &rank);
    struct {
        int code;
        int rank;
    } mine = {code, rank}, worst;
    MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MAXLOC, comm);
    if (worst.code != 0 && worst.rank == rank) {
        fprintf(stderr, "mpiscope-noise: error: %s\n", message ? message : "failed");
        fflush(stderr);
    }
    return worst.code;
}

int mpiscope__noise_parse_result(int rank, int rc, const char *message, const char *usage)
{
    if (rank == 0) {
        if (rc == 1)
            fputs(usage, stdout);
        else
            fprintf(stderr, "mpiscope-noise: error: %s\n", message);
    }
    return rc == 1 ? 0 : MPISCOPE__NOISE_EXIT_USAGE;
}

MPI_Comm mpiscope__noise_node_comm(MPI_Comm comm)
{
    MPI_Comm node;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    return node;
}

static void binding_json(int rank, const char *host, char *buf, size_t len)
{
    mpiscope__cpu_list_t allowed;
    char cpus[BINDING_LEN / 2], qhost[512];
    if (mpiscope__cpus_allowed(&allowed) != 0)
        allowed.n = 0;
    snprintf(buf, len, "{\"rank\":%d,\"host\":%s,\"pid\":%ld,\"cpus_allowed\":%s,\"cpu\":%d}", rank,
             mpiscope__json_quote(host, qhost, sizeof qhost), (long)getpid(),
             mpiscope__cpu_list_json(&allowed, cpus, sizeof cpus), mpiscope__current_cpu());
}

int mpiscope__noise_print_bindings(MPI_Comm comm, const char *host)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    char mine[BINDING_LEN];
    binding_json(rank, host, mine, sizeof mine);
    char *all = rank == 0 ? malloc((size_t)size * BINDING_LEN) : NULL;
    int rc = mpiscope__noise_agree(comm, rank == 0 && !all ? MPISCOPE__NOISE_EXIT_FAILED : 0,
                                   "no memory to gather the bindings");
    if (rc != 0)
        return rc;
    MPI_Gather(mine, BINDING_LEN, MPI_CHAR, all, BINDING_LEN, MPI_CHAR, 0, comm);
    for (int r = 0; all && r < size; r++)
        mpiscope__noise_emit("noise-binding", all + (size_t)r * BINDING_LEN);
    free(all);
    return 0;
}

void mpiscope__noise_emit(const char *kind, const char *json)
{
    printf("@mpiscope %s %s\n", kind, json);
    fflush(stdout);
}
