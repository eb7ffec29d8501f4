/* example_args.h: the few command-line helpers the trace examples share. */
#ifndef MPISCOPE_EXAMPLE_ARGS_H
#define MPISCOPE_EXAMPLE_ARGS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The value after `name` in argv, or `fallback`. */
static inline const char *example_arg(int argc, char **argv, const char *name, const char *fallback)
{
    for (int i = 1; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return fallback;
}

static inline long example_long(int argc, char **argv, const char *name, long fallback)
{
    const char *text = example_arg(argc, argv, name, NULL);
    if (!text)
        return fallback;
    char *end;
    long v = strtol(text, &end, 10);
    if (*end || v < 0) {
        fprintf(stderr, "%s: error: %s needs a whole number >= 0, not '%s'\n", argv[0], name, text);
        exit(2);
    }
    return v;
}

/* Sleep (not spin) for ms milliseconds: the late rank really is idle. */
static inline void example_sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

#endif
