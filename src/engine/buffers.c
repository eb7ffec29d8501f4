/* buffers.c: the run's buffer pool and the per-launch (send, recv) pairs it
 * hands to operations.
 *
 * One aligned region per run, grown when a point needs more and reused by
 * later points. It is filled when allocated, so page faults never land in
 * a timed launch. Cold mode cuts the region into slots visited in a
 * shuffled order, so the hardware prefetcher cannot guess the next slot.
 * Where the CPU can flush a line (x86-64 clflushopt or clflush, aarch64 dc civac) there
 * are only as many slots as one stage has launches, and every rank flushes
 * them before the stage starts: a launch pays for the lines it uses, not
 * for a region twice the LLC rebuilt per point (issue 16: 141-148 ms a
 * point for 16 launches). Elsewhere (or under SMPI, which simulates no
 * cache) the region itself is larger than the LLC, as before.
 *
 * Under SMPI every simulated rank lives in one process: 1,024 ranks with
 * a 4 MiB point held 1,024 regions of two 4 MiB slots. A point that does
 * not validate its data takes its region from the simulator's shared
 * memory (SMPI_SHARED_MALLOC: every rank's region maps the same pages,
 * whose content is garbage, and SMPI copies nothing between them): the
 * simulated times do not depend on the bytes, and the memory is a few
 * MiB whatever the ranks. A validating point gets memory of its own. */
#include "opctx.h"
#include "cache_size.h"
#include "mpiscope/error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#include <immintrin.h>
#define POOL_CAN_FLUSH 1
#elif defined(__aarch64__)
#define POOL_CAN_FLUSH 1
#else
#define POOL_CAN_FLUSH 0
#endif

enum {
    POOL_DEFAULT_ALIGNMENT = 64, /* one cache line */
    POOL_MIN_COLD_SLOTS = 2,
    POOL_MAX_COLD_SLOTS = 4096,
    POOL_FLUSH_STRIDE = 64 /* the smallest line of the CPUs above: never skips one */
};
#define POOL_DEFAULT_LIMIT_BYTES ((size_t)256 << 20)
/* 0xA5 bytes read as float or double are normal numbers: reductions over
 * the pattern never take slow denormal or NaN paths. */
#define POOL_FILL_BYTE 0xA5
#define POOL_SHUFFLE_SEED 0x6d706973636f7065u /* fixed: runs are reproducible */

struct mpiscope__buffer_pool {
    int cold;
    size_t alignment_bytes;
    size_t limit_bytes;
    size_t llc_bytes;
    int flush;             /* cold slots are flushed per stage, not made larger than the LLC */
    size_t stage_launches; /* flush mode: slots per point (the largest stage) */
    unsigned char *raw;    /* the allocation; region is its first aligned byte */
    size_t raw_bytes;
    int shared;     /* SMPI: the next region is the simulator's shared memory */
    int raw_shared; /* raw is (SMPI_SHARED_FREE, not free) */
    unsigned char *region;
    size_t capacity_bytes;
    /* Layout for the current point; slots == 0 when none was asked for. */
    size_t recv_offset_bytes;
    size_t slot_bytes;
    size_t slots;
    uint64_t rng;
    uint16_t order[POOL_MAX_COLD_SLOTS];
    /* flush mode: the slots a launch used since the last flush, the only
     * ones a cache can hold (all of them after a new layout) */
    int all_touched;
    unsigned char touched[POOL_MAX_COLD_SLOTS];
    size_t flushed_slots; /* by the last flush */
};

int mpiscope__buffer_pool_create(int cold, size_t alignment_bytes, size_t limit_bytes, mpiscope__buffer_pool_t **out)
{
    mpiscope__buffer_pool_t *pool;

    if (!out)
        return MPISCOPE_EINVAL;
    *out = NULL;
    if (alignment_bytes == 0)
        alignment_bytes = POOL_DEFAULT_ALIGNMENT;
    /* a power of two no smaller than a pointer, as aligned_alloc would need */
    if ((alignment_bytes & (alignment_bytes - 1)) != 0 || alignment_bytes < sizeof(void *))
        return MPISCOPE_EINVAL;
    pool = calloc(1, sizeof *pool);
    if (!pool)
        return MPISCOPE_ENOMEM;
    pool->cold = cold != 0;
    pool->alignment_bytes = alignment_bytes;
    pool->limit_bytes = limit_bytes ? limit_bytes : POOL_DEFAULT_LIMIT_BYTES;
#ifdef MPISCOPE_SMPI
    /* SimGrid simulates no cache, and all simulated ranks share one
     * process: a pool of 2 x LLC per rank would cost ranks x 2 x LLC of
     * memory (16 GB for 64 ranks here) and change no simulated time. */
    pool->llc_bytes = 0;
#else
    pool->llc_bytes = mpiscope__llc_bytes();
    /* MPISCOPE_COLD_REGION=1: the region mode, to compare both (bench/sweep_wall.py) */
    pool->flush = POOL_CAN_FLUSH && !(getenv("MPISCOPE_COLD_REGION") && getenv("MPISCOPE_COLD_REGION")[0] == '1');
#endif
    pool->stage_launches = POOL_MIN_COLD_SLOTS;
    pool->rng = POOL_SHUFFLE_SEED;
    *out = pool;
    return 0;
}

/* Free the region's allocation, the way it was made. */
static void release_raw(mpiscope__buffer_pool_t *pool)
{
#ifdef MPISCOPE_SMPI
    if (pool->raw_shared && pool->raw) {
        SMPI_SHARED_FREE(pool->raw);
        pool->raw = NULL;
    }
#endif
    free(pool->raw);
    pool->raw = NULL;
    pool->raw_bytes = pool->capacity_bytes = 0;
    pool->raw_shared = 0;
}

void mpiscope__buffer_pool_destroy(mpiscope__buffer_pool_t *pool)
{
    if (!pool)
        return;
    release_raw(pool);
    free(pool);
}

void mpiscope__buffer_pool_set_shared(mpiscope__buffer_pool_t *pool, int shared)
{
#ifdef MPISCOPE_SMPI
    pool->shared = shared != 0;
#else
    (void)pool;
    (void)shared;
#endif
}

void mpiscope__buffer_pool_info(const mpiscope__buffer_pool_t *pool, mpiscope__buffer_pool_info_t *info)
{
    *info = (mpiscope__buffer_pool_info_t){
        .cold = pool->cold,
        .flush = pool->cold && pool->flush && pool->slots > 1,
        .alignment_bytes = pool->alignment_bytes,
        .limit_bytes = pool->limit_bytes,
        .llc_bytes = pool->llc_bytes,
        .slot_bytes = pool->slot_bytes,
        .slots = pool->slots,
        .region_bytes = pool->slots * pool->slot_bytes,
        .flushed_slots = pool->flushed_slots,
    };
}

static size_t saturating_double(size_t n)
{
    return n > SIZE_MAX / 2 ? SIZE_MAX : 2 * n;
}

/* Flush mode: one slot per launch of a stage. Else min(limit, max(2 * LLC,
 * 2 * slot)) worth of slots. Within [2, 4096] either way. */
static size_t cold_slot_count(const mpiscope__buffer_pool_t *pool, size_t slot_bytes)
{
    size_t target = saturating_double(pool->llc_bytes);
    size_t slots;

    if (pool->flush) {
        slots = pool->stage_launches;
        if (slots > pool->limit_bytes / slot_bytes)
            slots = pool->limit_bytes / slot_bytes;
        return slots < POOL_MIN_COLD_SLOTS   ? POOL_MIN_COLD_SLOTS
               : slots > POOL_MAX_COLD_SLOTS ? POOL_MAX_COLD_SLOTS
                                             : slots;
    }

    if (target < saturating_double(slot_bytes))
        target = saturating_double(slot_bytes);
    if (target > pool->limit_bytes)
        target = pool->limit_bytes;
    slots = target / slot_bytes;
    if (slots < POOL_MIN_COLD_SLOTS)
        return POOL_MIN_COLD_SLOTS;
    return slots > POOL_MAX_COLD_SLOTS ? POOL_MAX_COLD_SLOTS : slots;
}

/* Round up to the alignment, with at least one aligned unit: every buffer
 * pointer is then valid and distinct, even for 0 bytes (some MPI libraries
 * reject NULL buffers even with a zero count). */
static int aligned_size(const mpiscope__buffer_pool_t *pool, size_t bytes, size_t *out)
{
    size_t a = pool->alignment_bytes;

    if (bytes > SIZE_MAX - a)
        return MPISCOPE_ERANGE;
    *out = bytes == 0 ? a : (bytes + a - 1) / a * a;
    return 0;
}

/* Grown with realloc, which keeps (and for large regions remaps, without
 * copying) the bytes already filled: only the new tail is filled, so an
 * ascending sweep faults each page once, not once per point. Every byte is
 * the fill byte or a launch's data, so the region may start at another
 * offset of the allocation after a move. */
static int grow_region(mpiscope__buffer_pool_t *pool, size_t bytes)
{
    if (bytes <= pool->capacity_bytes && pool->raw_shared == pool->shared)
        return 0;
    size_t align = pool->alignment_bytes;
    if (bytes > SIZE_MAX - align)
        return MPISCOPE_ERANGE;
    size_t want = bytes + align - 1;
    if (pool->shared || pool->raw_shared) /* a new region (shared memory is not realloc's) */
        release_raw(pool);
#ifdef MPISCOPE_SMPI
    unsigned char *raw = pool->shared ? SMPI_SHARED_MALLOC(want) : realloc(pool->raw, want);
#else
    unsigned char *raw = realloc(pool->raw, want);
#endif
    if (!raw)
        return MPISCOPE_ENOMEM;                                            /* the old region stays whole */
    memset(raw + pool->raw_bytes, POOL_FILL_BYTE, want - pool->raw_bytes); /* fault its pages in now */
    pool->raw_shared = pool->shared;
    pool->raw = raw;
    pool->raw_bytes = want;
    pool->region = raw + (align - (uintptr_t)raw % align) % align;
    pool->capacity_bytes = bytes;
    return 0;
}

/* splitmix64: a tiny, well-mixed generator; quality needs are modest. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static void shuffle_order(mpiscope__buffer_pool_t *pool)
{
    for (size_t i = 0; i < pool->slots; i++)
        pool->order[i] = (uint16_t)i;
    for (size_t i = pool->slots; i > 1; i--) { /* Fisher-Yates */
        size_t j = (size_t)(next_random(&pool->rng) % i);
        uint16_t tmp = pool->order[i - 1];
        pool->order[i - 1] = pool->order[j];
        pool->order[j] = tmp;
    }
}

static int pool_reserve(mpiscope__buffer_pool_t *pool, size_t send_bytes, size_t recv_bytes, int fixed)
{
    size_t send_aligned, recv_aligned, slot_bytes, slots;
    int rc;

    pool->slots = 0;
    if ((rc = aligned_size(pool, send_bytes, &send_aligned)) != 0
        || (rc = aligned_size(pool, recv_bytes, &recv_aligned)) != 0)
        return rc;
    if (send_aligned > SIZE_MAX - recv_aligned)
        return MPISCOPE_ERANGE;
    slot_bytes = send_aligned + recv_aligned;
    slots = pool->cold && !fixed ? cold_slot_count(pool, slot_bytes) : 1;
    if (slot_bytes > SIZE_MAX / slots)
        return MPISCOPE_ERANGE;
    if ((rc = grow_region(pool, slots * slot_bytes)) != 0)
        return rc;
    pool->recv_offset_bytes = send_aligned;
    pool->slot_bytes = slot_bytes;
    pool->slots = slots;
    shuffle_order(pool);
    pool->all_touched = 1; /* filled, or used by the points before */
    return 0;
}

static mpiscope__buffer_pool_t *ctx_pool(const mpiscope_op_ctx_t *ctx)
{
    const mpiscope__op_engine_t *engine = ctx ? ctx->engine : NULL;
    return engine ? engine->pool : NULL;
}

static int ctx_buffers(mpiscope_op_ctx_t *ctx, size_t send_bytes, size_t recv_bytes, int fixed)
{
    mpiscope__buffer_pool_t *pool = ctx_pool(ctx);
    int rc;

    if (!pool)
        return MPISCOPE_EINVAL;
    rc = pool_reserve(pool, send_bytes, recv_bytes, fixed);
    mpiscope__op_ctx_select_buffers(ctx, 0);
    return rc;
}

int mpiscope_op_ctx_buffers(mpiscope_op_ctx_t *ctx, size_t send_bytes, size_t recv_bytes)
{
    return ctx_buffers(ctx, send_bytes, recv_bytes, 0);
}

int mpiscope_op_ctx_buffers_fixed(mpiscope_op_ctx_t *ctx, size_t send_bytes, size_t recv_bytes)
{
    return ctx_buffers(ctx, send_bytes, recv_bytes, 1);
}

void mpiscope__op_ctx_select_buffers(mpiscope_op_ctx_t *ctx, size_t launch)
{
    mpiscope__buffer_pool_t *pool = ctx_pool(ctx);
    unsigned char *slot;

    ctx->launch = launch;
    if (!pool || pool->slots == 0) {
        ctx->send = ctx->recv = NULL;
        return;
    }
    size_t index = pool->order[launch % pool->slots];
    pool->touched[index] = 1;
    slot = pool->region + index * pool->slot_bytes;
    ctx->send = slot;
    ctx->recv = slot + pool->recv_offset_bytes;
}

void mpiscope__op_ctx_release_buffers(mpiscope_op_ctx_t *ctx)
{
    mpiscope__buffer_pool_t *pool = ctx_pool(ctx);

    if (pool)
        pool->slots = 0;
    ctx->send = ctx->recv = NULL;
}

void mpiscope__buffer_pool_set_cold(mpiscope__buffer_pool_t *pool, int cold)
{
    pool->cold = cold != 0; /* takes effect at the next point's buffer request */
}

void mpiscope__buffer_pool_set_stage_launches(mpiscope__buffer_pool_t *pool, size_t launches)
{
    pool->stage_launches = launches; /* takes effect at the next point's buffer request */
}

void mpiscope__buffer_pool_set_flush(mpiscope__buffer_pool_t *pool, int flush)
{
    pool->flush = flush && POOL_CAN_FLUSH;
}

#if defined(__x86_64__) || defined(__i386__)
/* clflushopt (CPUID leaf 7, EBX bit 23) evicts like clflush but the flushes
 * of a region overlap instead of running one after another: 78 us instead
 * of 2.3 ms for a dirty MiB here, where flushing was a quarter of a sweep's
 * CPU time. Asked once: CPUID traps to the hypervisor. */
static int has_clflushopt(void)
{
    static int known = -1;
    if (known < 0) {
        unsigned a, b, c, d;
        known = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 23));
    }
    return known;
}

__attribute__((target("clflushopt"))) static void flush_region_opt(const unsigned char *p, const unsigned char *end)
{
    for (; p < end; p += POOL_FLUSH_STRIDE)
        _mm_clflushopt((void *)p);
    _mm_sfence(); /* orders the clflushopts: every line is out after it */
}
#endif

/* Every line of [p, end) out of every cache level, before the caller's
 * next clock read. */
static void flush_region(const unsigned char *p, const unsigned char *end)
{
#if defined(__x86_64__) || defined(__i386__)
    if (has_clflushopt()) {
        flush_region_opt(p, end);
        return;
    }
    for (; p < end; p += POOL_FLUSH_STRIDE)
        _mm_clflush(p);
    _mm_mfence();
#elif defined(__aarch64__)
    for (; p < end; p += POOL_FLUSH_STRIDE)
        __asm__ volatile("dc civac, %0" : : "r"(p) : "memory");
    __asm__ volatile("dsb ish" : : : "memory");
#else
    (void)p;
    (void)end;
#endif
}

/* Only the slots used since the last flush: a stage of 2 launches (the
 * last of a large point, mpiscope__samples_stage_k) flushed all 8, and at
 * 1 MiB on the AMD EPYC VM each costs ~0.3 ms. */
int mpiscope__buffer_pool_flush(mpiscope__buffer_pool_t *pool)
{
    if (!pool || !pool->cold || !pool->flush || pool->slots < 2)
        return 0;
    pool->flushed_slots = 0;
    if (pool->all_touched) {
        flush_region(pool->region, pool->region + pool->slots * pool->slot_bytes);
        pool->flushed_slots = pool->slots;
    } else
        for (size_t i = 0; i < pool->slots; i++)
            if (pool->touched[i]) {
                unsigned char *slot = pool->region + i * pool->slot_bytes;
                flush_region(slot, slot + pool->slot_bytes);
                pool->flushed_slots++;
            }
    pool->all_touched = 0;
    memset(pool->touched, 0, pool->slots);
    return 1;
}

size_t mpiscope__buffer_pool_slot_of(const mpiscope__buffer_pool_t *pool, size_t launch)
{
    return pool->slots ? pool->order[launch % pool->slots] : 0;
}
