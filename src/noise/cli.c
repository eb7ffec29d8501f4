/* cli.c: table-driven option parsing and CPU lists for the noise programs. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "cli.h"

static int fail(char *err, size_t len, const char *fmt, const char *a, const char *b)
{
    snprintf(err, len, fmt, a, b);
    return MPISCOPE_EINVAL;
}

static int parse_number(const mpiscope__cli_option_t *o, const char *text, char *err, size_t len)
{
    char *end;
    errno = 0;
    double v = o->kind == MPISCOPE__CLI_INT ? (double)strtoll(text, &end, 10) : strtod(text, &end);
    if (*text == '\0' || *end != '\0' || errno == ERANGE || !isfinite(v))
        return fail(err, len, o->kind == MPISCOPE__CLI_INT ? "--%s '%s': not an integer" : "--%s '%s': not a number",
                    o->name, text);
    if ((o->min_exclusive ? v <= o->min : v < o->min) || v > o->max) {
        char range[96];
        snprintf(range, sizeof range, "%s%g and %g", o->min_exclusive ? "above " : "", o->min, o->max);
        char what[160];
        snprintf(what, sizeof what, "--%s %s", o->name, text);
        return fail(err, len, "%s: out of range (must be between %s)", what, range);
    }
    if (o->kind == MPISCOPE__CLI_INT)
        *(long long *)o->value = strtoll(text, NULL, 10);
    else
        *(double *)o->value = v;
    return 0;
}

static int set_value(const mpiscope__cli_option_t *o, const char *text, char *err, size_t len)
{
    switch (o->kind) {
    case MPISCOPE__CLI_STRING:
        *(const char **)o->value = text;
        return 0;
    case MPISCOPE__CLI_CPUS:
        if (mpiscope__cpu_list_parse(text, o->value) != 0)
            return fail(err, len, "--%s '%s': not a CPU list (e.g. 0,2,4-7)", o->name, text);
        return 0;
    default:
        return parse_number(o, text, err, len);
    }
}

static const mpiscope__cli_option_t *find(const mpiscope__cli_option_t *opts, size_t n, const char *name,
                                          size_t name_len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(opts[i].name) == name_len && strncmp(opts[i].name, name, name_len) == 0)
            return &opts[i];
    return NULL;
}

int mpiscope__cli_parse(const mpiscope__cli_option_t *opts, size_t n, int argc, char **argv, int first, char *err,
                        size_t errlen)
{
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
            return 1;
        if (strncmp(arg, "--", 2) != 0)
            return fail(err, errlen, "unexpected argument '%s'%s", arg, "");
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t name_len = eq ? (size_t)(eq - name) : strlen(name);
        const mpiscope__cli_option_t *o = find(opts, n, name, name_len);
        if (!o)
            return fail(err, errlen, "unknown option '%s'%s", arg, "");
        const char *value = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!value)
            return fail(err, errlen, "--%s needs a value%s", o->name, "");
        int rc = set_value(o, value, err, errlen);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int mpiscope__cpu_list_parse(const char *text, mpiscope__cpu_list_t *list)
{
    list->n = 0;
    if (!text || !*text)
        return MPISCOPE_EINVAL;
    const char *p = text;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9')
            return MPISCOPE_EINVAL;
        long lo = strtol(p, &end, 10), hi = lo;
        if (*end == '-') {
            if (end[1] < '0' || end[1] > '9')
                return MPISCOPE_EINVAL;
            hi = strtol(end + 1, &end, 10);
        }
        if (hi < lo || hi >= MPISCOPE__NOISE_MAX_CPUS || (*end != ',' && *end != '\0')
            || list->n + (hi - lo + 1) > MPISCOPE__NOISE_MAX_CPUS)
            return MPISCOPE_EINVAL;
        for (long c = lo; c <= hi; c++)
            list->cpu[list->n++] = (int)c;
        if (*end == ',' && end[1] == '\0')
            return MPISCOPE_EINVAL;
        p = *end ? end + 1 : end;
    }
    return 0;
}

/* Items joined by sep; stops at the last item that fits (then appends tail). */
static char *join(const mpiscope__cpu_list_t *l, char *buf, size_t len, const char *open, const char *close)
{
    size_t used = (size_t)snprintf(buf, len, "%s", open);
    for (int i = 0; i < l->n; i++) {
        char item[16];
        int k = snprintf(item, sizeof item, "%s%d", i ? "," : "", l->cpu[i]);
        if (used + (size_t)k + strlen(close) + 4 >= len) {
            used += (size_t)snprintf(buf + used, len - used, ",...");
            break;
        }
        memcpy(buf + used, item, (size_t)k + 1);
        used += (size_t)k;
    }
    snprintf(buf + used, len - used, "%s", close);
    return buf;
}

char *mpiscope__cpu_list_json(const mpiscope__cpu_list_t *list, char *buf, size_t len)
{
    char *s = join(list, buf, len, "[", "]");
    char *dots = strstr(s, ",...");
    if (dots) /* JSON has no ellipsis: a truncated list simply ends */
        memmove(dots, dots + 4, strlen(dots + 4) + 1);
    return s;
}

char *mpiscope__cpu_list_csv(const mpiscope__cpu_list_t *list, char *buf, size_t len)
{
    return join(list, buf, len, "", "");
}

char *mpiscope__json_quote(const char *text, char *buf, size_t len)
{
    size_t j = 0;
    if (len < 3)
        return buf;
    buf[j++] = '"';
    for (const unsigned char *p = (const unsigned char *)text; *p && j + 8 < len; p++) {
        if (*p == '"' || *p == '\\') {
            buf[j++] = '\\';
            buf[j++] = (char)*p;
        } else if (*p < 0x20) {
            j += (size_t)snprintf(buf + j, len - j, "\\u%04x", *p);
        } else {
            buf[j++] = (char)*p;
        }
    }
    buf[j++] = '"';
    buf[j] = '\0';
    return buf;
}
