/*
 * run_mpi_files.c - rank 0's files and table for `streamlab run` under MPI
 * (run_mpi_files.h): the JSON and Markdown files of schema
 * streamlab.mpirun/1, rewritten after every row so that an interrupted or
 * failing job leaves what finished, and the table printed at the end.
 */
#define _POSIX_C_SOURCE 200809L
#include "run_mpi_files.h"

#include "internal.h"
#include "sizes.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef SL_GIT_DESCRIBE
#define SL_GIT_DESCRIBE "unknown"
#endif

void mrun_now(char *buf, size_t len)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void num_or_null(cJSON *o, const char *k, double v)
{
    if (v < 0 || v != v)
        cJSON_AddNullToObject(o, k);
    else
        cJSON_AddNumberToObject(o, k, v);
}

/* ---- files (rank 0) -------------------------------------------------------------- */

static cJSON *row_json(const mrun *R, const mrow *w)
{
    const int K = R->m->size;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "op", w->op->name);
    cJSON_AddStringToObject(o, "variant", w->v->name);
    cJSON_AddStringToObject(o, "kind", sl_kind_name(w->v->kind));
    cJSON_AddStringToObject(o, "dtype", sl_dtype_name(w->dtype));
    cJSON_AddNumberToObject(o, "n_per_rank", (double)w->n);
    cJSON_AddNumberToObject(o, "ranks", K);
    cJSON_AddStringToObject(o, "status", w->failed_rank >= 0 ? "failed" : w->agg_ok ? "ok" : "skipped");
    if (w->failed_rank >= 0) {
        cJSON_AddNumberToObject(o, "failed_rank", w->failed_rank);
        cJSON_AddStringToObject(o, "failed_host", R->m->hosts[w->failed_rank]);
    }
    if (w->message[0])
        cJSON_AddStringToObject(o, "message", w->message);
    if (w->agg_ok) {
        cJSON *g = cJSON_AddObjectToObject(o, "per_rank_gbs");
        cJSON_AddNumberToObject(g, "min", w->agg.min_gbs);
        cJSON_AddNumberToObject(g, "median", w->agg.med_gbs);
        cJSON_AddNumberToObject(g, "max", w->agg.max_gbs);
        cJSON_AddNumberToObject(g, "spread", w->agg.spread);
        cJSON_AddNumberToObject(o, "aggregate_gbs", w->agg.agg_gbs);
        cJSON_AddNumberToObject(o, "aggregate_best_gbs", w->agg.agg_best);
        cJSON_AddNumberToObject(o, "aggregate_time_ms", w->agg.agg_time_ms);
        cJSON_AddNumberToObject(o, "slowest_rank", w->agg.slowest_rank);
        cJSON_AddNumberToObject(o, "trials", w->agg.trials);
    }
    num_or_null(o, "single_rank_gbs", w->solo_gbs);
    num_or_null(o, "aggregate_over_k_single", w->eff);
    cJSON *per = cJSON_AddArrayToObject(o, "per_rank");
    for (int r = 0; r < K && w->ranks; r++) {
        const sl_mpi_row *x = &w->ranks[r];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "rank", r);
        cJSON_AddStringToObject(e, "host", R->m->hosts[r]);
        cJSON_AddStringToObject(e, "status", x->status == SL_OK ? "ok" : sl_status_string((sl_status)x->status));
        if (x->message[0])
            cJSON_AddStringToObject(e, "message", x->message);
        cJSON_AddNumberToObject(e, "bytes", x->bytes);
        cJSON_AddNumberToObject(e, "gbs", x->gbs);
        cJSON_AddNumberToObject(e, "gbs_best", x->gbs_best);
        cJSON_AddNumberToObject(e, "min_ms", x->min_ms);
        cJSON_AddNumberToObject(e, "median_ms", x->median_ms);
        cJSON_AddNumberToObject(e, "max_ms", x->max_ms);
        cJSON_AddNumberToObject(e, "trials", x->trials);
        cJSON_AddBoolToObject(e, "check_before_ok", x->check_before_ok);
        cJSON_AddBoolToObject(e, "check_after_ok", x->check_after_ok);
        num_or_null(e, "single_rank_gbs", w->solo ? w->solo[r] : -1);
        cJSON *t = cJSON_AddArrayToObject(e, "times_ms");
        for (int i = 0; i < x->kept; i++)
            cJSON_AddItemToArray(t, cJSON_CreateNumber(x->times_ms[i]));
        cJSON_AddItemToArray(per, e);
    }
    return o;
}

static cJSON *dot_json(const mrun *R, int i)
{
    const sl_mpi_dot_result *d = &R->dots[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "dtype", sl_dtype_name(R->dot_dtypes[i]));
    cJSON_AddNumberToObject(o, "n_per_rank", (double)d->n_per_rank);
    cJSON_AddNumberToObject(o, "ranks", d->ranks);
    cJSON_AddStringToObject(o, "transport", sl_mpi_transport_name(d->transport));
    cJSON_AddStringToObject(o, "transport_reason", d->transport_why);
    cJSON_AddStringToObject(o, "status", d->ok ? "ok" : "failed");
    if (d->message[0])
        cJSON_AddStringToObject(o, "message", d->message);
    cJSON_AddNumberToObject(o, "trials", d->trials);
    cJSON_AddNumberToObject(o, "local_ms", d->local_ms);
    cJSON_AddNumberToObject(o, "allreduce_ms", d->allreduce_ms);
    cJSON_AddNumberToObject(o, "total_ms", d->total_ms);
    cJSON_AddNumberToObject(o, "local_ms_min", d->local_ms_min);
    cJSON_AddNumberToObject(o, "total_ms_min", d->total_ms_min);
    cJSON_AddNumberToObject(o, "bytes_per_rank", d->bytes_per_rank);
    num_or_null(o, "local_gbs_per_rank", d->local_ms > 0 ? d->bytes_per_rank / (d->local_ms * 1e6) : -1);
    num_or_null(o, "aggregate_gbs_local", d->local_ms > 0 ? d->ranks * d->bytes_per_rank / (d->local_ms * 1e6) : -1);
    num_or_null(o, "aggregate_gbs_with_allreduce",
                d->total_ms > 0 ? d->ranks * d->bytes_per_rank / (d->total_ms * 1e6) : -1);
    cJSON_AddNumberToObject(o, "result", d->got);
    cJSON_AddNumberToObject(o, "reference", d->ref);
    cJSON_AddNumberToObject(o, "abs_error", d->err);
    cJSON_AddNumberToObject(o, "bound", d->tol);
    cJSON_AddNumberToObject(o, "sum_abs_products", d->sum_abs);
    return o;
}

/* Append to a text of cap bytes; past the end, nothing more is written. */
static void md_add(char *t, size_t cap, size_t *u, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static void md_add(char *t, size_t cap, size_t *u, const char *fmt, ...)
{
    if (*u >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(t + *u, cap - *u, fmt, ap);
    va_end(ap);
    *u += n > 0 ? (size_t)n : 0;
}

void mrun_write_files(mrun *R, bool final)
{
    if (R->m->rank != 0)
        return;
    if (R->has_json && (R->json.kind == SL_OUT_REGULAR || final)) {
        cJSON *root = cJSON_CreateObject();
        cJSON_AddStringToObject(root, "schema", "streamlab.mpirun/1");
        cJSON_AddStringToObject(root, "status", R->status);
        if (R->failure[0])
            cJSON_AddStringToObject(root, "error", R->failure);
        cJSON_AddStringToObject(root, "command_line", R->cmdline);
        cJSON_AddStringToObject(root, "streamlab_version", SL_GIT_DESCRIBE);
        cJSON_AddStringToObject(root, "started", R->started);
        cJSON_AddStringToObject(root, "mpi_library", R->mpi_lib);
        cJSON_AddNumberToObject(root, "ranks", R->m->size);
        cJSON_AddNumberToObject(root, "nodes", R->m->nnodes);
        char seed[32];
        snprintf(seed, sizeof seed, "%llu", (unsigned long long)R->seed);
        cJSON_AddStringToObject(root, "seed", seed);
        cJSON_AddNumberToObject(root, "trials", R->trials);
        cJSON_AddNumberToObject(root, "warmup", R->warmup);
        cJSON_AddBoolToObject(root, "cold", R->cold);
        cJSON_AddStringToObject(root, "timer", R->timer == SL_TIMER_WALL ? "wall" : "event");
        cJSON_AddStringToObject(root, "trial_start",
                                "every timed trial starts after an MPI_Iallreduce(MIN) of every rank's status "
                                "(a barrier carrying the status)");
        cJSON_AddStringToObject(root, "aggregate_definition",
                                "per trial: sum of every rank's bytes / the slowest rank's time of that trial; "
                                "median over trials (HPCC EP-STREAM system figure)");
        cJSON_AddStringToObject(root, "single_rank_definition",
                                "each rank timed alone with the others idle at a barrier, same job; median "
                                "across ranks of each rank's median-time GB/s");
        cJSON_AddItemReferenceToObject(root, "rank_devices", R->ranks_json);
        cJSON *rows = cJSON_AddArrayToObject(root, "rows");
        for (int i = 0; i < R->nrows; i++)
            cJSON_AddItemToArray(rows, row_json(R, &R->rows[i]));
        cJSON *dots = cJSON_AddArrayToObject(root, "distributed_dot");
        for (int i = 0; i < R->ndots; i++)
            cJSON_AddItemToArray(dots, dot_json(R, i));
        char *text = cJSON_Print(root);
        if (!text || sl_output_replace(&R->json, text) != SL_OK)
            fprintf(stderr, "streamlab run: %s\n", sl_last_error());
        free(text);
        cJSON_Delete(root);
    }
    if (R->has_md && (R->md.kind == SL_OUT_REGULAR || final)) {
        size_t cap = 16384 + (size_t)(R->nrows + R->ndots) * 1024 + (size_t)R->m->size * 512;
        char *t = malloc(cap);
        if (!t)
            return;
        size_t u = 0;
#define P(...) md_add(t, cap, &u, __VA_ARGS__)
        P(MD_MARK " (%d ranks on %d node%s)\n\n", R->m->size, R->m->nnodes, R->m->nnodes == 1 ? "" : "s");
        P("`%s`\n\nstatus: %s%s%s; streamlab %s; %s; seed %llu; %d trials after %d warm-up launches%s; "
          "timer %s\n\n",
          R->cmdline, R->status, R->failure[0] ? ": " : "", R->failure, SL_GIT_DESCRIBE, R->mpi_lib,
          (unsigned long long)R->seed, R->trials, R->warmup, R->cold ? ", L2 flushed" : "",
          R->timer == SL_TIMER_WALL ? "wall" : "event");
        P("| op | dtype | n / rank | variant | per-rank GB/s min | median | max | spread | aggregate GB/s | "
          "single-rank GB/s | aggregate / (K x single) |\n|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (int i = 0; i < R->nrows; i++) {
            const mrow *w = &R->rows[i];
            char n_s[32];
            sl_format_count(w->n, n_s, sizeof n_s);
            if (!w->agg_ok) {
                P("| %s | %s | %s | %s | %s |||||||\n", w->op->name, sl_dtype_name(w->dtype), n_s, w->v->name,
                  w->failed_rank >= 0 ? "FAILED" : "skipped");
                continue;
            }
            P("| %s | %s | %s | %s | %.1f | %.1f | %.1f | %.1f%% | %.1f | ", w->op->name, sl_dtype_name(w->dtype), n_s,
              w->v->name, w->agg.min_gbs, w->agg.med_gbs, w->agg.max_gbs, 100 * w->agg.spread, w->agg.agg_gbs);
            if (w->solo_gbs > 0)
                P("%.1f | %.3f |\n", w->solo_gbs, w->eff);
            else
                P("- | - |\n");
        }
        if (R->ndots) {
            P("\nDistributed dot (MPI_Allreduce of the partials; times: median over trials of the slowest rank's)\n\n"
              "| dtype | n / rank | local ms | all-reduce ms | total ms | GB/s local (all ranks) | GB/s with "
              "all-reduce | transport | check |\n|---|---|---|---|---|---|---|---|---|\n");
            for (int i = 0; i < R->ndots; i++) {
                const sl_mpi_dot_result *d = &R->dots[i];
                char n_s[32];
                sl_format_count(d->n_per_rank, n_s, sizeof n_s);
                P("| %s | %s | %.4f | %.4f | %.4f | %.1f | %.1f | %s | %s (error %.2g, bound %.2g) |\n",
                  sl_dtype_name(R->dot_dtypes[i]), n_s, d->local_ms, d->allreduce_ms, d->total_ms,
                  d->local_ms > 0 ? d->ranks * d->bytes_per_rank / (d->local_ms * 1e6) : 0,
                  d->total_ms > 0 ? d->ranks * d->bytes_per_rank / (d->total_ms * 1e6) : 0,
                  sl_mpi_transport_name(d->transport), d->ok ? "ok" : "FAILED", d->err, d->tol);
            }
        }
        P("\nRanks:\n\n| rank | host | local rank | device |\n|---|---|---|---|\n");
        for (int r = 0; r < R->m->size; r++) {
            cJSON *e = cJSON_GetArrayItem(R->ranks_json, r);
            cJSON *lr = cJSON_GetObjectItem(e, "local_rank"), *dv = cJSON_GetObjectItem(e, "device");
            cJSON *nm = dv ? cJSON_GetObjectItem(dv, "name") : NULL, *key = cJSON_GetObjectItem(e, "device_key");
            P("| %d | %s | %d | %s (%s) |\n", r, R->m->hosts[r], lr ? lr->valueint : -1,
              nm && cJSON_IsString(nm) ? nm->valuestring : "?", key && cJSON_IsString(key) ? key->valuestring : "?");
        }
#undef P
        if (sl_output_replace(&R->md, t) != SL_OK)
            fprintf(stderr, "streamlab run: %s\n", sl_last_error());
        free(t);
    }
}

int mrun_open_files(mrun *R, const char *json_path, const char *md_path)
{
    int bad = 0;
    if (json_path && sl_output_open(&R->json, json_path, JSON_MARK) != SL_OK)
        bad = 1;
    else
        R->has_json = json_path != NULL;
    if (!bad && md_path && sl_output_open(&R->md, md_path, MD_MARK) != SL_OK)
        bad = 1;
    else
        R->has_md = md_path != NULL;
    if (bad)
        fprintf(stderr, "streamlab run: %s\n", sl_last_error());
    return bad;
}

void mrun_close_files(mrun *R)
{
    if (R->has_json)
        sl_output_close(&R->json);
    if (R->has_md)
        sl_output_close(&R->md);
}

void mrun_print_table(const mrun *R, FILE *f)
{
    fprintf(f, "\n%-7s %-5s %-9s %-12s %27s %7s %10s %10s %8s\n", "op", "dtype", "n/rank", "variant",
            "per-rank GB/s min/med/max", "spread", "aggregate", "single", "agg/Kx1");
    for (int i = 0; i < R->nrows; i++) {
        const mrow *w = &R->rows[i];
        char n_s[32], a[64];
        sl_format_count(w->n, n_s, sizeof n_s);
        if (!w->agg_ok) {
            fprintf(f, "%-7s %-5s %-9s %-12s %s\n", w->op->name, sl_dtype_name(w->dtype), n_s, w->v->name,
                    w->failed_rank >= 0 ? "FAILED (see below)" : w->message[0] ? w->message : "skipped");
            continue;
        }
        snprintf(a, sizeof a, "%.1f / %.1f / %.1f", w->agg.min_gbs, w->agg.med_gbs, w->agg.max_gbs);
        fprintf(f, "%-7s %-5s %-9s %-12s %27s %6.1f%% %10.1f ", w->op->name, sl_dtype_name(w->dtype), n_s,
                w->v->name, a, 100 * w->agg.spread, w->agg.agg_gbs);
        if (w->solo_gbs > 0)
            fprintf(f, "%10.1f %8.3f\n", w->solo_gbs, w->eff);
        else
            fprintf(f, "%10s %8s\n", "-", "-");
    }
    if (R->ndots) {
        fprintf(f, "\ndistributed dot (%d ranks; median of the slowest rank's times):\n%-5s %-9s %10s %12s "
                   "%10s %12s %14s  %s\n",
                R->m->size, "dtype", "n/rank", "local ms", "allreduce ms", "total ms", "GB/s local",
                "GB/s with red.", "check");
        for (int i = 0; i < R->ndots; i++) {
            const sl_mpi_dot_result *d = &R->dots[i];
            char n_s[32];
            sl_format_count(d->n_per_rank, n_s, sizeof n_s);
            fprintf(f, "%-5s %-9s %10.4f %12.4f %10.4f %12.1f %14.1f  %s (|error| %.3g %s %.3g)\n",
                    sl_dtype_name(R->dot_dtypes[i]), n_s, d->local_ms, d->allreduce_ms, d->total_ms,
                    d->local_ms > 0 ? d->ranks * d->bytes_per_rank / (d->local_ms * 1e6) : 0,
                    d->total_ms > 0 ? d->ranks * d->bytes_per_rank / (d->total_ms * 1e6) : 0,
                    d->ok ? "ok" : "FAILED", d->err, d->err <= d->tol ? "<=" : ">", d->tol);
        }
        fprintf(f, "all-reduce transport: %s (rank 0: %s)\n", sl_mpi_transport_name(R->dots[0].transport),
                R->dots[0].transport_why);
    }
    fprintf(f, "aggregate: every rank's bytes / the slowest rank's time, per trial (median); single: each "
               "rank alone with the others idle (median across ranks)\n");
}
