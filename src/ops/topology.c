/* topology.c: Cartesian and graph topologies of the neighborhood
 * collectives (topology.h). */
#include "topology.h"
#include "common.h"
#include "options.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_DIMS = 8 };

typedef struct edge {
    int from, to;
} edge_t;

typedef struct graph {
    edge_t *edges; /* in file order: a rank's out-neighbors are consecutive */
    size_t n_edges, capacity;
} graph_t;

static int allocate(mpiscope__topology_t *t)
{
    /* one spare entry: never a zero-size allocation */
    t->sources = malloc(((size_t)t->in_degree + 1) * sizeof *t->sources);
    t->source_block = malloc(((size_t)t->in_degree + 1) * sizeof *t->source_block);
    return t->sources && t->source_block ? 0 : MPISCOPE_ENOMEM;
}

/* Cartesian: neighbors in the order of the standard, per dimension the
 * one below then the one above; the block I get from below is the one it
 * sends upwards, and the other way round. */
static int cartesian(const mpiscope_op_ctx_t *ctx, mpiscope__topology_t *t)
{
    int dims[MAX_DIMS] = {0}, periods[MAX_DIMS];
    long ndims, periodic;
    int rc;

    if ((rc = mpiscope__option_long(ctx, "dims", 1, MAX_DIMS, &ndims)) != 0
        || (rc = mpiscope__option_long(ctx, "periodic", 0, 1, &periodic)) != 0)
        return rc;
    for (int d = 0; d < ndims; d++)
        periods[d] = (int)periodic;
    if (MPI_Dims_create(ctx->nprocs, (int)ndims, dims) != MPI_SUCCESS
        || MPI_Cart_create(ctx->comm, (int)ndims, dims, periods, 0, &t->comm) != MPI_SUCCESS)
        return MPISCOPE_EMPI;
    t->in_degree = t->out_degree = 2 * (int)ndims;
    if ((rc = allocate(t)) != 0)
        return rc;
    for (int d = 0; d < ndims; d++) {
        if (MPI_Cart_shift(t->comm, d, 1, &t->sources[2 * d], &t->sources[2 * d + 1]) != MPI_SUCCESS)
            return MPISCOPE_EMPI;
        t->source_block[2 * d] = 2 * d + 1;
        t->source_block[2 * d + 1] = 2 * d;
    }
    return 0;
}

static int add_edge(graph_t *g, int from, int to)
{
    if (g->n_edges == g->capacity) {
        size_t capacity = g->capacity ? 2 * g->capacity : 64;
        edge_t *edges = realloc(g->edges, capacity * sizeof *edges);
        if (!edges)
            return MPISCOPE_ENOMEM;
        g->edges = edges;
        g->capacity = capacity;
    }
    g->edges[g->n_edges++] = (edge_t){from, to};
    return 0;
}

/* A rank number in [0, nprocs) at *at; moves past it. */
static int parse_rank(char **at, int nprocs, int *rank)
{
    char *end;
    long value = strtol(*at, &end, 10);

    if (end == *at || value < 0 || value >= nprocs)
        return MPISCOPE_EINVAL;
    *rank = (int)value;
    *at = end;
    return 0;
}

static int is_blank(const char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    return *s == '\0';
}

/* "RANK: DEST DEST ..." (comment already cut); seen[] catches repeats. */
static int parse_line(char *line, int nprocs, char *seen, graph_t *g)
{
    char *at = line;
    int from, to, rc;

    if (is_blank(line))
        return 0;
    if ((rc = parse_rank(&at, nprocs, &from)) != 0)
        return rc;
    while (isspace((unsigned char)*at))
        at++;
    if (*at++ != ':' || seen[from]++)
        return MPISCOPE_EINVAL;
    while (!is_blank(at)) {
        if ((rc = parse_rank(&at, nprocs, &to)) != 0 || (rc = add_edge(g, from, to)) != 0)
            return rc;
    }
    return 0;
}

static int read_graph(const char *path, int nprocs, graph_t *g)
{
    FILE *f = fopen(path, "r");
    char *line = NULL, *seen = calloc((size_t)nprocs, 1);
    size_t size = 0;
    int rc = f ? 0 : MPISCOPE_EIO;

    if (!seen)
        rc = MPISCOPE_ENOMEM;
    while (!rc && f && getline(&line, &size, f) >= 0) {
        char *comment = strchr(line, '#');
        if (comment)
            *comment = '\0';
        rc = parse_line(line, nprocs, seen, g);
    }
    if (f)
        fclose(f);
    free(line);
    free(seen);
    return rc;
}

/* My in-neighbors by sending rank, then by position in its list. */
static int graph_neighbors(const graph_t *g, int me, int nprocs, mpiscope__topology_t *t)
{
    int rc;

    for (size_t e = 0; e < g->n_edges; e++) {
        t->out_degree += g->edges[e].from == me;
        t->in_degree += g->edges[e].to == me;
    }
    if ((rc = allocate(t)) != 0)
        return rc;
    t->in_degree = 0;
    for (int s = 0; s < nprocs; s++) {
        int position = 0;
        for (size_t e = 0; e < g->n_edges; e++) {
            if (g->edges[e].from != s)
                continue;
            if (g->edges[e].to == me) {
                t->sources[t->in_degree] = s;
                t->source_block[t->in_degree++] = position;
            }
            position++;
        }
    }
    return 0;
}

/* My out-neighbors in order, and a weight of 1 for every edge (the same
 * graph as MPI_UNWEIGHTED, which some headers mark as unreadable memory). */
static int graph_dests(const graph_t *g, int me, const mpiscope__topology_t *t, int **dests, int **weights)
{
    size_t n = (size_t)(t->in_degree > t->out_degree ? t->in_degree : t->out_degree) + 1;

    *dests = malloc(n * sizeof **dests);
    *weights = malloc(n * sizeof **weights);
    if (!*dests || !*weights)
        return MPISCOPE_ENOMEM;
    for (size_t e = 0, k = 0; e < g->n_edges; e++)
        if (g->edges[e].from == me)
            (*dests)[k++] = g->edges[e].to;
    for (size_t i = 0; i < n; i++)
        (*weights)[i] = 1;
    return 0;
}

static int graph(const mpiscope_op_ctx_t *ctx, const char *path, mpiscope__topology_t *t)
{
    graph_t g = {0};
    int *dests = NULL, *weights = NULL, rc = read_graph(path, ctx->nprocs, &g);

    if (!rc)
        rc = graph_neighbors(&g, ctx->rank, ctx->nprocs, t);
    if (!rc)
        rc = graph_dests(&g, ctx->rank, t, &dests, &weights);
    /* every rank learns whether all could read the graph before creating it */
    MPI_Allreduce(MPI_IN_PLACE, &rc, 1, MPI_INT, MPI_MIN, ctx->comm);
    if (!rc
        && MPI_Dist_graph_create_adjacent(ctx->comm, t->in_degree, t->sources, weights, t->out_degree, dests, weights,
                                          MPI_INFO_NULL, 0, &t->comm)
               != MPI_SUCCESS)
        rc = MPISCOPE_EMPI;
    free(dests);
    free(weights);
    free(g.edges);
    return rc;
}

int mpiscope__topology_create(const mpiscope_op_ctx_t *ctx, mpiscope__topology_t *topology)
{
    const char *path = mpiscope_op_ctx_option(ctx, "graph");
    int rc;

    memset(topology, 0, sizeof *topology);
    topology->comm = MPI_COMM_NULL;
    rc = path && *path ? graph(ctx, path, topology) : cartesian(ctx, topology);
    if (rc)
        mpiscope__topology_free(topology);
    return rc;
}

void mpiscope__topology_free(mpiscope__topology_t *topology)
{
    if (topology->comm != MPI_COMM_NULL)
        MPI_Comm_free(&topology->comm);
    topology->comm = MPI_COMM_NULL;
    free(topology->sources);
    free(topology->source_block);
    topology->sources = topology->source_block = NULL;
}
