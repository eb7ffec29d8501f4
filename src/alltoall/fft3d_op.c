/* fft3d_op.c: the seed's application, a parallel 3-D FFT, as the op
 * `fft3d` (docs/alltoall-fft.md): one launch is one forward FFT of an
 * N^3 complex-double grid in slabs, its transpose one Alltoall by the
 * library's MPI_Alltoall or one of the lab's algorithms; phase=transpose
 * times the Alltoall alone. Validation transforms two plane waves, whose
 * FFT is two spikes of known place and height. */
#include "fft3d.h"
#include "mpiscope/alltoall.h"
#include "mpiscope/error.h"
#include "opctx.h"
#include "options.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const choices_phase[] = {"all", "transpose", NULL};
enum { PHASE_ALL, PHASE_TRANSPOSE };

typedef struct fft3d_op {
    mpiscope__fft3d_t grid;
    int phase;
    mpiscope_alltoall_t *a2a; /* NULL: MPI_Alltoall */
} fft3d_op_t;

/* The input of a launch: amplitude[w] exp(2 pi i k[w].(x,y,z) / N), w = 0, 1. */
typedef struct waves {
    int k[2][3];
    double complex amplitude[2];
} waves_t;

static waves_t waves_of(size_t launch, int n)
{
    long l = (long)(launch % (size_t)n);
    waves_t w = {.k = {{(int)(l % n), (int)((2 * l + 1) % n), (int)((3 * l + 2) % n)},
                       {(int)((5 * l + 3) % n), (int)((l + n / 2) % n), (int)((7 * l) % n)}},
                 .amplitude = {CMPLX(1.0, 0.0), CMPLX(0.5, -0.25)}};
    return w;
}

static void fill_input(mpiscope__fft3d_t *g, size_t launch)
{
    const double two_pi = 6.283185307179586476925286766559;
    waves_t w = waves_of(launch, g->n);
    size_t n = (size_t)g->n, planes = (size_t)mpiscope__fft3d_planes(g), i = 0;

    for (size_t zl = 0; zl < planes; zl++)
        for (size_t y = 0; y < n; y++)
            for (size_t x = 0; x < n; x++, i++) {
                size_t z = zl + (size_t)g->first[g->rank];
                double complex value = 0;
                for (int v = 0; v < 2; v++) {
                    size_t phase = ((size_t)w.k[v][0] * x + (size_t)w.k[v][1] * y + (size_t)w.k[v][2] * z) % n;
                    double angle = two_pi * (double)phase / (double)n;
                    value += w.amplitude[v] * CMPLX(cos(angle), sin(angle));
                }
                g->input[i] = value;
            }
}

static int read_algorithm(mpiscope_op_ctx_t *ctx, fft3d_op_t *s, size_t block_bytes)
{
    mpiscope_alltoall_params_t params = MPISCOPE_ALLTOALL_PARAMS_INIT;
    const char *name = mpiscope_op_ctx_option(ctx, "algorithm");
    long nodes, leaders;
    int rc;

    if ((rc = mpiscope__option_long(ctx, "nodes", 0, ctx->nprocs, &nodes)) != 0
        || (rc = mpiscope__option_long(ctx, "leaders", 0, ctx->nprocs, &leaders)) != 0)
        return rc;
    if (name && strcmp(name, "native") == 0)
        return block_bytes / 16 > (size_t)INT32_MAX ? MPISCOPE_ERANGE : 0;
    if (!name || !mpiscope_alltoall_algorithm_find(name))
        return mpiscope__op_ctx_bad_option(ctx, "algorithm");
    params.nodes = (int)nodes;
    params.leaders = (int)leaders;
    return mpiscope_alltoall_create(ctx->comm, name, block_bytes, &params, &s->a2a);
}

static int fft3d_finalize(mpiscope_op_ctx_t *ctx)
{
    fft3d_op_t *s = ctx->state;

    if (!s)
        return 0;
    mpiscope_alltoall_free(s->a2a);
    mpiscope__fft3d_free(&s->grid);
    free(s);
    ctx->state = NULL;
    return 0;
}

static int setup(mpiscope_op_ctx_t *ctx, fft3d_op_t *s)
{
    long n;
    size_t bytes;
    int rc;

    if ((rc = mpiscope__option_long(ctx, "grid", 1, 1L << 20, &n)) != 0
        || (rc = mpiscope__option_choice(ctx, "phase", choices_phase, &s->phase)) != 0
        || (rc = mpiscope__fft3d_init(&s->grid, (int)n, ctx->rank, ctx->nprocs)) != 0)
        return rc;
    if (s->grid.block > SIZE_MAX / 16 / (size_t)ctx->nprocs)
        return MPISCOPE_ERANGE;
    bytes = s->grid.block * 16 * (size_t)ctx->nprocs;
    if ((rc = mpiscope_op_ctx_buffers_fixed(ctx, bytes, bytes)) != 0
        || (rc = read_algorithm(ctx, s, s->grid.block * 16)) != 0)
        return rc;
    fill_input(&s->grid, 0);
    mpiscope__fft3d_local(&s->grid, ctx->send); /* phase transpose sends this every launch */
    return 0;
}

static int fft3d_initialize(mpiscope_op_ctx_t *ctx)
{
    fft3d_op_t *s = calloc(1, sizeof *s);
    int rc;

    if (!(ctx->state = s))
        return MPISCOPE_ENOMEM;
    if ((rc = setup(ctx, s)) != 0)
        fft3d_finalize(ctx);
    return rc;
}

static int transpose(mpiscope_op_ctx_t *ctx, fft3d_op_t *s)
{
    if (s->a2a)
        return mpiscope_alltoall_run(s->a2a, ctx->send, ctx->recv);
    return MPI_Alltoall(ctx->send, (int)s->grid.block, MPI_C_DOUBLE_COMPLEX, ctx->recv, (int)s->grid.block,
                        MPI_C_DOUBLE_COMPLEX, ctx->comm)
                   == MPI_SUCCESS
               ? 0
               : MPISCOPE_EMPI;
}

static int fft3d_execute(mpiscope_op_ctx_t *ctx)
{
    fft3d_op_t *s = ctx->state;
    int rc;

    if (s->phase == PHASE_TRANSPOSE)
        return transpose(ctx, s);
    mpiscope__fft3d_local(&s->grid, ctx->send);
    if ((rc = transpose(ctx, s)) != 0)
        return rc;
    mpiscope__fft3d_finish(&s->grid, ctx->recv);
    return 0;
}

/* The transform of the launch's waves: N^3 amplitude at each k, 0 elsewhere. */
static int check_output(mpiscope_op_ctx_t *ctx, const mpiscope__fft3d_t *g)
{
    waves_t w = waves_of(ctx->launch, g->n);
    size_t n = (size_t)g->n, rows = (size_t)mpiscope__fft3d_planes(g), i = 0;
    double volume = (double)n * (double)n * (double)n, tolerance = 1e-9 * volume;

    for (size_t yl = 0; yl < rows; yl++)
        for (size_t z = 0; z < n; z++)
            for (size_t x = 0; x < n; x++, i++) {
                size_t y = yl + (size_t)g->first[g->rank];
                double complex want = 0, got = g->output[i];
                for (int v = 0; v < 2; v++)
                    if ((size_t)w.k[v][0] == x && (size_t)w.k[v][1] == y && (size_t)w.k[v][2] == z)
                        want += volume * w.amplitude[v];
                if (!(cabs(got - want) <= tolerance))
                    return mpiscope_op_ctx_mismatch(ctx,
                                                    "rank %d: output (x %zu, y %zu, z %zu): got %.6g%+.6gi, "
                                                    "want %.6g%+.6gi",
                                                    ctx->rank, x, y, z, creal(got), cimag(got), creal(want),
                                                    cimag(want));
            }
    return 0;
}

/* PREPARE: the launch's waves (phase transpose: also their local FFTs,
 * sent by the timed Alltoall), recv and output poisoned with NaN.
 * CHECK: (phase transpose: the rest of the FFT, untimed) the spikes. */
static int fft3d_validate(mpiscope_op_ctx_t *ctx, int phase)
{
    fft3d_op_t *s = ctx->state;
    mpiscope__fft3d_t *g = &s->grid;
    size_t total = g->block * (size_t)ctx->nprocs, out = (size_t)mpiscope__fft3d_planes(g) * g->n * g->n;
    double complex *recv = ctx->recv;

    if (phase == MPISCOPE_VALIDATE_PREPARE) {
        fill_input(g, ctx->launch);
        for (size_t i = 0; i < total; i++)
            recv[i] = CMPLX(NAN, NAN);
        for (size_t i = 0; i < out; i++)
            g->output[i] = CMPLX(NAN, NAN);
        if (s->phase == PHASE_TRANSPOSE)
            mpiscope__fft3d_local(g, ctx->send);
        return 0;
    }
    if (s->phase == PHASE_TRANSPOSE)
        mpiscope__fft3d_finish(g, ctx->recv);
    return check_output(ctx, g);
}

static const mpiscope_op_option_t fft3d_options[] = {
    {.name = "grid",
     .default_value = "120",
     .unit = "points",
     .type = "integer",
     .description = "N of the N^3 complex-double grid; the transpose sends ceil(N/p)^2 N x 16 bytes per "
                    "destination (120 on 120 ranks: 1920 B; 480 on 240: 30720 B); memory per rank about "
                    "4 ceil(N/p) N^2 x 16 bytes"},
    {.name = "algorithm",
     .default_value = "native",
     .unit = "",
     .type = "name",
     .description = "the transpose's Alltoall: native (MPI_Alltoall) or a lab algorithm: bruck, pairwise, "
                    "linear, one_leader, m_leader, plp, lss"},
    {.name = "phase",
     .default_value = "all",
     .unit = "",
     .type = "choice",
     .choices = choices_phase,
     .description = "all: the whole forward FFT; transpose: the Alltoall alone"},
    {.name = "nodes",
     .default_value = "0",
     .unit = "nodes",
     .type = "integer",
     .description = "for the leader algorithms: 0 nodes from MPI_COMM_TYPE_SHARED, K virtual nodes"},
    {.name = "leaders",
     .default_value = "0",
     .unit = "ranks",
     .type = "integer",
     .description = "for plp: leaders per node; 0: the seed's rule"},
    MPISCOPE__OPT_END};

const mpiscope_op_t mpiscope__op_fft3d = {
    .abi = MPISCOPE_OP_ABI,
    .name = "fft3d",
    .description = "Alltoall lab: a forward 3-D FFT of an N^3 grid in slabs, its transpose one Alltoall "
                   "(the seed's application)",
    .size_meaning = "unused (the grid option sets the transpose's block size)",
    .flags = MPISCOPE_OP_SYNCHRONIZING,
    .options = fft3d_options,
    .initialize = fft3d_initialize,
    .execute = fft3d_execute,
    .finalize = fft3d_finalize,
    .validate = fft3d_validate,
};
