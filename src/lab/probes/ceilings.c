/*
 * ceilings.c - the ceilings probe: the best GB/s of copy (the backend's
 * memcpy and an SM copy kernel), read-only, write-only and add (sl_add, and
 * one plain kernel with and without demoted loads), over
 * working sets from 4 x L2 (so that DRAM, not L2, serves them) to 4 GiB.
 * The model reads these in place of the datasheet peak.
 */
#include "probe_util.h"

#include "sizes.h"

sl_status probe_ceilings(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t l2 = probe_l2_or_default(e);
    const size_t max_ws = probe_max_working_set(e, 0.45);
    size_t ws_list[16];
    int nws = 0;
    if (max_ws < MIB) {
        return sl_fail(SL_ERR_NO_MEMORY, "ceilings: less than 1 MiB of memory free");
    } else if (e->cfg->reprobe) {
        /* run --reprobe: one working set, 32 x L2 (1.9 GiB on the H200).
         * At 8 x L2 (the first version) it took 0.13 s on the H200 but read
         * 4178 GB/s where two-stream reads reach 4558 on the same GPU: the
         * 0.1 ms kernels pay their launch ramp (bench/results/
         * h200-model-2026-11-23.md). 32 x L2 is the first size past that;
         * not yet measured on the device (expected about 0.5 s). */
        ws_list[nws++] = 32 * l2 < max_ws ? 32 * l2 : max_ws;
    } else if (e->cfg->quick) {
        ws_list[nws++] = 16 * MIB < max_ws ? 16 * MIB : max_ws;
        ws_list[nws++] = 64 * MIB < max_ws ? 64 * MIB : max_ws;
    } else {
        for (size_t ws = 4 * l2; ws <= max_ws && nws < 16; ws *= 2)
            ws_list[nws++] = ws;
        if (nws == 0)
            ws_list[nws++] = max_ws;
    }
    size_t maxb = ws_list[nws - 1];
    void *A = NULL, *B = NULL, *C = NULL;
    uint32_t *sum = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, maxb, &A)) != SL_OK || (st = ctx->ops->alloc(ctx, maxb / 2, &B)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, maxb / 3 + 64, &C)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, SL_PROBE_SUM_WORDS * sizeof *sum, (void **)&sum)) != SL_OK)
        goto done;

    enum { K_MEMCPY, K_SMCOPY, K_READ, K_WRITE, K_ADD, K_ADD_PLAIN, K_ADD_DEMOTED, NK };
    static const char *names[NK] = {"copy (memcpy)", "copy (SM kernel)", "read-only", "write-only",
                                    "add (sl_add)", "add (plain loads)", "add (ld.global.lu loads)"};
    static const char *keys[NK] = {"memcpy", "sm_copy", "read", "write", "add", "add_plain", "add_demoted"};
    double best[NK] = {0}, g[NK][16] = {{0}};
    const uint64_t sa = 0xce11a, sb = 0xce11b;
    probe_sweep sw;
    probe_sweep_open(&sw, e, "ceilings");
    for (int w = 0; w < nws; w++) {
        size_t ws = ws_list[w];
        char ws_s[32];
        sl_format_bytes((double)ws, ws_s, sizeof ws_s);
        probe_progress(e, "ceilings: %s", ws_s);
        rw_job j;
        double ms;
        /* copies: ws/2 bytes in, ws/2 out */
        size_t cw = ws / 2 / 4 / 4 * 4;
        if ((st = ctx->ops->fill_random(ctx, SL_F32, A, cw, sa)) != SL_OK)
            goto done;
        /* A backend without a memcpy ceiling (or an add entry, below)
         * times nothing, and its row stays out of the table. */
        j = (rw_job){.dst = B, .src = A, .words = cw};
        ctx->ops->poison(ctx, B, cw * 4);
        if ((st = probe_time_job(e, probe_job_memcpy, &j, 2, e->cfg->trials, &ms)) != SL_OK ||
            (j.have && (st = probe_check_mismatches(e, "memcpy ceiling", B, 1, A, 1, 0, cw, 0)) != SL_OK))
            goto done;
        if (j.have)
            g[K_MEMCPY][w] = probe_gbs(2.0 * cw * 4, ms);
        j = (rw_job){.dst = B, .src = A, .words = cw};
        ctx->ops->poison(ctx, B, cw * 4);
        if ((st = probe_time_job(e, probe_job_copy, &j, 2, e->cfg->trials, &ms)) != SL_OK ||
            (st = probe_check_mismatches(e, "SM copy ceiling", B, 1, A, 1, 0, cw, 0)) != SL_OK)
            goto done;
        g[K_SMCOPY][w] = probe_gbs(2.0 * cw * 4, ms);
        /* read: ws bytes; the best of 1 and 2 float4 per thread */
        size_t rw = ws / 4 / 16 * 16;
        if ((st = ctx->ops->fill_random(ctx, SL_F32, A, rw, sa)) != SL_OK)
            goto done;
        uint32_t want = probe_expected_sum(sa, rw);
        for (int ilp = 1; ilp <= 2; ilp++) {
            j = (rw_job){.src = A, .words = rw, .vec = 4, .ilp = ilp, .passes = 1, .sum = sum};
            if ((st = probe_timed_read(e, &j, 2, e->cfg->trials, want, "read ceiling", &ms)) != SL_OK)
                goto done;
            if (probe_gbs((double)rw * 4, ms) > g[K_READ][w])
                g[K_READ][w] = probe_gbs((double)rw * 4, ms);
        }
        /* add: a, b in, c out, ws/3 each */
        size_t aw = ws / 3 / 4 / 4 * 4;
        if ((st = ctx->ops->fill_random(ctx, SL_F32, A, aw, sa)) != SL_OK ||
            (st = ctx->ops->fill_random(ctx, SL_F32, B, aw, sb)) != SL_OK)
            goto done;
        ctx->ops->poison(ctx, C, aw * 4);
        j = (rw_job){.dst = C, .src = A, .b = B, .words = aw};
        uint64_t bad = 0;
        if ((st = probe_time_job(e, probe_job_add, &j, 2, e->cfg->trials, &ms)) != SL_OK ||
            (j.have && (st = probe_add_check(e, C, aw, sa, sb, &bad)) != SL_OK) ||
            (st = probe_check_zero(bad, "add ceiling")) != SL_OK)
            goto done;
        if (j.have)
            g[K_ADD][w] = probe_gbs(3.0 * aw * 4, ms);
        /* the same add as one plain kernel, then with its loads demoted
         * (ld.global.lu) and its stores not: the model's demoted-load mix
         * factor (docs/model.md, "Demoted loads") is plain / demoted. Their
         * output goes to A's second third (free: a is its first) and is
         * compared bit for bit, on the device, with sl_add's c, checked
         * above against the CPU reference (a host check of each would
         * double `run --reprobe`'s second); without sl_add, with the
         * reference itself. */
        const bool have_add = j.have;
        void *D = (char *)A + aw * 4;
        for (int k = K_ADD_PLAIN; e->ops->add && k <= K_ADD_DEMOTED; k++) {
            const char *what = k == K_ADD_PLAIN ? "add (plain loads)" : "add (demoted loads)";
            ctx->ops->poison(ctx, D, aw * 4);
            j = (rw_job){.dst = D, .src = A, .b = B, .words = aw, .demote = k == K_ADD_DEMOTED};
            if ((st = probe_time_job(e, probe_job_add_hinted, &j, 2, e->cfg->trials, &ms)) != SL_OK)
                goto done;
            if (have_add)
                st = probe_check_mismatches(e, what, D, 1, C, 1, 0, aw, 0);
            else if ((st = probe_add_check(e, D, aw, sa, sb, &bad)) == SL_OK)
                st = probe_check_zero(bad, what);
            if (st != SL_OK)
                goto done;
            g[k][w] = probe_gbs(3.0 * aw * 4, ms);
        }
        /* write: ws bytes (overwrites A, refilled at the next size) */
        j = (rw_job){.dst = A, .words = rw, .stride = 1};
        if ((st = probe_time_job(e, probe_job_write, &j, 2, e->cfg->trials, &ms)) != SL_OK ||
            (st = probe_check_mismatches(e, "write ceiling", A, 1, NULL, 0, 0, rw, 0x3f800000u)) != SL_OK)
            goto done;
        g[K_WRITE][w] = probe_gbs((double)rw * 4, ms);
        cJSON *p = probe_point(&sw);
        cJSON_AddNumberToObject(p, "working_set_bytes", (double)ws);
        for (int k = 0; k < NK; k++) {
            if (g[k][w] > 0)
                cJSON_AddNumberToObject(p, keys[k], g[k][w]);
            if (g[k][w] > best[k])
                best[k] = g[k][w];
        }
    }
    probe_progress_done(e);

    /* a row per kernel, a column per working set */
    char heads[16][32];
    sl_col cols[1 + 16 + 2];
    int nc = 0;
    cols[nc++] = (sl_col){"GB/s (read+write)", 18, 'l'};
    for (int w = 0; w < nws; w++) {
        sl_format_bytes((double)ws_list[w], heads[w], sizeof heads[w]);
        cols[nc++] = (sl_col){heads[w], 10, 'r'};
    }
    cols[nc++] = (sl_col){"best", 10, 'r'};
    cols[nc++] = (sl_col){"%peak", 7, 'r'};
    probe_table(&sw, cols, nc);
    for (int k = 0; k < NK; k++) {
        if (best[k] <= 0)
            continue;
        probe_cell(&sw, "%s", names[k]);
        for (int w = 0; w < nws; w++)
            probe_cell(&sw, "%.1f", g[k][w]);
        probe_cell(&sw, "%.1f", best[k]);
        probe_num(&sw, ctx->info.peak_gbs > 0 ? 100.0 * best[k] / ctx->info.peak_gbs : -1, 1, "");
        probe_row(&sw);
    }
    if (e->cfg->quick)
        probe_say(e, "(quick: small working sets, inside the caches; not ceilings)");
    e->prof->copy_memcpy_gbs = best[K_MEMCPY] > 0 ? best[K_MEMCPY] : -1;
    e->prof->copy_sm_gbs = best[K_SMCOPY];
    e->prof->read_gbs = best[K_READ];
    e->prof->write_gbs = best[K_WRITE];
    e->prof->add_gbs = best[K_ADD] > 0 ? best[K_ADD] : -1;
    e->prof->add_plain_gbs = best[K_ADD_PLAIN] > 0 ? best[K_ADD_PLAIN] : -1;
    e->prof->add_demoted_gbs = best[K_ADD_DEMOTED] > 0 ? best[K_ADD_DEMOTED] : -1;
done:
    probe_progress_done(e);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, B);
    ctx->ops->free(ctx, C);
    ctx->ops->free(ctx, sum);
    return st;
}
