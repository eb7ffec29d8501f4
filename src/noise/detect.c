/* detect.c: `mpiscope-noise detect`: packets of a synchronizing loop, each
 * timed by every rank; the sample is the slowest rank's time. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "affinity.h"
#include "agent.h"
#include "detect_setup.h"
#include "detectors.h"
#include "noise_main.h"
#include "noise_mpi.h"

typedef struct detect_run {
    const mpiscope__detect_options_t *o;
    MPI_Comm world, node;
    int rank, size, local;
    mpiscope__detector_t det;
    char host[MPI_MAX_PROCESSOR_NAME + 1];
    char *line; /* rank 0: one packet line */
    size_t line_len;
    double *marks;      /* --groups: this rank's group end times (ns), wall then thread CPU: 2 x groups */
    double *all_groups; /* rank 0: every rank's group durations then stolen times (ns), rank-major */
    double cpu0;        /* this rank's thread CPU time at the packet's start (ns) */
    char *groups_line;  /* rank 0: one noise-groups line */
    size_t groups_len;
} detect_run_t;

/* Reads of the timer timed to measure the cost of one group boundary. */
#define GROUP_COST_READS 4096

/* Rank 0 attaches the agent; everyone pins. Returns 0 or an exit code. */
static int bind(detect_run_t *r)
{
    char text[MPISCOPE__NOISE_ERR_LEN] = "";
    int code = 0;
    if (r->rank == 0 && r->o->agent_pgid && mpiscope__agent_attach((long)r->o->agent_pgid, text, sizeof text) != 0)
        code = MPISCOPE__NOISE_EXIT_USAGE;
    if ((code = mpiscope__noise_agree(r->world, code, text)) != 0)
        return code;
    const mpiscope__cpu_list_t *pins = &r->o->pin_cores;
    if (pins->n && r->local >= pins->n) {
        snprintf(text, sizeof text, "--pin-cores lists %d cores but the node runs local rank %d", pins->n, r->local);
        code = MPISCOPE__NOISE_EXIT_USAGE;
    } else if (pins->n && mpiscope__pin_self(pins->cpu[r->local]) != 0) {
        snprintf(text, sizeof text, "rank %d: cannot pin to core %d (offline or outside this cpuset?)", r->rank,
                 pins->cpu[r->local]);
        code = MPISCOPE__NOISE_EXIT_USAGE;
    }
    return mpiscope__noise_agree(r->world, code, text);
}

/* This thread's CPU time (ns): the time the core ran it, not another task. */
static double thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The cost of one group boundary (a timer read and a thread CPU time read):
 * the mean of many back-to-back boundaries. */
static double group_read_ns(void)
{
    volatile double sink = 0;
    double t0 = mpiscope_timer_now_ns();
    for (int i = 0; i < GROUP_COST_READS; i++)
        sink += mpiscope_timer_now_ns() + thread_cpu_ns();
    (void)sink;
    return (mpiscope_timer_now_ns() - t0) / GROUP_COST_READS;
}

/* Allocate the detector's buffers, calibrate, print setup and bindings. */
static int prepare(detect_run_t *r, long long *iterations)
{
    const mpiscope__detect_options_t *o = r->o;
    mpiscope__stream_size_t stream = {0};
    if (o->detector == MPISCOPE__DETECT_STREAM_RING)
        mpiscope__stream_size(o->stream_elements, r->world, r->node, &stream);
    char text[MPISCOPE__NOISE_ERR_LEN];
    snprintf(text, sizeof text, "rank %d: cannot allocate the detector's buffers (%lld stream elements)", r->rank,
             stream.elements);
    int rc = mpiscope__detector_init(&r->det, o, r->world, stream.elements);
    if (r->rank == 0) {
        r->line_len = (size_t)r->size * 24 + 256;
        r->line = malloc(r->line_len);
        rc = rc ? rc : (r->line ? 0 : MPISCOPE_ENOMEM);
    }
    if (o->groups) {
        r->marks = malloc(2 * (size_t)o->groups * sizeof *r->marks);
        rc = rc ? rc : (r->marks ? 0 : MPISCOPE_ENOMEM);
        if (r->rank == 0) {
            r->all_groups = malloc(2 * (size_t)o->groups * (size_t)r->size * sizeof *r->all_groups);
            r->groups_len = 2 * (size_t)o->groups * (size_t)r->size * 16 + (size_t)r->size * 8 + 64;
            r->groups_line = malloc(r->groups_len);
            rc = rc ? rc : (r->all_groups && r->groups_line ? 0 : MPISCOPE_ENOMEM);
        }
    }
    int code = mpiscope__noise_agree(r->world, rc ? MPISCOPE__NOISE_EXIT_FAILED : 0, text);
    if (code)
        return code;
    mpiscope__calibration_t cal;
    *iterations = o->iterations ? o->iterations
                                : mpiscope__detector_calibrate(&r->det, o->calibrate_seconds, o->packet_seconds, &cal);
    mpiscope_timer_info_t info;
    mpiscope_timer_info(&info);
    if (r->rank == 0)
        mpiscope__print_setup(o, r->size, *iterations, o->iterations ? NULL : &cal, &stream, info.name,
                              o->groups ? group_read_ns() : 0);
    return mpiscope__noise_print_bindings(r->world, r->host);
}

/* One packet's iterations in --groups equal groups, each group's end (wall
 * and thread CPU time) kept in the bounded buffer r->marks: two clock reads
 * per group, no I/O. */
static void iterate_groups(detect_run_t *r, long long iterations)
{
    long long groups = r->o->groups, done = 0;
    r->cpu0 = thread_cpu_ns();
    for (long long g = 0; g < groups; g++) {
        long long until = (g + 1) * iterations / groups;
        mpiscope__detector_iterate(&r->det, until - done);
        done = until;
        r->marks[g] = mpiscope_timer_now_ns();
        r->marks[groups + g] = thread_cpu_ns();
    }
}

/* One list per rank of `groups` values from all_groups, at `offset` in each rank's row. */
static size_t print_lists(detect_run_t *r, size_t used, long long offset)
{
    long long groups = r->o->groups;
    for (int i = 0; i < r->size; i++) {
        used += (size_t)snprintf(r->groups_line + used, r->groups_len - used, "%s[", i ? "," : "");
        for (long long g = 0; g < groups; g++)
            used += (size_t)snprintf(r->groups_line + used, r->groups_len - used, "%s%.0f", g ? "," : "",
                                     r->all_groups[(size_t)i * 2 * (size_t)groups + (size_t)(offset + g)]);
        used += (size_t)snprintf(r->groups_line + used, r->groups_len - used, "]");
    }
    return used;
}

/* After the packet (outside its time): every rank's group durations to rank 0,
 * printed as one noise-groups line. Collective. */
static void report_groups(detect_run_t *r, long long p, double t0)
{
    long long groups = r->o->groups;
    double *wall = r->marks, *cpu = r->marks + groups;
    for (long long g = groups - 1; g >= 0; g--) { /* durations, then stolen = wall - CPU */
        wall[g] -= g ? wall[g - 1] : t0;
        cpu[g] -= g ? cpu[g - 1] : r->cpu0;
        cpu[g] = wall[g] > cpu[g] ? wall[g] - cpu[g] : 0;
    }
    MPI_Gather(r->marks, 2 * (int)groups, MPI_DOUBLE, r->all_groups, 2 * (int)groups, MPI_DOUBLE, 0, r->world);
    if (r->rank != 0)
        return;
    size_t used = (size_t)snprintf(r->groups_line, r->groups_len, "{\"index\":%lld,\"groups_ns\":[", p);
    used = print_lists(r, used, 0);
    used += (size_t)snprintf(r->groups_line + used, r->groups_len - used, "],\"stolen_ns\":[");
    used = print_lists(r, used, groups);
    snprintf(r->groups_line + used, r->groups_len - used, "]}");
    mpiscope__noise_emit("noise-groups", r->groups_line);
}

/* The agent's state in block b, in ABBA order (off on on off, off on on
 * off...): a drift of the host that is linear in time weighs the same on
 * both states, where plain alternation (off on off on) would add it to the
 * agent's blocks. */
static int agent_on_in_block(long long block)
{
    return (int)(((block + 1) / 2) % 2);
}

/* Collective: has the caller asked the run to stop (rank 0 sees the stop file)? */
static int stop_asked(detect_run_t *r)
{
    int stop = r->rank == 0 && access(r->o->stop_file, F_OK) == 0;
    MPI_Bcast(&stop, 1, MPI_INT, 0, r->world);
    return stop;
}

/* Before block b: the agent stopped or resumed as its state requires. Collective. */
static int switch_agent(detect_run_t *r, long long block)
{
    int on = agent_on_in_block(block), failed = 0;
    if (r->rank == 0)
        failed = mpiscope__agent_set(on) != 0;
    MPI_Bcast(&failed, 1, MPI_INT, 0, r->world);
    if (failed && r->rank == 0)
        fprintf(stderr, "mpiscope-noise: error: the agent's process group %lld is gone\n", r->o->agent_pgid);
    return failed ? MPISCOPE__NOISE_EXIT_FAILED : 0;
}

static void print_packet(detect_run_t *r, long long p, int agent, const double *seconds, double start_s)
{
    double slowest = 0;
    size_t used = (size_t)snprintf(r->line, r->line_len, "{\"index\":%lld,\"block\":%lld,\"agent\":%s,", p,
                                   r->o->block ? p / r->o->block : 0,
                                   agent < 0 ? "null"
                                   : agent   ? "true"
                                             : "false");
    for (int i = 0; i < r->size; i++)
        slowest = seconds[i] > slowest ? seconds[i] : slowest;
    used += (size_t)snprintf(r->line + used, r->line_len - used, "\"seconds\":%.9g,\"rank_seconds\":[", slowest);
    for (int i = 0; i < r->size; i++)
        used += (size_t)snprintf(r->line + used, r->line_len - used, "%s%.9g", i ? "," : "", seconds[i]);
    snprintf(r->line + used, r->line_len - used, "],\"start_s\":%.9g}", start_s);
    mpiscope__noise_emit("noise-packet", r->line);
}

/* The packets: barrier, time the loop, gather every rank's time. */
static int run_packets(detect_run_t *r, long long iterations)
{
    const mpiscope__detect_options_t *o = r->o;
    double *seconds = r->rank == 0 ? malloc((size_t)r->size * sizeof *seconds) : NULL;
    double first = 0;
    int code = mpiscope__noise_agree(r->world, r->rank == 0 && !seconds, "no memory for the samples");
    long long measured = 0;
    for (long long p = 0; !code && p < o->packets; p++, measured = p) {
        int agent = o->block ? agent_on_in_block(p / o->block) : -1;
        if (o->stop_file && p > 0 && p % (4 * o->block) == 0 && stop_asked(r))
            break;
        if (o->block && p % o->block == 0 && (code = switch_agent(r, p / o->block)) != 0)
            break;
        MPI_Barrier(r->world);
        double t0 = mpiscope_timer_now_ns();
        if (o->groups)
            iterate_groups(r, iterations);
        else
            mpiscope__detector_iterate(&r->det, iterations);
        double mine = (mpiscope_timer_now_ns() - t0) * 1e-9;
        MPI_Gather(&mine, 1, MPI_DOUBLE, seconds, 1, MPI_DOUBLE, 0, r->world);
        if (r->rank == 0) {
            first = p == 0 ? t0 : first;
            print_packet(r, p, agent, seconds, (t0 - first) * 1e-9);
        }
        if (o->groups)
            report_groups(r, p, t0);
    }
    if (!code && r->rank == 0) {
        char done[128];
        snprintf(done, sizeof done, "{\"packets\":%lld,\"seconds\":%.9g}", measured,
                 (mpiscope_timer_now_ns() - first) * 1e-9);
        mpiscope__noise_emit("noise-done", done);
    }
    free(seconds);
    return code;
}

static int detect(detect_run_t *r)
{
    char text[MPISCOPE__NOISE_ERR_LEN] = "no trustworthy timer on this machine";
    int code = mpiscope__noise_agree(
        r->world, mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0) != 0 ? MPISCOPE__NOISE_EXIT_FAILED : 0, text);
    long long iterations = 0;
    if (!code)
        code = bind(r);
    if (!code)
        code = prepare(r, &iterations);
    if (!code)
        code = run_packets(r, iterations);
    mpiscope__agent_release(); /* the agent runs on after us, whatever happened */
    return code;
}

int mpiscope__noise_detect_main(int argc, char **argv)
{
    mpiscope__detect_options_t o;
    detect_run_t r = {.o = &o, .world = MPI_COMM_WORLD};
    MPI_Comm_rank(r.world, &r.rank);
    MPI_Comm_size(r.world, &r.size);
    char text[MPISCOPE__NOISE_ERR_LEN];
    int rc = mpiscope__detect_options_parse(argc, argv, 2, &o, text, sizeof text);
    if (rc != 0)
        return mpiscope__noise_parse_result(r.rank, rc, text, mpiscope__detect_usage);
    int host_len;
    MPI_Get_processor_name(r.host, &host_len);
    r.node = mpiscope__noise_node_comm(r.world);
    MPI_Comm_rank(r.node, &r.local);
    int code = detect(&r);
    mpiscope__detector_free(&r.det);
    free(r.line);
    free(r.marks);
    free(r.all_groups);
    free(r.groups_line);
    MPI_Comm_free(&r.node);
    return code;
}
