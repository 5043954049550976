/*
 * offset.c - the offset probe (seed 002, misaligned copy): a 4-byte copy
 * reading from element offsets 0 to 128. An offset that is not a multiple
 * of 8 elements makes each warp's 128 bytes straddle five 32-byte sectors
 * instead of four.
 */
#include "probe_util.h"

#include "probe_math.h"

/* Quick mode measures the sector-aligned offsets and the edges around them. */
static int offset_measured(const env *e, int off)
{
    return !e->cfg->quick || off % 8 == 0 || off == 1 || off == 31 || off == 33;
}

sl_status probe_offset(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t count = e->cfg->quick ? (1u << 20) : (64u << 20);
    const int max_off = 128;
    void *A = NULL, *B = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, (count + max_off) * 4, &A)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, count * 4, &B)) != SL_OK ||
        (st = ctx->ops->fill_random(ctx, SL_F32, A, count + max_off, 0x0ff)) != SL_OK)
        goto done;
    double g[129];
    size_t sectors[129];
    probe_sweep sw;
    probe_sweep_open(&sw, e, "offset");
    for (int off = 0; off <= max_off; off++) {
        if (!offset_measured(e, off))
            continue;
        probe_progress(e, "offset copy: %d", off);
        rw_job j = {.dst = B, .src = A, .words = count, .stride = 1, .offset = (size_t)off};
        double ms;
        if ((st = probe_time_job(e, probe_job_copy_strided, &j, 1, e->cfg->trials, &ms)) != SL_OK ||
            (st = probe_check_mismatches(e, "offset copy", B, 1, A, 1, (size_t)off, count, 0)) != SL_OK)
            goto done;
        g[off] = probe_gbs(2.0 * count * 4, ms);
        sectors[off] = sl_sectors_touched((size_t)off * 4, 4, 4, 32);
        cJSON *p = probe_point(&sw);
        cJSON_AddNumberToObject(p, "offset", off);
        cJSON_AddNumberToObject(p, "gbs", g[off]);
        cJSON_AddNumberToObject(p, "read_sectors_per_warp", (double)sectors[off]);
    }
    probe_progress_done(e);
    static const sl_col cols[] = {
        {"offset", 7, 'r'}, {"GB/s", 10, 'r'}, {"vs off 0", 9, 'r'}, {"sectors/warp", 14, 'r'}};
    probe_table(&sw, cols, 4);
    double sum[3] = {0};
    int cnt[3] = {0};
    for (int off = 0; off <= max_off; off++) {
        if (!offset_measured(e, off))
            continue;
        int cls = off % 32 == 0 ? 0 : off % 8 == 0 ? 1 : 2;
        sum[cls] += g[off];
        cnt[cls]++;
        if (off <= 33 || off % 16 == 0) {
            probe_cell(&sw, "%d", off);
            probe_cell(&sw, "%.1f", g[off]);
            probe_cell(&sw, "%.3f", g[off] / g[0]);
            probe_cell(&sw, "%zu", sectors[off]);
            probe_row(&sw);
        }
    }
    probe_say(e, "mean GB/s: offset %% 32 == 0: %.1f; %% 8 == 0 (sector-aligned): %.1f; other: %.1f",
              cnt[0] ? sum[0] / cnt[0] : 0, cnt[1] ? sum[1] / cnt[1] : 0, cnt[2] ? sum[2] / cnt[2] : 0);
done:
    probe_progress_done(e);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, B);
    return st;
}
