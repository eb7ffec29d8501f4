/* main.c: mpiscope-bench, the thin executable `mpiscope run` launches on
 * every rank: read the plan, run it (mpiscope/plan.h), report progress. */
#include <stdio.h>
#include "mpiscope/mpiscope.h"
#include "options.h"

typedef struct bench_output {
    int rank0, progress;
} bench_output_t;

/* After each point: its progress line, and a validation failure. */
static void on_point(const mpiscope_plan_point_report_t *p, void *user)
{
    const bench_output_t *out = user;
    const mpiscope_point_result_t *r = p->result;
    if (!out->rank0)
        return;
    if (out->progress) {
        printf("@mpiscope progress {\"index\":%zu,\"total\":%zu,\"op\":\"%s\",\"size_bytes\":%zu,"
               "\"nprocs\":%d,\"median_ns\":%.6g,\"ci_low_ns\":%.6g,\"ci_high_ns\":%.6g,\"unstable\":%s}\n",
               p->index + 1, p->total, p->op->name, p->size_bytes, p->nprocs, r->stats.median, r->stats.ci_low,
               r->stats.ci_high, r->unstable ? "true" : "false");
        fflush(stdout);
    }
    if (r->validation_failures)
        fprintf(stderr, "mpiscope-bench: error: %s: validation failed on rank %d, launch %zu: %s\n", p->op->name,
                r->first_mismatch_rank, r->first_mismatch_launch, r->first_mismatch);
}

/* One error line for the whole job: rank 0's when it has one (errors the
 * engine agrees on are known to every rank), else that of the lowest rank
 * that has one, naming it. Collective over MPI_COMM_WORLD. */
static void say_error(int rank, int err, const char *text)
{
    int nprocs, first;
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int mine = err && text[0] ? rank : nprocs;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (first == nprocs || rank != first)
        return;
    if (rank == 0)
        fprintf(stderr, "mpiscope-bench: error: %s\n", text);
    else
        fprintf(stderr, "mpiscope-bench: error: rank %d: %s\n", rank, text);
}

/* mpiscope startup: the library starts (and ends) MPI itself. */
static int run_startup(int *argc, char ***argv, bench_command_t *cmd)
{
    char err_text[320];
    int says = 0;
    int err = mpiscope_startup_run(argc, argv, cmd->plan, err_text, sizeof err_text, &says);
    if (err && says)
        fprintf(stderr, "mpiscope-bench: error: %s\n", err_text);
    mpiscope_plan_free(cmd->plan);
    return err == MPISCOPE_ENOTSUP || err == MPISCOPE_EINVAL ? 2 : err ? 1 : 0;
}

int main(int argc, char **argv)
{
    bench_command_t cmd;
    char err_text[320];
    int bad = bench_options_parse(argc, argv, &cmd, err_text, sizeof err_text);
    if (!bad && (cmd.list_ops || cmd.help || cmd.describe)) { /* no MPI needed: runs without mpiexec */
        if (cmd.help)
            bench_options_usage();
        int err = cmd.list_ops   ? mpiscope_op_catalogue_write(stdout, 0)
                  : cmd.describe ? mpiscope_describe_write(stdout, 0)
                                 : 0;
        return err ? 1 : 0;
    }
    if (!bad && cmd.verify) { /* the plan as a run on N ranks would take it: no MPI */
        bad = mpiscope_plan_check(cmd.plan, cmd.verify, err_text, sizeof err_text);
        mpiscope_plan_free(cmd.plan);
    }
    if (bad && cmd.verify) {
        fprintf(stderr, "mpiscope-bench: error: %s\n", err_text);
        return 2;
    }
    if (cmd.verify)
        return 0;
    mpiscope_timer_prepare(); /* MPI_Init's time becomes the counter's calibration */
    mpiscope_plan_start_t start = {0};
    if (!bad)
        mpiscope_plan_start(cmd.plan, &start);
    if (start.startup)
        return run_startup(&argc, &argv, &cmd);
    int provided;
    if (start.init_thread)
        MPI_Init_thread(&argc, &argv, start.level, &provided);
    else
        MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    bench_output_t out = {.rank0 = rank == 0};
    int any_bad; /* a plan one rank cannot read (not on its node) stops every rank */
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad) {
        say_error(rank, bad, bad ? err_text : "");
        mpiscope_plan_free(cmd.plan);
        MPI_Finalize();
        return 2;
    }
    mpiscope_plan_get_bool(cmd.plan, "progress", &out.progress);
    int err = mpiscope_plan_run(MPI_COMM_WORLD, cmd.plan, on_point, &out, err_text, sizeof err_text);
    say_error(rank, err, err_text);
    mpiscope_plan_free(cmd.plan);
    MPI_Finalize();
    return err ? 1 : 0;
}
