/* json_read.c: the strict JSON reader behind `mpiscope-bench --plan`. A
 * recursive descent over the text, one node per value. */
#include "json_read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mpiscope/error.h"

enum { MAX_DEPTH = 64 };

typedef struct reader {
    const char *s, *end, *at;
    const char *why; /* first error */
    int oom;
} reader_t;

static int fail(reader_t *r, const char *why)
{
    if (!r->why)
        r->why = why;
    return -1;
}

static void skip_space(reader_t *r)
{
    while (r->at < r->end && (*r->at == ' ' || *r->at == '\t' || *r->at == '\n' || *r->at == '\r'))
        r->at++;
}

static mpiscope__jv_t *node(reader_t *r, mpiscope__jv_type_t type)
{
    mpiscope__jv_t *v = calloc(1, sizeof *v);
    if (!v) {
        r->oom = 1;
        fail(r, "out of memory");
        return NULL;
    }
    v->type = type;
    return v;
}

static int literal(reader_t *r, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(r->end - r->at) < n || memcmp(r->at, word, n) != 0)
        return fail(r, "unexpected character");
    r->at += n;
    return 0;
}

static int hex4(reader_t *r, unsigned *out)
{
    *out = 0;
    for (int i = 0; i < 4; i++, r->at++) {
        char c = r->at < r->end ? *r->at : 0;
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0)
            return fail(r, "bad \\u escape");
        *out = *out * 16 + (unsigned)d;
    }
    return 0;
}

static size_t put_utf8(char *o, unsigned c)
{
    if (c < 0x80) {
        o[0] = (char)c;
        return 1;
    }
    if (c < 0x800) {
        o[0] = (char)(0xC0 | c >> 6);
        o[1] = (char)(0x80 | (c & 0x3F));
        return 2;
    }
    if (c < 0x10000) {
        o[0] = (char)(0xE0 | c >> 12);
        o[1] = (char)(0x80 | (c >> 6 & 0x3F));
        o[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | c >> 18);
    o[1] = (char)(0x80 | (c >> 12 & 0x3F));
    o[2] = (char)(0x80 | (c >> 6 & 0x3F));
    o[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/* \uXXXX, with a surrogate pair joined; NUL is refused (C strings). */
static int unicode_escape(reader_t *r, unsigned *code)
{
    if (hex4(r, code))
        return -1;
    if (*code >= 0xDC00 && *code <= 0xDFFF)
        return fail(r, "lone low surrogate");
    if (*code >= 0xD800 && *code <= 0xDBFF) {
        unsigned low;
        if (r->end - r->at < 2 || r->at[0] != '\\' || r->at[1] != 'u')
            return fail(r, "lone high surrogate");
        r->at += 2;
        if (hex4(r, &low) || low < 0xDC00 || low > 0xDFFF)
            return fail(r, "bad surrogate pair");
        *code = 0x10000 + ((*code - 0xD800) << 10) + (low - 0xDC00);
    }
    return *code == 0 ? fail(r, "NUL in a string") : 0;
}

static int escape(reader_t *r, char *o, size_t *n)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    char c = r->at < r->end ? *r->at++ : 0;
    const char *hit = c ? strchr(from, c) : NULL;
    if (hit) {
        o[(*n)++] = to[hit - from];
        return 0;
    }
    unsigned code;
    if (c != 'u' || unicode_escape(r, &code))
        return fail(r, "bad escape in a string");
    *n += put_utf8(o + *n, code);
    return 0;
}

/* At the opening quote. Decoded text never outgrows the source. */
static char *string(reader_t *r)
{
    const char *start = ++r->at;
    while (r->at < r->end && *r->at != '"')
        r->at += *r->at == '\\' && r->at + 1 < r->end ? 2 : 1;
    if (r->at >= r->end) {
        fail(r, "unterminated string");
        return NULL;
    }
    const char *stop = r->at;
    char *o = malloc((size_t)(stop - start) + 1);
    if (!o) {
        r->oom = 1;
        fail(r, "out of memory");
        return NULL;
    }
    size_t n = 0;
    for (r->at = start; r->at < stop;) {
        unsigned char c = (unsigned char)*r->at;
        if (c < 0x20) {
            fail(r, "control character in a string");
            break;
        }
        if (c == '\\') {
            r->at++;
            if (escape(r, o, &n))
                break;
        } else {
            o[n++] = (char)c;
            r->at++;
        }
    }
    if (r->at < stop || r->why) {
        free(o);
        return NULL;
    }
    r->at = stop + 1;
    o[n] = '\0';
    return o;
}

static int digits(reader_t *r)
{
    const char *from = r->at;
    while (r->at < r->end && *r->at >= '0' && *r->at <= '9')
        r->at++;
    return r->at > from ? 0 : fail(r, "bad number");
}

static int number(reader_t *r, mpiscope__jv_t *v)
{
    const char *start = r->at;
    v->negative = r->at < r->end && *r->at == '-';
    r->at += v->negative;
    if (r->at < r->end && *r->at == '0' && r->at + 1 < r->end && r->at[1] >= '0' && r->at[1] <= '9')
        return fail(r, "leading zero in a number");
    if (digits(r))
        return -1;
    const char *int_end = r->at;
    if (r->at < r->end && *r->at == '.' && (r->at++, digits(r)))
        return -1;
    if (r->at < r->end && (*r->at == 'e' || *r->at == 'E')) {
        r->at++;
        if (r->at < r->end && (*r->at == '+' || *r->at == '-'))
            r->at++;
        if (digits(r))
            return -1;
    }
    char buf[400];
    size_t n = (size_t)(r->at - start);
    if (n >= sizeof buf)
        return fail(r, "number too long");
    memcpy(buf, start, n);
    buf[n] = '\0';
    v->number = strtod(buf, NULL);
    errno = 0;
    v->integer = strtoull(buf + v->negative, NULL, 10);
    v->is_integer = int_end == r->at && errno == 0;
    return 0;
}

static mpiscope__jv_t *value(reader_t *r, int depth);

static int duplicate(const mpiscope__jv_t *object, const char *key)
{
    for (const mpiscope__jv_t *m = object->first; m; m = m->next)
        if (strcmp(m->key, key) == 0)
            return 1;
    return 0;
}

/* Items of an array or members of an object, up to `close`. */
static int items(reader_t *r, mpiscope__jv_t *parent, char close, int depth)
{
    mpiscope__jv_t **tail = &parent->first;
    r->at++;
    skip_space(r);
    if (r->at < r->end && *r->at == close) {
        r->at++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        skip_space(r);
        if (close == '}') {
            if (r->at >= r->end || *r->at != '"')
                return fail(r, "expected a member name");
            if (!(key = string(r)))
                return -1;
            if (duplicate(parent, key)) {
                free(key);
                return fail(r, "duplicate member name");
            }
            skip_space(r);
            if (r->at >= r->end || *r->at++ != ':') {
                free(key);
                return fail(r, "expected ':'");
            }
        }
        mpiscope__jv_t *item = value(r, depth + 1);
        if (!item) {
            free(key);
            return -1;
        }
        item->key = key;
        *tail = item;
        tail = &item->next;
        parent->count++;
        skip_space(r);
        char c = r->at < r->end ? *r->at++ : 0;
        if (c == close)
            return 0;
        if (c != ',')
            return fail(r, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static mpiscope__jv_t *value(reader_t *r, int depth)
{
    skip_space(r);
    if (depth > MAX_DEPTH) {
        fail(r, "nested too deeply");
        return NULL;
    }
    if (r->at >= r->end) {
        fail(r, "unexpected end of input");
        return NULL;
    }
    char c = *r->at;
    mpiscope__jv_type_t type = c == '{'               ? MPISCOPE__JV_OBJECT
                               : c == '['             ? MPISCOPE__JV_ARRAY
                               : c == '"'             ? MPISCOPE__JV_STRING
                               : c == 't' || c == 'f' ? MPISCOPE__JV_BOOL
                               : c == 'n'             ? MPISCOPE__JV_NULL
                                                      : MPISCOPE__JV_NUMBER;
    mpiscope__jv_t *v = node(r, type);
    if (!v)
        return NULL;
    int bad = 0;
    switch (type) {
    case MPISCOPE__JV_OBJECT:
        bad = items(r, v, '}', depth);
        break;
    case MPISCOPE__JV_ARRAY:
        bad = items(r, v, ']', depth);
        break;
    case MPISCOPE__JV_STRING:
        bad = !(v->string = string(r));
        break;
    case MPISCOPE__JV_BOOL:
        v->boolean = c == 't';
        bad = literal(r, c == 't' ? "true" : "false");
        break;
    case MPISCOPE__JV_NULL:
        bad = literal(r, "null");
        break;
    default:
        bad = (c == '-' || (c >= '0' && c <= '9')) ? number(r, v) : fail(r, "unexpected character");
    }
    if (bad) {
        mpiscope__jv_free(v);
        return NULL;
    }
    return v;
}

static void where(const reader_t *r, char *err, size_t err_size)
{
    int line = 1, column = 1;
    for (const char *p = r->s; p < r->at && p < r->end; p++, column++)
        if (*p == '\n') {
            line++;
            column = 0;
        }
    snprintf(err, err_size, "line %d, column %d: %s", line, column, r->why);
}

int mpiscope__json_parse(const char *text, size_t len, mpiscope__jv_t **out, char *err, size_t err_size)
{
    reader_t r = {.s = text, .end = text + len, .at = text};
    *out = NULL;
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        fail(&r, "byte order mark"); /* RFC 8259: must not be added */
    mpiscope__jv_t *v = r.why ? NULL : value(&r, 0);
    skip_space(&r);
    if (v && r.at < r.end)
        fail(&r, "text after the value");
    if (r.why) {
        mpiscope__jv_free(v);
        where(&r, err, err_size);
        return r.oom ? MPISCOPE_ENOMEM : MPISCOPE_EINVAL;
    }
    *out = v;
    return 0;
}

void mpiscope__jv_free(mpiscope__jv_t *v)
{
    while (v) {
        mpiscope__jv_t *next = v->next;
        mpiscope__jv_free(v->first);
        free(v->string);
        free(v->key);
        free(v);
        v = next;
    }
}

const mpiscope__jv_t *mpiscope__jv_get(const mpiscope__jv_t *object, const char *key)
{
    if (!object || object->type != MPISCOPE__JV_OBJECT)
        return NULL;
    for (const mpiscope__jv_t *m = object->first; m; m = m->next)
        if (strcmp(m->key, key) == 0)
            return m;
    return NULL;
}

const char *mpiscope__jv_type_name(mpiscope__jv_type_t type)
{
    static const char *const names[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
    return (unsigned)type < sizeof names / sizeof *names ? names[type] : "a value";
}
