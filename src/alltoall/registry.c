/* registry.c: the Alltoall lab's algorithms in listing order. Adding one:
 * its own file (an mpiscope__a2a_impl_t), one line here, its op in ops.c. */
#include <ctype.h>
#include "a2a.h"

static const mpiscope__a2a_impl_t *const impls[] = {
    &mpiscope__a2a_bruck,    &mpiscope__a2a_pairwise, &mpiscope__a2a_linear, &mpiscope__a2a_one_leader,
    &mpiscope__a2a_m_leader, &mpiscope__a2a_plp,      &mpiscope__a2a_lss,
};

size_t mpiscope_alltoall_algorithm_count(void)
{
    return sizeof impls / sizeof *impls;
}

const mpiscope_alltoall_algorithm_t *mpiscope_alltoall_algorithm_at(size_t index)
{
    return index < mpiscope_alltoall_algorithm_count() ? &impls[index]->info : NULL;
}

/* As for ops: any case, '-' for '_'. */
static int is_named(const char *name, const char *given)
{
    while (*given && (*given == '-' ? '_' : tolower((unsigned char)*given)) == *name) {
        given++;
        name++;
    }
    return *given == '\0' && *name == '\0';
}

const mpiscope__a2a_impl_t *mpiscope__a2a_impl_find(const char *name)
{
    for (size_t i = 0; name && i < mpiscope_alltoall_algorithm_count(); i++)
        if (is_named(impls[i]->info.name, name))
            return impls[i];
    return NULL;
}

const mpiscope_alltoall_algorithm_t *mpiscope_alltoall_algorithm_find(const char *name)
{
    const mpiscope__a2a_impl_t *impl = mpiscope__a2a_impl_find(name);
    return impl ? &impl->info : NULL;
}
