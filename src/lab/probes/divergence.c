/*
 * divergence.c - the warp-divergence probe (issue 11; seed 004 "Control
 * Flow", about lines 115-174: different warps may run different code at no
 * cost; when the threads of one warp take different paths the warp runs
 * every path with the others masked; "New in Volta": each thread has its
 * own program counter, but a warp still issues one path at a time).
 *
 * Every thread does the same work, 2^14 dependent FFMAs, on one of up to 8
 * code paths (distinct loops with constants of their own, so the compiler
 * cannot merge them into one predicated loop). 2048 threads per SM. Cases:
 *   2 paths switching every g threads, g = 1 .. 128: g < 32 splits every
 *     warp (intra-warp), g >= 32 gives whole warps one path (inter-warp);
 *   k = 1, 2, 4, 8 paths chosen by lane (intra-warp) and by warp (inter).
 * Time: the minimum of 10 event-timed launches after a warm-up. Prediction
 * (the seed): intra-warp k paths cost k x the uniform case, inter-warp 1 x.
 *
 * Checks (ops->micro->diverge): 512 sampled threads of every launch
 * (every lane of the first and last warps among them) against the host's
 * fmaf chain of their own path, bit for bit; the uniform case at most the
 * FP32 issue rate (one FFMA per lane per clock: 128 lanes x SMs x clock),
 * else the work was not done. Check-only mode (probe_check_only) keeps the
 * result check only. Profile: divergence.{intra2,inter2,intra8,inter8}_ratio;
 * points: divergence (the g sweep, then the k sweep).
 *
 * This probe replaces bench/divergence.cu, the standalone study it grew from.
 */
#include "micro_ops.h"
#include "probe_util.h"

static sl_status timed(env *e, int mode, int g, double *ms, double *work)
{
    const bool light = probe_check_only(e);
    double threads = 0, iters = 0;
    uint64_t bad = 0;
    sl_status st = e->ops->micro->diverge(e->ctx, mode, g, e->cfg->quick ? 3 : 10, light, ms, &threads, &iters, &bad);
    if (st != SL_OK)
        return st;
    if (bad)
        return sl_fail(SL_ERR_VERIFY,
                       "divergence: mode %d, g %d: %llu of the sampled threads differ from the host's FFMA chain of "
                       "their path",
                       mode, g, (unsigned long long)bad);
    *work = threads * iters;
    return SL_OK;
}

static void point(probe_sweep *sw, const char *kind, int g, double ms, double ratio, double pred)
{
    cJSON *p = probe_point(sw);
    cJSON_AddStringToObject(p, "case", kind);
    cJSON_AddNumberToObject(p, "g", g);
    cJSON_AddNumberToObject(p, "ms", ms);
    cJSON_AddNumberToObject(p, "ratio", ratio);
    cJSON_AddNumberToObject(p, "predicted", pred);
}

sl_status probe_divergence(env *e)
{
    const bool light = probe_check_only(e);
    double uni = 0, work = 0;
    probe_progress(e, "divergence: uniform");
    sl_status st = timed(e, 1, 1, &uni, &work);
    if (st != SL_OK)
        return st;
    const double ghz = e->ctx->info.sm_clock_khz > 0 ? e->ctx->info.sm_clock_khz / 1e6 : -1;
    const double peak = 128.0 * (e->ctx->info.sm_count > 0 ? e->ctx->info.sm_count : 1) * ghz * 1e9; /* FFMA/s */
    const double rate = work / (uni * 1e-3);
    if (!light && ghz > 0 && rate > 1.05 * peak)
        return sl_fail(SL_ERR_VERIFY,
                       "divergence: the uniform case ran %.2f T FFMA/s, over the FP32 issue rate %.2f T: the work "
                       "was not all done",
                       rate / 1e12, peak / 1e12);
    probe_say(e, "uniform: %.4f ms for %.0f M dependent FFMAs (%.2f T FFMA/s)", uni, work / 1e6, rate / 1e12);

    static const sl_col gcols[] = {{"2 paths, switch every g threads", 31, 'l'}, {"g", 4, 'r'},
                                   {"ms", 8, 'r'},  {"x uniform", 9, 'r'},  {"predicted", 9, 'r'}};
    probe_sweep sw;
    probe_sweep_open(&sw, e, "divergence");
    probe_table(&sw, gcols, 5);
    static const int gs[] = {1, 2, 4, 8, 16, 32, 64, 128};
    double intra2 = -1, inter2 = -1, intra8 = -1, inter8 = -1;
    for (int i = 0; i < 8; i++) {
        probe_progress(e, "divergence: 2 paths, g = %d", gs[i]);
        double ms = 0, w = 0;
        if ((st = timed(e, 0, gs[i], &ms, &w)) != SL_OK)
            return st;
        const double pred = gs[i] < 32 ? 2.0 : 1.0;
        probe_cell(&sw, "%s", gs[i] < 32 ? "intra-warp" : "inter-warp");
        probe_cell(&sw, "%d", gs[i]);
        probe_num(&sw, ms, 4, "");
        probe_num(&sw, ms / uni, 2, "");
        probe_num(&sw, pred, 1, "");
        probe_row(&sw);
        point(&sw, "two_paths", gs[i], ms, ms / uni, pred);
        if (gs[i] == 1)
            intra2 = ms / uni;
        if (gs[i] == 32)
            inter2 = ms / uni;
    }
    static const sl_col kcols[] = {{"k paths", 7, 'r'},        {"by lane ms", 10, 'r'}, {"x uniform", 9, 'r'},
                                   {"by warp ms", 10, 'r'}, {"x uniform", 9, 'r'},  {"predicted lane/warp", 19, 'r'}};
    probe_table(&sw, kcols, 6);
    static const int ks[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) {
        probe_progress(e, "divergence: %d paths", ks[i]);
        double ml = 0, mw = 0, w = 0;
        if ((st = timed(e, 1, ks[i], &ml, &w)) != SL_OK || (st = timed(e, 2, ks[i], &mw, &w)) != SL_OK)
            return st;
        probe_cell(&sw, "%d", ks[i]);
        probe_num(&sw, ml, 4, "");
        probe_num(&sw, ml / uni, 2, "");
        probe_num(&sw, mw, 4, "");
        probe_num(&sw, mw / uni, 2, "");
        probe_cell(&sw, "%d / 1", ks[i]);
        probe_row(&sw);
        point(&sw, "paths_by_lane", ks[i], ml, ml / uni, ks[i]);
        point(&sw, "paths_by_warp", ks[i], mw, mw / uni, 1);
        if (ks[i] == 8) {
            intra8 = ml / uni;
            inter8 = mw / uni;
        }
    }
    probe_progress_done(e);
    if (light) {
        probe_say(e, "check-only mode: every sampled result matched; timings not kept");
        return SL_OK;
    }
    e->prof->div_intra2_ratio = intra2;
    e->prof->div_inter2_ratio = inter2;
    e->prof->div_intra8_ratio = intra8;
    e->prof->div_inter8_ratio = inter8;
    probe_say(e,
              "2 paths inside every warp: %.2f x uniform, between warps: %.2f x; 8 paths by lane %.2f x, by warp "
              "%.2f x (seed 004: intra-warp paths add up, inter-warp ones are free)",
              intra2, inter2, intra8, inter8);
    return SL_OK;
}
