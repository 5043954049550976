/*
 * l2.c - the L2 probe: repeated reads past L1 (ld.global.cg) over working
 * sets from L2/16 to 2 x L2; at up to L2/4 every pass is served by L2,
 * whose bandwidth bounds kernels whose data stays resident.
 */
#include "probe_util.h"

#include "sizes.h"

sl_status probe_l2(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t l2 = probe_l2_or_default(e);
    static const double frac_full[] = {1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1.0, 2.0};
    static const double frac_quick[] = {1.0 / 8, 1.0 / 4};
    const double *F = e->cfg->quick ? frac_quick : frac_full;
    int nf = e->cfg->quick ? 2 : 6;
    size_t maxw = (size_t)(2.0 * l2) / 4 / 16 * 16;
    void *A = NULL;
    uint32_t *sum = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, maxw * 4, &A)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, SL_PROBE_SUM_WORDS * sizeof *sum, (void **)&sum)) != SL_OK)
        goto done;
    static const sl_col cols[] = {{"working set", 12, 'r'}, {"passes", 8, 'r'}, {"GB/s", 10, 'r'}, {"", 0, 'l'}};
    probe_sweep sw;
    probe_sweep_open(&sw, e, "l2");
    probe_table(&sw, cols, 4);
    double best = -1;
    for (int f = 0; f < nf; f++) {
        size_t words = (size_t)(F[f] * l2) / 4 / 16 * 16;
        int passes = (int)((e->cfg->quick ? 0.25 : 2.0) * GIB / (words * 4));
        if (passes < 1)
            passes = 1;
        probe_progress(e, "L2: %zu bytes x %d", words * 4, passes);
        if ((st = ctx->ops->fill_random(ctx, SL_F32, A, words, 0x12)) != SL_OK)
            goto done;
        rw_job j = {.src = A, .words = words, .vec = 4, .ilp = 2, .warps = 64, .passes = passes, .cg = 1, .sum = sum};
        double ms;
        uint32_t want = (uint32_t)(probe_expected_sum(0x12, words) * (uint32_t)passes);
        if ((st = probe_timed_read(e, &j, 1, e->cfg->quick ? 2 : 5, want, "L2", &ms)) != SL_OK)
            goto done;
        double g = probe_gbs((double)words * 4 * passes, ms);
        char ws_s[32];
        sl_format_bytes((double)words * 4, ws_s, sizeof ws_s);
        probe_cell(&sw, "%s", ws_s);
        probe_cell(&sw, "%d", passes);
        probe_cell(&sw, "%.1f", g);
        probe_cell(&sw, "%s", F[f] > 0.25 ? "" : "(in L2)");
        probe_row(&sw);
        if (F[f] <= 0.25 && g > best)
            best = g;
        cJSON *p = probe_point(&sw);
        cJSON_AddNumberToObject(p, "working_set_bytes", (double)words * 4);
        cJSON_AddNumberToObject(p, "gbs", g);
    }
    e->prof->l2_read_gbs = best;
    probe_say(e, "L2 read bandwidth (best at <= L2/4): %.1f GB/s", best);
done:
    probe_progress_done(e);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, sum);
    return st;
}
