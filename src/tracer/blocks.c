/* blocks.c: a thread's full half buffer goes to the file as a THRC block
 * (packed, pack.c) or, when that is not smaller, a THRD block (raw).
 *
 * The switch (once per half, 4,096 calls by default) makes the full half
 * pending, with its raw chunk header written in the room before it. The
 * owning thread packs it, reserves its range of the file and writes it
 * when the call that filled it ends (after its exit stamp: in no call's
 * time), or at once when one call filled both halves. A signal handler
 * (or another thread at the end) writes the same bytes at the same place
 * again once they are ready, else the half raw at a place of its own.
 * (A writer thread, tried, cost more than it saved on a node whose cores
 * all run ranks: docs/tracer.md.) */
#include <string.h>
#include "trace_call.h"
#include "trace_pack.h"

typedef mpiscope__trace_block_head_t block_head_t;

_Static_assert(sizeof(block_head_t) <= MPISCOPE__TRACE_BLOCK_HEAD, "room before a half");
_Static_assert(MPISCOPE__TRACE_RAW_BLOCK(1) == sizeof(block_head_t) + 64, "raw block bytes");

/* Where half `which`'s raw block starts: its head, in the room before it. */
static char *raw_block(const mpiscope__trace_thread_t *t, unsigned which)
{
    return t->half[which] + MPISCOPE__TRACE_BLOCK_HEAD - sizeof(block_head_t);
}

const char *mpiscope__trace_block(mpiscope__trace_thread_t *t, unsigned which, uint64_t n,
                                  uint64_t first)
{
    char *data = raw_block(t, which);
    block_head_t head = {{'T', 'H', 'R', 'D'}, 0, MPISCOPE__TRACE_RAW_BLOCK(n) - 16, t->index, 0,
                         n, first};
    memcpy(data, &head, sizeof head);
    return data;
}

void mpiscope__trace_flush_pending(mpiscope__trace_thread_t *t)
{
    uint64_t n = __atomic_load_n(&t->pending, __ATOMIC_ACQUIRE);
    if (!n)
        return;
    if (__atomic_load_n(&t->pack_state, __ATOMIC_ACQUIRE) != MPISCOPE__TRACE_PACK_IDLE) {
        /* a signal handler on this thread, while the thread packs or writes */
        mpiscope__trace_flush_pending_foreign(t);
        return;
    }
    __atomic_store_n(&t->pack_state, MPISCOPE__TRACE_PACK_PACKING, __ATOMIC_SEQ_CST);
    const char *raw = raw_block(t, t->pending_half);
    const void *records = raw + sizeof(block_head_t);
    uint64_t first = ((const block_head_t *)raw)->first; /* written at the switch */
    size_t len = t->packed ? mpiscope__trace_pack(t->packed, t->capacity, records, n, t->index,
                                                  first)
                           : 0;
    const char *data = len ? t->packed : raw;
    if (!len)
        len = MPISCOPE__TRACE_RAW_BLOCK(n);
    t->pending_data = data;
    t->pending_len = len;
    t->pending_at = mpiscope__trace_reserve(len);
    __atomic_store_n(&t->pack_state, MPISCOPE__TRACE_PACK_READY, __ATOMIC_SEQ_CST);
    if (mpiscope__trace_pwrite(data, len, t->pending_at) != 0)
        t->dropped += n;
    __atomic_store_n(&t->pending, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&t->pack_state, MPISCOPE__TRACE_PACK_IDLE, __ATOMIC_SEQ_CST);
}

void mpiscope__trace_write_early(mpiscope__trace_thread_t *t, uint64_t now)
{
    uint64_t count = t->count, from = t->early;
    t->early_at = now;
    if (count <= from || mpiscope__trace_proc.fd < 0)
        return;
    uint64_t n = count - from, len = MPISCOPE__TRACE_RAW_BLOCK(n);
    block_head_t head = {{'T', 'H', 'R', 'D'}, 0, len - 16, t->index, 0, n, t->seq + from};
    uint64_t at = mpiscope__trace_reserve(len);
    if (mpiscope__trace_pwrite(&head, sizeof head, at) == 0)
        (void)mpiscope__trace_pwrite(t->records + from, (size_t)n * sizeof *t->records,
                                     at + sizeof head);
    t->early = count;
}

void mpiscope__trace_flush_pending_foreign(mpiscope__trace_thread_t *t)
{
    uint64_t n = __atomic_load_n(&t->pending, __ATOMIC_ACQUIRE);
    if (!n)
        return;
    if (__atomic_load_n(&t->pack_state, __ATOMIC_ACQUIRE) == MPISCOPE__TRACE_PACK_READY) {
        (void)mpiscope__trace_pwrite(t->pending_data, t->pending_len, t->pending_at);
        return;
    }
    uint64_t len = MPISCOPE__TRACE_RAW_BLOCK(n);
    if (mpiscope__trace_pwrite(raw_block(t, t->pending_half), len, mpiscope__trace_reserve(len))
        != 0)
        t->dropped += n;
}

/* The stores are ordered so that a signal handler arriving between any
 * two stores writes at worst a block twice (the reader keeps one copy), never a
 * record under the wrong sequence number. The block is packed and its
 * place in the file reserved when it is written (flush_pending). */
void mpiscope__trace_switch(mpiscope__trace_thread_t *t)
{
    if (t->pending) /* one call filled both halves */
        mpiscope__trace_flush_pending(t);
    uint64_t n = t->count;
    unsigned full = t->current;
    mpiscope__trace_block(t, full, n, t->seq);
    t->pending_half = full;
    if (mpiscope__trace_proc.fd >= 0)
        __atomic_store_n(&t->pending, n, __ATOMIC_SEQ_CST);
    else
        t->dropped += n; /* full before the file was open: not with >= 16 records */
    __atomic_store_n(&t->count, 0, __ATOMIC_SEQ_CST);
    t->early = 0;
    t->early_at = mpiscope__trace_stamp(); /* a half that fills in time is never written early */
    __atomic_store_n(&t->seq, t->seq + n, __ATOMIC_SEQ_CST);
    t->current = full ^ 1u;
    t->records = (mpiscope_trace_record_t *)(t->half[full ^ 1u] + MPISCOPE__TRACE_BLOCK_HEAD);
}
