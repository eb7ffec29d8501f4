/* args.c: the arguments a record keeps: bytes from counts and datatypes,
 * and what a status says about a received message. */
#include "trace_call.h"

/* The predefined datatypes whose size a thread keeps (their handles are
 * never freed nor reused, whatever the MPI): a derived datatype's handle
 * may name another datatype once freed, so its size is always asked. */
static const MPI_Datatype predefined[] = {
    MPI_BYTE,
    MPI_CHAR,
    MPI_SIGNED_CHAR,
    MPI_UNSIGNED_CHAR,
    MPI_SHORT,
    MPI_UNSIGNED_SHORT,
    MPI_INT,
    MPI_UNSIGNED,
    MPI_LONG,
    MPI_UNSIGNED_LONG,
    MPI_LONG_LONG,
    MPI_UNSIGNED_LONG_LONG,
    MPI_FLOAT,
    MPI_DOUBLE,
    MPI_LONG_DOUBLE,
    MPI_WCHAR,
    MPI_C_BOOL,
    MPI_INT8_T,
    MPI_INT16_T,
    MPI_INT32_T,
    MPI_INT64_T,
    MPI_UINT8_T,
    MPI_UINT16_T,
    MPI_UINT32_T,
    MPI_UINT64_T,
    MPI_C_FLOAT_COMPLEX,
    MPI_C_DOUBLE_COMPLEX,
    MPI_PACKED,
    MPI_AINT,
    MPI_OFFSET,
    MPI_COUNT,
    MPI_FLOAT_INT,
    MPI_DOUBLE_INT,
    MPI_LONG_INT,
    MPI_2INT,
    MPI_SHORT_INT,
};

static int is_predefined(MPI_Datatype type)
{
    for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++)
        if (type == predefined[i])
            return 1;
    return 0;
}

__thread MPI_Datatype mpiscope__trace_last_type;
__thread int64_t mpiscope__trace_last_size = -1;

int64_t mpiscope__trace_bytes_asked(MPI_Count count, MPI_Datatype type)
{
    if (count == 0)
        return 0;
    if (type == MPI_DATATYPE_NULL || count < 0)
        return -1;
    MPI_Count size;
    if (PMPI_Type_size_x(type, &size) != MPI_SUCCESS || size == MPI_UNDEFINED)
        return -1;
    if (is_predefined(type)) {
        mpiscope__trace_last_type = type;
        mpiscope__trace_last_size = (int64_t)size;
    }
    return (int64_t)count * (int64_t)size;
}

/* Entries in a per-rank array argument: the (remote) group's size. */
static int group_size(MPI_Comm comm)
{
    int inter = 0, n = 0;
    if (comm == MPI_COMM_NULL || PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return -1;
    if ((inter ? PMPI_Comm_remote_size(comm, &n) : PMPI_Comm_size(comm, &n)) != MPI_SUCCESS)
        return -1;
    return n;
}

#define SUM_V(counts, type, comm)                                                                                      \
    do {                                                                                                               \
        int n_ = group_size(comm);                                                                                     \
        if (n_ < 0 || !(counts))                                                                                       \
            return -1;                                                                                                 \
        MPI_Count total_ = 0;                                                                                          \
        for (int i_ = 0; i_ < n_; i_++)                                                                                \
            total_ += (counts)[i_];                                                                                    \
        return mpiscope__trace_bytes(total_, type);                                                                    \
    } while (0)

#define SUM_W(counts, types, comm)                                                                                     \
    do {                                                                                                               \
        int n_ = group_size(comm);                                                                                     \
        if (n_ < 0 || !(counts) || !(types))                                                                           \
            return -1;                                                                                                 \
        int64_t total_ = 0;                                                                                            \
        for (int i_ = 0; i_ < n_; i_++) {                                                                              \
            int64_t b_ = mpiscope__trace_bytes((counts)[i_], (types)[i_]);                                             \
            if (b_ < 0)                                                                                                \
                return -1;                                                                                             \
            total_ += b_;                                                                                              \
        }                                                                                                              \
        return total_;                                                                                                 \
    } while (0)

int64_t mpiscope__trace_bytes_v(const int counts[], MPI_Datatype type, MPI_Comm comm)
{
    SUM_V(counts, type, comm);
}

int64_t mpiscope__trace_bytes_v_c(const MPI_Count counts[], MPI_Datatype type, MPI_Comm comm)
{
    SUM_V(counts, type, comm);
}

int64_t mpiscope__trace_bytes_w(const int counts[], const MPI_Datatype types[], MPI_Comm comm)
{
    SUM_W(counts, types, comm);
}

int64_t mpiscope__trace_bytes_w_c(const MPI_Count counts[], const MPI_Datatype types[], MPI_Comm comm)
{
    SUM_W(counts, types, comm);
}

/* The bytes a status says were received, and whether it says cancelled.
 * MPICH and Open MPI keep both in the status itself, where
 * MPI_Get_elements_x(MPI_BYTE) and MPI_Test_cancelled read them: read there,
 * a receive's capture costs 1 ns instead of 7 (bench/trace_parts.c); any
 * other MPI is asked. */
static int64_t status_bytes(const MPI_Status *status)
{
#if defined(MPISCOPE_TRACE_STATUS_MPICH)
    return (int64_t)(((uint64_t)((unsigned)status->count_hi_and_cancelled >> 1) << 32) | (unsigned)status->count_lo);
#elif defined(MPISCOPE_TRACE_STATUS_OMPI)
    return (int64_t)status->_ucount;
#else
    MPI_Count n;
    if (PMPI_Get_elements_x(status, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
        return -1;
    return (int64_t)n;
#endif
}

static int status_cancelled(const MPI_Status *status)
{
#if defined(MPISCOPE_TRACE_STATUS_MPICH)
    return status->count_hi_and_cancelled & 1;
#elif defined(MPISCOPE_TRACE_STATUS_OMPI)
    return status->_cancelled != 0;
#else
    int cancelled = 0;
    return PMPI_Test_cancelled(status, &cancelled) == MPI_SUCCESS && cancelled;
#endif
}

/* Only a request can be cancelled: blocking receives skip the check. */
static void from_status(mpiscope_trace_record_t *r, const MPI_Status *status, int of_request)
{
    r->peer = mpiscope__trace_peer(status->MPI_SOURCE);
    r->tag = status->MPI_TAG == MPI_ANY_TAG ? MPISCOPE_TRACE_TAG_ANY : status->MPI_TAG;
    r->bytes = status->MPI_SOURCE == MPI_PROC_NULL ? 0 : status_bytes(status);
    if (of_request && status_cancelled(status))
        r->flags |= MPISCOPE_TRACE_F_CANCELLED;
}

void mpiscope__trace_status(mpiscope__trace_call_t *c, const MPI_Status *status)
{
    from_status(c->r, status, 0);
}

void mpiscope__trace_request_status(mpiscope_trace_record_t *r, const MPI_Status *status)
{
    from_status(r, status, 1);
}

void mpiscope__trace_recv_half(mpiscope__trace_call_t *c, const MPI_Status *status)
{
    mpiscope_trace_record_t *r = mpiscope__trace_part(c, MPISCOPE_TRACE_F_RECV_HALF);
    if (r)
        from_status(r, status, 0);
}

void mpiscope__trace_post_recv_half(mpiscope__trace_call_t *c, int source, int recvtag)
{
    mpiscope_trace_record_t *r = mpiscope__trace_part(c, MPISCOPE_TRACE_F_RECV_HALF);
    if (!r)
        return;
    r->peer = mpiscope__trace_peer(source);
    r->tag = recvtag == MPI_ANY_TAG ? MPISCOPE_TRACE_TAG_ANY : recvtag;
}
