/*
 * add_rmsnorm.c - the fused residual add + rmsnorm forward (issue 32),
 *   h = round(x + res),  rstd_r = 1 / sqrt(mean_j h[r, j]^2 + eps),
 *   y[r, j] = h[r, j] rstd_r w[j],
 * its descriptor, fp64 reference, CPU rungs, variants and
 * sl_add_rmsnorm_fwd().
 */
#include "add_rmsnorm.h"

#include "dtype_conv.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* ---- numerics ---------------------------------------------------------------
 * h: x + res in f32 rounded once into the dtype. In f32 that is the
 * correctly rounded sum; for bf16 / f16 the f32 sum of two of their values
 * is exact when their exponents differ by at most 16 (bf16) / 13 (f16),
 * and otherwise the smaller is below half an ulp of the larger in the
 * 16-bit format, so rounding the f32 sum gives the same 16-bit value as
 * rounding the exact sum: h is bit for bit the reference's. y and rstd are
 * rmsnorm's of h (rmsnorm.c: 64 x 2^-24 relative, + 1 ulp of a 16-bit
 * dtype). */
#define ARMS_ULPS 64

/* ---- the reference: fp64 ------------------------------------------------------
 * h = x + res in fp64, rounded once into the dtype; then rmsnorm of the
 * rounded h as rmsnorm.c's reference. */
static void reference(sl_ref_args *r)
{
    const uint64_t n = r->shape.cols, ld = r->shape.ld ? r->shape.ld : n;
    const size_t es = sl_dtype_size(r->dtype), oes = sl_dtype_size(r->out_dtype);
    const double eps = (double)(float)r->scalar[0];
    const unsigned char *w = r->in[SL_ARMS_W];
#pragma omp parallel for schedule(static)
    for (long long ii = (long long)r->lo; ii < (long long)r->hi; ii++) {
        const uint64_t i = (uint64_t)ii;
        const unsigned char *x = (const unsigned char *)r->in[SL_ARMS_X] + i * ld * es;
        const unsigned char *rs = (const unsigned char *)r->in[SL_ARMS_RES] + i * ld * es;
        unsigned char *h = (unsigned char *)r->out[SL_ARMS_H] + i * ld * oes;
        unsigned char *y = (unsigned char *)r->out[SL_ARMS_Y] + i * ld * oes;
        double ss = 0.0;
        for (uint64_t j = 0; j < n; j++) {
            sl_dtype_store_f64(r->out_dtype, h, j,
                               sl_dtype_load_f64(r->dtype, x, j) + sl_dtype_load_f64(r->dtype, rs, j));
            const double v = sl_dtype_load_f64(r->out_dtype, h, j);
            ss += v * v;
        }
        const double rstd = 1.0 / sqrt(ss / (double)n + eps);
        for (uint64_t j = 0; j < n; j++)
            sl_dtype_store_f64(r->out_dtype, y, j,
                               sl_dtype_load_f64(r->out_dtype, h, j) * rstd * sl_dtype_load_f64(r->dtype, w, j));
        ((float *)r->out[SL_ARMS_RSTD])[i] = (float)rstd;
    }
}

/* ---- the CPU rungs -----------------------------------------------------------
 * h in f32 rounded into the dtype, the sum of squares of the stored h in
 * fp64, y = (h rstd) w in f32. Each element is read before it is written,
 * by one thread: in place (h or y = x or res) is safe. */
static void cpu_row(const sl_args *a, uint64_t r)
{
    const uint64_t n = a->shape.cols, ld = a->shape.ld ? a->shape.ld : n;
    const sl_dtype dt = a->dtype, wt = ((a->f32_bufs >> SL_ARMS_W) & 1u) ? SL_F32 : dt;
    const size_t es = sl_dtype_size(dt);
    const unsigned char *x = (const unsigned char *)a->buf[SL_ARMS_X] + r * ld * es;
    const unsigned char *rs = (const unsigned char *)a->buf[SL_ARMS_RES] + r * ld * es;
    unsigned char *h = (unsigned char *)a->buf[SL_ARMS_H] + r * ld * es;
    unsigned char *y = (unsigned char *)a->buf[SL_ARMS_Y] + r * ld * es;
    double ss = 0.0;
    for (uint64_t j = 0; j < n; j++) {
        sl_dtype_store(dt, h, j, sl_dtype_load(dt, x, j) + sl_dtype_load(dt, rs, j));
        const float v = sl_dtype_load(dt, h, j);
        ss += (double)v * v;
    }
    const float rstd = 1.0f / sqrtf((float)(ss / (double)n) + (float)a->scalar[0]);
    for (uint64_t j = 0; j < n; j++)
        sl_dtype_store(dt, y, j, sl_dtype_load(dt, h, j) * rstd * sl_dtype_load(wt, a->buf[SL_ARMS_W], j));
    ((float *)a->buf[SL_ARMS_RSTD])[r] = rstd;
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
 * The roles rule counts the compulsory traffic: x, res, w read; h, y, rstd
 * written (the "read x and the residual; write h and y"). */
static uint64_t buf_elems(const sl_shape *s, int k)
{
    return k == SL_ARMS_W ? s->cols : k == SL_ARMS_RSTD ? s->rows : sl_shape_span(s);
}

/* The block rung reads h back (L2 while the rows in flight fit). */
static sl_traffic moved_block(const sl_shape *s, sl_dtype dt)
{
    const double es = (double)sl_dtype_size(dt), m = (double)s->rows * (double)s->cols * es;
    sl_traffic t = {2.0 * m + (double)s->cols * es, 2.0 * m + 4.0 * (double)s->rows, 3, 3};
    if (132.0 * 8.0 * (double)s->cols * es > (double)(30u << 20))
        t.rd_bytes += m;
    return t;
}

#define ARMS_SRC "issue 32"
static const sl_variant variants[] = {
    {.name = "copy", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "copy kernel of x into h (16-byte vectors, copy's vec rung): the copy ceiling's bandwidth",
     .source = "issue 32; DESIGN.md (the ceiling is a kernel, not cudaMemcpy)", .launch = SL_CUDA_FN(sl_cuda_norm_copy),
     .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4, .insts_per_elem = 2},
    {.name = "block", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block per row, coalesced scalar loads: h = x + res stored and its squares summed (compensated), "
                  "then y from h read back",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_block), .moved = moved_block,
     .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 12},
    {.name = "regs", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the norms' register kernel (common/norm_fwd.cuh, NORM_ADD_RMS): x and res read once into "
                  "registers, h packed over x's vectors and stored, rmsnorm of h; warp / block / cluster per row",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_regs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    {.name = "lean", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs' teams with one block barrier a team sum (one cluster barrier a row, a deferred wait) and "
                  "a register cap for occupancy (issue 32, third session)",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_lean), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    {.name = "lean4", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "lean's team sums with 4 vectors of x and of res a thread beyond the warp teams: a block of "
                  "128-1024 per row, then clusters of 4-8 blocks of 512 (issue 32, third session)",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_lean4), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    {.name = "decode", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "lean's teams for rows of up to 1024 vectors with w loaded beside x and res, before the team sum: "
                  "one DRAM round trip on the critical path where the rows are few and L2 is cold (issue 32)",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_decode), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    {.name = "aligned", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "warp teams up to 128 vectors, a block of 128 up to 512, lean4's blocks up to 4096, lean's "
                  "clusters beyond, for aligned rows: whole 16-byte vectors without the edge masks (issue 32)",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_aligned), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "x and res staged in shared memory by bulk copies (cp.async.bulk, sm_90), read once from DRAM: "
                  "chunks of <= 32 KiB of each, a cluster of 1-8 blocks of 512 a row, three blocks an SM; h stored "
                  "and kept in shared memory, y from it; aligned rows only (issue 32, seventh session)",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_bulk),
     .attrs = SL_CUDA_FN(sl_cuda_add_rmsnorm_bulk_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    {.name = "bulk_ex", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "one-sided cluster exchange (each warp's partial st.async into every cluster CTA's slots, one "
                  "mbarrier wait; no bar.sync or cluster barrier in a row) and quack's granularity: blocks of 256, 32 + "
                  "32 KiB (x, res) chunks, 3 blocks an SM, bulk copies; aligned rows only (issue 32, tenth session)",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_bulk_ex),
     .attrs = SL_CUDA_FN(sl_cuda_add_rmsnorm_bulk_ex_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 5},
    {.name = "bulk_ex512", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk's blocks of 512 and 32 + 32 KiB (x, res) chunks (3 an SM) with the one-sided cluster exchange "
                  "only; aligned rows only (issue 32, tenth session)",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_bulk_ex512),
     .attrs = SL_CUDA_FN(sl_cuda_add_rmsnorm_bulk_ex512_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    {.name = "bulk_ex128", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_ex with blocks of 128 and 16 + 16 KiB (x, res) chunks (6 blocks an SM); aligned rows only "
                  "(issue 32, tenth session)",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_bulk_ex128),
     .attrs = SL_CUDA_FN(sl_cuda_add_rmsnorm_bulk_ex128_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 5},
    {.name = "bulk_cp", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_ex with every thread's own 16-byte cp.async (no chunk-wide wait) instead of one thread's bulk "
                  "copies: quack's loads; aligned rows only (issue 32, tenth session)",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_bulk_cp),
     .attrs = SL_CUDA_FN(sl_cuda_add_rmsnorm_bulk_cp_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 5},
    {.name = "sl_add_rmsnorm_fwd", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_add_rmsnorm_fwd(): aligned rows: decode beyond 256 vectors with fewer rows than SMs, "
                  "bulk_ex (16-bit) or bulk beyond 4096 (sm_90), aligned for 16-bit rows of <= 128 vectors with w in their dtype, for "
                  "129-256 vectors and beyond 1024; else, where x, res, h, y share one 16-byte offset, regs up to "
                  "256 vectors, lean up to 4096, lean4 beyond; else block",
     .source = ARMS_SRC, .launch = SL_CUDA_FN(sl_cuda_add_rmsnorm_api), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    SL_EW_CEILING_CPU,
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, row by row: h in f32 rounded, fp64 sum of squares, f32 scale", .source = ARMS_SRC,
     .launch = cpu_serial, .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: rows over the threads, each as serial", .source = ARMS_SRC, .launch = cpu_omp,
     .elems_per_thread = 1},
    {.name = "sl_add_rmsnorm_fwd", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = ARMS_SRC, .launch = cpu_omp,
     .elems_per_thread = 1},
};

const sl_op_desc sl_op_add_rmsnorm = {
    .id = SL_OP_ADD_RMSNORM,
    .name = "add_rmsnorm",
    .api = "sl_add_rmsnorm_fwd",
    .formula = "h = x + res, rstd[r] = 1 / sqrt(mean_j h[r,j]^2 + eps), y[r,j] = h[r,j] rstd[r] w[j]",
    .source = "issue 32 (fused residual add + RMSNorm)",
    .numerics = "h = x + res in f32 rounded once (bit for bit the fp64 reference's); y, rstd as rmsnorm of the "
                "stored h: within 64 x 2^-24 relative (+1 ulp of a 16-bit dtype)",
    .rank = 2,
    .nbufs = 6,
    .bufs = {{"x", SL_ROLE_IN, false, false},
             {"res", SL_ROLE_IN, false, false},
             {"w", SL_ROLE_IN, false, false},
             {"h", SL_ROLE_OUT, false, false},
             {"y", SL_ROLE_OUT, false, false},
             {"rstd", SL_ROLE_OUT, false, SL_BUF_F32}},
    .nscalars = 1,
    .scalars = {{"eps", 1e-6}},
    .dtypes = SL_RMSNORM_DTYPES,
    .flops_per_elem = 5,
    .fma = false,
    .tol = {SL_TOL_REL, ARMS_ULPS},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
    .default_shapes = "4096x1024,4096x4096,1024x16384,256x65536,1x4096,64x4096",
    .buf_elems = buf_elems,
    .ref_whole = true,
};

sl_status sl_add_rmsnorm_fwd(sl_ctx *ctx, sl_dtype dtype, sl_dtype w_dtype, size_t rows, size_t cols, const void *x,
                             const void *res, const void *w, double eps, void *h, void *y, float *rstd, void *stream)
{
    if (w_dtype != dtype && w_dtype != SL_F32)
        return sl_fail(SL_ERR_UNSUPPORTED, "sl_add_rmsnorm_fwd: w_dtype %s: the weight is in x's dtype (%s) or f32",
                       sl_dtype_name(w_dtype), sl_dtype_name(dtype));
    if (!(eps > 0.0) || eps > 3.0e38)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_add_rmsnorm_fwd: eps = %g: a positive finite f32 is needed", eps);
    if (rows && cols && h && h == y)
        return sl_fail(SL_ERR_OVERLAP, "sl_add_rmsnorm_fwd: h = y = %p: each needs its own buffer", h);
    const sl_shape s = sl_shape_2d(rows, cols);
    void *const ptrs[] = {(void *)x, (void *)res, (void *)w, h, y, rstd};
    const sl_call_opts o = {.f32_bufs = w_dtype == SL_F32 ? 1u << SL_ARMS_W : 0u};
    return sl_op_call_opts(ctx, &sl_op_add_rmsnorm, dtype, &s, ptrs, &eps, &o, stream);
}
