/*
 * probe_util.c - see probe_util.h.
 */
#include "interrupt.h"
#include "probe_util.h"

#include "op.h"
#include "rng.h"
#include "stats.h"
#include "verify.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- output ----------------------------------------------------------- */

void probe_say(env *e, const char *fmt, ...)
{
    probe_progress_done(e); /* stdout and stderr share the terminal: start on a clean line */
    va_list ap;
    va_start(ap, fmt);
    vfprintf(e->out, fmt, ap);
    va_end(ap);
    fputc('\n', e->out);
    if (e->md) {
        /* blank lines around it: it neither joins the text before it nor
         * becomes a row of the table above it */
        fputc('\n', e->md);
        va_start(ap, fmt);
        vfprintf(e->md, fmt, ap);
        va_end(ap);
        fputc('\n', e->md);
    }
}

void probe_progress(env *e, const char *fmt, ...)
{
    if (!e->cfg->progress)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "\r\033[K");
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

void probe_progress_done(env *e)
{
    if (e->cfg->progress)
        fprintf(stderr, "\r\033[K");
}

/* ---- sweeps ----------------------------------------------------------- */

void probe_sweep_open(probe_sweep *s, env *e, const char *curve)
{
    s->e = e;
    s->curve = NULL;
    if (curve && !(s->curve = cJSON_GetObjectItemCaseSensitive(e->points, curve)))
        s->curve = cJSON_AddArrayToObject(e->points, curve);
    s->table = (sl_table){0};
    s->ncells = 0;
}

void probe_table(probe_sweep *s, const sl_col *cols, int ncols)
{
    if (s->e->md)
        fputc('\n', s->e->md); /* a Markdown table must not continue a paragraph */
    sl_table_open(&s->table, cols, ncols < PROBE_MAX_COLS ? ncols : PROBE_MAX_COLS, s->e->out, s->e->md);
}

cJSON *probe_point(probe_sweep *s)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToArray(s->curve, p);
    return p;
}

void probe_cell(probe_sweep *s, const char *fmt, ...)
{
    if (s->ncells >= PROBE_MAX_COLS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->cell[s->ncells++], PROBE_CELL_BYTES, fmt, ap);
    va_end(ap);
}

void probe_num(probe_sweep *s, double v, int decimals, const char *suffix)
{
    if (v < 0)
        probe_cell(s, "-");
    else
        probe_cell(s, "%.*f%s", decimals, v, suffix);
}

void probe_row(probe_sweep *s)
{
    const char *cells[PROBE_MAX_COLS];
    for (int i = 0; i < s->table.ncols; i++)
        cells[i] = i < s->ncells ? s->cell[i] : "";
    probe_progress_done(s->e); /* as probe_say */
    sl_table_row(&s->table, cells);
    s->ncells = 0;
}

/* ---- timing and checks ------------------------------------------------ */

/* SIGINT / SIGTERM between two launches: the probe stops, unfinished. */
static sl_status check_interrupt(void)
{
    return sl_interrupted() ? sl_fail(SL_ERR_INTERRUPTED, "interrupted by %s", sl_interrupt_cause()) : SL_OK;
}

sl_status probe_time_job(env *e, probe_job_fn fn, void *arg, int warmup, int trials, double *median_ms)
{
    sl_status st = SL_OK;
    for (int i = 0; i < warmup && st == SL_OK; i++)
        if ((st = check_interrupt()) == SL_OK)
            st = fn(e, arg);
    if (st == SL_OK)
        st = e->ctx->ops->sync(e->ctx);
    double t[64];
    if (trials > 64)
        trials = 64;
    for (int i = 0; i < trials && st == SL_OK; i++) {
        if ((st = check_interrupt()) != SL_OK || (st = e->ctx->ops->timer_start(e->ctx)) != SL_OK)
            break;
        if ((st = fn(e, arg)) != SL_OK)
            break;
        st = e->ctx->ops->timer_stop(e->ctx, &t[i]);
    }
    if (st != SL_OK)
        return st;
    sl_stats s;
    sl_stats_compute(t, (size_t)trials, &s);
    *median_ms = s.median;
    return SL_OK;
}

double probe_gbs(double bytes, double ms)
{
    return ms > 0 ? bytes / (ms * 1e6) : 0.0;
}

uint32_t probe_expected_sum(uint64_t seed, size_t words)
{
    uint32_t acc = 0;
#pragma omp parallel for reduction(+ : acc) schedule(static)
    for (size_t i = 0; i < words; i++)
        acc += sl_rand_f32_bits(seed, i);
    return acc;
}

size_t probe_l2_or_default(const env *e)
{
    return e->ctx->info.l2_bytes ? e->ctx->info.l2_bytes : 32 * MIB;
}

size_t probe_max_working_set(const env *e, double fraction)
{
    size_t avail = e->ctx->ops->mem_available(e->ctx);
    size_t cap = (size_t)((double)avail * fraction);
    size_t ws = e->cfg->quick ? 64 * MIB : 4 * GIB;
    return ws < cap ? ws : cap;
}

bool probe_check_only(const env *e)
{
    (void)e;
    const char *v = getenv("STREAMLAB_PROBE_CHECK_ONLY");
    return v && *v && strcmp(v, "0") != 0;
}

sl_status probe_check_zero(uint64_t bad, const char *what)
{
    if (bad)
        return sl_fail(SL_ERR_VERIFY, "%s: %llu elements wrong", what, (unsigned long long)bad);
    return SL_OK;
}

sl_status probe_check_mismatches(env *e, const char *what, const void *dst, size_t dst_stride, const void *src,
                                 size_t src_stride, size_t src_offset, size_t count, uint32_t value)
{
    uint64_t bad;
    sl_status st = e->ops->mismatches(e->ctx, dst, dst_stride, src, src_stride, src_offset, count, value, &bad);
    return st != SL_OK ? st : probe_check_zero(bad, what);
}

/* ---- jobs ------------------------------------------------------------- */

sl_status probe_job_read(env *e, void *arg)
{
    rw_job *j = arg;
    return e->ops->read(e->ctx, j->src, j->words, j->vec, j->ilp, j->warps, j->passes, j->cg, j->sum,
                        &j->warps_used);
}

sl_status probe_job_write(env *e, void *arg)
{
    rw_job *j = arg;
    return e->ops->write(e->ctx, j->dst, j->words, j->stride, 0x3f800000u);
}

sl_status probe_job_copy(env *e, void *arg)
{
    rw_job *j = arg;
    return e->ops->copy(e->ctx, j->dst, j->src, j->words);
}

sl_status probe_job_copy_strided(env *e, void *arg)
{
    rw_job *j = arg;
    return e->ops->copy_strided(e->ctx, j->dst, j->src, j->words, j->stride, j->offset);
}

sl_status probe_job_memcpy(env *e, void *arg)
{
    rw_job *j = arg;
    return probe_memcpy_ceiling(e, j->dst, j->src, j->words, &j->have);
}

sl_status probe_job_add(env *e, void *arg)
{
    rw_job *j = arg;
    return probe_add_launch(e, j->src, j->b, j->dst, j->words, &j->have);
}

sl_status probe_job_add_hinted(env *e, void *arg)
{
    rw_job *j = arg;
    return e->ops->add(e->ctx, j->dst, j->src, j->b, j->words, j->demote);
}

sl_status probe_timed_read(env *e, rw_job *j, int warmup, int trials, uint32_t one, const char *what, double *ms)
{
    uint32_t got = 0;
    sl_status st = e->ops->read_collect(e->ctx, j->sum, &got); /* start from zero */
    if (st == SL_OK)
        st = probe_time_job(e, probe_job_read, j, warmup, trials, ms);
    if (st == SL_OK)
        st = e->ops->read_collect(e->ctx, j->sum, &got);
    if (st != SL_OK)
        return st;
    uint32_t want = one * (uint32_t)(warmup + (trials > 64 ? 64 : trials));
    if (got != want)
        return sl_fail(SL_ERR_VERIFY, "%s: checksum 0x%08x, want 0x%08x", what, got, want);
    return SL_OK;
}

/* ---- the add op's variants ---------------------------------------------- */

/* An f32 launch of variant v of add on a, b -> c (the descriptor's order). */
static sl_status launch_add(const env *e, const sl_variant *v, const void *a, const void *b, void *c, size_t words)
{
    sl_args x = {.op = &sl_op_add, .shape = sl_shape_1d(words), .n = words, .buf = {(void *)a, (void *)b, c},
                 .dtype = SL_F32, .out_dtype = SL_F32, .stream = e->ctx->stream};
    return v->launch(&x);
}

/* The add op's copy ceiling of this backend: c, a copy of a. */
static const sl_variant *copy_ceiling(const env *e)
{
    for (int i = 0; i < sl_op_add.nvariants; i++) {
        const sl_variant *r = &sl_op_add.variants[i];
        if (r->backend == e->ctx->info.backend && r->kind == SL_KIND_CEILING && r->launch)
            return r;
    }
    return NULL;
}

sl_status probe_memcpy_ceiling(env *e, void *dst, const void *src, size_t words, bool *have)
{
    const sl_variant *v = copy_ceiling(e);
    *have = v != NULL;
    return v ? launch_add(e, v, src, src, dst, words) : SL_OK;
}

sl_status probe_add_launch(env *e, const void *a, const void *b, void *c, size_t words, bool *have)
{
    const sl_variant *v = sl_variant_api(&sl_op_add, e->ctx->info.backend);
    *have = v && v->launch;
    return *have ? launch_add(e, v, a, b, c, words) : SL_OK;
}

sl_status probe_add_check(env *e, const void *c, size_t words, uint64_t seed_a, uint64_t seed_b, uint64_t *bad)
{
    const sl_variant *v = sl_variant_api(&sl_op_add, e->ctx->info.backend);
    if (!v)
        return sl_fail(SL_ERR_UNSUPPORTED, "the %s backend has no add kernel to check", e->ctx->ops->name);
    void *const bufs[] = {NULL, NULL, (void *)c};
    const uint64_t seeds[] = {seed_a, seed_b, 0}, first[] = {0, 0, 0};
    sl_check chk;
    sl_status st = sl_verify_launch(e->ctx, &sl_op_add, v, SL_F32, NULL, words, bufs, seeds, first, &chk);
    if (st == SL_OK)
        *bad = chk.mismatches;
    return st;
}
