/* probe_file.c: writing a probe's records with their header. */
#include <stdio.h>
#include <string.h>
#include "mpiscope/error.h"
#include "probe_file.h"

static void write_header(FILE *f, const mpiscope__probe_header_t *h, const mpiscope__probe_records_t *r)
{
    char cpus[8192];
    fprintf(f, "# kind %s\n# rank %d\n# host %s\n# pid %ld\n# core %d\n# cpus_allowed %s\n", h->kind, h->rank, h->host,
            h->pid, h->core, mpiscope__cpu_list_csv(h->cpus_allowed, cpus, sizeof cpus));
    fprintf(f, "# seconds %.9g\n# start_ns %.0f\n# timer %s\n", h->seconds, h->start_ns, h->timer);
    if (strcmp(h->kind, "fwq") == 0)
        fprintf(f, "# work_ns_target %.0f\n# work_iterations %llu\n", h->work_ns_target, h->work_iterations);
    else if (strcmp(h->kind, "ftq") == 0)
        fprintf(f, "# quantum_ns %.0f\n# step_iterations %d\n", h->quantum_ns, MPISCOPE__FTQ_STEP_ITERATIONS);
    else if (strcmp(h->kind, "triad") == 0) /* STREAM counts 3 arrays x 8 bytes per element */
        fprintf(f, "# elements %lld\n# bytes_per_pass %lld\n# llc_bytes %lld\n# llc_source %s\n", h->elements,
                24 * h->elements, h->llc_bytes, h->llc_source ? h->llc_source : "default");
    else
        fprintf(f, "# threshold_ns %.0f\n# loop_median_ns %.1f\n", h->threshold_ns, h->loop_median_ns);
    fprintf(f, "# records %zu\n# dropped %llu\n", r->count, r->dropped);
}

int mpiscope__probe_file_write(const char *dir, const mpiscope__probe_header_t *h, const mpiscope__probe_records_t *r,
                               char *path, size_t len)
{
    snprintf(path, len, "%s/%s-r%d-c%d.txt", dir, h->kind, h->rank, h->core);
    FILE *f = fopen(path, "w");
    if (!f)
        return MPISCOPE_EIO;
    write_header(f, h, r);
    for (size_t i = 0; i < r->count; i++)
        fprintf(f, "%lld %lld\n", r->start_ns[i], r->value[i]);
    int bad = ferror(f);
    return (fclose(f) != 0 || bad) ? MPISCOPE_EIO : 0;
}
