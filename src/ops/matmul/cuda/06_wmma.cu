/*
 * 06_wmma.cu - rung 6: tensor cores through WMMA (seed 004, "Tensor
 * Cores": warp-wide 16x16 tiles, D = A B + C, fp32 accumulators).
 *
 * Change (from rung 5's structure): the warp's 64x32 tile of C is 4 x 2
 * WMMA accumulator fragments; per 16 (bf16/f16) or 8 (TF32) of K a warp
 * loads 4 A and 2 B fragments from shared memory and issues 8 mma_sync
 * (HMMA on sm_80+). Block tile 128x128, 8 warps, BK = 64 bytes of a row,
 * three cp.async stages, 16-byte padded shared rows (mm_wmma.cuh).
 * dtypes: bf16 and f16 (16x16x16, products exact in fp32), and f32 inputs
 * as TF32 (16x16x8; sl_cuda_mm_wmma_tf32), all with fp32 accumulation and
 * one rounding of alpha acc + beta c into the dtype.
 * Arithmetic intensity: 128x128 tiles: per K step (32 bf16) the block
 * loads (128 + 128) x 64 bytes = 16 KiB for 2 x 128 x 128 x 32 flops: 64
 * flop/B to L2 / DRAM (bf16; 32 flop/B for TF32). Shared: each fragment
 * element is read by FN or FM warps: per warp per 16-deep step 6 fragments
 * (3 KiB) for 8 x 8192 flops: 21 flop/B of shared-memory reads.
 * Expected limiter: shared-memory bandwidth and issue. The dense bf16
 * tensor rate is ~990 TFLOP/s (H100/H200 SXM datasheet); at 21 flop/B the
 * 132 SMs' shared memory (128 B/clk/SM x 1.98 GHz = 33 TB/s) caps it near
 * 700 TFLOP/s before any other overhead, and WMMA on sm_90 issues the
 * Ampere mma.sync path, not Hopper's wgmma: expect well under cuBLAS.
 */
#include "mm_wmma.cuh"

extern "C" sl_status sl_cuda_mm_wmma(const sl_mm *p)
{
    switch (p->dtype) {
    case SL_BF16: return mm_wmma_launch<__nv_bfloat16, 128, 128, 64, 32, 3, false>(p, "matmul wmma");
    case SL_F16: return mm_wmma_launch<__half, 128, 128, 64, 32, 3, false>(p, "matmul wmma");
    default: return mm_need_dtype(p, (1u << SL_BF16) | (1u << SL_F16), "matmul wmma");
    }
}

extern "C" sl_status sl_cuda_mm_wmma_tf32(const sl_mm *p)
{
    sl_status st = mm_need_dtype(p, 1u << SL_F32, "matmul wmma_tf32");
    if (st != SL_OK)
        return st;
    return mm_wmma_launch<float, 128, 128, 64, 32, 3, false>(p, "matmul wmma_tf32");
}
