/* registry.c: the one list of built-in operations. Adding an operation:
 * its own file, one line here, and its test. */
#include "common.h"

#include <ctype.h>

/* X(name): the descriptor mpiscope__op_<name>, in listing order, one line each. */
#define MPISCOPE_BUILTIN_OPS(X)                                                                                        \
    /* blocking collectives */                                                                                         \
    X(barrier)                                                                                                         \
    X(bcast)                                                                                                           \
    X(gather)                                                                                                          \
    X(gatherv)                                                                                                         \
    X(scatter)                                                                                                         \
    X(scatterv)                                                                                                        \
    X(allgather)                                                                                                       \
    X(allgatherv)                                                                                                      \
    X(alltoall)                                                                                                        \
    X(alltoallv)                                                                                                       \
    X(alltoallw)                                                                                                       \
    X(reduce)                                                                                                          \
    X(allreduce)                                                                                                       \
    X(reduce_scatter)                                                                                                  \
    X(reduce_scatter_block)                                                                                            \
    X(scan)                                                                                                            \
    X(exscan)                                                                                                          \
    /* nonblocking collectives */                                                                                      \
    X(ibarrier)                                                                                                        \
    X(ibcast)                                                                                                          \
    X(igather)                                                                                                         \
    X(igatherv)                                                                                                        \
    X(iscatter)                                                                                                        \
    X(iscatterv)                                                                                                       \
    X(iallgather)                                                                                                      \
    X(iallgatherv)                                                                                                     \
    X(ialltoall)                                                                                                       \
    X(ialltoallv)                                                                                                      \
    X(ialltoallw)                                                                                                      \
    X(ireduce)                                                                                                         \
    X(iallreduce)                                                                                                      \
    X(ireduce_scatter)                                                                                                 \
    X(ireduce_scatter_block)                                                                                           \
    X(iscan)                                                                                                           \
    X(iexscan)                                                                                                         \
    /* persistent collectives (MPI-4) */                                                                               \
    X(barrier_init)                                                                                                    \
    X(bcast_init)                                                                                                      \
    X(gather_init)                                                                                                     \
    X(gatherv_init)                                                                                                    \
    X(scatter_init)                                                                                                    \
    X(scatterv_init)                                                                                                   \
    X(allgather_init)                                                                                                  \
    X(allgatherv_init)                                                                                                 \
    X(alltoall_init)                                                                                                   \
    X(alltoallv_init)                                                                                                  \
    X(alltoallw_init)                                                                                                  \
    X(reduce_init)                                                                                                     \
    X(allreduce_init)                                                                                                  \
    X(reduce_scatter_init)                                                                                             \
    X(reduce_scatter_block_init)                                                                                       \
    X(scan_init)                                                                                                       \
    X(exscan_init)                                                                                                     \
    /* point-to-point */                                                                                               \
    X(pingpong)                                                                                                        \
    X(pingping)                                                                                                        \
    X(exchange)                                                                                                        \
    X(bw)                                                                                                              \
    X(bibw)                                                                                                            \
    X(multi_lat)                                                                                                       \
    X(mbw_mr)                                                                                                          \
    /* threads (MPI_THREAD_MULTIPLE) and partitioned point-to-point (MPI-4) */                                         \
    X(thread_pingpong)                                                                                                 \
    X(thread_rate)                                                                                                     \
    X(partitioned_pingpong)                                                                                            \
    X(partitioned_bw)                                                                                                  \
    /* large counts (MPI-4 _c calls: MPI_Count counts) */                                                              \
    X(bcast_c)                                                                                                         \
    X(gather_c)                                                                                                        \
    X(gatherv_c)                                                                                                       \
    X(scatter_c)                                                                                                       \
    X(scatterv_c)                                                                                                      \
    X(allgather_c)                                                                                                     \
    X(allgatherv_c)                                                                                                    \
    X(alltoall_c)                                                                                                      \
    X(alltoallv_c)                                                                                                     \
    X(alltoallw_c)                                                                                                     \
    X(reduce_c)                                                                                                        \
    X(allreduce_c)                                                                                                     \
    X(reduce_scatter_c)                                                                                                \
    X(reduce_scatter_block_c)                                                                                          \
    X(scan_c)                                                                                                          \
    X(exscan_c)                                                                                                        \
    X(pingpong_c)                                                                                                      \
    X(bw_c)                                                                                                            \
    /* MPI-IO */                                                                                                       \
    X(file_write)                                                                                                      \
    X(file_read)                                                                                                       \
    /* MPIBlib's experiments */                                                                                        \
    X(roundtrip)                                                                                                       \
    X(linear_scatter)                                                                                                  \
    X(linear_gather)                                                                                                   \
    X(linear_bcast)                                                                                                    \
    X(one_to_two)                                                                                                      \
    /* the models' experiments (LogGP, PLogP, reduction cost) */                                                       \
    X(prtt)                                                                                                            \
    X(overhead_send)                                                                                                   \
    X(overhead_recv)                                                                                                   \
    X(reduce_local)                                                                                                    \
    /* the Alltoall lab's algorithms (src/alltoall) */                                                                 \
    X(alltoall_bruck)                                                                                                  \
    X(alltoall_pairwise)                                                                                               \
    X(alltoall_linear)                                                                                                 \
    X(alltoall_one_leader)                                                                                             \
    X(alltoall_m_leader)                                                                                               \
    X(alltoall_plp)                                                                                                    \
    X(alltoall_lss)                                                                                                    \
    X(fft3d)                                                                                                           \
    /* one-sided */                                                                                                    \
    X(put)                                                                                                             \
    X(get)                                                                                                             \
    X(accumulate)                                                                                                      \
    X(get_accumulate)                                                                                                  \
    X(fetch_and_op)                                                                                                    \
    X(compare_and_swap)                                                                                                \
    /* neighborhood collectives */                                                                                     \
    X(neighbor_allgather)                                                                                              \
    X(neighbor_allgatherv)                                                                                             \
    X(neighbor_alltoall)                                                                                               \
    X(neighbor_alltoallv)                                                                                              \
    X(neighbor_alltoallw)                                                                                              \
    X(ineighbor_allgather)                                                                                             \
    X(ineighbor_allgatherv)                                                                                            \
    X(ineighbor_alltoall)                                                                                              \
    X(ineighbor_alltoallv)                                                                                             \
    X(ineighbor_alltoallw)                                                                                             \
    X(neighbor_allgather_init)                                                                                         \
    X(neighbor_allgatherv_init)                                                                                        \
    X(neighbor_alltoall_init)                                                                                          \
    X(neighbor_alltoallv_init)                                                                                         \
    X(neighbor_alltoallw_init)                                                                                         \
    /* ground truth */                                                                                                 \
    X(waitpattern_up)                                                                                                  \
    X(waitpattern_down)                                                                                                \
    X(waitpattern_null)

#define MPISCOPE_X_DECLARE(name) extern const mpiscope_op_t mpiscope__op_##name;
MPISCOPE_BUILTIN_OPS(MPISCOPE_X_DECLARE)
#undef MPISCOPE_X_DECLARE

static const mpiscope_op_t *const builtin_ops[] = {
#define MPISCOPE_X_ADDRESS(name) &mpiscope__op_##name,
    MPISCOPE_BUILTIN_OPS(MPISCOPE_X_ADDRESS)
#undef MPISCOPE_X_ADDRESS
};

size_t mpiscope_op_count(void)
{
    return sizeof builtin_ops / sizeof *builtin_ops;
}

const mpiscope_op_t *mpiscope_op_at(size_t index)
{
    return index < mpiscope_op_count() ? builtin_ops[index] : NULL;
}

/* Names are lower case with '_'; users may type any case and '-'. */
static int normalized(char c)
{
    return c == '-' ? '_' : tolower((unsigned char)c);
}

static int is_named(const mpiscope_op_t *op, const char *given)
{
    const char *name = op->name;

    while (*given && normalized(*given) == *name) {
        given++;
        name++;
    }
    return *given == '\0' && *name == '\0';
}

const mpiscope_op_t *mpiscope_op_find(const char *name)
{
    for (size_t i = 0; name && i < mpiscope_op_count(); i++)
        if (is_named(builtin_ops[i], name))
            return builtin_ops[i];
    return NULL;
}
