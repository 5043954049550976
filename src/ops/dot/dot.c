/*
 * dot.c - the dot op, r = sum a[i] b[i] (STREAM's successors' Dot;
 * BabelStream 5.0): its descriptor, its reference, its CPU rungs, its
 * variant table and the public sl_dot().
 */
#include "dot.h"

#include "dtype_conv.h"

#include <math.h>
#include <omp.h>
#include <string.h>

/* ---- the reference: Dot2, twice the working precision ---------------------
 * Ogita, Rump and Oishi, "Accurate sum and dot product" (SIAM J. Sci.
 * Comput. 26(6), 2005): TwoProduct by fma (their Algorithm 3.5 with an
 * fma), TwoSum (Knuth; their Algorithm 3.1), Dot2 (their Algorithm 5.3).
 * The result is as accurate as if computed in fp128-like precision and then
 * rounded to fp64, so it can judge a kernel summing in fp64. acc[0] is the
 * running sum, acc[1] the running error, acc[2] sum|a b| (for the
 * tolerance), carried from chunk to chunk in order. */
static void reference(sl_ref_args *r)
{
    const size_t m = (size_t)(r->hi - r->lo);
    double s = r->acc[0], c = r->acc[1], mag = r->acc[2];
    for (size_t i = 0; i < m; i++) {
        const double x = sl_dtype_load_f64(r->dtype, r->in[0], i), y = sl_dtype_load_f64(r->dtype, r->in[1], i);
        const double p = x * y, pe = fma(x, y, -p); /* TwoProduct: p + pe == x y exactly */
        const double t = s + p, z = t - s, se = (s - (t - z)) + (p - z); /* TwoSum: t + se == s + p */
        s = t;
        c += pe + se;
        mag += fabs(p);
    }
    r->acc[0] = s;
    r->acc[1] = c;
    r->acc[2] = mag;
    if (r->last) {
        sl_dtype_store_f64(r->out_dtype, r->out[2], 0, s + c);
        r->scale = mag;
    }
}

/* ---- the CPU rungs: fp64 partial sums ------------------------------------ */

static double dot_range(const sl_args *x, size_t lo, size_t hi)
{
    double s = 0.0;
    if (x->dtype == SL_F64) {
        const double *a = x->buf[0], *b = x->buf[1];
#pragma omp simd reduction(+ : s)
        for (size_t i = lo; i < hi; i++)
            s += a[i] * b[i];
    } else {
        const float *a = x->buf[0], *b = x->buf[1];
#pragma omp simd reduction(+ : s)
        for (size_t i = lo; i < hi; i++)
            s += (double)a[i] * (double)b[i];
    }
    return s;
}

static sl_status cpu_dot_serial(const sl_args *x)
{
    sl_dtype_store_f64(x->dtype, x->buf[2], 0, dot_range(x, 0, x->n));
    return SL_OK;
}

/* One fp64 partial per thread over its static share, combined in thread
 * order: deterministic for a given thread count. */
static sl_status cpu_dot_omp(const sl_args *x)
{
    double part[256] = {0};
    int used = 0;
#pragma omp parallel num_threads(omp_get_max_threads() < 256 ? omp_get_max_threads() : 256)
    {
        size_t lo, hi;
        sl_cpu_share_elems(x->n, sl_dtype_size(x->dtype), &lo, &hi);
        part[omp_get_thread_num()] = dot_range(x, lo, hi);
#pragma omp single
        used = omp_get_num_threads();
    }
    double s = 0.0;
    for (int t = 0; t < used; t++)
        s += part[t];
    sl_dtype_store_f64(x->dtype, x->buf[2], 0, s);
    return SL_OK;
}

static size_t dot_workspace(sl_dtype dt, uint64_t n)
{
    (void)dt;
    (void)n;
    return SL_DOT_WORKSPACE;
}

/* ---- the rungs ------------------------------------------------------------ */

static const sl_variant variants[] = {
    {.name = "cub", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cub::DeviceReduce::TransformReduce, fp64 products and sum (two passes)",
     .source = "issue 10", .launch = SL_CUDA_FN(sl_cuda_dot_cub), .workspace = SL_CUDA_FN(sl_cuda_dot_cub_workspace),
     .acc = SL_F64, .partials = 4096, .ulps = 1, .loads_in_flight = 4, .access_bytes = 4, .elems_per_thread = 16,
     .insts_per_elem = 8},
    {.name = "cublas", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cuBLAS cublasSdot_64 / cublasDdot_64 (its own accumulation order and precision)",
     .source = "issue 10; DESIGN.md peers", .launch = SL_CUDA_FN(sl_cuda_dot_cublas), .acc = SL_F32, .partials = 1024,
     .ulps = 1, .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 8},
    {.name = "naive", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "grid-stride, one element per step, shared-memory tree per block, last block sums the partials",
     .source = "BabelStream 5.0 CUDA dot (block tree; its final sum is on the host)",
     .launch = SL_CUDA_FN(sl_cuda_dot_naive), .attrs = SL_CUDA_FN(sl_cuda_dot_naive_attrs), .workspace = dot_workspace,
     .acc = SL_F64, .partials = 4096, .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1,
     .insts_per_elem = 10},
    {.name = "vec", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "16-byte loads, persistent grid, warp-shuffle reduction, last block sums the partials",
     .source = "ours; seed 002 (warp shuffle), seed 004 (Little's law)", .launch = SL_CUDA_FN(sl_cuda_dot_vec),
     .attrs = SL_CUDA_FN(sl_cuda_dot_vec_attrs), .workspace = dot_workspace, .acc = SL_F64, .partials = 4096,
     .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4, .insts_per_elem = 4},
    {.name = "vec4", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "vec with 4 independent 16-byte loads per input per thread in flight (ILP 4)",
     .source = "ours; seed 000 (ILP), seed 004 (Little's law)", .launch = SL_CUDA_FN(sl_cuda_dot_vec4),
     .attrs = SL_CUDA_FN(sl_cuda_dot_vec4_attrs), .workspace = dot_workspace, .acc = SL_F64, .partials = 4096,
     .loads_in_flight = 4, .access_bytes = 16, .elems_per_thread = 16, .insts_per_elem = 3},
    {.name = "sl_dot", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_dot(): the vec4 rung", .source = "issue 10", .launch = SL_CUDA_FN(sl_cuda_dot_api),
     .workspace = dot_workspace, .acc = SL_F64, .partials = 4096, .loads_in_flight = 4, .access_bytes = 16,
     .elems_per_thread = 16, .insts_per_elem = 3},
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, in order, fp64 sum", .source = "seed 002 (CPU vs GPU)", .launch = cpu_dot_serial,
     .acc = SL_F64, .partials = 1, .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: an fp64 partial per thread (simd), combined in thread order", .source = "issue 10",
     .launch = cpu_dot_omp, .acc = SL_F64, .partials = 1, .elems_per_thread = 1},
    {.name = "sl_dot", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = "issue 10", .launch = cpu_dot_omp,
     .acc = SL_F64, .partials = 1, .elems_per_thread = 1},
};

const sl_op_desc sl_op_dot = {
    .id = SL_OP_DOT,
    .name = "dot",
    .formula = "r = sum a b",
    .source = "BabelStream 5.0: Dot (a reduction)",
    .numerics = "fp64 products and sum (f32 too), rounded once into the dtype; within the reduction bound",
    .rank = 1,
    .nbufs = 3,
    .bufs = {{"a", SL_ROLE_IN, false}, {"b", SL_ROLE_IN, false}, {"r", SL_ROLE_OUT, true}},
    .dtypes = SL_DOT_DTYPES,
    .flops_per_elem = 2,
    .fma = true,
    .tol = {SL_TOL_REDUCTION, 1},
    /* result must not overlap a or b, not even exactly (api.h): sl_dot
     * with result == a and n = 1 was accepted as "in place" (issue 25) */
    .no_inplace = true,
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
};

sl_status sl_dot(sl_ctx *ctx, sl_dtype dtype, size_t n, const void *a, const void *b, void *result, void *stream)
{
    void *const ptrs[] = {(void *)a, (void *)b, result};
    return sl_op_call(ctx, &sl_op_dot, dtype, n, ptrs, NULL, stream);
}
