/* json_read.h (internal): a compact, strict JSON reader (RFC 8259) for
 * plans. The whole text must be one value; no trailing commas, comments,
 * leading zeros, control characters in strings, lone surrogates or
 * duplicate member names. */
#ifndef MPISCOPE_JSON_READ_H
#define MPISCOPE_JSON_READ_H

#include <stddef.h>

typedef enum mpiscope__jv_type {
    MPISCOPE__JV_NULL,
    MPISCOPE__JV_BOOL,
    MPISCOPE__JV_NUMBER,
    MPISCOPE__JV_STRING,
    MPISCOPE__JV_ARRAY,
    MPISCOPE__JV_OBJECT
} mpiscope__jv_type_t;

typedef struct mpiscope__jv {
    mpiscope__jv_type_t type;
    int boolean;    /* BOOL */
    double number;  /* NUMBER */
    int is_integer; /* NUMBER written without fraction or exponent, fits unsigned long long
                                     when non-negative (then in `integer`) */
    int negative;
    unsigned long long integer; /* |value| of an integer literal */
    char *string;               /* STRING: decoded UTF-8, NUL-terminated (no NUL inside) */
    char *key;                  /* member name inside an OBJECT, else NULL */
    size_t count;               /* ARRAY, OBJECT: items */
    struct mpiscope__jv *first; /* ARRAY, OBJECT: first item */
    struct mpiscope__jv *next;  /* next item of the parent */
} mpiscope__jv_t;

/* Parse text[0..len). 0 and *out (free with mpiscope__jv_free), or
 * MPISCOPE_EINVAL with "line L, column C: what" in err, or MPISCOPE_ENOMEM. */
int mpiscope__json_parse(const char *text, size_t len, mpiscope__jv_t **out, char *err, size_t err_size);

void mpiscope__jv_free(mpiscope__jv_t *v);

/* The member `key` of an OBJECT, or NULL. */
const mpiscope__jv_t *mpiscope__jv_get(const mpiscope__jv_t *object, const char *key);

const char *mpiscope__jv_type_name(mpiscope__jv_type_t type); /* "a string", "an array", ... */

#endif
