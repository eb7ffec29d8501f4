/* json.h (internal): a small JSON writer into a growing buffer. Keys are
 * NULL inside arrays. NaN and infinities are written as null. */
#ifndef MPISCOPE_JSON_H
#define MPISCOPE_JSON_H

#include <stddef.h>

enum { MPISCOPE__JSON_MAX_DEPTH = 32 };

typedef struct mpiscope__json {
    char *buf;
    size_t len, cap;
    int failed; /* out of memory or too deep */
    int depth;
    unsigned char has_items[MPISCOPE__JSON_MAX_DEPTH];
    char closer[MPISCOPE__JSON_MAX_DEPTH]; /* '}' or ']' per open level */
} mpiscope__json_t;

void mpiscope__json_init(mpiscope__json_t *j);
void mpiscope__json_free(mpiscope__json_t *j);
void mpiscope__json_object(mpiscope__json_t *j, const char *key);
void mpiscope__json_array(mpiscope__json_t *j, const char *key);
void mpiscope__json_end(mpiscope__json_t *j); /* closes the innermost object or array */
void mpiscope__json_number(mpiscope__json_t *j, const char *key, double value);
/* A number to one decimal, as printf's "%.1f" within half a tenth (a tie
 * may round the other way), written by hand: for long series of ns. */
void mpiscope__json_tenths(mpiscope__json_t *j, const char *key, double value);
/* "key": [v[0], ..., v[n-1]] */
void mpiscope__json_number_array(mpiscope__json_t *j, const char *key, const double *v, size_t n);
void mpiscope__json_integer(mpiscope__json_t *j, const char *key, long long value);
void mpiscope__json_string(mpiscope__json_t *j, const char *key, const char *value); /* NULL: null */
void mpiscope__json_bool(mpiscope__json_t *j, const char *key, int value);
void mpiscope__json_raw(mpiscope__json_t *j, const char *key, const char *json); /* pre-encoded */

/* Lists built piece by piece (the points of a result document): `list`
 * holds "item,item,..." with no brackets; append one encoded item. */
void mpiscope__json_list_append(mpiscope__json_t *list, const char *json);

#endif
