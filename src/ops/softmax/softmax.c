/*
 * softmax.c - the softmax op, y[r, j] = exp(x[r, j] - max_r) / sum_j
 * exp(x[r, j] - max_r) over each row of a row-major rows x cols matrix
 * (seed 002, the softmax ladder; issue 18): its descriptor, its fp64
 * reference, its CPU rungs, its variant table and the public sl_softmax().
 */
#include "softmax.h"

#include "dtype_conv.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* ---- the reference: fp64 ------------------------------------------------------
 * Rows [lo, hi), widened exactly to fp64, the formula as written: m the row
 * maximum (comparisons skip a NaN; it still reaches the sum), s = sum
 * exp(x - m), y = exp(x - m) / s, rounded once into the output dtype. The
 * special rows follow from IEEE arithmetic: a NaN or a +inf makes the row
 * NaN, a row of -inf is NaN (-inf - -inf), -inf columns of a finite row 0.
 * in[0] / out[1] point at row lo. */
static void reference(sl_ref_args *r)
{
    const uint64_t n = r->shape.cols, ld = r->shape.ld ? r->shape.ld : n;
    const size_t es = sl_dtype_size(r->dtype), oes = sl_dtype_size(r->out_dtype);
    for (uint64_t i = 0; i < r->hi - r->lo; i++) {
        const unsigned char *x = (const unsigned char *)r->in[0] + i * ld * es;
        unsigned char *y = (unsigned char *)r->out[1] + i * ld * oes;
        double m = -INFINITY;
        for (uint64_t j = 0; j < n; j++) {
            const double v = sl_dtype_load_f64(r->dtype, x, j);
            if (v > m)
                m = v;
        }
        double s = 0.0;
        for (uint64_t j = 0; j < n; j++)
            s += exp(sl_dtype_load_f64(r->dtype, x, j) - m);
        for (uint64_t j = 0; j < n; j++)
            sl_dtype_store_f64(r->out_dtype, y, j, exp(sl_dtype_load_f64(r->dtype, x, j) - m) / s);
    }
}

/* ---- the CPU rungs -----------------------------------------------------------
 * f32 arithmetic as the GPU rungs do it (fmaxf, expf, y = e (1 / s)), but
 * the sum in fp64: one thread adds a whole row in order, and an f32 sum
 * of 2^17 terms would drift past the 16 x 2^-24 bound. Three passes (max,
 * sum, write), each element read by the thread that writes it: safe in
 * place. 16-bit dtypes widen and narrow per element. */
static void cpu_row(const sl_args *a, uint64_t r)
{
    const uint64_t n = a->shape.cols, ld = a->shape.ld ? a->shape.ld : n;
    const size_t es = sl_dtype_size(a->dtype);
    const unsigned char *xb = (const unsigned char *)a->buf[0] + r * ld * es;
    unsigned char *yb = (unsigned char *)a->buf[1] + r * ld * es;
    if (a->dtype == SL_F32) {
        const float *x = (const float *)xb;
        float *y = (float *)yb;
        float m = -INFINITY;
        for (uint64_t j = 0; j < n; j++)
            m = fmaxf(m, x[j]);
        double s = 0.0;
        for (uint64_t j = 0; j < n; j++)
            s += expf(x[j] - m);
        const float inv = (float)(1.0 / s);
        for (uint64_t j = 0; j < n; j++)
            y[j] = expf(x[j] - m) * inv;
        return;
    }
    float m = -INFINITY;
    for (uint64_t j = 0; j < n; j++)
        m = fmaxf(m, sl_dtype_load(a->dtype, xb, j));
    double s = 0.0;
    for (uint64_t j = 0; j < n; j++)
        s += expf(sl_dtype_load(a->dtype, xb, j) - m);
    const float inv = (float)(1.0 / s);
    for (uint64_t j = 0; j < n; j++)
        sl_dtype_store(a->dtype, yb, j, expf(sl_dtype_load(a->dtype, xb, j) - m) * inv);
}

static sl_status cpu_softmax_serial(const sl_args *a)
{
    sl_cpu_rows(a, cpu_row, false);
    return SL_OK;
}

/* Rows spread over the OpenMP threads (static schedule). */
static sl_status cpu_softmax_omp(const sl_args *a)
{
    sl_cpu_rows(a, cpu_row, true);
    return SL_OK;
}

/* ---- what each rung moves through DRAM (the model's bytes) --------------------
 * The useful traffic is one read and one write of the matrix. The seed's
 * block-per-row rungs read x three times (max, sum, write pass), the
 * online rung twice; the re-reads come from L2 while the rows in flight
 * (one per SM, 132 on the H200) fit in about half of its 60 MiB, and from
 * DRAM beyond (rows of more than 2^15 f32 columns). regs reads once. */
static sl_traffic moved_passes(const sl_shape *s, sl_dtype dt, int passes)
{
    const double es = (double)sl_dtype_size(dt), bytes = (double)s->rows * (double)s->cols * es;
    const double in_flight = 132.0 * (double)s->cols * es;
    sl_traffic t = {bytes, bytes, 1, 1};
    if (in_flight > (double)(30u << 20))
        t.rd_bytes = passes * bytes;
    return t;
}

static sl_traffic moved_3(const sl_shape *s, sl_dtype dt)
{
    return moved_passes(s, dt, 3);
}

static sl_traffic moved_2(const sl_shape *s, sl_dtype dt)
{
    return moved_passes(s, dt, 2);
}

/* ---- the rungs ------------------------------------------------------------- */

#define SMX_SRC "seed 002, softmax ladder"
static const sl_variant variants[] = {
    SL_EW_CEILING_CUDA,
    /* after `copy`, so that the % of copy column keeps cudaMemcpy; issue 33
     * quotes softmax against this one (bench/softmax_bulk_h200.sh) */
    {.name = "copy_k", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING, .copy = true,
     .technique = "copy kernel: x into y, 16-byte loads and stores, 4 in flight a thread (issue 33's ceiling)",
     .source = "issue 33", .launch = SL_CUDA_FN(sl_cuda_ceiling_copy_kernel), .loads_in_flight = 4,
     .access_bytes = 16, .elems_per_thread = 16, .insts_per_elem = 1},
    {.name = "cudnn", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cuDNN cudnnSoftmaxForward, ACCURATE, INSTANCE mode (its own exp and summation order)",
     .source = "issue 18; cuDNN API reference", .launch = SL_CUDA_FN(sl_cuda_softmax_cudnn), .ulps = 64,
     .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4, .insts_per_elem = 8},
    {.name = "naive", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "one thread per output, rescanning its row (2 N loads each; M N^2 <= 2^32)",
     .source = SMX_SRC ", \"Recalling our own softmax\"", .launch = SL_CUDA_FN(sl_cuda_softmax_naive),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_naive_attrs), .loads_in_flight = 1, .access_bytes = 4,
     .elems_per_thread = 1, .insts_per_elem = 20},
    {.name = "smem", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block per row, contiguous chunk per thread (uncoalesced), shared-memory tree, 3 passes",
     .source = SMX_SRC ", \"Reduce\"", .launch = SL_CUDA_FN(sl_cuda_softmax_smem),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_smem_attrs), .moved = moved_3, .loads_in_flight = 1, .access_bytes = 4,
     .elems_per_thread = 1, .insts_per_elem = 16},
    {.name = "coalesced", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block per row, block-strided (coalesced) loads, shared-memory tree, 3 passes",
     .source = SMX_SRC ", \"Coalescing\"", .launch = SL_CUDA_FN(sl_cuda_softmax_coalesced),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_coalesced_attrs), .moved = moved_3, .loads_in_flight = 1, .access_bytes = 4,
     .elems_per_thread = 1, .insts_per_elem = 14},
    {.name = "shuffle", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block per row, coalesced, warp-shuffle (__shfl_xor_sync) reductions, 3 passes",
     .source = SMX_SRC ", \"Registers\"", .launch = SL_CUDA_FN(sl_cuda_softmax_shuffle),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_shuffle_attrs), .moved = moved_3, .loads_in_flight = 1, .access_bytes = 4,
     .elems_per_thread = 1, .insts_per_elem = 12},
    {.name = "vec", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "as shuffle with 16-byte vectorized loads and stores, masked head and tail, 3 passes",
     .source = SMX_SRC ", \"float4\"", .launch = SL_CUDA_FN(sl_cuda_softmax_vec),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_vec_attrs), .moved = moved_3, .loads_in_flight = 1, .access_bytes = 16,
     .elems_per_thread = 4, .insts_per_elem = 8},
    {.name = "unroll", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "as vec with 4 independent 16-byte loads in flight per thread (ILP 4), 3 passes",
     .source = SMX_SRC ", \"Fine-tuned Unrolling\"", .launch = SL_CUDA_FN(sl_cuda_softmax_unroll),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_unroll_attrs), .moved = moved_3, .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 16, .insts_per_elem = 7},
    {.name = "online", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "online softmax: one read pass carrying (max, sum), merged warp combine, then the write pass",
     .source = SMX_SRC ", \"Online Normalization\"; Milakov and Gimelshein 2018",
     .launch = SL_CUDA_FN(sl_cuda_softmax_online), .attrs = SL_CUDA_FN(sl_cuda_softmax_online_attrs), .moved = moved_2,
     .loads_in_flight = 4, .access_bytes = 16, .elems_per_thread = 16, .insts_per_elem = 8},
    {.name = "regs", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "row in registers, read once: warp per row (N <= 1024), block per row (N <= 2^15), or a "
                  "cluster of 2-8 blocks exchanging (max, sum) once through distributed shared memory",
     .source = "ours (issue 18)", .launch = SL_CUDA_FN(sl_cuda_softmax_regs),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_regs_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    {.name = "regs_cl", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "as regs, but rows over 2^12 split over clusters of 256-thread blocks until the rows fill the SMs",
     .source = "ours (issue 18)", .launch = SL_CUDA_FN(sl_cuda_softmax_regs_cl),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_regs_cl_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "row staged in shared memory by bulk copies (cp.async.bulk, 16 KiB pieces on their own mbarriers), "
                  "read once: chunks of <= 72 KiB, a cluster of 1-8 blocks of 512 a row (split further while the rows "
                  "leave SMs idle), one online (max, sum) sweep, the exchange through distributed shared memory",
     .source = "ours (issue 33)", .launch = SL_CUDA_FN(sl_cuda_softmax_bulk),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_bulk_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 10},
    {.name = "bulk_ex", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk with the one-sided cluster exchange: each warp's (max, sum) stored into every cluster CTA's "
                  "slots by st.async (completing its mbarrier), one wait, the slots folded in a fixed order; no "
                  "bar.sync or cluster barrier in a row's path; blocks of 256 with 32 KiB chunks (up to 72 KiB "
                  "beyond 8 x 32 KiB), six an SM",
     .source = "ours (issue 33)", .launch = SL_CUDA_FN(sl_cuda_softmax_bulk_ex),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_bulk_ex_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 10},
    {.name = "bulk_ex512", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk_ex's one-sided exchange at bulk's granularity: blocks of 512, chunks of <= 72 KiB",
     .source = "ours (issue 33)", .launch = SL_CUDA_FN(sl_cuda_softmax_bulk_ex512),
     .attrs = SL_CUDA_FN(sl_cuda_softmax_bulk_ex512_attrs), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 10},
    {.name = "sl_softmax", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_softmax(): bulk_ex for 16-bit rows of 128 KiB and more and f32 rows over 128 KiB, where "
                  "it fits (sm_90, 16-byte aligned), else regs where the row fits a cluster's registers, else online",
     .source = "issue 18", .launch = SL_CUDA_FN(sl_cuda_softmax_api), .loads_in_flight = 8, .access_bytes = 16,
     .elems_per_thread = 32, .insts_per_elem = 5},
    SL_EW_CEILING_CPU,
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, row by row: max, fp64 sum of expf, write", .source = "seed 002 (CPU vs GPU)",
     .launch = cpu_softmax_serial, .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: rows over the threads, each as serial", .source = "issue 18", .launch = cpu_softmax_omp,
     .elems_per_thread = 1},
    {.name = "sl_softmax", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = "issue 18",
     .launch = cpu_softmax_omp, .elems_per_thread = 1},
};

const sl_op_desc sl_op_softmax = {
    .id = SL_OP_SOFTMAX,
    .name = "softmax",
    .formula = "y[r,j] = exp(x[r,j] - max_r) / sum_j exp(x[r,j] - max_r)",
    .source = "seed 002: the softmax ladder (issue 18)",
    .numerics = "f32 (16-bit storage widened): max subtracted, expf of the rounded x - m (ex2.approx for 16-bit "
                "storage in regs), f32 sum (fp64 on the CPU), y = e (1 / s); within (16 + ln(1/|y|) + ln n) x 2^-24 "
                "relative of the fp64 reference + 2^-126 (+1 ulp of a 16-bit dtype), n = cols",
    .rank = 2,
    .nbufs = 2,
    .bufs = {{"x", SL_ROLE_IN, false}, {"y", SL_ROLE_OUT, false}},
    .dtypes = SL_SOFTMAX_DTYPES,
    .flops_per_elem = 5, /* max, subtract, exp, add, multiply: seed 002's count */
    .fma = false,
    .tol = {SL_TOL_REL, 16, true}, /* + ln(1 / |want|) + ln(cols): api.h derives it (issue 25) */
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
    .default_shapes = "128x2^10,128x2^11,128x2^12,128x2^13,128x2^14,128x2^15,128x2^16,128x2^17",
};

sl_status sl_softmax(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *x, void *y, void *stream)
{
    const sl_shape s = sl_shape_2d(rows, cols);
    void *const ptrs[] = {(void *)x, y};
    return sl_op_call_shape(ctx, &sl_op_softmax, dtype, &s, ptrs, NULL, stream);
}
