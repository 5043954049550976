/*
 * report.c - see results.h: the report's lifecycle, the cells every table
 * shows, and the dispatch to the writers (writer.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "writer.h"

#include "record.h"
#include "sizes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const sl_writer *const writers[4] = {&sl_writer_text, &sl_writer_csv, &sl_writer_json, &sl_writer_md};

const char *sl_row_check_word(sl_status s)
{
    switch (s) {
    case SL_OK: return "ok";
    case SL_ERR_VERIFY: return "FAIL";
    case SL_ERR_UNSUPPORTED: return "skip";
    case SL_ERR_INTERRUPTED: return "stop";
    default: return "ERROR";
    }
}

/* v with `decimals` digits, or "-" when v < 0 (not measured). */
static void fmt_or_dash(char *buf, size_t len, int decimals, double v)
{
    if (v < 0)
        snprintf(buf, len, "-");
    else
        snprintf(buf, len, "%.*f", decimals, v);
}

/* Instructions per element per thread measured by --counters, or -1. */
static double measured_ipe(const sl_result *r)
{
    return r->ctr.valid ? sl_counters_insts_per_elem(&r->ctr, (double)r->n, 32) : -1.0;
}

/* "cpu" or the CUDA index, as --devices takes them. */
static void device_label(const sl_ctx *ctx, char *buf, size_t len)
{
    if (ctx->info.backend == SL_BACKEND_CPU)
        snprintf(buf, len, "cpu");
    else
        snprintf(buf, len, "%d", ctx->info.device);
}

/* Where a row's working set lives, as the memory column says: the cache it
 * fits in (L2 on a GPU, the last-level cache on the CPU: the row measures
 * the cache), or DRAM (it does not fit, or --cold flushed it). */
static const char *where_label(const sl_result *r, bool cold)
{
    if (!r->fits_l2 || cold)
        return "DRAM";
    return r->ctx->info.backend == SL_BACKEND_CUDA ? "L2" : "LLC";
}

static void make_cells(const sl_result *r, bool cold, sl_row_cells *c)
{
    device_label(r->ctx, c->device, sizeof c->device);
    char n_s[40];
    if (r->op->rank == 2)
        sl_format_shape(&r->shape, n_s, sizeof n_s);
    else
        sl_format_count(r->n, n_s, sizeof n_s);
    snprintf(c->n, sizeof c->n, "%s%s%.16s%s", n_s, r->size_label ? " (" : "", r->size_label ? r->size_label : "",
             r->size_label ? ")" : "");
    snprintf(c->mem, sizeof c->mem, "%s", where_label(r, cold));
    snprintf(c->op, sizeof c->op, "%s", r->op->name);
    snprintf(c->variant, sizeof c->variant, "%s", r->v->name);
    const sl_dtype odt = sl_variant_out_dtype(r->v, r->dtype);
    if (odt != r->dtype)
        snprintf(c->dtype, sizeof c->dtype, "%s>%s", sl_dtype_name(r->dtype), sl_dtype_name(odt));
    else
        snprintf(c->dtype, sizeof c->dtype, "%s", sl_dtype_name(r->dtype));
    snprintf(c->kind, sizeof c->kind, "%s", sl_kind_name(r->v->kind));
    snprintf(c->bpe, sizeof c->bpe, "%.4g", r->n ? r->bytes / (double)r->n : 0.0);
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
    snprintf(c->ntrials, sizeof c->ntrials, "%d", r->trials);
    if (r->trials > 1)
        snprintf(c->noise, sizeof c->noise, "%.2f", 100.0 * r->noise);
    else
        snprintf(c->noise, sizeof c->noise, "-");
    snprintf(c->pred, sizeof c->pred, "-");
    snprintf(c->limiter, sizeof c->limiter, "-");
    snprintf(c->ratio, sizeof c->ratio, "-");
    if (r->has_model) {
        snprintf(c->pred, sizeof c->pred, "%.4f", r->model.pred_ms);
        snprintf(c->limiter, sizeof c->limiter, "%s", sl_bound_short(r->model.limiter));
        if (r->trials > 0 && r->st.median > 0)
            snprintf(c->ratio, sizeof c->ratio, "%.3f", r->st.median / r->model.pred_ms);
    }
    /* --counters: measured DRAM bytes over the bytes the row counts (the
     * model's), instructions per element, L2 hit rates for reads / writes,
     * achieved occupancy. */
    fmt_or_dash(c->bratio, sizeof c->bratio, 3, r->ctr.valid ? sl_counters_bytes_ratio(&r->ctr, r->bytes) : -1);
    fmt_or_dash(c->ipe, sizeof c->ipe, 2, measured_ipe(r));
    if (r->ctr.valid && r->ctr.has[SL_CTR_L2_READ_HIT_PCT] && r->ctr.has[SL_CTR_L2_WRITE_HIT_PCT])
        snprintf(c->l2hit, sizeof c->l2hit, "%.0f/%.0f", r->ctr.value[SL_CTR_L2_READ_HIT_PCT],
                 r->ctr.value[SL_CTR_L2_WRITE_HIT_PCT]);
    else
        snprintf(c->l2hit, sizeof c->l2hit, "-");
    fmt_or_dash(c->occ, sizeof c->occ, 0,
                r->ctr.valid && r->ctr.has[SL_CTR_OCCUPANCY_PCT] ? r->ctr.value[SL_CTR_OCCUPANCY_PCT] : -1);
    fmt_or_dash(c->bconf, sizeof c->bconf, 2, r->ctr.valid ? sl_counters_smem_conflicts_per_inst(&r->ctr) : -1);
    fmt_or_dash(c->peak, sizeof c->peak, 1, r->pct_peak);
    fmt_or_dash(c->copy, sizeof c->copy, 1, r->pct_copy);
    fmt_or_dash(c->peer, sizeof c->peer, 3, r->x_peer);
    /* " T": NVML saw the clocks held down (power, thermal) during the row */
    snprintf(c->check, sizeof c->check, "%s%s", sl_row_check_word(r->status), sl_record_row_throttled(r) ? " T" : "");
}

int sl_report_columns(const sl_report *rep, sl_col *cols)
{
    int k = 0;
    if (rep->meta.nctx > 1)
        cols[k++] = (sl_col){"device", 6, 'l'};
    cols[k++] = (sl_col){"n", 9, 'l'};
    cols[k++] = (sl_col){"memory", 6, 'l'};
    if (rep->meta.multi_op)
        cols[k++] = (sl_col){"op", 7, 'l'};
    cols[k++] = (sl_col){"variant", 13, 'l'};
    cols[k++] = (sl_col){"dtype", 8, 'l'};
    cols[k++] = (sl_col){"kind", 7, 'l'};
    cols[k++] = (sl_col){"B/el", 4, 'r'};
    cols[k++] = (sl_col){"time ms (mean ± sd)", 21, 'r'};
    cols[k++] = (sl_col){"min ms", 9, 'r'};
    cols[k++] = (sl_col){"median ms", 9, 'r'};
    cols[k++] = (sl_col){"GB/s", 8, 'r'};
    cols[k++] = (sl_col){"%peak", 5, 'r'};
    cols[k++] = (sl_col){"%copy", 5, 'r'};
    cols[k++] = (sl_col){"×peer", 6, 'r'};
    cols[k++] = (sl_col){"check", 5, 'l'};
    if (rep->meta.stdrel > 0 || rep->meta.max_time_s > 0) {
        cols[k++] = (sl_col){"trials", 6, 'r'};
        cols[k++] = (sl_col){"noise%", 6, 'r'};
    }
    if (rep->meta.model) {
        cols[k++] = (sl_col){"pred ms", 9, 'r'};
        cols[k++] = (sl_col){"limiter", 8, 'l'};
        cols[k++] = (sl_col){"meas/pred", 9, 'r'};
    }
    if (rep->meta.counters) {
        cols[k++] = (sl_col){"B/model", 7, 'r'};
        cols[k++] = (sl_col){"inst/el", 7, 'r'};
        cols[k++] = (sl_col){"L2hit r/w", 9, 'r'};
        cols[k++] = (sl_col){"occ%", 4, 'r'};
        cols[k++] = (sl_col){"bconf/shi", 9, 'r'};
    }
    return k;
}

void sl_report_cells(const sl_report *rep, const sl_row_cells *c, const char **cells)
{
    int k = 0;
    if (rep->meta.nctx > 1)
        cells[k++] = c->device;
    cells[k++] = c->n;
    cells[k++] = c->mem;
    if (rep->meta.multi_op)
        cells[k++] = c->op;
    cells[k++] = c->variant;
    cells[k++] = c->dtype;
    cells[k++] = c->kind;
    cells[k++] = c->bpe;
    cells[k++] = c->time;
    cells[k++] = c->min;
    cells[k++] = c->median;
    cells[k++] = c->gbs;
    cells[k++] = c->peak;
    cells[k++] = c->copy;
    cells[k++] = c->peer;
    cells[k++] = c->check;
    if (rep->meta.stdrel > 0 || rep->meta.max_time_s > 0) {
        cells[k++] = c->ntrials;
        cells[k++] = c->noise;
    }
    if (rep->meta.model) {
        cells[k++] = c->pred;
        cells[k++] = c->limiter;
        cells[k++] = c->ratio;
    }
    if (rep->meta.counters) {
        cells[k++] = c->bratio;
        cells[k++] = c->ipe;
        cells[k++] = c->l2hit;
        cells[k++] = c->occ;
        cells[k++] = c->bconf;
    }
}

int sl_report_header(const sl_report *rep, char lines[][512])
{
    const sl_report_meta *m = &rep->meta;
    int k = 0;
    for (int i = 0; i < m->nctx && i < 2; i++) {
        const sl_device_info *d = &m->ctxs[i]->info;
        char l2[32], mem[32], label[16];
        sl_format_bytes((double)d->l2_bytes, l2, sizeof l2);
        sl_format_bytes((double)d->mem_total, mem, sizeof mem);
        device_label(m->ctxs[i], label, sizeof label);
        if (d->backend == SL_BACKEND_CUDA)
            snprintf(lines[k++], 512, "device %s: %s (CUDA device %d, sm_%d%d, %d SMs, L2 %s, %s)", label, d->name,
                     d->device, d->cc_major, d->cc_minor, d->sm_count, l2, mem);
        else
            snprintf(lines[k++], 512, "device %s: %s (CPU backend, %d OpenMP threads, LLC %s, %s RAM)", label,
                     d->name, d->sm_count, l2, mem);
        if (d->peak_gbs > 0)
            snprintf(lines[k++], 512, "  theoretical peak %.0f GB/s = %.3f GHz memory clock x %d-bit bus x 2 (DDR)",
                     d->peak_gbs, d->mem_clock_khz / 1e6, d->bus_width_bits);
        else
            snprintf(lines[k++], 512,
                     "  theoretical peak unknown on the CPU: compare with %%copy, the copy ceiling measured here");
        if (d->nvml_sm_clock_mhz >= 0)
            snprintf(lines[k++], 512, "  NVML at start: SM %d MHz, memory %d MHz, %.0f W; ECC %s",
                     d->nvml_sm_clock_mhz, d->nvml_mem_clock_mhz, d->nvml_power_mw / 1000.0,
                     d->ecc_enabled > 0 ? "on" : d->ecc_enabled == 0 ? "off" : "unknown");
        else if (d->backend == SL_BACKEND_CUDA)
            snprintf(lines[k++], 512, "  NVML unavailable: current clocks unknown");
        if (d->backend == SL_BACKEND_CUDA && d->nvml_sm_clock_mhz >= 0)
            snprintf(lines[k++], 512, "  check \"ok T\": NVML saw the clocks held down (power or thermal) during the row");
    }
    if (m->nctx > 2)
        snprintf(lines[k++], 512, "(and %d more devices: see the JSON)", m->nctx - 2);
    snprintf(lines[k++], 512, "%d warm-ups, %d trials per row, %s, %s; seed 0x%016llx", m->warmup, m->trials,
             m->cold ? "L2 flushed before every trial (--cold)" : "warm cache (--cold flushes L2 before each trial)",
             m->timer == SL_TIMER_WALL ? "host clock around launch + sync (--timer wall)"
                                       : "event-timed launches (--timer event)",
             (unsigned long long)m->seed);
    if (m->stdrel > 0)
        snprintf(lines[k++], 512,
                 "noise-aware timing (--stdrel %.3g): at least %d trials, then until the median's relative standard "
                 "error (noise%%) is below %.3g%%, or %.3g s a row",
                 100 * m->stdrel, m->trials, 100 * m->stdrel, m->max_time_s);
    else if (m->max_time_s > 0)
        snprintf(lines[k++], 512, "trials stop at %d or after %.3g s a row (--max-time)", m->trials, m->max_time_s);
    snprintf(lines[k++], 512,
             "GB/s = (bytes read + written, the op's descriptor) / median time; %%copy and ×peer compare with the "
             "copy and peer rows of the same op, n and dtype");
    int ngpu = 0;
    for (int i = 0; i < m->nctx; i++)
        ngpu += m->ctxs[i]->info.backend == SL_BACKEND_CUDA;
    snprintf(lines[k++], 512,
             "memory = where the row's working set lives: %s when it fits (the row measures the cache, and may "
             "pass 100%% of a copy that does not), else DRAM",
             ngpu == m->nctx ? "L2" : ngpu == 0 ? "the last-level cache (LLC)" : "L2 (GPU) or LLC (CPU)");
    if (m->scalars)
        snprintf(lines[k++], 512, "scalars: %s", m->scalars);
    if (m->model)
        snprintf(lines[k++], 512, "model: pred ms, limiter, measured/predicted (streamlab explain; docs/model.md)%s%s",
                 m->hw_note ? "; " : "", m->hw_note ? m->hw_note : "");
    if (m->counters)
        snprintf(lines[k++], 512,
                 "counters (CUPTI, one extra launch per row): B/model = DRAM bytes read + written / the row's bytes; "
                 "inst/el = smsp__inst_executed.sum x 32 / n; L2 hit = lts__t_sector_op_read/write_hit_rate.pct; "
                 "occ = sm__warps_active.avg.pct_of_peak_sustained_active; bconf/shi = shared-memory bank conflicts "
                 "(l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld + _st) per shared instruction");
    return k;
}

void sl_report_summary(const sl_report *rep, FILE *txt, FILE *md)
{
    static const sl_col cols[] = {{"n", 9, 'l'},      {"dtype", 6, 'l'},       {"function", 11, 'l'},
                                  {"GB/s", 8, 'r'},   {"min ms", 9, 'r'},      {"max ms", 9, 'r'},
                                  {"avg ms", 9, 'r'}, {"×peer", 6, 'r'},      {"peer", 7, 'l'}};
    if (txt)
        fprintf(txt, "\nsummary: the public function of each op (GB/s from the minimum time, as BabelStream and "
                     "STREAM report it)\n");
    if (md)
        fprintf(md, "\n## Summary: the public function of each op\n\nGB/s from the minimum time, as BabelStream and "
                    "STREAM report it.\n\n");
    sl_table t;
    sl_table_open(&t, cols, (int)(sizeof cols / sizeof cols[0]), txt, md);
    for (int i = 0; i < rep->nrows; i++) {
        const sl_row *r = &rep->rows[i];
        if (r->v->kind != SL_KIND_API || r->status != SL_OK)
            continue;
        const char *peer = "-"; /* the first peer of the group: the one ×peer divides by */
        for (int j = 0; j < rep->nrows && peer[0] == '-'; j++)
            if (rep->rows[j].op == r->op && rep->rows[j].n == r->n && rep->rows[j].shape.rows == r->shape.rows &&
                rep->rows[j].shape.k == r->shape.k && rep->rows[j].dtype == r->dtype &&
                rep->rows[j].v->kind == SL_KIND_PEER && rep->rows[j].status == SL_OK)
                peer = rep->rows[j].v->name;
        char n_s[40], g[16], mn[16], mx[16], av[16], xp[16];
        if (r->op->rank == 2)
            sl_format_shape(&r->shape, n_s, sizeof n_s);
        else
            sl_format_count(r->n, n_s, sizeof n_s);
        snprintf(g, sizeof g, "%.1f", r->gbs_best);
        snprintf(mn, sizeof mn, "%.4f", r->min_ms);
        snprintf(mx, sizeof mx, "%.4f", r->max_ms);
        snprintf(av, sizeof av, "%.4f", r->mean_ms);
        fmt_or_dash(xp, sizeof xp, 3, r->x_peer);
        const char *cells[] = {n_s, sl_dtype_name(r->dtype), r->v->name, g, mn, mx, av, xp, peer};
        sl_table_row(&t, cells);
    }
}

static void iso_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

sl_status sl_report_open(const sl_report_meta *meta, const sl_report_opts *opts, sl_report **out)
{
    *out = NULL;
    if (!meta->ctxs || meta->nctx < 1)
        return sl_fail(SL_ERR_INTERNAL, "a report needs at least one device");
    sl_report *rep = calloc(1, sizeof *rep);
    if (!rep)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory");
    rep->ctx = meta->ctxs[0];
    rep->meta = *meta;
    rep->opts = *opts;
    rep->status = "running";
    iso_now(rep->started, sizeof rep->started);
    /* Every output is checked before anything is written: a directory, a
     * dangling link, a FIFO nobody reads, or two options naming one file
     * stop the run here (exit 2), not after the first row. */
    struct {
        const char *path, *flag, *ours;
        sl_output *o;
        bool *has;
    } outs[] = {{opts->json_path, "--json", SL_RUN_JSON_MARK, &rep->json, &rep->has_json},
                {opts->md_path, "--md", SL_RUN_MD_MARK, &rep->md, &rep->has_md},
                {opts->csv_path, "--csv", SL_RUN_CSV_MARK, &rep->csv, &rep->has_csv}};
    sl_status st = SL_OK;
    for (int i = 0; i < 3 && st == SL_OK; i++) {
        if (!outs[i].path)
            continue;
        st = sl_output_open(outs[i].o, outs[i].path, outs[i].ours);
        if (st == SL_OK)
            *outs[i].has = true;
        for (int j = 0; j < i && st == SL_OK; j++)
            if (*outs[j].has && sl_output_same(outs[i].o, outs[j].o))
                st = sl_fail(SL_ERR_IO, "%s and %s name the same file (%s): give each its own", outs[j].flag,
                             outs[i].flag, outs[i].o->target);
    }
    if (st != SL_OK) {
        char why[1024];
        snprintf(why, sizeof why, "%s", sl_last_error());
        for (int i = 0; i < 3; i++)
            if (*outs[i].has)
                sl_output_close(outs[i].o);
        free(rep);
        return sl_fail(st, "%s", why);
    }
    for (int w = 0; w < 4; w++) {
        st = writers[w]->open(rep, &rep->state[w]);
        if (st != SL_OK) {
            char why[1024];
            snprintf(why, sizeof why, "%s", sl_last_error());
            rep->status = "failed";
            for (int u = 0; u < w; u++)
                writers[u]->close(rep, rep->state[u]);
            sl_output_close(&rep->json);
            sl_output_close(&rep->md);
            sl_output_close(&rep->csv);
            free(rep);
            return sl_fail(st, "%s", why);
        }
    }
    *out = rep;
    return SL_OK;
}

void sl_report_row(void *report, sl_result *r)
{
    sl_report *rep = report;
    if (rep->nrows == rep->cap) {
        int cap = rep->cap ? 2 * rep->cap : 64;
        sl_row *rows = realloc(rep->rows, (size_t)cap * sizeof *rows);
        if (!rows) {
            fprintf(stderr, "streamlab: warning: out of host memory for result rows; row %s dropped\n", r->v->name);
            return;
        }
        rep->rows = rows;
        rep->cap = cap;
    }
    sl_row *row = &rep->rows[rep->nrows];
    memset(row, 0, sizeof *row);
    make_cells(r, rep->meta.cold, &row->c);
    row->message = r->message[0] ? strdup(r->message) : NULL;
    row->ctr_note = r->ctr_note[0] ? strdup(r->ctr_note) : NULL;
    row->op = r->op;
    row->v = r->v;
    row->dtype = r->dtype;
    row->n = r->n;
    row->shape = r->shape;
    row->status = r->status;
    row->gbs = r->gbs;
    row->gbs_best = r->gbs_best;
    row->min_ms = r->st.min;
    row->max_ms = r->st.max;
    row->mean_ms = r->st.mean;
    row->x_peer = r->x_peer;
    row->median_ms = r->trials > 0 && r->status == SL_OK ? r->st.median : -1.0;
    row->gpu = r->ctx->info.backend == SL_BACKEND_CUDA;
    row->transfer_ms = row->gpu ? r->transfer_ms : -1.0;
    rep->nrows++;
    rep->any_l2 |= r->fits_l2;
    if (r->status == SL_ERR_UNSUPPORTED)
        rep->skipped++;
    else if (r->status == SL_ERR_INTERRUPTED)
        rep->interrupted++;
    else if (r->status != SL_OK)
        rep->failed++;
    for (int w = 0; w < 4; w++)
        if (writers[w]->row(rep, rep->state[w], r) != SL_OK && rep->write_st == SL_OK) {
            rep->write_st = SL_ERR_IO;
            snprintf(rep->write_error, sizeof rep->write_error, "%s", sl_last_error());
            fprintf(stderr, "streamlab: error: %s (the run goes on; it will exit 1)\n", rep->write_error);
        }
}

sl_status sl_report_close(sl_report *rep, sl_status sweep, const char *error)
{
    if (!rep)
        return SL_OK;
    rep->status = sweep == SL_OK ? (rep->failed ? "failed" : "complete")
                  : sweep == SL_ERR_INTERRUPTED ? "interrupted"
                                                : "failed";
    rep->error = error && error[0] ? error : NULL;
    for (int i = 0; i < rep->meta.nctx; i++)
        rep->meta.ctxs[i]->ops->refresh_info(rep->meta.ctxs[i]);
    sl_status st = SL_OK;
    for (int w = 0; w < 4; w++) {
        sl_status ws = writers[w]->close(rep, rep->state[w]);
        if (ws != SL_OK && st == SL_OK)
            st = ws;
    }
    sl_output_close(&rep->json);
    sl_output_close(&rep->md);
    sl_output_close(&rep->csv);
    /* A row that could not be written fails the run even where the last
     * write (or a stream's close) went through; the first failure is the
     * one reported. */
    if (rep->write_st != SL_OK)
        st = sl_fail(rep->write_st, "%s", rep->write_error);
    for (int i = 0; i < rep->nrows; i++) {
        free(rep->rows[i].message);
        free(rep->rows[i].ctr_note);
    }
    free(rep->rows);
    free(rep);
    return st;
}

int sl_report_failed_rows(const sl_report *rep)
{
    return rep ? rep->failed : 0;
}
