/* test_noise_options.c: option parsing of detect, probe and the injector,
 * CPU lists and the JSON helpers: good values land, bad ones are refused
 * with a one-line message naming the option. */
#include <string.h>
#include "check.h"
#include "cli.h"
#include "detect_options.h"
#include "inject_options.h"
#include "mpiscope/error.h"
#include "probe_options.h"

#define CHECK_STR(a, b)                                                                                                \
    do {                                                                                                               \
        const char *va_ = (a), *vb_ = (b);                                                                             \
        if (strcmp(va_, vb_) != 0) {                                                                                   \
            fprintf(stderr, "%s:%d: got '%s', want '%s'\n", __FILE__, __LINE__, va_, vb_);                             \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)
#define CHECK_HAS(text, part)                                                                                          \
    do {                                                                                                               \
        if (!strstr((text), (part))) {                                                                                 \
            fprintf(stderr, "%s:%d: '%s' lacks '%s'\n", __FILE__, __LINE__, (text), (part));                           \
            check_failures++;                                                                                          \
        }                                                                                                              \
    } while (0)
#define ARGC(a) (int)(sizeof(a) / sizeof *(a))

static void test_cpu_lists(void)
{
    mpiscope__cpu_list_t l;
    char buf[64];
    CHECK_INT_EQ(mpiscope__cpu_list_parse("0,2,4-6", &l), 0);
    CHECK_INT_EQ(l.n, 5);
    CHECK_INT_EQ(l.cpu[4], 6);
    CHECK_STR(mpiscope__cpu_list_json(&l, buf, sizeof buf), "[0,2,4,5,6]");
    CHECK_STR(mpiscope__cpu_list_csv(&l, buf, sizeof buf), "0,2,4,5,6");
    l.n = 0;
    CHECK_STR(mpiscope__cpu_list_json(&l, buf, sizeof buf), "[]");
    const char *bad[] = {"", ",", "1,", ",1", "3-1", "a", "-1", "1-", "1024", "0-2000", "1;2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        CHECK_INT_EQ(mpiscope__cpu_list_parse(bad[i], &l), MPISCOPE_EINVAL);
    CHECK_INT_EQ(mpiscope__cpu_list_parse("0-1023", &l), 0);
    char small[32];
    mpiscope__cpu_list_json(&l, small, sizeof small); /* truncated, still valid */
    CHECK(small[0] == '[' && small[strlen(small) - 1] == ']' && !strstr(small, "..."));
    CHECK(small[strlen(small) - 2] != ',');
}

static void test_json_quote(void)
{
    char buf[64];
    CHECK_STR(mpiscope__json_quote("node-1", buf, sizeof buf), "\"node-1\"");
    CHECK_STR(mpiscope__json_quote("a\"b\\c\n", buf, sizeof buf), "\"a\\\"b\\\\c\\u000a\"");
}

static void test_detect_good(void)
{
    char *argv[] = {"mpiscope-noise",
                    "detect",
                    "--detector",
                    "stream-ring",
                    "--packet-seconds=2",
                    "--packets",
                    "30",
                    "--pin-cores",
                    "0-3",
                    "--block",
                    "2",
                    "--agent-pgid",
                    "1234",
                    "--messages",
                    "1",
                    "--message-bytes",
                    "5000000"};
    mpiscope__detect_options_t o;
    char err[MPISCOPE__NOISE_ERR_LEN] = "";
    CHECK_INT_EQ(mpiscope__detect_options_parse(ARGC(argv), argv, 2, &o, err, sizeof err), 0);
    CHECK_INT_EQ(o.detector, MPISCOPE__DETECT_STREAM_RING);
    CHECK_NEAR(o.packet_seconds, 2, 0);
    CHECK_NEAR(o.calibrate_seconds, 0.5, 0); /* min(1, S/4) */
    CHECK_INT_EQ(o.packets, 30);
    CHECK_INT_EQ(o.pin_cores.n, 4);
    CHECK_INT_EQ(o.block, 2);
    CHECK_INT_EQ(o.agent_pgid, 1234);
    CHECK_INT_EQ(o.messages, 1);
    CHECK_INT_EQ(o.message_bytes, 5000000);
    CHECK_INT_EQ(o.triads, 100);
    CHECK_INT_EQ(o.alltoall_bytes, 1024);
    CHECK_INT_EQ(o.iterations, 0);
    char *argv2[] = {"x", "detect", "--detector", "barrier", "--packet-seconds", "10", "--packets", "3"};
    CHECK_INT_EQ(mpiscope__detect_options_parse(ARGC(argv2), argv2, 2, &o, err, sizeof err), 0);
    CHECK_NEAR(o.calibrate_seconds, 1, 0);
    CHECK_INT_EQ(o.groups, 0);
    CHECK(o.stop_file == NULL);
    char *argv3[] = {"x",         "detect", "--detector",  "barrier",    "--packet-seconds", "1",
                     "--packets", "8",      "--block",     "2",          "--agent-pgid",     "99",
                     "--groups",  "4096",   "--stop-file", "/tmp/x/stop"};
    CHECK_INT_EQ(mpiscope__detect_options_parse(ARGC(argv3), argv3, 2, &o, err, sizeof err), 0);
    CHECK_INT_EQ(o.groups, MPISCOPE__NOISE_MAX_GROUPS);
    CHECK(o.stop_file != NULL && strcmp(o.stop_file, "/tmp/x/stop") == 0);
    char *help[] = {"x", "detect", "--help"};
    CHECK_INT_EQ(mpiscope__detect_options_parse(ARGC(help), help, 2, &o, err, sizeof err), 1);
}

/* Each bad command line is refused with a message holding `part`. */
static void refused_detect(int argc, char **argv, const char *part)
{
    mpiscope__detect_options_t o;
    char err[MPISCOPE__NOISE_ERR_LEN] = "";
    CHECK_INT_EQ(mpiscope__detect_options_parse(argc, argv, 2, &o, err, sizeof err), MPISCOPE_EINVAL);
    CHECK_HAS(err, part);
    CHECK(!strchr(err, '\n'));
}

static void test_detect_bad(void)
{
    char *a[] = {"x", "detect", "--detector", "allreduce", "--packet-seconds", "1", "--packets", "3"};
    refused_detect(ARGC(a), a, "--detector 'allreduce': not a detector");
    char *b[] = {"x", "detect", "--detector", "barrier", "--packet-seconds", "0", "--packets", "3"};
    refused_detect(ARGC(b), b, "--packet-seconds 0: out of range");
    char *c[] = {"x", "detect", "--detector", "barrier", "--packet-seconds", "1", "--packets", "2.5"};
    refused_detect(ARGC(c), c, "--packets '2.5': not an integer");
    char *d[] = {"x", "detect", "--detector", "barrier", "--packet-seconds", "1"};
    refused_detect(ARGC(d), d, "needs --packet-seconds S and --packets N");
    char *e[] = {"x", "detect", "--detector", "barrier", "--packet-seconds", "1", "--packets", "3", "--block", "2"};
    refused_detect(ARGC(e), e, "--block and --agent-pgid go together");
    char *f[] = {"x",         "detect", "--detector", "barrier", "--packet-seconds", "1",
                 "--packets", "3",      "--block",    "2",       "--agent-pgid",     "1"};
    refused_detect(ARGC(f), f, "--agent-pgid 1: out of range");
    char *g[] = {"x", "detect",    "--detector", "barrier",     "--packet-seconds",
                 "1", "--packets", "3",          "--pin-cores", "0,,1"};
    refused_detect(ARGC(g), g, "--pin-cores '0,,1': not a CPU list");
    char *gr[] = {"x", "detect",    "--detector", "barrier",  "--packet-seconds",
                  "1", "--packets", "3",          "--groups", "4097"};
    refused_detect(ARGC(gr), gr, "--groups 4097: out of range");
    char *st[] = {"x", "detect",    "--detector", "barrier",     "--packet-seconds",
                  "1", "--packets", "3",          "--stop-file", "stop"};
    refused_detect(ARGC(st), st, "--stop-file stops between ABBA blocks: it needs --block");
    char *h[] = {"x", "detect", "--detector", "barrier", "--bogus", "1"};
    refused_detect(ARGC(h), h, "unknown option '--bogus'");
    char *i[] = {"x", "detect", "--detector", "barrier", "--packet-seconds"};
    refused_detect(ARGC(i), i, "--packet-seconds needs a value");
    char *j[] = {"x", "detect", "barrier"};
    refused_detect(ARGC(j), j, "unexpected argument 'barrier'");
    char *k[] = {"x", "detect", "--detector", "barrier", "--packet-seconds", "nan", "--packets", "3"};
    refused_detect(ARGC(k), k, "--packet-seconds 'nan': not a number");
}

static void test_probe(void)
{
    mpiscope__probe_options_t o;
    char err[MPISCOPE__NOISE_ERR_LEN] = "";
    char *a[] = {"x", "probe", "--seconds", "2", "--out-dir", "/tmp/p", "--kinds", "selfish,fwq", "--threads", "0,1"};
    CHECK_INT_EQ(mpiscope__probe_options_parse(ARGC(a), a, 2, &o, err, sizeof err), 0);
    CHECK_INT_EQ(o.nkinds, 2);
    CHECK_INT_EQ(o.kinds[0], MPISCOPE__PROBE_SELFISH);
    CHECK_INT_EQ(o.kinds[1], MPISCOPE__PROBE_FWQ);
    CHECK_INT_EQ(o.threads.n, 2);
    CHECK_NEAR(o.fwq_work_ns, 100000, 0);
    CHECK_NEAR(o.ftq_quantum_ns, 1000000, 0);
    CHECK_NEAR(o.selfish_threshold_ns, 0, 0);
    /* records: 2 s of selfish at 100000 a second beat 2 x 20000 FWQ units */
    CHECK_INT_EQ(mpiscope__probe_capacity(&o), 200000 + 1024);
    char *b[] = {"x", "probe", "--seconds", "1", "--out-dir", "d"};
    CHECK_INT_EQ(mpiscope__probe_options_parse(ARGC(b), b, 2, &o, err, sizeof err), 0);
    CHECK_INT_EQ(o.nkinds, 3);
    char *c[] = {"x", "probe", "--seconds", "1", "--out-dir", "d", "--kinds", "ftq,ftq"};
    CHECK_INT_EQ(mpiscope__probe_options_parse(ARGC(c), c, 2, &o, err, sizeof err), MPISCOPE_EINVAL);
    CHECK_HAS(err, "repeated kind 'ftq'");
    char *d[] = {"x", "probe", "--seconds", "1", "--out-dir", "d", "--threads", "0", "--pin-cores", "1"};
    CHECK_INT_EQ(mpiscope__probe_options_parse(ARGC(d), d, 2, &o, err, sizeof err), MPISCOPE_EINVAL);
    CHECK_HAS(err, "exclude each other");
    char *e[] = {"x", "probe", "--seconds", "1"};
    CHECK_INT_EQ(mpiscope__probe_options_parse(ARGC(e), e, 2, &o, err, sizeof err), MPISCOPE_EINVAL);
    CHECK_HAS(err, "--out-dir");
    char *f[] = {"x", "probe", "--seconds", "1", "--out-dir", "d", "--ftq-quantum-ns", "10"};
    CHECK_INT_EQ(mpiscope__probe_options_parse(ARGC(f), f, 2, &o, err, sizeof err), MPISCOPE_EINVAL);
    CHECK_HAS(err, "--ftq-quantum-ns 10: out of range");
}

static void test_inject(void)
{
    mpiscope__inject_options_t o;
    char err[MPISCOPE__NOISE_ERR_LEN] = "";
    char *a[] = {"mpiscope-inject", "--hz", "10",        "--burst-ns", "1e6",    "--core", "1",
                 "--jitter",        "0.5",  "--seconds", "2",          "--seed", "7"};
    CHECK_INT_EQ(mpiscope__inject_options_parse(ARGC(a), a, &o, err, sizeof err), 0);
    CHECK_NEAR(o.hz, 10, 0);
    CHECK_NEAR(o.burst_ns, 1e6, 0);
    CHECK_INT_EQ(o.core, 1);
    CHECK_NEAR(o.jitter, 0.5, 0);
    CHECK_NEAR(o.seconds, 2, 0);
    CHECK_INT_EQ(o.seed, 7);
    char *b[] = {"x", "--hz", "10", "--burst-ns", "1e6", "--jitter", "1"};
    CHECK_INT_EQ(mpiscope__inject_options_parse(ARGC(b), b, &o, err, sizeof err), MPISCOPE_EINVAL);
    CHECK_HAS(err, "--jitter 1: out of range");
    char *c[] = {"x", "--hz", "1000", "--burst-ns", "1e6"};
    CHECK_INT_EQ(mpiscope__inject_options_parse(ARGC(c), c, &o, err, sizeof err), MPISCOPE_EINVAL);
    CHECK_HAS(err, "not shorter than the period");
    char *d[] = {"x", "--burst-ns", "1e6"};
    CHECK_INT_EQ(mpiscope__inject_options_parse(ARGC(d), d, &o, err, sizeof err), MPISCOPE_EINVAL);
    CHECK_HAS(err, "needs --hz F and --burst-ns B");
    char *e[] = {"x", "--hz", "0", "--burst-ns", "1"};
    CHECK_INT_EQ(mpiscope__inject_options_parse(ARGC(e), e, &o, err, sizeof err), MPISCOPE_EINVAL);
    CHECK_HAS(err, "--hz 0: out of range");
}

int main(void)
{
    test_cpu_lists();
    test_json_quote();
    test_detect_good();
    test_detect_bad();
    test_probe();
    test_inject();
    CHECK_DONE();
}
