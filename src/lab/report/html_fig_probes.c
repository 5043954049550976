/*
 * html_fig_probes.c - the figures of probe profiles: ceilings, latency,
 * bytes in flight, L2, and the SM probes (bank, l1, const, divergence)
 * (html_internal.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "html_internal.h"
#include "html_report.h"

#include "compare.h"
#include "gnuplot.h"
#include "hw.h"
#include "internal.h"
#include "input_check.h"
#include "jsonparse.h"
#include "op.h"
#include "sizes.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- probe figures ------------------------------------------------------------- */

static void fig_probes_sm(report *R, const input *in, const char *dname);

void hr_fig_probes(report *R, const input *in)
{
    const cJSON *root = in->root, *pts = hr_jget(root, "points"), *p;
    const char *dname = hr_jstr(hr_jget(root, "device"), "name", "?");
    FILE *g = sl_gp_script(R->gp);
    const cJSON *lat = hr_jget(pts, "latency");
    if (cJSON_GetArraySize(lat) > 0) {
        fig *F = hr_new_fig(R, 3, "working set (B)", "load-to-use latency (ns, pointer chase)");
        if (F) {
            hr_gp_title(R, "latency staircase on %s (%s)", dname, in->base);
            fprintf(g, "$S << EOD\n");
            cJSON_ArrayForEach(p, lat) fprintf(g, "%.9g %.9g\n", hr_jnum(p, "working_set_bytes", 0), hr_jnum(p, "ns", 0));
            fprintf(g, "EOD\nset logscale x 2\nset format x '%%.0b%%BB'\nset yrange [0:*]\nset key top left box\n");
            const cJSON *L = hr_jget(root, "latency");
            const char *lv[3] = {"l1_ns", "l2_ns", "dram_ns"}, *ln[3] = {"L1", "L2", "DRAM"};
            fprintf(g, "plot $S using 1:2 with linespoints lw 2 pt 7 title 'measured'");
            for (int k = 0; k < 3; k++)
                if (hr_jnum(L, lv[k], -1) > 0)
                    fprintf(g, ", %g with lines dt 2 title '%s plateau %.0f ns'", hr_jnum(L, lv[k], 0), ln[k],
                            hr_jnum(L, lv[k], 0));
            fprintf(g, "\n");
            snprintf(F->caption, sizeof F->caption,
                     "Latency staircase on %s (%s): one dependent load at a time over a growing working set; the "
                     "plateaus are L1, L2 and DRAM (seed 004).",
                     dname, in->base);
        }
    }
    const cJSON *bif = hr_jget(pts, "bytes_in_flight");
    if (cJSON_GetArraySize(bif) > 0) {
        fig *F = hr_new_fig(R, 3, "bytes in flight per SM (B)", "bandwidth (GB/s)");
        if (F) {
            hr_gp_title(R, "bandwidth vs bytes in flight on %s (%s)", dname, in->base);
            fprintf(g, "$B << EOD\n");
            cJSON_ArrayForEach(p, bif) fprintf(g, "%.9g %.9g\n", hr_jnum(p, "bytes_in_flight_per_sm", 0), hr_jnum(p, "gbs", 0));
            fprintf(g, "EOD\nset logscale x 2\nset format x '%%.0b%%BB'\nset yrange [0:*]\nset key bottom right box\n");
            const cJSON *LL = hr_jget(root, "littles_law");
            const double knee = hr_jnum(LL, "knee_bif_per_sm", -1), kg = hr_jnum(LL, "knee_gbs", -1);
            if (knee > 0) {
                char ks[32];
                hr_bytes_label(knee, ks, sizeof ks);
                fprintf(g, "set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lw 2 lc rgb '#d62728'\n", knee, knee);
                fprintf(g, "set label 'knee %s/SM, %.0f GB/s' at %g, graph 0.08 offset 0.5,0 tc rgb '#d62728'\n", ks,
                        kg, knee);
            }
            fprintf(g, "plot $B using 1:2 with points pt 7 title 'one (warps, ILP, width) configuration'\n");
            snprintf(F->caption, sizeof F->caption,
                     "Little's law on %s (%s): bandwidth against bytes in flight per SM (warps x ILP x load "
                     "width); the knee is where 90%% of the copy ceiling is reached (seed 004).",
                     dname, in->base);
        }
    }
    const cJSON *off = hr_jget(pts, "offset");
    if (cJSON_GetArraySize(off) > 0) {
        fig *F = hr_new_fig(R, 3, "offset (elements of 4 B)", "bandwidth (GB/s)");
        if (F) {
            hr_gp_title(R, "offset copy on %s (%s)", dname, in->base);
            fprintf(g, "$O << EOD\n");
            cJSON_ArrayForEach(p, off) fprintf(g, "%.9g %.9g\n", hr_jnum(p, "offset", 0), hr_jnum(p, "gbs", 0));
            fprintf(g, "EOD\nset yrange [0:*]\nset key bottom right box\n"
                       "plot $O using 1:2 with linespoints pt 7 ps 0.6 title 'dst[i] = src[i + offset]'\n");
            snprintf(F->caption, sizeof F->caption,
                     "Offset copy on %s (%s): a misaligned start makes each warp touch one more 32-byte sector "
                     "(seed 002).",
                     dname, in->base);
        }
    }
    const cJSON *str = hr_jget(pts, "stride");
    if (cJSON_GetArraySize(str) > 0) {
        fig *F = hr_new_fig(R, 3, "stride (elements of 4 B)", "bandwidth (GB/s)");
        if (F) {
            hr_gp_title(R, "strided copy on %s (%s)", dname, in->base);
            fprintf(g, "$T << EOD\n");
            cJSON_ArrayForEach(p, str) fprintf(g, "%.9g %.9g %.9g\n", hr_jnum(p, "stride", 0), hr_jnum(p, "useful_gbs", 0),
                                               hr_jnum(p, "sector_gbs", 0));
            fprintf(g, "EOD\nset logscale x 2\nset yrange [0:*]\nset key top right box\n"
                       "plot $T using 1:2 with linespoints pt 7 ps 0.6 title 'useful bytes', "
                       "$T using 1:3 with linespoints pt 5 ps 0.6 title 'sectors moved'\n");
            snprintf(F->caption, sizeof F->caption,
                     "Strided copy on %s (%s): useful GB/s falls with the stride while the sectors moved stay "
                     "high, until each element takes a sector of its own (seeds 002 and 004).",
                     dname, in->base);
        }
    }
    fig_probes_sm(R, in, dname);
}

/* Issue 11's SM-level probes (smem/bank/l1/const/divergence points), one figure each that has points. */
static void fig_probes_sm(report *R, const input *in, const char *dname)
{
    const cJSON *pts = hr_jget(in->root, "points"), *p;
    FILE *g = sl_gp_script(R->gp);
    const cJSON *bank = hr_jget(pts, "bank_conflicts");
    if (cJSON_GetArraySize(bank) > 0) {
        fig *F = hr_new_fig(R, 3, "stride (words)", "cycles per warp access (loads)");
        if (F) {
            hr_gp_title(R, "shared-memory bank conflicts on %s (%s)", dname, in->base);
            static const int words[] = {4, 8, 16};
            for (int w = 0; w < 3; w++) {
                fprintf(g, "$K%d << EOD\n", words[w]);
                cJSON_ArrayForEach(p, bank) if ((int)hr_jnum(p, "word_bytes", 0) == words[w] && !cJSON_IsTrue(hr_jget(p, "store")))
                    fprintf(g, "%.9g %.9g %.9g\n", hr_jnum(p, "stride", 0), hr_jnum(p, "cycles_per_access", 0),
                            hr_jnum(p, "predicted_wavefronts", 0));
                fprintf(g, "EOD\n");
            }
            fprintf(g, "set yrange [0:*]\nset key top left box\nplot $K4 using 1:2 with linespoints pt 7 title "
                       "'4-byte words', $K8 using 1:2 with linespoints pt 5 title '8-byte', $K16 using 1:2 with "
                       "linespoints pt 9 title '16-byte', $K4 using 1:3 with lines dt 2 title 'seed 004: 4 B', $K8 "
                       "using 1:3 with lines dt 2 title '8 B', $K16 using 1:3 with lines dt 2 title '16 B'\n");
            snprintf(F->caption, sizeof F->caption,
                     "Bank conflicts on %s (%s): lane l loads word l x stride; measured SM cycles per warp access "
                     "against the wavefronts seed 004's rules predict (dashed).",
                     dname, in->base);
        }
    }
    const cJSON *l1 = hr_jget(pts, "l1");
    if (cJSON_GetArraySize(l1) > 0) {
        fig *F = hr_new_fig(R, 3, "working set per SM (B)", "L1 load bandwidth (B/clk/SM)");
        if (F) {
            hr_gp_title(R, "L1 load bandwidth on %s (%s)", dname, in->base);
            for (int w = 4; w <= 16; w += 12) {
                fprintf(g, "$L%d << EOD\n", w);
                cJSON_ArrayForEach(p, l1) if ((int)hr_jnum(p, "word_bytes", 0) == w)
                    fprintf(g, "%.9g %.9g\n", hr_jnum(p, "working_set_bytes", 0), hr_jnum(p, "bytes_per_clk_per_sm", 0));
                fprintf(g, "EOD\n");
            }
            fprintf(g, "set logscale x 2\nset format x '%%.0b%%BB'\nset yrange [0:*]\nset key bottom left box\n"
                       "plot $L16 using 1:2 with linespoints pt 7 title '16-byte loads', $L4 using 1:2 with "
                       "linespoints pt 5 title '4-byte loads', 128 with lines dt 2 title 'seed 004: 128 B/clk/SM'\n");
            snprintf(F->caption, sizeof F->caption,
                     "L1 on %s (%s): ld.global.ca over a per-SM working set, bytes per SM clock; past the unified "
                     "L1 (256 KB per SM) the loads come from L2.",
                     dname, in->base);
        }
    }
    const cJSON *cst = hr_jget(pts, "constant");
    if (cJSON_GetArraySize(cst) > 0) {
        fig *F = hr_new_fig(R, 3, "distinct addresses per warp access (addresses)", "time per warp access (SM cycles)");
        if (F) {
            hr_gp_title(R, "constant cache on %s (%s)", dname, in->base);
            double c1 = -1;
            fprintf(g, "$C << EOD\n");
            cJSON_ArrayForEach(p, cst)
            {
                if ((int)hr_jnum(p, "distinct", 0) == 1)
                    c1 = hr_jnum(p, "cycles_per_access", -1);
                fprintf(g, "%.9g %.9g\n", hr_jnum(p, "distinct", 0), hr_jnum(p, "cycles_per_access", 0));
            }
            fprintf(g, "EOD\nset logscale xy 2\nset key top left box\nplot $C using 1:2 with linespoints pt 7 "
                       "title 'measured'");
            if (c1 > 0)
                fprintf(g, ", %g * x with lines dt 2 title 'k x broadcast (seed 004: serialised)'", c1);
            fprintf(g, "\n");
            snprintf(F->caption, sizeof F->caption,
                     "Constant cache on %s (%s): k distinct __constant__ addresses per warp access cost k x the "
                     "broadcast if they are served one at a time (seed 004).",
                     dname, in->base);
        }
    }
    const cJSON *dv = hr_jget(pts, "divergence");
    if (cJSON_GetArraySize(dv) > 0) {
        fig *F = hr_new_fig(R, 3, "code paths per warp (paths)", "time (x uniform)");
        if (F) {
            hr_gp_title(R, "warp divergence on %s (%s)", dname, in->base);
            static const char *cases[] = {"paths_by_lane", "paths_by_warp"};
            for (int c = 0; c < 2; c++) {
                fprintf(g, "$D%d << EOD\n", c);
                cJSON_ArrayForEach(p, dv) if (strcmp(hr_jstr(p, "case", ""), cases[c]) == 0)
                    fprintf(g, "%.9g %.9g\n", hr_jnum(p, "g", 0), hr_jnum(p, "ratio", 0));
                fprintf(g, "EOD\n");
            }
            fprintf(g, "set logscale x 2\nset yrange [0:*]\nset key top left box\nplot $D0 using 1:2 with "
                       "linespoints pt 7 title 'paths chosen by lane (intra-warp)', $D1 using 1:2 with linespoints "
                       "pt 5 title 'chosen by warp (inter-warp)', x with lines dt 2 title 'seed 004: k x inside a "
                       "warp'\n");
            snprintf(F->caption, sizeof F->caption,
                     "Warp divergence on %s (%s): the same FFMA work on k code paths; inside a warp the paths add "
                     "up, between warps they cost nothing (seed 004, Control Flow).",
                     dname, in->base);
        }
    }
}
