/* memory.c: whether a node can hold the buffers a point asks for (the
 * large-count ops, whose messages reach gigabytes): checked on every node
 * before anything is allocated, so that a point too large for the machine
 * is refused with one line instead of swapping or being killed. */
#include "common.h"

#include <stdio.h>
#include <string.h>

/* MemAvailable of /proc/meminfo, bytes; 0 where unknown. */
static unsigned long long mem_available(void)
{
    unsigned long long kib = 0;
    char line[256];
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1)
            break;
    fclose(f);
    return kib * 1024;
}

static double gib(unsigned long long bytes)
{
    return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

int mpiscope__ops_memory_check(mpiscope_op_ctx_t *ctx, size_t bytes)
{
    MPI_Comm node;
    if (MPI_Comm_split_type(ctx->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    unsigned long long mine = bytes, needed = 0, available = 0;
    int local_rank, ranks;
    MPI_Comm_rank(node, &local_rank);
    MPI_Comm_size(node, &ranks);
    MPI_Allreduce(&mine, &needed, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, node);
    if (local_rank == 0)
        available = mem_available();
    MPI_Bcast(&available, 1, MPI_UNSIGNED_LONG_LONG, 0, node);
    MPI_Comm_free(&node);
    /* a tenth kept back for MPI's own buffers, the program and the system */
    int short_here = available > 0 && needed > available - available / 10, short_anywhere = 0;
    MPI_Allreduce(&short_here, &short_anywhere, 1, MPI_INT, MPI_MAX, ctx->comm);
    if (short_here) {
        char host[MPI_MAX_PROCESSOR_NAME] = "";
        int len;
        MPI_Get_processor_name(host, &len);
        return mpiscope_op_ctx_refuse(ctx, MPISCOPE_ENOMEM,
                                      "%s of %zu bytes needs %.2f GiB of buffers for the %d rank%s on host %s, "
                                      "which has %.2f GiB available (MemAvailable, a tenth kept back)",
                                      ctx->op->name, ctx->size_bytes, gib(needed), ranks, ranks == 1 ? "" : "s", host,
                                      gib(available));
    }
    if (short_anywhere)
        return MPISCOPE_ENOMEM; /* the short node's rank says why */
    mpiscope_op_ctx_note(ctx, "memory",
                         "%.2f GiB of buffers for the %d rank%s of this node, %.2f GiB were "
                         "available",
                         gib(needed), ranks, ranks == 1 ? "" : "s", gib(available));
    return 0;
}

int mpiscope__ops_large_refused(mpiscope_op_ctx_t *ctx)
{
#ifdef MPISCOPE_HAVE_LARGE_COUNT
    (void)ctx;
    return 0;
#else
    return mpiscope_op_ctx_refuse(ctx, MPISCOPE_ENOTSUP,
                                  "%s: this MPI library has no large-count calls "
                                  "(MPI_Send_c, MPI_Bcast_c ...: MPI-4)",
                                  ctx->op->name)
           != 0;
#endif
}
