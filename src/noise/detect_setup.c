/* detect_setup.c: STREAM array size from the LLC; the noise-setup line. */
#include <stdio.h>
#include <stdlib.h>
#include "affinity.h"
#include "llc.h"
#include "detect_setup.h"
#include "noise_mpi.h"

void mpiscope__stream_size(long long forced_elements, MPI_Comm world, MPI_Comm node, mpiscope__stream_size_t *s)
{
    long long *sizes = calloc(MPISCOPE__NOISE_MAX_CPUS, sizeof *sizes);
    mpiscope__cpu_list_t allowed;
    int failed = !sizes || mpiscope__cpus_allowed(&allowed) != 0
                 || mpiscope__llc_mark(MPISCOPE__LLC_SYSFS, &allowed, sizes) != 0;
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, node);
    long long total = MPISCOPE__LLC_DEFAULT_BYTES, largest = total;
    int instances = 1, ranks;
    if (!failed) {
        MPI_Allreduce(MPI_IN_PLACE, sizes, MPISCOPE__NOISE_MAX_CPUS, MPI_LONG_LONG, MPI_MAX, node);
        mpiscope__llc_total(sizes, &total, &instances, &largest);
    }
    free(sizes);
    MPI_Comm_size(node, &ranks);
    long long e = forced_elements ? forced_elements : mpiscope__stream_elements(total, ranks);
    MPI_Allreduce(&e, &s->elements, 1, MPI_LONG_LONG, MPI_MAX, world);
    MPI_Allreduce(MPI_IN_PLACE, &failed, 1, MPI_INT, MPI_MAX, world);
    s->llc_bytes = largest;
    s->llc_instances = instances;
    s->from_sysfs = !failed;
}

void mpiscope__print_setup(const mpiscope__detect_options_t *o, int nprocs, long long iterations_per_packet,
                           const mpiscope__calibration_t *cal, const mpiscope__stream_size_t *s, const char *timer,
                           double group_read_ns)
{
    char calib[256] = "null", alltoall[32] = "null", stream[512] = "null", line[1024];
    if (cal)
        snprintf(calib, sizeof calib, "{\"iterations\":%lld,\"seconds\":%.9g,\"per_iteration_ns\":%.6g}",
                 cal->iterations, cal->seconds, cal->per_iteration_ns);
    if (o->detector == MPISCOPE__DETECT_ALLTOALL)
        snprintf(alltoall, sizeof alltoall, "%lld", o->alltoall_bytes);
    if (o->detector == MPISCOPE__DETECT_STREAM_RING)
        snprintf(stream, sizeof stream,
                 "{\"elements_per_rank\":%lld,\"array_bytes_per_rank\":%lld,\"llc_bytes\":%lld,"
                 "\"llc_instances\":%d,\"llc_source\":\"%s\",\"triads\":%lld,\"messages\":%lld,"
                 "\"message_bytes\":%lld}",
                 s->elements, s->elements * 8, s->llc_bytes, s->llc_instances, s->from_sysfs ? "sysfs" : "default",
                 o->triads, o->messages, o->message_bytes);
    snprintf(line, sizeof line,
             "{\"detector\":\"%s\",\"nprocs\":%d,\"iterations_per_packet\":%lld,"
             "\"packet_seconds\":%.9g,\"calibration\":%s,\"alltoall_bytes\":%s,\"stream\":%s,"
             "\"timer\":\"%s\",\"groups\":%lld,\"group_read_ns\":%.6g}",
             mpiscope__detector_name(o->detector), nprocs, iterations_per_packet, o->packet_seconds, calib, alltoall,
             stream, timer, o->groups, group_read_ns);
    mpiscope__noise_emit("noise-setup", line);
}
