/* requests.c: requests created, started and completed. A record keeps the
 * request's handle value; the reader pairs a completion with the oldest
 * open creation of the same handle, in time order (docs/trace-format.md). */
#include <stdlib.h>
#include "trace_call.h"

void mpiscope__trace_request_created(mpiscope__trace_call_t *c, uint64_t request)
{
    c->r->request = request;
    c->r->flags |= MPISCOPE_TRACE_F_REQUEST_NEW;
}

void mpiscope__trace_message(mpiscope__trace_call_t *c, uint64_t message)
{
    c->r->request = message;
    c->r->flags |= MPISCOPE_TRACE_F_MESSAGE;
}

void mpiscope__trace_message_part(mpiscope__trace_call_t *c, uint64_t message)
{
    mpiscope_trace_record_t *r = mpiscope__trace_part(c, MPISCOPE_TRACE_F_MESSAGE);
    if (r)
        r->request = message;
}

void mpiscope__trace_started_all(mpiscope__trace_call_t *c, int count, const MPI_Request reqs[])
{
    for (int i = 0; i < count; i++) {
        mpiscope_trace_record_t *r = mpiscope__trace_part(c, MPISCOPE_TRACE_F_STARTED);
        if (!r)
            return;
        r->request = MPISCOPE__H(reqs[i]);
    }
}

/* Scratch arrays grow (rarely, outside the PMPI call) and are kept. */
static int grow(void **array, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    size_t n = need < 64 ? 64 : need * 2;
    void *p = realloc(*array, n * elem);
    if (!p)
        return 0;
    *array = p;
    *cap = n;
    return 1;
}

MPI_Status *mpiscope__trace_statuses(mpiscope__trace_call_t *c, MPI_Status *statuses, int count)
{
    if (statuses != MPI_STATUSES_IGNORE || count <= 0)
        return statuses;
    mpiscope__trace_thread_t *t = c->t;
    if (!grow((void **)&t->statuses, &t->statuses_cap, (size_t)count, sizeof(MPI_Status)))
        return statuses;
    return t->statuses;
}

uint64_t *mpiscope__trace_save_requests(mpiscope__trace_call_t *c, int count, const MPI_Request reqs[])
{
    mpiscope__trace_thread_t *t = c->t;
    if (count <= 0 || !grow((void **)&t->handles, &t->handles_cap, (size_t)count, sizeof(uint64_t)))
        return NULL;
    for (int i = 0; i < count; i++)
        t->handles[i] = MPISCOPE__H(reqs[i]);
    return t->handles;
}

void mpiscope__trace_completed(mpiscope__trace_call_t *c, uint64_t request, const MPI_Status *status)
{
    static const MPI_Request null_request = MPI_REQUEST_NULL;
    if (request == MPISCOPE__H(null_request))
        return;
    mpiscope_trace_record_t *r = mpiscope__trace_part(c, MPISCOPE_TRACE_F_COMPLETED);
    if (!r)
        return;
    r->request = request;
    if (status != MPI_STATUS_IGNORE && status != NULL)
        mpiscope__trace_request_status(r, status);
}

void mpiscope__trace_completed_all(mpiscope__trace_call_t *c, int count, const uint64_t *reqs,
                                   const MPI_Status *statuses)
{
    if (!reqs)
        return;
    for (int i = 0; i < count; i++)
        mpiscope__trace_completed(c, reqs[i], statuses == MPI_STATUSES_IGNORE ? NULL : &statuses[i]);
}

void mpiscope__trace_completed_index(mpiscope__trace_call_t *c, int count, const uint64_t *reqs, int index,
                                     const MPI_Status *status)
{
    if (reqs && index != MPI_UNDEFINED && index >= 0 && index < count)
        mpiscope__trace_completed(c, reqs[index], status);
}

void mpiscope__trace_completed_some(mpiscope__trace_call_t *c, int incount, const uint64_t *reqs, int outcount,
                                    const int indices[], const MPI_Status *statuses)
{
    if (!reqs || outcount == MPI_UNDEFINED)
        return;
    for (int k = 0; k < outcount; k++)
        if (indices[k] >= 0 && indices[k] < incount)
            mpiscope__trace_completed(c, reqs[indices[k]], statuses == MPI_STATUSES_IGNORE ? NULL : &statuses[k]);
}
