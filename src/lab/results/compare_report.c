/*
 * compare_report.c - the run's CPU vs GPU comparison (compare.h) from the
 * report's rows: text and Markdown under the table, and JSON.
 */
#include "compare.h"
#include "writer.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

/* The comparison's lines, or 0 when the run did not cover both backends. */
static int lines_of(const sl_report *rep, sl_cmp_line **out)
{
    *out = NULL;
    bool cpu = false, gpu = false;
    for (int i = 0; i < rep->meta.nctx; i++) {
        cpu |= rep->meta.ctxs[i]->info.backend == SL_BACKEND_CPU;
        gpu |= rep->meta.ctxs[i]->info.backend == SL_BACKEND_CUDA;
    }
    if (!cpu || !gpu || rep->nrows == 0)
        return 0;
    sl_cmp_row *rows = calloc((size_t)rep->nrows, sizeof *rows);
    sl_cmp_line *lines = calloc((size_t)rep->nrows, sizeof *lines);
    if (!rows || !lines) {
        free(rows);
        free(lines);
        return 0;
    }
    for (int i = 0; i < rep->nrows; i++) {
        const sl_row *r = &rep->rows[i];
        rows[i] = (sl_cmp_row){.gpu = r->gpu,
                               .op = r->op->name,
                               .dtype = sl_dtype_name(r->dtype),
                               .variant = r->v->name,
                               /* same work only: not a rung storing a narrower output (fp8out) */
                               .rung_or_api = (r->v->kind == SL_KIND_RUNG || r->v->kind == SL_KIND_API) &&
                                              sl_variant_out_dtype(r->v, r->dtype) == r->dtype,
                               .n = r->n,
                               .median_ms = r->median_ms,
                               .transfer_ms = r->transfer_ms};
    }
    int n = sl_compare_lines(rows, rep->nrows, lines, rep->nrows);
    free(rows);
    if (n == 0) {
        free(lines);
        return 0;
    }
    *out = lines;
    return n;
}

void sl_report_compare(const sl_report *rep, FILE *txt, FILE *md)
{
    sl_cmp_line *lines;
    int n = lines_of(rep, &lines);
    if (n > 0)
        sl_compare_print(lines, n, txt, md);
    free(lines);
}

static void num_or_null(cJSON *o, const char *k, double v)
{
    if (v < 0)
        cJSON_AddNullToObject(o, k);
    else
        cJSON_AddNumberToObject(o, k, v);
}

cJSON *sl_report_compare_json(const sl_report *rep)
{
    sl_cmp_line *lines;
    int n = lines_of(rep, &lines);
    if (n <= 0)
        return NULL;
    cJSON *o = cJSON_CreateObject();
    cJSON *arr = cJSON_AddArrayToObject(o, "rows");
    for (int i = 0; i < n; i++) {
        const sl_cmp_line *l = &lines[i];
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "op", l->op);
        cJSON_AddStringToObject(x, "dtype", l->dtype);
        cJSON_AddNumberToObject(x, "n", (double)l->n);
        num_or_null(x, "cpu_serial_ms", l->serial_ms);
        num_or_null(x, "cpu_omp_ms", l->omp_ms);
        cJSON_AddStringToObject(x, "gpu_best", l->best);
        num_or_null(x, "gpu_best_ms", l->best_ms);
        num_or_null(x, "gpu_naive_ms", l->naive_ms);
        num_or_null(x, "gpu_over_serial", l->best_over_serial);
        num_or_null(x, "gpu_over_omp", l->best_over_omp);
        num_or_null(x, "naive_over_serial", l->naive_over_serial);
        num_or_null(x, "transfer_ms", l->transfer_ms);
        num_or_null(x, "gpu_with_transfer_over_serial", l->xfer_over_serial);
        num_or_null(x, "gpu_with_transfer_over_omp", l->xfer_over_omp);
        cJSON_AddItemToArray(arr, x);
    }
    cJSON *cross = cJSON_AddArrayToObject(o, "crossover");
    for (int i = 0; i < n; i++) {
        sl_cmp_crossovers c;
        if (!sl_compare_group_crossovers(lines, n, i, &c))
            continue;
        cJSON *x = cJSON_CreateObject();
        cJSON_AddStringToObject(x, "op", lines[i].op);
        cJSON_AddStringToObject(x, "dtype", lines[i].dtype);
        cJSON_AddStringToObject(x, "gpu_beats_omp_from", c.omp);
        cJSON_AddStringToObject(x, "gpu_beats_serial_from", c.serial);
        cJSON_AddStringToObject(x, "with_transfer_gpu_beats_omp_from", c.omp_xfer);
        cJSON_AddStringToObject(x, "with_transfer_gpu_beats_serial_from", c.serial_xfer);
        cJSON_AddItemToArray(cross, x);
    }
    cJSON_AddStringToObject(o, "note", "speed-up = CPU median time / GPU median time in this run; kernel times, "
                                       "and with --include-transfer also with the host <-> device copies of one "
                                       "call added to the GPU's");
    free(lines);
    return o;
}
