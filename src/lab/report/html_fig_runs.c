/*
 * html_fig_runs.c - the figures of run files: GB/s vs bytes per launch,
 * the ladder at the largest size, and the roofline (html_internal.h).
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

/* GB/s vs bytes moved per launch for one (file, device, op, dtype). */
void hr_fig_bandwidth(report *R, const input *in, int dev, const char *op, const char *dtype)
{
    const cJSON *rows = hr_jget(in->root, "results"), *row;
    names variants = {0};
    double xmin = INFINITY, xmax = 0, ymax = 0;
    const cJSON *device = NULL;
    cJSON_ArrayForEach(row, rows)
    {
        if (hr_row_device_index(row) != dev || strcmp(hr_jstr(row, "op", ""), op) || strcmp(hr_jstr(row, "dtype", ""), dtype) ||
            !hr_row_ok(row))
            continue;
        device = hr_row_device(in->root, row);
        hr_names_add(&variants, hr_jstr(row, "variant", "?"));
        double b = hr_jnum(row, "bytes", 0), g = hr_jnum(row, "gbs", 0);
        xmin = b < xmin ? b : xmin;
        xmax = b > xmax ? b : xmax;
        ymax = g > ymax ? g : ymax;
    }
    if (!variants.n || !device)
        return;
    const char *dname = hr_jstr(device, "name", "?");
    const bool gpu = strcmp(hr_jstr(device, "backend", ""), "cuda") == 0;
    const double l2 = hr_jnum(device, "l2_bytes", 0), peak = hr_jnum(device, "peak_gbs", -1);
    const cJSON *prof = hr_profile_for(R, dname);
    const double ceil = prof ? hr_jnum(hr_jget(prof, "ceilings"), "copy_memcpy_gbs", -1) : -1;
    fig *F = hr_new_fig(R, 0, "bytes moved per launch (B, read + written)", "bandwidth (GB/s, median)");
    if (!F)
        return;
    FILE *g = sl_gp_script(R->gp);
    hr_gp_title(R, "%s %s on %s (%s)", op, dtype, dname, in->base);
    /* The L2 line must be on the plot even when every size is far from it. */
    double lo = xmin, hi = xmax;
    if (l2 > 0) {
        lo = l2 / 4 < lo ? l2 / 4 : lo;
        hi = l2 * 4 > hi ? l2 * 4 : hi;
    }
    if (peak > ymax)
        ymax = peak;
    fprintf(g, "set logscale x 10\nset format x '%%.0s%%cB'\nset xrange [%g:%g]\nset yrange [0:%g]\n", lo / 1.5,
            hi * 1.5, ymax * 1.12);
    fprintf(g, "set key outside right top box\n");
    if (l2 > 0) {
        char l2s[32];
        hr_bytes_label(l2, l2s, sizeof l2s);
        fprintf(g, "set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lw 2 lc rgb '#7f7f7f'\n", l2, l2);
        fprintf(g, "set label '%s %s' at %g, graph 0.04 offset 0.5,0 tc rgb '#555555'\n", gpu ? "L2" : "LLC", l2s, l2);
    }
    for (int v = 0; v < variants.n; v++) {
        fprintf(g, "$V%d << EOD\n", v);
        cJSON_ArrayForEach(row, rows)
        {
            if (hr_row_device_index(row) == dev && !strcmp(hr_jstr(row, "op", ""), op) &&
                !strcmp(hr_jstr(row, "dtype", ""), dtype) && !strcmp(hr_jstr(row, "variant", ""), variants.v[v]) &&
                hr_row_ok(row))
                fprintf(g, "%.9g %.9g\n", hr_jnum(row, "bytes", 0), hr_jnum(row, "gbs", 0));
        }
        fprintf(g, "EOD\n");
    }
    fprintf(g, "plot ");
    for (int v = 0; v < variants.n; v++) {
        /* the copy ceiling and the peers dashed, the rungs solid */
        const char *kind = "";
        cJSON_ArrayForEach(row, rows) if (!strcmp(hr_jstr(row, "variant", ""), variants.v[v]))
        {
            kind = hr_jstr(row, "kind", "");
            break;
        }
        const bool ref = !strcmp(kind, "ceiling") || !strcmp(kind, "peer");
        char t[96];
        snprintf(t, sizeof t, "%s%s%s%s", variants.v[v], ref ? " (" : "", ref ? kind : "", ref ? ")" : "");
        fprintf(g, "%s$V%d using 1:2 with linespoints lw 2 pt %d ps 0.8 %s title ", v ? ", " : "", v, 5 + v % 8,
                ref ? "dt 2" : "");
        sl_gp_quote(g, t);
    }
    if (peak > 0)
        fprintf(g, ", %g with lines dt 3 lw 2 lc rgb '#d62728' title 'theoretical peak %.0f GB/s'", peak, peak);
    if (ceil > 0)
        fprintf(g, ", %g with lines dt 4 lw 2 lc rgb '#111111' title 'copy ceiling (probe) %.0f GB/s'", ceil, ceil);
    fprintf(g, "\n");
    snprintf(F->caption, sizeof F->caption,
             "%s %s on %s, from %s: GB/s = the op's bytes read + written / median time, one line per variant "
             "(dashed: the copy ceiling and library peers, measured at each size). %s%s%s The dashed vertical "
             "line is the %s size: left of it the working set fits in cache.",
             op, dtype, dname, in->base, peak > 0 ? "Red dotted: the theoretical peak (memory clock x bus width x "
                                                    "2). "
                                                  : "",
             ceil > 0 ? "Black: the copy ceiling measured by streamlab probe. " : "", "", gpu ? "L2" : "last-level cache");
}

/* The ladder at the group's largest size: median GB/s per variant, the
 * model's prediction as a marker. */
void hr_fig_ladder(report *R, const input *in, int dev, const char *op, const char *dtype)
{
    const cJSON *rows = hr_jget(in->root, "results"), *row;
    double nmax = 0;
    const cJSON *device = NULL;
    cJSON_ArrayForEach(row, rows)
    {
        if (hr_row_device_index(row) == dev && !strcmp(hr_jstr(row, "op", ""), op) && !strcmp(hr_jstr(row, "dtype", ""), dtype) &&
            hr_row_ok(row) && hr_jnum(row, "n", 0) > nmax) {
            nmax = hr_jnum(row, "n", 0);
            device = hr_row_device(in->root, row);
        }
    }
    if (!device)
        return;
    const char *dname = hr_jstr(device, "name", "?");
    fig *F = hr_new_fig(R, 1, "variant (ladder order)", "bandwidth (GB/s, median)");
    if (!F)
        return;
    FILE *g = sl_gp_script(R->gp);
    char ns[32];
    sl_format_count((uint64_t)nmax, ns, sizeof ns);
    hr_gp_title(R, "%s %s ladder at n = %s on %s (%s)", op, dtype, ns, dname, in->base);
    fprintf(g, "$L << EOD\n");
    double ymax = 0;
    int nbars = 0, nmodel = 0;
    cJSON_ArrayForEach(row, rows)
    {
        if (hr_row_device_index(row) != dev || strcmp(hr_jstr(row, "op", ""), op) || strcmp(hr_jstr(row, "dtype", ""), dtype) ||
            !hr_row_ok(row) || hr_jnum(row, "n", 0) != nmax)
            continue;
        const double gbs = hr_jnum(row, "gbs", 0), bytes = hr_jnum(row, "bytes", 0);
        const cJSON *m = hr_jget(row, "model");
        const double pred = m ? hr_jnum(m, "pred_ms", -1) : -1;
        const double mg = pred > 0 ? bytes / (pred * 1e6) : NAN;
        const double xp = hr_jnum(row, "x_peer", -1), pk = hr_jnum(row, "pct_peak", -1);
        char lab[64] = "", a[24] = "", b[24] = "";
        if (xp > 0)
            snprintf(a, sizeof a, "%.2fx peer", xp);
        if (pk > 0)
            snprintf(b, sizeof b, "%.0f%% peak", pk);
        snprintf(lab, sizeof lab, "%s%s%s", a, a[0] && b[0] ? ", " : "", b);
        char mgs[32] = "NaN";
        if (!isnan(mg))
            snprintf(mgs, sizeof mgs, "%.6g", mg);
        fprintf(g, "\"%s\" %.6g %s \"%s\"\n", hr_jstr(row, "variant", "?"), gbs, mgs, lab);
        ymax = gbs > ymax ? gbs : ymax;
        ymax = !isnan(mg) && mg > ymax ? mg : ymax;
        nbars++;
        nmodel += !isnan(mg);
    }
    fprintf(g, "EOD\n");
    fprintf(g, "set style fill solid 0.55 border -1\nset boxwidth 0.7\nset xtics rotate by -35 nomirror\n"
               "set yrange [0:%g]\nset xrange [-0.6:%g]\nset key inside top left horizontal box opaque\nset grid ytics\n",
            ymax * 1.3, nbars - 0.4);
    fprintf(g, "plot $L using 0:2:xtic(1) with boxes lc rgb '#4c78a8' title 'measured (median)'");
    if (nmodel)
        fprintf(g, ", $L using ($0+0.25):3 with points pt 9 ps 1.6 lc rgb '#d62728' title 'model prediction'");
    fprintf(g, ", $L using 0:2:4 with labels rotate by 90 right offset 0,-0.7 font ',10' notitle\n");
    snprintf(F->caption, sizeof F->caption,
             "The %s %s ladder on %s at its largest size (n = %s), from %s: median GB/s per variant, each bar "
             "labelled with its speed-up over the library peer (x peer) and its share of the theoretical peak "
             "(%% peak)%s.",
             op, dtype, dname, ns, in->base,
             nmodel ? "; red triangles: the bottleneck model's prediction (bytes / predicted time, docs/model.md)"
                    : "; this file carries no model prediction");
}

/* Flops of one launch of a row, from the op's descriptor (sl_variant_flops:
 * a copy ceiling row does none); 0 when unknown. */
static double row_flops(const cJSON *root, const cJSON *row)
{
    const sl_op_desc *op = sl_op_find(hr_jstr(row, "op", ""));
    if (!op)
        return 0;
    const cJSON *d = hr_row_device(root, row);
    const sl_variant *v = sl_variant_find(op, strcmp(hr_jstr(d, "backend", ""), "cuda") ? SL_BACKEND_CPU : SL_BACKEND_CUDA,
                                          hr_jstr(row, "variant", ""));
    sl_shape s = sl_shape_1d((uint64_t)hr_jnum(row, "n", 0));
    const cJSON *sh = hr_jget(row, "shape");
    if (sh) {
        s.rows = (uint64_t)hr_jnum(sh, "rows", 1);
        s.cols = (uint64_t)hr_jnum(sh, "cols", (double)s.cols);
        s.ld = (uint64_t)hr_jnum(sh, "ld", (double)s.cols);
        s.k = (uint64_t)hr_jnum(sh, "k", 0);
    }
    if (v)
        return sl_variant_flops(op, v, &s);
    /* a variant this build does not have: a copy ceiling by its kind, else the op's flops */
    return strcmp(hr_jstr(row, "kind", ""), "ceiling") == 0 ? 0 : sl_op_flops(op, &s);
}

/* One roofline per GPU (by name), over every run file. */
void hr_fig_roofline(report *R, const char *dname, const cJSON *device)
{
    const int cc = (int)(10 * atof(hr_jstr(device, "compute_capability", "0")) + 0.5);
    const double sms = hr_jnum(device, "sm_count", 0), clk = hr_jnum(device, "sm_clock_max_khz", 0) / 1e6;
    const double peak = hr_jnum(device, "peak_gbs", -1);
    sl_hw hw;
    if (sl_hw_from_arch(cc, &hw) != SL_OK && hw.p[HW_FP32_LANES_PER_SM].v <= 0)
        return;
    if (sms <= 0 || clk <= 0)
        return;
    const double fp32 = 2 * hw.p[HW_FP32_LANES_PER_SM].v * sms * clk; /* GFLOP/s: one FMA = 2 flops */
    const double smem = hw.p[HW_SMEM_BANKS].v * hw.p[HW_SMEM_BANK_BYTES].v * sms * clk; /* GB/s */
    double l2 = -hw.p[HW_L2_GBS].v * clk; /* the arch table's bytes per clock x clock */
    const char *l2src = "arch table";
    const cJSON *prof = hr_profile_for(R, dname);
    double copy = -1;
    if (prof) {
        const double pl2 = hr_jnum(hr_jget(prof, "l2"), "read_gbs", -1);
        if (pl2 > 0) {
            l2 = pl2;
            l2src = "probe";
        }
        copy = hr_jnum(hr_jget(prof, "ceilings"), "copy_memcpy_gbs", -1);
    }
    /* the points: per file, op, dtype and variant, the largest size */
    FILE *g = sl_gp_script(R->gp);
    names series = {0};
    char *sname[MAX_NAMES];
    int total = 0, zero = 0, ceilings = 0;
    char zero_ops[256] = "";
    /* data blocks are written first, one per op+dtype */
    char *blocks[MAX_NAMES] = {0};
    size_t blen[MAX_NAMES] = {0};
    FILE *bf[MAX_NAMES] = {0};
    for (int i = 0; i < R->nin; i++) {
        if (R->in[i].kind != IN_RUN)
            continue;
        const cJSON *root = R->in[i].root, *row;
        cJSON_ArrayForEach(row, hr_jget(root, "results"))
        {
            const cJSON *d = hr_row_device(root, row);
            if (!hr_row_ok(row) || strcmp(hr_jstr(d, "name", ""), dname) || strcmp(hr_jstr(d, "backend", ""), "cuda"))
                continue;
            /* only the largest n of this (op, dtype, variant) in this file */
            bool larger = false;
            const cJSON *q;
            cJSON_ArrayForEach(q, hr_jget(root, "results")) if (hr_row_ok(q) && hr_row_device_index(q) == hr_row_device_index(row) &&
                                                              !strcmp(hr_jstr(q, "op", ""), hr_jstr(row, "op", "")) &&
                                                              !strcmp(hr_jstr(q, "dtype", ""), hr_jstr(row, "dtype", "")) &&
                                                              !strcmp(hr_jstr(q, "variant", ""), hr_jstr(row, "variant", "")) &&
                                                              hr_jnum(q, "n", 0) > hr_jnum(row, "n", 0)) larger = true;
            if (larger)
                continue;
            const double fl = row_flops(root, row);
            if (fl <= 0) {
                zero++;
                if (!strcmp(hr_jstr(row, "kind", ""), "ceiling"))
                    ceilings++;
                else if (!strstr(zero_ops, hr_jstr(row, "op", "?")))
                    snprintf(zero_ops + strlen(zero_ops), sizeof zero_ops - strlen(zero_ops), "%s%s",
                             zero_ops[0] ? ", " : "", hr_jstr(row, "op", "?"));
                continue;
            }
            char key[64];
            snprintf(key, sizeof key, "%s %s", hr_jstr(row, "op", "?"), hr_jstr(row, "dtype", "?"));
            int s = -1;
            for (int k = 0; k < series.n; k++)
                if (!strcmp(sname[k], key))
                    s = k;
            if (s < 0 && series.n < MAX_NAMES) {
                s = series.n;
                sname[s] = strdup(key);
                series.v[s] = sname[s];
                series.n++;
                bf[s] = open_memstream(&blocks[s], &blen[s]);
            }
            if (s < 0 || !bf[s] || !sname[s])
                continue;
            const double bytes = hr_jnum(row, "bytes", 0), ms = hr_row_median(row);
            fprintf(bf[s], "%.9g %.9g\n", fl / bytes, fl / (ms * 1e6));
            total++;
        }
    }
    if (total == 0) {
        for (int s = 0; s < series.n; s++) {
            if (bf[s])
                fclose(bf[s]);
            free(blocks[s]);
            free(sname[s]);
        }
        return;
    }
    fig *F = hr_new_fig_sized(R, 2, "arithmetic intensity (flop/B)", "performance (GFLOP/s)", 960,
                           600 + 22 * ((series.n + 4 + 3) / 4));
    if (!F)
        return;
    hr_gp_title(R, "roofline of %s: every measured kernel at its largest size", dname);
    for (int s = 0; s < series.n; s++) {
        fclose(bf[s]);
        fprintf(g, "$R%d << EOD\n%sEOD\n", s, blocks[s] ? blocks[s] : "");
        free(blocks[s]);
    }
    fprintf(g, "set logscale xy 10\nset xrange [0.01:1000]\nset yrange [1:%g]\nset key outside bottom center horizontal maxrows %d box font ',11'\n"
               "roof(x, b, p) = (x * b < p ? x * b : p)\nset samples 400\n",
            fp32 * 3, (series.n + 4 + 3) / 4);
    fprintf(g, "set label 'FP32 FMA roof %.0f GFLOP/s' at 30, %g tc rgb '#555555'\n", fp32, fp32 * 1.6);
    fprintf(g, "plot roof(x, %g, %g) lw 2 lc rgb '#d62728' title 'DRAM %.0f GB/s (theoretical)'", peak, fp32, peak);
    if (copy > 0)
        fprintf(g, ", roof(x, %g, %g) lw 2 dt 2 lc rgb '#111111' title 'DRAM copy %.0f GB/s (probe)'", copy, fp32,
                copy);
    if (l2 > 0)
        fprintf(g, ", roof(x, %g, %g) lw 2 lc rgb '#2ca02c' title 'L2 %.0f GB/s (%s)'", l2, fp32, l2, l2src);
    if (smem > 0)
        fprintf(g, ", roof(x, %g, %g) lw 2 lc rgb '#9467bd' title 'smem %.0f GB/s'", smem, fp32, smem);
    for (int s = 0; s < series.n; s++) {
        fprintf(g, ", $R%d using 1:2 with points pt %d ps 1.3 title ", s, 5 + s % 8);
        sl_gp_quote(g, sname[s]);
        free(sname[s]);
    }
    fprintf(g, "\n");
    snprintf(F->caption, sizeof F->caption,
             "Roofline of %s: %d kernels (every verified variant at the largest size of its run), arithmetic "
             "intensity = the op descriptor's flops / bytes read + written, performance = flops / median time. "
             "Slopes: DRAM at the theoretical peak%s, L2 (%s), shared memory (banks x 4 B x SMs x clock, hw.c's "
             "arch table); flat roof: FP32 FMA (2 x FP32 lanes x SMs x clock; lower-precision kernels have higher "
             "roofs).%s%s%s%s%s",
             dname, total, copy > 0 ? " and at the probe's copy ceiling" : "", l2src, zero ? " Not shown (no flops: no "
                                                                                           "point on a log scale): "
                                                                                         : "",
             ceilings ? "the copy-ceiling rows" : "", ceilings && zero_ops[0] ? " and the ops: " : "",
             zero ? zero_ops : "", zero ? "." : "");
}
