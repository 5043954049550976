/*
 * stride.c - the stride probe (seed 002, strided copy; seed 004, access
 * patterns): dst[i] = src[i x stride] for strides 1 to 128. The reads
 * touch whole 32-byte sectors, so the bandwidth that counts (useful) falls
 * with the sector efficiency; the bandwidth in sectors shows what costs
 * beyond that (DRAM's access granularity, a line per element, TLB reach).
 */
#include "probe_util.h"

#include "probe_math.h"

sl_status probe_stride(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t count = e->cfg->quick ? (1u << 18) : (8u << 20);
    const size_t max_stride = 128;
    void *A = NULL, *B = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, count * max_stride * 4, &A)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, count * 4, &B)) != SL_OK ||
        (st = ctx->ops->fill_random(ctx, SL_F32, A, count * max_stride, 0x57)) != SL_OK)
        goto done;
    static const sl_col cols[] = {{"stride", 7, 'r'}, {"useful GB/s", 11, 'r'}, {"sector eff.", 11, 'r'},
                                  {"sector GB/s", 14, 'r'}};
    probe_sweep sw;
    probe_sweep_open(&sw, e, "stride");
    probe_table(&sw, cols, 4);
    for (size_t s = 1; s <= max_stride; s++) {
        if (e->cfg->quick && (s & (s - 1)))
            continue;
        probe_progress(e, "strided copy: %zu", s);
        rw_job j = {.dst = B, .src = A, .words = count, .stride = s};
        double ms;
        if ((st = probe_time_job(e, probe_job_copy_strided, &j, 1, e->cfg->trials, &ms)) != SL_OK ||
            (st = probe_check_mismatches(e, "strided copy", B, 1, A, s, 0, count, 0)) != SL_OK)
            goto done;
        double eff = sl_sector_efficiency(s, 4);
        double useful = probe_gbs(2.0 * count * 4, ms);
        /* read side in whole sectors, write side dense */
        double sector = probe_gbs((double)count * 4 / eff + (double)count * 4, ms);
        if (s <= 16 || (s & (s - 1)) == 0 || s % 32 == 0) {
            probe_cell(&sw, "%zu", s);
            probe_cell(&sw, "%.1f", useful);
            probe_cell(&sw, "%.3f", eff);
            probe_cell(&sw, "%.1f", sector);
            probe_row(&sw);
        }
        cJSON *p = probe_point(&sw);
        cJSON_AddNumberToObject(p, "stride", (double)s);
        cJSON_AddNumberToObject(p, "useful_gbs", useful);
        cJSON_AddNumberToObject(p, "sector_efficiency", eff);
        cJSON_AddNumberToObject(p, "sector_gbs", sector);
    }
    probe_say(e, "useful = bytes the copy needs; sector = bytes in the 32-byte sectors it must touch");
done:
    probe_progress_done(e);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, B);
    return st;
}
