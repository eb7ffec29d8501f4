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
#include "mpiscope/error.h"

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

typedef struct cache_entry {
    const char *type; /* NULL: no such index (a gap) */
    int level;
    const char *size;
} cache_entry_t;

static const struct tree_case {
    const char *what;
    int cpu, entries;
    cache_entry_t entry[5];
    size_t want;
} cases[] = {
    {"the highest level",
     0,
     4,
     {{"Data", 1, "48K"}, {"Instruction", 1, "32K"}, {"Unified", 2, "1024K"}, {"Unified", 3, "32768K"}},
     32 << 20},
    {"an instruction cache is no LLC; the first gap ends the list",
     1,
     5,
     {{"Data", 1, "32K"}, {"Unified", 2, "2M"}, {"Instruction", 3, "64M"}, {NULL, 0, NULL}, {"Unified", 3, "1G"}},
     2 << 20},
    {"an unreadable size", 2, 1, {{"Unified", 2, "lots"}}, 0},
};

static void test_trees(void)
{
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        for (int i = 0; i < cases[c].entries; i++)
            if (cases[c].entry[i].type)
                index_dir(cases[c].cpu, i, cases[c].entry[i].type, cases[c].entry[i].level, cases[c].entry[i].size);
        mpiscope__llc_t llc = {0};
        int err = mpiscope__llc_of_cpu(root, cases[c].cpu, &llc);
        size_t got = err ? 0 : (size_t)llc.bytes;
        if (got != cases[c].want)
            printf("%s: ", cases[c].what);
        CHECK_INT_EQ(got, cases[c].want);
        CHECK_INT_EQ(err, cases[c].want ? 0 : MPISCOPE_EIO);
    }
    mpiscope__llc_t llc;
    CHECK_INT_EQ(mpiscope__llc_of_cpu(root, 7, &llc), MPISCOPE_EIO); /* no such CPU */
}

/* Where the kernel describes the caches, the engine says what it says. */
static void test_this_machine(void)
{
    mpiscope__llc_t kernel;
    if (mpiscope__llc_of_cpu(MPISCOPE__LLC_SYSFS, 0, &kernel) == 0)
        CHECK_INT_EQ(mpiscope__llc_bytes(), kernel.bytes);
    else
        printf("no cache topology in /sys: the engine falls back to sysconf (%zu B)\n", mpiscope__llc_bytes());
}

int main(void)
{
    snprintf(root, sizeof root, "/tmp/mpiscope-cache-XXXXXX");
    CHECK(mkdtemp(root) != NULL);
    test_trees();
    test_this_machine();
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", root);
    CHECK(system(command) == 0);
    CHECK_DONE();
}
