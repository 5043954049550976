/*
 * probe.c - the microbenchmarks of `streamlab probe` (see probe.h).
 *
 * Each probe sweeps one knob, times every point with the backend's timer
 * (CUDA events), checks the point's result (a checksum, a mismatch count, a
 * pointer chase's end node), prints a short table, stores its raw points in
 * the profile's "points" object and its summary numbers in the profile.
 */
#define _POSIX_C_SOURCE 200809L
#include "probe.h"

#include "counters.h"

#include "probe_math.h"
#include "registry.h"
#include "rng.h"
#include "sizes.h"
#include "stats.h"
#include "table.h"
#include "verify.h"

#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define GIB ((size_t)1 << 30)
#define MIB ((size_t)1 << 20)
#define KIB ((size_t)1 << 10)

typedef struct env {
    sl_ctx *ctx;
    const sl_probe_ops *ops;
    const sl_probe_config *cfg;
    sl_profile *prof;
    cJSON *points;
    FILE *out, *md;
} env;

/* ---- output ----------------------------------------------------------- */

static void progress_done(env *e);

/* One line of free text (a heading, a summary, a note); the newline is
 * added. On Markdown it is a paragraph of its own, so that it neither joins
 * the text before it nor becomes a row of the table above it. */
static void say(env *e, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void say(env *e, const char *fmt, ...)
{
    progress_done(e); /* stdout and stderr share the terminal: start on a clean line */
    va_list ap;
    va_start(ap, fmt);
    vfprintf(e->out, fmt, ap);
    va_end(ap);
    fputc('\n', e->out);
    if (e->md) {
        fputc('\n', e->md);
        va_start(ap, fmt);
        vfprintf(e->md, fmt, ap);
        va_end(ap);
        fputc('\n', e->md);
    }
}

static void progress(env *e, const char *fmt, ...)
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

static void progress_done(env *e)
{
    if (e->cfg->progress)
        fprintf(stderr, "\r\033[K");
}

static cJSON *curve(env *e, const char *probe)
{
    cJSON *o = cJSON_GetObjectItemCaseSensitive(e->points, probe);
    if (!o)
        o = cJSON_AddArrayToObject(e->points, probe);
    return o;
}

/* ---- sweeps: the curve, the table, the row being built ------------------ */

enum { SWEEP_MAX_COLS = 20, SWEEP_CELL = 64 }; /* ceilings: a label, 16 working sets, best, %peak */

typedef struct sweep {
    env *e;
    cJSON *curve; /* NULL: the probe keeps no points */
    sl_table table;
    char cell[SWEEP_MAX_COLS][SWEEP_CELL];
    int ncells;
} sweep;

static void sweep_open(sweep *s, env *e, const char *curve_name)
{
    s->e = e;
    s->curve = curve_name ? curve(e, curve_name) : NULL;
    s->table = (sl_table){0};
    s->ncells = 0;
}

static void sweep_table(sweep *s, const sl_col *cols, int ncols)
{
    if (s->e->md)
        fputc('\n', s->e->md); /* a Markdown table must not continue a paragraph */
    sl_table_open(&s->table, cols, ncols < SWEEP_MAX_COLS ? ncols : SWEEP_MAX_COLS, s->e->out, s->e->md);
}

static cJSON *sweep_point(sweep *s)
{
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToArray(s->curve, p);
    return p;
}

static void sweep_cell(sweep *s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
static void sweep_cell(sweep *s, const char *fmt, ...)
{
    if (s->ncells >= SWEEP_MAX_COLS)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(s->cell[s->ncells++], SWEEP_CELL, fmt, ap);
    va_end(ap);
}

static void sweep_num(sweep *s, double v, int decimals, const char *suffix)
{
    if (v < 0)
        sweep_cell(s, "-");
    else
        sweep_cell(s, "%.*f%s", decimals, v, suffix);
}

static void sweep_row(sweep *s)
{
    const char *cells[SWEEP_MAX_COLS];
    for (int i = 0; i < s->table.ncols; i++)
        cells[i] = i < s->ncells ? s->cell[i] : "";
    /* stdout and stderr share the terminal: start the row on a clean line */
    progress_done(s->e);
    sl_table_row(&s->table, cells);
    s->ncells = 0;
}

/* ---- timing ----------------------------------------------------------- */

typedef sl_status (*job_fn)(env *e, void *arg);

/* Median ms of `trials` runs of fn after `warmup` untimed ones. */
static sl_status time_job(env *e, job_fn fn, void *arg, int warmup, int trials, double *median_ms)
{
    sl_status st = SL_OK;
    for (int i = 0; i < warmup && st == SL_OK; i++)
        st = fn(e, arg);
    if (st == SL_OK)
        st = e->ctx->ops->sync(e->ctx);
    double t[64];
    if (trials > 64)
        trials = 64;
    for (int i = 0; i < trials && st == SL_OK; i++) {
        if ((st = e->ctx->ops->timer_start(e->ctx)) != SL_OK)
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

static double gbs(double bytes, double ms)
{
    return ms > 0 ? bytes / (ms * 1e6) : 0.0;
}

/* Wrapping 32-bit sum of the first `words` words a fill_random(seed) wrote:
 * what a read kernel must return. */
static uint32_t expected_sum(uint64_t seed, size_t words)
{
    uint32_t acc = 0;
#pragma omp parallel for reduction(+ : acc) schedule(static)
    for (size_t i = 0; i < words; i++)
        acc += sl_rand_f32_bits(seed, i);
    return acc;
}

static size_t l2_or_default(const env *e)
{
    return e->ctx->info.l2_bytes ? e->ctx->info.l2_bytes : 32 * MIB;
}

/* Largest working set a probe may use: 4 GiB, less if memory is short. */
static size_t max_working_set(const env *e, double fraction)
{
    size_t avail = e->ctx->ops->mem_available(e->ctx);
    size_t cap = (size_t)((double)avail * fraction);
    size_t ws = e->cfg->quick ? 64 * MIB : 4 * GIB;
    return ws < cap ? ws : cap;
}

static sl_status check_zero(uint64_t bad, const char *what)
{
    if (bad)
        return sl_fail(SL_ERR_VERIFY, "%s: %llu elements wrong", what, (unsigned long long)bad);
    return SL_OK;
}

/* ---- jobs ------------------------------------------------------------- */

typedef struct rw_job {
    void *dst;
    const void *src;
    size_t words, stride, offset;
    int vec, ilp, warps, passes, cg;
    uint32_t *sum;
    int warps_used;
    const sl_variant *v; /* registry entry for memcpy / add */
    const void *b;
} rw_job;

static sl_status job_read(env *e, void *arg)
{
    rw_job *j = arg;
    return e->ops->read(e->ctx, j->src, j->words, j->vec, j->ilp, j->warps, j->passes, j->cg, j->sum,
                        &j->warps_used);
}

static sl_status job_write(env *e, void *arg)
{
    rw_job *j = arg;
    return e->ops->write(e->ctx, j->dst, j->words, j->stride, 0x3f800000u);
}

static sl_status job_copy(env *e, void *arg)
{
    rw_job *j = arg;
    return e->ops->copy(e->ctx, j->dst, j->src, j->words);
}

static sl_status job_copy_strided(env *e, void *arg)
{
    rw_job *j = arg;
    return e->ops->copy_strided(e->ctx, j->dst, j->src, j->words, j->stride, j->offset);
}

static sl_status job_variant(env *e, void *arg)
{
    rw_job *j = arg;
    sl_args x = {.n = j->words, .a = j->src, .b = j->b, .c = j->dst, .stream = e->ctx->stream, .dtype = SL_F32};
    return j->v->launch(&x);
}

/* Time a read with time_job, then check the accumulated checksum: every
 * run (warm-ups too) added `one` to it. */
static sl_status timed_read(env *e, rw_job *j, int warmup, int trials, uint32_t one, const char *what, double *ms)
{
    uint32_t got = 0;
    sl_status st = e->ops->read_collect(e->ctx, j->sum, &got); /* start from zero */
    if (st == SL_OK)
        st = time_job(e, job_read, j, warmup, trials, ms);
    if (st == SL_OK)
        st = e->ops->read_collect(e->ctx, j->sum, &got);
    if (st != SL_OK)
        return st;
    uint32_t want = one * (uint32_t)(warmup + (trials > 64 ? 64 : trials));
    if (got != want)
        return sl_fail(SL_ERR_VERIFY, "%s: checksum 0x%08x, want 0x%08x", what, got, want);
    return SL_OK;
}

/* ---- ceilings ----------------------------------------------------------- */

static sl_status probe_ceilings(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t l2 = l2_or_default(e);
    const size_t max_ws = max_working_set(e, 0.45);
    size_t ws_list[16];
    int nws = 0;
    if (max_ws < MIB) {
        return sl_fail(SL_ERR_NO_MEMORY, "ceilings: less than 1 MiB of memory free");
    } else if (e->cfg->quick) {
        ws_list[nws++] = 16 * MIB < max_ws ? 16 * MIB : max_ws;
        ws_list[nws++] = 64 * MIB < max_ws ? 64 * MIB : max_ws;
    } else {
        for (size_t ws = 4 * l2; ws <= max_ws && nws < 16; ws *= 2)
            ws_list[nws++] = ws;
        if (nws == 0)
            ws_list[nws++] = max_ws;
    }
    const sl_variant *memcpy_v = NULL, *add_v = sl_registry_api(SL_OP_ADD, ctx->info.backend);
    for (size_t i = 0; i < sl_registry_count(); i++)
        if (sl_registry_at(i)->backend == ctx->info.backend && sl_registry_at(i)->op == SL_OP_ADD &&
            sl_registry_at(i)->kind == SL_KIND_CEILING)
            memcpy_v = sl_registry_at(i);
    size_t maxb = ws_list[nws - 1];
    void *A = NULL, *B = NULL, *C = NULL;
    uint32_t *sum = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, maxb, &A)) != SL_OK || (st = ctx->ops->alloc(ctx, maxb / 2, &B)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, maxb / 3 + 64, &C)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, SL_PROBE_SUM_WORDS * sizeof *sum, (void **)&sum)) != SL_OK)
        goto done;

    enum { K_MEMCPY, K_SMCOPY, K_READ, K_WRITE, K_ADD, NK };
    static const char *names[NK] = {"copy (memcpy)", "copy (SM kernel)", "read-only", "write-only",
                                    "add (sl_add)"};
    static const char *keys[NK] = {"memcpy", "sm_copy", "read", "write", "add"};
    double best[NK] = {0}, g[NK][16] = {{0}};
    const uint64_t sa = 0xce11a, sb = 0xce11b;
    sweep sw;
    sweep_open(&sw, e, "ceilings");
    for (int w = 0; w < nws; w++) {
        size_t ws = ws_list[w];
        char ws_s[32];
        sl_format_bytes((double)ws, ws_s, sizeof ws_s);
        progress(e, "ceilings: %s", ws_s);
        rw_job j = {0};
        double ms;
        uint64_t bad;
        /* copies: ws/2 bytes in, ws/2 out */
        size_t cw = ws / 2 / 4 / 4 * 4;
        if ((st = ctx->ops->fill_random(ctx, SL_F32, A, cw, sa)) != SL_OK)
            goto done;
        if (memcpy_v) {
            j = (rw_job){.dst = B, .src = A, .words = cw, .v = memcpy_v};
            ctx->ops->poison(ctx, B, cw * 4);
            if ((st = time_job(e, job_variant, &j, 2, e->cfg->trials, &ms)) != SL_OK ||
                (st = e->ops->mismatches(ctx, B, 1, A, 1, 0, cw, 0, &bad)) != SL_OK ||
                (st = check_zero(bad, "memcpy ceiling")) != SL_OK)
                goto done;
            g[K_MEMCPY][w] = gbs(2.0 * cw * 4, ms);
        }
        j = (rw_job){.dst = B, .src = A, .words = cw};
        ctx->ops->poison(ctx, B, cw * 4);
        if ((st = time_job(e, job_copy, &j, 2, e->cfg->trials, &ms)) != SL_OK ||
            (st = e->ops->mismatches(ctx, B, 1, A, 1, 0, cw, 0, &bad)) != SL_OK ||
            (st = check_zero(bad, "SM copy ceiling")) != SL_OK)
            goto done;
        g[K_SMCOPY][w] = gbs(2.0 * cw * 4, ms);
        /* read: ws bytes; the best of 1 and 2 float4 per thread */
        size_t rw = ws / 4 / 16 * 16;
        if ((st = ctx->ops->fill_random(ctx, SL_F32, A, rw, sa)) != SL_OK)
            goto done;
        uint32_t want = expected_sum(sa, rw);
        for (int ilp = 1; ilp <= 2; ilp++) {
            j = (rw_job){.src = A, .words = rw, .vec = 4, .ilp = ilp, .passes = 1, .sum = sum};
            if ((st = timed_read(e, &j, 2, e->cfg->trials, want, "read ceiling", &ms)) != SL_OK)
                goto done;
            if (gbs((double)rw * 4, ms) > g[K_READ][w])
                g[K_READ][w] = gbs((double)rw * 4, ms);
        }
        /* add: a, b in, c out, ws/3 each */
        size_t aw = ws / 3 / 4 / 4 * 4;
        if (add_v) {
            if ((st = ctx->ops->fill_random(ctx, SL_F32, A, aw, sa)) != SL_OK ||
                (st = ctx->ops->fill_random(ctx, SL_F32, B, aw, sb)) != SL_OK)
                goto done;
            ctx->ops->poison(ctx, C, aw * 4);
            j = (rw_job){.dst = C, .src = A, .b = B, .words = aw, .v = add_v};
            sl_check chk;
            if ((st = time_job(e, job_variant, &j, 2, e->cfg->trials, &ms)) != SL_OK ||
                (st = sl_verify(ctx, add_v, SL_F32, 0.0f, aw, C, sa, 0, sb, 0, &chk)) != SL_OK ||
                (st = check_zero(chk.mismatches, "add ceiling")) != SL_OK)
                goto done;
            g[K_ADD][w] = gbs(3.0 * aw * 4, ms);
        }
        /* write: ws bytes (overwrites A, refilled at the next size) */
        j = (rw_job){.dst = A, .words = rw, .stride = 1};
        if ((st = time_job(e, job_write, &j, 2, e->cfg->trials, &ms)) != SL_OK ||
            (st = e->ops->mismatches(ctx, A, 1, NULL, 0, 0, rw, 0x3f800000u, &bad)) != SL_OK ||
            (st = check_zero(bad, "write ceiling")) != SL_OK)
            goto done;
        g[K_WRITE][w] = gbs((double)rw * 4, ms);
        cJSON *p = sweep_point(&sw);
        cJSON_AddNumberToObject(p, "working_set_bytes", (double)ws);
        for (int k = 0; k < NK; k++) {
            if (g[k][w] > 0)
                cJSON_AddNumberToObject(p, keys[k], g[k][w]);
            if (g[k][w] > best[k])
                best[k] = g[k][w];
        }
    }
    progress_done(e);

    /* a row per kernel, a column per working set */
    char heads[16][32];
    sl_col cols[1 + 16 + 2];
    int nc = 0;
    cols[nc++] = (sl_col){"GB/s (read+write)", 18, 'l'};
    for (int w = 0; w < nws; w++) {
        sl_format_bytes((double)ws_list[w], heads[w], sizeof heads[w]);
        cols[nc++] = (sl_col){heads[w], 10, 'r'};
    }
    cols[nc++] = (sl_col){"best", 10, 'r'};
    cols[nc++] = (sl_col){"%peak", 7, 'r'};
    sweep_table(&sw, cols, nc);
    for (int k = 0; k < NK; k++) {
        if (best[k] <= 0)
            continue;
        sweep_cell(&sw, "%s", names[k]);
        for (int w = 0; w < nws; w++)
            sweep_cell(&sw, "%.1f", g[k][w]);
        sweep_cell(&sw, "%.1f", best[k]);
        sweep_num(&sw, ctx->info.peak_gbs > 0 ? 100.0 * best[k] / ctx->info.peak_gbs : -1, 1, "");
        sweep_row(&sw);
    }
    if (e->cfg->quick)
        say(e, "(quick: small working sets, inside the caches; not ceilings)");
    e->prof->copy_memcpy_gbs = best[K_MEMCPY] > 0 ? best[K_MEMCPY] : -1;
    e->prof->copy_sm_gbs = best[K_SMCOPY];
    e->prof->read_gbs = best[K_READ];
    e->prof->write_gbs = best[K_WRITE];
    e->prof->add_gbs = best[K_ADD] > 0 ? best[K_ADD] : -1;
done:
    progress_done(e);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, B);
    ctx->ops->free(ctx, C);
    ctx->ops->free(ctx, sum);
    return st;
}

/* ---- latency ------------------------------------------------------------- */

enum { NODE_WORDS = 32 }; /* one node per 128-byte line: every hop a new line */

static sl_status probe_latency(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t l2 = l2_or_default(e);
    size_t top = 16 * KIB;
    while (top < (e->cfg->quick ? 16 * MIB : 4 * l2))
        top *= 2; /* the first power of two at or past 4 x L2 */
    size_t cap = max_working_set(e, 0.25);
    if (top > cap)
        top = cap;
    const uint64_t steps = e->cfg->quick ? 20000 : 100000;
    const double clock_ghz = ctx->info.sm_clock_khz > 0 ? ctx->info.sm_clock_khz / 1e6 : 0;
    double ws_v[40], ns_v[40], cyc_v[40];
    int n = 0;
    uint32_t *next = malloc(top / (NODE_WORDS * 4) * sizeof *next);
    uint32_t *nodes = calloc(top / 4, sizeof *nodes);
    void *dev = NULL;
    sl_status st = SL_OK;
    if (!next || !nodes) {
        st = sl_fail(SL_ERR_NO_MEMORY, "latency: out of host memory for a %zu-byte chase", top);
        goto done;
    }
    if ((st = ctx->ops->alloc(ctx, top, &dev)) != SL_OK)
        goto done;
    /* the last column draws ns/load as a bar, one # per 20 ns */
    static const sl_col cols[] = {{"working set", 12, 'r'}, {"ns/load", 10, 'r'}, {"cycles", 10, 'r'}, {"", 0, 'l'}};
    sweep sw;
    sweep_open(&sw, e, "latency");
    sweep_table(&sw, cols, 4);
    for (size_t ws = 16 * KIB; ws <= top && n < 40; ws *= 2, n++) {
        size_t nn = ws / (NODE_WORDS * 4);
        char ws_s[32];
        sl_format_bytes((double)ws, ws_s, sizeof ws_s);
        progress(e, "latency: %s", ws_s);
        sl_random_cycle(next, nn, 0x1a7e + ws);
        for (size_t i = 0; i < nn; i++)
            nodes[i * NODE_WORDS] = next[i];
        if ((st = ctx->ops->upload(ctx, dev, nodes, nn * NODE_WORDS * 4)) != SL_OK)
            goto done;
        uint32_t end = 0;
        double cycles = 0, ms = 0;
        /* one untimed lap pulls the working set into whatever cache holds it */
        uint64_t warm = nn < (1u << 20) ? nn : (1u << 20);
        if ((st = e->ops->chase(ctx, dev, 0, warm, NODE_WORDS, &end, &cycles, &ms)) != SL_OK ||
            (st = e->ops->chase(ctx, dev, 0, steps, NODE_WORDS, &end, &cycles, &ms)) != SL_OK)
            goto done;
        uint32_t want = sl_chase_end(next, 0, steps);
        if (end != want) {
            st = sl_fail(SL_ERR_VERIFY, "latency: the chase over %s ended at node %u, want %u", ws_s, end, want);
            goto done;
        }
        ws_v[n] = (double)ws;
        ns_v[n] = ms * 1e6 / (double)steps;
        cyc_v[n] = cycles >= 0 ? cycles / (double)steps : -1;
        int bar = (int)(ns_v[n] / 20.0);
        char bars[64];
        memset(bars, '#', sizeof bars);
        bars[bar < 63 ? bar : 63] = 0;
        sweep_cell(&sw, "%s", ws_s);
        sweep_cell(&sw, "%.1f", ns_v[n]);
        sweep_num(&sw, cyc_v[n], 0, "");
        sweep_cell(&sw, "%s", bars);
        sweep_row(&sw);
        cJSON *p = sweep_point(&sw);
        cJSON_AddNumberToObject(p, "working_set_bytes", ws_v[n]);
        cJSON_AddNumberToObject(p, "ns", ns_v[n]);
        if (cyc_v[n] >= 0)
            cJSON_AddNumberToObject(p, "cycles", cyc_v[n]);
    }
    progress_done(e);
    {
        /* Plateaus: L1 at <= 32 KiB; L2 from 1 MiB to a quarter of L2 (clear
         * of the far L2 partition and of capacity misses); DRAM at >= 2 x L2. */
        double l1 = sl_plateau(ws_v, ns_v, n, 0, 32.0 * KIB);
        double l2n = sl_plateau(ws_v, ns_v, n, 1.0 * MIB, l2 / 4.0);
        double dram = sl_plateau(ws_v, ns_v, n, 2.0 * l2, 1e30);
        e->prof->lat_l1_ns = l1;
        e->prof->lat_l2_ns = l2n;
        e->prof->lat_dram_ns = dram;
        e->prof->lat_l1_cycles = sl_plateau(ws_v, cyc_v, n, 0, 32.0 * KIB);
        e->prof->lat_l2_cycles = sl_plateau(ws_v, cyc_v, n, 1.0 * MIB, l2 / 4.0);
        e->prof->lat_dram_cycles = sl_plateau(ws_v, cyc_v, n, 2.0 * l2, 1e30);
        char dram_cycles[32] = "";
        if (e->prof->lat_dram_cycles > 0 && clock_ghz > 0)
            snprintf(dram_cycles, sizeof dram_cycles, " (%.0f cycles)", e->prof->lat_dram_cycles);
        say(e, "plateaus (median): L1 (<= 32 KiB) %.1f ns, %s (1 MiB .. L2/4) %.1f ns, DRAM (>= 2 x L2) %.1f ns%s",
            l1, ctx->info.backend == SL_BACKEND_CUDA ? "L2" : "LLC", l2n, dram, dram_cycles);
    }
done:
    progress_done(e);
    free(next);
    free(nodes);
    ctx->ops->free(ctx, dev);
    return st;
}

/* ---- bandwidth vs bytes in flight ------------------------------------------ */

static sl_status probe_bif(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t l2 = l2_or_default(e);
    /* 1 GiB (or 16 x L2): a launch's own overhead stays near 2% of the
     * fastest point's time */
    size_t bytes = e->cfg->quick ? 64 * MIB : (16 * l2 > GIB ? 16 * l2 : GIB);
    size_t cap = max_working_set(e, 0.25);
    if (bytes > cap)
        bytes = cap;
    const size_t words = bytes / 4 / 16 * 16;
    static const int warps_full[] = {1, 2, 4, 8, 16, 32, 48, 64}, ilps_full[] = {1, 2, 4, 8}, vecs_full[] = {1, 4};
    static const int warps_quick[] = {1, 8, 64}, ilps_quick[] = {1, 4}, vecs_quick[] = {4};
    const int *W = e->cfg->quick ? warps_quick : warps_full, *I = e->cfg->quick ? ilps_quick : ilps_full,
              *V = e->cfg->quick ? vecs_quick : vecs_full;
    int nW = e->cfg->quick ? 3 : 8, nI = e->cfg->quick ? 2 : 4, nV = e->cfg->quick ? 1 : 2;
    double x[128], y[128];
    int wu[128], il[128], ve[128], n = 0;
    void *A = NULL;
    uint32_t *sum = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, words * 4, &A)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, SL_PROBE_SUM_WORDS * sizeof *sum, (void **)&sum)) != SL_OK ||
        (st = ctx->ops->fill_random(ctx, SL_F32, A, words, 0xb1f)) != SL_OK)
        goto done;
    uint32_t want = expected_sum(0xb1f, words);
    for (int a = 0; a < nW; a++)
        for (int b = 0; b < nI; b++)
            for (int c = 0; c < nV; c++) {
                /* Each block must bring >= 2 KiB, else the block scheduler
                 * (~1 block per 80 ns per SM on the H200), not memory, sets
                 * the pace; see sl_cuda_probe_read. */
                int block = W[a] < 8 ? 32 * W[a] : 256;
                if ((size_t)block * I[b] * V[c] * 4 < 2048 && W[a] >= 8)
                    continue;
                progress(e, "bytes in flight: %d warps/SM, ILP %d, %d B loads", W[a], I[b], 4 * V[c]);
                rw_job j = {.src = A, .words = words, .vec = V[c], .ilp = I[b], .warps = W[a], .passes = 1,
                            .sum = sum};
                double ms;
                if ((st = timed_read(e, &j, 1, e->cfg->quick ? 2 : 3, want, "bytes in flight", &ms)) != SL_OK)
                    goto done;
                wu[n] = j.warps_used;
                il[n] = I[b];
                ve[n] = 4 * V[c];
                x[n] = (double)j.warps_used * 32 * I[b] * 4 * V[c];
                y[n] = gbs((double)words * 4, ms);
                n++;
            }
    progress_done(e);
    {
        double ymax = 0;
        for (int i = 0; i < n; i++)
            ymax = y[i] > ymax ? y[i] : ymax;
        double ceiling = e->prof->copy_memcpy_gbs > e->prof->copy_sm_gbs ? e->prof->copy_memcpy_gbs
                                                                          : e->prof->copy_sm_gbs;
        const char *ref = "the copy ceiling";
        if (ceiling <= 0) {
            ceiling = ymax;
            ref = "the best read in this sweep (run with the ceilings probe for the copy ceiling)";
        }
        int knee = sl_knee(x, y, n, 0.9 * ceiling);
        /* sort by bytes in flight for the table */
        int order[128];
        for (int i = 0; i < n; i++)
            order[i] = i;
        for (int i = 1; i < n; i++)
            for (int k = i; k > 0 && x[order[k - 1]] > x[order[k]]; k--) {
                int t = order[k];
                order[k] = order[k - 1];
                order[k - 1] = t;
            }
        static const sl_col cols[] = {{"warps/SM", 9, 'r'},      {"ILP", 4, 'r'},  {"B/load", 7, 'r'},
                                      {"in flight/SM", 14, 'r'}, {"GB/s", 9, 'r'}, {"%ceiling", 8, 'r'},
                                      {"", 0, 'l'}};
        sweep sw;
        sweep_open(&sw, e, "bytes_in_flight");
        sweep_table(&sw, cols, 7);
        e->prof->bif_n = 0; /* the new curve replaces the old one, now that it is complete */
        double lat_sum[128];
        int nl = 0;
        for (int r = 0; r < n; r++) {
            int i = order[r];
            char b_s[32];
            sl_format_bytes(x[i], b_s, sizeof b_s);
            sweep_cell(&sw, "%d", wu[i]);
            sweep_cell(&sw, "%d", il[i]);
            sweep_cell(&sw, "%d", ve[i]);
            sweep_cell(&sw, "%s", b_s);
            sweep_cell(&sw, "%.1f", y[i]);
            sweep_cell(&sw, "%.1f", 100.0 * y[i] / ceiling);
            sweep_cell(&sw, "%s", i == knee ? "<- knee" : "");
            sweep_row(&sw);
            if (y[i] < 0.5 * ymax)
                lat_sum[nl++] = sl_littles_latency_ns(x[i] * ctx->info.sm_count, y[i]);
            cJSON *p = sweep_point(&sw);
            cJSON_AddNumberToObject(p, "warps_per_sm", wu[i]);
            cJSON_AddNumberToObject(p, "ilp", il[i]);
            cJSON_AddNumberToObject(p, "bytes_per_load", ve[i]);
            cJSON_AddNumberToObject(p, "bytes_in_flight_per_sm", x[i]);
            cJSON_AddNumberToObject(p, "gbs", y[i]);
            if (e->prof->bif_n < SL_PROFILE_MAX_BIF) {
                e->prof->bif_x[e->prof->bif_n] = x[i];
                e->prof->bif_y[e->prof->bif_n] = y[i];
                e->prof->bif_n++;
            }
        }
        if (knee >= 0) {
            e->prof->knee_bif_per_sm = x[knee];
            e->prof->knee_gbs = y[knee];
            e->prof->knee_latency_ns = sl_littles_latency_ns(x[knee] * ctx->info.sm_count, y[knee]);
            char b_s[32];
            sl_format_bytes(x[knee], b_s, sizeof b_s);
            say(e, "knee: %s in flight per SM reach 90%% of %s (%.0f GB/s): %.1f GB/s; Little's law latency there "
                   "= %s x %d SMs / %.1f GB/s = %.0f ns",
                b_s, ref, ceiling, y[knee], b_s, ctx->info.sm_count, y[knee], e->prof->knee_latency_ns);
        } else {
            say(e, "knee: no point reached 90%% of %s (%.0f GB/s)", ref, ceiling);
        }
        if (nl) {
            sl_stats ls;
            sl_stats_compute(lat_sum, (size_t)nl, &ls);
            say(e, "latency-bound points (< 50%% of the best): median Little's-law latency %.0f ns", ls.median);
        }
    }
done:
    progress_done(e);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, sum);
    return st;
}

/* ---- launch overhead --------------------------------------------------------- */

static sl_status probe_launch(env *e)
{
    double us[3] = {0};
    static const char *what[3] = {"event-timed, one launch", "back to back, per launch", "CUDA graph, per kernel"};
    static const int counts[3] = {200, 1000, 100};
    static const sl_col cols[] = {{"mode", 28, 'l'}, {"us", 8, 'r'}};
    sweep sw;
    sweep_open(&sw, e, "launch");
    sweep_table(&sw, cols, 2);
    for (int m = 0; m < 3; m++) {
        double v[5];
        int reps = m == 0 ? 1 : 5;
        for (int r = 0; r < reps; r++) {
            sl_status st = e->ops->launch(e->ctx, m, e->cfg->quick ? counts[m] / 10 : counts[m], &v[r]);
            if (st != SL_OK)
                return st;
        }
        sl_stats s;
        sl_stats_compute(v, (size_t)reps, &s);
        us[m] = s.median;
        sweep_cell(&sw, "%s", what[m]);
        sweep_cell(&sw, "%.2f", us[m]);
        sweep_row(&sw);
        cJSON *p = sweep_point(&sw);
        cJSON_AddStringToObject(p, "mode", what[m]);
        cJSON_AddNumberToObject(p, "us", us[m]);
    }
    e->prof->launch_event_us = us[0];
    e->prof->launch_b2b_us = us[1];
    e->prof->launch_graph_us = us[2];
    return SL_OK;
}

/* ---- L2 bandwidth ------------------------------------------------------------- */

static sl_status probe_l2(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t l2 = l2_or_default(e);
    static const double frac_full[] = {1.0 / 16, 1.0 / 8, 1.0 / 4, 1.0 / 2, 1.0, 2.0};
    static const double frac_quick[] = {1.0 / 8, 1.0 / 4};
    const double *F = e->cfg->quick ? frac_quick : frac_full;
    int nf = e->cfg->quick ? 2 : 6;
    size_t maxw = (size_t)(2.0 * l2) / 4 / 16 * 16;
    void *A = NULL;
    uint32_t *sum = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, maxw * 4, &A)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, SL_PROBE_SUM_WORDS * sizeof *sum, (void **)&sum)) != SL_OK)
        goto done;
    static const sl_col cols[] = {{"working set", 12, 'r'}, {"passes", 8, 'r'}, {"GB/s", 10, 'r'}, {"", 0, 'l'}};
    sweep sw;
    sweep_open(&sw, e, "l2");
    sweep_table(&sw, cols, 4);
    double best = -1;
    for (int f = 0; f < nf; f++) {
        size_t words = (size_t)(F[f] * l2) / 4 / 16 * 16;
        int passes = (int)((e->cfg->quick ? 0.25 : 2.0) * GIB / (words * 4));
        if (passes < 1)
            passes = 1;
        progress(e, "L2: %zu bytes x %d", words * 4, passes);
        if ((st = ctx->ops->fill_random(ctx, SL_F32, A, words, 0x12)) != SL_OK)
            goto done;
        rw_job j = {.src = A, .words = words, .vec = 4, .ilp = 2, .warps = 64, .passes = passes, .cg = 1, .sum = sum};
        double ms;
        uint32_t want = (uint32_t)(expected_sum(0x12, words) * (uint32_t)passes);
        if ((st = timed_read(e, &j, 1, e->cfg->quick ? 2 : 5, want, "L2", &ms)) != SL_OK)
            goto done;
        double g = gbs((double)words * 4 * passes, ms);
        char ws_s[32];
        sl_format_bytes((double)words * 4, ws_s, sizeof ws_s);
        sweep_cell(&sw, "%s", ws_s);
        sweep_cell(&sw, "%d", passes);
        sweep_cell(&sw, "%.1f", g);
        sweep_cell(&sw, "%s", F[f] > 0.25 ? "" : "(in L2)");
        sweep_row(&sw);
        if (F[f] <= 0.25 && g > best)
            best = g;
        cJSON *p = sweep_point(&sw);
        cJSON_AddNumberToObject(p, "working_set_bytes", (double)words * 4);
        cJSON_AddNumberToObject(p, "gbs", g);
    }
    e->prof->l2_read_gbs = best;
    say(e, "L2 read bandwidth (best at <= L2/4): %.1f GB/s", best);
done:
    progress_done(e);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, sum);
    return st;
}

/* ---- offset and stride copies ---------------------------------------------------- */

/* Quick mode measures the sector-aligned offsets and the edges around them. */
static int offset_measured(const env *e, int off)
{
    return !e->cfg->quick || off % 8 == 0 || off == 1 || off == 31 || off == 33;
}

static sl_status probe_offset(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t count = e->cfg->quick ? (1u << 20) : (64u << 20);
    const int max_off = 128;
    void *A = NULL, *B = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, (count + max_off) * 4, &A)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, count * 4, &B)) != SL_OK ||
        (st = ctx->ops->fill_random(ctx, SL_F32, A, count + max_off, 0x0ff)) != SL_OK)
        goto done;
    double g[129];
    size_t sectors[129];
    sweep sw;
    sweep_open(&sw, e, "offset");
    for (int off = 0; off <= max_off; off++) {
        if (!offset_measured(e, off))
            continue;
        progress(e, "offset copy: %d", off);
        rw_job j = {.dst = B, .src = A, .words = count, .stride = 1, .offset = (size_t)off};
        double ms;
        uint64_t bad;
        if ((st = time_job(e, job_copy_strided, &j, 1, e->cfg->trials, &ms)) != SL_OK ||
            (st = e->ops->mismatches(ctx, B, 1, A, 1, (size_t)off, count, 0, &bad)) != SL_OK ||
            (st = check_zero(bad, "offset copy")) != SL_OK)
            goto done;
        g[off] = gbs(2.0 * count * 4, ms);
        sectors[off] = sl_sectors_touched((size_t)off * 4, 4, 4, 32);
        cJSON *p = sweep_point(&sw);
        cJSON_AddNumberToObject(p, "offset", off);
        cJSON_AddNumberToObject(p, "gbs", g[off]);
        cJSON_AddNumberToObject(p, "read_sectors_per_warp", (double)sectors[off]);
    }
    progress_done(e);
    static const sl_col cols[] = {{"offset", 7, 'r'}, {"GB/s", 10, 'r'}, {"vs off 0", 9, 'r'}, {"sectors/warp", 14, 'r'}};
    sweep_table(&sw, cols, 4);
    double sum[3] = {0};
    int cnt[3] = {0};
    for (int off = 0; off <= max_off; off++) {
        if (!offset_measured(e, off))
            continue;
        int cls = off % 32 == 0 ? 0 : off % 8 == 0 ? 1 : 2;
        sum[cls] += g[off];
        cnt[cls]++;
        if (off <= 33 || off % 16 == 0) {
            sweep_cell(&sw, "%d", off);
            sweep_cell(&sw, "%.1f", g[off]);
            sweep_cell(&sw, "%.3f", g[off] / g[0]);
            sweep_cell(&sw, "%zu", sectors[off]);
            sweep_row(&sw);
        }
    }
    say(e, "mean GB/s: offset %% 32 == 0: %.1f; %% 8 == 0 (sector-aligned): %.1f; other: %.1f",
        cnt[0] ? sum[0] / cnt[0] : 0, cnt[1] ? sum[1] / cnt[1] : 0, cnt[2] ? sum[2] / cnt[2] : 0);
done:
    progress_done(e);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, B);
    return st;
}

static sl_status probe_stride(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t count = e->cfg->quick ? (1u << 18) : (8u << 20);
    const size_t max_stride = 128;
    void *A = NULL, *B = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, count * max_stride * 4, &A)) != SL_OK ||
        (st = ctx->ops->alloc(ctx, count * 4, &B)) != SL_OK ||
        (st = ctx->ops->fill_random(ctx, SL_F32, A, count * max_stride, 0x57)) != SL_OK)
        goto done;
    static const sl_col cols[] = {{"stride", 7, 'r'}, {"useful GB/s", 11, 'r'}, {"sector eff.", 11, 'r'},
                                  {"sector GB/s", 14, 'r'}};
    sweep sw;
    sweep_open(&sw, e, "stride");
    sweep_table(&sw, cols, 4);
    for (size_t s = 1; s <= max_stride; s++) {
        if (e->cfg->quick && (s & (s - 1)))
            continue;
        progress(e, "strided copy: %zu", s);
        rw_job j = {.dst = B, .src = A, .words = count, .stride = s};
        double ms;
        uint64_t bad;
        if ((st = time_job(e, job_copy_strided, &j, 1, e->cfg->trials, &ms)) != SL_OK ||
            (st = e->ops->mismatches(ctx, B, 1, A, s, 0, count, 0, &bad)) != SL_OK ||
            (st = check_zero(bad, "strided copy")) != SL_OK)
            goto done;
        double eff = sl_sector_efficiency(s, 4);
        double useful = gbs(2.0 * count * 4, ms);
        /* read side in whole sectors, write side dense */
        double sector = gbs((double)count * 4 / eff + (double)count * 4, ms);
        if (s <= 16 || (s & (s - 1)) == 0 || s % 32 == 0) {
            sweep_cell(&sw, "%zu", s);
            sweep_cell(&sw, "%.1f", useful);
            sweep_cell(&sw, "%.3f", eff);
            sweep_cell(&sw, "%.1f", sector);
            sweep_row(&sw);
        }
        cJSON *p = sweep_point(&sw);
        cJSON_AddNumberToObject(p, "stride", (double)s);
        cJSON_AddNumberToObject(p, "useful_gbs", useful);
        cJSON_AddNumberToObject(p, "sector_efficiency", eff);
        cJSON_AddNumberToObject(p, "sector_gbs", sector);
    }
    say(e, "useful = bytes the copy needs; sector = bytes in the 32-byte sectors it must touch");
done:
    progress_done(e);
    ctx->ops->free(ctx, A);
    ctx->ops->free(ctx, B);
    return st;
}

/* ---- L2 write-validate ----------------------------------------------------------- */

/* One kernel of the L2 experiments, for sl_counters_collect. */
typedef struct ctr_job {
    env *e;
    sl_status (*fn)(env *e, void *arg);
    void *arg;
} ctr_job;

static sl_status ctr_thunk(void *user)
{
    ctr_job *j = user;
    return j->fn(j->e, j->arg);
}

static sl_status job_add(env *e, void *arg)
{
    rw_job *j = arg;
    sl_args x = {.n = j->words, .a = j->src, .b = j->b, .c = j->dst, .stream = e->ctx->stream, .dtype = SL_F32};
    return j->v->launch(&x);
}

/*
 * Seed 000's L2 experiments ("Revisiting the L2 Cache Write Behavior"),
 * with counters: read-only, write-only and add kernels over `count` words
 * each (L2 hit rates for reads and writes), then write-only coalesced vs
 * stride 8 (DRAM read : write bytes, which equals the load : store sector
 * ratio). The seed on an RTX 4060: read hit ~0.07%, write ~96%, add ~31%;
 * DRAM load : store sectors about 1 : 19.6 coalesced and 1.09 : 1 at
 * stride 8 (a partial sector is read from DRAM before it is written back).
 * Buffer A holds 8 x count words: the read-only and write-only kernels use
 * its first count words, add reads the first two count-word blocks and
 * writes the third. Each collection clears L2 first (the
 * counter session's default), so the numbers are cold-cache ones.
 */
static sl_status write_validate_counters(env *e, void *A, size_t count, cJSON *point)
{
    sl_ctx *ctx = e->ctx;
    uint32_t *sum = NULL;
    sl_status st = ctx->ops->alloc(ctx, SL_PROBE_SUM_WORDS * sizeof *sum, (void **)&sum);
    if (st != SL_OK)
        return st;
    uint32_t *w = A;
    const sl_variant *add_v = sl_registry_api(SL_OP_ADD, ctx->info.backend);
    rw_job rd = {.src = w, .words = count, .vec = 4, .ilp = 1, .passes = 1, .sum = sum};
    rw_job wr = {.dst = w, .words = count, .stride = 1};
    rw_job ad = {.src = w, .b = w + count, .dst = w + 2 * count, .words = count, .v = add_v};
    rw_job w8 = {.dst = w, .words = count, .stride = 8};
    struct {
        const char *name;
        ctr_job job;
    } k[] = {{"read-only", {e, job_read, &rd}},
             {"write-only coalesced", {e, job_write, &wr}},
             {"add (c = a + b)", {e, job_add, &ad}},
             {"write-only stride 8", {e, job_write, &w8}}};
    /* The add reads data: give it values (the fill is outside the range). */
    if ((st = ctx->ops->fill_random(ctx, SL_F32, w, 2 * count, 7)) != SL_OK)
        goto done;
    enum { NK = sizeof k / sizeof k[0] };
    say(e, "\nhardware counters (CUPTI, L2 cleared before each; %zu words per kernel):", count);
    static const sl_col cols[] = {{"kernel", 22, 'l'},    {"DRAM rd MB", 12, 'r'}, {"DRAM wr MB", 12, 'r'},
                                  {"L2 rd hit", 11, 'r'}, {"L2 wr hit", 11, 'r'},  {"DRAM rd : wr", 14, 'r'}};
    sweep sw;
    sweep_open(&sw, e, NULL);
    sweep_table(&sw, cols, 6);
    char failed[NK][256]; /* why a kernel's counters failed, said under the table */
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToObject(point, "counters", arr);
    for (size_t i = 0; i < NK; i++) {
        failed[i][0] = 0;
        sl_counters c;
        st = sl_counters_collect(e->cfg->counters, ctr_thunk, &k[i].job, &c);
        if (st == SL_OK && k[i].job.fn == job_read)
            st = e->ops->read_collect(ctx, sum, &(uint32_t){0});
        if (st == SL_ERR_CUDA_FAULT)
            goto done;
        if (st != SL_OK) {
            /* Counters are optional: the timed probe above stands. */
            snprintf(failed[i], sizeof failed[i], "%s", sl_last_error());
            sweep_cell(&sw, "%s", k[i].name);
            sweep_row(&sw);
            st = SL_OK;
            continue;
        }
        char rs[32];
        const double v_rd = c.has[SL_CTR_DRAM_READ_BYTES] ? c.value[SL_CTR_DRAM_READ_BYTES] : -1;
        const double v_wr = c.has[SL_CTR_DRAM_WRITE_BYTES] ? c.value[SL_CTR_DRAM_WRITE_BYTES] : -1;
        const double v_hr = c.has[SL_CTR_L2_READ_HIT_PCT] ? c.value[SL_CTR_L2_READ_HIT_PCT] : -1;
        const double v_hw = c.has[SL_CTR_L2_WRITE_HIT_PCT] ? c.value[SL_CTR_L2_WRITE_HIT_PCT] : -1;
        /* read : write, written so that the smaller side is 1; no reads at all is "0 : 1". */
        if (v_rd < 0 || v_wr < 0 || (v_rd == 0 && v_wr == 0))
            snprintf(rs, sizeof rs, "-");
        else if (v_rd == 0)
            snprintf(rs, sizeof rs, "0 : 1");
        else if (v_wr == 0)
            snprintf(rs, sizeof rs, "1 : 0");
        else if (v_rd >= v_wr)
            snprintf(rs, sizeof rs, "%.2f : 1", v_rd / v_wr);
        else
            snprintf(rs, sizeof rs, "1 : %.1f", v_wr / v_rd);
        sweep_cell(&sw, "%s", k[i].name);
        sweep_num(&sw, v_rd < 0 ? -1 : v_rd / 1e6, 1, "");
        sweep_num(&sw, v_wr < 0 ? -1 : v_wr / 1e6, 1, "");
        sweep_num(&sw, v_hr, 2, "%");
        sweep_num(&sw, v_hw, 2, "%");
        sweep_cell(&sw, "%s", rs);
        sweep_row(&sw);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kernel", k[i].name);
        cJSON_AddNumberToObject(o, "dram_read_bytes", v_rd);
        cJSON_AddNumberToObject(o, "dram_write_bytes", v_wr);
        cJSON_AddNumberToObject(o, "l2_read_hit_pct", v_hr);
        cJSON_AddNumberToObject(o, "l2_write_hit_pct", v_hw);
        cJSON_AddItemToArray(arr, o);
    }
    for (size_t i = 0; i < NK; i++)
        if (failed[i][0])
            say(e, "%s: counters failed: %s", k[i].name, failed[i]);
    say(e, "seed 000 (RTX 4060): L2 hit read ~0.07%%, write ~96%%, add ~31%%; DRAM load : store 1 : 19.6 coalesced, "
           "1.09 : 1 stride 8");
done:
    ctx->ops->free(ctx, sum);
    return st;
}

static sl_status probe_write_validate(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t count = e->cfg->quick ? (1u << 20) : (64u << 20);
    void *A = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, count * 8 * 4, &A)) != SL_OK)
        goto done;
    double ms[2];
    static const char *what[2] = {"coalesced (every word)", "stride 8 (4 B per 32 B sector)"};
    for (int k = 0; k < 2; k++) {
        size_t stride = k ? 8 : 1;
        ctx->ops->poison(ctx, A, count * stride * 4);
        rw_job j = {.dst = A, .words = count, .stride = stride};
        uint64_t bad;
        if ((st = time_job(e, job_write, &j, 2, e->cfg->trials, &ms[k])) != SL_OK ||
            (st = e->ops->mismatches(ctx, A, stride, NULL, 0, 0, count, 0x3f800000u, &bad)) != SL_OK ||
            (st = check_zero(bad, "write-validate")) != SL_OK)
            goto done;
    }
    double g0 = gbs((double)count * 4, ms[0]), g1 = gbs((double)count * 4, ms[1]);
    static const sl_col cols[] = {
        {"kernel (useful bytes: 4 per write)", 32, 'l'}, {"time ms", 10, 'r'}, {"useful GB/s", 14, 'r'}};
    sweep sw;
    sweep_open(&sw, e, "l2_write");
    sweep_table(&sw, cols, 3);
    for (int k = 0; k < 2; k++) {
        sweep_cell(&sw, "%s", what[k]);
        sweep_cell(&sw, "%.4f", ms[k]);
        sweep_cell(&sw, "%.1f", k ? g1 : g0);
        sweep_row(&sw);
    }
    double ratio = ms[1] / ms[0];
    say(e, "time ratio %.1f: a partial sector costs %.1f x a full one's share. Writing 32 B per 4 useful B would\n"
           "give 8x; a 32 B read to fill the sector (write-validate) plus the 32 B write gives 16x.",
        ratio, ratio);
    cJSON *p = sweep_point(&sw);
    cJSON_AddNumberToObject(p, "writes", (double)count);
    cJSON_AddNumberToObject(p, "coalesced_ms", ms[0]);
    cJSON_AddNumberToObject(p, "stride8_ms", ms[1]);
    if (!e->cfg->counters) {
        say(e, "DRAM load/store sector counts need hardware counters: rerun with --counters (CUPTI).");
    } else if ((st = write_validate_counters(e, A, count, p)) != SL_OK) {
        goto done;
    }
    e->prof->wv_coalesced_gbs = g0;
    e->prof->wv_stride8_gbs = g1;
done:
    ctx->ops->free(ctx, A);
    return st;
}

/* ---- the table of probes ------------------------------------------------------------ */

typedef struct probe_def {
    const char *name;
    const char *what;
    const char *seed;
    sl_status (*run)(env *e);
    int needs; /* 1: ops->launch, 2: persistent reads (GPU occupancy), 4: a GPU L2 */
} probe_def;

static const probe_def probes[] = {
    {"ceilings", "copy (memcpy, SM kernel), read-only, write-only and add: best GB/s over 4 x L2 .. 4 GiB",
     "seed 000 Benchmark Results; DESIGN.md peer figures", probe_ceilings, 0},
    {"latency", "pointer chase over random cyclic permutations, 16 KiB .. 4 x L2: L1, L2, DRAM latency",
     "seed 004 (latency); seed 001 section 2.2", probe_latency, 0},
    {"bif", "read bandwidth vs bytes in flight per SM (resident warps x ILP x bytes per load); Little's-law knee",
     "seed 001 section 2.2; seed 004 (Little's law, ~6 KB/SM on Volta)", probe_bif, 2},
    {"launch", "empty kernel: event-timed, back-to-back, CUDA graph replay", "DESIGN.md (4.2-4.5 us, 3.1 us)",
     probe_launch, 1},
    {"l2", "L2 read bandwidth over working sets L2/16 .. 2 x L2", "seed 000 section D (L2 bound)", probe_l2, 4},
    {"offset", "copy at element offsets 0..128 (misaligned reads)", "seed 002 (misaligned copy)", probe_offset, 0},
    {"stride", "copy at strides 1..128: useful bandwidth and sector efficiency",
     "seed 002 (strided copy); seed 004 (access patterns)", probe_stride, 0},
    {"l2-write", "write-validate: coalesced vs stride-8 write-only kernels",
     "seed 000 (Revisiting the L2 Cache Write Behavior)", probe_write_validate, 4},
};
#define NPROBES ((int)(sizeof probes / sizeof probes[0]))

int sl_probe_count(void)
{
    return NPROBES;
}

const char *sl_probe_name(int i)
{
    return i >= 0 && i < NPROBES ? probes[i].name : NULL;
}

const char *sl_probe_what(int i)
{
    return i >= 0 && i < NPROBES ? probes[i].what : NULL;
}

const char *sl_probe_seed(int i)
{
    return i >= 0 && i < NPROBES ? probes[i].seed : NULL;
}

sl_status sl_probe_run(sl_ctx *ctx, const sl_probe_config *cfg, sl_profile *prof, cJSON *points, FILE *out,
                       FILE *md)
{
    const sl_probe_ops *ops = &sl_cpu_probe_ops;
#ifdef SL_HAVE_CUDA
    if (ctx->info.backend == SL_BACKEND_CUDA)
        ops = &sl_cuda_probe_ops;
#endif
    env e = {.ctx = ctx, .ops = ops, .cfg = cfg, .prof = prof, .points = points, .out = out, .md = md};
    int is_gpu = ctx->info.backend == SL_BACKEND_CUDA;
    for (int i = 0; i < NPROBES; i++) {
        const probe_def *p = &probes[i];
        if (cfg->only && !sl_list_has(cfg->only, p->name))
            continue;
        say(&e, "\n== %s: %s\n   (%s)", p->name, p->what, p->seed);
        int can = !((p->needs & 1) && !ops->launch) && !((p->needs & 6) && !is_gpu);
        sl_status st = SL_OK;
        /* A probe writes its raw points into a fresh object; they replace the
         * previous run's only if it succeeds, so `--only X` and a failed
         * probe leave every other curve (and the old X) in the profile. */
        cJSON *fresh = cJSON_CreateObject();
        e.points = fresh;
        if (can)
            st = p->run(&e);
        else
            say(&e, "skipped: needs a GPU");
        fflush(out);
        if (st == SL_OK) {
            cJSON *item = fresh->child;
            while (item) {
                cJSON *next = item->next;
                char key[64]; /* cJSON frees the item's own name while renaming it */
                snprintf(key, sizeof key, "%s", item->string);
                cJSON *moved = cJSON_DetachItemViaPointer(fresh, item);
                if (cJSON_GetObjectItemCaseSensitive(points, key))
                    cJSON_ReplaceItemInObjectCaseSensitive(points, key, moved);
                else
                    cJSON_AddItemToObject(points, key, moved);
                item = next;
            }
        }
        cJSON_Delete(fresh);
        if (st != SL_OK) {
            char why[1024];
            snprintf(why, sizeof why, "%s", sl_last_error()); /* sl_fail must not format its own buffer */
            return sl_fail(st, "probe %s: %s", p->name, why);
        }
    }
    return SL_OK;
}
