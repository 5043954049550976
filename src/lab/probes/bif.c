/*
 * bif.c - the bytes-in-flight probe: read bandwidth against the bytes
 * each SM keeps outstanding (resident warps x independent loads x load
 * width). By Little's law bandwidth = bytes in flight / latency, so the
 * curve rises until the memory system is saturated; its knee is what a
 * kernel must keep in flight to reach the ceiling.
 */
#include "probe_util.h"

#include "probe_math.h"
#include "sizes.h"
#include "stats.h"

sl_status probe_bif(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t l2 = probe_l2_or_default(e);
    /* 1 GiB (or 16 x L2): a launch's own overhead stays near 2% of the
     * fastest point's time */
    size_t bytes = e->cfg->quick ? 64 * MIB : (16 * l2 > GIB ? 16 * l2 : GIB);
    size_t cap = probe_max_working_set(e, 0.25);
    if (bytes > cap)
        bytes = cap;
    const size_t words = bytes / 4 / 16 * 16;
    static const int warps_full[] = {1, 2, 4, 8, 16, 32, 48, 64}, ilps_full[] = {1, 2, 4, 8}, vecs_full[] = {1, 4};
    static const int warps_quick[] = {1, 8, 64}, ilps_quick[] = {1, 4}, vecs_quick[] = {4};
    const int *W = e->cfg->quick ? warps_quick : warps_full, *I = e->cfg->quick ? ilps_quick : ilps_full,
              *V = e->cfg->quick ? vecs_quick : vecs_full;
    int nW = e->cfg->quick ? 3 : 8, nI = e->cfg->quick ? 2 : 4, nV = e->cfg->quick ? 1 : 2;
    double x[128], y[128];
    int wu[128], il[128], ve[128], n = 0;
    void *A = NULL;
    uint32_t *sum = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, words * 4, &A)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, SL_PROBE_SUM_WORDS * sizeof *sum, (void **)&sum)) != SL_OK ||
        (st = ctx->ops->fill_random(ctx, SL_F32, A, words, 0xb1f)) != SL_OK)
        goto done;
    uint32_t want = probe_expected_sum(0xb1f, words);
    for (int a = 0; a < nW; a++)
        for (int b = 0; b < nI; b++)
            for (int c = 0; c < nV; c++) {
                /* Each block must bring >= 2 KiB, else the block scheduler
                 * (~1 block per 80 ns per SM on the H200), not memory, sets
                 * the pace; see sl_cuda_probe_read. */
                int block = W[a] < 8 ? 32 * W[a] : 256;
                if ((size_t)block * I[b] * V[c] * 4 < 2048 && W[a] >= 8)
                    continue;
                probe_progress(e, "bytes in flight: %d warps/SM, ILP %d, %d B loads", W[a], I[b], 4 * V[c]);
                rw_job j = {.src = A, .words = words, .vec = V[c], .ilp = I[b], .warps = W[a], .passes = 1,
                            .sum = sum};
                double ms;
                if ((st = probe_timed_read(e, &j, 1, e->cfg->quick ? 2 : 3, want, "bytes in flight", &ms)) != SL_OK)
                    goto done;
                wu[n] = j.warps_used;
                il[n] = I[b];
                ve[n] = 4 * V[c];
                x[n] = (double)j.warps_used * 32 * I[b] * 4 * V[c];
                y[n] = probe_gbs((double)words * 4, ms);
                n++;
            }
    probe_progress_done(e);
    {
        double ymax = 0;
        for (int i = 0; i < n; i++)
            ymax = y[i] > ymax ? y[i] : ymax;
        double ceiling = e->prof->copy_memcpy_gbs > e->prof->copy_sm_gbs ? e->prof->copy_memcpy_gbs
                                                                          : e->prof->copy_sm_gbs;
        const char *ref = "the copy ceiling";
        if (ceiling <= 0) {
            ceiling = ymax;
            ref = "the best read in this sweep (run with the ceilings probe for the copy ceiling)";
        }
        int knee = sl_knee(x, y, n, 0.9 * ceiling);
        /* sort by bytes in flight for the table */
        int order[128];
        for (int i = 0; i < n; i++)
            order[i] = i;
        for (int i = 1; i < n; i++)
            for (int k = i; k > 0 && x[order[k - 1]] > x[order[k]]; k--) {
                int t = order[k];
                order[k] = order[k - 1];
                order[k - 1] = t;
            }
        static const sl_col cols[] = {{"warps/SM", 9, 'r'},      {"ILP", 4, 'r'},  {"B/load", 7, 'r'},
                                      {"in flight/SM", 14, 'r'}, {"GB/s", 9, 'r'}, {"%ceiling", 8, 'r'},
                                      {"", 0, 'l'}};
        probe_sweep sw;
        probe_sweep_open(&sw, e, "bytes_in_flight");
        probe_table(&sw, cols, 7);
        e->prof->bif_n = 0; /* the new curve replaces the old one, now that it is complete */
        double lat_sum[128];
        int nl = 0;
        for (int r = 0; r < n; r++) {
            int i = order[r];
            char b_s[32];
            sl_format_bytes(x[i], b_s, sizeof b_s);
            probe_cell(&sw, "%d", wu[i]);
            probe_cell(&sw, "%d", il[i]);
            probe_cell(&sw, "%d", ve[i]);
            probe_cell(&sw, "%s", b_s);
            probe_cell(&sw, "%.1f", y[i]);
            probe_cell(&sw, "%.1f", 100.0 * y[i] / ceiling);
            probe_cell(&sw, "%s", i == knee ? "<- knee" : "");
            probe_row(&sw);
            if (y[i] < 0.5 * ymax)
                lat_sum[nl++] = sl_littles_latency_ns(x[i] * ctx->info.sm_count, y[i]);
            cJSON *p = probe_point(&sw);
            cJSON_AddNumberToObject(p, "warps_per_sm", wu[i]);
            cJSON_AddNumberToObject(p, "ilp", il[i]);
            cJSON_AddNumberToObject(p, "bytes_per_load", ve[i]);
            cJSON_AddNumberToObject(p, "bytes_in_flight_per_sm", x[i]);
            cJSON_AddNumberToObject(p, "gbs", y[i]);
            if (e->prof->bif_n < SL_PROFILE_MAX_BIF) {
                e->prof->bif_x[e->prof->bif_n] = x[i];
                e->prof->bif_y[e->prof->bif_n] = y[i];
                e->prof->bif_n++;
            }
        }
        if (knee >= 0) {
            e->prof->knee_bif_per_sm = x[knee];
            e->prof->knee_gbs = y[knee];
            e->prof->knee_latency_ns = sl_littles_latency_ns(x[knee] * ctx->info.sm_count, y[knee]);
            char b_s[32];
            sl_format_bytes(x[knee], b_s, sizeof b_s);
            probe_say(e,
                      "knee: %s in flight per SM reach 90%% of %s (%.0f GB/s): %.1f GB/s; Little's law latency there "
                      "= %s x %d SMs / %.1f GB/s = %.0f ns",
                      b_s, ref, ceiling, y[knee], b_s, ctx->info.sm_count, y[knee], e->prof->knee_latency_ns);
        } else {
            probe_say(e, "knee: no point reached 90%% of %s (%.0f GB/s)", ref, ceiling);
        }
        if (nl) {
            sl_stats ls;
            sl_stats_compute(lat_sum, (size_t)nl, &ls);
            probe_say(e, "latency-bound points (< 50%% of the best): median Little's-law latency %.0f ns", ls.median);
        }
    }
done:
    probe_progress_done(e);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, sum);
    return st;
}
