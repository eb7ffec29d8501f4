/* environment.c: hosts, ranks per node, MPI library, CPU and compiler. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "mpiscope/error.h"
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

/* Unique processor names of all ranks, as a JSON array (rank 0). */
static char *gather_hosts(MPI_Comm comm, int rank, int n, int *nodes)
{
    char name[MPI_MAX_PROCESSOR_NAME] = {0};
    int len;
    MPI_Get_processor_name(name, &len);
    char *all = rank == 0 ? calloc((size_t)n, MPI_MAX_PROCESSOR_NAME) : NULL;
    MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, 0, comm);
    if (rank != 0 || !all)
        return NULL;
    mpiscope__json_t j;
    mpiscope__json_init(&j);
    mpiscope__json_array(&j, NULL);
    *nodes = 0;
    for (int r = 0; r < n; r++) {
        const char *h = all + (size_t)r * MPI_MAX_PROCESSOR_NAME;
        int seen = 0;
        for (int q = 0; q < r && !seen; q++)
            seen = strcmp(h, all + (size_t)q * MPI_MAX_PROCESSOR_NAME) == 0;
        if (!seen) {
            mpiscope__json_string(&j, NULL, h);
            (*nodes)++;
        }
    }
    mpiscope__json_end(&j);
    free(all);
    return j.failed ? NULL : j.buf;
}

int mpiscope__environment_gather(MPI_Comm comm, mpiscope__environment_t *env)
{
    memset(env, 0, sizeof *env);
    int rank, len;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &env->ranks);
    MPI_Get_library_version(env->library_version, &len);
    while (len > 0 && (env->library_version[len - 1] == '\n' || env->library_version[len - 1] == ' '
                       || env->library_version[len - 1] == '\t'))
        env->library_version[--len] = '\0';
    MPI_Get_version(&env->mpi_version, &env->mpi_subversion);
    MPI_Comm node;
    int local;
    MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &local);
    MPI_Comm_free(&node);
    MPI_Reduce(&local, &env->ranks_per_node, 1, MPI_INT, MPI_MAX, 0, comm);
    env->hosts = gather_hosts(comm, rank, env->ranks, &env->nodes);
    read_cpu_model(env->cpu_model, sizeof env->cpu_model);
    mpiscope__utc_now(env->start_time_utc, sizeof env->start_time_utc);
    return rank == 0 && !env->hosts ? MPISCOPE_ENOMEM : 0;
}

void mpiscope__environment_free(mpiscope__environment_t *env)
{
    free(env->hosts);
    env->hosts = NULL;
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
    mpiscope__json_string(j, "mpiscope_version", MPISCOPE_VERSION);
    mpiscope__json_string(j, "mpi_library_version", env->library_version);
    mpiscope__json_string(j, "mpi_version", version);
    write_simulation(j);
    mpiscope__json_raw(j, "hosts", env->hosts ? env->hosts : "[]");
    mpiscope__json_integer(j, "ranks", env->ranks);
    mpiscope__json_integer(j, "nodes", env->nodes);
    mpiscope__json_integer(j, "ranks_per_node", env->ranks_per_node);
    mpiscope__json_string(j, "cpu_model", env->cpu_model);
    mpiscope__json_string(j, "compiler", compiler());
    mpiscope__json_string(j, "start_time_utc", env->start_time_utc);
}
