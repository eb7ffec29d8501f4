/* pack_records: the tracer's packer (src/tracer/pack.c) on synthetic
 * records, for tests/python/test_trace_pack.py, which reads both files:
 *
 *   pack_records OUT_DIR SEED
 *
 * writes OUT_DIR/raw.bin (every record, 64 bytes each, in order) and
 * OUT_DIR/packed.bin (per block of BLOCK records: u64 first record, u64
 * count, u64 chunk bytes (0: the packer kept it raw), then the chunk).
 * Blocks of several kinds: a loop's few kinds of calls; one kind per
 * record (more than the packer's table: kept raw); steps and durations
 * beyond 32 bits, calls that had not returned, stamps that wrap. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "trace_pack.h"

enum { BLOCK = 5000, BLOCKS = 8 };

static uint64_t state;

static uint64_t next(void)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static void tail(mpiscope_trace_record_t *r, uint64_t kind)
{
    r->comm = 0x44000000u + kind % 3;
    r->request = kind % 5 ? 0 : 0xAC000000u + kind;
    r->site = 0x555555554000ull + 64 * (kind % 7);
    r->bytes = kind % 4 ? (int64_t)(8 << (kind % 10)) : -1;
    r->peer = (int32_t)(kind % 2);
    r->tag = kind % 11 ? (int32_t)kind : MPISCOPE_TRACE_NONE;
    r->root = MPISCOPE_TRACE_NONE;
    r->func = (uint16_t)(kind % 300);
    r->flags = (uint16_t)(kind % 13 ? 0 : MPISCOPE_TRACE_F_PART);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: pack_records OUT_DIR SEED\n");
        return 2;
    }
    state = strtoull(argv[2], NULL, 10) * 2654435761u + 1;
    static mpiscope_trace_record_t r[BLOCK * BLOCKS];
    uint64_t t = 1000;
    for (uint64_t b = 0; b < BLOCKS; b++)
        for (uint64_t i = b * BLOCK; i < (b + 1) * BLOCK; i++) {
            memset(&r[i], 0, sizeof r[i]);
            uint64_t kind = next() % 6;
            if (b == 1)
                kind = i; /* every record its own kind */
            else if (b == 2)
                kind = next() % 3000; /* many kinds, under the table's size */
            tail(&r[i], kind);
            uint64_t step = next() % 5000, span = next() % 20000;
            if (b == 3 && next() % 4 == 0)
                step = (next() % 8 + 1) << 32; /* a compute phase of seconds */
            if (b == 4 && next() % 5 == 0)
                span = (next() % 8 + 1) << 32;
            if (b == 5 && i == b * BLOCK + 7)
                t = UINT64_MAX - 30000; /* the counter wraps within the block */
            t += step;
            r[i].t_enter = t;
            r[i].t_exit = t + span;
            if (b == 6 && next() % 50 == 0)
                r[i].t_exit = 0; /* had not returned */
            if (b == 7 && next() % 50 == 0)
                r[i].t_enter = r[i].t_exit = 0; /* a slot taken, never stamped */
        }
    char path[4096];
    snprintf(path, sizeof path, "%s/raw.bin", argv[1]);
    FILE *raw = fopen(path, "wb");
    snprintf(path, sizeof path, "%s/packed.bin", argv[1]);
    FILE *packed = fopen(path, "wb");
    if (!raw || !packed) {
        perror("pack_records");
        return 1;
    }
    fwrite(r, sizeof r[0], BLOCK * BLOCKS, raw);
    char *room = aligned_alloc(64, (mpiscope__trace_pack_room(BLOCK) + 63) / 64 * 64);
    for (uint64_t b = 0; b < BLOCKS; b++) {
        /* the last block short of a half, as a run's last one is */
        uint64_t n = b == BLOCKS - 1 ? BLOCK - 123 : BLOCK;
        uint64_t first = b * BLOCK;
        uint64_t size = mpiscope__trace_pack(room, BLOCK, &r[first], n, 3, first);
        uint64_t head[3] = {first, n, size};
        fwrite(head, sizeof head, 1, packed);
        fwrite(room, 1, size, packed);
    }
    free(room);
    return fclose(raw) || fclose(packed);
}
