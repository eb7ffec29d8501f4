/* contention_output.c: what mpiscope-contention writes (rank 0): the JSON
 * document (schema mpiscope-contention, version 1; docs/alltoall-contention.md)
 * and a short table. */
#include "contention.h"

#include <math.h>
#include <stdio.h>

static const char *const phase_names[2] = {"without_contention", "with_contention"};

/* A number, or null when it is not finite (a JSON number cannot be NaN). */
static void number(FILE *f, double value)
{
    if (isfinite(value))
        fprintf(f, "%.1f", value);
    else
        fputs("null", f);
}

static void phase_json(FILE *f, const contention_result_t *r, int phase, int size)
{
    const mpiscope_stats_t *s = &r->stats[phase][size];

    fprintf(f, "\"%s\": {\"samples\": %zu, \"median_ns\": ", phase_names[phase], s->n_valid);
    number(f, s->median);
    fputs(", \"min_ns\": ", f);
    number(f, s->min);
    fputs(", \"p90_ns\": ", f);
    number(f, r->p90_ns[phase][size]);
    fputs(", \"mean_ns\": ", f);
    number(f, s->mean);
    fputs(", \"max_ns\": ", f);
    number(f, s->max);
    fputs("}", f);
}

static double ratio(const contention_result_t *r, int size)
{
    return r->stats[1][size].median / r->stats[0][size].median;
}

int contention_write_json(const char *path, const contention_options_t *o, const contention_result_t *r)
{
    FILE *f = fopen(path, "w");

    if (!f)
        return -1;
    fprintf(f, "{\n  \"schema\": \"mpiscope-contention\",\n  \"schema_version\": 1,\n");
    fprintf(f, "  \"nodes\": %d,\n  \"nodes_virtual\": %s,\n  \"ranks\": %d,\n  \"ranks_per_node\": %d,\n", r->nodes,
            r->nodes_virtual ? "true" : "false", r->ranks, r->ranks_per_node);
    fprintf(f, "  \"latency_ranks\": [0, %d],\n  \"streamers\": \"%s\",\n  \"streamer_count\": %d,\n", r->partner_rank,
            o->streamers_all ? "all" : "others", r->streamer_count);
    fprintf(f, "  \"stream_bytes\": %ld,\n  \"window_messages\": %d,\n", o->stream_bytes, o->window);
    fprintf(f, "  \"streamed_messages\": %lld,\n  \"streamed_end_messages\": %lld,\n", r->streamed_messages,
            r->streamed_end_messages);
    fprintf(f, "  \"iterations\": %ld,\n  \"warmup_iterations\": %ld,\n", o->iterations, o->warmup);
    fprintf(f, "  \"latency\": \"half the round trip of one ping-pong, each timed alone\",\n");
    fprintf(f, "  \"timer\": {\"name\": \"%s\", \"source\": \"%s\", \"resolution_ns\": ", r->timer.name,
            r->timer.source);
    number(f, r->timer.resolution_ns);
    fputs(", \"read_overhead_ns\": ", f);
    number(f, r->timer.read_overhead_ns);
    fputs("},\n  \"sizes\": [", f);
    for (int s = 0; s < o->n_sizes; s++) {
        fprintf(f, "%s\n    {\"size_bytes\": %zu, ", s ? "," : "", o->sizes_bytes[s]);
        phase_json(f, r, 0, s);
        fputs(", ", f);
        phase_json(f, r, 1, s);
        fputs(", \"median_ratio\": ", f);
        if (isfinite(ratio(r, s)))
            fprintf(f, "%.4f", ratio(r, s));
        else
            fputs("null", f);
        fputs("}", f);
    }
    fputs("\n  ]\n}\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

void contention_print_table(const contention_options_t *o, const contention_result_t *r)
{
    printf("mpiscope-contention: %d nodes x %d ranks, %d streamers (%ld-byte messages, window %d), "
           "%ld iterations, timer %s\n",
           r->nodes, r->ranks_per_node, r->streamer_count, o->stream_bytes, o->window, o->iterations, r->timer.name);
    printf("%10s %14s %14s %14s %14s %8s\n", "size_B", "alone_med_ns", "alone_p90_ns", "contended_med", "contended_p90",
           "ratio");
    for (int s = 0; s < o->n_sizes; s++)
        printf("%10zu %14.1f %14.1f %14.1f %14.1f %8.2f\n", o->sizes_bytes[s], r->stats[0][s].median, r->p90_ns[0][s],
               r->stats[1][s].median, r->p90_ns[1][s], ratio(r, s));
}
