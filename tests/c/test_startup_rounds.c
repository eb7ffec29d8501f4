/* test_startup_rounds.c: the pairing of mpiscope startup's round trips
 * (src/engine/startup.c): in m-1 rounds over m places every pair meets
 * exactly once and every place has exactly one partner per round. */
#include <string.h>
#include "check.h"
#include "startup_internal.h"

enum { MAX_PLACES = 64 };

static void check_places(int m)
{
    static int met[MAX_PLACES][MAX_PLACES];
    memset(met, 0, sizeof met);
    for (int r = 0; r < m - 1; r++)
        for (int p = 0; p < m; p++) {
            int q = mpiscope__circle_partner(p, r, m);
            CHECK(q >= 0 && q < m && q != p);
            if (q < 0 || q >= m || q == p)
                continue;
            CHECK_INT_EQ(mpiscope__circle_partner(q, r, m), p); /* the pairing is mutual */
            met[p][q]++;
        }
    for (int p = 0; p < m; p++)
        for (int q = 0; q < m; q++)
            if (p != q && met[p][q] != 1) {
                fprintf(stderr, "m=%d: places %d and %d met %d times\n", m, p, q, met[p][q]);
                check_failures++;
            }
}

int main(void)
{
    for (int m = 2; m <= MAX_PLACES; m += 2)
        check_places(m);
    /* 2 ranks: one round, 0 with 1; 3 ranks use 4 places, place 3 the bye */
    CHECK_INT_EQ(mpiscope__circle_partner(0, 0, 2), 1);
    CHECK_INT_EQ(mpiscope__circle_partner(1, 0, 2), 0);
    CHECK_INT_EQ(mpiscope__circle_partner(3, 1, 4), 1);
    CHECK_DONE();
}
