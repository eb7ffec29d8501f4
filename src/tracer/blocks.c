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

const char *mpiscope__trace_block(mpiscope__trace_thread_t *t, unsigned which, uint64_t n, uint64_t first)
{
    char *data = raw_block(t, which);
    block_head_t head = {{'T', 'H', 'R', 'D'}, 0, MPISCOPE__TRACE_RAW_BLOCK(n) - 16, t->index, 0, n, first};
    memcpy(data, &head, sizeof head);
    return data;
}

void mpiscope__trace_flush_pending(mpiscope__trace_thread_t *t)
{
    uint64_t n = atomic_load_explicit(&t->pending, memory_order_acquire);
    if (!n)
        return;
    if (atomic_load_explicit(&t->pack_state, memory_order_acquire) != MPISCOPE__TRACE_PACK_IDLE) {
        /* a signal handler on this thread, while the thread packs or writes */
        mpiscope__trace_flush_pending_foreign(t);
        return;
    }
    atomic_store(&t->pack_state, MPISCOPE__TRACE_PACK_PACKING);
    const char *raw = raw_block(t, atomic_load_explicit(&t->pending_half, memory_order_relaxed));
    const void *records = raw + sizeof(block_head_t);
    uint64_t first = ((const block_head_t *)raw)->first; /* written at the switch */
    size_t len = t->packed ? mpiscope__trace_pack(t->packed, t->capacity, records, n, t->index, first) : 0;
    const char *data = len ? t->packed : raw;
    if (!len)
        len = MPISCOPE__TRACE_RAW_BLOCK(n);
    uint64_t at = mpiscope__trace_reserve(len);
    atomic_store_explicit(&t->pending_data, data, memory_order_relaxed);
    atomic_store_explicit(&t->pending_len, len, memory_order_relaxed);
    atomic_store_explicit(&t->pending_at, at, memory_order_relaxed);
    atomic_store(&t->pack_state, MPISCOPE__TRACE_PACK_READY); /* publishes the three */
    if (mpiscope__trace_pwrite(data, len, at) != 0)
        atomic_fetch_add_explicit(&t->dropped, n, memory_order_relaxed);
    atomic_store(&t->pending, 0);
    atomic_store(&t->pack_state, MPISCOPE__TRACE_PACK_IDLE);
}

void mpiscope__trace_write_early(mpiscope__trace_thread_t *t, uint64_t now)
{
    uint64_t count = atomic_load_explicit(&t->count, memory_order_relaxed), from = t->early;
    t->early_at = now;
    if (count <= from || mpiscope__trace_proc.fd < 0)
        return;
    uint64_t n = count - from, len = MPISCOPE__TRACE_RAW_BLOCK(n);
    uint64_t seq = atomic_load_explicit(&t->seq, memory_order_relaxed);
    block_head_t head = {{'T', 'H', 'R', 'D'}, 0, len - 16, t->index, 0, n, seq + from};
    uint64_t at = mpiscope__trace_reserve(len);
    if (mpiscope__trace_pwrite(&head, sizeof head, at) == 0)
        (void)mpiscope__trace_pwrite(t->records + from, (size_t)n * sizeof *t->records, at + sizeof head);
    t->early = count;
}

void mpiscope__trace_flush_pending_foreign(mpiscope__trace_thread_t *t)
{
    uint64_t n = atomic_load_explicit(&t->pending, memory_order_acquire);
    if (!n)
        return;
    if (atomic_load_explicit(&t->pack_state, memory_order_acquire) == MPISCOPE__TRACE_PACK_READY) {
        (void)mpiscope__trace_pwrite(atomic_load_explicit(&t->pending_data, memory_order_relaxed),
                                     atomic_load_explicit(&t->pending_len, memory_order_relaxed),
                                     atomic_load_explicit(&t->pending_at, memory_order_relaxed));
        return;
    }
    uint64_t len = MPISCOPE__TRACE_RAW_BLOCK(n);
    unsigned half = atomic_load_explicit(&t->pending_half, memory_order_relaxed);
    if (mpiscope__trace_pwrite(raw_block(t, half), len, mpiscope__trace_reserve(len)) != 0)
        atomic_fetch_add_explicit(&t->dropped, n, memory_order_relaxed);
}

/* The stores are ordered so that a signal handler arriving between any
 * two stores writes at worst a block twice (the reader keeps one copy), never a
 * record under the wrong sequence number. The block is packed and its
 * place in the file reserved when it is written (flush_pending). */
void mpiscope__trace_switch(mpiscope__trace_thread_t *t)
{
    if (atomic_load_explicit(&t->pending, memory_order_relaxed)) /* one call filled both halves */
        mpiscope__trace_flush_pending(t);
    uint64_t n = atomic_load_explicit(&t->count, memory_order_relaxed);
    uint64_t seq = atomic_load_explicit(&t->seq, memory_order_relaxed);
    unsigned full = atomic_load_explicit(&t->current, memory_order_relaxed);
    mpiscope__trace_block(t, full, n, seq);
    atomic_store(&t->pending_half, full);
    if (mpiscope__trace_proc.fd >= 0)
        atomic_store(&t->pending, n);
    else /* full before the file was open: not with >= 16 records */
        atomic_fetch_add_explicit(&t->dropped, n, memory_order_relaxed);
    atomic_store(&t->count, 0);
    t->early = 0;
    t->early_at = mpiscope__trace_stamp(); /* a half that fills in time is never written early */
    atomic_store(&t->seq, seq + n);
    atomic_store(&t->current, full ^ 1u);
    t->records = (mpiscope_trace_record_t *)(t->half[full ^ 1u] + MPISCOPE__TRACE_BLOCK_HEAD);
}
