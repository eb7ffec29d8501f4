/* blocks.c: a thread's full half buffer goes to the file as a THRD block.
 *
 * The switch (once per half, 4,096 calls by default) makes the full half
 * pending, with its range of the file reserved and its chunk header
 * written in the room before it. The owning thread writes it when the
 * call that filled it ends (after its exit stamp: in no call's time), or
 * at once when one call filled both halves. A signal handler may write the
 * same bytes at the same place again. (A writer thread, tried, cost more
 * than it saved on a node whose cores all run ranks: docs/tracer.md.) */
#include <string.h>
#include "trace_call.h"

typedef struct block_head {
    char tag[4];
    uint32_t reserved;
    uint64_t size;   /* payload bytes */
    uint32_t index, reserved2;
    uint64_t count;  /* records in this block */
    uint64_t first;  /* the thread's sequence number of the first one */
} block_head_t;

_Static_assert(sizeof(block_head_t) == 40, "THRD head is 40 bytes");
_Static_assert(sizeof(block_head_t) <= MPISCOPE__TRACE_BLOCK_HEAD, "room before a half");

const char *mpiscope__trace_block(mpiscope__trace_thread_t *t, unsigned which, uint64_t n,
                                  uint64_t first)
{
    char *data = t->half[which] + MPISCOPE__TRACE_BLOCK_HEAD - sizeof(block_head_t);
    block_head_t head = {{'T', 'H', 'R', 'D'}, 0, 24 + n * sizeof(mpiscope_trace_record_t),
                         t->index, 0, n, first};
    memcpy(data, &head, sizeof head);
    return data;
}

void mpiscope__trace_flush_pending(mpiscope__trace_thread_t *t)
{
    uint64_t n = __atomic_load_n(&t->pending, __ATOMIC_ACQUIRE);
    if (!n)
        return;
    const char *block = t->half[t->pending_half] + MPISCOPE__TRACE_BLOCK_HEAD
                        - sizeof(block_head_t);
    if (mpiscope__trace_pwrite(block, sizeof(block_head_t) + n * sizeof(mpiscope_trace_record_t),
                               t->pending_at) != 0)
        t->dropped += n;
    __atomic_store_n(&t->pending, 0, __ATOMIC_SEQ_CST);
}

/* The stores are ordered so that a signal handler arriving between any
 * two stores writes at worst a block twice (the reader keeps one copy), never a
 * record under the wrong sequence number. */
void mpiscope__trace_switch(mpiscope__trace_thread_t *t)
{
    if (t->pending) /* one call filled both halves */
        mpiscope__trace_flush_pending(t);
    uint64_t n = t->count;
    unsigned full = t->current;
    uint64_t len = sizeof(block_head_t) + n * sizeof(mpiscope_trace_record_t);
    mpiscope__trace_block(t, full, n, t->seq);
    int open = mpiscope__trace_proc.fd >= 0;
    t->pending_at = open ? mpiscope__trace_reserve(len) : 0;
    t->pending_half = full;
    if (open)
        __atomic_store_n(&t->pending, n, __ATOMIC_SEQ_CST);
    else
        t->dropped += n; /* full before the file was open: not with >= 16 records */
    __atomic_store_n(&t->count, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&t->seq, t->seq + n, __ATOMIC_SEQ_CST);
    t->current = full ^ 1u;
    t->records = (mpiscope_trace_record_t *)(t->half[full ^ 1u] + MPISCOPE__TRACE_BLOCK_HEAD);
}
