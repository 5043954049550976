/*
 * bank.c - the bank-conflict sweep (issue 11; seed 004 "Shared Memory Bank
 * Conflicts" and "Bank Conflict Resolution", lines 598-707): lane l of
 * every warp loads (and, in a second kernel, stores) the 4-, 8- or 16-byte
 * word at word index l x stride, strides 1..32, and the SM cycles per warp
 * access (ops->smem) are set beside the wavefronts the seed's rules
 * predict (sl_smem_wavefronts: 4-byte words in one phase of 32 lanes,
 * 8-byte in two of 16, 16-byte in four of 8). One wavefront takes one
 * clock, so measured cycles = predicted wavefronts on a machine that
 * follows the rules.
 *
 * Checks: every kernel's checksum or read-back (ops->smem); a 32-way
 * conflict (4-byte words, stride 32) must cost at least 16 x a
 * conflict-free access, and no case may run faster than half its
 * prediction (either means the kernel did not do the accesses); in
 * check-only mode (compute-sanitizer) only the data checks.
 * Profile: the 32-way / 1-way ratio and the largest relative gap between
 * measured and predicted over the sweep.
 */
#include "probe_math.h"
#include "probe_util.h"

#include <math.h>

sl_status probe_bank(env *e)
{
    static const sl_col cols[] = {{"stride", 6, 'r'},   {"4B pred", 7, 'r'},  {"4B ld", 7, 'r'},
                                  {"4B st", 7, 'r'},    {"8B pred", 7, 'r'},  {"8B ld", 7, 'r'},
                                  {"8B st", 7, 'r'},    {"16B pred", 8, 'r'}, {"16B ld", 7, 'r'},
                                  {"16B st", 7, 'r'}};
    static const int words[] = {4, 8, 16};
    static const int quick_strides[] = {1, 2, 3, 4, 8, 16, 32};
    const int ns = e->cfg->quick ? 7 : 32;
    probe_sweep sw;
    probe_sweep_open(&sw, e, "bank_conflicts");
    probe_table(&sw, cols, 10);
    double c1 = -1, c32 = -1, max_err = 0;
    for (int i = 0; i < ns; i++) {
        const int s = e->cfg->quick ? quick_strides[i] : i + 1;
        probe_cell(&sw, "%d", s);
        for (int w = 0; w < 3; w++) {
            const int pred = sl_smem_wavefronts(words[w], s);
            probe_cell(&sw, "%d", pred);
            for (int store = 0; store < 2; store++) {
                probe_progress(e, "bank: stride %d, %d-byte %s", s, words[w], store ? "stores" : "loads");
                double cyc = 0, ms = 0, bytes = 0, best = -1;
                uint64_t bad = 0;
                for (int t = 0; t < 2; t++) { /* best of two: the first may run at a lower clock */
                    sl_status st = e->ops->smem(e->ctx, words[w], s, store, probe_check_only(e), &cyc, &ms, &bytes, &bad);
                    if (st != SL_OK)
                        return st;
                    if (bad)
                        return sl_fail(SL_ERR_VERIFY, "bank: stride %d, %d-byte %s: %llu blocks failed their check",
                                       s, words[w], store ? "stores" : "loads", (unsigned long long)bad);
                    if (best < 0 || cyc < best)
                        best = cyc;
                }
                if (!probe_check_only(e) && best < 0.5 * pred)
                    return sl_fail(SL_ERR_VERIFY,
                                   "bank: stride %d, %d-byte %s: %.2f cycles per warp access, under half the %d "
                                   "wavefronts it needs: the accesses were not all made",
                                   s, words[w], store ? "stores" : "loads", best, pred);
                probe_num(&sw, best, 2, "");
                cJSON *p = probe_point(&sw);
                cJSON_AddNumberToObject(p, "stride", s);
                cJSON_AddNumberToObject(p, "word_bytes", words[w]);
                cJSON_AddBoolToObject(p, "store", store);
                cJSON_AddNumberToObject(p, "predicted_wavefronts", pred);
                cJSON_AddNumberToObject(p, "cycles_per_access", best);
                const double err = fabs(best - pred) / pred;
                if (err > max_err)
                    max_err = err;
                if (words[w] == 4 && !store && s == 1)
                    c1 = best;
                if (words[w] == 4 && !store && s == 32)
                    c32 = best;
            }
        }
        probe_row(&sw);
    }
    probe_progress_done(e);
    if (probe_check_only(e)) {
        probe_say(e, "check-only mode: every checksum and read-back passed; timings not checked or kept");
        return SL_OK;
    }
    if (!(c1 > 0 && c32 >= 16 * c1))
        return sl_fail(SL_ERR_VERIFY,
                       "bank: a 32-way conflict (4 B, stride 32) costs %.2f cycles, %.1f x a conflict-free access "
                       "(%.2f): under 16 x, the probe does not see bank conflicts",
                       c32, c1 > 0 ? c32 / c1 : 0.0, c1);
    e->prof->smem_conflict32_ratio = c32 / c1;
    e->prof->smem_sweep_max_err = max_err;
    probe_say(e, "32-way / 1-way (4-byte loads): %.1f x (seed 004: 32 wavefronts); largest gap to the rules: %.1f%%",
              c32 / c1, 100 * max_err);
    return SL_OK;
}
