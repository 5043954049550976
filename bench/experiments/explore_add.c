/*
 * Experiment (bench/experiments/): supports docs/ladder.md, "Rung 7: tile4
 * (ours)" and "Rung 8: bulk (ours)" (the configuration search,
 * bench/results/h200-2026-11-20-explore.md).
 * Run: STAGES=explore bash bench/device.sh.
 *
 * explore_add - the search behind rungs 7 to 9 (docs/ladder.md): CUB, the
 * registry's add rungs, and the tile / bulk / bulk-pipeline templates at the
 * configurations in explore_kernels.cu, at each size. Every configuration is
 * verified bit for bit once, then timed in interleaved rounds (all configs
 * in round 1, then all in round 2, ...) so that clock drift hits each alike;
 * the table gives the median over all rounds and the ratio to CUB.
 *
 * usage: explore_add [--sizes LIST] [--rounds R] [--trials T]
 */
#include "harness.h"
#include "sizes.h"
#include "stats.h"
#include "verify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* explore_kernels.cu */
int explore_count(void);
const char *explore_name(int i);
sl_status explore_launch(int i, const sl_args *x);

typedef struct config {
    const char *name;
    const sl_variant *v; /* a registry entry, or NULL for explore instance `index` */
    int index;
} config;

static sl_status launch(const config *c, const sl_args *x)
{
    return c->v ? c->v->launch(x) : explore_launch(c->index, x);
}

int main(int argc, char **argv)
{
    const char *sizes_arg = "10M,100M,200M,2^28";
    int rounds = 5, trials = 20;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--sizes"))
            sizes_arg = argv[i + 1];
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--trials"))
            trials = atoi(argv[i + 1]);
        else {
            fprintf(stderr, "usage: explore_add [--sizes LIST] [--rounds R] [--trials T]\n");
            return 2;
        }
    }
    uint64_t sizes[16];
    char why[200];
    int nsizes = sl_parse_count_list(sizes_arg, sizes, 16, why, sizeof why);
    if (nsizes < 0 || rounds < 1 || trials < 1) {
        fprintf(stderr, "explore_add: %s\n", nsizes < 0 ? why : "rounds and trials must be >= 1");
        return 2;
    }
    sl_ctx *ctx;
    if (sl_ctx_create(0, &ctx) != SL_OK) {
        fprintf(stderr, "explore_add: needs a GPU: %s\n", sl_last_error());
        return 1;
    }
    const sl_op_desc *op = &sl_op_add;
    config cfgs[64];
    int nc = 0;
    for (int i = 0; i < op->nvariants; i++) { /* the peer first: it is the ratio's denominator */
        const sl_variant *v = &op->variants[i];
        if (v->backend == SL_BACKEND_CUDA && v->kind == SL_KIND_PEER)
            cfgs[nc++] = (config){v->name, v, 0};
    }
    for (int i = 0; i < op->nvariants; i++) {
        const sl_variant *v = &op->variants[i];
        if (v->backend == SL_BACKEND_CUDA && !v->fixed_out && (v->kind == SL_KIND_RUNG || v->kind == SL_KIND_API) &&
            v->access_bytes == 16)
            cfgs[nc++] = (config){v->name, v, 0};
    }
    for (int i = 0; i < explore_count() && nc < 64; i++)
        cfgs[nc++] = (config){explore_name(i), NULL, i};
    const sl_variant *add_sem = sl_variant_api(op, SL_BACKEND_CUDA); /* add's semantics for the check */
    const sl_shape one = sl_shape_1d(1);
    const sl_traffic per = sl_op_traffic(op, &one, SL_F32, SL_F32);
    const double bpe = per.rd_bytes + per.wr_bytes; /* bytes per element, from the descriptor */

    printf("explore_add on %s: median of %d rounds x %d trials, interleaved; GB/s counts %.0f B/element\n",
           ctx->info.name, rounds, trials, bpe);
    printf("%-6s %-10s %9s %9s %7s\n", "n", "config", "GB/s", "sd", "xCUB");
    for (int s = 0; s < nsizes; s++) {
        size_t n = sizes[s];
        const sl_shape shape = sl_shape_1d(n);
        const sl_variant *vs[1] = {add_sem};
        sl_run_config rc = {.op = op, .dtype = SL_F32, .variants = vs, .nvariants = 1};
        if (sl_harness_check_fit(ctx, &rc, &shape) != SL_OK) {
            fprintf(stderr, "explore_add: %s\n", sl_last_error());
            return 2;
        }
        void *a, *b, *c;
        ctx->ops->alloc(ctx, n * 4, &a);
        ctx->ops->alloc(ctx, n * 4, &b);
        ctx->ops->alloc(ctx, n * 4, &c);
        ctx->ops->fill_random(ctx, SL_F32, a, n, 1000 + s);
        ctx->ops->fill_random(ctx, SL_F32, b, n, 2000 + s);
        sl_args x = {.op = op, .shape = shape, .n = n, .buf = {a, b, c}, .stream = ctx->stream, .dtype = SL_F32,
                     .out_dtype = SL_F32};
        const uint64_t seeds[] = {1000 + s, 2000 + s, 0}, first[] = {0, 0, 0};
        double *t = calloc((size_t)nc * rounds * trials, sizeof *t);
        for (int i = 0; i < nc; i++) {
            sl_check chk;
            ctx->ops->poison(ctx, c, n * 4);
            sl_status st = launch(&cfgs[i], &x);
            if (st == SL_OK)
                st = ctx->ops->sync(ctx);
            if (st == SL_OK)
                st = sl_verify_launch(ctx, op, add_sem, SL_F32, NULL, n, x.buf, seeds, first, &chk);
            if (st != SL_OK || chk.mismatches) {
                fprintf(stderr, "explore_add: %s n=%zu: %s %llu mismatches\n", cfgs[i].name, n, sl_last_error(),
                        (unsigned long long)chk.mismatches);
                return 1;
            }
            for (int w = 0; w < 3; w++)
                launch(&cfgs[i], &x);
        }
        for (int r = 0; r < rounds; r++)
            for (int i = 0; i < nc; i++)
                for (int j = 0; j < trials; j++) {
                    ctx->ops->timer_start(ctx);
                    launch(&cfgs[i], &x);
                    if (ctx->ops->timer_stop(ctx, &t[((size_t)i * rounds + r) * trials + j]) != SL_OK) {
                        fprintf(stderr, "explore_add: %s\n", sl_last_error());
                        return 1;
                    }
                }
        double cub_gbs = 0;
        char n_s[32];
        sl_format_count(n, n_s, sizeof n_s);
        for (int i = 0; i < nc; i++) {
            sl_stats st;
            size_t m = (size_t)rounds * trials;
            double *g = malloc(m * sizeof *g);
            for (size_t j = 0; j < m; j++)
                g[j] = bpe * (double)n / (t[(size_t)i * m + j] * 1e6);
            sl_stats_compute(g, m, &st);
            if (i == 0)
                cub_gbs = st.median;
            printf("%-6s %-10s %9.1f %9.1f %7.3f\n", n_s, cfgs[i].name, st.median, st.sd, st.median / cub_gbs);
            free(g);
        }
        fflush(stdout);
        free(t);
        ctx->ops->free(ctx, a);
        ctx->ops->free(ctx, b);
        ctx->ops->free(ctx, c);
    }
    sl_ctx_destroy(ctx);
    return 0;
}
