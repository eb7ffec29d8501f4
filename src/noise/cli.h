/* cli.h (internal): one table-driven parser for the options of
 * mpiscope-noise and mpiscope-inject, strict number and CPU-list parsing.
 * No MPI: the option tests run without mpiexec. An error is one line,
 * written into the caller's buffer without the program prefix. */
#ifndef MPISCOPE_NOISE_CLI_H
#define MPISCOPE_NOISE_CLI_H

#include <stddef.h>

#define MPISCOPE__NOISE_MAX_CPUS 1024 /* same bound as cpu_set_t */
#define MPISCOPE__NOISE_ERR_LEN 256

typedef struct mpiscope__cpu_list {
    int n;
    int cpu[MPISCOPE__NOISE_MAX_CPUS];
} mpiscope__cpu_list_t;

typedef enum mpiscope__cli_kind {
    MPISCOPE__CLI_DOUBLE, /* value: double * */
    MPISCOPE__CLI_INT,    /* value: long long * */
    MPISCOPE__CLI_STRING, /* value: const char ** (points into argv) */
    MPISCOPE__CLI_CPUS    /* value: mpiscope__cpu_list_t * ("0,2,4-7") */
} mpiscope__cli_kind_t;

typedef struct mpiscope__cli_option {
    const char *name; /* without the leading "--" */
    mpiscope__cli_kind_t kind;
    void *value;
    double min, max; /* bounds of numbers (inclusive unless min_exclusive) */
    int min_exclusive;
} mpiscope__cli_option_t;

/* Parse argv[first..argc) as "--name value" or "--name=value" against the
 * table (n entries). Returns 0, 1 when --help was given, or MPISCOPE_EINVAL
 * with a one-line message in err (errlen bytes). */
int mpiscope__cli_parse(const mpiscope__cli_option_t *opts, size_t n, int argc, char **argv, int first, char *err,
                        size_t errlen);

/* "0,2,4-7" -> {0,2,4,5,6,7}. Returns 0 or MPISCOPE_EINVAL (empty items,
 * negative or reversed ranges, CPUs >= MPISCOPE__NOISE_MAX_CPUS). */
int mpiscope__cpu_list_parse(const char *text, mpiscope__cpu_list_t *list);

/* The list as a JSON array "[0,2,4]" into buf; returns buf (truncated
 * lists end in "...]" and are never invalid JSON: they end at a full item). */
char *mpiscope__cpu_list_json(const mpiscope__cpu_list_t *list, char *buf, size_t len);

/* The list as "0,2,4" (for `# cpus_allowed` headers). */
char *mpiscope__cpu_list_csv(const mpiscope__cpu_list_t *list, char *buf, size_t len);

/* Copy text into buf as a JSON string literal with its quotes. */
char *mpiscope__json_quote(const char *text, char *buf, size_t len);

#endif
