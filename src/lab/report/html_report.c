/*
 * html_report.c - see html_report.h. Reads the files with cJSON, writes one
 * gnuplot script for every figure (gnuplot.h), runs gnuplot once, and
 * builds the page around the SVGs it drew.
 */
#define _POSIX_C_SOURCE 200809L
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

#define MAX_FIGS 512
#define MAX_NAMES 64

enum { IN_RUN = 1, IN_PROFILE };

typedef struct input {
    const char *path;
    const char *base; /* file name without directories */
    cJSON *root;
    int kind;
} input;

typedef struct fig {
    char id[40];
    int section;      /* 0 bandwidth, 1 ladder, 2 roofline, 3 probes */
    char caption[1024];
    char xlabel[96], ylabel[96];
    char *svg;
} fig;

typedef struct report {
    input *in;
    int nin;
    sl_gp *gp;
    fig figs[MAX_FIGS];
    int nfigs;
} report;

/* ---- small JSON helpers ----------------------------------------------------- */

static double jnum(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

static const char *jstr(const cJSON *o, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : dflt;
}

static const cJSON *jget(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* The device a run row ran on: "devices"[row.device] in a several-device
 * run, else the file's "device". */
static const cJSON *row_device(const cJSON *root, const cJSON *row)
{
    const cJSON *devs = jget(root, "devices");
    const cJSON *di = jget(row, "device");
    if (cJSON_IsArray(devs) && cJSON_IsNumber(di)) {
        const cJSON *d = cJSON_GetArrayItem(devs, di->valueint);
        if (d)
            return d;
    }
    return jget(root, "device");
}

static int row_device_index(const cJSON *row)
{
    return (int)jnum(row, "device", 0);
}

static double row_median(const cJSON *row)
{
    const cJSON *t = jget(row, "time_ms");
    return t ? jnum(t, "median", -1) : -1;
}

static bool row_ok(const cJSON *row)
{
    return strcmp(jstr(row, "status", ""), "ok") == 0 && row_median(row) > 0 && jnum(row, "bytes", 0) > 0;
}

/* ---- HTML -------------------------------------------------------------------- */

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

/* ---- figures ------------------------------------------------------------------ */

static fig *new_fig_sized(report *R, int section, const char *xlabel, const char *ylabel, int w, int h);

static fig *new_fig(report *R, int section, const char *xlabel, const char *ylabel)
{
    return new_fig_sized(R, section, xlabel, ylabel, 0, 0);
}

/* w x h pixels (0: the session's 960 x 540). */
static fig *new_fig_sized(report *R, int section, const char *xlabel, const char *ylabel, int w, int h)
{
    if (R->nfigs == MAX_FIGS)
        return NULL;
    fig *F = &R->figs[R->nfigs];
    memset(F, 0, sizeof *F);
    snprintf(F->id, sizeof F->id, "fig%d", R->nfigs + 1);
    F->section = section;
    snprintf(F->xlabel, sizeof F->xlabel, "%s", xlabel);
    snprintf(F->ylabel, sizeof F->ylabel, "%s", ylabel);
    R->nfigs++;
    FILE *g = sl_gp_script(R->gp);
    sl_gp_figure(R->gp, F->id, w, h);
    fputs("set xlabel ", g);
    sl_gp_quote(g, xlabel);
    fputs("\nset ylabel ", g);
    sl_gp_quote(g, ylabel);
    fputc('\n', g);
    return F;
}

static void gp_title(report *R, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void gp_title(report *R, const char *fmt, ...)
{
    char t[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t, sizeof t, fmt, ap);
    va_end(ap);
    FILE *g = sl_gp_script(R->gp);
    fputs("set title ", g);
    sl_gp_quote(g, t);
    fputc('\n', g);
}

/* The names (op, dtype, variant) in first-seen order. */
typedef struct names {
    const char *v[MAX_NAMES];
    int n;
} names;

static int names_add(names *s, const char *x)
{
    for (int i = 0; i < s->n; i++)
        if (strcmp(s->v[i], x) == 0)
            return i;
    if (s->n == MAX_NAMES)
        return -1;
    s->v[s->n] = x;
    return s->n++;
}

/* The probe profile of a device, among the inputs (by name), or NULL. */
static const cJSON *profile_for(const report *R, const char *device)
{
    for (int i = 0; i < R->nin; i++)
        if (R->in[i].kind == IN_PROFILE && strcmp(jstr(jget(R->in[i].root, "device"), "name", ""), device) == 0)
            return R->in[i].root;
    return NULL;
}

static void bytes_label(double b, char *buf, size_t len)
{
    sl_format_bytes(b, buf, len);
}

/* GB/s vs bytes moved per launch for one (file, device, op, dtype). */
static void fig_bandwidth(report *R, const input *in, int dev, const char *op, const char *dtype)
{
    const cJSON *rows = jget(in->root, "results"), *row;
    names variants = {0};
    double xmin = INFINITY, xmax = 0, ymax = 0;
    const cJSON *device = NULL;
    cJSON_ArrayForEach(row, rows)
    {
        if (row_device_index(row) != dev || strcmp(jstr(row, "op", ""), op) || strcmp(jstr(row, "dtype", ""), dtype) ||
            !row_ok(row))
            continue;
        device = row_device(in->root, row);
        names_add(&variants, jstr(row, "variant", "?"));
        double b = jnum(row, "bytes", 0), g = jnum(row, "gbs", 0);
        xmin = b < xmin ? b : xmin;
        xmax = b > xmax ? b : xmax;
        ymax = g > ymax ? g : ymax;
    }
    if (!variants.n || !device)
        return;
    const char *dname = jstr(device, "name", "?");
    const bool gpu = strcmp(jstr(device, "backend", ""), "cuda") == 0;
    const double l2 = jnum(device, "l2_bytes", 0), peak = jnum(device, "peak_gbs", -1);
    const cJSON *prof = profile_for(R, dname);
    const double ceil = prof ? jnum(jget(prof, "ceilings"), "copy_memcpy_gbs", -1) : -1;
    fig *F = new_fig(R, 0, "bytes moved per launch (B, read + written)", "bandwidth (GB/s, median)");
    if (!F)
        return;
    FILE *g = sl_gp_script(R->gp);
    gp_title(R, "%s %s on %s (%s)", op, dtype, dname, in->base);
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
        bytes_label(l2, l2s, sizeof l2s);
        fprintf(g, "set arrow from %g, graph 0 to %g, graph 1 nohead dt 2 lw 2 lc rgb '#7f7f7f'\n", l2, l2);
        fprintf(g, "set label '%s %s' at %g, graph 0.04 offset 0.5,0 tc rgb '#555555'\n", gpu ? "L2" : "LLC", l2s, l2);
    }
    for (int v = 0; v < variants.n; v++) {
        fprintf(g, "$V%d << EOD\n", v);
        cJSON_ArrayForEach(row, rows)
        {
            if (row_device_index(row) == dev && !strcmp(jstr(row, "op", ""), op) &&
                !strcmp(jstr(row, "dtype", ""), dtype) && !strcmp(jstr(row, "variant", ""), variants.v[v]) &&
                row_ok(row))
                fprintf(g, "%.9g %.9g\n", jnum(row, "bytes", 0), jnum(row, "gbs", 0));
        }
        fprintf(g, "EOD\n");
    }
    fprintf(g, "plot ");
    for (int v = 0; v < variants.n; v++) {
        /* the copy ceiling and the peers dashed, the rungs solid */
        const char *kind = "";
        cJSON_ArrayForEach(row, rows) if (!strcmp(jstr(row, "variant", ""), variants.v[v]))
        {
            kind = jstr(row, "kind", "");
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
static void fig_ladder(report *R, const input *in, int dev, const char *op, const char *dtype)
{
    const cJSON *rows = jget(in->root, "results"), *row;
    double nmax = 0;
    const cJSON *device = NULL;
    cJSON_ArrayForEach(row, rows)
    {
        if (row_device_index(row) == dev && !strcmp(jstr(row, "op", ""), op) && !strcmp(jstr(row, "dtype", ""), dtype) &&
            row_ok(row) && jnum(row, "n", 0) > nmax) {
            nmax = jnum(row, "n", 0);
            device = row_device(in->root, row);
        }
    }
    if (!device)
        return;
    const char *dname = jstr(device, "name", "?");
    fig *F = new_fig(R, 1, "variant (ladder order)", "bandwidth (GB/s, median)");
    if (!F)
        return;
    FILE *g = sl_gp_script(R->gp);
    char ns[32];
    sl_format_count((uint64_t)nmax, ns, sizeof ns);
    gp_title(R, "%s %s ladder at n = %s on %s (%s)", op, dtype, ns, dname, in->base);
    fprintf(g, "$L << EOD\n");
    double ymax = 0;
    int nbars = 0, nmodel = 0;
    cJSON_ArrayForEach(row, rows)
    {
        if (row_device_index(row) != dev || strcmp(jstr(row, "op", ""), op) || strcmp(jstr(row, "dtype", ""), dtype) ||
            !row_ok(row) || jnum(row, "n", 0) != nmax)
            continue;
        const double gbs = jnum(row, "gbs", 0), bytes = jnum(row, "bytes", 0);
        const cJSON *m = jget(row, "model");
        const double pred = m ? jnum(m, "pred_ms", -1) : -1;
        const double mg = pred > 0 ? bytes / (pred * 1e6) : NAN;
        const double xp = jnum(row, "x_peer", -1), pk = jnum(row, "pct_peak", -1);
        char lab[64] = "", a[24] = "", b[24] = "";
        if (xp > 0)
            snprintf(a, sizeof a, "%.2fx peer", xp);
        if (pk > 0)
            snprintf(b, sizeof b, "%.0f%% peak", pk);
        snprintf(lab, sizeof lab, "%s%s%s", a, a[0] && b[0] ? ", " : "", b);
        char mgs[32] = "NaN";
        if (!isnan(mg))
            snprintf(mgs, sizeof mgs, "%.6g", mg);
        fprintf(g, "\"%s\" %.6g %s \"%s\"\n", jstr(row, "variant", "?"), gbs, mgs, lab);
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
    const sl_op_desc *op = sl_op_find(jstr(row, "op", ""));
    if (!op)
        return 0;
    const cJSON *d = row_device(root, row);
    const sl_variant *v = sl_variant_find(op, strcmp(jstr(d, "backend", ""), "cuda") ? SL_BACKEND_CPU : SL_BACKEND_CUDA,
                                          jstr(row, "variant", ""));
    sl_shape s = sl_shape_1d((uint64_t)jnum(row, "n", 0));
    const cJSON *sh = jget(row, "shape");
    if (sh) {
        s.rows = (uint64_t)jnum(sh, "rows", 1);
        s.cols = (uint64_t)jnum(sh, "cols", (double)s.cols);
        s.ld = (uint64_t)jnum(sh, "ld", (double)s.cols);
        s.k = (uint64_t)jnum(sh, "k", 0);
    }
    if (v)
        return sl_variant_flops(op, v, &s);
    /* a variant this build does not have: a copy ceiling by its kind, else the op's flops */
    return strcmp(jstr(row, "kind", ""), "ceiling") == 0 ? 0 : sl_op_flops(op, &s);
}

/* One roofline per GPU (by name), over every run file. */
static void fig_roofline(report *R, const char *dname, const cJSON *device)
{
    const int cc = (int)(10 * atof(jstr(device, "compute_capability", "0")) + 0.5);
    const double sms = jnum(device, "sm_count", 0), clk = jnum(device, "sm_clock_max_khz", 0) / 1e6;
    const double peak = jnum(device, "peak_gbs", -1);
    sl_hw hw;
    if (sl_hw_from_arch(cc, &hw) != SL_OK && hw.p[HW_FP32_LANES_PER_SM].v <= 0)
        return;
    if (sms <= 0 || clk <= 0)
        return;
    const double fp32 = 2 * hw.p[HW_FP32_LANES_PER_SM].v * sms * clk; /* GFLOP/s: one FMA = 2 flops */
    const double smem = hw.p[HW_SMEM_BANKS].v * hw.p[HW_SMEM_BANK_BYTES].v * sms * clk; /* GB/s */
    double l2 = -hw.p[HW_L2_GBS].v * clk; /* the arch table's bytes per clock x clock */
    const char *l2src = "arch table";
    const cJSON *prof = profile_for(R, dname);
    double copy = -1;
    if (prof) {
        const double pl2 = jnum(jget(prof, "l2"), "read_gbs", -1);
        if (pl2 > 0) {
            l2 = pl2;
            l2src = "probe";
        }
        copy = jnum(jget(prof, "ceilings"), "copy_memcpy_gbs", -1);
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
        cJSON_ArrayForEach(row, jget(root, "results"))
        {
            const cJSON *d = row_device(root, row);
            if (!row_ok(row) || strcmp(jstr(d, "name", ""), dname) || strcmp(jstr(d, "backend", ""), "cuda"))
                continue;
            /* only the largest n of this (op, dtype, variant) in this file */
            bool larger = false;
            const cJSON *q;
            cJSON_ArrayForEach(q, jget(root, "results")) if (row_ok(q) && row_device_index(q) == row_device_index(row) &&
                                                              !strcmp(jstr(q, "op", ""), jstr(row, "op", "")) &&
                                                              !strcmp(jstr(q, "dtype", ""), jstr(row, "dtype", "")) &&
                                                              !strcmp(jstr(q, "variant", ""), jstr(row, "variant", "")) &&
                                                              jnum(q, "n", 0) > jnum(row, "n", 0)) larger = true;
            if (larger)
                continue;
            const double fl = row_flops(root, row);
            if (fl <= 0) {
                zero++;
                if (!strcmp(jstr(row, "kind", ""), "ceiling"))
                    ceilings++;
                else if (!strstr(zero_ops, jstr(row, "op", "?")))
                    snprintf(zero_ops + strlen(zero_ops), sizeof zero_ops - strlen(zero_ops), "%s%s",
                             zero_ops[0] ? ", " : "", jstr(row, "op", "?"));
                continue;
            }
            char key[64];
            snprintf(key, sizeof key, "%s %s", jstr(row, "op", "?"), jstr(row, "dtype", "?"));
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
            const double bytes = jnum(row, "bytes", 0), ms = row_median(row);
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
    fig *F = new_fig_sized(R, 2, "arithmetic intensity (flop/B)", "performance (GFLOP/s)", 960,
                           600 + 22 * ((series.n + 4 + 3) / 4));
    if (!F)
        return;
    gp_title(R, "roofline of %s: every measured kernel at its largest size", dname);
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

/* ---- probe figures ------------------------------------------------------------- */

static void fig_probes_sm(report *R, const input *in, const char *dname);

static void fig_probes(report *R, const input *in)
{
    const cJSON *root = in->root, *pts = jget(root, "points"), *p;
    const char *dname = jstr(jget(root, "device"), "name", "?");
    FILE *g = sl_gp_script(R->gp);
    const cJSON *lat = jget(pts, "latency");
    if (cJSON_GetArraySize(lat) > 0) {
        fig *F = new_fig(R, 3, "working set (B)", "load-to-use latency (ns, pointer chase)");
        if (F) {
            gp_title(R, "latency staircase on %s (%s)", dname, in->base);
            fprintf(g, "$S << EOD\n");
            cJSON_ArrayForEach(p, lat) fprintf(g, "%.9g %.9g\n", jnum(p, "working_set_bytes", 0), jnum(p, "ns", 0));
            fprintf(g, "EOD\nset logscale x 2\nset format x '%%.0b%%BB'\nset yrange [0:*]\nset key top left box\n");
            const cJSON *L = jget(root, "latency");
            const char *lv[3] = {"l1_ns", "l2_ns", "dram_ns"}, *ln[3] = {"L1", "L2", "DRAM"};
            fprintf(g, "plot $S using 1:2 with linespoints lw 2 pt 7 title 'measured'");
            for (int k = 0; k < 3; k++)
                if (jnum(L, lv[k], -1) > 0)
                    fprintf(g, ", %g with lines dt 2 title '%s plateau %.0f ns'", jnum(L, lv[k], 0), ln[k],
                            jnum(L, lv[k], 0));
            fprintf(g, "\n");
            snprintf(F->caption, sizeof F->caption,
                     "Latency staircase on %s (%s): one dependent load at a time over a growing working set; the "
                     "plateaus are L1, L2 and DRAM (seed 004).",
                     dname, in->base);
        }
    }
    const cJSON *bif = jget(pts, "bytes_in_flight");
    if (cJSON_GetArraySize(bif) > 0) {
        fig *F = new_fig(R, 3, "bytes in flight per SM (B)", "bandwidth (GB/s)");
        if (F) {
            gp_title(R, "bandwidth vs bytes in flight on %s (%s)", dname, in->base);
            fprintf(g, "$B << EOD\n");
            cJSON_ArrayForEach(p, bif) fprintf(g, "%.9g %.9g\n", jnum(p, "bytes_in_flight_per_sm", 0), jnum(p, "gbs", 0));
            fprintf(g, "EOD\nset logscale x 2\nset format x '%%.0b%%BB'\nset yrange [0:*]\nset key bottom right box\n");
            const cJSON *LL = jget(root, "littles_law");
            const double knee = jnum(LL, "knee_bif_per_sm", -1), kg = jnum(LL, "knee_gbs", -1);
            if (knee > 0) {
                char ks[32];
                bytes_label(knee, ks, sizeof ks);
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
    const cJSON *off = jget(pts, "offset");
    if (cJSON_GetArraySize(off) > 0) {
        fig *F = new_fig(R, 3, "offset (elements of 4 B)", "bandwidth (GB/s)");
        if (F) {
            gp_title(R, "offset copy on %s (%s)", dname, in->base);
            fprintf(g, "$O << EOD\n");
            cJSON_ArrayForEach(p, off) fprintf(g, "%.9g %.9g\n", jnum(p, "offset", 0), jnum(p, "gbs", 0));
            fprintf(g, "EOD\nset yrange [0:*]\nset key bottom right box\n"
                       "plot $O using 1:2 with linespoints pt 7 ps 0.6 title 'dst[i] = src[i + offset]'\n");
            snprintf(F->caption, sizeof F->caption,
                     "Offset copy on %s (%s): a misaligned start makes each warp touch one more 32-byte sector "
                     "(seed 002).",
                     dname, in->base);
        }
    }
    const cJSON *str = jget(pts, "stride");
    if (cJSON_GetArraySize(str) > 0) {
        fig *F = new_fig(R, 3, "stride (elements of 4 B)", "bandwidth (GB/s)");
        if (F) {
            gp_title(R, "strided copy on %s (%s)", dname, in->base);
            fprintf(g, "$T << EOD\n");
            cJSON_ArrayForEach(p, str) fprintf(g, "%.9g %.9g %.9g\n", jnum(p, "stride", 0), jnum(p, "useful_gbs", 0),
                                               jnum(p, "sector_gbs", 0));
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
    const cJSON *pts = jget(in->root, "points"), *p;
    FILE *g = sl_gp_script(R->gp);
    const cJSON *bank = jget(pts, "bank_conflicts");
    if (cJSON_GetArraySize(bank) > 0) {
        fig *F = new_fig(R, 3, "stride (words)", "cycles per warp access (loads)");
        if (F) {
            gp_title(R, "shared-memory bank conflicts on %s (%s)", dname, in->base);
            static const int words[] = {4, 8, 16};
            for (int w = 0; w < 3; w++) {
                fprintf(g, "$K%d << EOD\n", words[w]);
                cJSON_ArrayForEach(p, bank) if ((int)jnum(p, "word_bytes", 0) == words[w] && !cJSON_IsTrue(jget(p, "store")))
                    fprintf(g, "%.9g %.9g %.9g\n", jnum(p, "stride", 0), jnum(p, "cycles_per_access", 0),
                            jnum(p, "predicted_wavefronts", 0));
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
    const cJSON *l1 = jget(pts, "l1");
    if (cJSON_GetArraySize(l1) > 0) {
        fig *F = new_fig(R, 3, "working set per SM (B)", "L1 load bandwidth (B/clk/SM)");
        if (F) {
            gp_title(R, "L1 load bandwidth on %s (%s)", dname, in->base);
            for (int w = 4; w <= 16; w += 12) {
                fprintf(g, "$L%d << EOD\n", w);
                cJSON_ArrayForEach(p, l1) if ((int)jnum(p, "word_bytes", 0) == w)
                    fprintf(g, "%.9g %.9g\n", jnum(p, "working_set_bytes", 0), jnum(p, "bytes_per_clk_per_sm", 0));
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
    const cJSON *cst = jget(pts, "constant");
    if (cJSON_GetArraySize(cst) > 0) {
        fig *F = new_fig(R, 3, "distinct addresses per warp access (addresses)", "time per warp access (SM cycles)");
        if (F) {
            gp_title(R, "constant cache on %s (%s)", dname, in->base);
            double c1 = -1;
            fprintf(g, "$C << EOD\n");
            cJSON_ArrayForEach(p, cst)
            {
                if ((int)jnum(p, "distinct", 0) == 1)
                    c1 = jnum(p, "cycles_per_access", -1);
                fprintf(g, "%.9g %.9g\n", jnum(p, "distinct", 0), jnum(p, "cycles_per_access", 0));
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
    const cJSON *dv = jget(pts, "divergence");
    if (cJSON_GetArraySize(dv) > 0) {
        fig *F = new_fig(R, 3, "code paths per warp (paths)", "time (x uniform)");
        if (F) {
            gp_title(R, "warp divergence on %s (%s)", dname, in->base);
            static const char *cases[] = {"paths_by_lane", "paths_by_warp"};
            for (int c = 0; c < 2; c++) {
                fprintf(g, "$D%d << EOD\n", c);
                cJSON_ArrayForEach(p, dv) if (strcmp(jstr(p, "case", ""), cases[c]) == 0)
                    fprintf(g, "%.9g %.9g\n", jnum(p, "g", 0), jnum(p, "ratio", 0));
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

/* ---- tables ------------------------------------------------------------------------ */

/* A JSON value as nested definition tables (the record). */
static void html_value(FILE *f, const cJSON *v, int depth)
{
    if (cJSON_IsObject(v)) {
        fputs("<table class=\"kv\">", f);
        const cJSON *c;
        cJSON_ArrayForEach(c, v)
        {
            fputs("<tr><th>", f);
            esc(f, c->string);
            fputs("</th><td>", f);
            html_value(f, c, depth + 1);
            fputs("</td></tr>", f);
        }
        fputs("</table>", f);
    } else if (cJSON_IsArray(v)) {
        const int n = cJSON_GetArraySize(v);
        bool scalars = true;
        const cJSON *c;
        cJSON_ArrayForEach(c, v) scalars &= !cJSON_IsObject(c) && !cJSON_IsArray(c);
        if (scalars) {
            int i = 0;
            cJSON_ArrayForEach(c, v)
            {
                fputs(i++ ? ", " : "", f);
                html_value(f, c, depth + 1);
            }
        } else {
            int i = 0;
            cJSON_ArrayForEach(c, v)
            {
                fprintf(f, "<div>[%d of %d]</div>", i++, n);
                html_value(f, c, depth + 1);
            }
        }
    } else if (cJSON_IsString(v)) {
        esc(f, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        fprintf(f, "%.15g", v->valuedouble);
    } else if (cJSON_IsBool(v)) {
        fputs(cJSON_IsTrue(v) ? "true" : "false", f);
    } else {
        fputs("null", f);
    }
}

static void html_record(FILE *f, const input *in)
{
    fprintf(f, "<section class=\"record\"><h3>");
    esc(f, in->base);
    fprintf(f, " <small>(%s)</small></h3>\n", in->kind == IN_RUN ? "streamlab run" : "streamlab probe");
    const char *cmd = jstr(in->root, "command", NULL);
    if (cmd) {
        fputs("<pre class=\"cmd\">", f);
        esc(f, cmd);
        fputs("</pre>\n", f);
    }
    fputs("<table class=\"kv\">", f);
    const cJSON *c;
    cJSON_ArrayForEach(c, in->root)
    {
        if (!strcmp(c->string, "results") || !strcmp(c->string, "points") || !strcmp(c->string, "command"))
            continue;
        fputs("<tr><th>", f);
        esc(f, c->string);
        fputs("</th><td>", f);
        html_value(f, c, 1);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    /* rows flagged throttled by the record (issue 14) */
    int throttled = 0, rows = 0;
    cJSON_ArrayForEach(c, jget(in->root, "results"))
    {
        rows++;
        const cJSON *nv = jget(c, "nvml");
        throttled += nv && cJSON_IsTrue(jget(nv, "throttled"));
    }
    /* the per-row NVML record, where the file has one */
    bool any = false;
    cJSON_ArrayForEach(c, jget(in->root, "results")) any |= jget(c, "nvml") != NULL;
    if (any) {
        fputs("<table class=\"data\"><tr><th>op</th><th>dtype</th><th>variant</th><th>n</th><th>trials</th>"
              "<th>noise %</th><th>SM MHz start / end</th><th>memory MHz</th><th>power W</th><th>temp &deg;C</th>"
              "<th>clock-event reasons</th><th>throttled</th></tr>\n",
              f);
        cJSON_ArrayForEach(c, jget(in->root, "results"))
        {
            const cJSON *nv = jget(c, "nvml");
            if (!nv)
                continue;
            const cJSON *a = jget(nv, "start"), *b = jget(nv, "end");
            char ns[32];
            sl_format_count((uint64_t)jnum(c, "n", 0), ns, sizeof ns);
            fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%.2f</td>",
                    jstr(c, "op", "?"), jstr(c, "dtype", "?"), jstr(c, "variant", "?"), ns, (int)jnum(c, "trials", 0),
                    100 * jnum(c, "noise_rse_median", 0));
            fprintf(f, "<td>%.0f / %.0f</td><td>%.0f / %.0f</td><td>%.0f / %.0f</td><td>%.0f / %.0f</td><td>",
                    jnum(a, "sm_clock_mhz", -1), jnum(b, "sm_clock_mhz", -1), jnum(a, "mem_clock_mhz", -1),
                    jnum(b, "mem_clock_mhz", -1), jnum(a, "power_mw", -1) / 1e3, jnum(b, "power_mw", -1) / 1e3,
                    jnum(a, "temperature_c", -1), jnum(b, "temperature_c", -1));
            const cJSON *r;
            int k = 0;
            for (int e = 0; e < 2; e++)
                cJSON_ArrayForEach(r, jget(e ? b : a, "clock_event_reasons")) if (cJSON_IsString(r))
                {
                    fprintf(f, "%s%s%s", k++ ? ", " : "", e ? "end: " : "start: ", r->valuestring);
                }
            fprintf(f, "</td><td>%s</td></tr>\n", cJSON_IsTrue(jget(nv, "throttled")) ? "<b>yes</b>" : "no");
        }
        fputs("</table>\n", f);
    }
    if (in->kind == IN_RUN)
        fprintf(f, "<p>%d rows; %d flagged throttled by NVML's clock-event reasons%s.</p>\n", rows, throttled,
                jget(cJSON_GetArrayItem(jget(in->root, "results"), 0), "nvml") ? ""
                                                                               : " (this file predates the per-row "
                                                                                 "NVML record)");
    fputs("</section>\n", f);
}

static void html_compare(FILE *f, const input *in)
{
    const cJSON *root = in->root, *devs = jget(root, "devices"), *row;
    if (!cJSON_IsArray(devs))
        return;
    const int nrows = cJSON_GetArraySize(jget(root, "results"));
    sl_cmp_row *rows = calloc((size_t)nrows + 1, sizeof *rows);
    sl_cmp_line *lines = calloc((size_t)nrows + 1, sizeof *lines);
    if (!rows || !lines) {
        free(rows);
        free(lines);
        return;
    }
    int k = 0;
    cJSON_ArrayForEach(row, jget(root, "results"))
    {
        const cJSON *d = row_device(root, row);
        const char *kind = jstr(row, "kind", "");
        rows[k++] = (sl_cmp_row){.gpu = !strcmp(jstr(d, "backend", ""), "cuda"),
                                 .op = jstr(row, "op", "?"),
                                 .dtype = jstr(row, "dtype", "?"),
                                 .variant = jstr(row, "variant", "?"),
                                 /* same work only: not a rung that stores a narrower output (fp8out) */
                                 .rung_or_api = (!strcmp(kind, "rung") || !strcmp(kind, "api")) &&
                                                !strcmp(jstr(row, "out_dtype", jstr(row, "dtype", "")),
                                                        jstr(row, "dtype", "")),
                                 .n = (uint64_t)jnum(row, "n", 0),
                                 .median_ms = row_ok(row) ? row_median(row) : -1,
                                 .transfer_ms = jnum(row, "transfer_ms", -1)};
    }
    const int nl = sl_compare_lines(rows, k, lines, nrows + 1);
    if (nl > 0) {
        fputs("<h3>", f);
        esc(f, in->base);
        fputs("</h3>\n<table class=\"data\"><tr><th>op</th><th>dtype</th><th>n</th><th>serial ms</th><th>OpenMP "
              "ms</th><th>GPU best</th><th>GPU ms</th><th>GPU / serial</th><th>GPU / OpenMP</th><th>naive / "
              "serial</th><th>transfer ms</th><th>GPU+transfer / serial</th><th>GPU+transfer / OpenMP</th></tr>\n",
              f);
        for (int i = 0; i < nl; i++) {
            const sl_cmp_line *l = &lines[i];
            char ns[32];
            sl_format_count(l->n, ns, sizeof ns);
            fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td>", l->op, l->dtype, ns);
            const double v[] = {l->serial_ms, l->omp_ms};
            for (int j = 0; j < 2; j++)
                v[j] > 0 ? fprintf(f, "<td>%.4f</td>", v[j]) : fprintf(f, "<td>-</td>");
            fprintf(f, "<td>%s</td><td>%.4f</td>", l->best, l->best_ms);
            const double r[] = {l->best_over_serial, l->best_over_omp, l->naive_over_serial};
            for (int j = 0; j < 3; j++)
                r[j] > 0 ? fprintf(f, "<td>%.2fx</td>", r[j]) : fprintf(f, "<td>-</td>");
            l->transfer_ms >= 0 ? fprintf(f, "<td>%.4f</td>", l->transfer_ms) : fprintf(f, "<td>-</td>");
            const double x[] = {l->xfer_over_serial, l->xfer_over_omp};
            for (int j = 0; j < 2; j++)
                x[j] > 0 ? fprintf(f, "<td>%.2fx</td>", x[j]) : fprintf(f, "<td>-</td>");
            fputs("</tr>\n", f);
        }
        fputs("</table>\n<ul>\n", f);
        for (int i = 0; i < nl; i++) {
            sl_cmp_crossovers c;
            if (!sl_compare_group_crossovers(lines, nl, i, &c))
                continue;
            fprintf(f, "<li>crossover %s %s (the GPU faster from there up), kernel times: vs OpenMP %s, vs one CPU "
                       "thread %s",
                    lines[i].op, lines[i].dtype, c.omp, c.serial);
            if (lines[i].transfer_ms >= 0)
                fprintf(f, "; with the transfers in and out: vs OpenMP %s, vs one thread %s", c.omp_xfer, c.serial_xfer);
            else
                fputs("; transfers not measured (run with --include-transfer)", f);
            fputs(".</li>\n", f);
        }
        fputs("</ul>\n", f);
    }
    free(rows);
    free(lines);
}

/* ---- the page ------------------------------------------------------------------------- */

static const char *const section_title[4] = {"Bandwidth vs size", "Ladders at the largest size", "Roofline",
                                             "Memory-system probes"};

static const char css[] =
    "body{font-family:sans-serif;max-width:1100px;margin:0 auto;padding:1em;color:#222}"
    "figure.plot{margin:1.5em 0;border:1px solid #ddd;padding:.5em}figure.plot svg{width:100%;height:auto}"
    "figcaption{font-size:.9em;color:#444}table{border-collapse:collapse;font-size:.85em}table table{font-size:1em}"
    "table.data td,table.data th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
    "table.kv th{text-align:left;vertical-align:top;padding-right:1em}table.kv td{vertical-align:top}"
    "pre.cmd{background:#f4f4f4;padding:.5em;white-space:pre-wrap}nav li{font-size:.9em}";

/* Marks each figure with its rendered size and the page with the count of
 * figures that rendered, for the browser test (tests/check_report_browser.sh). */
static const char js[] =
    "window.addEventListener('load',function(){var n=0,f=document.querySelectorAll('figure.plot');"
    "for(var i=0;i<f.length;i++){var s=f[i].querySelector('svg');var r=s?s.getBoundingClientRect():null;"
    "if(r&&r.width>100&&r.height>100&&s.querySelectorAll('path,text').length>4){n++;f[i].setAttribute('data-rendered',"
    "Math.round(r.width)+'x'+Math.round(r.height));}}document.body.setAttribute('data-figures-rendered',n);"
    "var p=document.getElementById('render-status');if(p)p.textContent=n+' of '+f.length+' figures rendered.';});";

static void write_page(report *R, FILE *f, const sl_html_opts *o)
{
    char now[32];
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", &tm);
    fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
               "<meta name=\"generator\" content=\"streamlab report %s\">\n"
               "<meta name=\"streamlab-figures\" content=\"%d\">\n"
               "<title>streamlab report</title>\n<style>%s</style>\n<script>%s</script>\n</head>\n<body>\n",
            SL_VERSION_STRING, R->nfigs, css, js);
    fprintf(f, "<h1>streamlab report</h1>\n<p>Made %s by <code>", now);
    esc(f, o->command_line ? o->command_line : "streamlab report");
    fprintf(f, "</code> from %d file%s. Every figure is drawn by gnuplot; the page loads nothing from "
               "elsewhere. <span id=\"render-status\"></span></p>\n<ul>\n",
            R->nin, R->nin == 1 ? "" : "s");
    for (int i = 0; i < R->nin; i++) {
        fputs("<li><code>", f);
        esc(f, R->in[i].path);
        fprintf(f, "</code>: %s</li>\n", R->in[i].kind == IN_RUN ? "run results" : "probe profile");
    }
    fputs("</ul>\n<nav><ul>", f);
    for (int s = 0; s < 4; s++) {
        int n = 0;
        for (int i = 0; i < R->nfigs; i++)
            n += R->figs[i].section == s;
        if (n)
            fprintf(f, "<li><a href=\"#sec%d\">%s</a> (%d)</li>", s, section_title[s], n);
    }
    fputs("<li><a href=\"#cpu-gpu\">CPU vs GPU</a></li><li><a href=\"#record\">Reproducibility record</a></li>"
          "</ul></nav>\n",
          f);
    for (int s = 0; s < 4; s++) {
        bool open = false;
        for (int i = 0; i < R->nfigs; i++) {
            fig *F = &R->figs[i];
            if (F->section != s)
                continue;
            if (!open)
                fprintf(f, "<h2 id=\"sec%d\">%s</h2>\n", s, section_title[s]);
            open = true;
            fprintf(f, "<figure class=\"plot\" id=\"%s\" data-section=\"%d\" data-xlabel=\"", F->id, s);
            esc(f, F->xlabel);
            fputs("\" data-ylabel=\"", f);
            esc(f, F->ylabel);
            fputs("\">\n", f);
            fputs(F->svg, f);
            fputs("\n<figcaption>", f);
            esc(f, F->caption);
            fputs("</figcaption></figure>\n", f);
        }
    }
    fputs("<h2 id=\"cpu-gpu\">CPU vs GPU</h2>\n<p>From runs over both backends (<code>streamlab run --devices "
          "cpu,0</code>): speed-up = CPU median time / GPU median time, measured side by side in one run. Seed 002 "
          "reports its naive GPU vector add \"nearly 200x faster\" than one CPU thread for large inputs; the "
          "naive / serial column is our figure beside it.</p>\n",
          f);
    long before = ftell(f);
    for (int i = 0; i < R->nin; i++)
        if (R->in[i].kind == IN_RUN)
            html_compare(f, &R->in[i]);
    if (ftell(f) == before)
        fputs("<p>No input ran on both a CPU and a GPU.</p>\n", f);
    fputs("<h2 id=\"record\">Reproducibility record</h2>\n", f);
    for (int i = 0; i < R->nin; i++)
        html_record(f, &R->in[i]);
    fputs("</body></html>\n", f);
}

sl_status sl_html_report(const sl_html_opts *o, sl_html_stage *stage, int *nfigures)
{
    *nfigures = 0;
    *stage = SL_HTML_INPUT;
    report *R = calloc(1, sizeof *R);
    if (!R)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory");
    R->in = calloc((size_t)o->ninputs, sizeof *R->in);
    sl_status st = R->in ? SL_OK : sl_fail(SL_ERR_NO_MEMORY, "out of host memory");
    sl_output out;
    bool out_open = false;
    for (int i = 0; i < o->ninputs && st == SL_OK; i++) {
        input *in = &R->in[i];
        in->path = o->inputs[i];
        const char *slash = strrchr(in->path, '/');
        in->base = slash ? slash + 1 : in->path;
        size_t len = 0;
        char *text = sl_read_file(in->path, &len);
        if (!text) {
            st = sl_fail(SL_ERR_IO, "cannot read %s: %s", in->path, sl_read_error(errno));
            break;
        }
        R->nin = i + 1;
        char why[256];
        in->root = sl_json_parse(text, len, why, sizeof why);
        if (!in->root) {
            st = sl_fail(SL_ERR_IO, "%s: %s", in->path, why);
            free(text);
            break;
        }
        free(text);
        const char *schema = jstr(in->root, "schema", "");
        if (!strncmp(schema, "streamlab.run/", 14) && cJSON_IsArray(jget(in->root, "results"))) {
            in->kind = IN_RUN;
            /* Files of the first runs (one op, one dtype) name them in config only. */
            const char *op = jstr(jget(in->root, "config"), "op", "add");
            const char *dt = jstr(jget(in->root, "config"), "dtype", "f32");
            cJSON *row;
            cJSON_ArrayForEach(row, jget(in->root, "results"))
            {
                if (!cJSON_IsString(jget(row, "op")) && !strchr(op, ','))
                    cJSON_AddStringToObject(row, "op", op);
                if (!cJSON_IsString(jget(row, "dtype")) && !strchr(dt, ','))
                    cJSON_AddStringToObject(row, "dtype", dt);
            }
            char whyf[320];
            if (!sl_check_run_input(in->root, whyf, sizeof whyf))
                st = sl_fail(SL_ERR_IO, "%s is not a results file streamlab report can plot: %s", in->path, whyf);
        }
        else if (!strncmp(schema, "streamlab.profile/", 18)) {
            in->kind = IN_PROFILE;
            char whyf[320];
            if (!sl_check_profile_input(in->root, whyf, sizeof whyf))
                st = sl_fail(SL_ERR_IO, "%s is not a profile streamlab report can plot: %s", in->path, whyf);
        }
        else
            st = sl_fail(SL_ERR_IO,
                         "%s is not a streamlab results file (schema '%s'; streamlab report reads streamlab.run/1 "
                         "from run --json and streamlab.profile/1 from probe --json)",
                         in->path, schema);
    }
    if (st == SL_OK) {
        *stage = SL_HTML_OUTPUT;
        st = sl_output_open(&out, o->out_path, SL_REPORT_HTML_MARK);
        out_open = st == SL_OK;
    }
    char exe[4096];
    if (st == SL_OK) {
        *stage = SL_HTML_GNUPLOT;
        st = sl_gp_find(exe, sizeof exe);
    }
    if (st == SL_OK)
        st = sl_gp_open(exe, &R->gp);
    if (st == SL_OK) {
        /* bandwidth and ladder figures per file, device, op and dtype */
        for (int i = 0; i < R->nin; i++) {
            if (R->in[i].kind != IN_RUN)
                continue;
            const cJSON *row;
            int ndev = cJSON_IsArray(jget(R->in[i].root, "devices")) ? cJSON_GetArraySize(jget(R->in[i].root, "devices"))
                                                                      : 1;
            for (int d = 0; d < ndev; d++) {
                names groups = {0};
                char keys[MAX_NAMES][64];
                cJSON_ArrayForEach(row, jget(R->in[i].root, "results"))
                {
                    if (row_device_index(row) != d)
                        continue;
                    char k[64];
                    snprintf(k, sizeof k, "%s\t%s", jstr(row, "op", "?"), jstr(row, "dtype", "?"));
                    bool seen = false;
                    for (int j = 0; j < groups.n && !seen; j++)
                        seen = !strcmp(keys[j], k);
                    if (!seen && groups.n < MAX_NAMES) {
                        snprintf(keys[groups.n], sizeof keys[0], "%s", k);
                        groups.v[groups.n] = keys[groups.n];
                        groups.n++;
                    }
                }
                for (int j = 0; j < groups.n; j++) {
                    char op[64];
                    memcpy(op, keys[j], sizeof op);
                    char *tab = strchr(op, '\t');
                    *tab = '\0';
                    fig_bandwidth(R, &R->in[i], d, op, tab + 1);
                    fig_ladder(R, &R->in[i], d, op, tab + 1);
                }
            }
        }
        /* one roofline per GPU name */
        names gpus = {0};
        for (int i = 0; i < R->nin; i++) {
            if (R->in[i].kind != IN_RUN)
                continue;
            const cJSON *devs = jget(R->in[i].root, "devices"), *d;
            const cJSON *one[1] = {jget(R->in[i].root, "device")};
            if (cJSON_IsArray(devs)) {
                cJSON_ArrayForEach(d, devs)
                {
                    int before = gpus.n;
                    if (!strcmp(jstr(d, "backend", ""), "cuda"))
                        names_add(&gpus, jstr(d, "name", "?"));
                    if (gpus.n > before)
                        fig_roofline(R, jstr(d, "name", "?"), d);
                }
            } else if (one[0] && !strcmp(jstr(one[0], "backend", ""), "cuda")) {
                int before = gpus.n;
                names_add(&gpus, jstr(one[0], "name", "?"));
                if (gpus.n > before)
                    fig_roofline(R, jstr(one[0], "name", "?"), one[0]);
            }
        }
        for (int i = 0; i < R->nin; i++)
            if (R->in[i].kind == IN_PROFILE)
                fig_probes(R, &R->in[i]);
        st = sl_gp_run(R->gp);
    }
    for (int i = 0; i < R->nfigs && st == SL_OK; i++) {
        R->figs[i].svg = sl_gp_svg(R->gp, R->figs[i].id);
        if (!R->figs[i].svg)
            st = SL_ERR_IO;
    }
    if (st == SL_OK) {
        *stage = SL_HTML_WRITE;
        char *page = NULL;
        size_t plen = 0;
        FILE *f = open_memstream(&page, &plen);
        if (!f) {
            st = sl_fail(SL_ERR_NO_MEMORY, "out of host memory");
        } else {
            write_page(R, f, o);
            fclose(f);
            st = sl_output_replace(&out, page);
            free(page);
        }
        *nfigures = R->nfigs;
    }
    if (out_open)
        sl_output_close(&out);
    sl_gp_close(R->gp);
    for (int i = 0; i < R->nfigs; i++)
        free(R->figs[i].svg);
    for (int i = 0; i < R->nin; i++)
        cJSON_Delete(R->in[i].root);
    free(R->in);
    free(R);
    return st;
}
