/* options.c: parsing mpiscope-bench's command line. The Python front end
 * validates user input first; this is the second line of defence. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/measure.h"
#include "options.h"

enum {
    OPT_OPS = 256, OPT_SIZES, OPT_NPROCS, OPT_TIMER, OPT_SYNC, OPT_STOP, OPT_TARGET_RSE,
    OPT_MIN_VALID, OPT_MAX_VALID, OPT_MAX_LAUNCHES, OPT_MAX_POINT_SECONDS, OPT_CONFIDENCE,
    OPT_TRIM, OPT_CACHE, OPT_ALIGN, OPT_ROOT, OPT_DTYPE, OPT_REDUCE_OP, OPT_WINDOW_MIN,
    OPT_K, OPT_K_INIT, OPT_GAMMA, OPT_INVALID_THRESHOLD, OPT_OUT, OPT_FORCE, OPT_RAW,
    OPT_OVERSUBSCRIBED, OPT_META, OPT_OP_OPTION, OPT_PROGRESS, OPT_LIST_OPS, OPT_HELP,
    OPT_SYNC_PATIENCE, OPT_VALIDATE, OPT_RESYNC, OPT_METHOD, OPT_GAP, OPT_WINDOW, OPT_ARRIVAL,
    OPT_SHUFFLE, OPT_FIRSTCALL, OPT_CHECK, OPT_DRIFT_SECONDS
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
    {"firstcall", no_argument, 0, OPT_FIRSTCALL},
    {"check", no_argument, 0, OPT_CHECK},
    {"drift-seconds", required_argument, 0, OPT_DRIFT_SECONDS},
    {"oversubscribed", no_argument, 0, OPT_OVERSUBSCRIBED},
    {"meta", required_argument, 0, OPT_META},
    {"op-option", required_argument, 0, OPT_OP_OPTION},
    {"progress", no_argument, 0, OPT_PROGRESS},
    {"list-ops", no_argument, 0, OPT_LIST_OPS},
    {"help", no_argument, 0, OPT_HELP},
    {0, 0, 0, 0},
};

void bench_options_usage(void)
{
    puts("usage: mpiscope-bench --ops OP[,OP...] --out FILE [options]\n"
         "       mpiscope-bench --list-ops\n"
         "Runs a measurement plan with the synchronized-window method and writes the\n"
         "result document. Normally started by `mpiscope run`; see docs/cli.md.\n"
         "options: --sizes B,B,... --nprocs N,N,... --timer auto|tsc|monotonic|gettimeofday|wtime\n"
         "  --sync linear|ring --sync-patience N --stop error|count --target-rse F --min-valid N\n"
         "  --max-valid N --max-launches N --max-point-seconds S --confidence P --trim F\n"
         "  --cache cold|warm --align BYTES --root R --dtype NAME --reduce-op NAME\n"
         "  --window-min-ns NS --k N --k-init N --gamma G --invalid-threshold F\n"
         "  --op-option NAME=VALUE --meta KEY=VALUE --raw --validate --resync --force\n"
         "  --oversubscribed --progress\n"
         "  --method M[,M...] (window roundtime barrier barrier-each none root max global\n"
         "  bcast-supinski) --gap-ns NS --window-ns NS --cache cold,warm --shuffle SEED\n"
         "  --arrival none|late:RANK:US|linear:US|random:US[:SEED]\n"
         "  --firstcall (first vs second call)  --check [--drift-seconds S] (machine check)");
}

static int parse_double(const char *s, double *v)
{
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    return errno || end == s || *end;
}

static int parse_ulong(const char *s, unsigned long long *v)
{
    char *end;
    errno = 0;
    if (*s == '-')
        return 1;
    *v = strtoull(s, &end, 10);
    return errno || end == s || *end;
}

static int parse_uint(const char *s, unsigned *v)
{
    unsigned long long x;
    if (parse_ulong(s, &x) || x > 1000000000ull)
        return 1;
    *v = (unsigned)x;
    return 0;
}

/* Split "a,b,c" in place into at most max pieces. */
static int split_commas(char *s, const char **out, int max)
{
    int n = 0;
    for (char *tok = strtok(s, ","); tok; tok = strtok(NULL, ",")) {
        if (n == max)
            return -1;
        out[n++] = tok;
    }
    return n;
}

static int split_pair(char *s, const char **key, const char **value)
{
    char *eq = strchr(s, '=');
    if (!eq || eq == s)
        return 1;
    *eq = '\0';
    *key = s;
    *value = eq + 1;
    return 0;
}

/* Each name must be a method of the engine. */
static int parse_methods(char *s, bench_options_t *o)
{
    int n = split_commas(s, o->methods, BENCH_MAX_METHODS);
    for (int i = 0; i < n; i++) {
        o->method_handles[i] = mpiscope_method_find(o->methods[i]);
        if (!o->method_handles[i])
            return 1;
    }
    o->n_methods = n > 0 ? n : 0;
    return n <= 0;
}

/* "cold", "warm" or both, comma-separated. */
static int parse_caches(char *s, bench_options_t *o)
{
    const char *items[2];
    int n = split_commas(s, items, 2);
    for (int i = 0; i < n; i++) {
        if (strcmp(items[i], "cold") != 0 && strcmp(items[i], "warm") != 0)
            return 1;
        o->caches[i] = strcmp(items[i], "cold") == 0;
    }
    o->n_caches = n > 0 ? n : 0;
    o->params.cache_cold = o->caches[0];
    return n <= 0;
}

/* none | late:RANK:US | linear:US | random:US[:SEED] */
static int parse_arrival(char *s, bench_options_t *o)
{
    o->arrival_text = s;
    unsigned long long seed = 1;
    double us = 0;
    int rank = 0, used = 0;
    if (strcmp(s, "none") == 0)
        o->arrival = BENCH_ARRIVAL_NONE;
    else if (sscanf(s, "late:%d:%lf%n", &rank, &us, &used) == 2 && !s[used] && rank >= 0)
        o->arrival = BENCH_ARRIVAL_LATE;
    else if (sscanf(s, "linear:%lf%n", &us, &used) == 1 && !s[used])
        o->arrival = BENCH_ARRIVAL_LINEAR;
    else if ((sscanf(s, "random:%lf%n", &us, &used) == 1 && !s[used])
             || (sscanf(s, "random:%lf:%llu%n", &us, &seed, &used) == 2 && !s[used]))
        o->arrival = BENCH_ARRIVAL_RANDOM;
    else
        return 1;
    o->arrival_rank = rank;
    o->arrival_us = us;
    o->arrival_seed = seed;
    return !(us >= 0 && us <= 1e7);
}

static int parse_list(char *s, int is_nprocs, bench_options_t *o)
{
    const char *items[BENCH_MAX_VALUES];
    int n = split_commas(s, items, BENCH_MAX_VALUES);
    for (int i = 0; i < n; i++) {
        unsigned long long v;
        if (parse_ulong(items[i], &v) || (is_nprocs && (v < 1 || v > 1u << 30)))
            return 1;
        if (is_nprocs)
            o->nprocs[i] = (int)v;
        else
            o->sizes[i] = (size_t)v;
    }
    if (n <= 0)
        return 1;
    *(is_nprocs ? &o->n_nprocs : &o->n_sizes) = n;
    return 0;
}

/* One option; returns non-zero with a message in err on bad input. */
static int apply(int c, char *arg, bench_options_t *o, char *err, size_t err_size)
{
    mpiscope_params_t *p = &o->params;
    unsigned long long ull;
    int bad = 0;
    switch (c) {
    case OPT_OPS: bad = (o->n_ops = split_commas(arg, o->ops, BENCH_MAX_OPS)) <= 0; break;
    case OPT_SIZES: bad = parse_list(arg, 0, o); break;
    case OPT_NPROCS: bad = parse_list(arg, 1, o); break;
    case OPT_TIMER: bad = mpiscope_timer_parse(arg, &p->timer) != 0; break;
    case OPT_SYNC: bad = mpiscope_sync_parse(arg, &p->sync.algorithm) != 0; break;
    case OPT_SYNC_PATIENCE: bad = parse_uint(arg, &p->sync.patience); break;
    case OPT_STOP:
        bad = strcmp(arg, "error") != 0 && strcmp(arg, "count") != 0;
        p->stop_rule = strcmp(arg, "count") == 0 ? MPISCOPE_STOP_COUNT : MPISCOPE_STOP_ERROR;
        break;
    case OPT_TARGET_RSE: bad = parse_double(arg, &p->target_rse); break;
    case OPT_MIN_VALID: bad = parse_uint(arg, &p->min_valid); break;
    case OPT_MAX_VALID: bad = parse_uint(arg, &p->max_valid); break;
    case OPT_MAX_LAUNCHES: bad = parse_uint(arg, &p->max_launches); break;
    case OPT_MAX_POINT_SECONDS: bad = parse_double(arg, &p->max_point_seconds); break;
    case OPT_CONFIDENCE: bad = parse_double(arg, &p->confidence); break;
    case OPT_TRIM: bad = parse_double(arg, &p->trim_fraction); break;
    case OPT_CACHE: bad = parse_caches(arg, o); break;
    case OPT_METHOD: bad = parse_methods(arg, o); break;
    case OPT_GAP: bad = parse_double(arg, &p->gap_ns); break;
    case OPT_WINDOW: bad = parse_double(arg, &p->window_ns); break;
    case OPT_ARRIVAL: bad = parse_arrival(arg, o); break;
    case OPT_SHUFFLE: bad = parse_ulong(arg, &o->shuffle_seed); break;
    case OPT_FIRSTCALL: o->firstcall = 1; break;
    case OPT_CHECK: o->check = 1; break;
    case OPT_DRIFT_SECONDS: bad = parse_double(arg, &o->drift_seconds) || !(o->drift_seconds >= 0); break;
    case OPT_ALIGN: bad = parse_ulong(arg, &ull); p->alignment_bytes = (size_t)ull; break;
    case OPT_ROOT: bad = parse_ulong(arg, &ull) || ull > 1u << 30; o->root = (int)ull; break;
    case OPT_DTYPE: o->dtype = arg; break;
    case OPT_REDUCE_OP: o->reduce_op = arg; break;
    case OPT_WINDOW_MIN: bad = parse_double(arg, &p->window_min_ns); break;
    case OPT_K: bad = parse_uint(arg, &p->k); break;
    case OPT_K_INIT: bad = parse_uint(arg, &p->k_init); break;
    case OPT_GAMMA: bad = parse_double(arg, &p->gamma); break;
    case OPT_INVALID_THRESHOLD: bad = parse_double(arg, &p->invalid_threshold); break;
    case OPT_OUT: o->out = arg; break;
    case OPT_FORCE: o->force = 1; break;
    case OPT_RAW: o->raw = 1; break;
    case OPT_VALIDATE: o->validate = 1; break;
    case OPT_RESYNC: o->resync = 1; break;
    case OPT_OVERSUBSCRIBED: o->oversubscribed = 1; break;
    case OPT_PROGRESS: o->progress = 1; break;
    case OPT_LIST_OPS: o->list_ops = 1; break;
    case OPT_HELP: o->help = 1; break;
    case OPT_META:
        bad = o->n_meta == BENCH_MAX_META
              || split_pair(arg, &o->meta_keys[o->n_meta], &o->meta_values[o->n_meta]);
        o->n_meta += !bad;
        break;
    case OPT_OP_OPTION:
        bad = o->n_opts == BENCH_MAX_OPTS
              || split_pair(arg, &o->opt_names[o->n_opts], &o->opt_values[o->n_opts]);
        o->n_opts += !bad;
        break;
    default:
        snprintf(err, err_size, "unknown option (see --help)");
        return 1;
    }
    if (bad)
        snprintf(err, err_size, "bad value '%s' for an option (see --help)", arg ? arg : "");
    return bad;
}

int bench_options_parse(int argc, char **argv, bench_options_t *o, char *err, size_t err_size)
{
    memset(o, 0, sizeof *o);
    mpiscope_params_default(&o->params);
    o->sizes[0] = 1024;
    o->n_sizes = 1;
    o->methods[0] = "window";
    o->method_handles[0] = mpiscope_method_find(NULL);
    o->n_methods = 1;
    o->caches[0] = 1;
    o->n_caches = 1;
    o->arrival_text = "none";
    o->drift_seconds = 2;
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", long_options, NULL)) != -1)
        if (apply(c, optarg, o, err, err_size))
            return 1;
    if (optind < argc) {
        snprintf(err, err_size, "unexpected argument '%s'", argv[optind]);
        return 1;
    }
    if (o->list_ops || o->help)
        return 0;
    if ((o->n_ops == 0 && !o->check) || !o->out) {
        snprintf(err, err_size, "--ops (or --check) and --out are required (see --help)");
        return 1;
    }
    if (o->params.stop_rule == MPISCOPE_STOP_COUNT && o->params.max_launches == 1000)
        o->params.max_launches = 100; /* the seed's count rule: 100 launches in all */
    if (mpiscope_params_check(&o->params) != 0) {
        snprintf(err, err_size, "a measurement parameter is out of range (see --help)");
        return 1;
    }
    return 0;
}
