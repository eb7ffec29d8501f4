/* environment.c: hosts (the node and CPUs of every rank), ranks per node, MPI
 * library, CPU and compiler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#ifdef __linux__
#include <sched.h>
#include <unistd.h>
#endif
#include "mpiscope/error.h"
#include "mpiscope/version.h"
#include "environment.h"
#ifdef MPISCOPE_SMPI
#include <simgrid/version.h>
#endif

void mpiscope__utc_now(char *buf, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void read_cpu_model(char *buf, size_t size)
{
    snprintf(buf, size, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (colon && (strncmp(line, "model name", 10) == 0 || strncmp(line, "Model", 5) == 0)) {
            colon += 1 + (colon[1] == ' ');
            colon[strcspn(colon, "\n")] = '\0';
            snprintf(buf, size, "%s", colon);
            break;
        }
    }
    fclose(f);
}

/* Each rank's string `mine` (a processor name, a CPU list), gathered on
 * rank 0 as lengths then one Gatherv of the strings themselves: O(p)
 * memory on rank 0, no fixed size per rank. Returns the strings (rank 0;
 * NULL elsewhere) with each rank's offset into them in *offsets. */
static char *gather_strings(MPI_Comm comm, int rank, int n, const char *mine, int **offsets)
{
    int len = (int)strlen(mine) + 1; /* with its '\0' */
    int *lens = rank == 0 ? malloc((size_t)n * sizeof *lens) : NULL;
    int *offs = rank == 0 ? malloc((size_t)n * sizeof *offs) : NULL;
    MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, comm);
    size_t total = 0;
    if (rank == 0 && lens && offs)
        for (int r = 0; r < n; r++) {
            offs[r] = (int)total;
            total += (size_t)lens[r];
        }
    char *all = rank == 0 && lens && offs ? malloc(total) : NULL;
    int ok = rank != 0 || all; /* rank 0 out of memory: nobody sends */
    MPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok)
        MPI_Gatherv(mine, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, comm);
    free(lens);
    if (!all) {
        free(offs);
        offs = NULL;
    }
    *offsets = offs;
    return all;
}

static unsigned long hash_name(const char *s)
{
    unsigned long h = 5381;
    while (*s)
        h = h * 33u ^ (unsigned char)*s++;
    return h;
}

/* The distinct names in order of first appearance ("hosts", a JSON array)
 * and each rank's index among them ("rank_nodes"): an open-addressing table
 * of 2..4 x p slots keeps it O(p) in time and memory on rank 0. */
static int index_nodes(const char *all, const int *offs, int n, mpiscope__environment_t *env)
{
    size_t slots = 2;
    while (slots < 2 * (size_t)n)
        slots *= 2;
    int *table = malloc(slots * sizeof *table); /* a first rank with that name, or -1 */
    int *node_of = malloc((size_t)n * sizeof *node_of);
    mpiscope__json_t hosts, ranks;
    mpiscope__json_init(&hosts);
    mpiscope__json_init(&ranks);
    mpiscope__json_array(&hosts, NULL);
    mpiscope__json_array(&ranks, NULL);
    env->nodes = 0;
    for (size_t s = 0; table && s < slots; s++)
        table[s] = -1;
    for (int r = 0; table && node_of && r < n; r++) {
        const char *h = all + offs[r];
        size_t s = hash_name(h) & (slots - 1);
        while (table[s] >= 0 && strcmp(all + offs[table[s]], h) != 0)
            s = (s + 1) & (slots - 1);
        if (table[s] < 0) {
            table[s] = r;
            node_of[r] = env->nodes++;
            mpiscope__json_string(&hosts, NULL, h);
        } else {
            node_of[r] = node_of[table[s]];
        }
        mpiscope__json_integer(&ranks, NULL, node_of[r]);
    }
    mpiscope__json_end(&hosts);
    mpiscope__json_end(&ranks);
    int failed = !table || !node_of || hosts.failed || ranks.failed;
    free(table);
    free(node_of);
    if (failed) {
        mpiscope__json_free(&hosts);
        mpiscope__json_free(&ranks);
        return MPISCOPE_ENOMEM;
    }
    env->hosts = hosts.buf;
    env->rank_nodes = ranks.buf;
    return 0;
}

/* Node names of all ranks (rank 0): see index_nodes. */
static int gather_hosts(MPI_Comm comm, int rank, int n, mpiscope__environment_t *env)
{
    char name[MPI_MAX_PROCESSOR_NAME + 1] = {0};
    int len = 0;
    MPI_Get_processor_name(name, &len);
    int *offs = NULL;
    char *all = gather_strings(comm, rank, n, name, &offs);
    if (rank != 0)
        return 0;
    int err = all ? index_nodes(all, offs, n, env) : MPISCOPE_ENOMEM;
    free(all);
    free(offs);
    return err;
}

/* The CPUs this rank may run on, "0-3,8": what its binding left it (""
 * where unknown). Not under SMPI: all simulated ranks are one process. */
static void read_cpus(char *buf, size_t size)
{
    buf[0] = '\0';
#if defined(__linux__) && !defined(MPISCOPE_SMPI)
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0)
        return;
    size_t len = 0;
    for (int c = 0; c < CPU_SETSIZE && len + 24 < size; c++) {
        if (!CPU_ISSET(c, &set))
            continue;
        int last = c;
        while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set))
            last++;
        len += (size_t)snprintf(buf + len, size - len, len ? ",%d" : "%d", c);
        if (last > c)
            len += (size_t)snprintf(buf + len, size - len, "-%d", last);
        c = last;
    }
#else
    (void)size;
#endif
}

/* Every rank's CPU list as a JSON array of strings (rank 0), or NULL when
 * no rank knows its own (SMPI, not Linux). */
static int gather_cpus(MPI_Comm comm, int rank, int n, mpiscope__environment_t *env)
{
    char cpus[256];
    read_cpus(cpus, sizeof cpus);
    int known = cpus[0] != '\0', any = 0;
    MPI_Allreduce(&known, &any, 1, MPI_INT, MPI_MAX, comm);
    if (!any)
        return 0;
    int *offs = NULL;
    char *all = gather_strings(comm, rank, n, cpus, &offs);
    if (rank != 0)
        return 0;
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__json_array(&j, NULL);
    for (int r = 0; all && r < n; r++)
        mpiscope__json_string(&j, NULL, all + offs[r]);
    mpiscope__json_end(&j);
    int failed = !all || j.failed;
    free(all);
    free(offs);
    if (failed) {
        mpiscope__json_free(&j);
        return MPISCOPE_ENOMEM;
    }
    env->rank_cpus = j.buf;
    return 0;
}

/* Every rank's process id (rank 0): a rank the launcher reports dead by
 * its pid (MPICH's hydra) is named by it. Not in a simulation, where every
 * rank is the one simulator process. */
static int gather_pids(MPI_Comm comm, int rank, int n, mpiscope__environment_t *env)
{
#ifdef MPISCOPE_SMPI
    (void)comm, (void)rank, (void)n, (void)env;
    return 0;
#else
    long pid = (long)getpid();
    long *all = rank == 0 ? malloc((size_t)n * sizeof *all) : NULL;
    int failed = rank == 0 && !all;
    MPI_Bcast(&failed, 1, MPI_INT, 0, comm);
    if (failed)
        return MPISCOPE_ENOMEM;
    MPI_Gather(&pid, 1, MPI_LONG, all, 1, MPI_LONG, 0, comm);
    env->rank_pids = all;
    return 0;
#endif
}

const char *mpiscope__thread_level_name(int level)
{
    return level == MPI_THREAD_SINGLE       ? "MPI_THREAD_SINGLE"
           : level == MPI_THREAD_FUNNELED   ? "MPI_THREAD_FUNNELED"
           : level == MPI_THREAD_SERIALIZED ? "MPI_THREAD_SERIALIZED"
           : level == MPI_THREAD_MULTIPLE   ? "MPI_THREAD_MULTIPLE"
                                            : "unknown";
}

int mpiscope__thread_level_parse(const char *name)
{
    static const char *const names[] = {"single", "funneled", "serialized", "multiple"};
    const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE};
    if (!name)
        return -1;
    if (strncasecmp(name, "MPI_THREAD_", 11) == 0)
        name += 11;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcasecmp(name, names[i]) == 0)
            return levels[i];
    return -1;
}

int mpiscope__thread_level(void)
{
    int initialized = 0, finalized = 0, level = -1;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (initialized && !finalized)
        MPI_Query_thread(&level);
    return level;
}

int mpiscope__environment_gather(MPI_Comm comm, mpiscope__environment_t *env)
{
    memset(env, 0, sizeof *env);
    int rank, len;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &env->ranks);
    MPI_Get_library_version(env->library_version, &len);
    while (len > 0
           && (env->library_version[len - 1] == '\n' || env->library_version[len - 1] == ' '
               || env->library_version[len - 1] == '\t'))
        env->library_version[--len] = '\0';
    MPI_Get_version(&env->mpi_version, &env->mpi_subversion);
    MPI_Comm node;
    int local;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    MPI_Reduce(&local, &env->ranks_per_node, 1, MPI_INT, MPI_MAX, 0, comm);
    int err = gather_hosts(comm, rank, env->ranks, env);
    int cpus_err = gather_cpus(comm, rank, env->ranks, env);
    int pids_err = gather_pids(comm, rank, env->ranks, env);
    err = err ? err : cpus_err ? cpus_err : pids_err;
    read_cpu_model(env->cpu_model, sizeof env->cpu_model);
    int level = mpiscope__thread_level();
    env->thread_level = level < 0 ? NULL : mpiscope__thread_level_name(level);
    mpiscope__utc_now(env->start_time_utc, sizeof env->start_time_utc);
    return err;
}

void mpiscope__environment_free(mpiscope__environment_t *env)
{
    free(env->hosts);
    free(env->rank_nodes);
    free(env->rank_cpus);
    free(env->rank_pids);
    env->rank_pids = NULL;
    env->hosts = NULL;
    env->rank_nodes = NULL;
    env->rank_cpus = NULL;
}

static const char *compiler(void)
{
#if defined(__clang__)
    return "clang " __clang_version__;
#elif defined(__GNUC__)
    return "gcc " __VERSION__;
#else
    return "unknown";
#endif
}

/* "simulated": built for SimGrid SMPI (-DMPISCOPE_SMPI), with the version
 * of the SimGrid library the ranks run in; the platform and the simulator's
 * settings are the launcher's (Python adds them to the environment). */
static void write_simulation(mpiscope__json_t *j)
{
#ifdef MPISCOPE_SMPI
    int major = 0, minor = 0, patch = 0;
    char simulator[64];
    sg_version_get(&major, &minor, &patch);
    snprintf(simulator, sizeof simulator, "SimGrid SMPI %d.%d.%d", major, minor, patch);
    mpiscope__json_bool(j, "simulated", 1);
    mpiscope__json_string(j, "simulator", simulator);
#else
    mpiscope__json_bool(j, "simulated", 0);
#endif
}

void mpiscope__environment_write(const mpiscope__environment_t *env, mpiscope__json_t *j)
{
    char version[16];
    snprintf(version, sizeof version, "%d.%d", env->mpi_version, env->mpi_subversion);
    mpiscope__json_string(j, "mpiscope_version", MPISCOPE_VERSION_STRING);
    mpiscope__json_string(j, "mpi_library_version", env->library_version);
    mpiscope__json_string(j, "mpi_version", version);
    if (env->thread_level)
        mpiscope__json_string(j, "thread_level", env->thread_level);
    write_simulation(j);
    mpiscope__json_raw(j, "hosts", env->hosts ? env->hosts : "[]");
    if (env->rank_nodes)
        mpiscope__json_raw(j, "rank_nodes", env->rank_nodes);
    if (env->rank_cpus)
        mpiscope__json_raw(j, "rank_cpus", env->rank_cpus);
    if (env->rank_pids) { /* 1.7 */
        mpiscope__json_array(j, "rank_pids");
        for (int r = 0; r < env->ranks; r++)
            mpiscope__json_integer(j, NULL, env->rank_pids[r]);
        mpiscope__json_end(j);
    }
    mpiscope__json_integer(j, "ranks", env->ranks);
    mpiscope__json_integer(j, "nodes", env->nodes);
    mpiscope__json_integer(j, "ranks_per_node", env->ranks_per_node);
    mpiscope__json_string(j, "cpu_model", env->cpu_model);
    mpiscope__json_string(j, "compiler", compiler());
    mpiscope__json_string(j, "start_time_utc", env->start_time_utc);
}
