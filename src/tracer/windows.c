/* windows.c: what the reader needs to draw one-sided transfers: the window
 * a creation call made (its communicator is the record's comm) and the
 * members of a PSCW group, as ranks of the window's group, so that an
 * origin's access epoch can be paired with its target's exposure epoch. */
#include <stdlib.h>
#include "trace_call.h"

void mpiscope__trace_window_created(mpiscope__trace_call_t *c, uint64_t win)
{
    c->r->request = win;
    c->r->flags |= MPISCOPE_TRACE_F_WINDOW_NEW;
}

void mpiscope__trace_window_group(mpiscope__trace_call_t *c, MPI_Group group, MPI_Win win)
{
    MPI_Group wgroup;
    int n = 0;
    if (group == MPI_GROUP_NULL || PMPI_Group_size(group, &n) != MPI_SUCCESS || n <= 0)
        return;
    if (PMPI_Win_get_group(win, &wgroup) != MPI_SUCCESS)
        return;
    int small[2][64];
    int *from = small[0], *to = small[1];
    if (n > 64) {
        from = malloc(2 * (size_t)n * sizeof *from);
        to = from ? from + n : NULL;
    }
    if (from) {
        for (int i = 0; i < n; i++)
            from[i] = i;
        if (PMPI_Group_translate_ranks(group, n, from, wgroup, to) == MPI_SUCCESS)
            for (int i = 0; i < n; i++) {
                mpiscope_trace_record_t *r = mpiscope__trace_part(c, MPISCOPE_TRACE_F_GROUP);
                if (!r)
                    break;
                r->peer = to[i] == MPI_UNDEFINED ? MPISCOPE_TRACE_NONE : to[i];
            }
        if (from != small[0])
            free(from);
    }
    PMPI_Group_free(&wgroup);
}
