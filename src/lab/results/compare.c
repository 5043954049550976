/*
 * compare.c - see compare.h.
 */
#include "compare.h"

#include "sizes.h"
#include "table.h"

#include <string.h>

static bool same_group(const sl_cmp_line *l, const char *op, const char *dtype)
{
    return strcmp(l->op, op) == 0 && strcmp(l->dtype, dtype) == 0;
}

int sl_compare_lines(const sl_cmp_row *rows, int nrows, sl_cmp_line *out, int max)
{
    int n = 0;
    for (int i = 0; i < nrows && n < max; i++) {
        const sl_cmp_row *r = &rows[i];
        int k = 0;
        while (k < n && !(same_group(&out[k], r->op, r->dtype) && out[k].n == r->n))
            k++;
        if (k < n)
            continue; /* this (op, dtype, n) has its line */
        sl_cmp_line *l = &out[k];
        memset(l, 0, sizeof *l);
        snprintf(l->op, sizeof l->op, "%s", r->op);
        snprintf(l->dtype, sizeof l->dtype, "%s", r->dtype);
        l->n = r->n;
        l->serial_ms = l->omp_ms = l->naive_ms = l->best_ms = l->transfer_ms = -1;
        bool any_cpu = false, any_gpu = false;
        for (int j = 0; j < nrows; j++) {
            const sl_cmp_row *q = &rows[j];
            if (q->n != r->n || strcmp(q->op, r->op) != 0 || strcmp(q->dtype, r->dtype) != 0 || q->median_ms <= 0)
                continue;
            if (!q->gpu) {
                if (strcmp(q->variant, "serial") == 0)
                    l->serial_ms = q->median_ms;
                else if (strcmp(q->variant, "omp") == 0)
                    l->omp_ms = q->median_ms;
                any_cpu |= l->serial_ms > 0 || l->omp_ms > 0;
            } else if (q->rung_or_api) {
                any_gpu = true;
                if (strcmp(q->variant, "naive") == 0)
                    l->naive_ms = q->median_ms;
                if (q->transfer_ms >= 0)
                    l->transfer_ms = q->transfer_ms; /* one per shape: every GPU row has the same */
                if (l->best_ms < 0 || q->median_ms < l->best_ms) {
                    l->best_ms = q->median_ms;
                    snprintf(l->best, sizeof l->best, "%s", q->variant);
                }
            }
        }
        if (!any_cpu || !any_gpu)
            continue;
        l->best_over_serial = l->serial_ms > 0 ? l->serial_ms / l->best_ms : -1;
        l->best_over_omp = l->omp_ms > 0 ? l->omp_ms / l->best_ms : -1;
        l->naive_over_serial = l->serial_ms > 0 && l->naive_ms > 0 ? l->serial_ms / l->naive_ms : -1;
        const double with = l->transfer_ms >= 0 ? l->best_ms + l->transfer_ms : -1;
        l->xfer_over_serial = with > 0 && l->serial_ms > 0 ? l->serial_ms / with : -1;
        l->xfer_over_omp = with > 0 && l->omp_ms > 0 ? l->omp_ms / with : -1;
        n++;
    }
    return n;
}

void sl_compare_crossover(const sl_cmp_line *lines, int nlines, const char *op, const char *dtype, const char *cpu,
                          bool with_transfer, char *buf, size_t len)
{
    const bool omp = strcmp(cpu, "omp") == 0;
    /* The group's sizes with a CPU row, ascending (a few dozen at most). */
    enum { MAXN = 256 };
    uint64_t n[MAXN];
    bool win[MAXN];
    int m = 0;
    for (int i = 0; i < nlines && m < MAXN; i++) {
        const sl_cmp_line *l = &lines[i];
        const double cms = omp ? l->omp_ms : l->serial_ms;
        if (!same_group(l, op, dtype) || cms <= 0 || l->best_ms <= 0 || (with_transfer && l->transfer_ms < 0))
            continue;
        int k = m++;
        while (k > 0 && n[k - 1] > l->n) {
            n[k] = n[k - 1];
            win[k] = win[k - 1];
            k--;
        }
        n[k] = l->n;
        win[k] = l->best_ms + (with_transfer ? l->transfer_ms : 0) < cms;
    }
    char s[32];
    if (m == 0) {
        snprintf(buf, len, "no CPU %s rows", cpu);
        return;
    }
    if (!win[m - 1]) {
        sl_format_count(n[m - 1], s, sizeof s);
        snprintf(buf, len, "none up to n = %s", s);
        return;
    }
    int k = m - 1;
    while (k > 0 && win[k - 1])
        k--;
    sl_format_count(n[k], s, sizeof s);
    if (k == 0)
        snprintf(buf, len, "n = %s or below (the smallest size run)", s);
    else
        snprintf(buf, len, "n = %s", s);
}

/* v with `dec` decimals and a suffix, or "-" when v < 0 (none). */
static void fmt(char *b, size_t len, int dec, const char *suffix, double v)
{
    if (v < 0)
        snprintf(b, len, "-");
    else
        snprintf(b, len, "%.*f%s", dec, v, suffix);
}

bool sl_compare_group_crossovers(const sl_cmp_line *lines, int nlines, int i, sl_cmp_crossovers *out)
{
    for (int j = 0; j < i; j++)
        if (same_group(&lines[j], lines[i].op, lines[i].dtype))
            return false;
    const char *op = lines[i].op, *dt = lines[i].dtype;
    sl_compare_crossover(lines, nlines, op, dt, "omp", false, out->omp, sizeof out->omp);
    sl_compare_crossover(lines, nlines, op, dt, "serial", false, out->serial, sizeof out->serial);
    sl_compare_crossover(lines, nlines, op, dt, "omp", true, out->omp_xfer, sizeof out->omp_xfer);
    sl_compare_crossover(lines, nlines, op, dt, "serial", true, out->serial_xfer, sizeof out->serial_xfer);
    return true;
}

void sl_compare_print(const sl_cmp_line *lines, int nlines, FILE *txt, FILE *md)
{
    if (nlines <= 0 || (!txt && !md))
        return;
    static const sl_col cols[] = {{"op", 6, 'l'},          {"dtype", 5, 'l'},       {"n", 8, 'l'},
                                  {"serial ms", 9, 'r'},   {"omp ms", 9, 'r'},      {"GPU best", 10, 'l'},
                                  {"GPU ms", 9, 'r'},      {"GPU/serial", 10, 'r'}, {"GPU/omp", 8, 'r'},
                                  {"naive/serial", 12, 'r'}, {"xfer ms", 9, 'r'},   {"+xfer/serial", 12, 'r'},
                                  {"+xfer/omp", 9, 'r'}};
    bool xfer = false;
    for (int i = 0; i < nlines; i++)
        xfer |= lines[i].transfer_ms >= 0;
    if (txt)
        fprintf(txt, "\nCPU vs GPU (seed 002): speed-up = CPU median time / GPU median time, same run; GPU best = "
                     "its fastest verified rung or public function\n");
    if (md)
        fprintf(md, "\n## CPU vs GPU\n\nSpeed-up = CPU median time / GPU median time, measured in this run; GPU "
                    "best = its fastest verified rung or public function. Seed 002 reports its naive GPU kernel "
                    "\"nearly 200x faster\" than one CPU thread for large inputs.\n\n");
    sl_table t;
    sl_table_open(&t, cols, (int)(sizeof cols / sizeof cols[0]) - (xfer ? 0 : 3), txt, md);
    for (int i = 0; i < nlines; i++) {
        const sl_cmp_line *l = &lines[i];
        char n_s[32], s[16], o[16], g[16], r1[16], r2[16], r3[16], x0[16], x1[16], x2[16];
        sl_format_count(l->n, n_s, sizeof n_s);
        fmt(s, sizeof s, 4, "", l->serial_ms);
        fmt(o, sizeof o, 4, "", l->omp_ms);
        fmt(g, sizeof g, 4, "", l->best_ms);
        fmt(r1, sizeof r1, 1, "x", l->best_over_serial);
        fmt(r2, sizeof r2, 2, "x", l->best_over_omp);
        fmt(r3, sizeof r3, 1, "x", l->naive_over_serial);
        fmt(x0, sizeof x0, 4, "", l->transfer_ms);
        fmt(x1, sizeof x1, 1, "x", l->xfer_over_serial);
        fmt(x2, sizeof x2, 2, "x", l->xfer_over_omp);
        const char *cells[] = {l->op, l->dtype, n_s, s, o, l->best, g, r1, r2, r3, x0, x1, x2};
        sl_table_row(&t, cells);
    }
    /* one crossover line per (op, dtype) */
    for (int i = 0; i < nlines; i++) {
        sl_cmp_crossovers c;
        if (!sl_compare_group_crossovers(lines, nlines, i, &c))
            continue;
        for (int w = 0; w < 2; w++) {
            FILE *f = w ? md : txt;
            if (!f)
                continue;
            fprintf(f, "%scrossover %s %s (the GPU faster from there up), kernel times: vs OpenMP %s, vs one CPU thread %s",
                    w ? "\n- " : "", lines[i].op, lines[i].dtype, c.omp, c.serial);
            if (xfer)
                fprintf(f, "; with the transfers in and out: vs OpenMP %s, vs one thread %s", c.omp_xfer, c.serial_xfer);
            else
                fprintf(f, "; transfers not included (--include-transfer)");
            fputc('\n', f);
        }
    }
}
