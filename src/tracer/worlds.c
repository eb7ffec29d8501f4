/* worlds.c: where this MPI world's rank files go. The first world in the
 * trace directory writes DIR/rank-NNNNN.mst; a later one (a job started by
 * MPI_Comm_spawn, a second run into the same directory) writes
 * DIR/world-K/rank-NNNNN.mst, K from 1. Rank 0 claims the place (an
 * exclusive create of its file, an mkdir of world-K) and tells the others;
 * every other file is created exclusively too (writer.c), so no process
 * ever truncates another's file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "trace_call.h"

#define MAX_WORLDS 100000

static int has_parent(const mpiscope__trace_proc_t *p)
{
    MPI_Comm parent = MPI_COMM_NULL;
    return p->world && PMPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent != MPI_COMM_NULL;
}

/* Rank 0: 0 the directory itself (*created: its file made here), K for
 * world-K, -1 no place found. A spawned world never takes the directory:
 * its parent's rank 0 may not have created its file yet. */
static int claim(const mpiscope__trace_proc_t *p, int spawned, int *created)
{
    char path[1152];
    *created = 0;
    if (!spawned) {
        snprintf(path, sizeof path, "%.1023s/rank-%05d.mst", p->dir, 0);
        int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd >= 0) {
            close(fd);
            *created = 1;
            return 0;
        }
        if (errno != EEXIST)
            return 0; /* the stream's open says why */
    }
    for (int k = 1; k < MAX_WORLDS; k++) {
        snprintf(path, sizeof path, "%.1023s/world-%d", p->dir, k);
        if (mkdir(path, 0777) == 0)
            return k;
        if (errno != EEXIST)
            break;
    }
    return -1;
}

void mpiscope__trace_world_place(void)
{
    mpiscope__trace_proc_t *p = &mpiscope__trace_proc;
    int spawned = has_parent(p), created = 0, place = 0;
    if (p->rank == 0)
        place = claim(p, spawned, &created);
    PMPI_Bcast(&place, 1, MPI_INT, 0, p->comm);
    p->spawned = spawned;
    p->world_index = place;
    p->path_created = created;
    if (place > 0)
        snprintf(p->path, sizeof p->path, "%.1023s/world-%d/rank-%05d.mst", p->dir, place, p->rank);
    else
        snprintf(p->path, sizeof p->path, "%.1023s/rank-%05d.mst", p->dir, p->rank);
    if (place < 0 && p->rank == 0)
        mpiscope__trace_warn("no free world-K directory in %s for this world's files", p->dir);
}
