/*
 * l1.c - the L1 bandwidth probe (issue 11; seed 004 "Volta L1 / shared
 * memory": L1 and shared memory share one 128 B/clk/SM data path). One
 * block of 1024 threads per SM reads its own global-memory buffer with
 * ld.global.ca (cached in L1; the kernel asks for the largest L1 carve-out,
 * it has no shared memory) after an untimed pass that loads it into L1;
 * every warp access is 32 consecutive 4- or 16-byte words. The SM clock
 * gives bytes per clock per SM; working sets from 16 KiB (well inside L1)
 * to 512 KiB (more than the SM's 256 KB of L1 + shared memory: served by
 * L2) show where L1 ends.
 *
 * Aggregate GB/s: the best L1-resident case timed with events at two
 * amounts of work (8 and 16 MiB per block), the difference of bytes over
 * the difference of times, which cancels the launch and the untimed pass.
 *
 * Checks: every block's checksum (ops->micro->l1); the rate under 4 x 128
 * B/clk/SM (more cannot have happened) and the best L1-resident rate at
 * least 1.5 x the 512 KiB one (else the working set did not stay in L1).
 * Check-only mode (probe_check_only) keeps the checksums only.
 * Profile: l1.bytes_per_clk_per_sm, l1.gbs; points: l1.
 */
#include "micro_ops.h"
#include "probe_util.h"

#include <math.h>

static sl_status one(env *e, int word, size_t ws, size_t per_block, int trials, double *best_cyc, double *bytes,
                     double *best_ms)
{
    const sl_micro_ops *m = e->ops->micro;
    *best_cyc = -1;
    for (int t = 0; t < trials; t++) { /* the first warms up the clocks */
        double cyc = 0, ms = 0;
        uint64_t bad = 0;
        sl_status st = m->l1(e->ctx, word, ws, per_block, probe_check_only(e), &cyc, bytes, &ms, &bad);
        if (st != SL_OK)
            return st;
        if (bad)
            return sl_fail(SL_ERR_VERIFY, "l1: %d-byte words, %zu KiB: %llu blocks returned a wrong checksum", word,
                           ws / KIB, (unsigned long long)bad);
        if ((t > 0 || trials == 1) && (*best_cyc < 0 || cyc < *best_cyc)) {
            *best_cyc = cyc;
            *best_ms = ms;
        }
    }
    return SL_OK;
}

sl_status probe_l1(env *e)
{
    static const sl_col cols[] = {{"working set/SM", 14, 'r'}, {"4B B/clk/SM", 12, 'r'}, {"16B B/clk/SM", 13, 'r'}};
    static const size_t ws_kib[] = {16, 32, 64, 128, 256, 512};
    static const int words[] = {4, 16};
    const bool light = probe_check_only(e);
    const size_t per_block = (e->cfg->quick ? 2 : 8) * MIB;
    const int trials = light ? 1 : 3;
    probe_sweep sw;
    probe_sweep_open(&sw, e, "l1");
    probe_table(&sw, cols, 3);
    const double peak_clk = 128.0; /* seed 004: the L1/shared data path, B/clk/SM */
    double best = -1, at_512 = -1;
    int best_word = 16;
    size_t best_ws = 64 * KIB;
    for (int i = 0; i < 6; i++) {
        const size_t ws = ws_kib[i] * KIB;
        probe_cell(&sw, "%zu KiB", ws_kib[i]);
        for (int w = 0; w < 2; w++) {
            probe_progress(e, "l1: %zu KiB, %d-byte words", ws_kib[i], words[w]);
            double cyc = -1, bytes = 0, ms = 0;
            sl_status st = one(e, words[w], ws, per_block, trials, &cyc, &bytes, &ms);
            if (st != SL_OK)
                return st;
            const double bpc = bytes / cyc;
            if (!light && !(bpc <= 4 * peak_clk))
                return sl_fail(SL_ERR_VERIFY, "l1: %zu KiB, %d-byte words: %.1f B/clk/SM, over 4 x %.0f: the loads were "
                               "not all made", ws_kib[i], words[w], bpc, peak_clk);
            probe_num(&sw, bpc, 1, "");
            cJSON *p = probe_point(&sw);
            cJSON_AddNumberToObject(p, "working_set_bytes", (double)ws);
            cJSON_AddNumberToObject(p, "word_bytes", words[w]);
            cJSON_AddNumberToObject(p, "cycles", cyc);
            cJSON_AddNumberToObject(p, "bytes_per_clk_per_sm", bpc);
            if (ws <= 64 * KIB && bpc > best) {
                best = bpc;
                best_word = words[w];
                best_ws = ws;
            }
            if (ws == 512 * KIB && bpc > at_512)
                at_512 = bpc;
        }
        probe_row(&sw);
    }
    probe_progress_done(e);
    if (light) {
        probe_say(e, "check-only mode: every checksum passed; rates not measured");
        return SL_OK;
    }
    if (!(best >= 1.5 * at_512))
        return sl_fail(SL_ERR_VERIFY,
                       "l1: the best L1-resident rate (%.1f B/clk/SM) is not 1.5 x the 512 KiB one (%.1f): the "
                       "working set was not served from L1",
                       best, at_512);
    /* aggregate GB/s: two amounts of work, the difference */
    double c1, c2, b1, b2, ms1 = 0, ms2 = 0, gbs = -1;
    sl_status st = one(e, best_word, best_ws, per_block, 3, &c1, &b1, &ms1);
    if (st == SL_OK)
        st = one(e, best_word, best_ws, 2 * per_block, 3, &c2, &b2, &ms2);
    if (st != SL_OK)
        return st;
    const double sms = e->ctx->info.sm_count > 0 ? e->ctx->info.sm_count : 1;
    if (ms2 > ms1)
        gbs = probe_gbs((b2 - b1) * sms, ms2 - ms1);
    e->prof->l1_bytes_per_clk_sm = best;
    e->prof->l1_gbs = gbs;
    probe_say(e,
              "L1 load bandwidth: %.1f B/clk/SM (%d-byte words, %zu KiB per SM; seed 004: 128 on Volta), %.0f GB/s on "
              "the chip; at 512 KiB per SM (past L1): %.1f B/clk/SM",
              best, best_word, best_ws / KIB, gbs, at_512);
    return SL_OK;
}
