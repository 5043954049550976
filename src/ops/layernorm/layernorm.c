/*
 * layernorm.c - the layernorm forward op (issue 32),
 *   mean_r = mean_j x[r, j],  rstd_r = 1 / sqrt(mean_j (x[r, j] - mean_r)^2 + eps),
 *   y[r, j] = (x[r, j] - mean_r) rstd_r w[j] + b[j],
 * over each row of a row-major rows x cols matrix: its descriptor, its
 * fp64 reference, its CPU rungs, its variant table and sl_layernorm_fwd().
 * The backward is its own op (src/ops/layernorm_bwd/).
 */
#include "layernorm.h"

#include "dtype_conv.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* ---- numerics: the tolerance ------------------------------------------------
 * u = 2^-24; A_r = mean_j |x[r, j]|. The GPU sums x in f32 along a path of
 * at most 106 additions (SL_NORM_SEQ = 64 in order, the team's tree: 5 +
 * 31 + 7; rmsnorm.c), so |s - sum x| <= 106 u N A_r, and mean = s / N
 * rounds once more: |mean err| = delta_r <= 107 u A_r. Then:
 *   d = x - mean rounds once: |d err| <= u |d| + delta_r;
 *   q = sum d^2 (path <= 106, positive terms): within 108 u relative of
 *   sum (x - mean_exact)^2 + N delta^2 (the cross term vanishes: the exact
 *   deviations sum to 0), so rstd (/ N, + eps, rsqrtf within 2 ulp) within
 *   56 u + delta^2 / (2 var) relative;
 *   y = fmaf(d rstd, w, b): |y err| <= u |y| + (58 u |d| + delta_r) rstd |w|.
 * The relative part is LN_ULPS = 64 for every buffer; the absolute part per
 * buffer (sl_ref_args.buf_abs), with a factor 2 of margin for the ulp
 * steps of the products, is the largest over the matrix of
 *   mean: 2 x 107 u A_r;   rstd: 2 x rstd (107 u A_r)^2 / var_r;
 *   y: 2 x (60 |x - mean| + 107 A_r) u rstd_r |w_j|.
 * bf16 / f16 outputs add the one ulp of their rounding (op.h).
 * tests/norm_check.h checks the same bound per element and shows that a
 * bound 256 times tighter fails. */
#define LN_ULPS 64

/* ---- the reference: fp64 ------------------------------------------------------
 * Inputs widened exactly; the formula as written (two passes: mean, then
 * the mean of the squared deviations), eps rounded to f32 as the kernels
 * take it; y rounded once into the dtype, mean and rstd into f32. */
static void reference(sl_ref_args *r)
{
    const uint64_t n = r->shape.cols, ld = r->shape.ld ? r->shape.ld : n;
    const size_t es = sl_dtype_size(r->dtype), oes = sl_dtype_size(r->out_dtype);
    const double eps = (double)(float)r->scalar[0];
    const unsigned char *w = r->in[SL_LN_W], *b = r->in[SL_LN_B];
    double am = 0.0, ar = 0.0, ay = 0.0;
#pragma omp parallel for schedule(static) reduction(max : am, ar, ay)
    for (long long ii = (long long)r->lo; ii < (long long)r->hi; ii++) {
        const uint64_t i = (uint64_t)ii;
        const unsigned char *x = (const unsigned char *)r->in[SL_LN_X] + i * ld * es;
        unsigned char *y = (unsigned char *)r->out[SL_LN_Y] + i * ld * oes;
        double s = 0.0, sa = 0.0;
        for (uint64_t j = 0; j < n; j++) {
            const double v = sl_dtype_load_f64(r->dtype, x, j);
            s += v;
            sa += fabs(v);
        }
        const double mean = s / (double)n, A = sa / (double)n;
        double q = 0.0;
        for (uint64_t j = 0; j < n; j++) {
            const double d = sl_dtype_load_f64(r->dtype, x, j) - mean;
            q += d * d;
        }
        const double var = q / (double)n, rstd = 1.0 / sqrt(var + eps), delta = 107.0 * 0x1p-24 * A;
        for (uint64_t j = 0; j < n; j++) {
            const double d = sl_dtype_load_f64(r->dtype, x, j) - mean, wj = sl_dtype_load_f64(r->dtype, w, j);
            sl_dtype_store_f64(r->out_dtype, y, j, d * rstd * wj + sl_dtype_load_f64(r->dtype, b, j));
            const double e = 2.0 * (60.0 * 0x1p-24 * fabs(d) + delta) * rstd * fabs(wj);
            ay = e > ay ? e : ay;
        }
        ((float *)r->out[SL_LN_MEAN])[i] = (float)mean;
        ((float *)r->out[SL_LN_RSTD])[i] = (float)rstd;
        am = 2.0 * delta > am ? 2.0 * delta : am;
        const double er = var > 0.0 ? 2.0 * rstd * delta * delta / var : 0.0;
        ar = er > ar ? er : ar;
    }
    r->buf_abs[SL_LN_Y] = ay;
    r->buf_abs[SL_LN_MEAN] = am;
    r->buf_abs[SL_LN_RSTD] = ar;
}

/* ---- the CPU rungs -----------------------------------------------------------
 * The sums in fp64 (one thread adds a whole row: mean, then the squared
 * deviations from the f32 mean), the rest in f32 as the GPU rungs do it.
 * Every pass reads an element before the last pass writes it, by the same
 * thread: safe in place (y = x). w and b in f32 where the public function
 * said so (f32_bufs). */
static void cpu_row(const sl_args *a, uint64_t r)
{
    const uint64_t n = a->shape.cols, ld = a->shape.ld ? a->shape.ld : n;
    const sl_dtype dt = a->dtype, wt = ((a->f32_bufs >> SL_LN_W) & 1u) ? SL_F32 : dt;
    const size_t es = sl_dtype_size(dt);
    const unsigned char *x = (const unsigned char *)a->buf[SL_LN_X] + r * ld * es;
    unsigned char *y = (unsigned char *)a->buf[SL_LN_Y] + r * ld * es;
    double s = 0.0;
    for (uint64_t j = 0; j < n; j++)
        s += sl_dtype_load(dt, x, j);
    const float mean = (float)(s / (double)n);
    double q = 0.0;
    for (uint64_t j = 0; j < n; j++) {
        const double d = (double)sl_dtype_load(dt, x, j) - mean;
        q += d * d;
    }
    const float rstd = 1.0f / sqrtf((float)(q / (double)n) + (float)a->scalar[0]);
    for (uint64_t j = 0; j < n; j++)
        sl_dtype_store(dt, y, j,
                       fmaf((sl_dtype_load(dt, x, j) - mean) * rstd, sl_dtype_load(wt, a->buf[SL_LN_W], j),
                            sl_dtype_load(wt, a->buf[SL_LN_B], j)));
    ((float *)a->buf[SL_LN_MEAN])[r] = mean;
    ((float *)a->buf[SL_LN_RSTD])[r] = rstd;
}

static sl_status cpu_serial(const sl_args *a)
{
    sl_cpu_rows(a, cpu_row, false);
    return SL_OK;
}

static sl_status cpu_omp(const sl_args *a)
{
    sl_cpu_rows(a, cpu_row, true);
    return SL_OK;
}

/* ---- buffers and bytes ------------------------------------------------------
 * x and y span the shape, w and b one row, mean and rstd one f32 per row:
 * the roles rule counts the compulsory traffic, x + w + b read, y + mean +
 * rstd written. */
static uint64_t buf_elems(const sl_shape *s, int k)
{
    return k == SL_LN_W || k == SL_LN_B ? s->cols : k == SL_LN_MEAN || k == SL_LN_RSTD ? s->rows : sl_shape_span(s);
}

/* The block rung reads x three times (the second and third from L2 while
 * the rows in flight fit in about half of it: 132 SMs x 8 rows). */
static sl_traffic moved_3(const sl_shape *s, sl_dtype dt)
{
    const double es = (double)sl_dtype_size(dt), x = (double)s->rows * (double)s->cols * es;
    sl_traffic t = {x + 2.0 * (double)s->cols * es, x + 8.0 * (double)s->rows, 3, 3};
    if (132.0 * 8.0 * (double)s->cols * es > (double)(30u << 20))
        t.rd_bytes += 2.0 * x;
    return t;
}

#define LN_SRC "issue 32"
static const sl_variant variants[] = {
    {.name = "copy", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "copy kernel of x into y (16-byte vectors, copy's vec rung): the copy ceiling of the same bytes",
     .source = "issue 32; DESIGN.md (the ceiling is a kernel, not cudaMemcpy)", .launch = SL_CUDA_FN(sl_cuda_norm_copy),
     .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4, .insts_per_elem = 2},
    {.name = "block", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block per row, coalesced scalar loads, compensated sums, three passes (mean, variance, y)",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_block), .moved = moved_3, .loads_in_flight = 1,
     .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 14},
    {.name = "regs", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the norms' register kernel (common/norm_fwd.cuh): row in registers, read once, 16-byte vectors, "
                  "mean then variance from the registers; warp / block / cluster of 2-8 blocks per row",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_regs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 6},
    {.name = "regs_pf", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs, persistent, the next row's vectors loaded before this row's two reductions",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_regs_pf), .static_partition = true,
     .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32, .insts_per_elem = 6},
    {.name = "regs_1k", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs with rows of 257-8192 vectors in one block of 1024 threads, no cluster",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_regs_1k), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 6},
    {.name = "lean", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs' teams with one block barrier a team sum (two a row; with a cluster two cluster barriers "
                  "and a deferred wait) and a register cap for occupancy (issue 32, third session)",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_lean), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 6},
    {.name = "lean4", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "lean's team sums with 4 vectors a thread beyond the warp teams: a block of 128-1024 per row, "
                  "then clusters of 4-8 blocks of 512; 64 registers (issue 32, third session)",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_lean4), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 6},
    {.name = "decode", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "lean's teams for rows of up to 1024 vectors with w and b loaded beside x, before the team sums: "
                  "one DRAM round trip on the critical path where the rows are few and L2 is cold (issue 32)",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_decode), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 6},
    {.name = "aligned", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "lean4's blocks up to 4096 vectors, lean's clusters beyond, for aligned rows: whole 16-byte "
                  "vectors without the edge masks (issue 32)",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_aligned), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 6},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the row staged in shared memory by bulk copies (cp.async.bulk, sm_90), read once from DRAM: chunks "
                  "of <= 64 KiB, a cluster of 1-8 blocks of 512 a row, three blocks an SM; mean, then the variance "
                  "two-pass from shared memory, y from it; aligned rows only (issue 32, seventh session)",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bulk), .attrs = SL_CUDA_FN(sl_cuda_layernorm_bulk_attrs),
     .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 64, .insts_per_elem = 6},
    {.name = "bulk_ex", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "one-sided cluster exchange (each warp's partial st.async into every cluster CTA's slots, one "
                  "mbarrier wait; no bar.sync or cluster barrier in a row) and quack's granularity: blocks of 256, 32 "
                  "KiB chunks, 6 blocks an SM, bulk copies; aligned rows only (issue 32, tenth session)",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bulk_ex),
     .attrs = SL_CUDA_FN(sl_cuda_layernorm_bulk_ex_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 6},
    {.name = "bulk_ex512", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk's blocks of 512 and 64 KiB chunks (3 an SM) with the one-sided cluster exchange only; aligned "
                  "rows only (issue 32, tenth session)",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bulk_ex512),
     .attrs = SL_CUDA_FN(sl_cuda_layernorm_bulk_ex512_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 6},
    {.name = "bulk_ex128", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_ex with blocks of 128 and 16 KiB chunks (12 blocks an SM); aligned rows only (issue 32, tenth "
                  "session)",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bulk_ex128),
     .attrs = SL_CUDA_FN(sl_cuda_layernorm_bulk_ex128_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 6},
    {.name = "bulk_cp", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_ex with every thread's own 16-byte cp.async (no chunk-wide wait) instead of one thread's bulk "
                  "copies: quack's loads; aligned rows only (issue 32, tenth session)",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_bulk_cp),
     .attrs = SL_CUDA_FN(sl_cuda_layernorm_bulk_cp_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 6},
    {.name = "sl_layernorm_fwd", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_layernorm_fwd(): where x and y share their 16-byte offset and the row fits, regs for "
                  "the warp teams (up to 256 vectors), lean4 up to 4096 vectors at >= 4 rows a SM, lean "
                  "otherwise; but aligned rows decode (more than 256 vectors, fewer rows than SMs), bulk_ex beyond "
                  "4096 vectors of 16-bit rows, bulk beyond 2048 of f32 (sm_90), or aligned; else block",
     .source = LN_SRC, .launch = SL_CUDA_FN(sl_cuda_layernorm_api), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 6},
    SL_EW_CEILING_CPU,
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, row by row: fp64 mean and variance, f32 scale", .source = LN_SRC,
     .launch = cpu_serial, .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: rows over the threads, each as serial", .source = LN_SRC, .launch = cpu_omp,
     .elems_per_thread = 1},
    {.name = "sl_layernorm_fwd", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = LN_SRC, .launch = cpu_omp,
     .elems_per_thread = 1},
};

const sl_op_desc sl_op_layernorm = {
    .id = SL_OP_LAYERNORM,
    .name = "layernorm",
    .api = "sl_layernorm_fwd",
    .formula = "mean[r] = mean_j x[r,j], rstd[r] = 1 / sqrt(mean_j (x[r,j] - mean[r])^2 + eps), "
               "y[r,j] = (x[r,j] - mean[r]) rstd[r] w[j] + b[j]",
    .source = "issue 32 (Ba, Kiros and Hinton, \"Layer Normalization\", 2016)",
    .numerics = "f32 (16-bit storage widened): sum in f32 (fp64 on the CPU), two-pass variance from registers, "
                "rsqrtf, y = fmaf((x - mean) rstd, w, b); within 64 x 2^-24 relative plus a bound from the row's "
                "scale (layernorm.c), +1 ulp of a 16-bit dtype; mean and rstd in f32",
    .rank = 2,
    .nbufs = 6,
    .bufs = {{"x", SL_ROLE_IN, false, false},
             {"w", SL_ROLE_IN, false, false},
             {"b", SL_ROLE_IN, false, false},
             {"y", SL_ROLE_OUT, false, false},
             {"mean", SL_ROLE_OUT, false, SL_BUF_F32},
             {"rstd", SL_ROLE_OUT, false, SL_BUF_F32}},
    .nscalars = 1,
    .scalars = {{"eps", 1e-5}},
    .dtypes = SL_RMSNORM_DTYPES,
    .flops_per_elem = 7, /* add; subtract, square-add; subtract, two multiplies, add */
    .fma = false,
    .tol = {SL_TOL_REL, LN_ULPS},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
    .default_shapes = "4096x1024,4096x4096,1024x16384,256x65536,1x4096,64x4096",
    .buf_elems = buf_elems,
    .ref_whole = true,
};

sl_status sl_layernorm_fwd(sl_ctx *ctx, sl_dtype dtype, sl_dtype w_dtype, size_t rows, size_t cols, const void *x,
                           const void *w, const void *b, double eps, void *y, float *mean, float *rstd, void *stream)
{
    if (w_dtype != dtype && w_dtype != SL_F32)
        return sl_fail(SL_ERR_UNSUPPORTED, "sl_layernorm_fwd: w_dtype %s: w and b are in x's dtype (%s) or f32",
                       sl_dtype_name(w_dtype), sl_dtype_name(dtype));
    if (!(eps > 0.0) || eps > 3.0e38)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_layernorm_fwd: eps = %g: a positive finite f32 is needed", eps);
    if (rows && cols && mean && mean == rstd)
        return sl_fail(SL_ERR_OVERLAP, "sl_layernorm_fwd: mean = rstd = %p: each needs its own buffer", (void *)mean);
    const sl_shape s = sl_shape_2d(rows, cols);
    void *const ptrs[] = {(void *)x, (void *)w, (void *)b, y, mean, rstd};
    const sl_call_opts o = {.f32_bufs = w_dtype == SL_F32 ? (1u << SL_LN_W) | (1u << SL_LN_B) : 0u};
    return sl_op_call_opts(ctx, &sl_op_layernorm, dtype, &s, ptrs, &eps, &o, stream);
}
