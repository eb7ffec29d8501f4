/* param_table.h (internal): the measurement parameters a plan may set
 * (the knobs of mpiscope_params_t), each self-describing: name, type,
 * unit, range, help. One table serves the plan reader, the getopt flags,
 * mpiscope_params_check() and `mpiscope-bench --describe`. */
#ifndef MPISCOPE_PARAM_TABLE_H
#define MPISCOPE_PARAM_TABLE_H

#include <stddef.h>
#include "mpiscope/measure.h"

typedef enum mpiscope__param_type {
    MPISCOPE__PARAM_INTEGER, /* a whole number in [min, max] */
    MPISCOPE__PARAM_NUMBER,  /* a finite number in the range (bounds open or closed) */
    MPISCOPE__PARAM_CHOICE   /* one of the names choice_name(0), choice_name(1), ... */
} mpiscope__param_type_t;

/* Where the value lives in mpiscope_params_t. */
typedef enum mpiscope__param_storage {
    MPISCOPE__STORE_UNSIGNED,
    MPISCOPE__STORE_DOUBLE,
    MPISCOPE__STORE_SIZE,
    MPISCOPE__STORE_ENUM
} mpiscope__param_storage_t;

typedef struct mpiscope__param {
    const char *name; /* plan field "target_rse"; flag --target-rse */
    mpiscope__param_type_t type;
    const char *unit;                           /* "ns", "s", "launches", "bytes", "1" (a fraction), "" */
    double min, max;                            /* max INFINITY: unbounded */
    int min_open, max_open;                     /* 1: the bound itself is excluded */
    int power_of_two;                           /* integers only */
    const char *(*choice_name)(unsigned index); /* CHOICE: NULL past the last */
    const char *(*choice_help)(unsigned index); /* CHOICE: one line per name */
    const char *help;                           /* one line */
    mpiscope__param_storage_t storage;
    size_t offset; /* offsetof(mpiscope_params_t, field) */
} mpiscope__param_t;

/* Descriptions of the choices, defined next to their names. */
const char *mpiscope__timer_kind_description(mpiscope_timer_kind_t kind);
const char *mpiscope__sync_algorithm_description(mpiscope_sync_algorithm_t algorithm);
const char *mpiscope__stop_rule_description(mpiscope_stop_rule_t rule);

size_t mpiscope__param_count(void);
const mpiscope__param_t *mpiscope__param_at(size_t index);       /* NULL past the end */
const mpiscope__param_t *mpiscope__param_find(const char *name); /* '-' matches '_' */

/* The value in p (a CHOICE as its index). */
double mpiscope__param_get(const mpiscope__param_t *d, const mpiscope_params_t *p);

/* Check v against the descriptor; 0 and store it, or MPISCOPE_ERANGE with
 * the reason ("must be in (1, 2)") in why. */
int mpiscope__param_set(const mpiscope__param_t *d, mpiscope_params_t *p, double v, char *why, size_t why_size);

/* A CHOICE by name: 0, or MPISCOPE_EINVAL with the known names in why. */
int mpiscope__param_set_choice(const mpiscope__param_t *d, mpiscope_params_t *p, const char *name, char *why,
                               size_t why_size);

/* 1 if the value in p is within the descriptor's range (or a known choice). */
int mpiscope__param_valid(const mpiscope__param_t *d, const mpiscope_params_t *p);

/* "[1, 64]", "(0, 1)", ">= 0": the range as text. */
void mpiscope__param_range_text(const mpiscope__param_t *d, char *out, size_t size);

#endif
