/*
 * writer_json.c - everything as one JSON document (schema streamlab.run/1,
 * built with cJSON), replaced atomically after every row: status
 * "running" while the sweep goes on, then "complete", "interrupted" or
 * "failed".
 */
#define _POSIX_C_SOURCE 200809L
#include "writer.h"

#include "record.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef SL_GIT_DESCRIBE
#define SL_GIT_DESCRIBE "unknown"
#endif

static void add_num_or_null(cJSON *o, const char *key, double v)
{
    if (v < 0)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

static cJSON *device_json(const sl_ctx *ctx)
{
    return sl_device_info_json(&ctx->info);
}

static cJSON *check_json(const sl_check *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "mismatches", (double)c->mismatches);
    cJSON_AddNumberToObject(o, "inexact_within_tolerance", (double)c->inexact);
    cJSON_AddNumberToObject(o, "max_error_over_tolerance", c->max_err_ratio);
    cJSON *arr = cJSON_AddArrayToObject(o, "first");
    const int digits = 2 * (int)sl_dtype_size(c->dtype);
    for (int i = 0; i < c->shown; i++) {
        cJSON *m = cJSON_CreateObject();
        char hex[24];
        if (c->buf)
            cJSON_AddStringToObject(m, "buffer", c->buf);
        cJSON_AddNumberToObject(m, "index", (double)c->first[i].index);
        snprintf(hex, sizeof hex, "0x%0*llx", digits, (unsigned long long)c->first[i].got);
        cJSON_AddStringToObject(m, "got", hex);
        snprintf(hex, sizeof hex, "0x%0*llx", digits, (unsigned long long)c->first[i].want);
        cJSON_AddStringToObject(m, "want", hex);
        cJSON_AddItemToArray(arr, m);
    }
    return o;
}

static cJSON *model_json(const sl_model *m, const sl_result *r)
{
    cJSON *mo = cJSON_CreateObject();
    cJSON_AddNumberToObject(mo, "pred_ms", m->pred_ms);
    cJSON_AddStringToObject(mo, "limiter", sl_bound_name(m->limiter));
    if (r->trials > 0 && r->st.median > 0)
        cJSON_AddNumberToObject(mo, "meas_over_pred", r->st.median / m->pred_ms);
    cJSON *b = cJSON_AddObjectToObject(mo, "bounds_ms");
    for (int i = 0; i < SL_B_COUNT; i++)
        add_num_or_null(b, sl_bound_short((sl_bound)i), m->ms[i]);
    add_num_or_null(mo, "latency_efficiency", m->latency_eff);
    cJSON_AddNumberToObject(mo, "bytes_in_flight_per_sm", m->bif_per_sm);
    cJSON_AddNumberToObject(mo, "bytes_in_flight_needed_per_sm", m->bif_needed_per_sm);
    cJSON_AddBoolToObject(mo, "l2_resident", m->l2_resident);
    return mo;
}

static cJSON *row_json(const sl_report *rep, const sl_result *r)
{
    cJSON *o = cJSON_CreateObject();
    for (int i = 0; i < rep->meta.nctx && rep->meta.nctx > 1; i++)
        if (rep->meta.ctxs[i] == r->ctx)
            cJSON_AddNumberToObject(o, "device", i); /* index into "devices" */
    cJSON_AddStringToObject(o, "op", r->op->name);
    cJSON_AddStringToObject(o, "variant", r->v->name);
    cJSON_AddStringToObject(o, "dtype", sl_dtype_name(r->dtype));
    cJSON_AddStringToObject(o, "out_dtype", sl_dtype_name(sl_variant_out_dtype(r->v, r->dtype)));
    cJSON_AddStringToObject(o, "kind", sl_kind_name(r->v->kind));
    cJSON_AddStringToObject(o, "technique", r->v->technique);
    cJSON_AddNumberToObject(o, "n", (double)r->n);
    if (r->size_label)
        cJSON_AddStringToObject(o, "size_given", r->size_label);
    if (r->op->rank == 2) {
        cJSON *sh = cJSON_AddObjectToObject(o, "shape");
        cJSON_AddNumberToObject(sh, "rows", (double)r->shape.rows);
        cJSON_AddNumberToObject(sh, "cols", (double)r->shape.cols);
        cJSON_AddNumberToObject(sh, "ld", (double)r->shape.ld);
        if (r->shape.k) /* the third extent: matmul's K, the stencil's radius */
            cJSON_AddNumberToObject(sh, "k", (double)r->shape.k);
    }
    cJSON_AddNumberToObject(o, "bytes_per_elem", r->n ? r->bytes / (double)r->n : 0.0);
    cJSON_AddNumberToObject(o, "bytes", r->bytes);
    cJSON_AddNumberToObject(o, "bytes_read", r->traffic.rd_bytes);
    cJSON_AddNumberToObject(o, "bytes_written", r->traffic.wr_bytes);
    cJSON_AddBoolToObject(o, "fits_l2", r->fits_l2);
    cJSON_AddStringToObject(o, "status", sl_row_check_word(r->status));
    if (r->message[0])
        cJSON_AddStringToObject(o, "message", r->message);
    cJSON_AddBoolToObject(o, "verified", r->status == SL_OK);
    cJSON_AddItemToObject(o, "check_before", check_json(&r->before));
    cJSON_AddItemToObject(o, "check_after", check_json(&r->after));
    cJSON *seeds = cJSON_AddObjectToObject(o, "seeds");
    for (int k = 0; k < r->op->nbufs; k++) {
        if (!sl_role_read(r->op->bufs[k].role))
            continue;
        char seed[24];
        snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)r->seeds[k]);
        cJSON_AddStringToObject(seeds, r->op->bufs[k].name, seed);
    }
    cJSON_AddNumberToObject(o, "trials", r->trials);
    if (r->trials > 0) {
        cJSON_AddNumberToObject(o, "noise_rse_median", r->noise);
        if (r->transfer_ms >= 0 && r->ctx->info.backend == SL_BACKEND_CUDA)
            cJSON_AddNumberToObject(o, "transfer_ms", r->transfer_ms);
        cJSON_AddStringToObject(o, "trials_stopped_by", sl_stop_reason_name(r->stop));
        cJSON *t = cJSON_AddObjectToObject(o, "time_ms");
        cJSON_AddNumberToObject(t, "mean", r->st.mean);
        cJSON_AddNumberToObject(t, "sd", r->st.sd);
        cJSON_AddNumberToObject(t, "min", r->st.min);
        cJSON_AddNumberToObject(t, "median", r->st.median);
        cJSON_AddNumberToObject(t, "max", r->st.max);
        int keep = r->trials < 1024 ? r->trials : 1024;
        cJSON_AddItemToObject(t, "trials", cJSON_CreateDoubleArray(r->times_ms, keep));
        cJSON_AddNumberToObject(o, "gbs", r->gbs);
        cJSON_AddNumberToObject(o, "gbs_best", r->gbs_best);
        cJSON_AddNumberToObject(o, "gbs_sd", r->gbs_sd);
    }
    add_num_or_null(o, "pct_peak", r->pct_peak);
    add_num_or_null(o, "pct_copy", r->pct_copy);
    add_num_or_null(o, "x_peer", r->x_peer);
    if (r->has_model)
        cJSON_AddItemToObject(o, "model", model_json(&r->model, r));
    if (r->ctr.valid) {
        cJSON *co = cJSON_AddObjectToObject(o, "counters");
        for (int i = 0; i < sl_counter_count(); i++) {
            const sl_counter_info *ci = sl_counter_info_at(i);
            if (r->ctr.has[i])
                cJSON_AddNumberToObject(co, ci->metric, r->ctr.value[i]);
            else
                cJSON_AddNullToObject(co, ci->metric);
        }
        cJSON_AddNumberToObject(co, "passes", r->ctr.passes);
        cJSON *d = cJSON_AddObjectToObject(o, "counters_derived");
        add_num_or_null(d, "dram_bytes", sl_counters_dram_bytes(&r->ctr));
        add_num_or_null(d, "dram_bytes_over_model", sl_counters_bytes_ratio(&r->ctr, r->bytes));
        add_num_or_null(d, "insts_per_elem", r->ctr.valid ? sl_counters_insts_per_elem(&r->ctr, (double)r->n, 32) : -1);
        add_num_or_null(d, "dram_bytes_per_warp_inst", sl_counters_bytes_per_inst(&r->ctr));
        add_num_or_null(d, "dram_read_over_write", sl_counters_sector_ratio(&r->ctr));
        add_num_or_null(d, "smem_conflicts_per_inst", sl_counters_smem_conflicts_per_inst(&r->ctr));
    }
    if (r->ctr_note[0])
        cJSON_AddStringToObject(o, "counters_note", r->ctr_note);
    cJSON *nv = sl_record_row_json(r);
    if (nv)
        cJSON_AddItemToObject(o, "nvml", nv);
    if (r->has_attrs) {
        cJSON *k = cJSON_AddObjectToObject(o, "kernel");
        cJSON_AddNumberToObject(k, "registers", r->attrs.regs);
        cJSON_AddNumberToObject(k, "local_bytes", r->attrs.local_bytes);
        cJSON_AddNumberToObject(k, "static_smem", r->attrs.static_smem);
        cJSON_AddNumberToObject(k, "block", r->attrs.block);
        cJSON_AddNumberToObject(k, "blocks_per_sm", r->attrs.blocks_per_sm);
    }
    return o;
}

/* A regular file is rewritten after every row (always a valid document);
 * a stream (stdout, a FIFO, a device) gets the one final document. */
static sl_status write_out(sl_report *rep, cJSON *root, bool final)
{
    if (rep->json.kind == SL_OUT_STREAM && !final)
        return SL_OK;
    char *text = cJSON_Print(root);
    if (!text)
        return sl_fail(SL_ERR_NO_MEMORY, "out of memory serialising JSON");
    sl_status st = sl_output_replace(&rep->json, text);
    free(text);
    return st;
}

static sl_status json_open(sl_report *rep, void **state)
{
    *state = NULL;
    if (!rep->has_json)
        return SL_OK;
    const sl_report_meta *m = &rep->meta;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "streamlab.run/1");
    cJSON_AddStringToObject(root, "streamlab_version", SL_VERSION_STRING);
    cJSON_AddStringToObject(root, "git", SL_GIT_DESCRIBE);
    cJSON_AddStringToObject(root, "command", m->command_line ? m->command_line : "");
    cJSON_AddStringToObject(root, "started", rep->started);
    cJSON_AddStringToObject(root, "status", "running");
    cJSON_AddItemToObject(root, "device", device_json(rep->ctx));
    if (rep->meta.nctx > 1) {
        cJSON *devs = cJSON_AddArrayToObject(root, "devices");
        for (int i = 0; i < rep->meta.nctx; i++)
            cJSON_AddItemToArray(devs, device_json(rep->meta.ctxs[i]));
    }
    cJSON_AddItemToObject(root, "record", sl_record_run_json(m->ctxs, m->nctx));
    cJSON *c = cJSON_AddObjectToObject(root, "config");
    cJSON_AddStringToObject(c, "op", m->ops);
    cJSON_AddStringToObject(c, "dtype", m->dtypes);
    if (m->scalars)
        cJSON_AddStringToObject(c, "scalars", m->scalars);
    cJSON_AddNumberToObject(c, "warmup", m->warmup);
    cJSON_AddNumberToObject(c, "trials", m->trials);
    if (m->stdrel > 0)
        cJSON_AddNumberToObject(c, "stdrel_pct", 100 * m->stdrel);
    if (m->max_time_s > 0)
        cJSON_AddNumberToObject(c, "max_time_s", m->max_time_s);
    cJSON_AddBoolToObject(c, "cold", m->cold);
    cJSON_AddStringToObject(c, "timer", m->timer == SL_TIMER_WALL ? "wall" : "event");
    cJSON_AddNumberToObject(c, "offset_elements", (double)m->offset);
    char seed[24];
    snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)m->seed);
    cJSON_AddStringToObject(c, "seed", seed);
    cJSON *sizes = cJSON_AddArrayToObject(c, "sizes");
    for (int i = 0; i < m->nsizes; i++)
        cJSON_AddItemToArray(sizes, m->sizes[i] ? cJSON_CreateNumber((double)m->sizes[i]) : cJSON_CreateNull());
    if (m->sizes_given)
        cJSON_AddStringToObject(c, "sizes_given", m->sizes_given); /* relative sizes: null above, rows say */
    if (m->shapes)
        cJSON_AddStringToObject(c, "shapes", m->shapes);
    if (m->hw_note)
        cJSON_AddStringToObject(c, "model_parameters", m->hw_note);
    cJSON_AddArrayToObject(root, "results");
    sl_status st = write_out(rep, root, false);
    if (st != SL_OK) {
        cJSON_Delete(root);
        return st;
    }
    *state = root;
    return SL_OK;
}

static sl_status json_row(sl_report *rep, void *state, const sl_result *r)
{
    cJSON *root = state;
    if (!root)
        return SL_OK;
    cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(root, "results"), row_json(rep, r));
    return write_out(rep, root, false);
}

static void iso_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static sl_status json_close(sl_report *rep, void *state)
{
    cJSON *root = state;
    if (!root)
        return SL_OK;
    cJSON_ReplaceItemInObjectCaseSensitive(root, "status", cJSON_CreateString(rep->status));
    char ended[32];
    iso_now(ended, sizeof ended);
    cJSON_AddStringToObject(root, "ended", ended);
    if (rep->error)
        cJSON_AddStringToObject(root, "error", rep->error);
    cJSON *cmp = sl_report_compare_json(rep);
    if (cmp)
        cJSON_AddItemToObject(root, "cpu_vs_gpu", cmp);
    cJSON *nv = cJSON_AddObjectToObject(root, "nvml_at_end");
    cJSON_AddNumberToObject(nv, "sm_clock_mhz", rep->ctx->info.nvml_sm_clock_mhz);
    cJSON_AddNumberToObject(nv, "mem_clock_mhz", rep->ctx->info.nvml_mem_clock_mhz);
    cJSON_AddNumberToObject(nv, "power_mw", rep->ctx->info.nvml_power_mw);
    sl_status st = write_out(rep, root, true);
    cJSON_Delete(root);
    return st;
}

const sl_writer sl_writer_json = {"json", json_open, json_row, json_close};
