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

#define S000_KERNELS "seed 000, Kernels Implemented"

static const sl_variant table[] = {
#ifdef SL_HAVE_CUDA
    {.name = "copy", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_CEILING,
     .technique = "cudaMemcpyAsync device to device: the copy ceiling",
     .reads = 1, .writes = 1, .flops = 0, .loads_in_flight = 0, .access_bytes = 0,
     .seed = "issue 2; DESIGN.md peer table", .launch = sl_cuda_ceiling_copy,
     .elems_per_thread = 4},
    {.name = "cub", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cub::DeviceTransform::Transform (CCCL; bulk copies on sm_90)",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 3, .access_bytes = 4,
     .seed = "issue 2; DESIGN.md peer table", .launch = sl_cuda_peer_cub_add,
     .elems_per_thread = 3, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 8},
    {.name = "naive", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "naive: one thread per element",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 4,
     .seed = S000_KERNELS " (vectorSum)", .launch = sl_cuda_add_naive, .attrs = sl_cuda_add_naive_attrs,
     .elems_per_thread = 1, .insts_per_elem = 12},
    {.name = "grid_stride", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "grid-stride loop, persistent grid (SMs x occupancy)",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 4,
     .seed = S000_KERNELS " (gridStrideVectorSum)", .launch = sl_cuda_add_grid_stride,
     .attrs = sl_cuda_add_grid_stride_attrs,
     .elems_per_thread = 1, .insts_per_elem = 10},
    {.name = "vec4", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "vectorized float4, one per thread",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 16,
     .seed = S000_KERNELS " (vectorizedVectorSum)", .launch = sl_cuda_add_vec4, .attrs = sl_cuda_add_vec4_attrs,
     .elems_per_thread = 4, .insts_per_elem = 7},
    {.name = "grid_vec4", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "grid-stride + vectorized float4",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 16,
     .seed = S000_KERNELS " (gridVectorizedVectorSum)", .launch = sl_cuda_add_grid_vec4,
     .attrs = sl_cuda_add_grid_vec4_attrs,
     .elems_per_thread = 4, .insts_per_elem = 3.5f},
    {.name = "ilp2", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "grid-stride + float4 + ILP=2",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 2, .access_bytes = 16,
     .seed = S000_KERNELS " (ILP2VectorizedGridVectorSum)", .launch = sl_cuda_add_ilp2,
     .attrs = sl_cuda_add_ilp2_attrs,
     .elems_per_thread = 8, .insts_per_elem = 3},
    {.name = "ilp4", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "grid-stride + float4 + ILP=4",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 4, .access_bytes = 16,
     .seed = S000_KERNELS " (ILP4VectorizedGridVectorSum)", .launch = sl_cuda_add_ilp4,
     .attrs = sl_cuda_add_ilp4_attrs,
     .elems_per_thread = 16, .insts_per_elem = 2.5f},
    {.name = "tile4", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "block tile, float4 x4 per input in flight, one tile per block",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 4, .access_bytes = 16,
     .seed = "ours; seed 000 What I Would Do Differently (bytes in flight)", .launch = sl_cuda_add_tile4,
     .attrs = sl_cuda_add_tile4_attrs,
     .elems_per_thread = 16, .insts_per_elem = 2.8f},
    {.name = "bulk", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "cp.async.bulk 4 KiB tiles to shared memory + mbarrier (sm_90)",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 16,
     .seed = "ours; HOPPER.md (bulk copy engine)", .launch = sl_cuda_add_bulk, .attrs = sl_cuda_add_bulk_attrs,
     .elems_per_thread = 4, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
    {.name = "sl_add", .op = SL_OP_ADD, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_add(): bulk on sm_90+, vec4 before, scalar ILP if misaligned",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 1, .access_bytes = 16,
     .seed = "issue 2", .launch = sl_cuda_add_api,
     .elems_per_thread = 4, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
#endif
    {.name = "copy", .op = SL_OP_ADD, .backend = SL_BACKEND_CPU, .kind = SL_KIND_CEILING,
     .technique = "memcpy per OpenMP thread: the copy ceiling",
     .reads = 1, .writes = 1, .flops = 0, .loads_in_flight = 0, .access_bytes = 0,
     .seed = "issue 2", .launch = sl_cpu_ceiling_copy,
     .elems_per_thread = 1},
    {.name = "serial", .op = SL_OP_ADD, .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "the CPU reference: one thread, in order",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 0, .access_bytes = 4,
     .seed = "seed 002 (CPU vs GPU vector add)", .launch = sl_cpu_add_serial,
     .elems_per_thread = 1},
    {.name = "omp", .op = SL_OP_ADD, .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP parallel for simd, static schedule, first-touch pages",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 0, .access_bytes = 0,
     .seed = "issue 2", .launch = sl_cpu_add_omp,
     .elems_per_thread = 1},
    {.name = "sl_add", .op = SL_OP_ADD, .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "public sl_add(): the omp rung",
     .reads = 2, .writes = 1, .flops = 1, .loads_in_flight = 0, .access_bytes = 0,
     .seed = "issue 2", .launch = sl_cpu_add_api,
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

const sl_variant *sl_registry_find(sl_backend b, const char *name)
{
    for (size_t i = 0; i < sl_registry_count(); i++)
        if (table[i].backend == b && strcmp(table[i].name, name) == 0)
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
    return op == SL_OP_ADD ? "add" : "?";
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

size_t sl_variant_bytes_per_elem(const sl_variant *v, sl_dtype dt)
{
    return (size_t)(v->reads + v->writes) * sl_dtype_size(dt);
}
