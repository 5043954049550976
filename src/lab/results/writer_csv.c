/*
 * writer_csv.c - one CSV line per row, appended and flushed as each row
 * finishes (a CSV file is valid after any line).
 */
#include "writer.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static sl_status csv_open(sl_report *rep, void **state)
{
    *state = NULL;
    if (!rep->has_csv)
        return SL_OK;
    FILE *f = sl_output_stream(&rep->csv);
    if (!f)
        return SL_ERR_IO;
    fprintf(f, "backend,device,op,dtype,out_dtype,variant,kind,n,bytes,fits_l2,status,trials,mean_ms,sd_ms,min_ms,"
               "median_ms,max_ms,gbs,gbs_best,gbs_sd,pct_peak,pct_copy,x_peer,pred_ms,limiter\n");
    fflush(f);
    *state = f;
    return SL_OK;
}

/* ",value", or "," alone where the JSON has null: a measurement that was
 * not made (no trials, no copy row, no peer). */
static void field(FILE *f, bool have, int decimals, double v)
{
    fputc(',', f);
    if (have)
        fprintf(f, "%.*f", decimals, v);
}

static sl_status csv_row(sl_report *rep, void *state, const sl_result *r)
{
    FILE *f = state;
    if (!f)
        return SL_OK;
    const sl_device_info *d = &r->ctx->info;
    (void)rep;
    const bool timed = r->trials > 0;
    fprintf(f, "%s,%d,%s,%s,%s,%s,%s,%llu,%.0f,%d,%s,%d", d->backend == SL_BACKEND_CUDA ? "cuda" : "cpu", d->device,
            r->op->name, sl_dtype_name(r->dtype), sl_dtype_name(sl_variant_out_dtype(r->v, r->dtype)), r->v->name,
            sl_kind_name(r->v->kind), (unsigned long long)r->n, r->bytes, r->fits_l2, sl_row_check_word(r->status),
            r->trials);
    field(f, timed, 6, r->st.mean);
    field(f, timed, 6, r->st.sd);
    field(f, timed, 6, r->st.min);
    field(f, timed, 6, r->st.median);
    field(f, timed, 6, r->st.max);
    field(f, timed, 3, r->gbs);
    field(f, timed, 3, r->gbs_best);
    field(f, timed, 3, r->gbs_sd);
    field(f, r->pct_peak >= 0, 3, r->pct_peak);
    field(f, r->pct_copy >= 0, 3, r->pct_copy);
    field(f, r->x_peer >= 0, 4, r->x_peer);
    field(f, r->has_model, 6, r->has_model ? r->model.pred_ms : 0.0);
    fprintf(f, ",%s\n", r->has_model ? sl_bound_short(r->model.limiter) : "");
    if (fflush(f) != 0)
        return sl_fail(SL_ERR_IO, "cannot write %s: %s", rep->csv.path, strerror(errno));
    return SL_OK;
}

static sl_status csv_close(sl_report *rep, void *state)
{
    FILE *f = state;
    if (!f)
        return SL_OK;
    const bool had_error = ferror(f) != 0;
    const int closed = fclose(f);
    if (closed != 0 || had_error)
        return sl_fail(SL_ERR_IO, "cannot write %s: %s", rep->csv.path,
                       closed != 0 ? strerror(errno) : "an earlier write failed");
    return SL_OK;
}

const sl_writer sl_writer_csv = {"csv", csv_open, csv_row, csv_close};
