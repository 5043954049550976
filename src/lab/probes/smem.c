/*
 * smem.c - the shared-memory bandwidth probe (issue 11; seed 004 "Volta
 * Shared Memory": 32 banks x 4 B per clock per SM = 128 B/clk/SM): every
 * lane of 32 warps per SM loads (or stores) consecutive 4-, 8- and 16-byte
 * words, conflict-free (stride 1), and the SM clock counts the cycles per
 * warp access (ops->smem). Bytes per clock per SM = 32 lanes x word bytes
 * / cycles; the best over the word sizes goes into the profile, where the
 * model's T_SMEM reads it (hw.c, model.c). GB/s: the bytes over the
 * event-timed launch (launch overhead included).
 *
 * Checks: every block's load checksum and stored words (ops->smem), and
 * the rate itself: above 2 x banks x 4 B per clock the accesses cannot all
 * have happened, and below 1/4 of that the kernel is not measuring the
 * shared-memory pipe. In check-only mode (probe_check_only: under
 * compute-sanitizer) the kernels run light and only the data checks count;
 * the profile keeps no rate.
 */
#include "probe_util.h"

sl_status probe_smem(env *e)
{
    static const sl_col cols[] = {{"word", 6, 'r'}, {"op", 6, 'l'}, {"cycles/access", 14, 'r'},
                                  {"B/clk/SM", 10, 'r'}, {"GB/s", 10, 'r'}};
    static const int words[] = {4, 8, 16};
    probe_sweep sw;
    probe_sweep_open(&sw, e, "smem");
    probe_table(&sw, cols, 5);
    const double peak_clk = 32.0 * 4.0; /* banks x bytes per bank per clock (seed 004) */
    double best = -1, best_gbs = -1;
    for (int w = 0; w < 3; w++) {
        for (int store = 0; store < 2; store++) {
            probe_progress(e, "smem: %d-byte %s", words[w], store ? "stores" : "loads");
            double cyc = 0, ms = 0, bytes = 0, bestc = -1, bestms = 0;
            uint64_t bad = 0;
            for (int t = 0; t < (e->cfg->quick ? 2 : 3); t++) { /* the first warms up the clocks */
                sl_status st = e->ops->smem(e->ctx, words[w], 1, store, probe_check_only(e), &cyc, &ms, &bytes, &bad);
                if (st != SL_OK)
                    return st;
                if (bad)
                    return sl_fail(SL_ERR_VERIFY, "smem: %d-byte %s: %llu blocks failed their check", words[w],
                                   store ? "stores" : "loads", (unsigned long long)bad);
                if (t > 0 && (bestc < 0 || cyc < bestc)) {
                    bestc = cyc;
                    bestms = ms;
                }
            }
            const double bpc = 32.0 * words[w] / bestc, gbs = probe_gbs(bytes, bestms);
            if (!probe_check_only(e) && !(bpc <= 2 * peak_clk && bpc >= peak_clk / 4))
                return sl_fail(SL_ERR_VERIFY,
                               "smem: %d-byte %s measure %.1f B/clk/SM, outside %.0f..%.0f: not the shared-memory pipe",
                               words[w], store ? "stores" : "loads", bpc, peak_clk / 4, 2 * peak_clk);
            probe_cell(&sw, "%d B", words[w]);
            probe_cell(&sw, "%s", store ? "store" : "load");
            probe_num(&sw, bestc, 3, "");
            probe_num(&sw, bpc, 1, "");
            probe_num(&sw, gbs, 0, "");
            probe_row(&sw);
            cJSON *p = probe_point(&sw);
            cJSON_AddNumberToObject(p, "word_bytes", words[w]);
            cJSON_AddBoolToObject(p, "store", store);
            cJSON_AddNumberToObject(p, "cycles_per_access", bestc);
            cJSON_AddNumberToObject(p, "bytes_per_clk_per_sm", bpc);
            cJSON_AddNumberToObject(p, "gbs", gbs);
            if (bpc > best)
                best = bpc;
            if (gbs > best_gbs)
                best_gbs = gbs;
        }
    }
    probe_progress_done(e);
    if (probe_check_only(e)) {
        probe_say(e, "check-only mode: every check passed; rates not measured");
        return SL_OK;
    }
    e->prof->smem_bytes_per_clk_sm = best;
    e->prof->smem_gbs = best_gbs;
    probe_say(e, "shared-memory bandwidth: %.1f B/clk/SM (seed 004: 128), %.0f GB/s on the chip", best, best_gbs);
    return SL_OK;
}
