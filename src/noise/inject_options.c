/* inject_options.c: parsing and checking mpiscope-inject's options. */
#include <stdio.h>
#include "mpiscope/error.h"
#include "cli.h"
#include "inject_options.h"

const char mpiscope__inject_usage[] =
    "usage: mpiscope-inject --hz F --burst-ns B [--core K] [--jitter J] [--seconds S] [--seed N]\n"
    "Plays a periodic agent: every 1/F s burns B ns of its own CPU time (pinned to core K),\n"
    "until S seconds have passed or SIGTERM / SIGINT; then prints its summary and exits 0.\n";

int mpiscope__inject_options_parse(int argc, char **argv, mpiscope__inject_options_t *o, char *err, size_t errlen)
{
    *o = (mpiscope__inject_options_t){.hz = -1, .burst_ns = -1, .core = -1, .seed = 1};
    const mpiscope__cli_option_t table[] = {
        {.name = "hz", .kind = MPISCOPE__CLI_DOUBLE, .value = &o->hz, .min = 0, .max = 1e6, .min_exclusive = 1},
        {.name = "burst-ns", .kind = MPISCOPE__CLI_DOUBLE, .value = &o->burst_ns, .min = 0, .max = 1e12},
        {.name = "core", .kind = MPISCOPE__CLI_INT, .value = &o->core, .min = 0, .max = MPISCOPE__NOISE_MAX_CPUS - 1},
        {.name = "jitter", .kind = MPISCOPE__CLI_DOUBLE, .value = &o->jitter, .min = 0, .max = 0.999999},
        {.name = "seconds",
         .kind = MPISCOPE__CLI_DOUBLE,
         .value = &o->seconds,
         .min = 0,
         .max = 1e7,
         .min_exclusive = 1},
        {.name = "seed", .kind = MPISCOPE__CLI_INT, .value = &o->seed, .min = 0, .max = 9e15},
    };
    int rc = mpiscope__cli_parse(table, sizeof table / sizeof *table, argc, argv, 1, err, errlen);
    if (rc != 0)
        return rc;
    if (o->hz < 0 || o->burst_ns < 0) {
        snprintf(err, errlen, "mpiscope-inject needs --hz F and --burst-ns B");
        return MPISCOPE_EINVAL;
    }
    if (o->burst_ns >= 1e9 / o->hz) {
        snprintf(err, errlen, "--burst-ns %.9g: not shorter than the period (%.9g ns at %g Hz)", o->burst_ns,
                 1e9 / o->hz, o->hz);
        return MPISCOPE_EINVAL;
    }
    return 0;
}
