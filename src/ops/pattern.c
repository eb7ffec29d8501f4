/* pattern.c: writing and checking the validation data of messages. */
#include "pattern.h"
#include "mpiscope/error.h"

#include <stdint.h>

unsigned char mpiscope__pattern_byte(int from, size_t block, size_t launch, size_t k)
{
    uint32_t h = (uint32_t)from * 2654435761u ^ (uint32_t)block * 40503u ^ (uint32_t)launch * 2246822519u;
    unsigned v = (unsigned)((h >> 7) + 3u * (uint32_t)k) % 255u;
    return (unsigned char)(v + (v >= MPISCOPE__POISON)); /* skips the poison value */
}

void mpiscope__pattern_fill(void *buf, const mpiscope__layout_t *layout, int from, size_t block, size_t launch)
{
    const mpiscope__layout_t *l = layout;
    unsigned char *unit = buf;
    size_t k = 0;

    for (size_t u = 0; u < l->units; u++, unit += l->unit_extent)
        for (size_t p = 0; p < l->n_pieces; p++)
            for (size_t i = 0; i < l->piece_length[p]; i++)
                unit[l->piece_offset[p] + i] = mpiscope__pattern_byte(from, block, launch, k++);
}

/* Where a check stands: the message, and how far into its span. */
typedef struct cursor {
    mpiscope_op_ctx_t *ctx;
    const unsigned char *span;
    const char *what;
    size_t index;
    int from;
    size_t block;
} cursor_t;

static int report(const cursor_t *c, size_t offset, unsigned char want)
{
    if (c->from < 0)
        return mpiscope_op_ctx_mismatch(c->ctx,
                                        "rank %d: %s %zu byte %zu: got 0x%02x where nothing should "
                                        "have arrived",
                                        c->ctx->rank, c->what, c->index, offset, c->span[offset]);
    return mpiscope_op_ctx_mismatch(c->ctx,
                                    "rank %d: %s %zu byte %zu: got 0x%02x, want 0x%02x (block %zu of "
                                    "rank %d, launch %zu)",
                                    c->ctx->rank, c->what, c->index, offset, c->span[offset], want, c->block, c->from,
                                    c->ctx->launch);
}

/* Bytes [from, to) of the span must still be poison. */
static int check_gap(const cursor_t *c, size_t from, size_t to)
{
    for (size_t i = from; i < to; i++)
        if (c->span[i] != MPISCOPE__POISON)
            return report(c, i, MPISCOPE__POISON);
    return 0;
}

static int check_data(const cursor_t *c, size_t offset, size_t length, size_t *k)
{
    for (size_t i = offset; i < offset + length; i++, (*k)++) {
        unsigned char want =
            c->from < 0 ? MPISCOPE__POISON : mpiscope__pattern_byte(c->from, c->block, c->ctx->launch, *k);
        if (c->span[i] != want)
            return report(c, i, want);
    }
    return 0;
}

int mpiscope__pattern_check(mpiscope_op_ctx_t *ctx, const void *buf, const mpiscope__layout_t *layout, int from,
                            size_t block, const char *what, size_t index)
{
    const mpiscope__layout_t *l = layout;
    cursor_t c = {.ctx = ctx, .span = buf, .what = what, .index = index, .from = from, .block = block};
    size_t k = 0, at = 0;
    int rc = 0;

    for (size_t u = 0; !rc && u < l->units; u++) {
        size_t base = u * l->unit_extent;
        for (size_t p = 0; !rc && p < l->n_pieces; p++) {
            size_t start = base + l->piece_offset[p];
            rc = check_gap(&c, at, start);
            if (!rc)
                rc = check_data(&c, start, l->piece_length[p], &k);
            at = start + l->piece_length[p];
        }
    }
    return rc ? rc : check_gap(&c, at, l->span_bytes);
}

int mpiscope__pattern_check_each(mpiscope_op_ctx_t *ctx, const void *buf, const mpiscope__layout_t *layout, size_t n,
                                 int from, size_t block)
{
    const unsigned char *at = buf;
    int rc = 0;

    for (size_t j = 0; !rc && j < n; j++, at += layout->span_bytes)
        rc = mpiscope__pattern_check(ctx, at, layout, from, block, "recv message", j);
    return rc;
}
