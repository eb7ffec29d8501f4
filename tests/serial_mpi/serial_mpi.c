/* serial_mpi.c: the serial MPI's functions, for the unit tests only
 * (tests/serial_mpi/mpi.h says what this is and is not). Every
 * communicator has one process, rank 0: a collective copies the caller's
 * data where the result goes (MPI_IN_PLACE: nothing to move), a message to
 * rank 0 waits in a queue for the receive that matches it, one to
 * MPI_PROC_NULL goes nowhere. Only the functions the engine calls are
 * here (tools/gen_serial_mpi.py makes the others, which stop the program
 * naming themselves).
 *
 * Arguments are checked as a real MPI would, and an erroneous call goes to
 * the communicator's error handler: MPI_ERRORS_RETURN returns the error
 * class, the others (MPI_ERRORS_ARE_FATAL by default) print one line and
 * abort, so that no test passes over an error a real MPI would report. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "serial_mpi_internal.h"

#define DEFINE_DATATYPE(name, size, extent) \
    struct mpiscope__serial_datatype mpiscope__serial_##name = {#name, size, extent};
MPISCOPE__SERIAL_DATATYPES(DEFINE_DATATYPE)
#define DEFINE_OP(name) struct mpiscope__serial_op mpiscope__serial_##name = {#name};
MPISCOPE__SERIAL_OPS(DEFINE_OP)

struct mpiscope__serial_errhandler mpiscope__serial_errors_are_fatal = {"MPI_ERRORS_ARE_FATAL"},
    mpiscope__serial_errors_return = {"MPI_ERRORS_RETURN"},
    mpiscope__serial_errors_abort = {"MPI_ERRORS_ABORT"};
struct mpiscope__serial_comm mpiscope__serial_comm_world = {"MPI_COMM_WORLD", MPI_ERRORS_ARE_FATAL, 0};
struct mpiscope__serial_comm mpiscope__serial_comm_self = {"MPI_COMM_SELF", MPI_ERRORS_ARE_FATAL, 0};
struct mpiscope__serial_group mpiscope__serial_group_empty = {0};
struct mpiscope__serial_info mpiscope__serial_info_env;
struct mpiscope__serial_message mpiscope__serial_message_no_proc;
char mpiscope__serial_in_place, mpiscope__serial_bottom;
MPI_Status mpiscope__serial_status_ignore[1], mpiscope__serial_statuses_ignore[1];
int mpiscope__serial_unweighted[1], mpiscope__serial_weights_empty[1];

static int initialized, finalized, level = MPI_THREAD_SINGLE;
static unsigned long comms_made;

#define LIBRARY_VERSION "mpiscope serial MPI (unit tests only: one rank, no communication)"

_Noreturn void mpiscope__serial_unavailable(const char *function)
{
    fprintf(stderr, "mpiscope serial MPI: %s needs a real MPI: this build (-DMPISCOPE_SERIAL=ON) "
            "runs the unit tests on one rank only\n", function);
    fflush(stderr);
    abort();
}

/* An erroneous call on `comm` (NULL: no communicator to go by). */
static int fail(MPI_Comm comm, const char *function, int error_class, const char *fmt, ...)
{
    if (comm && comm->errhandler == MPI_ERRORS_RETURN)
        return error_class;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "mpiscope serial MPI: %s: ", function);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (error class %d)\n", error_class);
    va_end(ap);
    fflush(stderr);
    abort();
}

#define CHECK_COMM(comm, function) do { \
    if ((comm) == MPI_COMM_NULL) \
        return fail(NULL, function, MPI_ERR_COMM, "MPI_COMM_NULL"); \
} while (0)

#define CHECK_TYPE(comm, type, function) do { \
    if ((type) == MPI_DATATYPE_NULL) \
        return fail(comm, function, MPI_ERR_TYPE, "MPI_DATATYPE_NULL"); \
} while (0)

#define CHECK_ROOT(comm, root, function) do { \
    if ((root) != 0) \
        return fail(comm, function, MPI_ERR_ROOT, "root %d is not a rank of a one-rank " \
                    "communicator", root); \
} while (0)

/* --- the environment --------------------------------------------------- */

int MPI_Init(int *argc, char ***argv)
{
    int provided;
    return MPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (initialized || finalized)
        return fail(NULL, "MPI_Init", MPI_ERR_OTHER, "MPI is already %s",
                    finalized ? "finalized" : "initialized");
    initialized = 1;
    level = required;
    *provided = required; /* one process, no threads of its own */
    return MPI_SUCCESS;
}

int MPI_Query_thread(int *provided)
{
    *provided = level;
    return MPI_SUCCESS;
}

int MPI_Finalize(void)
{
    if (!initialized || finalized)
        return fail(NULL, "MPI_Finalize", MPI_ERR_OTHER, "MPI is not initialized");
    finalized = 1;
    return MPI_SUCCESS;
}

int MPI_Initialized(int *flag)
{
    *flag = initialized;
    return MPI_SUCCESS;
}

int MPI_Finalized(int *flag)
{
    *flag = finalized;
    return MPI_SUCCESS;
}

int MPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    fprintf(stderr, "mpiscope serial MPI: MPI_Abort(%d)\n", errorcode);
    exit(errorcode ? errorcode : 1);
}

int MPI_Get_version(int *version, int *subversion)
{
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int MPI_Get_library_version(char *version, int *resultlen)
{
    snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING, "%s", LIBRARY_VERSION);
    *resultlen = (int)strlen(version);
    return MPI_SUCCESS;
}

int MPI_Get_processor_name(char *name, int *resultlen)
{
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

double MPI_Wtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --- communicators ------------------------------------------------------- */

int MPI_Comm_rank(MPI_Comm comm, int *rank)
{
    CHECK_COMM(comm, "MPI_Comm_rank");
    *rank = 0;
    return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int *size)
{
    CHECK_COMM(comm, "MPI_Comm_size");
    *size = 1;
    return MPI_SUCCESS;
}

static MPI_Comm comm_new(MPI_Comm parent)
{
    MPI_Comm c = malloc(sizeof *c);
    if (c)
        *c = (struct mpiscope__serial_comm){NULL, parent->errhandler, ++comms_made};
    return c;
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    CHECK_COMM(comm, "MPI_Comm_dup");
    if (!(*newcomm = comm_new(comm)))
        return fail(comm, "MPI_Comm_dup", MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    (void)key;
    CHECK_COMM(comm, "MPI_Comm_split");
    if (color < 0 && color != MPI_UNDEFINED)
        return fail(comm, "MPI_Comm_split", MPI_ERR_ARG, "color %d", color);
    if (color == MPI_UNDEFINED) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    if (!(*newcomm = comm_new(comm)))
        return fail(comm, "MPI_Comm_split", MPI_ERR_NO_MEM, "out of memory");
    return MPI_SUCCESS;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    (void)info;
    if (split_type != MPI_UNDEFINED && split_type != MPI_COMM_TYPE_SHARED)
        return fail(comm, "MPI_Comm_split_type", MPI_ERR_ARG,
                    "split type %d (only MPI_COMM_TYPE_SHARED here)", split_type);
    return MPI_Comm_split(comm, split_type == MPI_UNDEFINED ? MPI_UNDEFINED : 0, key, newcomm);
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (*comm == MPI_COMM_NULL || (*comm)->name)
        return fail(*comm, "MPI_Comm_free", MPI_ERR_COMM, "%s cannot be freed",
                    *comm ? (*comm)->name : "MPI_COMM_NULL");
    free(*comm);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* The predefined attributes a one-rank world has (MPI 5.0 section 9.1.2). */
int MPI_Comm_get_attr(MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag)
{
    static int tag_ub = 32767, host = MPI_PROC_NULL, io = 0, wtime_is_global = 0;
    int *value = comm_keyval == MPI_TAG_UB ? &tag_ub
                 : comm_keyval == MPI_HOST ? &host
                 : comm_keyval == MPI_IO ? &io
                 : comm_keyval == MPI_WTIME_IS_GLOBAL ? &wtime_is_global
                 : NULL;
    CHECK_COMM(comm, "MPI_Comm_get_attr");
    *flag = value != NULL && comm == MPI_COMM_WORLD;
    if (*flag)
        *(int **)attribute_val = value;
    return MPI_SUCCESS;
}

int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    CHECK_COMM(comm, "MPI_Comm_get_errhandler");
    *errhandler = comm->errhandler;
    return MPI_SUCCESS;
}

int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    CHECK_COMM(comm, "MPI_Comm_set_errhandler");
    if (errhandler != MPI_ERRORS_ARE_FATAL && errhandler != MPI_ERRORS_RETURN
        && errhandler != MPI_ERRORS_ABORT)
        return fail(comm, "MPI_Comm_set_errhandler", MPI_ERR_ARG, "not a predefined error handler");
    comm->errhandler = errhandler;
    return MPI_SUCCESS;
}

int MPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    *errhandler = MPI_ERRHANDLER_NULL; /* the predefined ones stay */
    return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int *errorclass)
{
    if (errorcode < MPI_SUCCESS || errorcode > MPI_ERR_LASTCODE)
        return fail(NULL, "MPI_Error_class", MPI_ERR_ARG, "error code %d", errorcode);
    *errorclass = errorcode; /* codes are classes here */
    return MPI_SUCCESS;
}

/* --- datatypes ----------------------------------------------------------- */

int MPI_Type_size(MPI_Datatype datatype, int *size)
{
    CHECK_TYPE(NULL, datatype, "MPI_Type_size");
    *size = (int)datatype->size;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent)
{
    CHECK_TYPE(NULL, datatype, "MPI_Type_get_extent");
    *lb = 0;
    *extent = datatype->extent;
    return MPI_SUCCESS;
}

/* Copy `count` elements of `type` to `rcount` of `rtype` (one rank: the
 * send and the receive are the same process): the type signatures must
 * have the same bytes; equal types copy their extent (the pair types'
 * padding), unequal ones must both be without padding. */
static int copy(MPI_Comm comm, const char *function, const void *send, MPI_Count scount,
                MPI_Datatype stype, void *recv, MPI_Count rcount, MPI_Datatype rtype)
{
    CHECK_TYPE(comm, stype, function);
    CHECK_TYPE(comm, rtype, function);
    if (scount < 0 || rcount < 0)
        return fail(comm, function, MPI_ERR_COUNT, "negative count");
    if (scount * stype->size > rcount * rtype->size)
        return fail(comm, function, MPI_ERR_TRUNCATE, "%lld bytes sent, room for %lld",
                    scount * stype->size, rcount * rtype->size);
    if (stype != rtype && (stype->size != stype->extent || rtype->size != rtype->extent))
        return fail(comm, function, MPI_ERR_TYPE, "%s sent as %s", stype->name, rtype->name);
    size_t bytes = (size_t)(scount * (stype == rtype ? stype->extent : stype->size));
    if (bytes && send != recv)
        memmove(recv, send, bytes);
    return MPI_SUCCESS;
}

/* --- collectives ------------------------------------------------------- */

int MPI_Barrier(MPI_Comm comm)
{
    CHECK_COMM(comm, "MPI_Barrier");
    return MPI_SUCCESS;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    (void)buffer;
    CHECK_COMM(comm, "MPI_Bcast");
    CHECK_ROOT(comm, root, "MPI_Bcast");
    CHECK_TYPE(comm, datatype, "MPI_Bcast");
    if (count < 0)
        return fail(comm, "MPI_Bcast", MPI_ERR_COUNT, "count %d", count);
    return MPI_SUCCESS;
}

static int check_op(MPI_Comm comm, const char *function, MPI_Op op)
{
    if (op == MPI_OP_NULL)
        return fail(comm, function, MPI_ERR_OP, "MPI_OP_NULL");
    return MPI_SUCCESS;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    CHECK_COMM(comm, "MPI_Reduce");
    CHECK_ROOT(comm, root, "MPI_Reduce");
    int rc = check_op(comm, "MPI_Reduce", op);
    if (rc || sendbuf == MPI_IN_PLACE)
        return rc;
    return copy(comm, "MPI_Reduce", sendbuf, count, datatype, recvbuf, count, datatype);
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    CHECK_COMM(comm, "MPI_Allreduce");
    int rc = check_op(comm, "MPI_Allreduce", op);
    if (rc || sendbuf == MPI_IN_PLACE)
        return rc;
    return copy(comm, "MPI_Allreduce", sendbuf, count, datatype, recvbuf, count, datatype);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    CHECK_COMM(comm, "MPI_Gather");
    CHECK_ROOT(comm, root, "MPI_Gather");
    if (sendbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    return copy(comm, "MPI_Gather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    CHECK_COMM(comm, "MPI_Gatherv");
    CHECK_ROOT(comm, root, "MPI_Gatherv");
    CHECK_TYPE(comm, recvtype, "MPI_Gatherv");
    if (sendbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    return copy(comm, "MPI_Gatherv", sendbuf, sendcount, sendtype,
                (char *)recvbuf + (MPI_Aint)displs[0] * recvtype->extent, recvcounts[0], recvtype);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    CHECK_COMM(comm, "MPI_Scatter");
    CHECK_ROOT(comm, root, "MPI_Scatter");
    if (recvbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    return copy(comm, "MPI_Scatter", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    CHECK_COMM(comm, "MPI_Allgather");
    if (sendbuf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    return copy(comm, "MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount,
                recvtype);
}

/* --- point to point: rank 0 to itself ------------------------------------ */

/* A message sent to rank 0, waiting for its receive (sends are buffered). */
typedef struct message {
    struct message *next;
    MPI_Comm comm;
    int tag;
    MPI_Count bytes;
    MPI_Datatype type;
    unsigned char data[];
} message_t;

static message_t *queue, **queue_end = &queue;

static int check_peer(MPI_Comm comm, const char *function, int peer, int any)
{
    if (peer == 0 || peer == MPI_PROC_NULL || (any && peer == MPI_ANY_SOURCE))
        return MPI_SUCCESS;
    return fail(comm, function, MPI_ERR_RANK, "rank %d in a one-rank communicator", peer);
}

int MPI_Send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm)
{
    CHECK_COMM(comm, "MPI_Send");
    CHECK_TYPE(comm, datatype, "MPI_Send");
    int rc = check_peer(comm, "MPI_Send", dest, 0);
    if (rc == MPI_SUCCESS && (tag < 0 || count < 0))
        rc = fail(comm, "MPI_Send", tag < 0 ? MPI_ERR_TAG : MPI_ERR_COUNT, "tag %d, count %d", tag,
                  count);
    if (rc || dest == MPI_PROC_NULL)
        return rc;
    size_t bytes = (size_t)count * (size_t)datatype->extent;
    message_t *m = malloc(sizeof *m + bytes);
    if (!m)
        return fail(comm, "MPI_Send", MPI_ERR_NO_MEM, "out of memory");
    *m = (message_t){NULL, comm, tag, (MPI_Count)count * datatype->size, datatype};
    memcpy(m->data, buf, bytes);
    *queue_end = m;
    queue_end = &m->next;
    return MPI_SUCCESS;
}

int MPI_Recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    CHECK_COMM(comm, "MPI_Recv");
    CHECK_TYPE(comm, datatype, "MPI_Recv");
    int rc = check_peer(comm, "MPI_Recv", source, 1);
    if (rc)
        return rc;
    MPI_Status got = {MPI_PROC_NULL, MPI_ANY_TAG, MPI_SUCCESS, 0, 0};
    if (source != MPI_PROC_NULL) {
        message_t **at = &queue;
        while (*at && ((*at)->comm != comm || (tag != MPI_ANY_TAG && (*at)->tag != tag)))
            at = &(*at)->next;
        if (!*at) /* a real MPI would wait for ever */
            return fail(NULL, "MPI_Recv", MPI_ERR_OTHER, "no message with tag %d was sent to rank 0: "
                        "it would wait for ever", tag);
        message_t *m = *at;
        rc = copy(comm, "MPI_Recv", m->data, m->bytes / m->type->size, m->type, buf, count,
                  datatype);
        got = (MPI_Status){0, m->tag, rc, m->bytes, 0};
        if (!(*at = m->next))
            queue_end = at;
        free(m);
    }
    if (status != MPI_STATUS_IGNORE)
        *status = got;
    return rc;
}
