/* startup.c: how long MPI takes to start, per rank and on the global
 * clock, and the first message to each peer (mpiscope/startup.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpiscope/error.h"
#include "mpiscope/result.h"
#include "mpiscope/startup.h"
#include "environment.h"
#include "json.h"
#include "plan_spec.h"
#include "result_internal.h"
#include "startup_internal.h"
#include "timer_read.h"

enum { TAG_PING = 41, TAG_PONG = 42, TAG_MISMATCH = 43, MAX_CALLS = 3, WARM = 9 };

typedef enum { HOW_INIT, HOW_INIT_THREAD, HOW_SESSION } how_t;

static const char *const call_names[][MAX_CALLS] = {
    [HOW_INIT] = {"MPI_Init"},
    [HOW_INIT_THREAD] = {"MPI_Init_thread"},
    [HOW_SESSION] = {"MPI_Session_init", "MPI_Group_from_session_pset", "MPI_Comm_create_from_group"},
};
static const int n_calls[] = {[HOW_INIT] = 1, [HOW_INIT_THREAD] = 1, [HOW_SESSION] = 3};

/* Every clock the timer may turn out to be (it is chosen and calibrated
 * only once MPI runs): converted afterwards with the timer's origin. */
typedef struct stamp {
    uint64_t ticks;
    struct timespec raw, real;
    double wtime; /* MPI_Wtime, s; NAN before MPI started */
} stamp_t;

/* One rank's measurements. */
typedef struct startup {
    how_t how;
    MPI_Comm comm;
#ifdef MPISCOPE_HAVE_SESSIONS
    MPI_Session session;
#endif
    int rank, nprocs, level_asked, level;
    stamp_t call[MAX_CALLS + 1]; /* before the first call, after each */
    /* per peer: as the pair's initiator the first round trip's send and
     * end and the second's; as its responder when the receive was posted */
    stamp_t *first_send, *first_end, *second_send, *second_end, *posted;
    stamp_t *warm_stamps;         /* per peer, WARM more round trips: each one's start and end */
    unsigned char *buffer, *echo; /* what is sent; what is received */
    size_t size_bytes;
    int validate;                         /* check every message received (plan "validate") */
    unsigned long long checked, failures; /* this rank's; after gather_validation every rank's */
    int first_failing;                    /* the lowest rank with a failure (nprocs: none) */
    char mismatch[200];                   /* its first failure (this rank's until gather_validation) */
} startup_t;

static void stamp_read(stamp_t *s, int mpi_up)
{
    s->ticks = mpiscope__tsc_read();
    clock_gettime(CLOCK_MONOTONIC_RAW, &s->raw);
    clock_gettime(CLOCK_REALTIME, &s->real);
    s->wtime = mpi_up ? MPI_Wtime() : NAN;
}

/* A stamp in ns of the timer chosen since (mpiscope__now_ns's clock). */
static double stamp_ns(const stamp_t *s)
{
    const mpiscope__timer_state_t *t = &mpiscope__timer;
    switch (t->kind) {
    case MPISCOPE_TIMER_TSC:
        return (double)(int64_t)(s->ticks - t->origin_ticks) * t->ns_per_tick;
    case MPISCOPE_TIMER_MONOTONIC:
        return (double)(s->raw.tv_sec - t->origin_sec) * 1e9 + (double)s->raw.tv_nsec - t->origin_ns;
    case MPISCOPE_TIMER_GETTIMEOFDAY:
        return (double)(s->real.tv_sec - t->origin_sec) * 1e9 + (double)(s->real.tv_nsec / 1000 * 1000) - t->origin_ns;
    case MPISCOPE_TIMER_WTIME:
        return isnan(s->wtime) ? NAN : (s->wtime - t->origin_ns * 1e-9) * 1e9;
    default:
        return NAN;
    }
}

/* ---- starting MPI ---- */

static int start_world(startup_t *st, int *argc, char ***argv)
{
    stamp_read(&st->call[0], 0);
    int rc =
        st->how == HOW_INIT_THREAD ? MPI_Init_thread(argc, argv, st->level_asked, &st->level) : MPI_Init(argc, argv);
    stamp_read(&st->call[1], 1);
    if (st->how == HOW_INIT)
        MPI_Query_thread(&st->level);
    st->comm = MPI_COMM_WORLD;
    return rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

#ifdef MPISCOPE_HAVE_SESSIONS
/* The session's thread level: its info's "thread_level" (MPI 4.0), or
 * "mpi_thread_support_level" (as some libraries spell it). */
static int session_level(MPI_Session session)
{
    static const char *const keys[] = {"thread_level", "mpi_thread_support_level"};
    MPI_Info info;
    int level = -1;
    if (MPI_Session_get_info(session, &info) != MPI_SUCCESS)
        return -1;
    for (size_t k = 0; k < sizeof keys / sizeof *keys && level < 0; k++) {
        char value[64] = "";
        int len = (int)sizeof value, flag = 0;
        MPI_Info_get_string(info, keys[k], &len, value, &flag);
        level = flag ? mpiscope__thread_level_parse(value) : -1;
    }
    MPI_Info_free(&info);
    return level;
}

static int start_session(startup_t *st)
{
    MPI_Group group = MPI_GROUP_NULL;
    st->comm = MPI_COMM_NULL;
    stamp_read(&st->call[0], 0);
    int rc = MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &st->session);
    stamp_read(&st->call[1], rc == MPI_SUCCESS);
    if (rc != MPI_SUCCESS)
        return MPISCOPE_ENOTSUP;
    rc = MPI_Group_from_session_pset(st->session, "mpi://WORLD", &group);
    stamp_read(&st->call[2], 1);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_create_from_group(group, "org.mpiscope.startup", MPI_INFO_NULL, MPI_ERRORS_RETURN, &st->comm);
    stamp_read(&st->call[3], 1);
    if (group != MPI_GROUP_NULL)
        MPI_Group_free(&group);
    st->level = session_level(st->session);
    return rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}
#endif

static void stop(startup_t *st)
{
#ifdef MPISCOPE_HAVE_SESSIONS
    if (st->how == HOW_SESSION) {
        if (st->comm != MPI_COMM_NULL)
            MPI_Comm_free(&st->comm);
        MPI_Session_finalize(&st->session);
        return;
    }
#endif
    MPI_Finalize();
}

/* ---- the first message to each peer ---- */

/* Place m-1 meets r, and r+k meets r-k (mod m-1). A partner >= nprocs
 * is the bye of an odd number of ranks. */
int mpiscope__circle_partner(int rank, int r, int m)
{
    if (rank == m - 1)
        return r;
    if (rank == r)
        return m - 1;
    return ((2 * r - rank) % (m - 1) + (m - 1)) % (m - 1);
}

/* The bytes the pair's initiator sends in a round trip, and gets back. */
static unsigned char pattern_byte(int initiator, int peer, int round, size_t i)
{
    return (unsigned char)(i * 31u + (unsigned)initiator * 7u + (unsigned)peer * 13u + (unsigned)round * 101u + 1u);
}

static void check_message(startup_t *st, int initiator, int peer, int round, const char *what)
{
    st->checked++;
    for (size_t i = 0; i < st->size_bytes; i++) {
        unsigned char want = pattern_byte(initiator, peer, round, i);
        if (st->echo[i] != want) {
            if (!st->failures++)
                snprintf(st->mismatch, sizeof st->mismatch,
                         "%s of round trip %d between ranks %d and %d: byte %zu is 0x%02x, expected 0x%02x", what,
                         round, initiator, peer, i, st->echo[i], want);
            return;
        }
    }
}

/* Round trip `round` with peer (0: the first, 1: the second, then the warm
 * ones): the lower rank sends and times, the other echoes. With
 * validation the message is a pattern of the pair and round, the receive
 * buffer poisoned (its complement) before, and both ends check what they
 * got after their own part is over: nothing of it is timed. */
static int round_trip(startup_t *st, int peer, int round, stamp_t *start, stamp_t *end, stamp_t *posted)
{
    int count = (int)st->size_bytes, rc, initiator = st->rank < peer ? st->rank : peer;
    if (st->validate)
        for (size_t i = 0; i < st->size_bytes; i++) {
            st->buffer[i] = pattern_byte(initiator, initiator == st->rank ? peer : st->rank, round, i);
            st->echo[i] = (unsigned char)~st->buffer[i];
        }
    if (st->rank < peer) { /* the pair's initiator */
        stamp_read(start, 1);
        rc = MPI_Send(st->buffer, count, MPI_BYTE, peer, TAG_PING, st->comm);
        if (rc == MPI_SUCCESS)
            rc = MPI_Recv(st->echo, count, MPI_BYTE, peer, TAG_PONG, st->comm, MPI_STATUS_IGNORE);
        stamp_read(end, 1);
    } else {
        if (posted)
            stamp_read(posted, 1);
        rc = MPI_Recv(st->echo, count, MPI_BYTE, peer, TAG_PING, st->comm, MPI_STATUS_IGNORE);
        if (rc == MPI_SUCCESS)
            rc = MPI_Send(st->echo, count, MPI_BYTE, peer, TAG_PONG, st->comm);
    }
    if (rc == MPI_SUCCESS && st->validate)
        check_message(st, initiator, initiator == st->rank ? peer : st->rank, round,
                      st->rank < peer ? "the echo" : "the message");
    return rc == MPI_SUCCESS ? 0 : MPISCOPE_EMPI;
}

static int exchange(startup_t *st, int peer, int first)
{
    return first ? round_trip(st, peer, 0, &st->first_send[peer], &st->first_end[peer], &st->posted[peer])
                 : round_trip(st, peer, 1, &st->second_send[peer], &st->second_end[peer], NULL);
}

static double median_of(double *v, size_t n);

/* WARM more round trips, for what a connected pair takes (the median). */
static int warm_up(startup_t *st, int peer)
{
    int rc = 0;
    for (int i = 0; i < WARM && !rc; i++) {
        stamp_t *w = st->warm_stamps + (size_t)peer * 2 * WARM + 2 * (size_t)i;
        rc = round_trip(st, peer, 2 + i, &w[0], &w[1], NULL); /* the responder's stay unread */
    }
    return rc;
}

/* Every rank's checks summed, and on rank 0 the lowest failing rank's
 * first mismatch (collective). */
static void gather_validation(startup_t *st)
{
    unsigned long long mine[2] = {st->checked, st->failures};
    MPI_Allreduce(mine, &st->checked, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, st->comm);
    MPI_Allreduce(mine + 1, &st->failures, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, st->comm);
    int failing = mine[1] ? st->rank : st->nprocs;
    MPI_Allreduce(&failing, &st->first_failing, 1, MPI_INT, MPI_MIN, st->comm);
    if (st->first_failing == st->nprocs || st->first_failing == 0)
        return;
    if (st->rank == st->first_failing)
        MPI_Send(st->mismatch, (int)sizeof st->mismatch, MPI_CHAR, 0, TAG_MISMATCH, st->comm);
    else if (st->rank == 0)
        MPI_Recv(st->mismatch, (int)sizeof st->mismatch, MPI_CHAR, st->first_failing, TAG_MISMATCH, st->comm,
                 MPI_STATUS_IGNORE);
}

static int meet_peers(startup_t *st)
{
    int m = st->nprocs + st->nprocs % 2, err = 0;
    for (int r = 0; r < m - 1 && !err; r++) {
        int peer = mpiscope__circle_partner(st->rank, r, m);
        if (peer >= st->nprocs || peer == st->rank)
            continue; /* the bye */
        err = exchange(st, peer, 1);
        if (!err)
            err = exchange(st, peer, 0);
        if (!err)
            err = warm_up(st, peer);
    }
    return err;
}

/* ---- on the global clock ---- */

/* What each rank sends rank 0: per call its start and end on the global
 * clock and its own duration, then per peer the first and second round
 * trip (own clock, as initiator), the first send's global time (as
 * initiator) and when the receive was posted (as responder). */
enum { PER_CALL = 3, PER_PEER = 5 };
static size_t record_doubles(int nprocs)
{
    return 4 + MAX_CALLS * PER_CALL + (size_t)nprocs * PER_PEER;
}

static void local_record(const startup_t *st, const mpiscope_clock_sync_t *sync, double *out)
{
    int calls = n_calls[st->how];
    double t[MAX_CALLS + 1];
    for (int c = 0; c <= calls; c++)
        t[c] = stamp_ns(&st->call[c]);
    out[0] = mpiscope_clock_sync_global_ns(sync, t[0]);
    out[1] = mpiscope_clock_sync_global_ns(sync, t[calls]);
    out[2] = (double)st->call[0].real.tv_sec + 1e-9 * (double)st->call[0].real.tv_nsec;
    out[3] = st->level;
    for (int c = 0; c < MAX_CALLS; c++) {
        double *at = out + 4 + c * PER_CALL;
        at[0] = c < calls ? mpiscope_clock_sync_global_ns(sync, t[c]) : NAN;
        at[1] = c < calls ? mpiscope_clock_sync_global_ns(sync, t[c + 1]) : NAN;
        at[2] = c < calls ? t[c + 1] - t[c] : NAN;
    }
    for (int p = 0; p < st->nprocs; p++) {
        double *at = out + 4 + MAX_CALLS * PER_CALL + (size_t)p * PER_PEER;
        int initiator = st->rank<p, responder = st->rank> p;
        at[0] = initiator ? stamp_ns(&st->first_end[p]) - stamp_ns(&st->first_send[p]) : NAN;
        at[1] = initiator ? stamp_ns(&st->second_end[p]) - stamp_ns(&st->second_send[p]) : NAN;
        at[2] = initiator ? mpiscope_clock_sync_global_ns(sync, stamp_ns(&st->first_send[p])) : NAN;
        at[3] = responder ? mpiscope_clock_sync_global_ns(sync, stamp_ns(&st->posted[p])) : NAN;
        double warm[WARM];
        const stamp_t *w = st->warm_stamps + (size_t)p * 2 * WARM;
        for (int i = 0; i < WARM; i++)
            warm[i] = initiator ? stamp_ns(&w[2 * i + 1]) - stamp_ns(&w[2 * i]) : NAN;
        at[4] = median_of(warm, WARM);
    }
}

/* The median of the finite values of v (reordered), NAN if none. */
static double median_of(double *v, size_t n)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(v[i]))
            v[m++] = v[i];
    if (!m)
        return NAN;
    for (size_t i = 1; i < m; i++) /* insertion sort: n is the ranks or pairs */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double x = v[j];
            v[j] = v[j - 1];
            v[j - 1] = x;
        }
    return m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
}

static void summary(mpiscope__json_t *j, const char *key, const double *v, size_t n, double *scratch)
{
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        scratch[i] = v[i];
        if (isfinite(v[i])) {
            lo = fmin(lo, v[i]);
            hi = fmax(hi, v[i]);
        }
    }
    mpiscope__json_object(j, key);
    mpiscope__json_number(j, "median_ns", median_of(scratch, n));
    mpiscope__json_number(j, "min_ns", hi >= lo ? lo : NAN);
    mpiscope__json_number(j, "max_ns", hi >= lo ? hi : NAN);
    mpiscope__json_end(j);
}

/* Per rank its calls (own clock) and when it called and was through
 * (global clock, from the first rank's call), and their summaries. */
static void ranks_json(const startup_t *st, const double *all, double t0, double *a, double *scratch,
                       mpiscope__json_t *j)
{
    int n = st->nprocs, calls = n_calls[st->how];
    size_t per = record_doubles(n);
    double *start = a, *ready = a + n, *total = a + 2 * n;
    mpiscope__json_array(j, "ranks");
    for (int r = 0; r < n; r++) {
        const double *rec = all + r * per;
        start[r] = rec[0] - t0;
        ready[r] = rec[1] - t0;
        total[r] = 0;
        mpiscope__json_object(j, NULL);
        mpiscope__json_integer(j, "rank", r);
        mpiscope__json_number(j, "start_ns", start[r]);
        mpiscope__json_number(j, "ready_ns", ready[r]);
        mpiscope__json_number(j, "start_unix_s", rec[2]);
        mpiscope__json_array(j, "call_ns");
        for (int c = 0; c < calls; c++) {
            double d = rec[4 + c * PER_CALL + 2];
            total[r] += d;
            mpiscope__json_number(j, NULL, d);
        }
        mpiscope__json_end(j);
        mpiscope__json_number(j, "total_ns", total[r]);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
    summary(j, "total", total, (size_t)n, scratch);
    for (int c = 0; c < calls; c++) { /* each call's own summary over the ranks */
        for (int r = 0; r < n; r++)
            a[3 * n + r] = all[r * per + 4 + c * PER_CALL + 2];
        char key[48];
        snprintf(key, sizeof key, "call_%d", c);
        summary(j, key, a + 3 * n, (size_t)n, scratch);
    }
    double lo_s = INFINITY, hi_s = -INFINITY, lo_r = INFINITY, hi_r = -INFINITY;
    for (int r = 0; r < n; r++) {
        lo_s = fmin(lo_s, start[r]), hi_s = fmax(hi_s, start[r]);
        lo_r = fmin(lo_r, ready[r]), hi_r = fmax(hi_r, ready[r]);
    }
    mpiscope__json_number(j, "start_spread_ns", hi_s - lo_s);
    mpiscope__json_number(j, "ready_spread_ns", hi_r - lo_r);
    mpiscope__json_number(j, "all_ready_ns", hi_r);
}

/* Per pair (row: the lower rank, its initiator; mirrored) its round
 * trips, the first with the time the partner was late taken out. */
static void peers_json(const startup_t *st, const double *all, int global, double *a, double *scratch,
                       mpiscope__json_t *j)
{
    int n = st->nprocs;
    size_t per = record_doubles(n), pairs = (size_t)n * (size_t)n;
    double *first = a, *second = a + pairs, *late = a + 2 * pairs, *warm = a + 3 * pairs;
    for (size_t i = 0; i < pairs; i++)
        first[i] = second[i] = late[i] = warm[i] = NAN;
    for (int x = 0; x < n; x++)
        for (int y = x + 1; y < n; y++) {
            const double *mine = all + x * per + 4 + MAX_CALLS * PER_CALL + (size_t)y * PER_PEER;
            const double *theirs = all + y * per + 4 + MAX_CALLS * PER_CALL + (size_t)x * PER_PEER;
            double waited = global ? fmax(0, theirs[3] - mine[2]) : NAN;
            first[x * n + y] = first[y * n + x] = mine[0] - (global ? waited : 0);
            second[x * n + y] = second[y * n + x] = mine[1];
            late[x * n + y] = late[y * n + x] = waited;
            warm[x * n + y] = warm[y * n + x] = mine[4];
        }
    mpiscope__json_object(j, "peers");
    const char *const keys[] = {"first_ns", "second_ns", "warm_ns", "partner_late_ns"};
    const double *tables[] = {first, second, warm, late};
    for (int t = 0; t < 4; t++) {
        mpiscope__json_array(j, keys[t]);
        for (int r = 0; r < n; r++)
            mpiscope__json_number_array(j, NULL, tables[t] + (size_t)r * n, (size_t)n);
        mpiscope__json_end(j);
    }
    mpiscope__json_end(j);
    summary(j, "first_contact", first, pairs, scratch);
    summary(j, "second_contact", second, pairs, scratch);
    summary(j, "warm_contact", warm, pairs, scratch);
}

static void validation_json(const startup_t *st, mpiscope__json_t *j)
{
    mpiscope__json_object(j, "validation");
    mpiscope__json_bool(j, "supported", 1);
    mpiscope__json_integer(j, "launches_checked", 1); /* per rank: this launch's */
    mpiscope__json_integer(j, "messages_checked", (long long)st->checked);
    mpiscope__json_integer(j, "failures", (long long)st->failures);
    if (st->failures) {
        mpiscope__json_integer(j, "first_mismatch_rank", st->first_failing);
        mpiscope__json_integer(j, "first_mismatch_launch", 0);
        mpiscope__json_string(j, "first_mismatch", st->mismatch);
    }
    mpiscope__json_end(j);
}

/* The point, on rank 0 from every rank's record (all[r * per + ...]). */
static void point_json(const startup_t *st, const mpiscope__plan_t *plan, const double *all, int global,
                       mpiscope__json_t *j)
{
    int n = st->nprocs, calls = n_calls[st->how];
    size_t per = record_doubles(n), pairs = (size_t)n * (size_t)n;
    double *a = malloc((pairs + (size_t)n + 1) * 5 * sizeof *a), *scratch = a ? a + 4 * (pairs + n + 1) : NULL;
    if (!a) {
        j->failed = 1;
        return;
    }
    double t0 = INFINITY;
    for (int r = 0; r < n; r++)
        t0 = fmin(t0, all[r * per]);
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "kind", "startup");
    mpiscope__json_string(j, "op", "startup");
    mpiscope__json_string(j, "how", plan->startup);
    mpiscope__json_integer(j, "size_bytes", (long long)st->size_bytes);
    mpiscope__json_integer(j, "nprocs", n);
    mpiscope__json_bool(j, "global_clock", global);
    if (st->how == HOW_INIT_THREAD)
        mpiscope__json_string(j, "thread_level_requested", mpiscope__thread_level_name(st->level_asked));
    mpiscope__json_string(j, "thread_level", mpiscope__thread_level_name((int)all[3]));
    mpiscope__json_array(j, "calls");
    for (int c = 0; c < calls; c++)
        mpiscope__json_string(j, NULL, call_names[st->how][c]);
    mpiscope__json_end(j);
    ranks_json(st, all, t0, a, scratch, j);
    peers_json(st, all, global, a, scratch, j);
    if (st->validate)
        validation_json(st, j);
    mpiscope__json_end(j);
    free(a);
}

/* Rank 0 writes the document on a context made now (timer, clock sync). */
static int write_document(startup_t *st, const mpiscope__plan_t *plan, char *err, size_t err_size)
{
    mpiscope_context_t *ctx;
    int rc = mpiscope_context_create(st->comm, &plan->params, &ctx);
    if (rc) {
        snprintf(err, err_size, "startup: setting up the timer and clock sync: %s", mpiscope_strerror(rc));
        return rc;
    }
    const mpiscope_clock_sync_t *sync = mpiscope_context_sync(ctx);
    size_t per = record_doubles(st->nprocs);
    double *mine = malloc(per * sizeof *mine);
    double *all = st->rank == 0 ? malloc(per * (size_t)st->nprocs * sizeof *all) : NULL;
    rc = mine && (st->rank || all) ? 0 : MPISCOPE_ENOMEM;
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, st->comm);
    mpiscope_timer_info_t timer;
    mpiscope_timer_info(&timer);
    int global = timer.kind != MPISCOPE_TIMER_WTIME; /* MPI_Wtime cannot be read before MPI runs */
    if (!rc) {
        local_record(st, sync, mine);
        MPI_Gather(mine, (int)per, MPI_DOUBLE, all, (int)per, MPI_DOUBLE, 0, st->comm);
    }
    mpiscope_result_t *res = NULL;
    if (!rc)
        rc = mpiscope_result_open(ctx, plan->out, plan->force ? MPISCOPE_RESULT_FORCE : 0, &res);
    if (!rc) {
        for (int i = 0; i < plan->n_meta; i++)
            mpiscope_result_set_meta(res, plan->meta_keys[i], plan->meta_values[i]);
        rc = mpiscope_result_warn(res, "start-up measurement: one launch is one sample of each rank's start; "
                                       "mpiscope startup --launches R gives the spread between launches");
        if (!global)
            mpiscope_result_warn(res, "this timer (MPI_Wtime) cannot be read before MPI starts: the start "
                                      "calls are not timed, only the round trips");
        mpiscope__json_t j;
        mpiscope__json_init(&j);
        if (!rc && st->rank == 0)
            point_json(st, plan, all, global, &j);
        int failed = st->rank == 0 && j.failed;
        MPI_Bcast(&failed, 1, MPI_INT, 0, st->comm);
        rc = failed ? MPISCOPE_ENOMEM : rc ? rc : mpiscope__result_add_raw_point(res, st->rank == 0 ? j.buf : "{}");
        mpiscope__json_free(&j);
        int close_err = mpiscope_result_close(res, rc != 0);
        rc = rc ? rc : close_err;
    }
    if (rc && !err[0])
        snprintf(err, err_size, "startup: writing %s: %s", plan->out, mpiscope_strerror(rc));
    free(mine);
    free(all);
    mpiscope_context_destroy(ctx);
    return rc;
}

static int allocate(startup_t *st, size_t n)
{
    stamp_t **tables[] = {&st->first_send, &st->first_end, &st->second_send, &st->second_end, &st->posted};
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
        if (!(*tables[i] = calloc(n, sizeof(stamp_t))))
            return MPISCOPE_ENOMEM;
    if (!(st->warm_stamps = calloc(n * 2 * WARM, sizeof(stamp_t))))
        return MPISCOPE_ENOMEM;
    st->buffer = calloc(st->size_bytes ? st->size_bytes : 1, 1);
    st->echo = calloc(st->size_bytes ? st->size_bytes : 1, 1);
    return st->buffer && st->echo ? 0 : MPISCOPE_ENOMEM;
}

static void release(startup_t *st)
{
    free(st->first_send);
    free(st->first_end);
    free(st->second_send);
    free(st->second_end);
    free(st->posted);
    free(st->warm_stamps);
    free(st->buffer);
    free(st->echo);
}

/* No Sessions here: MPI_Init, so that the job can say so in one line. */
static int refuse_sessions(startup_t *st, int *argc, char ***argv, char *err, size_t err_size, int *says)
{
    int up = 0;
    MPI_Initialized(&up);
    if (!up)
        MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &st->rank);
    *says = st->rank == 0;
    snprintf(err, err_size,
             "startup session: this MPI library cannot start a session (MPI_Session_init "
             "failed or is missing): MPI Sessions are an MPI-4 feature");
    MPI_Finalize();
    return MPISCOPE_ENOTSUP;
}

int mpiscope_startup_run(int *argc, char ***argv, const mpiscope_plan_t *plan, char *err, size_t err_size, int *says)
{
    char local[320];
    int quiet;
    if (!err || !err_size) {
        err = local;
        err_size = sizeof local;
    }
    err[0] = '\0';
    says = says ? says : &quiet;
    *says = 0;
    if (!plan || !plan->startup || !plan->startup[0]) {
        snprintf(err, err_size, "startup: the plan does not say how to start MPI");
        *says = 1;
        return MPISCOPE_EINVAL;
    }
    mpiscope_plan_start_t how;
    mpiscope_plan_start(plan, &how);
    startup_t st = {.how = strcmp(plan->startup, "session") == 0 ? HOW_SESSION
                           : how.init_thread                     ? HOW_INIT_THREAD
                                                                 : HOW_INIT,
                    .level_asked = how.level,
                    .level = -1,
                    .size_bytes = plan->sizes[0],
                    .validate = plan->validate};
    int rc;
    if (st.how == HOW_SESSION) {
#ifdef MPISCOPE_HAVE_SESSIONS
        rc = start_session(&st);
        if (rc == MPISCOPE_ENOTSUP)
            return refuse_sessions(&st, argc, argv, err, err_size, says);
#else
        return refuse_sessions(&st, argc, argv, err, err_size, says);
#endif
    } else {
        rc = start_world(&st, argc, argv);
    }
    if (rc) { /* a start that failed has no communicator to say it on */
        snprintf(err, err_size, "startup %s: %s failed", plan->startup, call_names[st.how][0]);
        *says = 1;
        return rc;
    }
    MPI_Comm_rank(st.comm, &st.rank);
    MPI_Comm_size(st.comm, &st.nprocs);
    rc = allocate(&st, (size_t)st.nprocs);
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, st.comm);
    if (plan->ranks && plan->ranks != st.nprocs) {
        snprintf(err, err_size, "%d ranks started where %d were asked for", st.nprocs, plan->ranks);
        rc = MPISCOPE_ERANGE;
    }
    if (!rc) {
        rc = meet_peers(&st);
        MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, st.comm);
        if (rc)
            snprintf(err, err_size, "startup: the round trips between the ranks failed");
        else if (st.validate)
            gather_validation(&st);
    }
    if (!rc)
        rc = write_document(&st, plan, err, err_size);
    if (!rc && st.failures) { /* the document says it too */
        snprintf(err, err_size, "startup: validation failed on rank %d: %s", st.first_failing, st.mismatch);
        rc = MPISCOPE_EVALIDATE;
    } else if (!err[0])
        snprintf(err, err_size, "startup: %s", mpiscope_strerror(rc));
    *says = st.rank == 0 && rc;
    release(&st);
    stop(&st);
    return rc;
}
