/* halo4d: a halo-exchange mini-application on a periodic 4-D lattice, the
 * communication shape of the lattice QCD code the seed traced (QCDMPI).
 * The first --dims of the 4 dimensions are decomposed over the ranks
 * (MPI_Dims_create, MPI_Cart_create); each iteration exchanges the faces
 * with both neighbors in every decomposed dimension (MPI_Irecv, MPI_Isend,
 * one MPI_Waitall), applies a 9-point stencil and reduces a norm
 * (MPI_Allreduce). More dimensions: smaller messages, more of them.
 *
 * Options: --dims 1..4 (1), --lattice L (16: L^4 sites), --site N (24
 * doubles per site, a spinor's worth), --iters N (10). */
#include <math.h>
#include <mpi.h>
#include "example_args.h"

typedef struct lattice {
    int dims[4], coords[4], n[4], lo[4], hi[4];
    long volume, face[4];
    int site;
    double *field, *next, *send[4][2], *ghost[4][2];
} lattice_t;

static long site_index(const lattice_t *g, const int c[4])
{
    return ((long)(c[0] * g->n[1] + c[1]) * g->n[2] + c[2]) * g->n[3] + c[3];
}

/* Index of a site within the face orthogonal to dimension d. */
static long face_index(const lattice_t *g, const int c[4], int d)
{
    long f = 0;
    for (int e = 0; e < 4; e++)
        if (e != d)
            f = f * g->n[e] + c[e];
    return f;
}

static void coords_of(const lattice_t *g, long x, int c[4])
{
    for (int d = 3; d >= 0; d--) {
        c[d] = (int)(x % g->n[d]);
        x /= g->n[d];
    }
}

static void exchange(lattice_t *g, MPI_Comm cart)
{
    MPI_Request reqs[16];
    int nreq = 0;
    for (int d = 0; d < 4; d++) {
        if (g->dims[d] == 1)
            continue;
        long count = g->face[d] * g->site;
        for (long x = 0; x < g->volume; x++) {
            int c[4];
            coords_of(g, x, c);
            for (int side = 0; side < 2; side++)
                if (c[d] == (side ? g->n[d] - 1 : 0))
                    for (int s = 0; s < g->site; s++)
                        g->send[d][side][face_index(g, c, d) * g->site + s] = g->field[x * g->site + s];
        }
        MPI_Irecv(g->ghost[d][0], (int)count, MPI_DOUBLE, g->lo[d], 2 * d + 1, cart, &reqs[nreq++]);
        MPI_Irecv(g->ghost[d][1], (int)count, MPI_DOUBLE, g->hi[d], 2 * d, cart, &reqs[nreq++]);
        MPI_Isend(g->send[d][0], (int)count, MPI_DOUBLE, g->lo[d], 2 * d, cart, &reqs[nreq++]);
        MPI_Isend(g->send[d][1], (int)count, MPI_DOUBLE, g->hi[d], 2 * d + 1, cart, &reqs[nreq++]);
    }
    MPI_Waitall(nreq, reqs, MPI_STATUSES_IGNORE);
}

static double neighbor(const lattice_t *g, const int c[4], int d, int step, int s)
{
    int m[4] = {c[0], c[1], c[2], c[3]};
    m[d] += step;
    if (m[d] < 0 || m[d] >= g->n[d]) {
        if (g->dims[d] > 1)
            return g->ghost[d][step > 0][face_index(g, c, d) * g->site + s];
        m[d] = (m[d] + g->n[d]) % g->n[d];
    }
    return g->field[site_index(g, m) * g->site + s];
}

static void stencil(lattice_t *g)
{
    for (long x = 0; x < g->volume; x++) {
        int c[4];
        coords_of(g, x, c);
        for (int s = 0; s < g->site; s++) {
            double v = g->field[x * g->site + s];
            for (int d = 0; d < 4; d++)
                v += neighbor(g, c, d, 1, s) + neighbor(g, c, d, -1, s);
            g->next[x * g->site + s] = v / 9.0;
        }
    }
    double *t = g->field;
    g->field = g->next;
    g->next = t;
}

static MPI_Comm setup(lattice_t *g, int ndims, int L)
{
    int nprocs, periods[4] = {1, 1, 1, 1}, split[4] = {0, 0, 0, 0};
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    MPI_Dims_create(nprocs, ndims, split);
    for (int d = 0; d < 4; d++) {
        g->dims[d] = d < ndims ? split[d] : 1;
        if (L % g->dims[d] != 0) {
            fprintf(stderr, "halo4d: error: lattice %d does not split over %d ranks\n", L, g->dims[d]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
        g->n[d] = L / g->dims[d];
    }
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 4, g->dims, periods, 0, &cart);
    int rank;
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 4, g->coords);
    g->volume = (long)g->n[0] * g->n[1] * g->n[2] * g->n[3];
    g->field = calloc((size_t)(g->volume * g->site), sizeof(double));
    g->next = calloc((size_t)(g->volume * g->site), sizeof(double));
    for (int d = 0; d < 4; d++) {
        MPI_Cart_shift(cart, d, 1, &g->lo[d], &g->hi[d]);
        g->face[d] = g->volume / g->n[d];
        for (int side = 0; side < 2; side++) {
            g->send[d][side] = malloc((size_t)(g->face[d] * g->site) * sizeof(double));
            g->ghost[d][side] = malloc((size_t)(g->face[d] * g->site) * sizeof(double));
        }
    }
    for (long x = 0; x < g->volume; x++) {
        int c[4];
        coords_of(g, x, c);
        long global = 0;
        for (int d = 0; d < 4; d++)
            global = global * 31 + (g->coords[d] * g->n[d] + c[d]);
        for (int s = 0; s < g->site; s++)
            g->field[x * g->site + s] = (double)((global * 7 + s) % 97) / 97.0;
    }
    return cart;
}

static void teardown(lattice_t *g)
{
    free(g->field);
    free(g->next);
    for (int d = 0; d < 4; d++)
        for (int side = 0; side < 2; side++) {
            free(g->send[d][side]);
            free(g->ghost[d][side]);
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int ndims = (int)example_long(argc, argv, "--dims", 1);
    int L = (int)example_long(argc, argv, "--lattice", 16);
    long iters = example_long(argc, argv, "--iters", 10);
    lattice_t g = {.site = (int)example_long(argc, argv, "--site", 24)};
    if (ndims < 1 || ndims > 4 || L < 2 || g.site < 1) {
        if (rank == 0)
            fprintf(stderr, "halo4d: error: --dims 1..4, --lattice >= 2, --site >= 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm cart = setup(&g, ndims, L);
    if (rank == 0) {
        printf("halo4d: %d-D decomposition %dx%dx%dx%d of a %d^4 lattice, local %dx%dx%dx%d, "
               "%d doubles per site, %ld iterations\n",
               ndims, g.dims[0], g.dims[1], g.dims[2], g.dims[3], L, g.n[0], g.n[1], g.n[2], g.n[3], g.site, iters);
        fflush(stdout);
    }
    double norm = 0;
    for (long it = 0; it < iters; it++) {
        exchange(&g, cart);
        stencil(&g);
        double local = 0;
        for (long i = 0; i < g.volume * g.site; i++)
            local += g.field[i] * g.field[i];
        MPI_Allreduce(&local, &norm, 1, MPI_DOUBLE, MPI_SUM, cart);
    }
    if (rank == 0)
        printf("halo4d: norm %.6e\n", sqrt(norm));
    MPI_Comm_free(&cart);
    teardown(&g);
    MPI_Finalize();
    return 0;
}
