/* pack.c: a full half as a THRC block (docs/trace-format.md), a fifth of
 * its raw size for a loop's calls.
 *
 * Writing a record costs what the kernel takes to copy its bytes into the
 * page cache, ~0.16 ns per byte here: 10 ns of a 64-byte record, a third
 * of the tracer's whole cost per call (bench/trace_parts.c). A thread's
 * calls repeat the 48 bytes after the stamps (communicator, request, site,
 * size, peer, tag, root, function, flags) as loops do, so a block keeps
 * each distinct one once, in a table, and per record a 16-bit code into
 * it, the 32-bit step from the previous record's enter stamp and the
 * 32-bit duration: 10 bytes. A step or duration that does not fit is an
 * exception, kept whole in a list after the columns. A block with more
 * distinct records than MPISCOPE__TRACE_PACK_TEMPLATES, or that would not
 * be smaller, stays raw (THRD). Packing runs at the end of the call that
 * filled the half, like its write: in no call's time. */
#include <string.h>
#include "trace_pack.h"

enum { ESCAPE = 0xFFFFFFFFu, TEMPLATE_BYTES = 48, HINTS = 256 };

typedef struct pack_head {
    mpiscope__trace_block_head_t block; /* tag THRC */
    uint32_t templates;                 /* distinct 48-byte tails */
    uint32_t enter_exceptions;
    uint32_t exit_exceptions;
    uint32_t reserved3;
    uint64_t base; /* enter stamp the first step is from */
} pack_head_t;

_Static_assert(sizeof(pack_head_t) == 64, "THRC head is 64 bytes");
_Static_assert(sizeof(mpiscope_trace_record_t) == 16 + TEMPLATE_BYTES, "stamps, then the tail");

static size_t pad8(size_t n)
{
    return (n + 7) / 8 * 8;
}

static uint64_t templates_max(uint64_t capacity)
{
    return capacity < MPISCOPE__TRACE_PACK_TEMPLATES ? capacity : MPISCOPE__TRACE_PACK_TEMPLATES;
}

/* Slots of the hash table: a power of two, at least twice the templates. */
static uint64_t slots_for(uint64_t templates)
{
    uint64_t s = 16;
    while (s < 2 * templates)
        s *= 2;
    return s;
}

/* The largest block of `capacity` records: head, table, the three
 * columns, every step and duration an exception. */
static size_t block_room(uint64_t capacity)
{
    return pad8(sizeof(pack_head_t) + templates_max(capacity) * TEMPLATE_BYTES + pad8(capacity * 2)
                + 2 * pad8(capacity * 4) + 2 * capacity * 8);
}

size_t mpiscope__trace_pack_room(uint64_t capacity)
{
    size_t scratch = (slots_for(templates_max(capacity)) + HINTS) * sizeof(uint16_t) + capacity * 8 * 2;
    return block_room(capacity) + scratch;
}

static const char *tail(const mpiscope_trace_record_t *r)
{
    return (const char *)r + 16;
}

static uint64_t hash_tail(const char *p)
{
    uint64_t w[6];
    memcpy(w, p, sizeof w);
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 6; i++)
        h = (h ^ w[i]) * 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 31);
}

size_t mpiscope__trace_pack(char *room, uint64_t capacity, const mpiscope_trace_record_t *r, uint64_t n, unsigned index,
                            uint64_t first)
{
    if (n == 0 || n > capacity)
        return 0;
    uint64_t tmax = templates_max(capacity), nslots = slots_for(tmax);
    size_t end = block_room(capacity);
    /* scratch after the block's room: hash slots (template + 1, 0 free),
     * the last template of each call site, the exceptions */
    uint16_t *slots = (uint16_t *)(room + end);
    uint16_t *hints = slots + nslots;
    uint64_t *enter_exc = (uint64_t *)(room + end + (nslots + HINTS) * sizeof(uint16_t));
    uint64_t *exit_exc = enter_exc + capacity;
    memset(slots, 0, (nslots + HINTS) * sizeof(uint16_t));

    char *templates = room + sizeof(pack_head_t);
    /* columns are placed once the table's size is known: written first to
     * the end of the room, where they fit whatever it becomes */
    uint16_t *codes = (uint16_t *)(room + end - 2 * pad8(capacity * 4) - pad8(capacity * 2));
    uint32_t *steps = (uint32_t *)(room + end - 2 * pad8(capacity * 4));
    uint32_t *spans = (uint32_t *)(room + end - pad8(capacity * 4));
    uint64_t ntemplates = 0, nenter = 0, nexit = 0, prev = r[0].t_enter;
    for (uint64_t i = 0; i < n; i++) {
        const char *key = tail(&r[i]);
        unsigned hint = (unsigned)((r[i].site * 0x9E3779B97F4A7C15ull) >> 56);
        uint64_t code = hints[hint];
        if (code == 0 || memcmp(templates + (code - 1) * TEMPLATE_BYTES, key, TEMPLATE_BYTES)) {
            uint64_t s = hash_tail(key) & (nslots - 1);
            while ((code = slots[s]) != 0 && memcmp(templates + (code - 1) * TEMPLATE_BYTES, key, TEMPLATE_BYTES))
                s = (s + 1) & (nslots - 1);
            if (code == 0) {
                if (ntemplates == tmax)
                    return 0; /* too varied: raw */
                memcpy(templates + ntemplates * TEMPLATE_BYTES, key, TEMPLATE_BYTES);
                code = slots[s] = (uint16_t)++ntemplates;
            }
            hints[hint] = (uint16_t)code;
        }
        codes[i] = (uint16_t)(code - 1);
        uint64_t step = r[i].t_enter - prev, span = r[i].t_exit - r[i].t_enter;
        prev = r[i].t_enter;
        if (step >= ESCAPE) {
            steps[i] = ESCAPE;
            enter_exc[nenter++] = step;
        } else {
            steps[i] = (uint32_t)step;
        }
        if (span >= ESCAPE) { /* t_exit - t_enter modulo 2^64, as the reader adds it back */
            spans[i] = ESCAPE;
            exit_exc[nexit++] = r[i].t_exit; /* whole: 0 when the call had not returned */
        } else {
            spans[i] = (uint32_t)span;
        }
    }
    size_t at = sizeof(pack_head_t) + ntemplates * TEMPLATE_BYTES;
    size_t size = at + pad8(n * 2) + 2 * pad8(n * 4) + (nenter + nexit) * 8;
    if (size >= MPISCOPE__TRACE_RAW_BLOCK(n))
        return 0; /* not smaller */
    memmove(room + at, codes, n * 2);
    memset(room + at + n * 2, 0, pad8(n * 2) - n * 2);
    at += pad8(n * 2);
    memmove(room + at, steps, n * 4);
    memset(room + at + n * 4, 0, pad8(n * 4) - n * 4);
    at += pad8(n * 4);
    memmove(room + at, spans, n * 4);
    memset(room + at + n * 4, 0, pad8(n * 4) - n * 4);
    at += pad8(n * 4);
    memcpy(room + at, enter_exc, nenter * 8);
    at += nenter * 8;
    memcpy(room + at, exit_exc, nexit * 8);
    pack_head_t head = {{{'T', 'H', 'R', 'C'}, 0, size - 16, index, 0, n, first},
                        (uint32_t)ntemplates,
                        (uint32_t)nenter,
                        (uint32_t)nexit,
                        0,
                        r[0].t_enter};
    memcpy(room, &head, sizeof head);
    return size;
}
