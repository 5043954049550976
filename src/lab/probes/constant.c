/*
 * constant.c - the constant-cache probe (issue 11; seed 004 "Constant
 * memory": a warp's constant load is served at once when every lane reads
 * the same address, a broadcast, and serialised over the distinct
 * addresses otherwise). One block of 32 warps per SM; lane l of every warp
 * loads the __constant__ word ((l mod k) + i) mod 256, i = 0, 1, ..., so
 * each warp access touches exactly k distinct addresses (k = 1, 2, 4, 8,
 * 16, 32), all in a 1 KiB table that stays in the constant cache. The SM
 * clock gives cycles per warp access; the prediction is k x the broadcast.
 *
 * Checks: every block's checksum (ops->micro->constant); 32 addresses must
 * cost at least 4 x one (else the kernel does not make divergent constant
 * accesses, e.g. the compiler moved them to another path). Check-only mode
 * (probe_check_only) keeps the checksums only.
 * Profile: constant.broadcast_cycles, constant.divergent32_ratio; points:
 * constant.
 */
#include "probe_util.h"
#include "micro_ops.h"

sl_status probe_const(env *e)
{
    static const sl_col cols[] = {{"distinct addresses k", 20, 'r'}, {"cycles/warp access", 19, 'r'},
                                  {"x broadcast", 11, 'r'},          {"predicted (k x)", 15, 'r'},
                                  {"ns/warp access", 14, 'r'}};
    static const int ks[] = {1, 2, 4, 8, 16, 32};
    const bool light = probe_check_only(e);
    const double ghz = e->ctx->info.sm_clock_khz > 0 ? e->ctx->info.sm_clock_khz / 1e6 : -1;
    probe_sweep sw;
    probe_sweep_open(&sw, e, "constant");
    probe_table(&sw, cols, 5);
    double c1 = -1, c32 = -1;
    for (int i = 0; i < 6; i++) {
        probe_progress(e, "const: %d distinct addresses per warp", ks[i]);
        double best = -1;
        for (int t = 0; t < (light ? 1 : 3); t++) { /* the first warms the clocks up */
            double cyc = 0, ms = 0;
            uint64_t bad = 0;
            sl_status st = e->ops->micro->constant(e->ctx, ks[i], light, &cyc, &ms, &bad);
            if (st != SL_OK)
                return st;
            if (bad)
                return sl_fail(SL_ERR_VERIFY, "const: %d distinct addresses: %llu blocks returned a wrong checksum",
                               ks[i], (unsigned long long)bad);
            if ((t > 0 || light) && (best < 0 || cyc < best))
                best = cyc;
        }
        if (ks[i] == 1)
            c1 = best;
        if (ks[i] == 32)
            c32 = best;
        probe_cell(&sw, "%d", ks[i]);
        probe_num(&sw, best, 2, "");
        probe_num(&sw, c1 > 0 ? best / c1 : -1, 2, "");
        probe_cell(&sw, "%d", ks[i]);
        probe_num(&sw, ghz > 0 ? best / ghz : -1, 2, "");
        probe_row(&sw);
        cJSON *p = probe_point(&sw);
        cJSON_AddNumberToObject(p, "distinct", ks[i]);
        cJSON_AddNumberToObject(p, "cycles_per_access", best);
        cJSON_AddNumberToObject(p, "ratio", c1 > 0 ? best / c1 : -1);
    }
    probe_progress_done(e);
    if (light) {
        probe_say(e, "check-only mode: every checksum passed; timings not checked or kept");
        return SL_OK;
    }
    if (!(c1 > 0 && c32 >= 4 * c1))
        return sl_fail(SL_ERR_VERIFY,
                       "const: 32 distinct addresses cost %.2f cycles per warp access, %.1f x a broadcast (%.2f): "
                       "under 4 x, the kernel does not make divergent constant accesses",
                       c32, c1 > 0 ? c32 / c1 : 0.0, c1);
    e->prof->const_broadcast_cycles = c1;
    e->prof->const_divergent32_ratio = c32 / c1;
    probe_say(e, "constant cache: broadcast %.2f cycles per warp access; 32 distinct addresses %.1f x that (seed 004: "
                 "serialised, 32 x)",
              c1, c32 / c1);
    return SL_OK;
}
