/*
 * xent.c - cross-entropy over the rows of a logits matrix (issue 33):
 *   lse_r  = log sum_j exp(x[r, j])                      (the logsumexp)
 *   loss_r = lse_r - (1 - eps) x[r, t_r] - (eps / V) sum_j x[r, j]
 *   dx[r, j] = (exp(x[r, j] - lse_r) - (1 - eps) [j = t_r] - eps / V) g
 * with label smoothing eps, V = cols, t_r the row's target class, g the
 * gradient's scale (1, or 1 / the rows not ignored for a mean), rows whose
 * target is ignore_index giving loss 0 and a zero gradient. This file
 * holds the fp64 reference of both ops (xent: fused forward + backward;
 * xent_fwd: loss and logsumexp only), the CPU computation, the `xent`
 * descriptor and the public functions sl_cross_entropy_fwd_bwd and
 * sl_cross_entropy_fwd.
 */
#include "xent.h"

#include "dtype_conv.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* ---- the descriptors' helpers -------------------------------------------------
 * Buffers: x (rows x cols), t (rows int32), loss (rows f32), lse (rows
 * f32)[, dx (rows x cols)]. */
uint64_t sl_xent_buf_elems(const sl_shape *s, int k)
{
    return k == 0 || k == 4 ? sl_shape_span(s) : s->rows;
}

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Targets: row i's class is a hash of (seed, i) modulo cols; one row in 8
 * (by another bit of the hash) is ignore_index instead. */
void sl_xent_fill_index(int k, int32_t *dst, uint64_t n, uint64_t first, uint64_t seed, const sl_shape *s,
                        const double *scalars)
{
    (void)k;
    const uint64_t cols = s->cols ? s->cols : 1;
    const int32_t ignore = (int32_t)scalars[SL_XENT_S_IGNORE];
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < (long long)n; i++) {
        const uint64_t h = mix64(seed * 0x9e3779b97f4a7c15ull + first + (uint64_t)i + 1);
        dst[i] = (h & 7u) == 5u ? ignore : (int32_t)((h >> 8) % cols);
    }
}

/* The tolerance per buffer (SL_TOL_REL, op.h; `scale` is the reference's
 * largest |max|, |lse| or |x_t| of a row, at least 1). With L = ceil(log2
 * V) + 1 for the sums' trees:
 *   loss, lse: (16 + L) 2^-24 relative, plus an absolute (16 + L) 2^-24
 *     (scale + ln V + 1): lse = m + log s rounds at |m|, and the loss
 *     subtracts x_t from it (cancellation), plus with smoothing eps the
 *     mean of x: eps (ceil(V / 32) + 6) 2^-24 scale;
 *   dx: (16 + L + 4 scale) 2^-24 relative (exp(x - m) with x - m rounded
 *     to f32, |x - m| <= 2 scale, and the CUDA kernels' ex2.approx of
 *     (x - m) log2 e with that product rounded: 2 scale 2^-24 each), plus
 *     an absolute (16 + L) 2^-24 (the target's p - (1 - eps) cancels
 *     near 1). */
void sl_xent_tol_buf(int k, const sl_shape *s, const double *scalars, double scale, double *ulps, double *abs_extra)
{
    const double V = (double)(s->cols ? s->cols : 1), L = ceil(log2(V)) + 1.0, u = 0x1p-24;
    const double eps = scalars ? fabs(scalars[SL_XENT_S_SMOOTHING]) : 0.0;
    if (k == 2 || k == 3) {
        *ulps += L;
        *abs_extra += (16.0 + L) * u * (scale + log(V) + 1.0) + eps * (ceil(V / 32.0) + 6.0) * u * scale;
    } else if (k == 4) {
        *ulps += L + 4.0 * scale;
        *abs_extra += (16.0 + L) * u;
    }
}

/* ---- the reference: fp64 ------------------------------------------------------
 * Whole rows (the harness calls it once: ref_whole), the formulas as
 * written above in fp64 from the exactly widened logits, rounded once:
 * m = max (fmax: a NaN is skipped, and reaches the sum), s = sum exp(x -
 * m), lse = m + log s, p_j = exp(x_j - m) / s. An ignored row: loss 0,
 * dx 0 (lse as any row). A target out of range: loss and dx NaN (what the
 * CUDA kernels give; the public CPU path refuses it earlier). Rows over
 * OpenMP threads. r->scale: the largest of 1, |m|, |lse|, |x_t| over rows
 * (sl_xent_tol_buf). */
void sl_xent_reference(sl_ref_args *r, int grad)
{
    const uint64_t n = r->shape.cols, ld = r->shape.ld ? r->shape.ld : n;
    const size_t es = sl_dtype_size(r->dtype), oes = sl_dtype_size(r->out_dtype);
    const long long ignore = (long long)r->scalar[SL_XENT_S_IGNORE];
    const double eps = r->scalar[SL_XENT_S_SMOOTHING];
    const int32_t *tg = (const int32_t *)r->in[1];
    float *loss = (float *)r->out[2], *lse = (float *)r->out[3];
    const long long rows = (long long)(r->hi - r->lo);
    double scale = 1.0;
#pragma omp parallel for schedule(static) reduction(max : scale)
    for (long long i = 0; i < rows; i++) {
        const unsigned char *x = (const unsigned char *)r->in[0] + (uint64_t)i * ld * es;
        const long long t = tg[i];
        const int ign = t == ignore, bad = !ign && (t < 0 || (uint64_t)t >= n);
        double m = -INFINITY, s = 0.0, sx = 0.0;
        for (uint64_t j = 0; j < n; j++) {
            const double v = sl_dtype_load_f64(r->dtype, x, j);
            if (v > m)
                m = v;
            sx += v;
        }
        for (uint64_t j = 0; j < n; j++)
            s += exp(sl_dtype_load_f64(r->dtype, x, j) - m);
        const double l = m + log(s);
        const double xt = ign || bad ? 0.0 : sl_dtype_load_f64(r->dtype, x, (uint64_t)t);
        lse[i] = (float)l;
        /* the smoothing term only where eps != 0: 0 x sum x would turn a
         * row's -inf logits into a NaN loss */
        loss[i] = bad ? NAN : ign ? 0.0f : (float)(l - (1.0 - eps) * xt - (eps != 0.0 ? eps / (double)n * sx : 0.0));
        double sc = fmax(fabs(m), fabs(l));
        if (!ign && !bad)
            sc = fmax(sc, fabs(xt));
        if (sc > scale && sc < INFINITY)
            scale = sc;
        if (!grad)
            continue;
        unsigned char *dx = (unsigned char *)r->out[4] + (uint64_t)i * ld * oes;
        for (uint64_t j = 0; j < n; j++) {
            double d;
            if (ign)
                d = 0.0;
            else if (bad)
                d = NAN;
            else
                d = exp(sl_dtype_load_f64(r->dtype, x, j) - m) / s - ((uint64_t)t == j ? 1.0 - eps : 0.0) -
                    eps / (double)n;
            sl_dtype_store_f64(r->out_dtype, dx, j, d);
        }
    }
    r->scale = scale;
}

static void reference(sl_ref_args *r)
{
    sl_xent_reference(r, 1);
}

/* ---- the CPU computation --------------------------------------------------------
 * f32 arithmetic for the elements (fmaxf, expf, the gradient), fp64 for
 * the row sums (one thread adds a whole row in order) and for lse and
 * the loss. Per row, the target's logit is read first and the row read
 * whole before any of it is written: safe in place (dx = x). */
sl_xent_args sl_xent_from(const sl_args *a, int grad)
{
    sl_xent_args x;
    memset(&x, 0, sizeof x);
    x.dtype = a->dtype;
    x.tgt64 = 0;
    x.rows = a->shape.rows;
    x.cols = a->shape.cols;
    x.ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    x.x = a->buf[0];
    x.tgt = a->buf[1];
    x.loss = (float *)a->buf[2];
    x.lse = (float *)a->buf[3];
    x.dx = grad ? a->buf[4] : NULL;
    x.ignore = (long long)a->scalar[SL_XENT_S_IGNORE];
    x.smoothing = (float)a->scalar[SL_XENT_S_SMOOTHING];
    x.stream = a->stream;
    return x;
}

sl_status sl_xent_check(const sl_xent_args *x, const char *who)
{
    if (!((SL_XENT_DTYPES >> x->dtype) & 1u))
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: offered in f32, f16 and bf16, not %s", who, sl_dtype_name(x->dtype));
    if (x->ld < x->cols)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: leading dimension %llu below cols %llu", who,
                       (unsigned long long)x->ld, (unsigned long long)x->cols);
    if (!(x->smoothing >= 0.0f && x->smoothing <= 1.0f))
        return sl_fail(SL_ERR_INVALID_ARG, "%s: label smoothing %g is not in [0, 1]", who, (double)x->smoothing);
    return SL_OK;
}

static long long tgt_at(const sl_xent_args *x, uint64_t r)
{
    return x->tgt64 ? (long long)((const int64_t *)x->tgt)[r] : (long long)((const int32_t *)x->tgt)[r];
}

static void cpu_row(const sl_xent_args *x, uint64_t r)
{
    const size_t es = sl_dtype_size(x->dtype);
    const unsigned char *xb = (const unsigned char *)x->x + r * x->ld * es;
    const uint64_t n = x->cols;
    const long long t = tgt_at(x, r);
    const int ign = t == x->ignore;
    const float eps = x->smoothing;
    const float xt = ign ? 0.0f : sl_dtype_load(x->dtype, xb, (size_t)t);
    float m = -INFINITY;
    double sx = 0.0;
    for (uint64_t j = 0; j < n; j++) {
        const float v = sl_dtype_load(x->dtype, xb, j);
        m = fmaxf(m, v);
        sx += v;
    }
    double s = 0.0;
    for (uint64_t j = 0; j < n; j++)
        s += expf(sl_dtype_load(x->dtype, xb, j) - m);
    const double l = (double)m + log(s);
    x->lse[r] = (float)l;
    x->loss[r] = ign ? 0.0f : (float)(l - (1.0 - eps) * xt - (eps != 0.0f ? (double)eps / (double)n * sx : 0.0));
    if (!x->dx)
        return;
    unsigned char *db = (unsigned char *)x->dx + r * x->ld * es;
    const float g = x->gscale ? *x->gscale : 1.0f, inv = (float)(1.0 / s), off = eps / (float)n;
    for (uint64_t j = 0; j < n; j++) {
        float d = 0.0f;
        if (!ign)
            d = (expf(sl_dtype_load(x->dtype, xb, j) - m) * inv - ((long long)j == t ? 1.0f - eps : 0.0f) - off) * g;
        sl_dtype_store(x->dtype, db, j, d);
    }
}

static sl_status check_targets(const sl_xent_args *x)
{
    for (uint64_t r = 0; r < x->rows; r++) {
        const long long t = tgt_at(x, r);
        if (t != x->ignore && (t < 0 || (uint64_t)t >= x->cols))
            return sl_fail(SL_ERR_INVALID_ARG, "cross-entropy: row %llu's target %lld is outside [0, %llu) and is not "
                           "ignore_index %lld", (unsigned long long)r, t, (unsigned long long)x->cols, x->ignore);
    }
    return SL_OK;
}

/* The backward from a saved logsumexp, f32 per element: expf(x - lse),
 * then (p - (1 - eps) [j = t] - eps / V) g with g the row's scale. */
static void cpu_bwd_row(const sl_xent_args *x, uint64_t r)
{
    const size_t es = sl_dtype_size(x->dtype);
    const unsigned char *xb = (const unsigned char *)x->x + r * x->ld * es;
    unsigned char *db = (unsigned char *)x->dx + r * x->ld * es;
    const uint64_t n = x->cols;
    const long long t = tgt_at(x, r);
    const int ign = t == x->ignore;
    const float g = (x->dy ? x->dy[x->dy_per_row ? r : 0] : 1.0f) * (x->gscale ? *x->gscale : 1.0f);
    const float l = x->lse[r], eps = x->smoothing, off = eps / (float)n;
    for (uint64_t j = 0; j < n; j++) {
        float d = 0.0f;
        if (!ign)
            d = (expf(sl_dtype_load(x->dtype, xb, j) - l) - ((long long)j == t ? 1.0f - eps : 0.0f) - off) * g;
        sl_dtype_store(x->dtype, db, j, d);
    }
}

/* Both CPU computations: the checks (refusing a target out of range
 * before anything is written), then row(x, r) for every row, over OpenMP
 * threads (omp) or in order. */
static sl_status cpu_rows(const sl_xent_args *x, int omp, const char *who, void (*row)(const sl_xent_args *, uint64_t))
{
    sl_status st = sl_xent_check(x, who);
    if (st == SL_OK)
        st = check_targets(x);
    if (st != SL_OK)
        return st;
    if (omp) {
        const long long rows = (long long)x->rows;
#pragma omp parallel for schedule(static)
        for (long long r = 0; r < rows; r++)
            row(x, (uint64_t)r);
    } else {
        for (uint64_t r = 0; r < x->rows; r++)
            row(x, r);
    }
    return SL_OK;
}

sl_status sl_cpu_xent_run(const sl_xent_args *x, int omp)
{
    return cpu_rows(x, omp, "cross-entropy", cpu_row);
}

sl_status sl_cpu_xent_bwd_run(const sl_xent_args *x, int omp)
{
    return cpu_rows(x, omp, "cross-entropy backward", cpu_bwd_row);
}

static sl_status cpu_serial(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 1);
    return sl_cpu_xent_run(&x, 0);
}

static sl_status cpu_omp(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 1);
    return sl_cpu_xent_run(&x, 1);
}

/* The CPU copy ceiling of both ops: the logits copied (memcpy, one part
 * per OpenMP thread) into the gradient (sl_ceiling_dst), or into the
 * workspace for the forward op. */
sl_status sl_cpu_xent_ceiling(const sl_args *a)
{
    const int dst_k = sl_ceiling_dst(a->op, &a->shape);
    const size_t bytes = a->n * sl_dtype_size(a->dtype);
    if (dst_k < 0 && a->workspace_bytes < bytes)
        return sl_fail(SL_ERR_INTERNAL, "copy ceiling: %s has no output or workspace of the logits' size", a->op->name);
    const unsigned char *src = (const unsigned char *)a->buf[0];
    unsigned char *dst = dst_k >= 0 ? (unsigned char *)a->buf[dst_k] : (unsigned char *)a->workspace;
#pragma omp parallel
    {
        const size_t nt = (size_t)omp_get_num_threads(), id = (size_t)omp_get_thread_num();
        const size_t lo = bytes * id / nt, hi = bytes * (id + 1) / nt;
        if (hi > lo)
            memcpy(dst + lo, src + lo, hi - lo);
    }
    return SL_OK;
}

/* ---- traffic: logits read once, targets read, loss and lse written, the
 * gradient written once. */
static sl_traffic traffic(const sl_shape *s, sl_dtype in, sl_dtype out)
{
    const double e = (double)s->rows * (double)s->cols, r = (double)s->rows;
    sl_traffic t = {e * (double)sl_dtype_size(in) + 4.0 * r, e * (double)sl_dtype_size(out) + 8.0 * r, 2, 3};
    return t;
}

/* The two-pass rung reads the logits twice: the second read from L2 while
 * the rows in flight (132 SMs x 2 blocks a row each) fit in half of it. */
static sl_traffic moved_twopass(const sl_shape *s, sl_dtype dt)
{
    sl_traffic t = traffic(s, dt, dt);
    if (132.0 * 2.0 * (double)s->cols * (double)sl_dtype_size(dt) > (double)(30u << 20))
        t.rd_bytes += (double)s->rows * (double)s->cols * (double)sl_dtype_size(dt);
    return t;
}

/* The unfused pair reads the logits twice, from DRAM (two kernels). */
static sl_traffic moved_split(const sl_shape *s, sl_dtype dt)
{
    sl_traffic t = traffic(s, dt, dt);
    t.rd_bytes += (double)s->rows * (double)s->cols * (double)sl_dtype_size(dt) + 8.0 * (double)s->rows;
    return t;
}

#define XENT_SRC "issue 33; softmax's ladder (seed 002)"
static const sl_variant variants[] = {
    {.name = "copy_k", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "copy kernel: the logits into dx, 16-byte loads and stores, 4 in flight a thread (the ceiling)",
     .source = "issue 33", .launch = SL_CUDA_FN(sl_cuda_ceiling_copy_kernel), .loads_in_flight = 4,
     .access_bytes = 16, .elems_per_thread = 16, .insts_per_elem = 1},
    {.name = "twopass", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block per row: online logsumexp (max, sum, sum x) in one read of 16-byte vectors, then a second "
                  "read writing the gradient",
     .source = XENT_SRC ", \"Online Normalization\"", .launch = SL_CUDA_FN(sl_cuda_xent_twopass),
     .attrs = SL_CUDA_FN(sl_cuda_xent_twopass_attrs), .moved = moved_twopass, .loads_in_flight = 4,
     .access_bytes = 16, .elems_per_thread = 16, .insts_per_elem = 10},
    {.name = "regs", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "fused: the row in registers, read once, gradient written once; a warp, a block or a cluster of "
                  "2-8 blocks merging (max, sum, sum x) through distributed shared memory",
     .source = "ours (issue 33)", .launch = SL_CUDA_FN(sl_cuda_xent_regs), .attrs = SL_CUDA_FN(sl_cuda_xent_regs_attrs),
     .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32, .insts_per_elem = 8},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "fused: the row staged in shared memory by bulk copies (cp.async.bulk), read once from DRAM, three "
                  "passes over shared memory (max, sum of exp, gradient), the gradient written once; chunks of <= 72 "
                  "KiB, a cluster of 1-8 blocks of 512 a row, three blocks an SM",
     .source = "ours (issue 33)", .launch = SL_CUDA_FN(sl_cuda_xent_bulk), .attrs = SL_CUDA_FN(sl_cuda_xent_bulk_attrs),
     .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 64, .insts_per_elem = 12},
    {.name = "bulk_ex", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk with the one-sided cluster exchange: every reduction stops at the warp, each warp's (max, sum, "
                  "sum x, target logit) stored into every cluster CTA's slots by st.async (completing its mbarrier), "
                  "one wait, the slots folded in a fixed order; no bar.sync or cluster barrier in a row's path; "
                  "blocks of 256 with 32 KiB chunks (up to 72 KiB beyond 8 x 32 KiB), six an SM",
     .source = "ours (issue 33)", .launch = SL_CUDA_FN(sl_cuda_xent_bulk_ex),
     .attrs = SL_CUDA_FN(sl_cuda_xent_bulk_ex_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 12},
    {.name = "bulk_ex512", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_ex's one-sided exchange at bulk's granularity: blocks of 512, chunks of <= 72 KiB",
     .source = "ours (issue 33)", .launch = SL_CUDA_FN(sl_cuda_xent_bulk_ex512),
     .attrs = SL_CUDA_FN(sl_cuda_xent_bulk_ex512_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 12},
    {.name = "split", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "unfused: the forward kernel (online logsumexp, one read: loss, lse), then the backward from the "
                  "saved lse (sl_cross_entropy_bwd's kernel: a second read, dx written)",
     .source = "issue 33", .launch = SL_CUDA_FN(sl_cuda_xent_split), .attrs = SL_CUDA_FN(sl_cuda_xent_bwd_attrs),
     .moved = moved_split, .loads_in_flight = 4, .access_bytes = 16, .elems_per_thread = 16, .insts_per_elem = 9},
    {.name = "sl_cross_entropy_fwd_bwd", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "the public function's kernels: bulk_ex for 16-bit rows of 128 KiB and more and f32 rows over 128 "
                  "KiB, else bulk, where the "
                  "row fits (sm_90, 16-byte aligned rows of <= 8 x 72 KiB), else regs for rows of up to 2^15 columns, "
                  "else split (bf16, f16) or twopass (f32)",
     .source = "issue 33", .launch = SL_CUDA_FN(sl_cuda_xent_api), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 8},
    {.name = "copy", .backend = SL_BACKEND_CPU, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "memcpy of the logits into dx, a part per OpenMP thread: the copy ceiling", .source = "issue 33",
     .launch = sl_cpu_xent_ceiling, .elems_per_thread = 1},
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, row by row: f32 elements, fp64 row sums", .source = "issue 33", .launch = cpu_serial,
     .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: rows over the threads, each as serial", .source = "issue 33", .launch = cpu_omp,
     .elems_per_thread = 1},
    {.name = "sl_cross_entropy_fwd_bwd", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = "issue 33", .launch = cpu_omp,
     .elems_per_thread = 1},
};

const sl_op_desc sl_op_xent = {
    .id = SL_OP_XENT,
    .name = "xent",
    .formula = "lse = logsumexp_j x; loss = lse - (1-eps) x[t] - eps mean_j x; dx = softmax(x) - (1-eps) onehot(t) - "
               "eps/V (0 where t = ignore_index)",
    .source = "issue 33: cross-entropy forward + backward fused",
    .numerics = "f32 (16-bit logits widened): max subtracted, exp by ex2.approx (CUDA), f32 sums, lse = m + log s, "
                "loss and lse f32; L = ceil(log2 V) + 1, S = max(1, |m|, |lse|, |x_t|): loss, lse within (16 + L) "
                "2^-24 relative + (16 + L) 2^-24 (S + ln V + 1); dx within (16 + L + 4 S) 2^-24 relative + (16 + L) "
                "2^-24 (sl_xent_tol_buf)",
    .rank = 2,
    .nbufs = 5,
    .bufs = {{"x", SL_ROLE_IN, false, SL_BUF_DATA},
             {"t", SL_ROLE_IN, false, SL_BUF_INDEX},
             {"loss", SL_ROLE_OUT, false, SL_BUF_F32},
             {"lse", SL_ROLE_OUT, false, SL_BUF_F32},
             {"dx", SL_ROLE_OUT, false, SL_BUF_DATA}},
    .nscalars = 2,
    .scalars = {{"ignore_index", -100.0}, {"smoothing", 0.0}},
    .dtypes = SL_XENT_DTYPES,
    .flops_per_elem = 6, /* max, subtract, exp, add (twice: sum and sum x), the gradient's multiply-add */
    .traffic = traffic,
    .tol = {SL_TOL_REL, 16},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
    .default_shapes = "128x32000,128x50257,64x131072",
    .buf_elems = sl_xent_buf_elems,
    .ref_whole = true,
    .fill_index = sl_xent_fill_index,
    .tol_buf = sl_xent_tol_buf,
};

/* ---- the public functions ------------------------------------------------------- */

static int overlap(const void *a, size_t na, const void *b, size_t nb)
{
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na && nb && x < y + nb && y < x + na;
}

/* The public functions' one body. mode: XP_FWD (sl_cross_entropy_fwd),
 * XP_FWD_BWD (sl_cross_entropy_fwd_bwd) or XP_BWD (sl_cross_entropy_bwd:
 * `loss` is then the incoming gradient dloss, and lse is read). */
enum { XP_FWD = 0, XP_FWD_BWD = 1, XP_BWD = 2 };

static sl_status xent_public(sl_ctx *ctx, const char *fn, sl_dtype dtype, size_t rows, size_t cols, const void *logits,
                             int target_type, const void *targets, int64_t ignore_index, float smoothing,
                             int reduction, float *loss, float *lse, void *dlogits, int mode, void *stream)
{
    const int grad = mode != XP_FWD, bwd = mode == XP_BWD;
    if (!ctx)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: ctx is NULL", fn);
    const size_t es = sl_dtype_size(dtype);
    if (es == 0)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: dtype %d is not an sl_dtype", fn, (int)dtype);
    if (!((SL_XENT_DTYPES >> dtype) & 1u))
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: dtype %s is not offered (f32, f16, bf16 are)", fn, sl_dtype_name(dtype));
    if (target_type != SL_INDEX_I32 && target_type != SL_INDEX_I64)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: target_type %d is not an sl_index_type", fn, (int)target_type);
    if (reduction != SL_REDUCTION_NONE && reduction != SL_REDUCTION_MEAN && reduction != SL_REDUCTION_SUM)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: reduction %d is not an sl_reduction", fn, (int)reduction);
    if (!(smoothing >= 0.0f && smoothing <= 1.0f))
        return sl_fail(SL_ERR_INVALID_ARG, "%s: label smoothing %g is not in [0, 1]", fn, (double)smoothing);
    if (rows && cols > SIZE_MAX / rows / es)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: %zu x %zu logits overflow size_t", fn, rows, cols);
    if (rows && cols == 0)
        return sl_fail(SL_ERR_INVALID_ARG, "%s: %zu rows of 0 classes: no target can be in range", fn, rows);
    const size_t ts = target_type == SL_INDEX_I64 ? 8 : 4;
    const size_t xb = rows * cols * es, tb = rows * ts, lb = reduction == SL_REDUCTION_NONE ? rows * 4 : 4,
                 eb = rows * 4;
    /* bytes: the backward reads no scalar dloss when there are no rows */
    struct {
        const char *name;
        const void *p;
        size_t bytes, align;
        int written;
    } b[5] = {{"logits", logits, xb, es, 0},
              {"targets", targets, tb, ts, 0},
              {bwd ? "dloss" : "loss", loss, bwd && rows == 0 ? 0 : lb, 4, !bwd},
              {"lse", lse, eb, 4, !bwd},
              {"dlogits", dlogits, grad ? xb : 0, es, 1}};
    for (int k = 0; k < 5; k++) {
        if (!b[k].bytes || (k == 2 && rows == 0 && reduction == SL_REDUCTION_NONE))
            continue;
        if (!b[k].p)
            return sl_fail(SL_ERR_INVALID_ARG, "%s: %s is NULL", fn, b[k].name);
        if ((uintptr_t)b[k].p % b[k].align)
            return sl_fail(SL_ERR_MISALIGNED, "%s: %s = %p is not aligned to its %zu-byte elements", fn, b[k].name,
                           b[k].p, b[k].align);
    }
    /* a written array overlaps no other, except dlogits exactly the logits */
    for (int w = 0; w < 5; w++)
        for (int k = 0; k < 5 && b[w].written; k++) {
            if (k == w || !overlap(b[w].p, b[w].bytes, b[k].p, b[k].bytes))
                continue;
            if (w == 4 && k == 0 && b[w].p == b[k].p)
                continue;
            return sl_fail(SL_ERR_OVERLAP, "%s: %s = %p (%zu bytes) overlaps %s = %p (%zu bytes)", fn, b[w].name,
                           b[w].p, b[w].bytes, b[k].name, b[k].p, b[k].bytes);
        }
    int token;
    sl_status st = ctx->ops->bind(ctx, &token);
    if (st != SL_OK)
        return st;
    for (int k = 0; k < 5 && st == SL_OK; k++)
        if (b[k].bytes && b[k].p)
            st = ctx->ops->check_pointer(ctx, b[k].p);
    sl_xent_args x;
    memset(&x, 0, sizeof x);
    x.dtype = dtype;
    x.tgt64 = target_type == SL_INDEX_I64;
    x.rows = rows;
    x.cols = cols;
    x.ld = cols;
    x.x = logits;
    x.tgt = targets;
    x.lse = lse;
    x.dx = grad ? dlogits : NULL;
    x.ignore = ignore_index;
    x.smoothing = smoothing;
    x.stream = stream;
    if (bwd) {
        x.dy = loss;
        x.dy_per_row = reduction == SL_REDUCTION_NONE;
    }
    /* mean and sum: per-row losses, then the count and the scale, in the
     * context's workspace (rows + 2 floats; the backward: the count and
     * the scale of a mean, 2 floats) */
    float *ws = NULL;
    const size_t wrows = bwd ? 0 : rows;
    if (st == SL_OK && reduction != SL_REDUCTION_NONE && (!bwd || reduction == SL_REDUCTION_MEAN)) {
        void *w = NULL;
        st = ctx->ops->workspace(ctx, (wrows + 2) * sizeof(float), &w);
        ws = w;
    }
    if (!bwd)
        x.loss = reduction == SL_REDUCTION_NONE ? loss : ws;
    const bool cpu = ctx->info.backend == SL_BACKEND_CPU;
    if (st == SL_OK && cpu) {
        if (reduction == SL_REDUCTION_MEAN && ws) {
            uint64_t c = 0;
            for (uint64_t r = 0; r < rows; r++)
                c += tgt_at(&x, r) != ignore_index;
            ws[wrows] = (float)c;
            ws[wrows + 1] = 1.0f / (float)c;
            x.gscale = &ws[wrows + 1];
        }
        st = bwd ? sl_cpu_xent_bwd_run(&x, 1) : sl_cpu_xent_run(&x, 1);
        if (st == SL_OK && !bwd && reduction != SL_REDUCTION_NONE) {
            double sum = 0.0;
            for (uint64_t r = 0; r < rows; r++)
                sum += ws[r];
            *loss = (float)(reduction == SL_REDUCTION_MEAN ? sum / (double)ws[rows] : sum);
        }
    } else if (st == SL_OK) {
#ifdef SL_HAVE_CUDA
        if (reduction == SL_REDUCTION_MEAN && ws) {
            st = sl_cuda_xent_count(&x, ws + wrows);
            x.gscale = ws + wrows + 1;
        }
        if (st == SL_OK && rows)
            st = bwd ? sl_cuda_xent_bwd_run(&x) : x.dx ? sl_cuda_xent_fused_run(&x) : sl_cuda_xent_twopass_run(&x);
        if (st == SL_OK && !bwd && reduction != SL_REDUCTION_NONE)
            st = sl_cuda_xent_sum(ws, rows, ws + rows, reduction == SL_REDUCTION_MEAN, loss, stream);
#else
        st = sl_fail(SL_ERR_INTERNAL, "%s: a CUDA context in a build without CUDA", fn);
#endif
    }
    ctx->ops->unbind(token);
    return st;
}

sl_status sl_cross_entropy_fwd_bwd(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *logits,
                                   int target_type, const void *targets, int64_t ignore_index,
                                   float smoothing, int reduction, float *loss, float *lse, void *dlogits,
                                   void *stream)
{
    return xent_public(ctx, "sl_cross_entropy_fwd_bwd", dtype, rows, cols, logits, target_type, targets, ignore_index,
                       smoothing, reduction, loss, lse, dlogits, XP_FWD_BWD, stream);
}

sl_status sl_cross_entropy_fwd(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *logits,
                               int target_type, const void *targets, int64_t ignore_index, float smoothing,
                               int reduction, float *loss, float *lse, void *stream)
{
    return xent_public(ctx, "sl_cross_entropy_fwd", dtype, rows, cols, logits, target_type, targets, ignore_index,
                       smoothing, reduction, loss, lse, NULL, XP_FWD, stream);
}

sl_status sl_cross_entropy_bwd(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *logits,
                               int target_type, const void *targets, int64_t ignore_index, float smoothing,
                               int reduction, const float *dloss, const float *lse, void *dlogits, void *stream)
{
    return xent_public(ctx, "sl_cross_entropy_bwd", dtype, rows, cols, logits, target_type, targets, ignore_index,
                       smoothing, reduction, (float *)(uintptr_t)dloss, (float *)(uintptr_t)lse, dlogits, XP_BWD,
                       stream);
}
