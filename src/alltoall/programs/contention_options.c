/* contention_options.c: the command line of mpiscope-contention. */
#include "contention.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] =
    "usage: mpiscope-contention [--sizes B,B,...] [--iterations N] [--warmup N] [--stream-bytes B]\n"
    "         [--window N] [--streamers others|all] [--nodes K] [--timer NAME] [--out FILE]\n"
    "Small-message ping-pong latency between the first ranks of nodes 0 and 1, without and\n"
    "with the other ranks streaming to the next node (docs/alltoall-contention.md).";

static int integer(const char *text, long min, long max, long *out)
{
    char *end;
    long value;

    errno = 0;
    value = strtol(text, &end, 10);
    if (errno || end == text || *end != '\0' || value < min || value > max)
        return -1;
    *out = value;
    return 0;
}

static int sizes(const char *text, contention_options_t *o)
{
    char copy[1024], *save = NULL, *item;
    long value;

    if (strlen(text) >= sizeof copy || !*text)
        return -1;
    strcpy(copy, text);
    o->n_sizes = 0;
    for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (o->n_sizes == CONTENTION_MAX_SIZES || integer(item, 0, INT_MAX, &value) != 0)
            return -1;
        o->sizes_bytes[o->n_sizes++] = (size_t)value;
    }
    return o->n_sizes ? 0 : -1;
}

static int fail(char *message, size_t size, const char *flag, const char *value, const char *why)
{
    snprintf(message, size, "%s %s: %s", flag, value, why);
    return -1;
}

int contention_parse(int argc, char **argv, contention_options_t *o, char *message, size_t size)
{
    long value;

    *o = (contention_options_t){.sizes_bytes = {8, 64, 1024},
                                .n_sizes = 3,
                                .iterations = 1000,
                                .warmup = 50,
                                .stream_bytes = 65536,
                                .window = 16,
                                .timer = MPISCOPE_TIMER_AUTO};
    for (int i = 1; i < argc; i++) {
        const char *flag = argv[i], *arg = i + 1 < argc ? argv[i + 1] : NULL;

        if (strcmp(flag, "--help") == 0 || strcmp(flag, "-h") == 0) {
            snprintf(message, size, "%s", usage);
            return 1;
        }
        if (strncmp(flag, "--", 2) != 0) {
            snprintf(message, size, "unexpected argument '%s'", flag);
            return -1;
        }
        if (!arg) {
            snprintf(message, size, "%s: missing value", flag);
            return -1;
        }
        i++;
        if (strcmp(flag, "--sizes") == 0) {
            if (sizes(arg, o) != 0)
                return fail(message, size, flag, arg, "want a list of byte counts B,B,... (at most 64)");
        } else if (strcmp(flag, "--iterations") == 0 || strcmp(flag, "--warmup") == 0) {
            if (integer(arg, flag[2] == 'i' ? 1 : 0, 100000000L, &value) != 0)
                return fail(message, size, flag, arg, "out of range");
            *(flag[2] == 'i' ? &o->iterations : &o->warmup) = value;
        } else if (strcmp(flag, "--stream-bytes") == 0) {
            if (integer(arg, 1, INT_MAX, &o->stream_bytes) != 0)
                return fail(message, size, flag, arg, "out of range (1 .. 2^31-1)");
        } else if (strcmp(flag, "--window") == 0) {
            if (integer(arg, 1, 4096, &value) != 0)
                return fail(message, size, flag, arg, "out of range (1 .. 4096)");
            o->window = (int)value;
        } else if (strcmp(flag, "--streamers") == 0) {
            if (strcmp(arg, "others") != 0 && strcmp(arg, "all") != 0)
                return fail(message, size, flag, arg, "want others or all");
            o->streamers_all = strcmp(arg, "all") == 0;
        } else if (strcmp(flag, "--nodes") == 0) {
            if (integer(arg, 2, INT_MAX, &value) != 0)
                return fail(message, size, flag, arg, "want at least 2 nodes");
            o->nodes = (int)value;
        } else if (strcmp(flag, "--timer") == 0) {
            if (mpiscope_timer_parse(arg, &o->timer) != 0)
                return fail(message, size, flag, arg, "want auto, tsc, monotonic, gettimeofday or wtime");
        } else if (strcmp(flag, "--out") == 0) {
            o->out = arg;
        } else {
            snprintf(message, size, "unknown option %s", flag);
            return -1;
        }
    }
    return 0;
}
