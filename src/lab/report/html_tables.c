/*
 * html_tables.c - the reproducibility record and the comparison of runs as HTML
 * tables (html_internal.h).
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
            hr_esc(f, c->string);
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
        hr_esc(f, v->valuestring);
    } else if (cJSON_IsNumber(v)) {
        fprintf(f, "%.15g", v->valuedouble);
    } else if (cJSON_IsBool(v)) {
        fputs(cJSON_IsTrue(v) ? "true" : "false", f);
    } else {
        fputs("null", f);
    }
}

void hr_html_record(FILE *f, const input *in)
{
    fprintf(f, "<section class=\"record\"><h3>");
    hr_esc(f, in->base);
    fprintf(f, " <small>(%s)</small></h3>\n", in->kind == IN_RUN ? "streamlab run" : "streamlab probe");
    const char *cmd = hr_jstr(in->root, "command", NULL);
    if (cmd) {
        fputs("<pre class=\"cmd\">", f);
        hr_esc(f, cmd);
        fputs("</pre>\n", f);
    }
    fputs("<table class=\"kv\">", f);
    const cJSON *c;
    cJSON_ArrayForEach(c, in->root)
    {
        if (!strcmp(c->string, "results") || !strcmp(c->string, "points") || !strcmp(c->string, "command"))
            continue;
        fputs("<tr><th>", f);
        hr_esc(f, c->string);
        fputs("</th><td>", f);
        html_value(f, c, 1);
        fputs("</td></tr>\n", f);
    }
    fputs("</table>\n", f);
    /* rows flagged throttled by the record (issue 14) */
    int throttled = 0, rows = 0;
    cJSON_ArrayForEach(c, hr_jget(in->root, "results"))
    {
        rows++;
        const cJSON *nv = hr_jget(c, "nvml");
        throttled += nv && cJSON_IsTrue(hr_jget(nv, "throttled"));
    }
    /* the per-row NVML record, where the file has one */
    bool any = false;
    cJSON_ArrayForEach(c, hr_jget(in->root, "results")) any |= hr_jget(c, "nvml") != NULL;
    if (any) {
        fputs("<table class=\"data\"><tr><th>op</th><th>dtype</th><th>variant</th><th>n</th><th>trials</th>"
              "<th>noise %</th><th>SM MHz start / end</th><th>memory MHz</th><th>power W</th><th>temp &deg;C</th>"
              "<th>clock-event reasons</th><th>throttled</th></tr>\n",
              f);
        cJSON_ArrayForEach(c, hr_jget(in->root, "results"))
        {
            const cJSON *nv = hr_jget(c, "nvml");
            if (!nv)
                continue;
            const cJSON *a = hr_jget(nv, "start"), *b = hr_jget(nv, "end");
            char ns[32];
            sl_format_count((uint64_t)hr_jnum(c, "n", 0), ns, sizeof ns);
            fprintf(f, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%d</td><td>%.2f</td>",
                    hr_jstr(c, "op", "?"), hr_jstr(c, "dtype", "?"), hr_jstr(c, "variant", "?"), ns, (int)hr_jnum(c, "trials", 0),
                    100 * hr_jnum(c, "noise_rse_median", 0));
            fprintf(f, "<td>%.0f / %.0f</td><td>%.0f / %.0f</td><td>%.0f / %.0f</td><td>%.0f / %.0f</td><td>",
                    hr_jnum(a, "sm_clock_mhz", -1), hr_jnum(b, "sm_clock_mhz", -1), hr_jnum(a, "mem_clock_mhz", -1),
                    hr_jnum(b, "mem_clock_mhz", -1), hr_jnum(a, "power_mw", -1) / 1e3, hr_jnum(b, "power_mw", -1) / 1e3,
                    hr_jnum(a, "temperature_c", -1), hr_jnum(b, "temperature_c", -1));
            const cJSON *r;
            int k = 0;
            for (int e = 0; e < 2; e++)
                cJSON_ArrayForEach(r, hr_jget(e ? b : a, "clock_event_reasons")) if (cJSON_IsString(r))
                {
                    fprintf(f, "%s%s%s", k++ ? ", " : "", e ? "end: " : "start: ", r->valuestring);
                }
            fprintf(f, "</td><td>%s</td></tr>\n", cJSON_IsTrue(hr_jget(nv, "throttled")) ? "<b>yes</b>" : "no");
        }
        fputs("</table>\n", f);
    }
    if (in->kind == IN_RUN)
        fprintf(f, "<p>%d rows; %d flagged throttled by NVML's clock-event reasons%s.</p>\n", rows, throttled,
                hr_jget(cJSON_GetArrayItem(hr_jget(in->root, "results"), 0), "nvml") ? ""
                                                                               : " (this file predates the per-row "
                                                                                 "NVML record)");
    fputs("</section>\n", f);
}

void hr_html_compare(FILE *f, const input *in)
{
    const cJSON *root = in->root, *devs = hr_jget(root, "devices"), *row;
    if (!cJSON_IsArray(devs))
        return;
    const int nrows = cJSON_GetArraySize(hr_jget(root, "results"));
    sl_cmp_row *rows = calloc((size_t)nrows + 1, sizeof *rows);
    sl_cmp_line *lines = calloc((size_t)nrows + 1, sizeof *lines);
    if (!rows || !lines) {
        free(rows);
        free(lines);
        return;
    }
    int k = 0;
    cJSON_ArrayForEach(row, hr_jget(root, "results"))
    {
        const cJSON *d = hr_row_device(root, row);
        const char *kind = hr_jstr(row, "kind", "");
        rows[k++] = (sl_cmp_row){.gpu = !strcmp(hr_jstr(d, "backend", ""), "cuda"),
                                 .op = hr_jstr(row, "op", "?"),
                                 .dtype = hr_jstr(row, "dtype", "?"),
                                 .variant = hr_jstr(row, "variant", "?"),
                                 /* same work only: not a rung that stores a narrower output (fp8out) */
                                 .rung_or_api = (!strcmp(kind, "rung") || !strcmp(kind, "api")) &&
                                                !strcmp(hr_jstr(row, "out_dtype", hr_jstr(row, "dtype", "")),
                                                        hr_jstr(row, "dtype", "")),
                                 .n = (uint64_t)hr_jnum(row, "n", 0),
                                 .median_ms = hr_row_ok(row) ? hr_row_median(row) : -1,
                                 .transfer_ms = hr_jnum(row, "transfer_ms", -1)};
    }
    const int nl = sl_compare_lines(rows, k, lines, nrows + 1);
    if (nl > 0) {
        fputs("<h3>", f);
        hr_esc(f, in->base);
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
