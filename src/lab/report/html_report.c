/*
 * html_report.c - see html_report.h. Reads the files with cJSON, writes one
 * gnuplot script for every figure (gnuplot.h), runs gnuplot once, and
 * builds the page around the SVGs it drew. The figures are drawn by one
 * file per family (html_internal.h); this file holds the page and the
 * helpers they share.
 */
#define _POSIX_C_SOURCE 200809L
#include "html_report.h"
#include "html_internal.h"

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

/* ---- small JSON helpers ----------------------------------------------------- */

double hr_jnum(const cJSON *o, const char *key, double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

const char *hr_jstr(const cJSON *o, const char *key, const char *dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) && v->valuestring ? v->valuestring : dflt;
}

const cJSON *hr_jget(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* The device a run row ran on: "devices"[row.device] in a several-device
 * run, else the file's "device". */
const cJSON *hr_row_device(const cJSON *root, const cJSON *row)
{
    const cJSON *devs = hr_jget(root, "devices");
    const cJSON *di = hr_jget(row, "device");
    if (cJSON_IsArray(devs) && cJSON_IsNumber(di)) {
        const cJSON *d = cJSON_GetArrayItem(devs, di->valueint);
        if (d)
            return d;
    }
    return hr_jget(root, "device");
}

int hr_row_device_index(const cJSON *row)
{
    return (int)hr_jnum(row, "device", 0);
}

double hr_row_median(const cJSON *row)
{
    const cJSON *t = hr_jget(row, "time_ms");
    return t ? hr_jnum(t, "median", -1) : -1;
}

bool hr_row_ok(const cJSON *row)
{
    return strcmp(hr_jstr(row, "status", ""), "ok") == 0 && hr_row_median(row) > 0 && hr_jnum(row, "bytes", 0) > 0;
}

/* ---- HTML -------------------------------------------------------------------- */

void hr_esc(FILE *f, const char *s)
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

fig *hr_new_fig(report *R, int section, const char *xlabel, const char *ylabel)
{
    return hr_new_fig_sized(R, section, xlabel, ylabel, 0, 0);
}

/* w x h pixels (0: the session's 960 x 540). */
fig *hr_new_fig_sized(report *R, int section, const char *xlabel, const char *ylabel, int w, int h)
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

void hr_gp_title(report *R, const char *fmt, ...)
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

int hr_names_add(names *s, const char *x)
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
const cJSON *hr_profile_for(const report *R, const char *device)
{
    for (int i = 0; i < R->nin; i++)
        if (R->in[i].kind == IN_PROFILE && strcmp(hr_jstr(hr_jget(R->in[i].root, "device"), "name", ""), device) == 0)
            return R->in[i].root;
    return NULL;
}

void hr_bytes_label(double b, char *buf, size_t len)
{
    sl_format_bytes(b, buf, len);
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
    hr_esc(f, o->command_line ? o->command_line : "streamlab report");
    fprintf(f, "</code> from %d file%s. Every figure is drawn by gnuplot; the page loads nothing from "
               "elsewhere. <span id=\"render-status\"></span></p>\n<ul>\n",
            R->nin, R->nin == 1 ? "" : "s");
    for (int i = 0; i < R->nin; i++) {
        fputs("<li><code>", f);
        hr_esc(f, R->in[i].path);
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
            hr_esc(f, F->xlabel);
            fputs("\" data-ylabel=\"", f);
            hr_esc(f, F->ylabel);
            fputs("\">\n", f);
            fputs(F->svg, f);
            fputs("\n<figcaption>", f);
            hr_esc(f, F->caption);
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
            hr_html_compare(f, &R->in[i]);
    if (ftell(f) == before)
        fputs("<p>No input ran on both a CPU and a GPU.</p>\n", f);
    fputs("<h2 id=\"record\">Reproducibility record</h2>\n", f);
    for (int i = 0; i < R->nin; i++)
        hr_html_record(f, &R->in[i]);
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
        const char *schema = hr_jstr(in->root, "schema", "");
        if (!strncmp(schema, "streamlab.run/", 14) && cJSON_IsArray(hr_jget(in->root, "results"))) {
            in->kind = IN_RUN;
            /* Files of the first runs (one op, one dtype) name them in config only. */
            const char *op = hr_jstr(hr_jget(in->root, "config"), "op", "add");
            const char *dt = hr_jstr(hr_jget(in->root, "config"), "dtype", "f32");
            cJSON *row;
            cJSON_ArrayForEach(row, hr_jget(in->root, "results"))
            {
                if (!cJSON_IsString(hr_jget(row, "op")) && !strchr(op, ','))
                    cJSON_AddStringToObject(row, "op", op);
                if (!cJSON_IsString(hr_jget(row, "dtype")) && !strchr(dt, ','))
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
            int ndev = cJSON_IsArray(hr_jget(R->in[i].root, "devices")) ? cJSON_GetArraySize(hr_jget(R->in[i].root, "devices"))
                                                                      : 1;
            for (int d = 0; d < ndev; d++) {
                names groups = {0};
                char keys[MAX_NAMES][64];
                cJSON_ArrayForEach(row, hr_jget(R->in[i].root, "results"))
                {
                    if (hr_row_device_index(row) != d)
                        continue;
                    char k[64];
                    snprintf(k, sizeof k, "%s\t%s", hr_jstr(row, "op", "?"), hr_jstr(row, "dtype", "?"));
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
                    hr_fig_bandwidth(R, &R->in[i], d, op, tab + 1);
                    hr_fig_ladder(R, &R->in[i], d, op, tab + 1);
                }
            }
        }
        /* one roofline per GPU name */
        names gpus = {0};
        for (int i = 0; i < R->nin; i++) {
            if (R->in[i].kind != IN_RUN)
                continue;
            const cJSON *devs = hr_jget(R->in[i].root, "devices"), *d;
            const cJSON *one[1] = {hr_jget(R->in[i].root, "device")};
            if (cJSON_IsArray(devs)) {
                cJSON_ArrayForEach(d, devs)
                {
                    int before = gpus.n;
                    if (!strcmp(hr_jstr(d, "backend", ""), "cuda"))
                        hr_names_add(&gpus, hr_jstr(d, "name", "?"));
                    if (gpus.n > before)
                        hr_fig_roofline(R, hr_jstr(d, "name", "?"), d);
                }
            } else if (one[0] && !strcmp(hr_jstr(one[0], "backend", ""), "cuda")) {
                int before = gpus.n;
                hr_names_add(&gpus, hr_jstr(one[0], "name", "?"));
                if (gpus.n > before)
                    hr_fig_roofline(R, hr_jstr(one[0], "name", "?"), one[0]);
            }
        }
        for (int i = 0; i < R->nin; i++)
            if (R->in[i].kind == IN_PROFILE)
                hr_fig_probes(R, &R->in[i]);
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
