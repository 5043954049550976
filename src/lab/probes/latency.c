/*
 * latency.c - the latency probe: one thread chases a random cyclic
 * permutation (each hop depends on the last load, so nothing overlaps)
 * over working sets from 16 KiB to 4 x L2; the plateaus are the L1, L2
 * and DRAM load latencies.
 */
#include "probe_util.h"

#include "probe_math.h"
#include "sizes.h"

#include <stdlib.h>
#include <string.h>

enum { NODE_WORDS = 32 }; /* one node per 128-byte line: every hop a new line */

sl_status probe_latency(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t l2 = probe_l2_or_default(e);
    size_t top = 16 * KIB;
    while (top < (e->cfg->quick ? 16 * MIB : 4 * l2))
        top *= 2; /* the first power of two at or past 4 x L2 */
    size_t cap = probe_max_working_set(e, 0.25);
    if (top > cap)
        top = cap;
    const uint64_t steps = e->cfg->quick ? 20000 : 100000;
    const double clock_ghz = ctx->info.sm_clock_khz > 0 ? ctx->info.sm_clock_khz / 1e6 : 0;
    double ws_v[40], ns_v[40], cyc_v[40];
    int n = 0;
    uint32_t *next = malloc(top / (NODE_WORDS * 4) * sizeof *next);
    uint32_t *nodes = calloc(top / 4, sizeof *nodes);
    void *dev = NULL;
    sl_status st = SL_OK;
    if (!next || !nodes) {
        st = sl_fail(SL_ERR_NO_MEMORY, "latency: out of host memory for a %zu-byte chase", top);
        goto done;
    }
    if ((st = ctx->ops->alloc(ctx, top, &dev)) != SL_OK)
        goto done;
    /* the last column draws ns/load as a bar, one # per 20 ns */
    static const sl_col cols[] = {{"working set", 12, 'r'}, {"ns/load", 10, 'r'}, {"cycles", 10, 'r'}, {"", 0, 'l'}};
    probe_sweep sw;
    probe_sweep_open(&sw, e, "latency");
    probe_table(&sw, cols, 4);
    for (size_t ws = 16 * KIB; ws <= top && n < 40; ws *= 2, n++) {
        size_t nn = ws / (NODE_WORDS * 4);
        char ws_s[32];
        sl_format_bytes((double)ws, ws_s, sizeof ws_s);
        probe_progress(e, "latency: %s", ws_s);
        sl_random_cycle(next, nn, 0x1a7e + ws);
        for (size_t i = 0; i < nn; i++)
            nodes[i * NODE_WORDS] = next[i];
        if ((st = ctx->ops->upload(ctx, dev, nodes, nn * NODE_WORDS * 4)) != SL_OK)
            goto done;
        uint32_t end = 0;
        double cycles = 0, ms = 0;
        /* one untimed lap pulls the working set into whatever cache holds it */
        uint64_t warm = nn < (1u << 20) ? nn : (1u << 20);
        if ((st = e->ops->chase(ctx, dev, 0, warm, NODE_WORDS, &end, &cycles, &ms)) != SL_OK ||
            (st = e->ops->chase(ctx, dev, 0, steps, NODE_WORDS, &end, &cycles, &ms)) != SL_OK)
            goto done;
        uint32_t want = sl_chase_end(next, 0, steps);
        if (end != want) {
            st = sl_fail(SL_ERR_VERIFY, "latency: the chase over %s ended at node %u, want %u", ws_s, end, want);
            goto done;
        }
        ws_v[n] = (double)ws;
        ns_v[n] = ms * 1e6 / (double)steps;
        cyc_v[n] = cycles >= 0 ? cycles / (double)steps : -1;
        int bar = (int)(ns_v[n] / 20.0);
        char bars[64];
        memset(bars, '#', sizeof bars);
        bars[bar < 63 ? bar : 63] = 0;
        probe_cell(&sw, "%s", ws_s);
        probe_cell(&sw, "%.1f", ns_v[n]);
        probe_num(&sw, cyc_v[n], 0, "");
        probe_cell(&sw, "%s", bars);
        probe_row(&sw);
        cJSON *p = probe_point(&sw);
        cJSON_AddNumberToObject(p, "working_set_bytes", ws_v[n]);
        cJSON_AddNumberToObject(p, "ns", ns_v[n]);
        if (cyc_v[n] >= 0)
            cJSON_AddNumberToObject(p, "cycles", cyc_v[n]);
    }
    probe_progress_done(e);
    {
        /* Plateaus: L1 at <= 32 KiB; L2 from 1 MiB to a quarter of L2 (clear
         * of the far L2 partition and of capacity misses); DRAM at >= 2 x L2. */
        double l1 = sl_plateau(ws_v, ns_v, n, 0, 32.0 * KIB);
        double l2n = sl_plateau(ws_v, ns_v, n, 1.0 * MIB, l2 / 4.0);
        double dram = sl_plateau(ws_v, ns_v, n, 2.0 * l2, 1e30);
        e->prof->lat_l1_ns = l1;
        e->prof->lat_l2_ns = l2n;
        e->prof->lat_dram_ns = dram;
        e->prof->lat_l1_cycles = sl_plateau(ws_v, cyc_v, n, 0, 32.0 * KIB);
        e->prof->lat_l2_cycles = sl_plateau(ws_v, cyc_v, n, 1.0 * MIB, l2 / 4.0);
        e->prof->lat_dram_cycles = sl_plateau(ws_v, cyc_v, n, 2.0 * l2, 1e30);
        char dram_cycles[32] = "";
        if (e->prof->lat_dram_cycles > 0 && clock_ghz > 0)
            snprintf(dram_cycles, sizeof dram_cycles, " (%.0f cycles)", e->prof->lat_dram_cycles);
        probe_say(e,
                  "plateaus (median): L1 (<= 32 KiB) %.1f ns, %s (1 MiB .. L2/4) %.1f ns, DRAM (>= 2 x L2) %.1f ns%s",
                  l1, ctx->info.backend == SL_BACKEND_CUDA ? "L2" : "LLC", l2n, dram, dram_cycles);
    }
done:
    probe_progress_done(e);
    free(next);
    free(nodes);
    ctx->ops->free(ctx, dev);
    return st;
}
