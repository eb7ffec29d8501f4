/* test_alltoall_rule.c: the Alltoall lab's registry and PLP's leader rule
 * (the seed's, mpiscope/alltoall.h), without MPI. */
#include <string.h>
#include "a2a.h"
#include "check.h"

static void test_registry(void)
{
    static const char *const order[] = {"bruck", "pairwise", "linear", "one_leader", "m_leader", "plp"};
    size_t n = mpiscope_alltoall_algorithm_count();

    CHECK(n >= 6);
    for (size_t i = 0; i < 6 && i < n; i++) {
        const mpiscope_alltoall_algorithm_t *a = mpiscope_alltoall_algorithm_at(i);
        CHECK(strcmp(a->name, order[i]) == 0);
        CHECK(strncmp(a->op_name, "alltoall_", 9) == 0 && strcmp(a->op_name + 9, a->name) == 0);
        CHECK_INT_EQ(a->leader_based, i >= 3);
        CHECK(mpiscope_alltoall_algorithm_find(a->name) == a);
    }
    CHECK(mpiscope_alltoall_algorithm_at(n) == NULL);
    CHECK(mpiscope_alltoall_algorithm_find("One-Leader") == mpiscope_alltoall_algorithm_at(3));
    CHECK(mpiscope_alltoall_algorithm_find("ring") == NULL);
    CHECK(mpiscope_alltoall_algorithm_find(NULL) == NULL);
}

/* M = 8, Size_crit = 8192 (the seed's MVAPICH setting): M*M*m = 64 m. */
static void test_rule(void)
{
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(8, 32, 8192), 8);  /* 2048 <= crit: Bruck for all d: d = M */
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(8, 128, 8192), 8); /* 8192 <= crit, just */
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(8, 256, 8192), 1); /* 16384/1 > crit, 16384/2 is not */
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(8, 512, 8192), 2); /* 32768/2 > crit, /4 is not */
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(8, 1024, 8192), 4);
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(8, 2048, 8192), 8); /* 131072/8 > crit */
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(8, 1 << 20, 8192), 8);
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(6, 300, 8192), 1); /* 10800: d=2 gives 5400 */
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(6, 700, 8192), 3); /* 25200/3 = 8400 > crit, /6 not */
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(1, 1 << 20, 8192), 1);
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(4, 0, 8192), 4);
    CHECK_INT_EQ(mpiscope_alltoall_plp_rule(4, 1, 0), 4); /* crit 0: 16/4 > 0 */
    /* uneven nodes (smallest 4, gcd 2): only 1 and 2 are allowed */
    CHECK_INT_EQ(mpiscope__a2a_plp_choose(4, 2, 8, 8192), 2);
    CHECK_INT_EQ(mpiscope__a2a_plp_choose(4, 2, 1024, 8192), 1); /* 16384/2 = 8192 is not > crit */
    CHECK_INT_EQ(mpiscope__a2a_plp_choose(4, 2, 4096, 8192), 2);
}

int main(void)
{
    test_registry();
    test_rule();
    CHECK_DONE();
}
