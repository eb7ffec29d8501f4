/* serial_mpi_internal.h: the serial MPI's objects (tests/serial_mpi/mpi.h
 * declares them incomplete). */
#ifndef MPISCOPE_SERIAL_MPI_INTERNAL_H
#define MPISCOPE_SERIAL_MPI_INTERNAL_H

#include "mpi.h"

struct mpiscope__serial_datatype {
    const char *name;
    MPI_Count size;    /* bytes of data */
    MPI_Aint extent;   /* bytes per element in a buffer */
};

struct mpiscope__serial_op {
    const char *name;
};

struct mpiscope__serial_comm {
    const char *name;       /* MPI_COMM_WORLD, MPI_COMM_SELF, or NULL: made by a call */
    MPI_Errhandler errhandler;
    unsigned long serial;   /* made by the n-th constructor call (0: predefined) */
};

struct mpiscope__serial_errhandler {
    const char *name;
};

struct mpiscope__serial_group {
    int size;
};

struct mpiscope__serial_info {
    int unused;
};

struct mpiscope__serial_message {
    int unused;
};

/* Stop the program: `function` exists in this serial MPI only as a name.
 * The line says so; the exit code is the one of an MPI_ERRORS_ARE_FATAL
 * error (as a real MPI would with the default error handler). */
_Noreturn void mpiscope__serial_unavailable(const char *function);

#endif
