/* probe.c: `mpiscope-noise probe`: the per-core probes on every rank, or
 * on pinned threads of one process (--threads). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "mpiscope/error.h"
#include "mpiscope/timer.h"
#include "noise_main.h"
#include "detect_setup.h"
#include "noise_mpi.h"
#include "probe_worker.h"

typedef struct thread_team {
    pthread_barrier_t barrier;
    const mpiscope__probe_options_t *options;
    mpiscope__stream_size_t triad; /* elements per thread, when the triad runs */
    const char *triad_source;
    mpiscope__probe_worker_t *workers;
    atomic_int failed; /* set before the first barrier, read after it */
} thread_team_t;

typedef struct thread_arg {
    thread_team_t *team;
    int index;
} thread_arg_t;

static void mpi_sync(void *ctx)
{
    MPI_Barrier(*(MPI_Comm *)ctx);
}

static void thread_sync(void *ctx)
{
    pthread_barrier_wait(&((thread_team_t *)ctx)->barrier);
}

static void *thread_main(void *p)
{
    thread_arg_t *a = p;
    thread_team_t *team = a->team;
    mpiscope__probe_worker_t *w = &team->workers[a->index];
    if (mpiscope__probe_worker_prepare(team->options, w) != 0
        || (mpiscope__probe_has_kind(team->options, MPISCOPE__PROBE_TRIAD)
            && mpiscope__probe_worker_triad(w, team->triad.elements, team->triad.llc_bytes, team->triad_source) != 0))
        atomic_store(&team->failed, 1);
    pthread_barrier_wait(&team->barrier);
    if (!atomic_load(&team->failed))
        mpiscope__probe_worker_run(team->options, w);
    return NULL;
}

static const char *triad_source(const mpiscope__probe_options_t *o, const mpiscope__stream_size_t *s)
{
    return o->triad_elements ? "given" : s->from_sysfs ? "sysfs" : "default";
}

/* Alone: one pinned thread per listed core. Returns the files written, or
 * -1 (failed) or -2 (a core that cannot be pinned: bad usage). */
static int run_threads(const mpiscope__probe_options_t *o, const char *host, const char *timer)
{
    const int n = o->threads.n;
    thread_team_t team = {.options = o, .workers = calloc((size_t)n, sizeof *team.workers)};
    thread_arg_t *args = calloc((size_t)n, sizeof *args);
    pthread_t *tids = calloc((size_t)n, sizeof *tids);
    int files = -1, started = 0;
    if (!team.workers || !args || !tids || pthread_barrier_init(&team.barrier, NULL, (unsigned)n) != 0) {
        fprintf(stderr, "mpiscope-noise: error: cannot set up %d probe threads\n", n);
        goto out;
    }
    if (mpiscope__probe_has_kind(o, MPISCOPE__PROBE_TRIAD)) {
        /* the process's CPUs hold every thread's: their LLC over the threads */
        mpiscope__stream_size(o->triad_elements, MPI_COMM_SELF, MPI_COMM_SELF, &team.triad);
        if (!o->triad_elements)
            team.triad.elements = (team.triad.elements + n - 1) / n;
        team.triad_source = triad_source(o, &team.triad);
    }
    for (int i = 0; i < n; i++) {
        team.workers[i] = (mpiscope__probe_worker_t){.rank = i,
                                                     .pin_core = o->threads.cpu[i],
                                                     .host = host,
                                                     .timer = timer,
                                                     .sync = thread_sync,
                                                     .sync_ctx = &team,
                                                     .clock = mpiscope__noise_engine_clock()};
        args[i] = (thread_arg_t){.team = &team, .index = i};
    }
    for (; started < n; started++)
        if (pthread_create(&tids[started], NULL, thread_main, &args[started]) != 0)
            break;
    if (started < n) { /* the started ones wait at the barrier for ever: nothing to join */
        fprintf(stderr, "mpiscope-noise: error: cannot start probe thread %d\n", started);
        exit(MPISCOPE__NOISE_EXIT_FAILED);
    }
    files = 0;
    for (int i = 0; i < n; i++) {
        pthread_join(tids[i], NULL);
        mpiscope__probe_worker_t *w = &team.workers[i];
        if (w->error && files >= 0) {
            fprintf(stderr, "mpiscope-noise: error: --threads: thread %d: %s\n", i, w->message);
            files = w->error == MPISCOPE_EINVAL ? -2 : -1;
        }
        if (files >= 0)
            files += w->files;
        mpiscope__probe_worker_release(w);
    }
    pthread_barrier_destroy(&team.barrier);
out:
    free(team.workers);
    free(args);
    free(tids);
    return files;
}

/* One worker per rank. Returns 0 or an exit code; *files gets the sum. */
static int run_ranks(const mpiscope__probe_options_t *o, const char *host, const char *timer, int *files)
{
    MPI_Comm world = MPI_COMM_WORLD, node = mpiscope__noise_node_comm(world);
    int rank, local;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_rank(node, &local);
    mpiscope__probe_worker_t w = {.rank = rank,
                                  .pin_core = -1,
                                  .host = host,
                                  .timer = timer,
                                  .sync = mpi_sync,
                                  .sync_ctx = &world,
                                  .clock = mpiscope__noise_engine_clock()};
    char text[MPISCOPE__NOISE_ERR_LEN] = "";
    int code = 0;
    if (o->pin_cores.n && local >= o->pin_cores.n) {
        snprintf(text, sizeof text, "--pin-cores lists %d cores but the node runs local rank %d", o->pin_cores.n,
                 local);
        code = MPISCOPE__NOISE_EXIT_USAGE;
    } else {
        w.pin_core = o->pin_cores.n ? o->pin_cores.cpu[local] : -1;
        if (mpiscope__probe_worker_prepare(o, &w) != 0) {
            snprintf(text, sizeof text, "rank %d: %.200s", rank, w.message);
            code = w.error == MPISCOPE_EINVAL ? MPISCOPE__NOISE_EXIT_USAGE : MPISCOPE__NOISE_EXIT_FAILED;
        }
    }
    if ((code = mpiscope__noise_agree(world, code, text)) == 0 && mpiscope__probe_has_kind(o, MPISCOPE__PROBE_TRIAD)) {
        mpiscope__stream_size_t s; /* after pinning: the LLC of the CPUs the ranks really have */
        mpiscope__stream_size(o->triad_elements, world, node, &s);
        if (mpiscope__probe_worker_triad(&w, s.elements, s.llc_bytes, triad_source(o, &s)) != 0) {
            snprintf(text, sizeof text, "rank %d: %.200s", rank, w.message);
            code = MPISCOPE__NOISE_EXIT_FAILED;
        }
        code = mpiscope__noise_agree(world, code, text);
    }
    MPI_Comm_free(&node);
    if (code != 0) {
        mpiscope__probe_worker_release(&w);
        return code;
    }
    mpiscope__probe_worker_run(o, &w);
    snprintf(text, sizeof text, "rank %d: %.200s", rank, w.message);
    code = mpiscope__noise_agree(world, w.error ? MPISCOPE__NOISE_EXIT_FAILED : 0, text);
    MPI_Reduce(&w.files, files, 1, MPI_INT, MPI_SUM, 0, world);
    mpiscope__probe_worker_release(&w);
    return code;
}

/* mkdir -p: every rank may create it (nodes need not share a file system). */
static int make_dir(const char *dir, char *text, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", dir);
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char saved = *p;
        *p = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            break;
        *p = saved;
        if (!saved)
            break;
    }
    struct stat st;
    if (stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    snprintf(text, len, "--out-dir %.200s: cannot create the directory (%s)", dir, strerror(errno));
    return MPISCOPE__NOISE_EXIT_USAGE;
}

int mpiscope__noise_probe_main(int argc, char **argv)
{
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    mpiscope__probe_options_t o;
    char text[MPISCOPE__NOISE_ERR_LEN] = "";
    int rc = mpiscope__probe_options_parse(argc, argv, 2, &o, text, sizeof text);
    if (rc != 0)
        return mpiscope__noise_parse_result(rank, rc, text, mpiscope__probe_usage);
    int code = 0;
    if (!code && o.threads.n && size > 1) {
        snprintf(text, sizeof text, "--threads runs one process alone, not under %d ranks", size);
        code = MPISCOPE__NOISE_EXIT_USAGE;
    }
    if (!code)
        code = make_dir(o.out_dir, text, sizeof text);
    if (!code && mpiscope_timer_init(MPISCOPE_TIMER_AUTO, 0) != 0) {
        snprintf(text, sizeof text, "no trustworthy timer on this machine");
        code = MPISCOPE__NOISE_EXIT_FAILED;
    }
    if ((code = mpiscope__noise_agree(MPI_COMM_WORLD, code, text)) != 0)
        return code;
    mpiscope_timer_info_t info;
    mpiscope_timer_info(&info);
    char host[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int host_len;
    MPI_Get_processor_name(host, &host_len);
    int files = 0, workers = o.threads.n ? o.threads.n : size;
    if (o.threads.n) {
        files = run_threads(&o, host, info.name);
        code = files == -2 ? MPISCOPE__NOISE_EXIT_USAGE : files < 0 ? MPISCOPE__NOISE_EXIT_FAILED : 0;
    } else {
        code = run_ranks(&o, host, info.name, &files);
    }
    if (code == 0 && rank == 0) {
        snprintf(text, sizeof text, "{\"workers\":%d,\"files\":%d}", workers, files);
        mpiscope__noise_emit("noise-probe-done", text);
    }
    return code;
}
