/* test_noise_llc.c: the LLC from a synthetic sysfs tree (two sockets of two
 * CPUs, each socket one 32 MiB L3; L1i/L1d/L2 per CPU), and the STREAM
 * array size of the >= 4x rule. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"
#include "llc.h"
#include "mpiscope/error.h"

static char root[64];

static void put(int cpu, int index, const char *file, const char *text)
{
    char path[256];
    snprintf(path, sizeof path, "%s/cpu%d", root, cpu);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/cpu%d/cache", root, cpu);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/cpu%d/cache/index%d", root, cpu, index);
    mkdir(path, 0755);
    snprintf(path, sizeof path, "%s/cpu%d/cache/index%d/%s", root, cpu, index, file);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fprintf(f, "%s\n", text);
        fclose(f);
    }
}

static void cache(int cpu, int index, const char *type, const char *level, const char *size,
                  const char *shared)
{
    put(cpu, index, "type", type);
    put(cpu, index, "level", level);
    put(cpu, index, "size", size);
    put(cpu, index, "shared_cpu_list", shared);
}

static void build_tree(void)
{
    for (int cpu = 0; cpu < 4; cpu++) {
        char self[8];
        snprintf(self, sizeof self, "%d", cpu);
        cache(cpu, 0, "Data", "1", "48K", self);
        cache(cpu, 1, "Instruction", "1", "32K", self);
        cache(cpu, 2, "Unified", "2", "2048K", self);
        cache(cpu, 3, "Unified", "3", "32M", cpu < 2 ? "0-1" : "2-3");
    }
}

static void test_one_cpu(void)
{
    mpiscope__llc_t llc;
    CHECK_INT_EQ(mpiscope__llc_of_cpu(root, 3, &llc), 0);
    CHECK_INT_EQ(llc.level, 3);
    CHECK_INT_EQ(llc.bytes, 32LL << 20);
    CHECK_INT_EQ(llc.instance, 2);
    CHECK_INT_EQ(mpiscope__llc_of_cpu(root, 9, &llc), MPISCOPE_EIO);
}

static void test_instances(void)
{
    long long sizes[MPISCOPE__NOISE_MAX_CPUS] = {0}, total, largest;
    int n;
    mpiscope__cpu_list_t cpus;
    CHECK_INT_EQ(mpiscope__cpu_list_parse("0,1", &cpus), 0);  /* one socket: one L3 */
    CHECK_INT_EQ(mpiscope__llc_mark(root, &cpus, sizes), 0);
    mpiscope__llc_total(sizes, &total, &n, &largest);
    CHECK_INT_EQ(n, 1);
    CHECK_INT_EQ(total, 32LL << 20);
    CHECK_INT_EQ(mpiscope__cpu_list_parse("1,2", &cpus), 0);  /* across sockets: two */
    CHECK_INT_EQ(mpiscope__llc_mark(root, &cpus, sizes), 0);
    mpiscope__llc_total(sizes, &total, &n, &largest);
    CHECK_INT_EQ(n, 2);
    CHECK_INT_EQ(total, 64LL << 20);
    CHECK_INT_EQ(largest, 32LL << 20);
    CHECK_INT_EQ(mpiscope__cpu_list_parse("3,7", &cpus), 0);  /* CPU 7 is not there */
    CHECK_INT_EQ(mpiscope__llc_mark(root, &cpus, sizes), MPISCOPE_EIO);
}

static void test_stream_elements(void)
{
    /* the seed: 35 MB per node, one rank -> 4 x 35 MB / 8 B = 17.5e6 elements */
    CHECK_INT_EQ(mpiscope__stream_elements(35000000, 1), 17500000);
    /* split over the node's ranks, rounded up */
    CHECK_INT_EQ(mpiscope__stream_elements(64LL << 20, 3), ((64LL << 22) + 23) / 24);
    CHECK_INT_EQ(mpiscope__stream_elements(1, 1000), 1);
}

static void remove_tree(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    CHECK_INT_EQ(system(cmd), 0);
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/noise-llc-XXXXXX");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        return 1;
    }
    build_tree();
    test_one_cpu();
    test_instances();
    test_stream_elements();
    remove_tree();
    CHECK_DONE();
}
