/* noise_main.h (internal): the subcommands of mpiscope-noise, called after
 * MPI_Init; each returns the process exit code (0, 1 failed, 2 bad usage). */
#ifndef MPISCOPE_NOISE_MAIN_H
#define MPISCOPE_NOISE_MAIN_H

int mpiscope__noise_detect_main(int argc, char **argv);
int mpiscope__noise_probe_main(int argc, char **argv);

#endif
