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
    if (!rep->opts.csv_path)
        return SL_OK;
    FILE *f = fopen(rep->opts.csv_path, "w");
    if (!f)
        return sl_fail(SL_ERR_IO, "cannot write %s: %s", rep->opts.csv_path, strerror(errno));
    fprintf(f, "backend,device,op,dtype,out_dtype,variant,kind,n,bytes,fits_l2,status,trials,mean_ms,sd_ms,min_ms,"
               "median_ms,max_ms,gbs,gbs_best,gbs_sd,pct_peak,pct_copy,x_peer,pred_ms,limiter\n");
    fflush(f);
    *state = f;
    return SL_OK;
}

static sl_status csv_row(sl_report *rep, void *state, const sl_result *r)
{
    FILE *f = state;
    if (!f)
        return SL_OK;
    const sl_device_info *d = &rep->ctx->info;
    fprintf(f, "%s,%d,%s,%s,%s,%s,%s,%llu,%.0f,%d,%s,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%.3f,%.3f,%.3f,%.3f,%.4f,",
            d->backend == SL_BACKEND_CUDA ? "cuda" : "cpu", d->device, r->op->name, sl_dtype_name(r->dtype),
            sl_dtype_name(sl_variant_out_dtype(r->v, r->dtype)), r->v->name, sl_kind_name(r->v->kind),
            (unsigned long long)r->n, r->bytes, r->fits_l2, sl_row_check_word(r->status), r->trials, r->st.mean,
            r->st.sd, r->st.min, r->st.median, r->st.max, r->gbs, r->gbs_best, r->gbs_sd, r->pct_peak, r->pct_copy,
            r->x_peer);
    if (r->has_model)
        fprintf(f, "%.6f,%s\n", r->model.pred_ms, sl_bound_short(r->model.limiter));
    else
        fprintf(f, ",\n");
    if (fflush(f) != 0)
        return sl_fail(SL_ERR_IO, "cannot write %s: %s", rep->opts.csv_path, strerror(errno));
    return SL_OK;
}

static sl_status csv_close(sl_report *rep, void *state)
{
    FILE *f = state;
    if (f && fclose(f) != 0)
        return sl_fail(SL_ERR_IO, "cannot write %s: %s", rep->opts.csv_path, strerror(errno));
    return SL_OK;
}

const sl_writer sl_writer_csv = {"csv", csv_open, csv_row, csv_close};
