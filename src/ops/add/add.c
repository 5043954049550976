/*
 * add.c - the add op, c = a + b (seed 000): its descriptor, its reference,
 * its CPU rungs, its variant table and the public sl_add().
 */
#include "add.h"

#include "dtype_conv.h"

/* ---- the reference: one element at a time, in the compute type --------- */

static float ref_f32(const float *x, const float *s)
{
    (void)s;
    return x[0] + x[1];
}

static double ref_f64(const double *x, const double *s)
{
    (void)s;
    return x[0] + x[1];
}

static void reference(sl_ref_args *a)
{
    static const sl_ew_ref_fn fn = {ref_f32, ref_f64};
    sl_ew_reference(a, 2, sl_op_add.nscalars, &fn);
}

/* ---- the CPU rungs ------------------------------------------------------- */

SL_CPU_EW_RUNGS(cpu_add, 2, x[0] + x[1], x[0] + x[1])

/* ---- the rungs ------------------------------------------------------------ */

#define S000 "seed 000, Kernels Implemented"

static const sl_variant variants[] = {
    SL_EW_CEILING_CUDA,
    {.name = "cub", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cub::DeviceTransform::Transform (CCCL; bulk copies on sm_90)",
     .source = "issue 2; DESIGN.md peer table", .launch = SL_CUDA_FN(sl_cuda_add_cub), .loads_in_flight = 3,
     .access_bytes = 4, .elems_per_thread = 3, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 8},
    {.name = "naive", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .technique = "naive: one thread per element",
     .source = S000 " (vectorSum)", .launch = SL_CUDA_FN(sl_cuda_add_naive), .attrs = SL_CUDA_FN(sl_cuda_add_naive_attrs),
     .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 12},
    {.name = "grid_stride", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "grid-stride loop, persistent grid (SMs x occupancy)", .source = S000 " (gridStrideVectorSum)",
     .launch = SL_CUDA_FN(sl_cuda_add_grid_stride), .attrs = SL_CUDA_FN(sl_cuda_add_grid_stride_attrs),
     .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 10, .static_partition = true},
    {.name = "vec4", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .technique = "vectorized float4, one per thread",
     .source = S000 " (vectorizedVectorSum)", .launch = SL_CUDA_FN(sl_cuda_add_vec4),
     .attrs = SL_CUDA_FN(sl_cuda_add_vec4_attrs), .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4,
     .insts_per_elem = 7},
    {.name = "grid_vec4", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .technique = "grid-stride + vectorized float4",
     .source = S000 " (gridVectorizedVectorSum)", .launch = SL_CUDA_FN(sl_cuda_add_grid_vec4),
     .attrs = SL_CUDA_FN(sl_cuda_add_grid_vec4_attrs), .loads_in_flight = 1, .access_bytes = 16,
     .elems_per_thread = 4, .insts_per_elem = 3.5f, .static_partition = true},
    {.name = "ilp2", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .technique = "grid-stride + float4 + ILP=2",
     .source = S000 " (ILP2VectorizedGridVectorSum)", .launch = SL_CUDA_FN(sl_cuda_add_ilp2),
     .attrs = SL_CUDA_FN(sl_cuda_add_ilp2_attrs), .loads_in_flight = 2, .access_bytes = 16, .elems_per_thread = 8,
     .insts_per_elem = 3, .static_partition = true},
    {.name = "ilp4", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .technique = "grid-stride + float4 + ILP=4",
     .source = S000 " (ILP4VectorizedGridVectorSum)", .launch = SL_CUDA_FN(sl_cuda_add_ilp4),
     .attrs = SL_CUDA_FN(sl_cuda_add_ilp4_attrs), .loads_in_flight = 4, .access_bytes = 16, .elems_per_thread = 16,
     .insts_per_elem = 2.5f, .static_partition = true},
    {.name = "tile4", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block tile, float4 x4 per input in flight, one tile per block",
     .source = "ours; seed 000 What I Would Do Differently (bytes in flight)", .launch = SL_CUDA_FN(sl_cuda_add_tile4),
     .attrs = SL_CUDA_FN(sl_cuda_add_tile4_attrs), .loads_in_flight = 4, .access_bytes = 16, .elems_per_thread = 16,
     .insts_per_elem = 2.8f},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "cp.async.bulk 4 KiB tiles to shared memory + mbarrier (sm_90)",
     .source = "ours; HOPPER.md (bulk copy engine)", .launch = SL_CUDA_FN(sl_cuda_add_bulk),
     .attrs = SL_CUDA_FN(sl_cuda_add_bulk_attrs), .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4,
     .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
/* DEMOTED: loads with an eviction hint and plain stores (model.c, "Demoted loads") */
#define HINT_RUNG(NAME, FN, WHAT, DEMOTED)                                                                      \
    {.name = NAME, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .technique = WHAT,                         \
     .source = "seed 000, Cache hints; PTX ISA, Cache Operators", .launch = SL_CUDA_FN(FN),                    \
     .attrs = SL_CUDA_FN(FN##_attrs), .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4,          \
     .insts_per_elem = 7, .demoted_loads = DEMOTED}
    HINT_RUNG("tile1", sl_cuda_add_tile1, "block tile, one 16-byte vector per input per thread, no cache hint (control)",
              false),
    HINT_RUNG("tile1_cs", sl_cuda_add_tile1_cs, "tile1 with ld.global.cs / st.global.cs (streaming, evict-first)",
              false),
    HINT_RUNG("tile1_lu", sl_cuda_add_tile1_lu, "tile1 with ld.global.lu (last use)", true),
    HINT_RUNG("tile1_nc", sl_cuda_add_tile1_nc, "tile1 with ld.global.nc.L1::no_allocate", true),
    HINT_RUNG("tile1_ef", sl_cuda_add_tile1_ef,
              "tile1 with an L2 evict_first policy (createpolicy) on loads and stores", false),
#undef HINT_RUNG
    {.name = "fp8out", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = SL_DT(F32), .fixed_out = true,
     .out_dtype = SL_FP8_E4M3,
     .technique = "f32 inputs, fp8 e4m3 output (saturating): 9 bytes per element instead of 12",
     .source = "seed 000, FP8 output", .launch = SL_CUDA_FN(sl_cuda_add_fp8out),
     .attrs = SL_CUDA_FN(sl_cuda_add_fp8out_attrs), .loads_in_flight = 4, .access_bytes = 16, .elems_per_thread = 16,
     .insts_per_elem = 3},
    {.name = "sl_add", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_add(): vec4 to L2/2, tile4 to L2, bulk beyond (sm_90+); any alignment", .source = "issues 2, 17",
     .launch = SL_CUDA_FN(sl_cuda_add_api), .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4,
     .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
    SL_EW_CEILING_CPU,
    SL_EW_CPU_RUNGS(cpu_add, "sl_add"),
};

const sl_op_desc sl_op_add = {
    .id = SL_OP_ADD,
    .name = "add",
    .formula = "c = a + b",
    .source = "seed 000 (vector add)",
    .numerics = "fp32 (fp64 for f64), one rounding to the storage type: bit-exact",
    .rank = 1,
    .nbufs = 3,
    .bufs = {{"a", SL_ROLE_IN, false}, {"b", SL_ROLE_IN, false}, {"c", SL_ROLE_OUT, false}},
    .dtypes = SL_ADD_DTYPES,
    .flops_per_elem = 1,
    .tol = {SL_TOL_EXACT, 0},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
};

sl_status sl_add(sl_ctx *ctx, sl_dtype dtype, size_t n, const void *a, const void *b, void *c, void *stream)
{
    void *const ptrs[] = {(void *)a, (void *)b, c};
    return sl_op_call(ctx, &sl_op_add, dtype, n, ptrs, NULL, stream);
}
