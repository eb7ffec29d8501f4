/* options.c: mpiscope-bench's command line: each plan flag names a plan
 * field, and the library reads the flags' texts as the same JSON plan a
 * plan file holds (one validation for flags and plan files). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"

enum {
    OPT_OPS = 256,
    OPT_SIZES,
    OPT_NPROCS,
    OPT_TIMER,
    OPT_SYNC,
    OPT_STOP,
    OPT_TARGET_RSE,
    OPT_MIN_VALID,
    OPT_MAX_VALID,
    OPT_MAX_LAUNCHES,
    OPT_MAX_POINT_SECONDS,
    OPT_CONFIDENCE,
    OPT_TRIM,
    OPT_CACHE,
    OPT_ALIGN,
    OPT_ROOT,
    OPT_DTYPE,
    OPT_REDUCE_OP,
    OPT_WINDOW_MIN,
    OPT_K,
    OPT_K_INIT,
    OPT_GAMMA,
    OPT_INVALID_THRESHOLD,
    OPT_OUT,
    OPT_FORCE,
    OPT_RAW,
    OPT_OVERSUBSCRIBED,
    OPT_META,
    OPT_OP_OPTION,
    OPT_PROGRESS,
    OPT_LIST_OPS,
    OPT_HELP,
    OPT_SYNC_PATIENCE,
    OPT_VALIDATE,
    OPT_RESYNC,
    OPT_METHOD,
    OPT_GAP,
    OPT_WINDOW,
    OPT_ARRIVAL,
    OPT_SHUFFLE,
    OPT_RANKS,
    OPT_FIRSTCALL,
    OPT_CHECK,
    OPT_DRIFT_SECONDS,
    OPT_PLAN,
    OPT_DESCRIBE,
    OPT_VERIFY,
    OPT_THREAD_LEVEL,
    OPT_STARTUP
};

static const struct option long_options[] = {
    {"ops", required_argument, 0, OPT_OPS},
    {"sizes", required_argument, 0, OPT_SIZES},
    {"nprocs", required_argument, 0, OPT_NPROCS},
    {"timer", required_argument, 0, OPT_TIMER},
    {"sync", required_argument, 0, OPT_SYNC},
    {"sync-patience", required_argument, 0, OPT_SYNC_PATIENCE},
    {"stop", required_argument, 0, OPT_STOP},
    {"target-rse", required_argument, 0, OPT_TARGET_RSE},
    {"min-valid", required_argument, 0, OPT_MIN_VALID},
    {"max-valid", required_argument, 0, OPT_MAX_VALID},
    {"max-launches", required_argument, 0, OPT_MAX_LAUNCHES},
    {"max-point-seconds", required_argument, 0, OPT_MAX_POINT_SECONDS},
    {"confidence", required_argument, 0, OPT_CONFIDENCE},
    {"trim", required_argument, 0, OPT_TRIM},
    {"cache", required_argument, 0, OPT_CACHE},
    {"align", required_argument, 0, OPT_ALIGN},
    {"root", required_argument, 0, OPT_ROOT},
    {"dtype", required_argument, 0, OPT_DTYPE},
    {"reduce-op", required_argument, 0, OPT_REDUCE_OP},
    {"window-min-ns", required_argument, 0, OPT_WINDOW_MIN},
    {"k", required_argument, 0, OPT_K},
    {"k-init", required_argument, 0, OPT_K_INIT},
    {"gamma", required_argument, 0, OPT_GAMMA},
    {"invalid-threshold", required_argument, 0, OPT_INVALID_THRESHOLD},
    {"out", required_argument, 0, OPT_OUT},
    {"force", no_argument, 0, OPT_FORCE},
    {"raw", no_argument, 0, OPT_RAW},
    {"validate", no_argument, 0, OPT_VALIDATE},
    {"resync", no_argument, 0, OPT_RESYNC},
    {"method", required_argument, 0, OPT_METHOD},
    {"gap-ns", required_argument, 0, OPT_GAP},
    {"window-ns", required_argument, 0, OPT_WINDOW},
    {"arrival", required_argument, 0, OPT_ARRIVAL},
    {"shuffle", required_argument, 0, OPT_SHUFFLE},
    {"ranks", required_argument, 0, OPT_RANKS},
    {"firstcall", no_argument, 0, OPT_FIRSTCALL},
    {"check", no_argument, 0, OPT_CHECK},
    {"drift-seconds", required_argument, 0, OPT_DRIFT_SECONDS},
    {"oversubscribed", no_argument, 0, OPT_OVERSUBSCRIBED},
    {"meta", required_argument, 0, OPT_META},
    {"op-option", required_argument, 0, OPT_OP_OPTION},
    {"progress", no_argument, 0, OPT_PROGRESS},
    {"list-ops", no_argument, 0, OPT_LIST_OPS},
    {"help", no_argument, 0, OPT_HELP},
    {"plan", required_argument, 0, OPT_PLAN},
    {"describe", no_argument, 0, OPT_DESCRIBE},
    {"verify", required_argument, 0, OPT_VERIFY},
    {"thread-level", required_argument, 0, OPT_THREAD_LEVEL},
    {"startup", required_argument, 0, OPT_STARTUP},
    {0, 0, 0, 0},
};

void bench_options_usage(void)
{
    puts("usage: mpiscope-bench --ops OP[,OP...] --out FILE [options]\n"
         "       mpiscope-bench --plan PLAN.json     (docs/plan-format.md)\n"
         "       mpiscope-bench --list-ops | --describe\n"
         "       mpiscope-bench --plan PLAN.json --verify N   (check it for N ranks, run nothing)\n"
         "Runs a measurement plan with the synchronized-window method and writes the\n"
         "result document. Normally started by `mpiscope run`; see docs/cli.md.\n"
         "options: --sizes B,B,... --nprocs N,N,... --timer auto|tsc|monotonic|gettimeofday|wtime\n"
         "  --sync linear|ring --sync-patience N --stop error|count --target-rse F --min-valid N\n"
         "  --max-valid N --max-launches N --max-point-seconds S --confidence P --trim F\n"
         "  --cache cold|warm --align BYTES --root R --dtype NAME --reduce-op NAME\n"
         "  --window-min-ns NS --k N --k-init N --gamma G --invalid-threshold F\n"
         "  --op-option NAME=VALUE --meta KEY=VALUE --raw --validate --resync --force\n"
         "  --oversubscribed --progress --ranks N (the ranks asked for: another number is an error)\n"
         "  --method M[,M...] (window roundtime barrier barrier-each none root max global\n"
         "  bcast-supinski) --gap-ns NS --window-ns NS --cache cold,warm --shuffle SEED\n"
         "  --arrival none|late:RANK:US|linear:US|random:US[:SEED]\n"
         "  --firstcall (first vs second call)  --check [--drift-seconds S] (machine check)\n"
         "  --thread-level single|funneled|serialized|multiple (MPI_Init_thread)\n"
         "  --startup init|init_thread|session (measure how MPI starts, then each first round trip)");
}

/* The plan field of each flag that carries one. */
static const struct {
    int code;
    const char *field;
} flag_fields[] = {
    {OPT_OPS, "ops"},
    {OPT_SIZES, "sizes"},
    {OPT_NPROCS, "nprocs"},
    {OPT_TIMER, "timer"},
    {OPT_SYNC, "sync"},
    {OPT_SYNC_PATIENCE, "sync_patience"},
    {OPT_STOP, "stop"},
    {OPT_TARGET_RSE, "target_rse"},
    {OPT_MIN_VALID, "min_valid"},
    {OPT_MAX_VALID, "max_valid"},
    {OPT_MAX_LAUNCHES, "max_launches"},
    {OPT_MAX_POINT_SECONDS, "max_point_seconds"},
    {OPT_CONFIDENCE, "confidence"},
    {OPT_TRIM, "trim"},
    {OPT_CACHE, "cache"},
    {OPT_ALIGN, "align"},
    {OPT_ROOT, "root"},
    {OPT_DTYPE, "dtype"},
    {OPT_REDUCE_OP, "reduce_op"},
    {OPT_WINDOW_MIN, "window_min_ns"},
    {OPT_K, "k"},
    {OPT_K_INIT, "k_init"},
    {OPT_GAMMA, "gamma"},
    {OPT_INVALID_THRESHOLD, "invalid_threshold"},
    {OPT_OUT, "out"},
    {OPT_FORCE, "force"},
    {OPT_RAW, "raw"},
    {OPT_VALIDATE, "validate"},
    {OPT_RESYNC, "resync"},
    {OPT_METHOD, "methods"},
    {OPT_GAP, "gap_ns"},
    {OPT_WINDOW, "window_ns"},
    {OPT_ARRIVAL, "arrival"},
    {OPT_SHUFFLE, "shuffle"},
    {OPT_RANKS, "ranks"},
    {OPT_FIRSTCALL, "firstcall"},
    {OPT_CHECK, "check"},
    {OPT_DRIFT_SECONDS, "drift_seconds"},
    {OPT_OVERSUBSCRIBED, "oversubscribed"},
    {OPT_META, "meta"},
    {OPT_OP_OPTION, "op_options"},
    {OPT_PROGRESS, "progress"},
    {OPT_THREAD_LEVEL, "thread_level"},
    {OPT_STARTUP, "startup"},
};
/* Every plan flag given, in order, as a field name and its text. */
typedef struct given {
    const char *names[512], *values[512];
    size_t n;
} given_t;

/* One flag into g (or cmd). */
static int take(int c, char *arg, given_t *g, bench_command_t *cmd, const char **plan_file)
{
    if (c == OPT_LIST_OPS || c == OPT_HELP || c == OPT_DESCRIBE) {
        *(c == OPT_LIST_OPS ? &cmd->list_ops : c == OPT_HELP ? &cmd->help : &cmd->describe) = 1;
        return 0;
    }
    if (c == OPT_PLAN) {
        *plan_file = arg;
        return 0;
    }
    if (c == OPT_VERIFY) {
        char *end;
        long n = strtol(arg, &end, 10);
        if (end == arg || *end || n < 1 || n > (1L << 30))
            return 1;
        cmd->verify = (int)n;
        return 0;
    }
    for (size_t i = 0; i < sizeof flag_fields / sizeof *flag_fields; i++)
        if (flag_fields[i].code == c && g->n < sizeof g->names / sizeof *g->names) {
            g->names[g->n] = flag_fields[i].field;
            g->values[g->n++] = arg;
            return 0;
        }
    return 1;
}

int bench_options_parse(int argc, char **argv, bench_command_t *cmd, char *err, size_t err_size)
{
    memset(cmd, 0, sizeof *cmd);
    static given_t g; /* large; parsed once */
    g.n = 0;
    const char *plan_file = NULL;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1)
        if (c == '?' || take(c, optarg, &g, cmd, &plan_file)) {
            if (c == '?')
                snprintf(err, err_size, "unknown option (see --help)");
            else
                snprintf(err, err_size, "bad value '%s' for an option (see --help)", optarg ? optarg : "");
            return 1;
        }
    if (optind < argc) {
        snprintf(err, err_size, "unexpected argument '%s'", argv[optind]);
        return 1;
    }
    if (cmd->list_ops || cmd->help || cmd->describe)
        return 0;
    if (plan_file && g.n) {
        snprintf(err, err_size, "--plan takes the whole plan: no other plan flag with it");
        return 1;
    }
    if (plan_file)
        return mpiscope_plan_read_file(plan_file, 0, &cmd->plan, err, err_size) != 0;
    return mpiscope_plan_from_fields(g.names, g.values, g.n, 0, &cmd->plan, err, err_size) != 0;
}
