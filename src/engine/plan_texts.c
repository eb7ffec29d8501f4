/* plan_texts.c: a plan given as field texts (a command line: "sizes" =
 * "8,1024", "meta" = "KEY=VALUE" ...) written as the JSON document the plan
 * reader checks, so flags and plan files share one validation. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"
#include "json.h"
#include "param_table.h"
#include "plan_spec.h"

/* A number as JSON if the text is one (so the plan reader sees a number,
 * whole numbers exactly), else as a string the reader will refuse. */
static void number_or_text(mpiscope__json_t *j, const char *key, const char *text)
{
    char *end;
    errno = 0;
    if (text[0] >= '0' && text[0] <= '9' && strspn(text, "0123456789") == strlen(text)) {
        unsigned long long u = strtoull(text, &end, 10);
        if (!errno) {
            char digits[32];
            snprintf(digits, sizeof digits, "%llu", u);
            mpiscope__json_raw(j, key, digits);
            return;
        }
    }
    double v = strtod(text, &end);
    if (!errno && end != text && !*end && v == v && v - v == 0)
        mpiscope__json_number(j, key, v);
    else
        mpiscope__json_string(j, key, text);
}

/* "a,b,c" as an array (numbers for the numeric lists). */
static void list(mpiscope__json_t *j, const char *key, const char *text)
{
    int numeric = strcmp(key, "sizes") == 0 || strcmp(key, "nprocs") == 0;
    char item[256];
    mpiscope__json_array(j, key);
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, ",");
        if (n > 0 && n < sizeof item) { /* empty items are skipped */
            memcpy(item, p, n);
            item[n] = '\0';
            if (numeric)
                number_or_text(j, NULL, item);
            else
                mpiscope__json_string(j, NULL, item);
        }
        p += n + (p[n] == ',');
    }
    mpiscope__json_end(j);
}

/* Every "KEY=VALUE" of a map field, the last value of a key winning. */
static void pairs(mpiscope__json_t *j, const char *field, const char *const *names, const char *const *values, size_t n)
{
    mpiscope__json_object(j, field);
    for (size_t i = 0; i < n; i++) {
        if (!mpiscope__plan_field_find(names[i]) || strcmp(mpiscope__plan_field_find(names[i])->name, field) != 0)
            continue;
        size_t key_len = strcspn(values[i], "=");
        int later = 0;
        for (size_t k = i + 1; k < n; k++)
            later |= mpiscope__plan_field_find(names[k]) == mpiscope__plan_field_find(names[i])
                     && strncmp(values[k], values[i], key_len + 1) == 0;
        char key[256];
        if (later || key_len >= sizeof key)
            continue;
        memcpy(key, values[i], key_len);
        key[key_len] = '\0';
        mpiscope__json_string(j, key, values[i] + key_len + 1);
    }
    mpiscope__json_end(j);
}

/* One field's last value. */
static void scalar(mpiscope__json_t *j, const mpiscope__plan_field_t *f, const char *v)
{
    const mpiscope__param_t *d = mpiscope__param_find(f->name);
    if (f->kind == MPISCOPE__FIELD_BOOL) {
        if (!v || strcmp(v, "true") == 0 || strcmp(v, "false") == 0)
            mpiscope__json_bool(j, f->name, !v || strcmp(v, "true") == 0);
        else
            mpiscope__json_string(j, f->name, v); /* refused by the reader, naming the field */
    } else if (f->kind == MPISCOPE__FIELD_LIST) {
        list(j, f->name, v);
    } else if (f->kind == MPISCOPE__FIELD_STRING || (d && d->type == MPISCOPE__PARAM_CHOICE)) {
        mpiscope__json_string(j, f->name, v);
    } else {
        number_or_text(j, f->name, v);
    }
}

/* Names known, pairs well formed: one line in err otherwise. */
static int check_texts(const char *const *names, const char *const *values, size_t n, char *err, size_t err_size)
{
    for (size_t i = 0; i < n; i++) {
        const mpiscope__plan_field_t *f = names[i] ? mpiscope__plan_field_find(names[i]) : NULL;
        if (!f) {
            snprintf(err, err_size, "plan field '%s': unknown field", names[i] ? names[i] : "(null)");
            return MPISCOPE_EINVAL;
        }
        if (f->kind != MPISCOPE__FIELD_BOOL && !values[i]) {
            snprintf(err, err_size, "plan field '%s': needs a value", f->name);
            return MPISCOPE_EINVAL;
        }
        if (f->kind == MPISCOPE__FIELD_MAP && (!strchr(values[i], '=') || values[i][0] == '=')) {
            snprintf(err, err_size, "plan field '%s': '%s' is not NAME=VALUE", f->name, values[i]);
            return MPISCOPE_EINVAL;
        }
    }
    return 0;
}

int mpiscope__plan_json_from_fields(const char *const *names, const char *const *values, size_t n, char **json,
                                    size_t *len, char *err, size_t err_size)
{
    int rc = check_texts(names, values, n, err, err_size);
    if (rc)
        return rc;
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__json_object(&j, NULL);
    for (size_t k = 0; k < mpiscope__plan_field_count(); k++) { /* in the table's order */
        const mpiscope__plan_field_t *f = mpiscope__plan_field_at(k);
        const char *last = NULL;
        int given = 0;
        for (size_t i = 0; i < n; i++)
            if (mpiscope__plan_field_find(names[i]) == f) {
                given = 1;
                last = values[i];
            }
        if (given && f->kind == MPISCOPE__FIELD_MAP)
            pairs(&j, f->name, names, values, n);
        else if (given)
            scalar(&j, f, last);
    }
    mpiscope__json_end(&j);
    if (j.failed) {
        mpiscope__json_free(&j);
        snprintf(err, err_size, "out of memory");
        return MPISCOPE_ENOMEM;
    }
    *json = j.buf;
    *len = j.len;
    return 0;
}
