/*
 * rmsnorm.c - the rmsnorm forward op (issue 32),
 *   rstd_r = 1 / sqrt(mean_j x[r, j]^2 + eps),  y[r, j] = x[r, j] rstd_r w[j],
 * over each row of a row-major rows x cols matrix: its descriptor, its
 * fp64 reference, its CPU rungs, its variant table and sl_rmsnorm_fwd().
 * The backward is its own op (src/ops/rmsnorm_bwd/): one op per
 * descriptor, one buffer list each (docs/architecture.md, "Forward and
 * backward").
 */
#include "rmsnorm.h"

#include "dtype_conv.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* ---- numerics: the tolerance ------------------------------------------------
 * Every rung sums x^2 in f32, each thread at most SL_NORM_SEQ = 64 terms in
 * sequence (or compensated), then a tree: the warp's butterfly (5 adds),
 * the block's warps (<= 31), a cluster's blocks (<= 7). A term's path is
 * then <= 106 additions, and for a sum of positive terms the error is
 * within 106 u of the sum (u = 2^-24; Higham 2002, section 4.2). The
 * division by N and the + eps round once each, rsqrtf is within 2 ulp
 * (CUDA C Programming Guide, "Mathematical Functions"): rstd within
 * 108 / 2 + 2 = 56 u relative; y = (x rstd) w rounds twice more: 58 u.
 * SL_TOL_REL with 64 (3.8e-6) covers it, and bf16 / f16 outputs add the
 * one ulp of their rounding (op.h). tests/test_gpu_rmsnorm.c shows the
 * GPU rungs' largest error and that a tolerance 64 times tighter fails. */
#define RMS_ULPS 64

/* ---- the reference: fp64 ------------------------------------------------------
 * Inputs widened exactly to fp64, the formula as written: ss = sum x^2,
 * rstd = 1 / sqrt(ss / N + eps) with eps rounded to f32 as the kernels
 * take it, y = x rstd w rounded once into the dtype, rstd into f32. A NaN
 * in a row makes its rstd and so its whole y NaN; a row of zeros has
 * rstd = 1 / sqrt(eps) and y = 0. Whole inputs (ref_whole): w is one row
 * for every row. */
static void reference(sl_ref_args *r)
{
    const uint64_t n = r->shape.cols, ld = r->shape.ld ? r->shape.ld : n;
    const size_t es = sl_dtype_size(r->dtype), oes = sl_dtype_size(r->out_dtype);
    const double eps = (double)(float)r->scalar[0];
    const unsigned char *w = r->in[SL_RMS_W];
#pragma omp parallel for schedule(static)
    for (long long ii = (long long)r->lo; ii < (long long)r->hi; ii++) {
        const uint64_t i = (uint64_t)ii;
        const unsigned char *x = (const unsigned char *)r->in[SL_RMS_X] + i * ld * es;
        unsigned char *y = (unsigned char *)r->out[SL_RMS_Y] + i * ld * oes;
        double ss = 0.0;
        for (uint64_t j = 0; j < n; j++) {
            const double v = sl_dtype_load_f64(r->dtype, x, j);
            ss += v * v;
        }
        const double rstd = 1.0 / sqrt(ss / (double)n + eps);
        for (uint64_t j = 0; j < n; j++)
            sl_dtype_store_f64(r->out_dtype, y, j,
                               sl_dtype_load_f64(r->dtype, x, j) * rstd * sl_dtype_load_f64(r->dtype, w, j));
        ((float *)r->out[SL_RMS_RSTD])[i] = (float)rstd;
    }
}

/* ---- the CPU rungs -----------------------------------------------------------
 * f32 arithmetic as the GPU rungs do it, the sum of squares in fp64 (one
 * thread adds a whole row), rsqrt as 1 / sqrtf. Two passes per row, each
 * element read by the thread that writes it: safe in place (y = x). w in
 * f32 where the public function said so (f32_bufs). */
static void cpu_row(const sl_args *a, uint64_t r)
{
    const uint64_t n = a->shape.cols, ld = a->shape.ld ? a->shape.ld : n;
    const sl_dtype dt = a->dtype, wt = ((a->f32_bufs >> SL_RMS_W) & 1u) ? SL_F32 : dt;
    const size_t es = sl_dtype_size(dt);
    const unsigned char *x = (const unsigned char *)a->buf[SL_RMS_X] + r * ld * es;
    unsigned char *y = (unsigned char *)a->buf[SL_RMS_Y] + r * ld * es;
    double ss = 0.0;
    for (uint64_t j = 0; j < n; j++) {
        const float v = sl_dtype_load(dt, x, j);
        ss += (double)v * v;
    }
    const float rstd = 1.0f / sqrtf((float)(ss / (double)n) + (float)a->scalar[0]);
    for (uint64_t j = 0; j < n; j++)
        sl_dtype_store(dt, y, j, sl_dtype_load(dt, x, j) * rstd * sl_dtype_load(wt, a->buf[SL_RMS_W], j));
    ((float *)a->buf[SL_RMS_RSTD])[r] = rstd;
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
 * x and y span the shape, w one row (cols), rstd one f32 per row: the
 * roles rule (each input read once, each output written once) then counts
 * the compulsory traffic, x + w read, y + rstd written. */
static uint64_t buf_elems(const sl_shape *s, int k)
{
    return k == SL_RMS_W ? s->cols : k == SL_RMS_RSTD ? s->rows : sl_shape_span(s);
}

/* Reads x twice (the second time from L2 while the rows in flight fit in
 * about half of it: 132 SMs x 8 rows; from DRAM beyond). */
static sl_traffic moved_2(const sl_shape *s, sl_dtype dt)
{
    const double es = (double)sl_dtype_size(dt), x = (double)s->rows * (double)s->cols * es;
    sl_traffic t = {x + (double)s->cols * es, x + 4.0 * (double)s->rows, 2, 2};
    if (132.0 * 8.0 * (double)s->cols * es > (double)(30u << 20))
        t.rd_bytes += x;
    return t;
}

#define RMS_SRC "issue 32"
static const sl_variant variants[] = {
    {.name = "copy", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "copy kernel of x into y (16-byte vectors, copy's vec rung): the copy ceiling of the same bytes",
     .source = "issue 32; DESIGN.md (the ceiling is a kernel, not cudaMemcpy)", .launch = SL_CUDA_FN(sl_cuda_norm_copy),
     .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4, .insts_per_elem = 2},
    {.name = "naive", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "one thread per row, scalar loads (uncoalesced), compensated sum, two passes",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_naive), .moved = moved_2, .loads_in_flight = 1,
     .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 12},
    {.name = "block", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block per row, coalesced scalar loads, warp-shuffle + shared-memory reduction, two passes",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_block), .moved = moved_2, .loads_in_flight = 1,
     .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 10},
    {.name = "regs", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "row in registers, read once, 16-byte vectors: a warp per row (8 rows a block) for short rows, a "
                  "block, or a cluster of 2-8 blocks summing through distributed shared memory",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_regs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 4},
    {.name = "regs_pf", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs, persistent, the next row's vectors loaded before this row's reduction; >= 4 vectors a "
                  "thread (blocks of 128-512, clusters of 512)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_regs_pf), .static_partition = true,
     .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 32, .insts_per_elem = 4},
    {.name = "regs_1k", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs with rows of 257-8192 vectors in one block of 1024 threads (2-8 vectors a thread), no "
                  "cluster (issue 32, second session)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_regs_1k), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 4},
    {.name = "lean", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "regs' teams with one block barrier a team sum (one cluster barrier a row, the cluster's last "
                  "wait deferred to the exit) and a register cap for occupancy (6 blocks of 256 a SM at 2 vectors "
                  "a thread, 4 at 4-8) (issue 32, third session)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_lean), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 4},
    {.name = "lean4", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "lean's team sums with 4 vectors a thread beyond the warp teams: a block of 128-1024 per row, "
                  "then clusters of 4-8 blocks of 512; 64 registers (issue 32, third session)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_lean4), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 4},
    {.name = "decode", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "lean's teams for rows of up to 1024 vectors with w loaded beside x, before the team sum: one "
                  "DRAM round trip on the critical path where the rows are few and L2 is cold (issue 32)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_decode), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 4},
    {.name = "aligned", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "lean4's blocks up to 4096 vectors, lean's clusters beyond, for aligned rows: whole 16-byte "
                  "vectors without the edge masks (issue 32)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_aligned), .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 4},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "the row staged in shared memory by bulk copies (cp.async.bulk, sm_90), read once from DRAM: chunks "
                  "of <= 64 KiB, a cluster of 1-8 blocks of 512 a row (sums through distributed shared memory), three "
                  "blocks an SM; y from shared memory; aligned rows only (issue 32, seventh session)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bulk), .attrs = SL_CUDA_FN(sl_cuda_rmsnorm_bulk_attrs),
     .loads_in_flight = 8, .access_bytes = 16, .elems_per_thread = 64, .insts_per_elem = 4},
    {.name = "bulk_ex", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "one-sided cluster exchange (each warp's partial st.async into every cluster CTA's slots, one "
                  "mbarrier wait; no bar.sync or cluster barrier in a row) and quack's granularity: blocks of 256, 32 "
                  "KiB chunks, 6 blocks an SM, bulk copies; aligned rows only (issue 32, tenth session)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bulk_ex),
     .attrs = SL_CUDA_FN(sl_cuda_rmsnorm_bulk_ex_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 4},
    {.name = "bulk_ex512", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk's blocks of 512 and 64 KiB chunks (3 an SM) with the one-sided cluster exchange only; aligned "
                  "rows only (issue 32, tenth session)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bulk_ex512),
     .attrs = SL_CUDA_FN(sl_cuda_rmsnorm_bulk_ex512_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 4},
    {.name = "bulk_ex128", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_ex with blocks of 128 and 16 KiB chunks (12 blocks an SM); aligned rows only (issue 32, tenth "
                  "session)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bulk_ex128),
     .attrs = SL_CUDA_FN(sl_cuda_rmsnorm_bulk_ex128_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 4},
    {.name = "bulk_cp", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_ex with every thread's own 16-byte cp.async (no chunk-wide wait) instead of one thread's bulk "
                  "copies: quack's loads; aligned rows only (issue 32, tenth session)",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_bulk_cp),
     .attrs = SL_CUDA_FN(sl_cuda_rmsnorm_bulk_cp_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 64, .insts_per_elem = 4},
    {.name = "sl_rmsnorm_fwd", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_rmsnorm_fwd(): aligned rows of 257-512 vectors (up to 1024 at fewer rows than SMs) decode, "
                  "beyond 2048 vectors bulk_ex (16-bit) or bulk (sm_90), other aligned rows aligned; "
                  "else where x and y share their 16-byte offset and the row fits, regs for the warp teams (up to 256 "
                  "vectors), regs_pf for 2049-4096 vectors at >= 1024 rows, lean otherwise; else block",
     .source = RMS_SRC, .launch = SL_CUDA_FN(sl_cuda_rmsnorm_api), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 4},
    SL_EW_CEILING_CPU,
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, row by row: fp64 sum of squares, f32 scale", .source = RMS_SRC, .launch = cpu_serial,
     .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: rows over the threads, each as serial", .source = RMS_SRC, .launch = cpu_omp,
     .elems_per_thread = 1},
    {.name = "sl_rmsnorm_fwd", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = RMS_SRC, .launch = cpu_omp,
     .elems_per_thread = 1},
};

const sl_op_desc sl_op_rmsnorm = {
    .id = SL_OP_RMSNORM,
    .name = "rmsnorm",
    .api = "sl_rmsnorm_fwd",
    .formula = "rstd[r] = 1 / sqrt(mean_j x[r,j]^2 + eps), y[r,j] = x[r,j] rstd[r] w[j]",
    .source = "issue 32 (Zhang and Sennrich, \"Root Mean Square Layer Normalization\", NeurIPS 2019)",
    .numerics = "f32 (16-bit storage widened): sum of squares in f32 (fp64 on the CPU), rsqrtf, y = (x rstd) w; "
                "within 64 x 2^-24 relative of the fp64 reference (+1 ulp of a 16-bit dtype); rstd in f32",
    .rank = 2,
    .nbufs = 4,
    .bufs = {{"x", SL_ROLE_IN, false, false},
             {"w", SL_ROLE_IN, false, false},
             {"y", SL_ROLE_OUT, false, false},
             {"rstd", SL_ROLE_OUT, false, SL_BUF_F32}},
    .nscalars = 1,
    .scalars = {{"eps", 1e-6}},
    .dtypes = SL_RMSNORM_DTYPES,
    .flops_per_elem = 4, /* square, add, two multiplies */
    .fma = false,
    .tol = {SL_TOL_REL, RMS_ULPS},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
    .default_shapes = "4096x1024,4096x4096,1024x16384,256x65536,1x4096,64x4096",
    .buf_elems = buf_elems,
    .ref_whole = true,
};

sl_status sl_norm_check(const sl_args *a, int wbuf, const char *op, const char *who)
{
    if (!((SL_RMSNORM_DTYPES >> a->dtype) & 1u))
        return sl_fail(SL_ERR_UNSUPPORTED, "%s %s: offered in f32, f16 and bf16, not %s", op, who,
                       sl_dtype_name(a->dtype));
    (void)wbuf; /* w is the rows' dtype or f32 by construction (f32_bufs) */
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if (ld < a->shape.cols)
        return sl_fail(SL_ERR_INVALID_ARG, "%s %s: leading dimension %llu below cols %llu", op, who,
                       (unsigned long long)ld, (unsigned long long)a->shape.cols);
    return SL_OK;
}

/* w_dtype: dtype or SL_F32. */
static sl_status norm_wdt(sl_dtype dtype, sl_dtype w_dtype, const char *fn)
{
    if (w_dtype != dtype && w_dtype != SL_F32)
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: w_dtype %s: the weight is in x's dtype (%s) or f32", fn,
                       sl_dtype_name(w_dtype), sl_dtype_name(dtype));
    return SL_OK;
}

sl_status sl_rmsnorm_fwd(sl_ctx *ctx, sl_dtype dtype, sl_dtype w_dtype, size_t rows, size_t cols, const void *x,
                         const void *w, double eps, void *y, float *rstd, void *stream)
{
    sl_status st = norm_wdt(dtype, w_dtype, "sl_rmsnorm_fwd");
    if (st != SL_OK)
        return st;
    if (!(eps > 0.0) || eps > 3.0e38)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_rmsnorm_fwd: eps = %g: a positive finite f32 is needed", eps);
    const sl_shape s = sl_shape_2d(rows, cols);
    void *const ptrs[] = {(void *)x, (void *)w, y, rstd};
    const sl_call_opts o = {.f32_bufs = w_dtype == SL_F32 ? 1u << SL_RMS_W : 0u};
    return sl_op_call_opts(ctx, &sl_op_rmsnorm, dtype, &s, ptrs, &eps, &o, stream);
}
