/* test_cache_size.c: the engine's last-level cache from a synthetic sysfs
 * tree (the highest data or unified level, instruction caches skipped, the
 * first missing index ends the list), and from this machine's /sys when
 * it has one: the kernel's answer, not sysconf's. No MPI. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cache_size.h"
#include "check.h"

static char root[64];

/* <root>/cpu<cpu>/cache/index<index>/{type,level,size}. */
static void index_dir(int cpu, int index, const char *type, int level, const char *size)
{
    char path[256];
    const char *parts[] = {"cpu%d", "cache", "index%d"};
    size_t used = (size_t)snprintf(path, sizeof path, "%s", root);
    for (int i = 0; i < 3; i++) {
        used += (size_t)snprintf(path + used, sizeof path - used, "/");
        used += (size_t)snprintf(path + used, sizeof path - used, parts[i], i == 0 ? cpu : index);
        mkdir(path, 0755);
    }
    const char *files[] = {"type", "level", "size"};
    for (int i = 0; i < 3; i++) {
        char file[300];
        snprintf(file, sizeof file, "%s/%s", path, files[i]);
        FILE *f = fopen(file, "w");
        CHECK(f != NULL);
        if (!f)
            continue;
        if (i == 1)
            fprintf(f, "%d\n", level);
        else
            fprintf(f, "%s\n", i == 0 ? type : size);
        fclose(f);
    }
}

static void test_highest_level(void)
{
    index_dir(0, 0, "Data", 1, "48K");
    index_dir(0, 1, "Instruction", 1, "32K");
    index_dir(0, 2, "Unified", 2, "1024K");
    index_dir(0, 3, "Unified", 3, "32768K");
    CHECK_INT_EQ(mpiscope__llc_bytes_in(root, 0), 32 << 20);
}

static void test_instruction_and_gaps(void)
{
    /* an instruction cache of a higher level is no LLC; index 3 is missing */
    index_dir(1, 0, "Data", 1, "32K");
    index_dir(1, 1, "Unified", 2, "2M");
    index_dir(1, 2, "Instruction", 3, "64M");
    index_dir(1, 4, "Unified", 3, "1G");
    CHECK_INT_EQ(mpiscope__llc_bytes_in(root, 1), 2 << 20);
}

static void test_unreadable(void)
{
    CHECK_INT_EQ(mpiscope__llc_bytes_in(root, 7), 0); /* no such CPU */
    index_dir(2, 0, "Unified", 2, "lots");
    CHECK_INT_EQ(mpiscope__llc_bytes_in(root, 2), 0);
}

/* Where the kernel describes the caches, the engine says what it says. */
static void test_this_machine(void)
{
    size_t kernel = mpiscope__llc_bytes_in("/sys/devices/system/cpu", 0);
    if (kernel > 0)
        CHECK_INT_EQ(mpiscope__llc_bytes(), kernel);
    else
        printf("no cache topology in /sys: the engine falls back to sysconf (%zu B)\n", mpiscope__llc_bytes());
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/mpiscope-cache-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    test_highest_level();
    test_instruction_and_gaps();
    test_unreadable();
    test_this_machine();
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    CHECK(system(command) == 0);
    CHECK_DONE();
}
