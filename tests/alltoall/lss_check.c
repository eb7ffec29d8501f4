/* lss_check.c: the LSS algorithm (src/alltoall/lss.c) against MPI_Alltoall
 * with random data, driven through its internal interface (a2a.h), so it
 * needs nothing else of the library. For every block size: three runs on
 * one recv (kept attached), then one on another recv (re-attached), each
 * with a poisoned recv and fresh data. Exit 1 on any mismatch, printed by
 * the rank that saw it. Run: mpiexec -n P ./lss_check  (any P >= 1) */
#include "a2a.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const size_t sizes_bytes[] = {0, 1, 7, 8, 64, 1000, 4096, 32768, 65536, 1u << 20};

static uint64_t next_random(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

static void fill(unsigned char *buffer, size_t bytes, uint64_t seed)
{
    uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;

    for (size_t i = 0; i < bytes; i++)
        buffer[i] = (unsigned char)(next_random(&state) >> 56);
}

/* One run of LSS into recv, compared with MPI_Alltoall; returns failures. */
static int check_run(mpiscope_alltoall_t *a, unsigned char *send, unsigned char *recv, unsigned char *want,
                     uint64_t seed)
{
    size_t total = (size_t)a->nprocs * a->block;
    int rc;

    fill(send, total, seed);
    memset(recv, 0xa5, total);
    if ((rc = mpiscope__a2a_lss.run(a, send, recv)) != 0) {
        fprintf(stderr, "rank %d: block %zu: run returned %d\n", a->rank, a->block, rc);
        return 1;
    }
    MPI_Alltoall(send, (int)a->block, MPI_BYTE, want, (int)a->block, MPI_BYTE, MPI_COMM_WORLD);
    for (size_t i = 0; i < total; i++) {
        if (recv[i] != want[i]) {
            fprintf(stderr, "rank %d: block %zu: recv block %zu byte %zu: got 0x%02x, want 0x%02x\n", a->rank,
                    a->block, i / a->block, i % a->block, recv[i], want[i]);
            return 1;
        }
    }
    return 0;
}

static int check_size(int rank, int nprocs, size_t block)
{
    mpiscope_alltoall_t a = {.rank = rank, .nprocs = nprocs, .block = block, .impl = &mpiscope__a2a_lss,
                             .params = MPISCOPE_ALLTOALL_PARAMS_INIT};
    size_t total = (size_t)nprocs * block;
    unsigned char *send = malloc(total + 1), *recv = malloc(2 * total + 1), *want = malloc(total + 1);
    int failures = 0, rc;

    MPI_Comm_dup(MPI_COMM_WORLD, &a.comm);
    if (!send || !recv || !want || (rc = mpiscope__a2a_lss.create(&a)) != 0) {
        fprintf(stderr, "rank %d: block %zu: create failed\n", rank, block);
        failures = 1;
    } else {
        for (int run = 0; run < 4; run++) /* run 3: the second recv */
            failures += check_run(&a, send, recv + (run == 3 ? total : 0), want,
                                  (uint64_t)rank * 1000003u + block * 31u + (uint64_t)run);
        mpiscope__a2a_lss.destroy(&a);
    }
    MPI_Comm_free(&a.comm);
    free(send);
    free(recv);
    free(want);
    return failures;
}

int main(int argc, char **argv)
{
    int rank, nprocs, failures = 0, all;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    for (size_t i = 0; i < sizeof sizes_bytes / sizeof *sizes_bytes; i++)
        failures += check_size(rank, nprocs, sizes_bytes[i]);
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("lss_check: %d ranks, %zu block sizes x 4 runs: %s (%d failures)\n", nprocs,
               sizeof sizes_bytes / sizeof *sizes_bytes, all ? "FAILED" : "ok", all);
    MPI_Finalize();
    return all ? 1 : 0;
}
