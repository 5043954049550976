/*
 * harness.c - see harness.h.
 *
 * Per shape: allocate the op's buffers by role, and compute the op's CPU
 * reference once, from the same counter-based streams the device fills its
 * inputs from (rng.h), into host arrays of expected outputs.
 * Per variant at that shape:
 *   1. fresh inputs (refilled from their streams, so an in-place op starts
 *      again from known data), OUT buffers poisoned, workspace zeroed, one
 *      launch, every written buffer checked against the expected outputs
 *      with the op's tolerance;
 *   2. `warmup` untimed launches;
 *   3. `trials` launches, each timed alone (cache flushed first with
 *      --cold);
 *   4. inputs refilled and outputs poisoned again, one more launch, checked
 *      again: the kernel still writes every element, correctly, after the
 *      timing loop.
 */
#define _POSIX_C_SOURCE 200809L
#include "harness.h"

#include "dtype_conv.h"
#include "interrupt.h"

#include "rng.h"
#include "transfer.h"
#include "sizes.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CHUNK ((uint64_t)1 << 22) /* elements per reference chunk */

void sl_harness_request_stop(void)
{
    sl_interrupt_request();
}

/* a + b, or SIZE_MAX when it would wrap */
static size_t add_sat(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

/* a x b, or SIZE_MAX when it would wrap */
static size_t mul_sat(size_t a, size_t b)
{
    return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

/* The widest element any selected variant stores in any buffer (fp8out
 * writes 1-byte elements into a buffer sized for the inputs' 4). */
static size_t widest_elem(const sl_run_config *cfg)
{
    size_t es = sl_dtype_size(cfg->dtype);
    for (int k = 0; k < cfg->op->nbufs; k++) /* an f32 buffer of a 16-bit op */
        if (sl_dtype_size(sl_op_buf_dtype(cfg->op, k, cfg->dtype, cfg->dtype)) > es)
            es = sl_dtype_size(sl_op_buf_dtype(cfg->op, k, cfg->dtype, cfg->dtype));
    for (int i = 0; i < cfg->nvariants; i++) {
        size_t o = sl_dtype_size(sl_variant_out_dtype(cfg->variants[i], cfg->dtype));
        es = o > es ? o : es;
    }
    return es;
}

/* Bytes of backend memory for the buffers at shape s. */
static size_t device_bytes(const sl_run_config *cfg, const sl_shape *s)
{
    const size_t es = widest_elem(cfg);
    size_t total = 0;
    for (int k = 0; k < cfg->op->nbufs; k++)
        total = add_sat(total, mul_sat(add_sat(sl_op_buf_elems(cfg->op, k, s), cfg->offset), es));
    return total;
}

/* Host bytes for the expected outputs: every written buffer, plus one
 * input's copy for a ceiling row, plus the reference's input chunks. */
static size_t host_bytes(const sl_run_config *cfg, const sl_shape *s)
{
    const size_t es = widest_elem(cfg);
    size_t total = 0;
    for (int k = 0; k < cfg->op->nbufs; k++)
        if (sl_role_written(cfg->op->bufs[k].role) || k == sl_op_first(cfg->op, SL_ROLE_IN) ||
            (cfg->op->ref_whole && sl_role_read(cfg->op->bufs[k].role)))
            total = add_sat(total, mul_sat(sl_op_buf_elems(cfg->op, k, s), es));
    return add_sat(total, (size_t)SL_MAX_BUFS * CHUNK * 8);
}

static size_t workspace_bytes(const sl_run_config *cfg, const sl_shape *s)
{
    size_t most = 0;
    for (int i = 0; i < cfg->nvariants; i++) {
        const sl_variant *v = cfg->variants[i];
        size_t b = sl_variant_workspace(v, cfg->dtype, s);
        most = b > most ? b : most;
    }
    return most;
}

sl_status sl_harness_check_fit(sl_ctx *ctx, const sl_run_config *cfg, const sl_shape *s)
{
    const bool on_cpu = ctx->info.backend == SL_BACKEND_CPU;
    size_t dev = add_sat(device_bytes(cfg, s), workspace_bytes(cfg, s));
    if (cfg->cold)
        dev = add_sat(dev, 2 * ctx->info.l2_bytes);
    const size_t host = host_bytes(cfg, s);
    size_t avail = ctx->ops->mem_available(ctx);
    /* Headroom for the runtime, the libraries' launches and the verification. */
    const size_t margin = on_cpu ? avail / 20 : (size_t)512 << 20;
    /* On the CPU the buffers and the expected outputs share host memory. */
    const size_t need = on_cpu ? add_sat(dev, host) : dev;
    if (need <= avail && avail - need >= margin) {
        if (on_cpu)
            return SL_OK;
        /* The CUDA backend's expected outputs live in host memory. */
        sl_ctx *cpu = NULL;
        size_t host_avail = 0;
        if (sl_ctx_create(SL_DEVICE_CPU, &cpu) == SL_OK) {
            host_avail = cpu->ops->mem_available(cpu);
            sl_ctx_destroy(cpu);
        }
        if (host_avail == 0 || host <= host_avail)
            return SL_OK;
        char h_s[32], a_s[32];
        sl_format_bytes((double)host, h_s, sizeof h_s);
        sl_format_bytes((double)host_avail, a_s, sizeof a_s);
        return sl_fail(SL_ERR_NO_MEMORY,
                       "checking %s at %llu elements needs %s of host memory for the reference's expected outputs, "
                       "but %s is free",
                       cfg->op->name, (unsigned long long)sl_shape_elems(s), h_s, a_s);
    }
    /* The largest 1-D n that fits: memory grows linearly with n. */
    size_t usable = avail > margin ? avail - margin : 0;
    size_t fixed = cfg->cold ? 2 * ctx->info.l2_bytes : 0;
    sl_shape one = sl_shape_1d(1u << 20);
    double per = (double)(on_cpu ? device_bytes(cfg, &one) + host_bytes(cfg, &one) - (size_t)SL_MAX_BUFS * CHUNK * 8
                                 : device_bytes(cfg, &one)) /
                 (double)(1u << 20);
    uint64_t max_n = usable > fixed && per > 0 ? (uint64_t)((double)(usable - fixed) / per) : 0;
    char need_s[32], avail_s[32], n_s[32];
    sl_format_bytes((double)need, need_s, sizeof need_s);
    sl_format_bytes((double)avail, avail_s, sizeof avail_s);
    sl_format_count(sl_shape_elems(s), n_s, sizeof n_s);
    return sl_fail(SL_ERR_NO_MEMORY,
                   "%s at n = %s (%llu elements) needs %s of %s memory (%d buffers of %s%s%s) but %s is free; "
                   "the largest n that fits is %llu",
                   cfg->op->name, n_s, (unsigned long long)sl_shape_elems(s), need_s, on_cpu ? "host" : "device",
                   cfg->op->nbufs, sl_dtype_name(cfg->dtype), cfg->cold ? ", the L2 flush buffer" : "",
                   on_cpu ? " and the expected outputs" : "", avail_s, (unsigned long long)max_n);
}

/* ---- one shape's buffers and expected outputs -------------------------------- */

typedef struct expected {
    bool ready;
    sl_dtype out_dtype;
    void *host[SL_MAX_BUFS]; /* written buffers: their expected contents */
    double scale;            /* a reduction's sum|terms| */
    double buf_abs[SL_MAX_BUFS]; /* SL_TOL_REL's absolute allowance per buffer (sl_ref_args) */
    uint64_t nonfinite;      /* expected elements that are Inf or NaN (count_nonfinite) */
    int nonfinite_buf;       /* the first buffer holding one */
} expected;

/* A tolerance-checked op's expected outputs must be finite: the inputs are
 * finite random values, so an Inf or NaN means the result overflowed the
 * output dtype (an f16 matmul at large K), and comparing Inf with Inf
 * would pass a row that checked nothing. Counts them, between-row padding
 * left out. Bit-exact ops are not scanned: their results are bounded by
 * the inputs' range. */
static void count_nonfinite(const sl_op_desc *op, const sl_shape *sh, expected *e, const uint64_t *elems)
{
    e->nonfinite = 0;
    e->nonfinite_buf = -1;
    if (op->tol.kind == SL_TOL_EXACT)
        return;
    for (int k = 0; k < op->nbufs; k++) {
        if (!e->host[k])
            continue;
        const sl_dtype dt = sl_op_buf_dtype(op, k, e->out_dtype, e->out_dtype);
        /* a buffer spanning the shape: its rows, between-row padding left
         * out (elems / rows counted padding as columns: a padded softmax
         * row, 5x1000:1003, failed as "not finite" on its poison); any
         * other (a scalar, a per-row loss, matmul's A): dense */
        const bool shaped = !op->bufs[k].scalar && op->rank == 2 && elems[k] == sl_shape_span(sh);
        const uint64_t rows = shaped ? sh->rows : 1;
        const uint64_t cols = shaped ? sh->cols : op->bufs[k].scalar ? 1 : elems[k];
        const uint64_t ld = shaped && sh->ld ? sh->ld : cols;
        uint64_t bad = 0;
#pragma omp parallel for reduction(+ : bad) schedule(static)
        for (uint64_t r = 0; r < rows; r++)
            for (uint64_t j = 0; j < cols; j++) {
                const double v = sl_dtype_load_f64(dt, e->host[k], (size_t)(r * ld + j));
                bad += !(v - v == 0.0);
            }
        if (bad && e->nonfinite_buf < 0)
            e->nonfinite_buf = k;
        e->nonfinite += bad;
    }
}

typedef struct shape_state {
    const sl_run_config *cfg;
    sl_shape shape;
    uint64_t n;
    void *alloc[SL_MAX_BUFS];
    uint64_t elems[SL_MAX_BUFS];
    uint64_t seed[SL_MAX_BUFS];
    expected exp[2];         /* one per output dtype (the op's, and an fp8-output variant's) */
    void *copy_src;          /* the first input's contents, for ceiling rows */
    void *workspace;
    size_t workspace_bytes;
} shape_state;

static void free_expected(shape_state *s)
{
    for (int e = 0; e < 2; e++)
        for (int k = 0; k < SL_MAX_BUFS; k++) {
            free(s->exp[e].host[k]);
            s->exp[e].host[k] = NULL;
        }
    free(s->copy_src);
    s->copy_src = NULL;
}

/* The lab's random values for buffer k in dtype dt, elements [first,
 * first + n) of its stream, moved by 2^scale_log2 where the op asks
 * (sl_buf_desc.scale_log2): x 2^k is exact in fp32, then one rounding to
 * dt, as sl_scale does on the device (prepare). */
static void rand_fill_buf(const sl_op_desc *op, int k, sl_dtype dt, void *dst, size_t n, uint64_t seed,
                          uint64_t first)
{
    sl_rand_fill(dt, dst, n, seed, first);
    const int e = op->bufs[k].scale_log2;
    if (e)
        for (size_t i = 0; i < n; i++)
            sl_dtype_store(dt, dst, i, ldexpf(sl_dtype_load(dt, dst, i), e));
}

/* Host copy of input buffer k's elements [first, first + n): the lab's
 * random values in the op's dtype (or f32), or the op's indices. */
static void fill_host_input(const shape_state *s, int k, void *dst, uint64_t n, uint64_t first)
{
    const sl_op_desc *op = s->cfg->op;
    if (op->bufs[k].kind == SL_BUF_INDEX)
        op->fill_index(k, dst, n, first, s->seed[k], &s->shape, s->cfg->scalar);
    else
        rand_fill_buf(op, k, op->bufs[k].kind == SL_BUF_F32 ? SL_F32 : s->cfg->dtype, dst, n, s->seed[k], first);
}

/* The work items of a shape: elements of a 1-D op, rows of a 2-D one, and
 * the elements one item advances. */
static uint64_t items_of(const sl_op_desc *op, const sl_shape *s, uint64_t *unit)
{
    *unit = op->rank == 1 ? 1 : s->ld;
    return op->rank == 1 ? sl_shape_elems(s) : s->rows;
}

/* An op whose output rows depend on other input rows (op->ref_whole:
 * transpose, a stencil's halo, matmul): every input regenerated whole, the
 * reference called once over all `items` rows (it parallelises itself). */
static sl_status expected_whole(shape_state *s, expected *e, uint64_t items)
{
    const sl_run_config *cfg = s->cfg;
    const sl_op_desc *op = cfg->op;
    const sl_dtype in = cfg->dtype;
    void *tmp[SL_MAX_BUFS] = {0};
    sl_status st = SL_OK;
    sl_ref_args a;
    memset(&a, 0, sizeof a);
    a.shape = s->shape;
    a.dtype = in;
    a.out_dtype = e->out_dtype;
    a.scalar = cfg->scalar;
    a.lo = 0;
    a.hi = items;
    a.last = true;
    for (int k = 0; k < op->nbufs; k++) {
        if (!sl_role_read(op->bufs[k].role))
            continue;
        const uint64_t m = s->elems[k] ? s->elems[k] : 1;
        if (!(tmp[k] = malloc(mul_sat(m, sl_dtype_size(sl_op_buf_dtype(op, k, in, in)))))) {
            st = sl_fail(SL_ERR_NO_MEMORY, "out of host memory for the reference's %s (%llu elements)",
                         op->bufs[k].name, (unsigned long long)m);
            goto done;
        }
        fill_host_input(s, k, tmp[k], m, 0);
        a.in[k] = tmp[k];
    }
    for (int k = 0; k < op->nbufs; k++)
        a.out[k] = e->host[k];
    op->reference(&a);
    e->scale = a.scale;
    memcpy(e->buf_abs, a.buf_abs, sizeof e->buf_abs);
    count_nonfinite(op, &s->shape, e, s->elems);
    e->ready = true;
done:
    for (int k = 0; k < op->nbufs; k++)
        free(tmp[k]);
    return st;
}

/* Compute the op's reference for out_dtype into e, chunk by chunk, from the
 * inputs regenerated on the host. Elementwise ops (no scalar output) split
 * each chunk across OpenMP threads; a reduction runs in order. */
static sl_status compute_expected(shape_state *s, sl_dtype out_dtype, expected *e)
{
    const sl_run_config *cfg = s->cfg;
    const sl_op_desc *op = cfg->op;
    const sl_dtype in = cfg->dtype;
    memset(e, 0, sizeof *e);
    e->out_dtype = out_dtype;
    for (int k = 0; k < op->nbufs; k++) {
        if (!sl_role_written(op->bufs[k].role))
            continue;
        const size_t es = sl_dtype_size(sl_op_buf_dtype(op, k, in, out_dtype));
        e->host[k] = malloc(mul_sat(s->elems[k] ? s->elems[k] : 1, es));
        if (!e->host[k])
            return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for %s's expected %s (%llu elements)", op->name,
                           op->bufs[k].name, (unsigned long long)s->elems[k]);
        /* What the reference does not write must stay as the harness left
         * it: an output's padding between rows (ld > cols) keeps the poison,
         * an in-place buffer's keeps its input. A kernel writing there fails.
         * Without padding the reference writes every element: nothing to do. */
        if (op->bufs[k].scalar || s->shape.rows < 2 || s->shape.ld <= s->shape.cols)
            continue;
        if (op->bufs[k].role == SL_ROLE_OUT)
            memset(e->host[k], 0xFF, mul_sat(s->elems[k], es));
        else
            rand_fill_buf(op, k, sl_op_buf_dtype(op, k, in, in), e->host[k], s->elems[k], s->seed[k], 0);
    }
    uint64_t unit, items = items_of(op, &s->shape, &unit);
    if (op->ref_whole)
        return expected_whole(s, e, items);
    const uint64_t per_chunk = unit >= CHUNK ? 1 : CHUNK / unit;
    unsigned char *tmp[SL_MAX_BUFS] = {0};
    sl_status st = SL_OK;
    for (int k = 0; k < op->nbufs; k++) {
        if (sl_role_read(op->bufs[k].role) &&
            !(tmp[k] = malloc(mul_sat(per_chunk * unit, sl_dtype_size(sl_op_buf_dtype(op, k, in, in)))))) {
            st = sl_fail(SL_ERR_NO_MEMORY, "out of host memory for the reference's input chunks");
            goto done;
        }
    }
    sl_ref_args a;
    memset(&a, 0, sizeof a);
    a.shape = s->shape;
    a.dtype = in;
    a.out_dtype = out_dtype;
    a.scalar = cfg->scalar;
    for (uint64_t lo = 0; lo < items || (lo == 0 && items == 0); lo += per_chunk) {
        const uint64_t hi = items - lo < per_chunk ? items : lo + per_chunk;
        const uint64_t first = lo * unit;
        const uint64_t span = hi == items ? sl_shape_span(&s->shape) - first : (hi - lo) * unit;
        for (int k = 0; k < op->nbufs; k++)
            if (tmp[k])
                rand_fill_buf(op, k, sl_op_buf_dtype(op, k, in, in), tmp[k], op->bufs[k].scalar ? 1 : span,
                              s->seed[k], op->bufs[k].scalar ? 0 : first);
        a.lo = lo;
        a.hi = hi;
        a.last = hi == items;
        for (int k = 0; k < op->nbufs; k++) {
            a.in[k] = tmp[k];
            if (e->host[k]) {
                const size_t es = sl_dtype_size(sl_op_buf_dtype(op, k, in, out_dtype));
                a.out[k] = op->bufs[k].scalar ? e->host[k] : (unsigned char *)e->host[k] + first * es;
            }
        }
        sl_reference_run(op, &a, unit);
        if (a.last)
            e->scale = a.scale;
        for (int k = 0; k < SL_MAX_BUFS; k++)
            e->buf_abs[k] = a.buf_abs[k] > e->buf_abs[k] ? a.buf_abs[k] : e->buf_abs[k];
        if (items == 0)
            break;
    }
    count_nonfinite(op, &s->shape, e, s->elems);
    e->ready = true;
done:
    for (int k = 0; k < op->nbufs; k++)
        free(tmp[k]);
    return st;
}

static expected *expected_for(shape_state *s, sl_dtype out_dtype, sl_status *st)
{
    for (int e = 0; e < 2; e++)
        if (s->exp[e].ready && s->exp[e].out_dtype == out_dtype)
            return &s->exp[e];
    for (int e = 0; e < 2; e++) {
        if (!s->exp[e].ready) {
            *st = compute_expected(s, out_dtype, &s->exp[e]);
            return *st == SL_OK ? &s->exp[e] : NULL;
        }
    }
    *st = sl_fail(SL_ERR_INTERNAL, "more than two output dtypes in one sweep");
    return NULL;
}

/* The first input's contents, for a ceiling row's check. */
static sl_status copy_source(shape_state *s, int k)
{
    if (s->copy_src)
        return SL_OK;
    const size_t es = sl_dtype_size(s->cfg->dtype);
    s->copy_src = malloc(mul_sat(s->elems[k], es));
    if (!s->copy_src)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for the copy ceiling's expected output");
    rand_fill_buf(s->cfg->op, k, s->cfg->dtype, s->copy_src, s->elems[k], s->seed[k], 0);
    return SL_OK;
}

/* ---- progress ----------------------------------------------------------------- */

static void progress(const sl_run_config *cfg, int step, const sl_result *r, const char *what)
{
    if (!cfg->progress)
        return;
    char n_s[32];
    sl_format_count(r->n, n_s, sizeof n_s);
    fprintf(stderr, "\r\033[K[%d/%d] %s %s n=%s %s: %s", step, cfg->steps ? cfg->steps : step, cfg->op->name,
            sl_dtype_name(cfg->dtype), n_s, r->v->name, what);
    fflush(stderr);
}

static void progress_done(const sl_run_config *cfg)
{
    if (cfg->progress) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
}

/* ---- one variant --------------------------------------------------------------- */

/* Fresh inputs (the values are a function of the streams' seeds, so this
 * is the same data every time), poisoned outputs, a zeroed workspace. */
static sl_status prepare(sl_ctx *ctx, const shape_state *s, const sl_args *args)
{
    const sl_op_desc *op = s->cfg->op;
    sl_status st = SL_OK;
    for (int k = 0; k < op->nbufs && st == SL_OK; k++) {
        if (sl_role_read(op->bufs[k].role) && op->bufs[k].kind == SL_BUF_INDEX) {
            /* indices: made on the host by the op's fill_index, uploaded */
            int32_t *h = malloc(mul_sat(s->elems[k] ? s->elems[k] : 1, 4));
            if (!h)
                return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for %s's indices", op->bufs[k].name);
            fill_host_input(s, k, h, s->elems[k], 0);
            st = ctx->ops->upload(ctx, args->buf[k], h, s->elems[k] * 4);
            free(h);
        } else if (sl_role_read(op->bufs[k].role)) {
            const sl_dtype dt = sl_op_buf_dtype(op, k, s->cfg->dtype, s->cfg->dtype);
            st = ctx->ops->fill_random(ctx, dt, args->buf[k], s->elems[k], s->seed[k]);
            if (st == SL_OK && op->bufs[k].scale_log2) /* as rand_fill_buf does on the host */
                st = sl_scale(ctx, dt, s->elems[k], ldexp(1.0, op->bufs[k].scale_log2), args->buf[k], args->buf[k],
                              args->stream);
        } else
            st = ctx->ops->poison(ctx, args->buf[k],
                                  s->elems[k] * sl_dtype_size(sl_op_buf_dtype(op, k, args->dtype, args->out_dtype)));
    }
    if (st == SL_OK && args->workspace_bytes)
        st = ctx->ops->zero(ctx, args->workspace, args->workspace_bytes);
    return st;
}

/* Check every buffer the variant writes against what it should hold. */
static sl_status check_outputs(sl_ctx *ctx, shape_state *s, const sl_variant *v, const sl_args *args,
                               sl_check *chk)
{
    const sl_op_desc *op = s->cfg->op;
    sl_status st = SL_OK;
    sl_check_reset(chk, args->out_dtype);
    if (v->copy) {
        /* a ceiling: the first written buffer holds a copy of the first
         * input's first rows x cols elements (what the copy launchers move;
         * the whole input unless a 2-D input is padded, ld > cols) */
        int src = sl_op_first(op, SL_ROLE_IN), dst = sl_op_first_written(op);
        if (src < 0)
            src = 0;
        /* an op whose first output is not of the input's size (cross-entropy's
         * loss): the first written buffer that is, else the workspace the
         * ceiling asked for (sl_ceiling_dst) */
        int same = sl_ceiling_dst(op, &s->shape);
        if (same < 0 && !args->workspace)
            same = dst; /* no buffer of that size and no workspace: the first written, as before issue 33 */
        if ((st = copy_source(s, src)) != SL_OK)
            return st;
        sl_tolerance exact = {SL_TOL_EXACT, 0, 0.0, false, 0.0};
        const uint64_t copied = args->n < s->elems[src] ? args->n : s->elems[src];
        if (same < 0)
            return sl_verify_buffer(ctx, "workspace", args->workspace, s->copy_src, copied, args->dtype, &exact, chk);
        return sl_verify_buffer(ctx, op->bufs[same].name, args->buf[same], s->copy_src, copied, args->dtype, &exact,
                                chk);
    }
    expected *e = expected_for(s, args->out_dtype, &st);
    if (!e)
        return st;
    if (e->nonfinite)
        return sl_fail(SL_ERR_VERIFY,
                       "the reference overflows %s here: %llu expected element%s of %s %s not finite (finite random "
                       "inputs in [2^-8, 2^8)), so this row cannot be checked; use a smaller shape or a wider dtype",
                       sl_dtype_name(args->out_dtype), (unsigned long long)e->nonfinite, e->nonfinite == 1 ? "" : "s",
                       op->bufs[e->nonfinite_buf].name, e->nonfinite == 1 ? "is" : "are");
    /* the length of each reduction: K for an op with a third extent (matmul),
     * a row's cols for the other 2-D ops (softmax's log term, softmax_bwd's
     * sum per row), else n */
    const uint64_t len = s->shape.k ? s->shape.k : op->rank == 2 ? s->shape.cols : s->n;
    sl_tolerance tol = sl_tolerance_for(op, v, args->dtype, len, e->scale);
    for (int k = 0; k < op->nbufs && st == SL_OK; k++) {
        if (!sl_role_written(op->bufs[k].role))
            continue;
        sl_tolerance tk = tol;
        if (tk.kind == SL_TOL_REL)
            tk.abs_extra += e->buf_abs[k]; /* the reference's allowance (the norms) */
        if (op->tol_buf && tk.kind == SL_TOL_REL && !v->copy) { /* the op's own (cross-entropy) */
            double u = tk.ulps, ab = tk.abs_extra;
            op->tol_buf(k, &s->shape, s->cfg->scalar, e->scale, &u, &ab);
            tk.ulps = (int)ceil(u);
            tk.abs_extra = ab;
        }
        st = sl_verify_buffer(ctx, op->bufs[k].name, args->buf[k], e->host[k], s->elems[k],
                              sl_op_buf_dtype(op, k, args->dtype, args->out_dtype), &tk, chk);
    }
    return st;
}

/* Launch once on fresh inputs and check the outputs. An in-place buffer
 * cannot be poisoned; an element the kernel skips is caught because its
 * old value differs from the expected new one (random inputs make that the
 * rule; docs/ladder.md, "Verifying in-place ops"). */
static sl_status launch_and_check(sl_ctx *ctx, shape_state *s, const sl_variant *v, const sl_args *args,
                                  sl_check *chk, bool inject)
{
    sl_status st = prepare(ctx, s, args);
    if (st == SL_OK)
        st = inject ? ctx->ops->inject_fault(ctx) : v->launch(args);
    if (st == SL_OK)
        st = ctx->ops->sync(ctx);
    if (st == SL_OK)
        st = check_outputs(ctx, s, v, args, chk);
    return st;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* One timed launch. Event timing brackets the launch alone on the device;
 * wall timing brackets the host call and the synchronisation after it, as
 * BabelStream (std::chrono around kernel + cudaDeviceSynchronize) and STREAM
 * do, so launch latency and the wake-up are in it. */
static sl_status timed_launch(sl_ctx *ctx, const sl_run_config *cfg, const sl_variant *v, const sl_args *args,
                              double *ms)
{
    sl_status st;
    if (cfg->timer == SL_TIMER_WALL) {
        if ((st = ctx->ops->sync(ctx)) != SL_OK)
            return st;
        double t0 = now_ms();
        if ((st = v->launch(args)) != SL_OK || (st = ctx->ops->sync(ctx)) != SL_OK)
            return st;
        *ms = now_ms() - t0;
        return SL_OK;
    }
    if ((st = ctx->ops->timer_start(ctx)) != SL_OK || (st = v->launch(args)) != SL_OK)
        return st;
    return ctx->ops->timer_stop(ctx, ms);
}

/* sl_time_by_rule's callbacks: one timed launch (cache flushed first with
 * --cold), the host clock, and the interrupt flag. */
typedef struct trial_ctx {
    sl_ctx *ctx;
    const sl_run_config *cfg;
    const sl_variant *v;
    const sl_args *args;
    bool peer_stopped;  /* MPI mode: another process failed or stopped (the step said so) */
} trial_ctx;

static sl_status one_trial(void *user, double *ms)
{
    trial_ctx *c = user;
    const sl_run_config *cfg = c->cfg;
    sl_status st;
    if (cfg->cold && (st = c->ctx->ops->flush_cache(c->ctx)) != SL_OK)
        return st;
    /* MPI mode: every process takes the step before every trial, and an
     * interrupt here is told to the others through it. */
    if (cfg->sync && cfg->sync(cfg->sync_user, sl_interrupted() ? SL_SYNC_FAIL : SL_SYNC_OK) != SL_SYNC_OK) {
        c->peer_stopped = true;
        return SL_ERR_INTERRUPTED; /* ends the loop; time_trials reports it */
    }
    return timed_launch(c->ctx, cfg, c->v, c->args, ms);
}

static double clock_s(void *user)
{
    (void)user;
    return now_ms() / 1e3;
}

static bool stop_asked(void *user)
{
    /* MPI mode: an interrupt travels through the step (one_trial) */
    const trial_ctx *c = user;
    return !c->cfg->sync && sl_interrupted();
}

/* Time the launches by the run's stop rule (stoprule.h: `trials`, or with
 * --stdrel until the noise is low enough); keeps the first 1024 times in r
 * and summarises all of them. */
static sl_status time_trials(sl_ctx *ctx, const sl_run_config *cfg, const sl_variant *v, const sl_args *args,
                             sl_result *r)
{
    enum { KEEP = sizeof r->times_ms / sizeof r->times_ms[0] };
    /* MPI mode: every process takes the same trials, so the count is fixed
     * (--stdrel and --max-time would stop them at different counts). */
    const sl_stop_rule rule = {.min_trials = cfg->trials,
                               .max_trials = cfg->max_trials > cfg->trials ? cfg->max_trials : cfg->trials,
                               .stdrel = cfg->sync ? 0.0 : cfg->stdrel,
                               .max_time_s = cfg->sync ? 0.0 : cfg->max_time_s};
    const int cap = rule.stdrel > 0 ? rule.max_trials : rule.min_trials;
    double *t = malloc((size_t)cap * sizeof *t);
    double *g = malloc((size_t)cap * sizeof *g);
    if (!t || !g) {
        free(t);
        free(g);
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for %d trial times", cap);
    }
    trial_ctx tc = {ctx, cfg, v, args, false};
    int done = 0;
    sl_status st = sl_time_by_rule(&rule, one_trial, clock_s, stop_asked, &tc, t, &done, &r->noise, &r->stop);
    bool peer_stopped = tc.peer_stopped;
    if (peer_stopped)
        st = SL_OK; /* not this process's failure: reported below */
    /* The closing step: a process that failed (or stopped) tells the
     * others, who are at their next step. */
    if (cfg->sync && !peer_stopped &&
        cfg->sync(cfg->sync_user, st == SL_OK && done == cfg->trials ? SL_SYNC_OK : SL_SYNC_FAIL) != SL_SYNC_OK)
        peer_stopped = true;
    if (peer_stopped && st == SL_OK)
        st = sl_fail(SL_ERR_INTERRUPTED, "stopped after %d of %d trials: another process failed or was interrupted",
                     done, cfg->trials);
    r->trials = done;
    if (done > 0) {
        for (int i = 0; i < done; i++)
            g[i] = t[i] > 0 ? r->bytes / (t[i] * 1e6) : 0.0;
        sl_stats gs;
        sl_stats_compute(t, (size_t)done, &r->st);
        sl_stats_compute(g, (size_t)done, &gs);
        r->gbs_sd = gs.sd;
        r->gbs = r->st.median > 0 ? r->bytes / (r->st.median * 1e6) : 0.0;
        r->gbs_best = r->st.min > 0 ? r->bytes / (r->st.min * 1e6) : 0.0;
        memcpy(r->times_ms, t, (size_t)(done < KEEP ? done : KEEP) * sizeof *t);
    }
    free(t);
    free(g);
    if (st == SL_OK && r->stop == SL_STOP_INTERRUPT)
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
    snprintf(r->message, sizeof r->message, "%s, %llu element%s differ from the CPU reference:\n%s", when,
             (unsigned long long)chk->mismatches, chk->mismatches == 1 ? "" : "s", detail);
}

/* Fill in one row: check, warm up, time, check again. Returns an error
 * only for failures that must stop the sweep (a lost CUDA context, no
 * memory, an interrupt); a wrong result, a failed launch or a skipped
 * variant is recorded in r and the sweep goes on. */
static sl_status run_one(sl_ctx *ctx, shape_state *s, const sl_variant *v, sl_args *args, sl_result *r,
                         double copy_gbs, double peer_gbs)
{
    const sl_run_config *cfg = s->cfg;
    char n_s[32];
    sl_format_count(r->n, n_s, sizeof n_s);
    sl_status st;
    if (!sl_variant_supports(cfg->op, v, cfg->dtype) || !v->launch) {
        r->status = SL_ERR_UNSUPPORTED;
        snprintf(r->message, sizeof r->message, "skipped: %s has no %s kernel%s", v->name, sl_dtype_name(cfg->dtype),
                 v->launch ? "" : " in this build");
        return SL_OK;
    }
    if (v->attrs && v->attrs(cfg->dtype, &r->attrs) == SL_OK)
        r->has_attrs = true;

    /* The record: clocks, power, temperature and throttle reasons at the
     * row's start and after its trials (record.h). */
    if (ctx->ops->env_sample)
        ctx->ops->env_sample(ctx, &r->env0);
    bool inject = cfg->inject_fault && strcmp(cfg->inject_fault, v->name) == 0;
    st = launch_and_check(ctx, s, v, args, &r->before, inject);
    if (cfg->sync) {
        /* Every process times the row, or none does. */
        const int mine = st == SL_ERR_UNSUPPORTED                   ? SL_SYNC_SKIP
                         : st != SL_OK || r->before.mismatches ? SL_SYNC_FAIL
                                                                : SL_SYNC_OK;
        const int all = cfg->sync(cfg->sync_user, mine);
        if (mine == SL_SYNC_OK && all == SL_SYNC_SKIP) {
            r->status = SL_ERR_UNSUPPORTED;
            snprintf(r->message, sizeof r->message, "skipped: another process could not run %s", v->name);
            return SL_OK;
        }
        if (mine == SL_SYNC_OK && all != SL_SYNC_OK) {
            st = sl_fail(SL_ERR_INTERRUPTED, "not timed: another process failed its check before timing");
            goto failed;
        }
    }
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
    else if (cfg->sync)
        cfg->sync(cfg->sync_user, SL_SYNC_FAIL); /* the others wait at their first trial's step */
    if (ctx->ops->env_sample)
        ctx->ops->env_sample(ctx, &r->env1);
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
    st = launch_and_check(ctx, s, v, args, &r->after, false);
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
        snprintf(r->message, sizeof r->message, "%s", cfg->sync ? sl_last_error() : "interrupted");
    else
        snprintf(r->message, sizeof r->message, "%s %s failed at n=%s: %s: %s", cfg->op->name, v->name, n_s,
                 sl_status_string(st), sl_last_error());
    if (st == SL_ERR_CUDA_FAULT || st == SL_ERR_INTERRUPTED || st == SL_ERR_NO_MEMORY) {
        /* The sweep stops; sl_last_error() now names the variant and size. */
        if (st != SL_ERR_INTERRUPTED)
            sl_fail(st, "%s", r->message);
        return st;
    }
    return SL_OK; /* recorded in the row; the next variant can still run */
}

/* ---- the sweep ------------------------------------------------------------------ */

static sl_status run_shape(sl_ctx *ctx, const sl_run_config *cfg, int j, sl_row_fn row, void *user, int *step)
{
    const sl_op_desc *op = cfg->op;
    shape_state s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    s.shape = cfg->shapes[j];
    s.n = sl_shape_elems(&s.shape);
    sl_status st = sl_harness_check_fit(ctx, cfg, &s.shape);
    if (st != SL_OK)
        return st;
    const size_t wide = widest_elem(cfg);
    for (int k = 0; k < op->nbufs; k++) {
        s.elems[k] = sl_op_buf_elems(op, k, &s.shape);
        s.seed[k] = sl_mix64(cfg->seed ^ sl_mix64(((uint64_t)j << 32) | (uint64_t)k));
        if ((st = ctx->ops->alloc(ctx, (size_t)(s.elems[k] + cfg->offset) * wide, &s.alloc[k])) != SL_OK)
            goto done;
    }
    s.workspace_bytes = workspace_bytes(cfg, &s.shape);
    if (s.workspace_bytes && (st = ctx->ops->workspace(ctx, s.workspace_bytes, &s.workspace)) != SL_OK)
        goto done;

    /* --include-transfer: what moving the data in and out costs at this
     * shape, once, before the rows (which refill their inputs) */
    double transfer_ms = -1.0;
    if (cfg->include_transfer && ctx->info.backend == SL_BACKEND_CUDA &&
        (st = sl_measure_transfer(ctx, op, cfg->dtype, &s.shape, s.alloc, &transfer_ms)) != SL_OK)
        goto done;

    double copy_gbs = -1.0, peer_gbs = -1.0;
    for (int i = 0; i < cfg->nvariants; i++) {
        const sl_variant *v = cfg->variants[i];
        if (sl_interrupted()) {
            st = sl_fail(SL_ERR_INTERRUPTED, "interrupted");
            break;
        }
        if (cfg->quiet_unsupported && (!sl_variant_supports(op, v, cfg->dtype) || !v->launch))
            continue;
        sl_result *r = calloc(1, sizeof *r);
        if (!r) {
            st = sl_fail(SL_ERR_NO_MEMORY, "out of host memory for a result row");
            break;
        }
        r->ctx = ctx;
        r->op = op;
        r->v = v;
        r->dtype = cfg->dtype;
        r->shape = s.shape;
        r->n = s.n;
        r->size_label = cfg->size_labels ? cfg->size_labels[j] : NULL;
        r->transfer_ms = transfer_ms;
        r->traffic = sl_variant_traffic(op, v, &s.shape, cfg->dtype);
        r->bytes = r->traffic.rd_bytes + r->traffic.wr_bytes;
        r->fits_l2 = ctx->info.l2_bytes && device_bytes(cfg, &s.shape) <= ctx->info.l2_bytes;
        r->pct_peak = r->pct_copy = r->x_peer = -1.0;
        sl_counters_reset(&r->ctr);
        memcpy(r->seeds, s.seed, sizeof r->seeds);
        progress(cfg, ++*step, r, "running");

        /* --offset counts elements of each buffer's own type: an fp8
         * output moves by 1-byte elements. */
        sl_args args = {.op = op, .shape = s.shape, .n = (size_t)s.n, .dtype = cfg->dtype,
                        .out_dtype = sl_variant_out_dtype(v, cfg->dtype), .stream = ctx->stream};
        for (int k = 0; k < op->nbufs; k++)
            args.buf[k] = (char *)s.alloc[k] +
                          (size_t)cfg->offset * sl_dtype_size(sl_op_buf_dtype(op, k, args.dtype, args.out_dtype));
        memcpy(args.scalar, cfg->scalar, sizeof args.scalar);
        if (v->workspace || v->workspace_shape) {
            args.workspace = s.workspace;
            args.workspace_bytes = sl_variant_workspace(v, cfg->dtype, &s.shape);
        }
        st = run_one(ctx, &s, v, &args, r, copy_gbs, peer_gbs);
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
        if (st != SL_OK)
            break;
    }
done:
    free_expected(&s);
    if (st != SL_ERR_CUDA_FAULT)
        for (int k = 0; k < op->nbufs; k++)
            ctx->ops->free(ctx, s.alloc[k]);
    return st;
}

sl_status sl_harness_run(sl_ctx *ctx, const sl_run_config *cfg, sl_row_fn row, void *user)
{
    if (cfg->op->nbufs > SL_MAX_BUFS || !cfg->op->reference)
        return sl_fail(SL_ERR_INTERNAL, "op %s: bad descriptor", cfg->op->name);
    for (int k = 0; k < cfg->op->nbufs; k++)
        if (cfg->op->bufs[k].kind != SL_BUF_DATA && !cfg->op->ref_whole)
            return sl_fail(SL_ERR_INTERNAL, "op %s: f32 or index buffers need ref_whole (row-sized buffers do not "
                           "follow the chunked reference's offsets)", cfg->op->name);
    int step = cfg->step0;
    sl_status sweep = SL_OK;
    for (int j = 0; j < cfg->nshapes && sweep == SL_OK; j++)
        sweep = run_shape(ctx, cfg, j, row, user, &step);
    progress_done(cfg);
    return sweep;
}
