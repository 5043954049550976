/*
 * tensor_map.cuh - 2-D bulk tensor copies (TMA, sm_90): the device-side
 * loads and stores through a tensor map (cp.async.bulk.tensor.2d) and the
 * host-side encoding of the map (cuTensorMapEncodeTiled), shared by the
 * transpose's and the stencil's TMA rungs (06_tma.cu in each) and the
 * matmul's wgmma rung (its host side; its device copies are its own).
 *
 * The encoder is reached through the runtime's driver entry point
 * (cudaGetDriverEntryPointByVersion, the 12.0 ABI of the function), so the
 * library does not link libcuda; <cudaTypedefs.h> gives the CUtensorMap
 * type, its enums and the function's prototype only.
 *
 * Source: PTX ISA 8.x, "cp.async.bulk.tensor"; CUDA Driver API,
 * "cuTensorMapEncodeTiled" (the rules a map must meet: a 16-byte-aligned
 * base, global strides multiples of 16 bytes below 2^40, box dimensions of
 * 1..256 elements with the inner one a multiple of 16 bytes; out-of-bounds
 * box elements load as zero with CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE and are
 * not written by a store, except that a store writes whole 16-byte chunks:
 * a chunk straddling the inner extent is written whole, past the row, so a
 * store map's inner extent must be a multiple of 16 bytes; measured in the
 * matmul rung at N = 390, docs/ladder.md "sl_gemm, twentieth session";
 * triton-lang/triton issue 11583).
 */
#ifndef SL_TENSOR_MAP_CUH
#define SL_TENSOR_MAP_CUH

#include "bulk_copy.cuh" /* smem_u32, the mbarrier wrappers */
#include "common.cuh"

#include <cudaTypedefs.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* Global -> shared: the box of the map whose first element is at
 * coordinates (x, y) (x the inner, column coordinate; either may be
 * negative or past the end: those elements load as zero), into dst
 * (128-byte aligned); completion adds the whole box's bytes, out-of-bounds
 * elements included, to *bar's transaction count. */
static __device__ __forceinline__ void tma_load_2d(void *dst, const CUtensorMap *map, int x, int y, uint64_t *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];" ::"r"(smem_u32(dst)),
                 "l"((uint64_t)(uintptr_t)map), "r"(x), "r"(y), "r"(smem_u32(bar))
                 : "memory");
}

/* Shared -> global: the box at (x, y) from src, clipped to the tensor;
 * tracked as a bulk async-group of the issuing thread (bulk_commit,
 * bulk_wait_read_all). */
static __device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, int x, int y, const void *src)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];" ::"l"(
                     (uint64_t)(uintptr_t)map),
                 "r"(x), "r"(y), "r"(smem_u32(src))
                 : "memory");
}
#endif

typedef PFN_cuTensorMapEncodeTiled_v12000 sl_tmap_encode_fn;

/* cuTensorMapEncodeTiled from the driver the runtime loaded, looked up
 * once per translation unit; SL_ERR_UNSUPPORTED (naming `who`) where the
 * driver has none. */
static inline sl_status tmap_encoder(sl_tmap_encode_fn *fn, const char *who)
{
    static sl_tmap_encode_fn cached;
    sl_tmap_encode_fn f = __atomic_load_n(&cached, __ATOMIC_ACQUIRE);
    if (!f) {
        void *p = NULL;
        cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
        cudaError_t e = cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q);
#else
        cudaError_t e = cudaGetDriverEntryPoint("cuTensorMapEncodeTiled", &p, cudaEnableDefault, &q);
#endif
        if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !p)
            return sl_fail(SL_ERR_UNSUPPORTED, "%s: the driver has no cuTensorMapEncodeTiled (%s)", who,
                           e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
        f = (sl_tmap_encode_fn)p;
        __atomic_store_n(&cached, f, __ATOMIC_RELEASE);
    }
    *fn = f;
    return SL_OK;
}

/* A row-major matrix of `rows` rows of `cols` elements of type dt, rows
 * `stride` bytes apart, moved in boxes of box_c x box_r elements with the
 * given swizzle; out-of-bounds elements load as zero. The encoder's own
 * result: for a caller with a fallback, which records no error. */
static inline CUresult tmap_encode_2d_raw(sl_tmap_encode_fn enc, CUtensorMap *map, CUtensorMapDataType dt,
                                          void *base, uint64_t rows, uint64_t cols, uint64_t stride, uint32_t box_c,
                                          uint32_t box_r, CUtensorMapSwizzle swizzle)
{
    const cuuint64_t dims[2] = {cols, rows}, strides[1] = {stride};
    const cuuint32_t box[2] = {box_c, box_r}, estr[2] = {1, 1};
    return enc(map, dt, 2, base, dims, strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle,
               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* As tmap_encode_2d_raw; SL_ERR_UNSUPPORTED (naming `who` and `which`)
 * where the encoder refuses the map. */
static inline sl_status tmap_encode_2d(sl_tmap_encode_fn enc, CUtensorMap *map, CUtensorMapDataType dt, void *base,
                                       uint64_t rows, uint64_t cols, uint64_t stride, uint32_t box_c, uint32_t box_r,
                                       CUtensorMapSwizzle swizzle, const char *who, const char *which)
{
    const CUresult r = tmap_encode_2d_raw(enc, map, dt, base, rows, cols, stride, box_c, box_r, swizzle);
    if (r != CUDA_SUCCESS)
        return sl_fail(SL_ERR_UNSUPPORTED, "%s: cuTensorMapEncodeTiled refused the %s map (CUresult %d)", who, which,
                       (int)r);
    return SL_OK;
}

#endif /* SL_TENSOR_MAP_CUH */
