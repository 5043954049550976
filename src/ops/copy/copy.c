/*
 * copy.c - the copy op, c = a (STREAM (McCalpin) and BabelStream 5.0: Copy): its descriptor,
 * reference, CPU rungs, variant table and the public sl_copy().
 */
#include "copy.h"

#include <string.h>

/* ---- the reference: the bytes ------------------------------------------
 * A copy's result is its input's bytes: the reference moves them with
 * memcpy, sharing no code with the rungs' conversions (dtype_conv maps
 * every 16-bit NaN to one canonical pattern; a reference widening and
 * narrowing would agree with a rung that does the same, issue 25).
 * in[0] / out[1] point at element lo. */
static void reference(sl_ref_args *a)
{
    memcpy(a->out[1], a->in[0], (size_t)(a->hi - a->lo) * sl_dtype_size(a->dtype));
}

/* ---- the CPU rungs: bytes moved, never converted -------------------------
 * Not SL_CPU_EW_RUNGS: its 16- and 8-bit path widens each element to float
 * and narrows it back, which rewrote every f16 / bf16 NaN as 0x7fff, even
 * in place (issue 25). serial: one memcpy; omp: each thread memcpy()s its
 * share (sl_cpu_share_elems: 64-byte granules, the first-touch layout).
 * c == a moves nothing (the contract: then nothing moves); any other
 * overlap was refused before the launch. */
static void cpu_copy_range(const sl_args *a, size_t lo, size_t hi)
{
    const size_t es = sl_dtype_size(a->dtype);
    const unsigned char *src = a->buf[0];
    unsigned char *dst = a->buf[1];
    if (src != dst && hi > lo)
        memcpy(dst + lo * es, src + lo * es, (hi - lo) * es);
}

static sl_status cpu_copy_serial(const sl_args *a)
{
    cpu_copy_range(a, 0, a->n);
    return SL_OK;
}

static sl_status cpu_copy_omp(const sl_args *a)
{
#pragma omp parallel
    {
        size_t lo, hi;
        sl_cpu_share_elems(a->n, sl_dtype_size(a->dtype), &lo, &hi);
        cpu_copy_range(a, lo, hi);
    }
    return SL_OK;
}

/* ---- the rungs ------------------------------------------------------------ */

static const sl_variant variants[] = {
    SL_EW_CEILING_CUDA,
    {.name = "cub", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cub::DeviceTransform::Transform (CCCL; bulk copies on sm_90)", .source = "issue 10",
     .launch = SL_CUDA_FN(sl_cuda_copy_cub), .loads_in_flight = 3, .access_bytes = 4, .elems_per_thread = 3,
     .smem_bytes_per_elem = 8, .async_reads = true, .insts_per_elem = 8},
    {.name = "naive", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .technique = "naive: one thread per element",
     .source = "seed 000 rung 1; BabelStream's CUDA Copy is this with 1024-thread blocks",
     .launch = SL_CUDA_FN(sl_cuda_copy_naive), .attrs = SL_CUDA_FN(sl_cuda_copy_naive_attrs), .loads_in_flight = 1,
     .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 12},
    {.name = "vec", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "one 16-byte vector per input per thread, aligned head and tail", .source = "add rung 3 (vec4)",
     .launch = SL_CUDA_FN(sl_cuda_copy_vec), .attrs = SL_CUDA_FN(sl_cuda_copy_vec_attrs), .loads_in_flight = 1,
     .access_bytes = 16, .elems_per_thread = 4, .insts_per_elem = 7},
    {.name = "bulk", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "cp.async.bulk 4 KiB tiles to shared memory + mbarrier (sm_90)", .source = "add rung 8 (bulk)",
     .launch = SL_CUDA_FN(sl_cuda_copy_bulk), .attrs = SL_CUDA_FN(sl_cuda_copy_bulk_attrs), .loads_in_flight = 1,
     .access_bytes = 16, .elems_per_thread = 4, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
    {.name = "bulk8k", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG,
     .technique = "bulk with 8 KiB tiles: 64 KiB in flight per SM with one input", .source = "ours; docs/ladder.md",
     .launch = SL_CUDA_FN(sl_cuda_copy_bulk8k), .attrs = SL_CUDA_FN(sl_cuda_copy_bulk8k_attrs), .loads_in_flight = 2,
     .access_bytes = 16, .elems_per_thread = 8, .smem_bytes_per_elem = 16, .async_reads = true, .insts_per_elem = 7.5f},
    {.name = "sl_copy", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_copy(): the vec rung, any alignment (realigned loads)", .source = "issue 10",
     .launch = SL_CUDA_FN(sl_cuda_copy_api), .loads_in_flight = 1, .access_bytes = 16, .elems_per_thread = 4,
     .insts_per_elem = 7},
    SL_EW_CEILING_CPU,
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread: memcpy of the bytes (no conversion)", .source = "seed 002 (CPU vs GPU); issue 25",
     .launch = cpu_copy_serial, .elems_per_thread = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP: each thread memcpy()s its share (64-byte granules, first-touch pages)",
     .source = "issue 2; issue 25", .launch = cpu_copy_omp, .elems_per_thread = 1},
    {.name = "sl_copy", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = "issue 10",
     .launch = cpu_copy_omp, .elems_per_thread = 1},
};

const sl_op_desc sl_op_copy = {
    .id = SL_OP_COPY,
    .name = "copy",
    .formula = "c = a",
    .source = "STREAM (McCalpin) and BabelStream 5.0: Copy",
    .numerics = "a bit-for-bit copy (bytes moved, no conversion: NaN payloads kept)",
    .rank = 1,
    .nbufs = 2,
    .bufs = {{"a", SL_ROLE_IN, false}, {"c", SL_ROLE_OUT, false}},
    .dtypes = SL_COPY_DTYPES,
    .flops_per_elem = 0,
    .tol = {SL_TOL_EXACT, 0},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
};

sl_status sl_copy(sl_ctx *ctx, sl_dtype dtype, size_t n, const void *a, void *c, void *stream)
{
    void *const ptrs[] = {(void *)a, c};
    return sl_op_call(ctx, &sl_op_copy, dtype, n, ptrs, NULL, stream);
}
