/*
 * axpy.c - the axpy op, y = alpha x + y in place (seed 001, SAXPY and the
 * bf16 haxpy exercise): its descriptor, reference, CPU rungs, variant table
 * and the public sl_axpy().
 */
#include "axpy.h"

#include "dtype_conv.h"

#include <math.h>

/* ---- the reference: one fused multiply-add per element, one rounding ---- */

static float ref_f32(const float *x, const float *s)
{
    return fmaf(s[0], x[0], x[1]);
}

static double ref_f64(const double *x, const double *s)
{
    return fma(s[0], x[0], x[1]);
}

static void reference(sl_ref_args *a)
{
    static const sl_ew_ref_fn fn = {ref_f32, ref_f64};
    sl_ew_reference(a, 2, sl_op_axpy.nscalars, &fn);
}

/* ---- the CPU rungs ------------------------------------------------------- */

SL_CPU_EW_RUNGS(cpu_axpy, 2, fmaf(s[0], x[0], x[1]), fma(s[0], x[0], x[1]))

/* ---- the rungs ------------------------------------------------------------ */

#define S001 "seed 001, Part 2"

#define AXPY_RUNG(NAME, FN, WHAT, SRC, LIF, AB, EPT, INSTS)                                                       \
    {.name = NAME, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .technique = WHAT, .source = SRC,            \
     .launch = SL_CUDA_FN(FN), .attrs = SL_CUDA_FN(FN##_attrs), .loads_in_flight = LIF, .access_bytes = AB,       \
     .elems_per_thread = EPT, .insts_per_elem = INSTS}

static const sl_variant variants[] = {
    SL_EW_CEILING_CUDA,
    {.name = "cublas", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cuBLAS cublas{S,D}axpy_64 (f32, f64), cublasAxpyEx_64 with fp32 compute (f16, bf16)",
     .source = "issue 6; DESIGN.md peer table", .launch = SL_CUDA_FN(sl_cuda_axpy_cublas), .ulps = 1,
     .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 12},
    AXPY_RUNG("v1_naive", sl_cuda_axpy_v1_naive, "naive: one thread per element", S001 " 2.1 (saxpy)", 1, 4, 1, 19),
    AXPY_RUNG("v2_coarse", sl_cuda_axpy_v2_coarse, "thread coarsening, 4 elements per thread, block-strided",
              S001 " 2.3 (saxpy_v2)", 1, 4, 4, 14),
    AXPY_RUNG("v3a_hoist", sl_cuda_axpy_v3a_hoist, "coarsening + bounds check hoisted out of the unrolled loop",
              S001 " 2.3 (saxpy_v3a)", 4, 4, 4, 11.25f),
    AXPY_RUNG("v3b_restrict", sl_cuda_axpy_v3b_restrict, "v3a + __restrict__ (x on the non-coherent path)",
              S001 " 2.4 (saxpy_v3b)", 4, 4, 4, 11.25f),
    AXPY_RUNG("v4_persistent", sl_cuda_axpy_v4_persistent, "persistent grid-stride, 4 accesses per step",
              S001 " 2.5 (saxpy_persistent)", 1, 4, 4, 11.8f),
    AXPY_RUNG("v5_vec", sl_cuda_axpy_v5_vec, "vectorized: one 16-byte vector per input per thread",
              S001 " 2.6 (saxpy_v5)", 1, 16, 4, 5.5f),
    AXPY_RUNG("tile4", sl_cuda_axpy_tile4, "block tile, 4 x 16-byte vectors per input per thread in flight",
              "ours; add rung 7", 4, 16, 16, 2.8f),
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "cp.async.bulk 4 KiB tiles to shared memory + mbarrier (sm_90)", .source = "ours; add rung 8",
     .launch = SL_CUDA_FN(sl_cuda_axpy_bulk), .attrs = SL_CUDA_FN(sl_cuda_axpy_bulk_attrs), .loads_in_flight = 1,
     .access_bytes = 16, .elems_per_thread = 4, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
    {.name = "sl_axpy", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_axpy(): v5_vec to L2/2, tile4 to L2, bulk beyond (sm_90+); any alignment", .source = "issues 6, 17",
     .launch = SL_CUDA_FN(sl_cuda_axpy_api), .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4,
     .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
    SL_EW_CEILING_CPU,
    SL_EW_CPU_RUNGS(cpu_axpy, "sl_axpy"),
};

const sl_op_desc sl_op_axpy = {
    .id = SL_OP_AXPY,
    .name = "axpy",
    .formula = "y = alpha x + y",
    .source = "seed 001 (SAXPY, bf16 haxpy)",
    .numerics = "one fused multiply-add in fp32 (fp64 for f64), alpha never rounded to the storage type: bit-exact",
    .rank = 1,
    .nbufs = 2,
    .bufs = {{"x", SL_ROLE_IN, false}, {"y", SL_ROLE_INOUT, false}},
    .nscalars = 1,
    .scalars = {{"alpha", 1.3}},
    .dtypes = SL_AXPY_DTYPES,
    .flops_per_elem = 2,
    .fma = true,
    .tol = {SL_TOL_EXACT, 0},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
};

sl_status sl_axpy(sl_ctx *ctx, sl_dtype dtype, size_t n, float alpha, const void *x, void *y, void *stream)
{
    void *const ptrs[] = {(void *)x, y};
    const double s[] = {(double)alpha};
    return sl_op_call(ctx, &sl_op_axpy, dtype, n, ptrs, s, stream);
}
