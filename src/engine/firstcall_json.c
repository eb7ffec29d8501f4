/* firstcall_json.c: first-call points in the result document
 * (docs/result-schema.md, points of "kind": "firstcall"). */
#include "mpiscope/error.h"
#include "firstcall_json.h"
#include "result_internal.h"

static double max_of(const double *v, int n)
{
    double m = v[0];
    for (int i = 1; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

void mpiscope__firstcall_point_json(const mpiscope_firstcall_t *fc, size_t index, mpiscope__json_t *j)
{
    int n = fc->nprocs;
    const double *first = fc->first_ns + index * (size_t)n, *second = fc->second_ns + index * (size_t)n;
    mpiscope__json_object(j, NULL);
    mpiscope__json_string(j, "kind", "firstcall");
    mpiscope__json_string(j, "op", fc->ops[index]->name);
    mpiscope__json_integer(j, "size_bytes", (long long)fc->size_bytes);
    mpiscope__json_integer(j, "nprocs", n);
    mpiscope__json_number_array(j, "first_ns", first, (size_t)n);
    mpiscope__json_number_array(j, "second_ns", second, (size_t)n);
    mpiscope__json_number(j, "ratio_rank0", first[0] / second[0]);
    mpiscope__json_number(j, "ratio_max", max_of(first, n) / max_of(second, n));
    mpiscope__json_end(j);
}

int mpiscope_result_add_firstcall(mpiscope_result_t *res, const mpiscope_firstcall_t *fc)
{
    /* the times are rank 0's (mpiscope_firstcall_run): it must be the writer */
    int times = fc && fc->first_ns && fc->second_ns;
    if (!res || !fc || fc->nprocs < 1 || !fc->ops || (mpiscope__result_is_writer(res) && !times))
        return MPISCOPE_EINVAL;
    int err = mpiscope_result_warn(res, "first-call measurement: one call of each kind per rank, no statistics");
    for (size_t i = 0; i < fc->n_ops && !err; i++) {
        mpiscope__json_t j;
        mpiscope__json_init(&j);
        if (times)
            mpiscope__firstcall_point_json(fc, i, &j);
        else
            mpiscope__json_raw(&j, NULL, "{}"); /* a rank that does not write: not used */
        err = j.failed ? MPISCOPE_ENOMEM : mpiscope__result_add_raw_point(res, j.buf);
        mpiscope__json_free(&j);
    }
    return err;
}
