/*
 * registry.c - the table of every kernel variant (see registry.h).
 *
 * Order is ladder order: the copy ceiling, the peer, the seed's six rungs,
 * our rungs, then the public entry point. The harness runs ceilings and
 * peers first so that every rung's ratios have their denominators.
 *
 * Model fields: loads_in_flight x access_bytes x reads is what one thread
 * keeps in flight (CUB: its sm_90 policy stages 3 floats per thread per
 * input, 48 KiB per SM at full occupancy, CCCL tuning_transform.cuh);
 * insts_per_elem are estimates read off the SASS (cuobjdump in
 * bench/h200.sh) until issue 5 counts them.
 */
#include "registry.h"

#include <string.h>

#include "../cpu/cpu.h"
#ifdef SL_HAVE_CUDA
#include "../cuda/cuda_check.h"
#endif

/* The CUDA rows exist in every build, so that `streamlab explain` can model
 * them from a hardware description on a machine without CUDA; a build
 * without CUDA has no kernels behind them (launch and attrs NULL), and the
 * CUDA backend, which alone runs them, is absent there. */
#ifdef SL_HAVE_CUDA
#define CUDA_FN(f) f
#else
#define CUDA_FN(f) NULL
#endif

#define S000_KERNELS "seed 000, Kernels Implemented"
#define S001 "seed 001, Part 2"

/* dtype masks */
#define DT_ALL ((1u << SL_F32) | (1u << SL_F16) | (1u << SL_BF16) | (1u << SL_FP8_E4M3) | (1u << SL_FP8_E5M2))
#define DT_AXPY ((1u << SL_F32) | (1u << SL_F16) | (1u << SL_BF16))

static const sl_variant table[] = {
    {.name = "copy", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING,
     .technique = "cudaMemcpyAsync device to device: the copy ceiling",
     .reads = 1, .writes = 1, .flops = 0, .loads_in_flight = 0, .access_bytes = 0,
     .seed = "issue 2; DESIGN.md peer table", .launch = CUDA_FN(sl_cuda_ceiling_copy),
     .elems_per_thread = 4},
    {.name = "cub", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cub::DeviceTransform::Transform (CCCL; bulk copies on sm_90)",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 3, .access_bytes = 4,
     .seed = "issue 2; DESIGN.md peer table", .launch = CUDA_FN(sl_cuda_peer_cub_add),
     .elems_per_thread = 3, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 8},
    {.name = "naive", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "naive: one thread per element",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 4,
     .seed = S000_KERNELS " (vectorSum)", .launch = CUDA_FN(sl_cuda_add_naive), .attrs = CUDA_FN(sl_cuda_add_naive_attrs),
     .elems_per_thread = 1, .insts_per_elem = 12},
    {.name = "grid_stride", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "grid-stride loop, persistent grid (SMs x occupancy)",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 4,
     .seed = S000_KERNELS " (gridStrideVectorSum)", .launch = CUDA_FN(sl_cuda_add_grid_stride),
     .attrs = CUDA_FN(sl_cuda_add_grid_stride_attrs),
     .elems_per_thread = 1, .insts_per_elem = 10},
    {.name = "vec4", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "vectorized float4, one per thread",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 16,
     .seed = S000_KERNELS " (vectorizedVectorSum)", .launch = CUDA_FN(sl_cuda_add_vec4), .attrs = CUDA_FN(sl_cuda_add_vec4_attrs),
     .elems_per_thread = 4, .insts_per_elem = 7},
    {.name = "grid_vec4", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "grid-stride + vectorized float4",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 16,
     .seed = S000_KERNELS " (gridVectorizedVectorSum)", .launch = CUDA_FN(sl_cuda_add_grid_vec4),
     .attrs = CUDA_FN(sl_cuda_add_grid_vec4_attrs),
     .elems_per_thread = 4, .insts_per_elem = 3.5f},
    {.name = "ilp2", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "grid-stride + float4 + ILP=2",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 2, .access_bytes = 16,
     .seed = S000_KERNELS " (ILP2VectorizedGridVectorSum)", .launch = CUDA_FN(sl_cuda_add_ilp2),
     .attrs = CUDA_FN(sl_cuda_add_ilp2_attrs),
     .elems_per_thread = 8, .insts_per_elem = 3},
    {.name = "ilp4", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "grid-stride + float4 + ILP=4",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 4, .access_bytes = 16,
     .seed = S000_KERNELS " (ILP4VectorizedGridVectorSum)", .launch = CUDA_FN(sl_cuda_add_ilp4),
     .attrs = CUDA_FN(sl_cuda_add_ilp4_attrs),
     .elems_per_thread = 16, .insts_per_elem = 2.5f},
    {.name = "tile4", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block tile, float4 x4 per input in flight, one tile per block",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 4, .access_bytes = 16,
     .seed = "ours; seed 000 What I Would Do Differently (bytes in flight)", .launch = CUDA_FN(sl_cuda_add_tile4),
     .attrs = CUDA_FN(sl_cuda_add_tile4_attrs),
     .elems_per_thread = 16, .insts_per_elem = 2.8f},
    {.name = "bulk", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "cp.async.bulk 4 KiB tiles to shared memory + mbarrier (sm_90)",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 16,
     .seed = "ours; HOPPER.md (bulk copy engine)", .launch = CUDA_FN(sl_cuda_add_bulk), .attrs = CUDA_FN(sl_cuda_add_bulk_attrs),
     .elems_per_thread = 4, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
#define HINT_RUNG(NAME, FN, WHAT)                                                                       \
    {.name = NAME, .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,           \
     .technique = WHAT, .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 16,          \
     .seed = "seed 000, Cache hints; PTX ISA, Cache Operators", .launch = CUDA_FN(FN), .attrs = CUDA_FN(FN##_attrs),             \
     .elems_per_thread = 4, .insts_per_elem = 7}
    HINT_RUNG("tile1", sl_cuda_add_tile1, "block tile, one 16-byte vector per input per thread, no cache hint (control)"),
    HINT_RUNG("tile1_cs", sl_cuda_add_tile1_cs, "tile1 with ld.global.cs / st.global.cs (streaming, evict-first)"),
    HINT_RUNG("tile1_lu", sl_cuda_add_tile1_lu, "tile1 with ld.global.lu (last use)"),
    HINT_RUNG("tile1_nc", sl_cuda_add_tile1_nc, "tile1 with ld.global.nc.L1::no_allocate"),
    HINT_RUNG("tile1_ef", sl_cuda_add_tile1_ef, "tile1 with an L2 evict_first policy (createpolicy) on loads and stores"),
#undef HINT_RUNG
    {.name = "fp8out", .op = SL_OP_ADD, .dtypes = 1u << SL_F32, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "f32 inputs, fp8 e4m3 output (saturating): 9 bytes per element instead of 12",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 4, .access_bytes = 16, .out_fp8 = true,
     .seed = "seed 000, FP8 output", .launch = CUDA_FN(sl_cuda_add_fp8out), .attrs = CUDA_FN(sl_cuda_add_fp8out_attrs),
     .elems_per_thread = 16, .insts_per_elem = 3},
    {.name = "sl_add", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_add(): bulk on sm_90+, vec4 before, scalar ILP if misaligned",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 16,
     .seed = "issue 2", .launch = CUDA_FN(sl_cuda_add_api),
     .elems_per_thread = 4, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
    /* The SAXPY ladder (seed 001): y = alpha * x + y in place; a = x, b = c = y. */
    {.name = "copy", .op = SL_OP_AXPY, .dtypes = DT_AXPY, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING,
     .technique = "cudaMemcpyAsync device to device: the copy ceiling",
     .reads = 1, .writes = 1, .flops = 0, .seed = "issue 2; DESIGN.md peer table", .launch = CUDA_FN(sl_cuda_ceiling_copy),
     .elems_per_thread = 4},
    {.name = "cublas", .op = SL_OP_AXPY, .dtypes = DT_AXPY, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cuBLAS cublasSaxpy_64 (f32), cublasAxpyEx_64 with fp32 compute (f16, bf16)",
     .reads = 2, .writes = 1, .flops = 2, .fma = 1, .loads_in_flight = 1, .access_bytes = 4,
     .seed = "issue 6; DESIGN.md peer table", .launch = CUDA_FN(sl_cuda_peer_cublas_axpy), .ulp_tolerance = 1,
     .elems_per_thread = 1, .insts_per_elem = 12},
#define AXPY_RUNG(NAME, FN, WHAT, SEED, LIF, AB, EPT, INSTS)                                               \
    {.name = NAME, .op = SL_OP_AXPY, .dtypes = DT_AXPY, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,       \
     .technique = WHAT, .reads = 2, .writes = 1, .flops = 2, .fma = 1, .loads_in_flight = LIF,                 \
     .access_bytes = AB, .seed = SEED, .launch = CUDA_FN(FN), .attrs = CUDA_FN(FN##_attrs), .elems_per_thread = EPT,             \
     .insts_per_elem = INSTS}
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
    {.name = "bulk", .op = SL_OP_AXPY, .dtypes = DT_AXPY, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "cp.async.bulk 4 KiB tiles to shared memory + mbarrier (sm_90)",
     .reads = 2, .writes = 1, .flops = 2, .fma = 1, .loads_in_flight = 1, .access_bytes = 16,
     .seed = "ours; add rung 8", .launch = CUDA_FN(sl_cuda_axpy_bulk), .attrs = CUDA_FN(sl_cuda_axpy_bulk_attrs),
     .elems_per_thread = 4, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
#undef AXPY_RUNG
    {.name = "sl_axpy", .op = SL_OP_AXPY, .dtypes = DT_AXPY, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_axpy(): bulk on sm_90+, v5_vec before, scalar if misaligned",
     .reads = 2, .writes = 1, .flops = 2, .fma = 1, .loads_in_flight = 1, .access_bytes = 16,
     .seed = "issue 6", .launch = CUDA_FN(sl_cuda_axpy_api),
     .elems_per_thread = 4, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
    {.name = "copy", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CPU, .kind = SL_KIND_CEILING,
     .technique = "memcpy per OpenMP thread: the copy ceiling",
     .reads = 1, .writes = 1, .flops = 0, .loads_in_flight = 0, .access_bytes = 0,
     .seed = "issue 2", .launch = sl_cpu_ceiling_copy,
     .elems_per_thread = 1},
    {.name = "serial", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "the CPU reference: one thread, in order",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 0, .access_bytes = 4,
     .seed = "seed 002 (CPU vs GPU vector add)", .launch = sl_cpu_ew_serial,
     .elems_per_thread = 1},
    {.name = "omp", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP parallel for simd, static schedule, first-touch pages",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 0, .access_bytes = 0,
     .seed = "issue 2", .launch = sl_cpu_ew_omp,
     .elems_per_thread = 1},
    {.name = "sl_add", .op = SL_OP_ADD, .dtypes = DT_ALL, .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "public sl_add(): the omp rung",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 0, .access_bytes = 0,
     .seed = "issue 2", .launch = sl_cpu_ew_omp,
     .elems_per_thread = 1},
    {.name = "copy", .op = SL_OP_AXPY, .dtypes = DT_AXPY, .backend = SL_BACKEND_CPU, .kind = SL_KIND_CEILING,
     .technique = "memcpy per OpenMP thread: the copy ceiling",
     .reads = 1, .writes = 1, .seed = "issue 2", .launch = sl_cpu_ceiling_copy, .elems_per_thread = 1},
    {.name = "serial", .op = SL_OP_AXPY, .dtypes = DT_AXPY, .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "the CPU reference: one thread, in order",
     .reads = 2, .writes = 1, .flops = 2, .fma = 1, .access_bytes = 4, .seed = "seed 001 (saxpy)",
     .launch = sl_cpu_ew_serial, .elems_per_thread = 1},
    {.name = "omp", .op = SL_OP_AXPY, .dtypes = DT_AXPY, .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP parallel for simd, static schedule",
     .reads = 2, .writes = 1, .flops = 2, .fma = 1, .seed = "issue 6", .launch = sl_cpu_ew_omp,
     .elems_per_thread = 1},
    {.name = "sl_axpy", .op = SL_OP_AXPY, .dtypes = DT_AXPY, .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "public sl_axpy(): the omp rung",
     .reads = 2, .writes = 1, .flops = 2, .fma = 1, .seed = "issue 6", .launch = sl_cpu_ew_omp,
     .elems_per_thread = 1},
};

size_t sl_registry_count(void)
{
    return sizeof table / sizeof table[0];
}

const sl_variant *sl_registry_at(size_t i)
{
    return i < sl_registry_count() ? &table[i] : NULL;
}

const sl_variant *sl_registry_find(sl_backend b, sl_op op, const char *name)
{
    for (size_t i = 0; i < sl_registry_count(); i++)
        if (table[i].backend == b && table[i].op == op && strcmp(table[i].name, name) == 0)
            return &table[i];
    return NULL;
}

const sl_variant *sl_registry_api(sl_op op, sl_backend b)
{
    for (size_t i = 0; i < sl_registry_count(); i++)
        if (table[i].op == op && table[i].backend == b && table[i].kind == SL_KIND_API)
            return &table[i];
    return NULL;
}

const char *sl_op_name(sl_op op)
{
    switch (op) {
    case SL_OP_ADD: return "add";
    case SL_OP_AXPY: return "axpy";
    default: return "?";
    }
}

int sl_op_parse(const char *s)
{
    for (int i = 0; i < SL_OP_COUNT; i++)
        if (s && strcmp(s, sl_op_name((sl_op)i)) == 0)
            return i;
    return -1;
}

const char *sl_kind_name(sl_kind k)
{
    switch (k) {
    case SL_KIND_CEILING: return "ceiling";
    case SL_KIND_PEER: return "peer";
    case SL_KIND_RUNG: return "rung";
    case SL_KIND_API: return "api";
    }
    return "?";
}

sl_dtype sl_variant_out_dtype(const sl_variant *v, sl_dtype dt)
{
    return v->out_fp8 ? SL_FP8_E4M3 : dt;
}

size_t sl_variant_bytes_per_elem(const sl_variant *v, sl_dtype dt)
{
    return (size_t)v->reads * sl_dtype_size(dt) + (size_t)v->writes * sl_dtype_size(sl_variant_out_dtype(v, dt));
}

bool sl_variant_supports(const sl_variant *v, sl_dtype dt)
{
    unsigned mask = v->dtypes ? v->dtypes : 1u << SL_F32;
    return (unsigned)dt < SL_DTYPE_COUNT && (mask >> dt) & 1u;
}
