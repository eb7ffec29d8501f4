/* detect_options.c: parsing and checking `mpiscope-noise detect` options. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "mpiscope/error.h"
#include "detect_options.h"

static const char *const detector_names[] = {"alltoall", "barrier", "stream-ring"};
#define N_DETECTORS (int)(sizeof detector_names / sizeof *detector_names)

const char mpiscope__detect_usage[] =
    "usage: mpiscope-noise detect --detector alltoall|barrier|stream-ring --packet-seconds S\n"
    "         --packets N [--calibrate-seconds C] [--iterations N] [--alltoall-bytes B]\n"
    "         [--messages M] [--message-bytes B] [--triads T] [--stream-elements E]\n"
    "         [--pin-cores LIST] [--block B --agent-pgid PGID] [--groups G] [--stop-file PATH]\n"
    "Times N packets of a synchronizing loop; one `@mpiscope noise-packet` line each.\n"
    "--groups G also times G equal groups of iterations per packet on every rank\n"
    "(one `@mpiscope noise-groups` line per packet), for the periodic test.\n"
    "--stop-file PATH (with --block): stop before a block 4k (a whole ABBA quartet\n"
    "measured) once PATH exists; the run then reports fewer than N packets.\n";

const char *mpiscope__detector_name(int detector)
{
    return detector >= 0 && detector < N_DETECTORS ? detector_names[detector] : "unknown";
}

static int check(const mpiscope__detect_options_t *o, const char *detector, char *err, size_t len)
{
    if (!detector) {
        snprintf(err, len, "detect needs --detector alltoall|barrier|stream-ring");
        return MPISCOPE_EINVAL;
    }
    if (o->detector < 0) {
        snprintf(err, len, "--detector '%s': not a detector (alltoall, barrier, stream-ring)", detector);
        return MPISCOPE_EINVAL;
    }
    if (o->packet_seconds < 0 || o->packets < 0) {
        snprintf(err, len, "detect needs --packet-seconds S and --packets N");
        return MPISCOPE_EINVAL;
    }
    if (o->stop_file && !o->block) {
        snprintf(err, len, "--stop-file stops between ABBA blocks: it needs --block");
        return MPISCOPE_EINVAL;
    }
    if ((o->block > 0) != (o->agent_pgid > 0)) {
        snprintf(err, len, "--block and --agent-pgid go together (the alternating design)");
        return MPISCOPE_EINVAL;
    }
    return 0;
}

int mpiscope__detect_options_parse(int argc, char **argv, int first, mpiscope__detect_options_t *o, char *err,
                                   size_t errlen)
{
    const char *detector = NULL;
    *o = (mpiscope__detect_options_t){.detector = -1,
                                      .packet_seconds = -1,
                                      .packets = -1,
                                      .calibrate_seconds = -1,
                                      .alltoall_bytes = 1024,
                                      .messages = 20,
                                      .message_bytes = 32,
                                      .triads = 100};
    const mpiscope__cli_option_t table[] = {
        {.name = "detector", .kind = MPISCOPE__CLI_STRING, .value = &detector},
        {.name = "packet-seconds",
         .kind = MPISCOPE__CLI_DOUBLE,
         .value = &o->packet_seconds,
         .min = 0,
         .max = 86400,
         .min_exclusive = 1},
        {.name = "packets", .kind = MPISCOPE__CLI_INT, .value = &o->packets, .min = 1, .max = 1e9},
        {.name = "calibrate-seconds",
         .kind = MPISCOPE__CLI_DOUBLE,
         .value = &o->calibrate_seconds,
         .min = 0,
         .max = 3600,
         .min_exclusive = 1},
        {.name = "iterations", .kind = MPISCOPE__CLI_INT, .value = &o->iterations, .min = 1, .max = 1e15},
        {.name = "alltoall-bytes", .kind = MPISCOPE__CLI_INT, .value = &o->alltoall_bytes, .min = 0, .max = 1 << 30},
        {.name = "messages", .kind = MPISCOPE__CLI_INT, .value = &o->messages, .min = 1, .max = 1e7},
        {.name = "message-bytes", .kind = MPISCOPE__CLI_INT, .value = &o->message_bytes, .min = 0, .max = 1 << 30},
        {.name = "triads", .kind = MPISCOPE__CLI_INT, .value = &o->triads, .min = 0, .max = 1e9},
        {.name = "stream-elements", .kind = MPISCOPE__CLI_INT, .value = &o->stream_elements, .min = 1, .max = 1e12},
        {.name = "pin-cores", .kind = MPISCOPE__CLI_CPUS, .value = &o->pin_cores},
        {.name = "block", .kind = MPISCOPE__CLI_INT, .value = &o->block, .min = 1, .max = 1e9},
        {.name = "agent-pgid", .kind = MPISCOPE__CLI_INT, .value = &o->agent_pgid, .min = 2, .max = 2147483647},
        {.name = "stop-file", .kind = MPISCOPE__CLI_STRING, .value = &o->stop_file},
        {.name = "groups", .kind = MPISCOPE__CLI_INT, .value = &o->groups, .min = 2, .max = MPISCOPE__NOISE_MAX_GROUPS},
    };
    int rc = mpiscope__cli_parse(table, sizeof table / sizeof *table, argc, argv, first, err, errlen);
    if (rc != 0)
        return rc;
    for (int d = 0; detector && d < N_DETECTORS; d++)
        if (strcmp(detector, detector_names[d]) == 0)
            o->detector = d;
    if (check(o, detector, err, errlen) != 0)
        return MPISCOPE_EINVAL;
    if (o->calibrate_seconds < 0)
        o->calibrate_seconds = fmin(1.0, o->packet_seconds / 4);
    return 0;
}
