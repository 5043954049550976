/*
 * harness.c - see harness.h.
 *
 * Per variant and size:
 *   1. fresh random inputs (new seeds), poisoned output, one launch,
 *      bit-exact check against the CPU reference;
 *   2. `warmup` untimed launches;
 *   3. `trials` launches, each between two events (cache flushed first
 *      with --cold);
 *   4. output poisoned again, one more launch, checked again: the kernel
 *      still writes every element, correctly, after the timing loop.
 */
#include "harness.h"

#include "rng.h"
#include "sizes.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t stop_requested;

void sl_harness_request_stop(void)
{
    stop_requested = 1;
}

/* The arrays the op allocates: add has a, b and c; axpy x and y (updated
 * in place). */
static size_t op_arrays(sl_op op)
{
    return op == SL_OP_AXPY ? 2 : 3;
}

/* a + b, or SIZE_MAX when it would wrap */
static size_t add_sat(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

size_t sl_harness_bytes_needed(const sl_ctx *ctx, const sl_run_config *cfg, uint64_t n)
{
    size_t per = op_arrays(cfg->op) * sl_dtype_size(cfg->dtype);
    if (n > SIZE_MAX / per - cfg->offset)
        return SIZE_MAX;
    size_t bytes = per * (size_t)(n + cfg->offset);
    if (cfg->cold)
        bytes = add_sat(bytes, 2 * ctx->info.l2_bytes);
    return bytes;
}

sl_status sl_harness_check_fit(sl_ctx *ctx, const sl_run_config *cfg, uint64_t n)
{
    size_t es = sl_dtype_size(cfg->dtype), arrays = op_arrays(cfg->op);
    if (n > SIZE_MAX / (arrays * es))
        return sl_fail(SL_ERR_NO_MEMORY, "n = %llu overflows the address space", (unsigned long long)n);
    size_t avail = ctx->ops->mem_available(ctx);
    /* Headroom for the runtime, CUB's launch and the verification chunks. */
    size_t margin = ctx->info.backend == SL_BACKEND_CUDA ? (size_t)512 << 20 : avail / 20;
    size_t need = sl_harness_bytes_needed(ctx, cfg, n);
    if (need <= avail && avail - need >= margin)
        return SL_OK;
    size_t usable = avail > margin ? avail - margin : 0;
    size_t fixed = cfg->cold ? 2 * ctx->info.l2_bytes : 0;
    uint64_t max_n = usable > fixed ? (usable - fixed) / (arrays * es) : 0;
    char need_s[32], avail_s[32], n_s[32];
    sl_format_bytes((double)need, need_s, sizeof need_s);
    sl_format_bytes((double)avail, avail_s, sizeof avail_s);
    sl_format_count(n, n_s, sizeof n_s);
    return sl_fail(SL_ERR_NO_MEMORY,
                   "n = %s (%llu elements) needs %s of %s memory (%zu arrays of %zu-byte %s%s) but %s is free; "
                   "the largest n that fits is %llu",
                   n_s, (unsigned long long)n, need_s, ctx->info.backend == SL_BACKEND_CUDA ? "device" : "host",
                   arrays, es, sl_dtype_name(cfg->dtype), cfg->cold ? " plus the L2 flush buffer" : "", avail_s,
                   (unsigned long long)max_n);
}

static void progress(const sl_run_config *cfg, int step, int total, uint64_t n, const char *name,
                     const char *what)
{
    if (!cfg->progress)
        return;
    char n_s[32];
    sl_format_count(n, n_s, sizeof n_s);
    fprintf(stderr, "\r\033[K[%d/%d] n=%s %s: %s", step, total, n_s, name, what);
    fflush(stderr);
}

static void progress_done(const sl_run_config *cfg)
{
    if (cfg->progress) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
}

/* Fresh inputs (the values are a function of the row's seeds, so this is
 * the same data every time: an in-place op such as axpy starts again from
 * its known y), then a poisoned output unless the output is an input. */
static sl_status prepare(sl_ctx *ctx, const sl_run_config *cfg, const sl_variant *v, const sl_args *args,
                         const sl_result *r)
{
    sl_status st = ctx->ops->fill_random(ctx, cfg->dtype, (void *)args->a, args->n, r->seed_a);
    if (st == SL_OK)
        st = ctx->ops->fill_random(ctx, cfg->dtype, (void *)args->b, args->n, r->seed_b);
    if (st == SL_OK && args->c != args->a && args->c != args->b)
        st = ctx->ops->poison(ctx, args->c, args->n * sl_dtype_size(sl_variant_out_dtype(v, cfg->dtype)));
    return st;
}

/* Launch once on fresh inputs and check the output. For in-place ops the
 * output cannot be poisoned; a skipped element is caught when its new
 * value differs from the old, which the op's random inputs make the common
 * case (docs/ladder.md, "Verifying in-place ops"). */
static sl_status launch_and_check(sl_ctx *ctx, const sl_run_config *cfg, const sl_variant *v,
                                  const sl_args *args, sl_result *r, sl_check *chk, bool inject)
{
    sl_status st = prepare(ctx, cfg, v, args, r);
    if (st == SL_OK)
        st = inject ? ctx->ops->inject_fault(ctx) : v->launch(args);
    if (st == SL_OK)
        st = ctx->ops->sync(ctx);
    if (st == SL_OK)
        st = sl_verify(ctx, v, cfg->dtype, cfg->alpha, args->n, args->c, r->seed_a, 0, r->seed_b, 0, chk);
    return st;
}

/* Time `trials` launches; keeps the first 1024 times in r and summarises
 * all of them. */
static sl_status time_trials(sl_ctx *ctx, const sl_run_config *cfg, const sl_variant *v, const sl_args *args,
                             sl_result *r)
{
    enum { KEEP = sizeof r->times_ms / sizeof r->times_ms[0] };
    double *t = malloc((size_t)cfg->trials * sizeof *t);
    double *g = malloc((size_t)cfg->trials * sizeof *g);
    if (!t || !g) {
        free(t);
        free(g);
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for %d trial times", cfg->trials);
    }
    sl_status st = SL_OK;
    int done = 0;
    for (; done < cfg->trials && !stop_requested; done++) {
        if (cfg->cold && (st = ctx->ops->flush_cache(ctx)) != SL_OK)
            break;
        if ((st = ctx->ops->timer_start(ctx)) != SL_OK)
            break;
        if ((st = v->launch(args)) != SL_OK)
            break;
        if ((st = ctx->ops->timer_stop(ctx, &t[done])) != SL_OK)
            break;
    }
    r->trials = done;
    if (done > 0) {
        for (int i = 0; i < done; i++)
            g[i] = t[i] > 0 ? r->bytes / (t[i] * 1e6) : 0.0;
        sl_stats gs;
        sl_stats_compute(t, (size_t)done, &r->st);
        sl_stats_compute(g, (size_t)done, &gs);
        r->gbs_sd = gs.sd;
        r->gbs = r->st.median > 0 ? r->bytes / (r->st.median * 1e6) : 0.0;
        memcpy(r->times_ms, t, (size_t)(done < KEEP ? done : KEEP) * sizeof *t);
    }
    free(t);
    free(g);
    if (st == SL_OK && done < cfg->trials)
        st = sl_fail(SL_ERR_INTERRUPTED, "interrupted after %d of %d trials", done, cfg->trials);
    return st;
}

/* sl_counters_collect's launch function: one launch of the variant. */
typedef struct launch_ctx {
    const sl_variant *v;
    const sl_args *args;
} launch_ctx;

static sl_status launch_thunk(void *user)
{
    const launch_ctx *l = user;
    return l->v->launch(l->args);
}

/* Mark the row failed and keep the first mismatches for the report. */
static void record_mismatches(sl_result *r, const sl_check *chk, const char *when)
{
    char detail[600];
    sl_check_format(chk, detail, sizeof detail);
    r->status = SL_ERR_VERIFY;
    snprintf(r->message, sizeof r->message, "%s, %llu of %llu elements differ from the CPU reference:\n%s", when,
             (unsigned long long)chk->mismatches, (unsigned long long)r->n, detail);
}

/* Fill in one row: check, warm up, time, check again. Returns an error
 * only for failures that must stop the sweep (a lost CUDA context, no
 * memory, an interrupt); a wrong result, a failed launch or a skipped
 * variant is recorded in r and the sweep goes on. */
static sl_status run_one(sl_ctx *ctx, const sl_run_config *cfg, const sl_variant *v, sl_args *args,
                         sl_result *r, double copy_gbs, double peer_gbs)
{
    char n_s[32];
    sl_format_count(r->n, n_s, sizeof n_s);
    sl_status st;
    if (!sl_variant_supports(v, cfg->dtype)) {
        r->status = SL_ERR_UNSUPPORTED;
        snprintf(r->message, sizeof r->message, "skipped: %s has no %s kernel", v->name,
                 sl_dtype_name(cfg->dtype));
        return SL_OK;
    }
    if (v->attrs && v->attrs(cfg->dtype, &r->attrs) == SL_OK)
        r->has_attrs = true;

    bool inject = cfg->inject_fault && strcmp(cfg->inject_fault, v->name) == 0;
    st = launch_and_check(ctx, cfg, v, args, r, &r->before, inject);
    if (st == SL_ERR_UNSUPPORTED) {
        r->status = st;
        snprintf(r->message, sizeof r->message, "skipped: %s", sl_last_error());
        return SL_OK;
    }
    if (st != SL_OK)
        goto failed;
    if (r->before.mismatches) {
        record_mismatches(r, &r->before, "before timing");
        return SL_OK; /* a wrong kernel is not timed */
    }

    for (int i = 0; i < cfg->warmup && st == SL_OK; i++)
        st = v->launch(args);
    if (st == SL_OK)
        st = ctx->ops->sync(ctx);
    if (st == SL_OK)
        st = time_trials(ctx, cfg, v, args, r);
    if (st != SL_OK)
        goto failed;

    if (cfg->counters) {
        /* One more launch, profiled (replayed once per counter pass), after
         * the timed trials and before the final check, which refills the
         * inputs: the counters see the data the trials saw. */
        st = sl_counters_collect(cfg->counters, launch_thunk, (void *)&(launch_ctx){v, args}, &r->ctr);
        if (st == SL_ERR_CUDA_FAULT)
            goto failed;
        if (st != SL_OK) {
            snprintf(r->ctr_note, sizeof r->ctr_note, "counters: %s", sl_last_error());
            sl_counters_reset(&r->ctr);
            st = SL_OK;
        }
    }
    st = launch_and_check(ctx, cfg, v, args, r, &r->after, false);
    if (st != SL_OK)
        goto failed;
    if (r->after.mismatches)
        record_mismatches(r, &r->after, "after timing");
    r->pct_peak = ctx->info.peak_gbs > 0 ? 100.0 * r->gbs / ctx->info.peak_gbs : -1.0;
    r->pct_copy = copy_gbs > 0 ? 100.0 * r->gbs / copy_gbs : -1.0;
    r->x_peer = peer_gbs > 0 ? r->gbs / peer_gbs : -1.0;
    return SL_OK;

failed:
    r->status = st;
    if (st == SL_ERR_INTERRUPTED)
        snprintf(r->message, sizeof r->message, "interrupted");
    else
        snprintf(r->message, sizeof r->message, "%s failed at n=%s: %s: %s", v->name, n_s, sl_status_string(st),
                 sl_last_error());
    if (st == SL_ERR_CUDA_FAULT || st == SL_ERR_INTERRUPTED || st == SL_ERR_NO_MEMORY) {
        /* The sweep stops; sl_last_error() now names the variant and size. */
        if (st != SL_ERR_INTERRUPTED)
            sl_fail(st, "%s", r->message);
        return st;
    }
    return SL_OK; /* recorded in the row; the next variant can still run */
}

sl_status sl_harness_run(sl_ctx *ctx, const sl_run_config *cfg, sl_row_fn row, void *user)
{
    int total = cfg->nsizes * cfg->nvariants, step = 0;
    sl_status sweep = SL_OK;
    for (int j = 0; j < cfg->nsizes && sweep == SL_OK; j++) {
        uint64_t n = cfg->sizes[j];
        sl_status st = sl_harness_check_fit(ctx, cfg, n);
        if (st != SL_OK)
            return st;
        const size_t es = sl_dtype_size(cfg->dtype), off = (size_t)cfg->offset * es;
        size_t bytes = ((size_t)n + (size_t)cfg->offset) * es;
        const bool in_place = cfg->op == SL_OP_AXPY;
        void *a = NULL, *b = NULL, *c = NULL;
        if ((st = ctx->ops->alloc(ctx, bytes, &a)) != SL_OK || (st = ctx->ops->alloc(ctx, bytes, &b)) != SL_OK ||
            (!in_place && (st = ctx->ops->alloc(ctx, bytes, &c)) != SL_OK)) {
            ctx->ops->free(ctx, a);
            ctx->ops->free(ctx, b);
            return st;
        }
        if (in_place)
            c = b;
        /* --offset: every array starts `offset` elements into its allocation
         * (the same offset modulo 256 bytes for all, as seed 001's haxpy
         * exercise assumes). */
        sl_args args = {.n = n, .a = (char *)a + off, .b = (char *)b + off, .c = (char *)c + off,
                        .stream = ctx->stream, .dtype = cfg->dtype, .op = cfg->op, .alpha = cfg->alpha};
        double copy_gbs = -1.0, peer_gbs = -1.0;
        for (int k = 0; k < cfg->nvariants; k++) {
            const sl_variant *v = cfg->variants[k];
            if (stop_requested) {
                sweep = sl_fail(SL_ERR_INTERRUPTED, "interrupted");
                break;
            }
            progress(cfg, ++step, total, n, v->name, "running");
            sl_result *r = calloc(1, sizeof *r);
            if (!r) {
                sweep = sl_fail(SL_ERR_NO_MEMORY, "out of host memory for a result row");
                break;
            }
            if (cfg->quiet_unsupported && !sl_variant_supports(v, cfg->dtype)) {
                free(r);
                continue;
            }
            r->v = v;
            r->dtype = cfg->dtype;
            r->n = n;
            r->bytes = (double)sl_variant_bytes_per_elem(v, cfg->dtype) * (double)n;
            r->fits_l2 = ctx->info.l2_bytes && op_arrays(cfg->op) * bytes <= ctx->info.l2_bytes;
            r->pct_peak = r->pct_copy = r->x_peer = -1.0;
            sl_counters_reset(&r->ctr);
            r->seed_a = sl_mix64(cfg->seed ^ sl_mix64(((uint64_t)j << 32) | (uint64_t)(2 * k)));
            r->seed_b = sl_mix64(cfg->seed ^ sl_mix64(((uint64_t)j << 32) | (uint64_t)(2 * k + 1)));
            /* --offset counts elements of each array's own type: the
             * output of an fp8-output variant moves by 1-byte elements. */
            if (!in_place)
                args.c = (char *)c + (size_t)cfg->offset * sl_dtype_size(sl_variant_out_dtype(v, cfg->dtype));
            sweep = run_one(ctx, cfg, v, &args, r, copy_gbs, peer_gbs);
            if (r->status == SL_OK && v->kind == SL_KIND_CEILING && copy_gbs < 0)
                copy_gbs = r->gbs;
            if (r->status == SL_OK && v->kind == SL_KIND_PEER && peer_gbs < 0)
                peer_gbs = r->gbs;
            if (r->status == SL_OK && (v->kind == SL_KIND_CEILING || v->kind == SL_KIND_PEER)) {
                /* Ceilings and peers run first: fill in their own ratios now. */
                r->pct_copy = copy_gbs > 0 ? 100.0 * r->gbs / copy_gbs : -1.0;
                r->x_peer = peer_gbs > 0 ? r->gbs / peer_gbs : -1.0;
            }
            progress_done(cfg);
            row(user, r);
            free(r);
            if (sweep != SL_OK)
                break;
        }
        if (sweep != SL_ERR_CUDA_FAULT) {
            ctx->ops->free(ctx, a);
            ctx->ops->free(ctx, b);
            if (!in_place)
                ctx->ops->free(ctx, c);
        }
    }
    progress_done(cfg);
    return sweep;
}
