/*
 * triad.c - the triad op, a = b + s c (STREAM (McCalpin) and BabelStream
 * 5.0: Triad): its descriptor, reference, CPU rungs, variant table and the
 * public sl_triad().
 */
#include "triad.h"

#include <math.h>

/* ---- the reference: one element at a time, in the compute type --------- */

static float ref_f32(const float *x, const float *s)
{
    return fmaf(s[0], x[1], x[0]);
}

static double ref_f64(const double *x, const double *s)
{
    return fma(s[0], x[1], x[0]);
}

static void reference(sl_ref_args *a)
{
    static const sl_ew_ref_fn fn = {ref_f32, ref_f64};
    sl_ew_reference(a, 2, sl_op_triad.nscalars, &fn);
}

/* ---- the CPU rungs ------------------------------------------------------- */

SL_CPU_EW_RUNGS(cpu_triad, 2, fmaf(s[0], x[1], x[0]), fma(s[0], x[1], x[0]))

/* ---- the rungs ------------------------------------------------------------ */

static const sl_variant variants[] = {
    SL_EW_CEILING_CUDA,
    {.name = "cub", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cub::DeviceTransform::Transform (CCCL; bulk copies on sm_90)", .source = "issue 10",
     .launch = SL_CUDA_FN(sl_cuda_triad_cub), .loads_in_flight = 3, .access_bytes = 4, .elems_per_thread = 3,
     .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 8},
    {.name = "naive", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .technique = "naive: one thread per element",
     .source = "seed 000 rung 1; BabelStream's CUDA Triad is this with 1024-thread blocks",
     .launch = SL_CUDA_FN(sl_cuda_triad_naive), .attrs = SL_CUDA_FN(sl_cuda_triad_naive_attrs), .loads_in_flight = 1,
     .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 12},
    {.name = "vec", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "one 16-byte vector per input per thread, aligned head and tail", .source = "add rung 3 (vec4)",
     .launch = SL_CUDA_FN(sl_cuda_triad_vec), .attrs = SL_CUDA_FN(sl_cuda_triad_vec_attrs), .loads_in_flight = 1,
     .access_bytes = 16, .elems_per_thread = 4, .insts_per_elem = 7},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "cp.async.bulk 4 KiB tiles to shared memory + mbarrier (sm_90)", .source = "add rung 8 (bulk)",
     .launch = SL_CUDA_FN(sl_cuda_triad_bulk), .attrs = SL_CUDA_FN(sl_cuda_triad_bulk_attrs), .loads_in_flight = 1,
     .access_bytes = 16, .elems_per_thread = 4, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
    {.name = "sl_triad", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_triad(): vec to L2/2, bulk beyond (sm_90+); any alignment", .source = "issue 10",
     .launch = SL_CUDA_FN(sl_cuda_triad_api), .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4,
     .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
    SL_EW_CEILING_CPU,
    SL_EW_CPU_RUNGS(cpu_triad, "sl_triad"),
};

const sl_op_desc sl_op_triad = {
    .id = SL_OP_TRIAD,
    .name = "triad",
    .formula = "a = b + s c",
    .source = "STREAM (McCalpin) and BabelStream 5.0: Triad",
    .numerics = "one fused multiply-add fma(s, c, b) in fp32 (fp64 for f64), one rounding: bit-exact",
    .rank = 1,
    .nbufs = 3,
    .bufs = {{"b", SL_ROLE_IN, false}, {"c", SL_ROLE_IN, false}, {"a", SL_ROLE_OUT, false}},
    .nscalars = 1,
    .scalars = {{"s", 0.4}},
    .dtypes = SL_TRIAD_DTYPES,
    .flops_per_elem = 2,
    .fma = true,
    .tol = {SL_TOL_EXACT, 0},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
};

sl_status sl_triad(sl_ctx *ctx, sl_dtype dtype, size_t n, double s, const void *b, const void *c, void *a,
                   void *stream)
{
    void *const ptrs[] = {(void *)b, (void *)c, a};
    const double sc[] = {s};
    return sl_op_call(ctx, &sl_op_triad, dtype, n, ptrs, sc, stream);
}
