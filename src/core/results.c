/*
 * results.c - see results.h. JSON is built and serialised with cJSON and
 * replaced atomically (write a temporary file, then rename) after each row.
 */
#define _POSIX_C_SOURCE 200809L
#include "results.h"

#include "model.h"
#include "sizes.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef SL_GIT_DESCRIBE
#define SL_GIT_DESCRIBE "unknown"
#endif

#define MAX_ROWS 4096

/* What the table and the Markdown file show of a row. */
typedef struct row_cells {
    char n[40], variant[24], dtype[10], kind[10], bpe[8], time[48], min[16], median[16], gbs[16], peak[12], copy[12],
        peer[12], check[8], pred[16], limiter[12], ratio[12], bratio[12], ipe[12], l2hit[16], occ[10];
} row_cells;

struct sl_report {
    sl_ctx *ctx;
    const sl_run_config *cfg;
    sl_report_opts opts;
    char started[32];
    cJSON *root, *rows;
    FILE *csv;
    row_cells *cells;
    char **messages;
    int nrows, failed, skipped, any_l2;
    uint64_t last_n;
    sl_dtype last_dtype;
    const char *peer_name;
};

static void iso_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* v with `decimals` digits, or "-" when v < 0 (not measured). */
static void fmt_or_dash(char *buf, size_t len, int decimals, double v)
{
    if (v < 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", decimals, v);
}

static const char *check_word(const sl_result *r)
{
    switch (r->status) {
    case SL_OK: return "ok";
    case SL_ERR_VERIFY: return "FAIL";
    case SL_ERR_UNSUPPORTED: return "skip";
    case SL_ERR_INTERRUPTED: return "stop";
    default: return "ERROR";
    }
}

/* Instructions per element per thread measured by --counters, or -1. */
static double measured_ipe(const sl_result *r)
{
    return r->ctr.valid ? sl_counters_insts_per_elem(&r->ctr, (double)r->n, 32) : -1.0;
}

/* The model's prediction for a row, with the occupancy the kernel really
 * has, and the instructions per element the counters measured when there
 * are counters (issue 5). Returns 0 when the model does not apply (CPU rows). */
static int predict(const sl_report *rep, const sl_result *r, sl_model *m)
{
    if (!rep->opts.hw || r->v->backend != SL_BACKEND_CUDA)
        return 0;
    sl_variant v = *r->v;
    double ipe = measured_ipe(r);
    if (ipe > 0)
        v.insts_per_elem = (float)ipe;
    return sl_model_predict(rep->opts.hw, &v, r->has_attrs ? &r->attrs : NULL, r->dtype, r->n, rep->cfg->cold, m) ==
           SL_OK;
}

static void make_cells(const sl_result *r, const sl_model *m, row_cells *c)
{
    char n_s[32];
    sl_format_count(r->n, n_s, sizeof n_s);
    snprintf(c->n, sizeof c->n, "%s%s", n_s, r->fits_l2 ? "*" : "");
    snprintf(c->variant, sizeof c->variant, "%s", r->v->name);
    snprintf(c->dtype, sizeof c->dtype, "%s%s", sl_dtype_name(r->dtype), r->v->out_fp8 ? ">e4m3" : "");
    snprintf(c->kind, sizeof c->kind, "%s", sl_kind_name(r->v->kind));
    snprintf(c->bpe, sizeof c->bpe, "%zu", sl_variant_bytes_per_elem(r->v, r->dtype));
    if (r->trials > 0 && (r->status == SL_OK || r->status == SL_ERR_VERIFY)) {
        snprintf(c->time, sizeof c->time, "%.4f ± %.4f", r->st.mean, r->st.sd);
        snprintf(c->min, sizeof c->min, "%.4f", r->st.min);
        snprintf(c->median, sizeof c->median, "%.4f", r->st.median);
        snprintf(c->gbs, sizeof c->gbs, "%.1f", r->gbs);
    } else {
        snprintf(c->time, sizeof c->time, "-");
        snprintf(c->min, sizeof c->min, "-");
        snprintf(c->median, sizeof c->median, "-");
        snprintf(c->gbs, sizeof c->gbs, "-");
    }
    snprintf(c->pred, sizeof c->pred, "-");
    snprintf(c->limiter, sizeof c->limiter, "-");
    snprintf(c->ratio, sizeof c->ratio, "-");
    if (m) {
        snprintf(c->pred, sizeof c->pred, "%.4f", m->pred_ms);
        snprintf(c->limiter, sizeof c->limiter, "%s", sl_bound_short(m->limiter));
        if (r->trials > 0 && r->st.median > 0)
            snprintf(c->ratio, sizeof c->ratio, "%.3f", r->st.median / m->pred_ms);
    }
    /* --counters: measured DRAM bytes over the bytes the row counts
     * (bytes_per_elem x n, the model's), instructions per element, L2 hit
     * rates for reads / writes, achieved occupancy. */
    fmt_or_dash(c->bratio, sizeof c->bratio, 3, r->ctr.valid ? sl_counters_bytes_ratio(&r->ctr, r->bytes) : -1);
    fmt_or_dash(c->ipe, sizeof c->ipe, 2, measured_ipe(r));
    if (r->ctr.valid && r->ctr.has[SL_CTR_L2_READ_HIT_PCT] && r->ctr.has[SL_CTR_L2_WRITE_HIT_PCT])
        snprintf(c->l2hit, sizeof c->l2hit, "%.0f/%.0f", r->ctr.value[SL_CTR_L2_READ_HIT_PCT],
                 r->ctr.value[SL_CTR_L2_WRITE_HIT_PCT]);
    else
        snprintf(c->l2hit, sizeof c->l2hit, "-");
    fmt_or_dash(c->occ, sizeof c->occ, 0,
                r->ctr.valid && r->ctr.has[SL_CTR_OCCUPANCY_PCT] ? r->ctr.value[SL_CTR_OCCUPANCY_PCT] : -1);
    fmt_or_dash(c->peak, sizeof c->peak, 1, r->pct_peak);
    fmt_or_dash(c->copy, sizeof c->copy, 1, r->pct_copy);
    fmt_or_dash(c->peer, sizeof c->peer, 3, r->x_peer);
    snprintf(c->check, sizeof c->check, "%s", check_word(r));
}

static void print_table_header(const sl_report *rep, FILE *f)
{
    char xpeer[24];
    snprintf(xpeer, sizeof xpeer, "x%s", rep->peer_name ? rep->peer_name : "peer");
    fprintf(f, "%-9s %-13s %-11s %-8s %4s  %-21s %9s %10s %9s %6s %6s %6s  %-5s", "n", "variant", "dtype", "kind",
            "B/el", "time ms (mean ± sd)", "min ms", "median ms", "GB/s", "%peak", "%copy", xpeer, "check");
    if (rep->opts.hw)
        fprintf(f, " %9s %-8s %9s", "pred ms", "limiter", "meas/pred");
    if (rep->cfg->counters)
        fprintf(f, " %8s %7s %9s %5s", "B/model", "inst/el", "L2hit r/w", "occ%");
    fprintf(f, "\n");
}

static void print_row(const sl_report *rep, const row_cells *c, FILE *f)
{
    /* "±" is two bytes in UTF-8 and one column: pad by hand. */
    fprintf(f, "%-9s %-13s %-11s %-8s %4s  %-22s %9s %10s %9s %6s %6s %6s  %-5s", c->n, c->variant, c->dtype, c->kind,
            c->bpe, c->time, c->min, c->median, c->gbs, c->peak, c->copy, c->peer, c->check);
    if (rep->opts.hw)
        fprintf(f, " %9s %-8s %9s", c->pred, c->limiter, c->ratio);
    if (rep->cfg->counters)
        fprintf(f, " %8s %7s %9s %5s", c->bratio, c->ipe, c->l2hit, c->occ);
    fprintf(f, "\n");
}

static void device_line(const sl_ctx *ctx, char *buf, size_t len)
{
    const sl_device_info *d = &ctx->info;
    char l2[32], mem[32];
    sl_format_bytes((double)d->l2_bytes, l2, sizeof l2);
    sl_format_bytes((double)d->mem_total, mem, sizeof mem);
    if (d->backend == SL_BACKEND_CUDA)
        snprintf(buf, len, "%s (CUDA device %d, sm_%d%d, %d SMs, L2 %s, %s)", d->name, d->device, d->cc_major,
                 d->cc_minor, d->sm_count, l2, mem);
    else
        snprintf(buf, len, "%s (CPU backend, %d OpenMP threads, LLC %s, %s RAM)", d->name, d->sm_count, l2, mem);
}

static void peak_line(const sl_ctx *ctx, char *buf, size_t len)
{
    const sl_device_info *d = &ctx->info;
    if (d->peak_gbs > 0)
        snprintf(buf, len, "theoretical peak %.0f GB/s = %.3f GHz memory clock x %d-bit bus x 2 (DDR)", d->peak_gbs,
                 d->mem_clock_khz / 1e6, d->bus_width_bits);
    else
        snprintf(buf, len, "theoretical peak unknown on the CPU: compare with %%copy, the copy ceiling measured here");
}

static void nvml_line(const sl_ctx *ctx, char *buf, size_t len)
{
    const sl_device_info *d = &ctx->info;
    if (d->nvml_sm_clock_mhz < 0)
        snprintf(buf, len, "%s", d->backend == SL_BACKEND_CUDA ? "NVML unavailable: current clocks unknown" : "");
    else
        snprintf(buf, len, "NVML at start: SM %d MHz, memory %d MHz, %.0f W; ECC %s", d->nvml_sm_clock_mhz,
                 d->nvml_mem_clock_mhz, d->nvml_power_mw / 1000.0,
                 d->ecc_enabled > 0 ? "on" : d->ecc_enabled == 0 ? "off" : "unknown");
}

static cJSON *device_json(const sl_ctx *ctx)
{
    const sl_device_info *d = &ctx->info;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "backend", d->backend == SL_BACKEND_CUDA ? "cuda" : "cpu");
    cJSON_AddNumberToObject(o, "index", d->device);
    cJSON_AddStringToObject(o, "name", d->name);
    char cc[16];
    snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
    cJSON_AddStringToObject(o, "compute_capability", cc);
    cJSON_AddNumberToObject(o, "sm_count", d->sm_count);
    cJSON_AddNumberToObject(o, "l2_bytes", (double)d->l2_bytes);
    cJSON_AddNumberToObject(o, "mem_total_bytes", (double)d->mem_total);
    cJSON_AddNumberToObject(o, "mem_clock_khz", d->mem_clock_khz);
    cJSON_AddNumberToObject(o, "bus_width_bits", d->bus_width_bits);
    cJSON_AddNumberToObject(o, "sm_clock_max_khz", d->sm_clock_khz);
    if (d->peak_gbs > 0)
        cJSON_AddNumberToObject(o, "peak_gbs", d->peak_gbs);
    else
        cJSON_AddNullToObject(o, "peak_gbs");
    cJSON_AddNumberToObject(o, "ecc_enabled", d->ecc_enabled);
    cJSON *nv = cJSON_AddObjectToObject(o, "nvml_at_start");
    cJSON_AddNumberToObject(nv, "sm_clock_mhz", d->nvml_sm_clock_mhz);
    cJSON_AddNumberToObject(nv, "mem_clock_mhz", d->nvml_mem_clock_mhz);
    cJSON_AddNumberToObject(nv, "power_mw", d->nvml_power_mw);
    return o;
}

static void add_num_or_null(cJSON *o, const char *key, double v)
{
    if (v < 0)
        cJSON_AddNullToObject(o, key);
    else
        cJSON_AddNumberToObject(o, key, v);
}

static cJSON *check_json(const sl_check *c)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "mismatches", (double)c->mismatches);
    cJSON_AddNumberToObject(o, "inexact_within_tolerance", (double)c->inexact);
    cJSON *arr = cJSON_AddArrayToObject(o, "first");
    const int digits = 2 * (int)sl_dtype_size(c->dtype);
    for (int i = 0; i < c->shown; i++) {
        cJSON *m = cJSON_CreateObject();
        char hex[16];
        cJSON_AddNumberToObject(m, "index", (double)c->first[i].index);
        snprintf(hex, sizeof hex, "0x%0*x", digits, c->first[i].got);
        cJSON_AddStringToObject(m, "got", hex);
        snprintf(hex, sizeof hex, "0x%0*x", digits, c->first[i].want);
        cJSON_AddStringToObject(m, "want", hex);
        cJSON_AddItemToArray(arr, m);
    }
    return o;
}

static cJSON *row_json(const sl_result *r, const sl_model *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "variant", r->v->name);
    cJSON_AddStringToObject(o, "dtype", sl_dtype_name(r->dtype));
    cJSON_AddStringToObject(o, "out_dtype", sl_dtype_name(sl_variant_out_dtype(r->v, r->dtype)));
    cJSON_AddStringToObject(o, "kind", sl_kind_name(r->v->kind));
    cJSON_AddStringToObject(o, "technique", r->v->technique);
    cJSON_AddNumberToObject(o, "n", (double)r->n);
    cJSON_AddNumberToObject(o, "bytes_per_elem", (double)sl_variant_bytes_per_elem(r->v, r->dtype));
    cJSON_AddNumberToObject(o, "bytes", r->bytes);
    cJSON_AddBoolToObject(o, "fits_l2", r->fits_l2);
    cJSON_AddStringToObject(o, "status", check_word(r));
    if (r->message[0])
        cJSON_AddStringToObject(o, "message", r->message);
    cJSON_AddBoolToObject(o, "verified", r->status == SL_OK);
    cJSON_AddItemToObject(o, "check_before", check_json(&r->before));
    cJSON_AddItemToObject(o, "check_after", check_json(&r->after));
    char seed[24];
    snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)r->seed_a);
    cJSON_AddStringToObject(o, "seed_a", seed);
    snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)r->seed_b);
    cJSON_AddStringToObject(o, "seed_b", seed);
    cJSON_AddNumberToObject(o, "trials", r->trials);
    if (r->trials > 0) {
        cJSON *t = cJSON_AddObjectToObject(o, "time_ms");
        cJSON_AddNumberToObject(t, "mean", r->st.mean);
        cJSON_AddNumberToObject(t, "sd", r->st.sd);
        cJSON_AddNumberToObject(t, "min", r->st.min);
        cJSON_AddNumberToObject(t, "median", r->st.median);
        cJSON_AddNumberToObject(t, "max", r->st.max);
        int keep = r->trials < 1024 ? r->trials : 1024;
        cJSON_AddItemToObject(t, "trials", cJSON_CreateDoubleArray(r->times_ms, keep));
        cJSON_AddNumberToObject(o, "gbs", r->gbs);
        cJSON_AddNumberToObject(o, "gbs_sd", r->gbs_sd);
    }
    add_num_or_null(o, "pct_peak", r->pct_peak);
    add_num_or_null(o, "pct_copy", r->pct_copy);
    add_num_or_null(o, "x_peer", r->x_peer);
    if (m) {
        cJSON *mo = cJSON_AddObjectToObject(o, "model");
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
    }
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
        add_num_or_null(d, "insts_per_elem", measured_ipe(r));
        add_num_or_null(d, "dram_bytes_per_warp_inst", sl_counters_bytes_per_inst(&r->ctr));
        add_num_or_null(d, "dram_read_over_write", sl_counters_sector_ratio(&r->ctr));
    }
    if (r->ctr_note[0])
        cJSON_AddStringToObject(o, "counters_note", r->ctr_note);
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

static char *markdown(const sl_report *rep)
{
    size_t cap = 8192 + (size_t)rep->nrows * 1024, used = 0;
    char *s = malloc(cap);
    if (!s)
        return NULL;
#define MD(...) used += (size_t)snprintf(s + used, cap - used, __VA_ARGS__)
    char dev[256], peak[256], nv[256];
    device_line(rep->ctx, dev, sizeof dev);
    peak_line(rep->ctx, peak, sizeof peak);
    nvml_line(rep->ctx, nv, sizeof nv);
    const cJSON *status = cJSON_GetObjectItemCaseSensitive(rep->root, "status");
    MD("# streamlab run: %s %s on %s\n\n", sl_op_name(rep->cfg->op), rep->opts.dtype_list, rep->ctx->info.name);
    MD("- command: `%s`\n", rep->opts.command_line ? rep->opts.command_line : "?");
    MD("- started: %s; streamlab %s (%s)\n", rep->started, SL_VERSION_STRING, SL_GIT_DESCRIBE);
    MD("- device: %s\n- %s\n", dev, peak);
    if (nv[0])
        MD("- %s\n", nv);
    MD("- %d warm-ups, %d trials per row, %s; GB/s = (bytes read + written) / median time\n", rep->cfg->warmup,
       rep->cfg->trials, rep->cfg->cold ? "L2 flushed before every trial (--cold)" : "warm cache");
    MD("- status: %s\n", cJSON_IsString(status) ? status->valuestring : "?");
    if (rep->opts.hw)
        MD("- model: predicted ms, limiter and measured/predicted from `streamlab explain`'s model (docs/model.md)%s%s\n",
           rep->opts.hw_note ? "; " : "", rep->opts.hw_note ? rep->opts.hw_note : "");
    if (rep->opts.alpha_note)
        MD("- %s\n", rep->opts.alpha_note);
    if (rep->cfg->counters)
        MD("- counters (CUPTI, one extra launch per row): B/model = DRAM bytes read + written / the row's bytes; "
           "inst/el = smsp__inst_executed.sum x 32 / n; L2 hit = lts__t_sector_op_read/write_hit_rate.pct; "
           "occ = sm__warps_active.avg.pct_of_peak_sustained_active\n");
    MD("\n| n | variant | dtype | kind | B/el | time ms (mean ± sd) | min ms | median ms | GB/s | %% peak | %% copy | "
       "× %s | check |%s%s\n|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|%s%s\n",
       rep->peer_name ? rep->peer_name : "peer", rep->opts.hw ? " pred ms | limiter | meas/pred |" : "",
       rep->cfg->counters ? " B/model | inst/el | L2 hit r/w | occ %% |" : "", rep->opts.hw ? "--:|---|--:|" : "",
       rep->cfg->counters ? "--:|--:|--:|--:|" : "");
    for (int i = 0; i < rep->nrows && used + 512 < cap; i++) {
        const row_cells *c = &rep->cells[i];
        MD("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", c->n, c->variant, c->dtype, c->kind,
           c->bpe, c->time, c->min, c->median, c->gbs, c->peak, c->copy, c->peer, c->check);
        if (rep->opts.hw)
            MD(" %s | %s | %s |", c->pred, c->limiter, c->ratio);
        if (rep->cfg->counters)
            MD(" %s | %s | %s | %s |", c->bratio, c->ipe, c->l2hit, c->occ);
        MD("\n");
    }
    if (rep->any_l2)
        MD("\n\\* the working set fits in L2: the row measures the cache, not DRAM (use --cold).\n");
    for (int i = 0; i < rep->nrows && used + 1024 < cap; i++)
        if (rep->messages[i])
            MD("\n- %s %s: %s\n", rep->cells[i].variant, rep->cells[i].n, rep->messages[i]);
#undef MD
    return s;
}

static sl_status write_files(sl_report *rep)
{
    sl_status st = SL_OK;
    if (rep->opts.json_path) {
        char *text = cJSON_Print(rep->root);
        if (!text)
            return sl_fail(SL_ERR_NO_MEMORY, "out of memory serialising JSON");
        st = sl_write_atomic(rep->opts.json_path, text);
        free(text);
    }
    if (st == SL_OK && rep->opts.md_path) {
        char *text = markdown(rep);
        if (!text)
            return sl_fail(SL_ERR_NO_MEMORY, "out of memory writing Markdown");
        st = sl_write_atomic(rep->opts.md_path, text);
        free(text);
    }
    return st;
}

sl_status sl_report_open(sl_ctx *ctx, const sl_run_config *cfg, const sl_report_opts *opts, sl_report **out)
{
    *out = NULL;
    sl_report *rep = calloc(1, sizeof *rep);
    if (!rep)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory");
    rep->ctx = ctx;
    rep->cfg = cfg;
    rep->opts = *opts;
    if (!rep->opts.dtype_list)
        rep->opts.dtype_list = sl_dtype_name(cfg->dtype);
    rep->cells = calloc(MAX_ROWS, sizeof *rep->cells);
    rep->messages = calloc(MAX_ROWS, sizeof *rep->messages);
    if (!rep->cells || !rep->messages) {
        free(rep->cells);
        free(rep->messages);
        free(rep);
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory");
    }
    for (int i = 0; i < cfg->nvariants; i++)
        if (cfg->variants[i]->kind == SL_KIND_PEER)
            rep->peer_name = cfg->variants[i]->name;
    iso_now(rep->started, sizeof rep->started);

    rep->root = cJSON_CreateObject();
    cJSON_AddStringToObject(rep->root, "schema", "streamlab.run/1");
    cJSON_AddStringToObject(rep->root, "streamlab_version", SL_VERSION_STRING);
    cJSON_AddStringToObject(rep->root, "git", SL_GIT_DESCRIBE);
    cJSON_AddStringToObject(rep->root, "command", opts->command_line ? opts->command_line : "");
    cJSON_AddStringToObject(rep->root, "started", rep->started);
    cJSON_AddStringToObject(rep->root, "status", "running");
    cJSON_AddItemToObject(rep->root, "device", device_json(ctx));
    cJSON *c = cJSON_AddObjectToObject(rep->root, "config");
    cJSON_AddStringToObject(c, "op", sl_op_name(cfg->op));
    cJSON_AddStringToObject(c, "dtype", rep->opts.dtype_list);
    if (cfg->op == SL_OP_AXPY)
        cJSON_AddNumberToObject(c, "alpha", cfg->alpha);
    cJSON_AddNumberToObject(c, "warmup", cfg->warmup);
    cJSON_AddNumberToObject(c, "trials", cfg->trials);
    cJSON_AddBoolToObject(c, "cold", cfg->cold);
    cJSON_AddNumberToObject(c, "offset_elements", (double)cfg->offset);
    char seed[24];
    snprintf(seed, sizeof seed, "0x%016llx", (unsigned long long)cfg->seed);
    cJSON_AddStringToObject(c, "seed", seed);
    cJSON *sizes = cJSON_AddArrayToObject(c, "sizes");
    for (int i = 0; i < cfg->nsizes; i++)
        cJSON_AddItemToArray(sizes, cJSON_CreateNumber((double)cfg->sizes[i]));
    cJSON *vars = cJSON_AddArrayToObject(c, "variants");
    for (int i = 0; i < cfg->nvariants; i++)
        cJSON_AddItemToArray(vars, cJSON_CreateString(cfg->variants[i]->name));
    rep->rows = cJSON_AddArrayToObject(rep->root, "results");

    sl_status st = write_files(rep);
    if (st == SL_OK && opts->csv_path) {
        rep->csv = fopen(opts->csv_path, "w");
        if (!rep->csv)
            st = sl_fail(SL_ERR_IO, "cannot write %s: %s", opts->csv_path, strerror(errno));
        else {
            fprintf(rep->csv, "backend,device,op,dtype,variant,kind,n,bytes,fits_l2,status,trials,mean_ms,sd_ms,"
                              "min_ms,median_ms,max_ms,gbs,gbs_sd,pct_peak,pct_copy,x_peer\n");
            fflush(rep->csv);
        }
    }
    if (st != SL_OK) {
        cJSON_Delete(rep->root);
        free(rep->cells);
        free(rep->messages);
        free(rep);
        return st;
    }
    if (!opts->quiet) {
        char dev[256], peak[256], nv[256];
        device_line(ctx, dev, sizeof dev);
        peak_line(ctx, peak, sizeof peak);
        nvml_line(ctx, nv, sizeof nv);
        printf("streamlab %s run: %s %s on %s\n%s\n", SL_VERSION_STRING, sl_op_name(cfg->op), rep->opts.dtype_list, dev,
               peak);
        if (opts->alpha_note)
            printf("%s\n", opts->alpha_note);
        if (nv[0])
            printf("%s\n", nv);
        printf("%d warm-ups, %d trials per row, %s; seed 0x%016llx\n", cfg->warmup, cfg->trials,
               cfg->cold ? "L2 flushed before every trial" : "warm cache (--cold flushes L2 before each trial)",
               (unsigned long long)cfg->seed);
        printf("GB/s = (bytes read + written) / median time; %%copy and x%s compare with the copy and %s rows of "
               "the same n and dtype\n",
               rep->peer_name ? rep->peer_name : "peer", rep->peer_name ? rep->peer_name : "peer");
        if (opts->hw)
            printf("model: pred ms, limiter, measured/predicted (streamlab explain; docs/model.md)%s%s\n",
                   opts->hw_note ? "; " : "", opts->hw_note ? opts->hw_note : "");
        printf("\n");
        print_table_header(rep, stdout);
        fflush(stdout);
    }
    *out = rep;
    return SL_OK;
}

void sl_report_row(void *report, const sl_result *r)
{
    sl_report *rep = report;
    if (rep->nrows == MAX_ROWS)
        return;
    row_cells *c = &rep->cells[rep->nrows];
    sl_model model;
    const sl_model *m = predict(rep, r, &model) ? &model : NULL; /* once per row, for table and JSON */
    make_cells(r, m, c);
    if (r->message[0])
        rep->messages[rep->nrows] = strdup(r->message);
    rep->nrows++;
    rep->any_l2 |= r->fits_l2;
    if (r->status == SL_ERR_UNSUPPORTED)
        rep->skipped++;
    else if (r->status != SL_OK)
        rep->failed++;

    if (!rep->opts.quiet) {
        if (rep->nrows > 1 && (r->n != rep->last_n || r->dtype != rep->last_dtype))
            printf("\n");
        print_row(rep, c, stdout);
        if (r->status != SL_OK)
            printf("          %s\n", r->message);
        if (r->ctr_note[0])
            printf("          %s\n", r->ctr_note);
        fflush(stdout);
    }
    rep->last_n = r->n;
    rep->last_dtype = r->dtype;

    cJSON_AddItemToArray(rep->rows, row_json(r, m));
    if (rep->csv) {
        const sl_device_info *d = &rep->ctx->info;
        fprintf(rep->csv, "%s,%d,%s,%s,%s,%s,%llu,%.0f,%d,%s,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.3f,%.3f,%.3f,%.3f,%.4f\n",
                d->backend == SL_BACKEND_CUDA ? "cuda" : "cpu", d->device, sl_op_name(rep->cfg->op),
                sl_dtype_name(r->dtype), r->v->name, sl_kind_name(r->v->kind), (unsigned long long)r->n,
                r->bytes, r->fits_l2, check_word(r), r->trials, r->st.mean, r->st.sd, r->st.min, r->st.median,
                r->st.max, r->gbs, r->gbs_sd, r->pct_peak, r->pct_copy, r->x_peer);
        fflush(rep->csv);
    }
    if (write_files(rep) != SL_OK)
        fprintf(stderr, "streamlab: warning: %s\n", sl_last_error());
}

sl_status sl_report_close(sl_report *rep, sl_status sweep, const char *error)
{
    if (!rep)
        return SL_OK;
    const char *status = sweep == SL_OK ? (rep->failed ? "failed" : "complete")
                         : sweep == SL_ERR_INTERRUPTED ? "interrupted"
                                                       : "failed";
    cJSON_ReplaceItemInObjectCaseSensitive(rep->root, "status", cJSON_CreateString(status));
    char ended[32];
    iso_now(ended, sizeof ended);
    cJSON_AddStringToObject(rep->root, "ended", ended);
    if (error && error[0])
        cJSON_AddStringToObject(rep->root, "error", error);
    rep->ctx->ops->refresh_info(rep->ctx);
    cJSON *nv = cJSON_AddObjectToObject(rep->root, "nvml_at_end");
    cJSON_AddNumberToObject(nv, "sm_clock_mhz", rep->ctx->info.nvml_sm_clock_mhz);
    cJSON_AddNumberToObject(nv, "mem_clock_mhz", rep->ctx->info.nvml_mem_clock_mhz);
    cJSON_AddNumberToObject(nv, "power_mw", rep->ctx->info.nvml_power_mw);

    if (!rep->opts.quiet) {
        if (rep->any_l2) {
            char l2[32];
            sl_format_bytes((double)rep->ctx->info.l2_bytes, l2, sizeof l2);
            printf("\n* the working set fits in the %s %s: these rows measure the cache, not DRAM (use --cold)\n", l2,
                   rep->ctx->info.backend == SL_BACKEND_CUDA ? "L2" : "last-level cache");
        }
        printf("\n%d row%s, %d failed, %d skipped; status: %s\n", rep->nrows, rep->nrows == 1 ? "" : "s",
               rep->failed, rep->skipped, status);
        fflush(stdout);
    }
    sl_status st = write_files(rep);
    if (rep->csv && fclose(rep->csv) != 0 && st == SL_OK)
        st = sl_fail(SL_ERR_IO, "cannot write %s", rep->opts.csv_path);
    cJSON_Delete(rep->root);
    for (int i = 0; i < rep->nrows; i++)
        free(rep->messages[i]);
    free(rep->messages);
    free(rep->cells);
    free(rep);
    return st;
}

int sl_report_failed_rows(const sl_report *rep)
{
    return rep ? rep->failed : 0;
}
