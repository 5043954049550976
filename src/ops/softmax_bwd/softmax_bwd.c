/*
 * softmax_bwd.c - the softmax backward op, dx[r, j] = y[r, j] (dy[r, j] -
 * sum_k dy[r, k] y[r, k]) over each row of row-major rows x cols matrices
 * (issue 33): the gradient of a loss with respect to softmax's input x,
 * given y = softmax(x) and dy, the gradient with respect to y. Its
 * descriptor, its fp64 reference, its CPU rungs, its variant table and
 * the public sl_softmax_bwd().
 */
#include "softmax_bwd.h"

#include "dtype_conv.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* ---- the reference: fp64 ------------------------------------------------------
 * Rows [lo, hi) (the harness calls it once over every row: ref_whole, so
 * that the tolerance's scale below comes back), widened exactly to fp64,
 * the formula as written: s = sum_k dy_k y_k, dx_j = y_j (dy_j - s),
 * rounded once into the output dtype. Rows are spread over OpenMP threads.
 *
 * The tolerance (SL_TOL_REDUCTION, op.h): a rung's error in dx_j is
 * |y_j| |error of s| plus the roundings of the subtraction, the product
 * and the store. The first is at most |y_j| L u sum_k |y_k dy_k|
 * (Higham 2002, section 4.2); the second a few ulps of dx_j (`ulps` = 2).
 * One scale per launch bounds the first over every element:
 * a->scale = max over rows of (max_j |y_j|) sum_k |y_k dy_k|. */
static void reference(sl_ref_args *r)
{
    const uint64_t n = r->shape.cols, ld = r->shape.ld ? r->shape.ld : n;
    const size_t es = sl_dtype_size(r->dtype), oes = sl_dtype_size(r->out_dtype);
    const long long rows = (long long)(r->hi - r->lo);
    double scale = 0.0;
#pragma omp parallel for schedule(static) reduction(max : scale)
    for (long long i = 0; i < rows; i++) {
        const unsigned char *y = (const unsigned char *)r->in[0] + (uint64_t)i * ld * es;
        const unsigned char *dy = (const unsigned char *)r->in[1] + (uint64_t)i * ld * es;
        unsigned char *dx = (unsigned char *)r->out[2] + (uint64_t)i * ld * oes;
        double s = 0.0, mag = 0.0, ymax = 0.0;
        for (uint64_t j = 0; j < n; j++) {
            const double a = sl_dtype_load_f64(r->dtype, y, j), b = sl_dtype_load_f64(r->dtype, dy, j);
            s += a * b;
            mag += fabs(a * b);
            ymax = fmax(ymax, fabs(a));
        }
        for (uint64_t j = 0; j < n; j++) {
            const double a = sl_dtype_load_f64(r->dtype, y, j), b = sl_dtype_load_f64(r->dtype, dy, j);
            sl_dtype_store_f64(r->out_dtype, dx, j, a * (b - s));
        }
        const double row_scale = ymax * mag;
        if (row_scale > scale)
            scale = row_scale;
    }
    r->scale = scale;
}

/* ---- the CPU rungs -----------------------------------------------------------
 * Per row: s accumulated in fp64 over exact fp64 products (a double holds
 * the product of two f32 exactly), then dx_j = y_j (dy_j - s) in fp64,
 * rounded once into the dtype; f32 rows by pointer, 16-bit rows widened
 * and narrowed per element. Safe in place (dx = dy or dx = y): a row is
 * read whole before any of it is written, by one thread. */
static void cpu_row(const sl_args *a, uint64_t r)
{
    const uint64_t n = a->shape.cols, ld = a->shape.ld ? a->shape.ld : n;
    const size_t es = sl_dtype_size(a->dtype);
    const size_t off = (size_t)(r * ld * es);
    const unsigned char *yb = (const unsigned char *)a->buf[0] + off, *gb = (const unsigned char *)a->buf[1] + off;
    unsigned char *db = (unsigned char *)a->buf[2] + off;
    if (a->dtype == SL_F32) {
        const float *y = (const float *)yb, *g = (const float *)gb;
        float *d = (float *)db;
        double s = 0.0;
        for (uint64_t j = 0; j < n; j++)
            s += (double)y[j] * (double)g[j];
        for (uint64_t j = 0; j < n; j++)
            d[j] = (float)((double)y[j] * ((double)g[j] - s));
        return;
    }
    double s = 0.0;
    for (uint64_t j = 0; j < n; j++)
        s += (double)sl_dtype_load(a->dtype, yb, j) * (double)sl_dtype_load(a->dtype, gb, j);
    for (uint64_t j = 0; j < n; j++) {
        const double y = sl_dtype_load(a->dtype, yb, j), g = sl_dtype_load(a->dtype, gb, j);
        sl_dtype_store_f64(a->dtype, db, j, y * (g - s));
    }
}

static sl_status cpu_check(const sl_args *a)
{
    if (!((SL_SOFTMAX_BWD_DTYPES >> a->dtype) & 1u))
        return sl_fail(SL_ERR_UNSUPPORTED, "softmax_bwd: offered in f32, f16 and bf16, not %s",
                       sl_dtype_name(a->dtype));
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if (ld < a->shape.cols)
        return sl_fail(SL_ERR_INVALID_ARG, "softmax_bwd: leading dimension %llu below cols %llu",
                       (unsigned long long)ld, (unsigned long long)a->shape.cols);
    return SL_OK;
}

static sl_status cpu_serial(const sl_args *a)
{
    sl_status st = cpu_check(a);
    if (st == SL_OK)
        sl_cpu_rows(a, cpu_row, false);
    return st;
}

static sl_status cpu_omp(const sl_args *a)
{
    sl_status st = cpu_check(a);
    if (st == SL_OK)
        sl_cpu_rows(a, cpu_row, true);
    return st;
}

/* ---- what each rung moves through DRAM (the model's bytes) --------------------
 * Useful: y and dy read once, dx written once. The two-pass rungs read y
 * and dy twice; the second read comes from L2 while the rows in flight
 * (132 SMs x 2 blocks x 2 rows of cols x size) fit in about half of the
 * 60 MiB L2, from DRAM beyond. */
static sl_traffic moved_twopass(const sl_shape *s, sl_dtype dt)
{
    const double es = (double)sl_dtype_size(dt), bytes = (double)s->rows * (double)s->cols * es;
    const double in_flight = 132.0 * 2.0 * 2.0 * (double)s->cols * es;
    sl_traffic t = {2 * bytes, bytes, 2, 1};
    if (in_flight > (double)(30u << 20))
        t.rd_bytes = 4 * bytes;
    return t;
}

/* ---- the rungs ------------------------------------------------------------- */

/* The GPU rungs' sums: each thread adds its columns in order, then a warp
 * or block tree; P = 32 (a warp per row, the fewest partial sums any of
 * them forms) and 3 more roundings bound every rung's longest chain,
 * ceil(n / 32) + 9: for 16-bit rows of 16-255 columns a vector rung's
 * thread holds one vector, and the warp butterfly, the block tree and the
 * cluster's fold are up to 3 levels deeper than log2 32 + 1 (the
 * thirteenth session's review; docs/ladder.md, "Tolerances"). */
#define SBWD_GPU_SUM .acc = SL_F32, .partials = 32, .chain_extra = 3
#define SBWD_SRC "issue 33; softmax's ladder (seed 002)"
static const sl_variant variants[] = {
    {.name = "copy_k", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "copy kernel: y into dx, 16-byte loads and stores, 4 in flight a thread (the ceiling)",
     .source = "issue 33", .launch = SL_CUDA_FN(sl_cuda_ceiling_copy_kernel), .loads_in_flight = 4,
     .access_bytes = 16, .elems_per_thread = 16, .insts_per_elem = 1},
    {.name = "twopass", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block per row, coalesced scalar loads, warp-shuffle block sum, second pass re-reads y and dy",
     .source = SBWD_SRC, .launch = SL_CUDA_FN(sl_cuda_softmax_bwd_twopass),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_bwd_twopass_attrs), SBWD_GPU_SUM, .moved = moved_twopass,
     .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 10},
    {.name = "vec", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "as twopass with 16-byte vectorized loads and stores, 4 vectors of y and of dy in flight",
     .source = SBWD_SRC, .launch = SL_CUDA_FN(sl_cuda_softmax_bwd_vec),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_bwd_vec_attrs), SBWD_GPU_SUM, .moved = moved_twopass,
     .loads_in_flight = 4, .access_bytes = 16, .elems_per_thread = 16, .insts_per_elem = 5},
    {.name = "regs", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "row of y and dy in registers, read once: a warp, a block, or a cluster of 2-8 blocks adding "
                  "their sums through distributed shared memory",
     .source = "ours (issue 33)", .launch = SL_CUDA_FN(sl_cuda_softmax_bwd_regs),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_bwd_regs_attrs), SBWD_GPU_SUM, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 16, .insts_per_elem = 4},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "row of y and dy staged in shared memory by bulk copies (cp.async.bulk), read once: chunks of <= 2 x "
                  "36 KiB, a cluster of 1-8 blocks of 512 a row adding their sums through distributed shared memory",
     .source = "ours (issue 33)", .launch = SL_CUDA_FN(sl_cuda_softmax_bwd_bulk),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_bwd_bulk_attrs), SBWD_GPU_SUM, .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 4},
    {.name = "bulk_ex", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk with the one-sided cluster exchange: blocks of 256 on chunks of 2 x 16 KiB (six an SM; "
                  "longer rows <= 2 x 64 KiB, a cluster of 16 where eight chunks leave one block an SM), an mbarrier "
                  "a piece, each warp's sum posted to every CTA by st.async, no block or cluster barrier",
     .source = "ours (issue 33)", .launch = SL_CUDA_FN(sl_cuda_softmax_bwd_bulk_ex),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_bwd_bulk_ex_attrs), SBWD_GPU_SUM, .loads_in_flight = 8,
     .access_bytes = 16, .elems_per_thread = 32, .insts_per_elem = 4},
    {.name = "sl_softmax_bwd", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_softmax_bwd(): f32 rows under 128 KiB regs where the row fits a cluster's registers; "
                  "then bulk_ex where the row fits; else regs, then vec",
     .source = "issue 33", .launch = SL_CUDA_FN(sl_cuda_softmax_bwd_api), SBWD_GPU_SUM, .loads_in_flight = 8,
     .access_bytes = 16, .elems_per_thread = 16, .insts_per_elem = 4},
    SL_EW_CEILING_CPU,
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, row by row: fp64 sum of exact products, then dx in fp64 rounded once",
     .source = "issue 33", .launch = cpu_serial, .acc = SL_F64, .partials = 1, .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: rows over the threads, each as serial", .source = "issue 33", .launch = cpu_omp,
     .acc = SL_F64, .partials = 1, .elems_per_thread = 1},
    {.name = "sl_softmax_bwd", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = "issue 33", .launch = cpu_omp,
     .acc = SL_F64, .partials = 1, .elems_per_thread = 1},
};

const sl_op_desc sl_op_softmax_bwd = {
    .id = SL_OP_SOFTMAX_BWD,
    .name = "softmax_bwd",
    .formula = "dx[r,j] = y[r,j] (dy[r,j] - sum_k dy[r,k] y[r,k])",
    .source = "issue 33: the gradient of softmax (y = softmax(x)) from dy",
    .numerics = "f32 (16-bit storage widened): s = sum y dy in f32 (fp64 on the CPU), dx = y (dy - s), rounded "
                "once; |err| <= 2 ulp(dx) + L 2^-24 max|y| sum|y dy| (SL_TOL_REDUCTION, L from the row length)",
    .rank = 2,
    .nbufs = 3,
    /* y: probabilities, [2^-18, 2^-2) (op.h, scale_log2) */
    .bufs = {{"y", SL_ROLE_IN, false, SL_BUF_DATA, -10}, {"dy", SL_ROLE_IN, false}, {"dx", SL_ROLE_OUT, false}},
    .dtypes = SL_SOFTMAX_BWD_DTYPES,
    .flops_per_elem = 4, /* multiply-add into s, subtract, multiply */
    .fma = false,
    .tol = {SL_TOL_REDUCTION, 2},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
    .default_shapes = "128x2^10,128x2^12,128x2^15,128x2^17",
    .ref_whole = true,
};

sl_status sl_softmax_bwd(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *y, const void *dy,
                         void *dx, void *stream)
{
    const sl_shape s = sl_shape_2d(rows, cols);
    void *const ptrs[] = {(void *)y, (void *)dy, dx};
    return sl_op_call_shape(ctx, &sl_op_softmax_bwd, dtype, &s, ptrs, NULL, stream);
}
