/* mpi.h of the SERIAL MPI: not an MPI library. A one-rank stand-in of the
 * project's own so that the C unit tests build and run where no MPI is
 * installed (cmake -DMPISCOPE_SERIAL=ON, a plain C compiler; `make check`),
 * in the manner of PETSc's mpiuni: the engine's few MPI calls behave as on
 * rank 0 of a world of 1 (serial_mpi.c), every other function of the
 * standard stops the program naming itself (generated/unavailable.c).
 * Nothing built with it is installed; the same unit tests also run in the
 * MPI builds, against a real MPI.
 *
 * Types: handles are pointers to objects of this library (type-checked,
 * as with Open MPI), the predefined ones addresses of its static objects
 * (constant expressions, usable in static tables). */
#ifndef MPISCOPE_SERIAL_MPI_H
#define MPISCOPE_SERIAL_MPI_H

#include <stddef.h>
#include <stdint.h>

#define MPISCOPE_SERIAL_MPI 1

/* The API the prototypes declare (tools/gen_serial_mpi.py: pympistandard). */
#define MPI_VERSION 5
#define MPI_SUBVERSION 0

/* --- types ------------------------------------------------------------- */
typedef struct mpiscope__serial_comm *MPI_Comm;
typedef struct mpiscope__serial_datatype *MPI_Datatype;
typedef struct mpiscope__serial_op *MPI_Op;
typedef struct mpiscope__serial_request *MPI_Request;
typedef struct mpiscope__serial_group *MPI_Group;
typedef struct mpiscope__serial_info *MPI_Info;
typedef struct mpiscope__serial_errhandler *MPI_Errhandler;
typedef struct mpiscope__serial_win *MPI_Win;
typedef struct mpiscope__serial_file *MPI_File;
typedef struct mpiscope__serial_message *MPI_Message;
typedef struct mpiscope__serial_session *MPI_Session;
typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Count;
typedef long long MPI_Offset;
typedef int MPI_Fint;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    MPI_Count mpiscope__serial_bytes;     /* received */
    int mpiscope__serial_cancelled;
} MPI_Status;

typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint mpiscope__serial_internal[3];
} MPI_F08_status;

/* The tool information interface: declared for completeness, all unavailable. */
typedef struct mpiscope__serial_t_enum *MPI_T_enum;
typedef struct mpiscope__serial_t_cvar *MPI_T_cvar_handle;
typedef struct mpiscope__serial_t_pvar *MPI_T_pvar_handle;
typedef struct mpiscope__serial_t_pvar_session *MPI_T_pvar_session;
typedef struct mpiscope__serial_t_event_instance *MPI_T_event_instance;
typedef struct mpiscope__serial_t_event_registration *MPI_T_event_registration;
typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_T_CB_REQUIRE_THREAD_SAFE,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;
typedef enum MPI_T_source_order { MPI_T_SOURCE_ORDERED, MPI_T_SOURCE_UNORDERED } MPI_T_source_order;

/* --- predefined objects ------------------------------------------------- */
/* Datatypes: X(name, size, extent): size in bytes of data (MPI_Type_size),
 * extent in bytes per element in a buffer (the pair types are structs).
 * The names are pasted (##), never expanded, wherever X is applied. */
struct mpiscope__serial_float_int { float v; int i; };
struct mpiscope__serial_double_int { double v; int i; };
struct mpiscope__serial_long_int { long v; int i; };
struct mpiscope__serial_short_int { short v; int i; };
struct mpiscope__serial_long_double_int { long double v; int i; };
#define MPISCOPE__SERIAL_DATATYPES(X) \
    X(MPI_CHAR, sizeof(char), sizeof(char)) \
    X(MPI_SIGNED_CHAR, sizeof(signed char), sizeof(signed char)) \
    X(MPI_UNSIGNED_CHAR, sizeof(unsigned char), sizeof(unsigned char)) \
    X(MPI_BYTE, sizeof(unsigned char), sizeof(unsigned char)) \
    X(MPI_PACKED, sizeof(unsigned char), sizeof(unsigned char)) \
    X(MPI_WCHAR, sizeof(wchar_t), sizeof(wchar_t)) \
    X(MPI_SHORT, sizeof(short), sizeof(short)) \
    X(MPI_UNSIGNED_SHORT, sizeof(unsigned short), sizeof(unsigned short)) \
    X(MPI_INT, sizeof(int), sizeof(int)) \
    X(MPI_UNSIGNED, sizeof(unsigned), sizeof(unsigned)) \
    X(MPI_LONG, sizeof(long), sizeof(long)) \
    X(MPI_UNSIGNED_LONG, sizeof(unsigned long), sizeof(unsigned long)) \
    X(MPI_LONG_LONG, sizeof(long long), sizeof(long long)) \
    X(MPI_UNSIGNED_LONG_LONG, sizeof(unsigned long long), sizeof(unsigned long long)) \
    X(MPI_FLOAT, sizeof(float), sizeof(float)) \
    X(MPI_DOUBLE, sizeof(double), sizeof(double)) \
    X(MPI_LONG_DOUBLE, sizeof(long double), sizeof(long double)) \
    X(MPI_C_BOOL, sizeof(_Bool), sizeof(_Bool)) \
    X(MPI_INT8_T, sizeof(int8_t), sizeof(int8_t)) \
    X(MPI_INT16_T, sizeof(int16_t), sizeof(int16_t)) \
    X(MPI_INT32_T, sizeof(int32_t), sizeof(int32_t)) \
    X(MPI_INT64_T, sizeof(int64_t), sizeof(int64_t)) \
    X(MPI_UINT8_T, sizeof(uint8_t), sizeof(uint8_t)) \
    X(MPI_UINT16_T, sizeof(uint16_t), sizeof(uint16_t)) \
    X(MPI_UINT32_T, sizeof(uint32_t), sizeof(uint32_t)) \
    X(MPI_UINT64_T, sizeof(uint64_t), sizeof(uint64_t)) \
    X(MPI_AINT, sizeof(MPI_Aint), sizeof(MPI_Aint)) \
    X(MPI_COUNT, sizeof(MPI_Count), sizeof(MPI_Count)) \
    X(MPI_OFFSET, sizeof(MPI_Offset), sizeof(MPI_Offset)) \
    X(MPI_C_FLOAT_COMPLEX, sizeof(float _Complex), sizeof(float _Complex)) \
    X(MPI_C_DOUBLE_COMPLEX, sizeof(double _Complex), sizeof(double _Complex)) \
    X(MPI_C_LONG_DOUBLE_COMPLEX, sizeof(long double _Complex), sizeof(long double _Complex)) \
    X(MPI_FLOAT_INT, sizeof(float) + sizeof(int), sizeof(struct mpiscope__serial_float_int)) \
    X(MPI_DOUBLE_INT, sizeof(double) + sizeof(int), sizeof(struct mpiscope__serial_double_int)) \
    X(MPI_LONG_INT, sizeof(long) + sizeof(int), sizeof(struct mpiscope__serial_long_int)) \
    X(MPI_SHORT_INT, sizeof(short) + sizeof(int), sizeof(struct mpiscope__serial_short_int)) \
    X(MPI_LONG_DOUBLE_INT, sizeof(long double) + sizeof(int), sizeof(struct mpiscope__serial_long_double_int)) \
    X(MPI_2INT, 2 * sizeof(int), 2 * sizeof(int))
#define MPISCOPE__SERIAL_DECLARE(name, size, extent) \
    extern struct mpiscope__serial_datatype mpiscope__serial_##name;
MPISCOPE__SERIAL_DATATYPES(MPISCOPE__SERIAL_DECLARE)
#undef MPISCOPE__SERIAL_DECLARE
#define MPISCOPE__SERIAL_TYPE(name) (&mpiscope__serial_##name)

#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR MPISCOPE__SERIAL_TYPE(MPI_CHAR)
#define MPI_SIGNED_CHAR MPISCOPE__SERIAL_TYPE(MPI_SIGNED_CHAR)
#define MPI_UNSIGNED_CHAR MPISCOPE__SERIAL_TYPE(MPI_UNSIGNED_CHAR)
#define MPI_BYTE MPISCOPE__SERIAL_TYPE(MPI_BYTE)
#define MPI_PACKED MPISCOPE__SERIAL_TYPE(MPI_PACKED)
#define MPI_WCHAR MPISCOPE__SERIAL_TYPE(MPI_WCHAR)
#define MPI_SHORT MPISCOPE__SERIAL_TYPE(MPI_SHORT)
#define MPI_UNSIGNED_SHORT MPISCOPE__SERIAL_TYPE(MPI_UNSIGNED_SHORT)
#define MPI_INT MPISCOPE__SERIAL_TYPE(MPI_INT)
#define MPI_UNSIGNED MPISCOPE__SERIAL_TYPE(MPI_UNSIGNED)
#define MPI_LONG MPISCOPE__SERIAL_TYPE(MPI_LONG)
#define MPI_UNSIGNED_LONG MPISCOPE__SERIAL_TYPE(MPI_UNSIGNED_LONG)
#define MPI_LONG_LONG MPISCOPE__SERIAL_TYPE(MPI_LONG_LONG)
#define MPI_LONG_LONG_INT MPI_LONG_LONG
#define MPI_UNSIGNED_LONG_LONG MPISCOPE__SERIAL_TYPE(MPI_UNSIGNED_LONG_LONG)
#define MPI_FLOAT MPISCOPE__SERIAL_TYPE(MPI_FLOAT)
#define MPI_DOUBLE MPISCOPE__SERIAL_TYPE(MPI_DOUBLE)
#define MPI_LONG_DOUBLE MPISCOPE__SERIAL_TYPE(MPI_LONG_DOUBLE)
#define MPI_C_BOOL MPISCOPE__SERIAL_TYPE(MPI_C_BOOL)
#define MPI_INT8_T MPISCOPE__SERIAL_TYPE(MPI_INT8_T)
#define MPI_INT16_T MPISCOPE__SERIAL_TYPE(MPI_INT16_T)
#define MPI_INT32_T MPISCOPE__SERIAL_TYPE(MPI_INT32_T)
#define MPI_INT64_T MPISCOPE__SERIAL_TYPE(MPI_INT64_T)
#define MPI_UINT8_T MPISCOPE__SERIAL_TYPE(MPI_UINT8_T)
#define MPI_UINT16_T MPISCOPE__SERIAL_TYPE(MPI_UINT16_T)
#define MPI_UINT32_T MPISCOPE__SERIAL_TYPE(MPI_UINT32_T)
#define MPI_UINT64_T MPISCOPE__SERIAL_TYPE(MPI_UINT64_T)
#define MPI_AINT MPISCOPE__SERIAL_TYPE(MPI_AINT)
#define MPI_COUNT MPISCOPE__SERIAL_TYPE(MPI_COUNT)
#define MPI_OFFSET MPISCOPE__SERIAL_TYPE(MPI_OFFSET)
#define MPI_C_FLOAT_COMPLEX MPISCOPE__SERIAL_TYPE(MPI_C_FLOAT_COMPLEX)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX MPISCOPE__SERIAL_TYPE(MPI_C_DOUBLE_COMPLEX)
#define MPI_C_LONG_DOUBLE_COMPLEX MPISCOPE__SERIAL_TYPE(MPI_C_LONG_DOUBLE_COMPLEX)
#define MPI_FLOAT_INT MPISCOPE__SERIAL_TYPE(MPI_FLOAT_INT)
#define MPI_DOUBLE_INT MPISCOPE__SERIAL_TYPE(MPI_DOUBLE_INT)
#define MPI_LONG_INT MPISCOPE__SERIAL_TYPE(MPI_LONG_INT)
#define MPI_SHORT_INT MPISCOPE__SERIAL_TYPE(MPI_SHORT_INT)
#define MPI_LONG_DOUBLE_INT MPISCOPE__SERIAL_TYPE(MPI_LONG_DOUBLE_INT)
#define MPI_2INT MPISCOPE__SERIAL_TYPE(MPI_2INT)

/* Reduction operations. */
#define MPISCOPE__SERIAL_OPS(X) \
    X(MPI_MAX) X(MPI_MIN) X(MPI_SUM) X(MPI_PROD) X(MPI_LAND) X(MPI_BAND) X(MPI_LOR) X(MPI_BOR) \
    X(MPI_LXOR) X(MPI_BXOR) X(MPI_MAXLOC) X(MPI_MINLOC) X(MPI_REPLACE) X(MPI_NO_OP)
#define MPISCOPE__SERIAL_DECLARE(name) extern struct mpiscope__serial_op mpiscope__serial_##name;
MPISCOPE__SERIAL_OPS(MPISCOPE__SERIAL_DECLARE)
#undef MPISCOPE__SERIAL_DECLARE
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX (&mpiscope__serial_MPI_MAX)
#define MPI_MIN (&mpiscope__serial_MPI_MIN)
#define MPI_SUM (&mpiscope__serial_MPI_SUM)
#define MPI_PROD (&mpiscope__serial_MPI_PROD)
#define MPI_LAND (&mpiscope__serial_MPI_LAND)
#define MPI_BAND (&mpiscope__serial_MPI_BAND)
#define MPI_LOR (&mpiscope__serial_MPI_LOR)
#define MPI_BOR (&mpiscope__serial_MPI_BOR)
#define MPI_LXOR (&mpiscope__serial_MPI_LXOR)
#define MPI_BXOR (&mpiscope__serial_MPI_BXOR)
#define MPI_MAXLOC (&mpiscope__serial_MPI_MAXLOC)
#define MPI_MINLOC (&mpiscope__serial_MPI_MINLOC)
#define MPI_REPLACE (&mpiscope__serial_MPI_REPLACE)
#define MPI_NO_OP (&mpiscope__serial_MPI_NO_OP)

/* Communicators: the world and self are the same one process. */
extern struct mpiscope__serial_comm mpiscope__serial_comm_world, mpiscope__serial_comm_self;
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD (&mpiscope__serial_comm_world)
#define MPI_COMM_SELF (&mpiscope__serial_comm_self)

extern struct mpiscope__serial_errhandler mpiscope__serial_errors_are_fatal,
    mpiscope__serial_errors_return, mpiscope__serial_errors_abort;
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL (&mpiscope__serial_errors_are_fatal)
#define MPI_ERRORS_RETURN (&mpiscope__serial_errors_return)
#define MPI_ERRORS_ABORT (&mpiscope__serial_errors_abort)

extern struct mpiscope__serial_group mpiscope__serial_group_empty;
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY (&mpiscope__serial_group_empty)
extern struct mpiscope__serial_info mpiscope__serial_info_env;
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_INFO_ENV (&mpiscope__serial_info_env)
extern struct mpiscope__serial_message mpiscope__serial_message_no_proc;
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC (&mpiscope__serial_message_no_proc)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_FILE_NULL ((MPI_File)0)
#define MPI_SESSION_NULL ((MPI_Session)0)

/* Addresses that mean something: distinct objects, never read or written. */
extern char mpiscope__serial_in_place, mpiscope__serial_bottom;
extern MPI_Status mpiscope__serial_status_ignore[1], mpiscope__serial_statuses_ignore[1];
extern int mpiscope__serial_unweighted[1], mpiscope__serial_weights_empty[1];
#define MPI_IN_PLACE ((void *)&mpiscope__serial_in_place)
#define MPI_BOTTOM ((void *)&mpiscope__serial_bottom)
#define MPI_STATUS_IGNORE (mpiscope__serial_status_ignore)
#define MPI_STATUSES_IGNORE (mpiscope__serial_statuses_ignore)
#define MPI_UNWEIGHTED (mpiscope__serial_unweighted)
#define MPI_WEIGHTS_EMPTY (mpiscope__serial_weights_empty)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)

/* --- constants ----------------------------------------------------------- */
enum {
    MPI_SUCCESS = 0, MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG, MPI_ERR_COMM,
    MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ROOT, MPI_ERR_GROUP, MPI_ERR_OP, MPI_ERR_TOPOLOGY,
    MPI_ERR_DIMS, MPI_ERR_ARG, MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN,
    MPI_ERR_PENDING, MPI_ERR_IN_STATUS, MPI_ERR_ACCESS, MPI_ERR_AMODE, MPI_ERR_ASSERT,
    MPI_ERR_BAD_FILE, MPI_ERR_BASE, MPI_ERR_CONVERSION, MPI_ERR_DISP, MPI_ERR_DUP_DATAREP,
    MPI_ERR_FILE_EXISTS, MPI_ERR_FILE_IN_USE, MPI_ERR_FILE, MPI_ERR_INFO_KEY, MPI_ERR_INFO_NOKEY,
    MPI_ERR_INFO_VALUE, MPI_ERR_INFO, MPI_ERR_IO, MPI_ERR_KEYVAL, MPI_ERR_LOCKTYPE, MPI_ERR_NAME,
    MPI_ERR_NO_MEM, MPI_ERR_NOT_SAME, MPI_ERR_NO_SPACE, MPI_ERR_NO_SUCH_FILE, MPI_ERR_PORT,
    MPI_ERR_PROC_ABORTED, MPI_ERR_QUOTA, MPI_ERR_READ_ONLY, MPI_ERR_RMA_ATTACH,
    MPI_ERR_RMA_CONFLICT, MPI_ERR_RMA_RANGE, MPI_ERR_RMA_SHARED, MPI_ERR_RMA_SYNC,
    MPI_ERR_RMA_FLAVOR, MPI_ERR_SERVICE, MPI_ERR_SESSION, MPI_ERR_SIZE, MPI_ERR_SPAWN,
    MPI_ERR_UNSUPPORTED_DATAREP, MPI_ERR_UNSUPPORTED_OPERATION, MPI_ERR_VALUE_TOO_LARGE,
    MPI_ERR_WIN, MPI_ERR_ERRHANDLER, MPI_ERR_LASTCODE
};

enum {
    MPI_ANY_SOURCE = -2, MPI_PROC_NULL = -1, MPI_ROOT = -3, MPI_ANY_TAG = -1,
    MPI_UNDEFINED = -32766, MPI_KEYVAL_INVALID = 0x24000000
};

enum { MPI_IDENT, MPI_CONGRUENT, MPI_SIMILAR, MPI_UNEQUAL };
enum { MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED, MPI_THREAD_MULTIPLE };
enum { MPI_GRAPH = 1, MPI_CART, MPI_DIST_GRAPH };
enum { MPI_COMM_TYPE_SHARED = 1, MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED,
       MPI_COMM_TYPE_RESOURCE_GUIDED };

/* Predefined attributes (keyvals). */
enum { MPI_TAG_UB = 0x64400001, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_UNIVERSE_SIZE,
       MPI_LASTUSEDCODE, MPI_APPNUM, MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
       MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL };
enum { MPI_WIN_FLAVOR_CREATE = 1, MPI_WIN_FLAVOR_ALLOCATE, MPI_WIN_FLAVOR_DYNAMIC,
       MPI_WIN_FLAVOR_SHARED };
enum { MPI_WIN_SEPARATE = 1, MPI_WIN_UNIFIED };

/* One-sided assertions and lock types. */
enum { MPI_MODE_NOCHECK = 1024, MPI_MODE_NOSTORE = 2048, MPI_MODE_NOPUT = 4096,
       MPI_MODE_NOPRECEDE = 8192, MPI_MODE_NOSUCCEED = 16384 };
enum { MPI_LOCK_EXCLUSIVE = 234, MPI_LOCK_SHARED };
/* File access modes (MPI-IO; MPICH's values, distinct from the above). */
enum { MPI_MODE_RDONLY = 2, MPI_MODE_RDWR = 8, MPI_MODE_WRONLY = 4, MPI_MODE_CREATE = 1,
       MPI_MODE_EXCL = 64, MPI_MODE_DELETE_ON_CLOSE = 16, MPI_MODE_UNIQUE_OPEN = 32,
       MPI_MODE_APPEND = 128, MPI_MODE_SEQUENTIAL = 256 };

enum { MPI_MAX_PROCESSOR_NAME = 256, MPI_MAX_LIBRARY_VERSION_STRING = 8192,
       MPI_MAX_ERROR_STRING = 512, MPI_MAX_OBJECT_NAME = 128, MPI_MAX_INFO_KEY = 255,
       MPI_MAX_INFO_VAL = 1024, MPI_MAX_PORT_NAME = 256, MPI_MAX_DATAREP_STRING = 128,
       MPI_MAX_PSET_NAME_LEN = 256, MPI_MAX_STRINGTAG_LEN = 256 };

#include "generated/mpi_prototypes.h"

#endif
