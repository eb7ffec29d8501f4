/* plp_rule.c: the seed's choice of PLP's leaders per node. */
#include "a2a.h"

/* Aggregated block of one leader to one node, M*M*m/d bytes, > crit?
 * Compared as M*M*m > crit*d in long double: no overflow, no rounding. */
static int above_crit(int m_ranks, size_t block, int d, size_t crit)
{
    long double bytes = (long double)m_ranks * m_ranks * (long double)block;
    return bytes > (long double)crit * d;
}

int mpiscope__a2a_plp_choose(int ranks_per_node, int common, size_t block_bytes, size_t size_crit_bytes)
{
    int best = 1;

    if (ranks_per_node < 1 || common < 1)
        return 1;
    if (!above_crit(ranks_per_node, block_bytes, 1, size_crit_bytes))
        return common; /* every d keeps the exchange in Bruck: the most leaders */
    for (int d = 1; d <= common; d++)
        if (common % d == 0 && above_crit(ranks_per_node, block_bytes, d, size_crit_bytes))
            best = d; /* still in the ring regime with d leaders */
    return best;
}

int mpiscope_alltoall_plp_rule(int ranks_per_node, size_t block_bytes, size_t size_crit_bytes)
{
    return mpiscope__a2a_plp_choose(ranks_per_node, ranks_per_node, block_bytes, size_crit_bytes);
}
