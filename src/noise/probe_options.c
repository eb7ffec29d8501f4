/* probe_options.c: parsing and checking `mpiscope-noise probe` options. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mpiscope/error.h"
#include "probe_options.h"

static const char *const kind_names[] = {"fwq", "ftq", "selfish", "triad"};

const char mpiscope__probe_usage[] =
    "usage: mpiscope-noise probe --seconds S --out-dir D [--kinds fwq,ftq,selfish,triad]\n"
    "         [--pin-cores LIST | --threads LIST] [--fwq-work-ns W] [--ftq-quantum-ns Q]\n"
    "         [--selfish-threshold-ns T] [--triad-elements E]\n"
    "Per-core noise probes, S seconds per kind; one file per worker and kind in D.\n";

const char *mpiscope__probe_kind_name(int kind)
{
    return kind >= 0 && kind < MPISCOPE__PROBE_KINDS ? kind_names[kind] : "unknown";
}

static int parse_kinds(const char *text, mpiscope__probe_options_t *o, char *err, size_t len)
{
    o->nkinds = 0;
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, ",");
        int found = -1;
        for (int k = 0; k < MPISCOPE__PROBE_KINDS; k++)
            if (strlen(kind_names[k]) == n && strncmp(p, kind_names[k], n) == 0)
                found = k;
        for (int i = 0; found >= 0 && i < o->nkinds; i++)
            if (o->kinds[i] == found)
                found = -2;
        if (found < 0) {
            snprintf(err, len, "--kinds '%s': %s '%.*s' (kinds: fwq, ftq, selfish, triad)", text,
                     found == -2 ? "repeated kind" : "unknown kind", (int)n, p);
            return MPISCOPE_EINVAL;
        }
        o->kinds[o->nkinds++] = found;
        p += n;
        if (*p == ',' && *++p == '\0')
            break;
    }
    if (o->nkinds == 0) {
        snprintf(err, len, "--kinds '%s': no kind given", text);
        return MPISCOPE_EINVAL;
    }
    return 0;
}

int mpiscope__probe_options_parse(int argc, char **argv, int first, mpiscope__probe_options_t *o, char *err,
                                  size_t errlen)
{
    const char *kinds = "fwq,ftq,selfish";
    *o = (mpiscope__probe_options_t){
        .seconds = -1, .fwq_work_ns = 100000, .ftq_quantum_ns = 1000000, .selfish_threshold_ns = 0};
    const mpiscope__cli_option_t table[] = {
        {.name = "seconds",
         .kind = MPISCOPE__CLI_DOUBLE,
         .value = &o->seconds,
         .min = 0,
         .max = 86400,
         .min_exclusive = 1},
        {.name = "out-dir", .kind = MPISCOPE__CLI_STRING, .value = &o->out_dir},
        {.name = "kinds", .kind = MPISCOPE__CLI_STRING, .value = &kinds},
        {.name = "pin-cores", .kind = MPISCOPE__CLI_CPUS, .value = &o->pin_cores},
        {.name = "threads", .kind = MPISCOPE__CLI_CPUS, .value = &o->threads},
        {.name = "fwq-work-ns", .kind = MPISCOPE__CLI_DOUBLE, .value = &o->fwq_work_ns, .min = 100, .max = 1e10},
        {.name = "ftq-quantum-ns", .kind = MPISCOPE__CLI_DOUBLE, .value = &o->ftq_quantum_ns, .min = 1000, .max = 1e10},
        {.name = "selfish-threshold-ns",
         .kind = MPISCOPE__CLI_DOUBLE,
         .value = &o->selfish_threshold_ns,
         .min = 1,
         .max = 1e10},
        {.name = "triad-elements", .kind = MPISCOPE__CLI_INT, .value = &o->triad_elements, .min = 1, .max = 1e11},
    };
    int rc = mpiscope__cli_parse(table, sizeof table / sizeof *table, argc, argv, first, err, errlen);
    if (rc != 0)
        return rc;
    if (o->seconds < 0 || !o->out_dir || !*o->out_dir) {
        snprintf(err, errlen, "probe needs --seconds S and --out-dir D");
        return MPISCOPE_EINVAL;
    }
    if (o->pin_cores.n && o->threads.n) {
        snprintf(err, errlen, "--pin-cores (MPI ranks) and --threads (one process) exclude each other");
        return MPISCOPE_EINVAL;
    }
    return parse_kinds(kinds, o, err, errlen);
}

size_t mpiscope__probe_capacity(const mpiscope__probe_options_t *o)
{
    const double cap = (double)(1 << 24), ns = o->seconds * 1e9;
    double need = 0;
    for (int i = 0; i < o->nkinds; i++) {
        double n = o->kinds[i] == MPISCOPE__PROBE_FWQ   ? 2 * ceil(ns / o->fwq_work_ns)
                   : o->kinds[i] == MPISCOPE__PROBE_FTQ ? ceil(ns / o->ftq_quantum_ns)
                                                        : o->seconds * 100000; /* selfish, triad */
        need = fmax(need, n + 1024);
    }
    return (size_t)fmin(need, cap);
}

int mpiscope__probe_has_kind(const mpiscope__probe_options_t *o, int kind)
{
    for (int i = 0; i < o->nkinds; i++)
        if (o->kinds[i] == kind)
            return 1;
    return 0;
}
