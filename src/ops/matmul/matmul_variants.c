/*
 * matmul_variants.c - the matmul ladder: every rung and peer, with what
 * the roofline needs of each (block tile, shared-memory intensity) and the
 * one-line change and expected limiter of its file's header.
 */
#include "mm.h"

#include "op.h"

#include <string.h>

#ifdef SL_HAVE_CUDA
#define MM_CUDA(f) f
#else
#define MM_CUDA(f) NULL
#endif

#define F32 (1u << SL_F32)
#define T16 ((1u << SL_BF16) | (1u << SL_F16))

const sl_mm_variant sl_mm_variants[] = {
    {"cublas", SL_BACKEND_CUDA, SL_KIND_PEER, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_cublas), 0, 0, 0,
     "cublasSgemm (fp32 SIMT, CUBLAS_DEFAULT_MATH)", "compute (FP32 pipe)"},
    {"cublas", SL_BACKEND_CUDA, SL_KIND_PEER, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_cublas), 0, 0, 0,
     "cublasGemmEx bf16/f16 in and out, CUBLAS_COMPUTE_32F", "compute (tensor cores, wgmma)"},
    {"cublas_tf32", SL_BACKEND_CUDA, SL_KIND_PEER, SL_MM_TF32, F32, MM_CUDA(sl_cuda_mm_cublas_tf32), 0, 0, 0,
     "cublasGemmEx f32, CUBLAS_COMPUTE_32F_FAST_TF32", "compute (TF32 tensor cores)"},
    {"naive", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_naive), 16, 16, 0.25,
     "one thread per C element, K fmas from global memory (seed 002)", "L1 / load path: 2 loads per fma"},
    {"smem", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_smem), 32, 32, 0.25,
     "32x32 shared-memory tiles (seed 002, bound check fixed)", "shared memory: 2 LDS per fma"},
    {"regblock", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_regblock), 128, 128, 0.667,
     "128x128 block tile, 8x8 register micro-tile per thread (thread coarsening)",
     "shared memory: scalar LDS with 2- and 4-way bank conflicts"},
    {"vec", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_vec), 128, 128, 5.33,
     "16-byte global loads, transposed padded A tile, LDS.128, conflict-free strips", "compute (FP32 pipe), no overlap"},
    {"warptile", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_warptile), 128, 128, 8.0,
     "warp tiles 64x32, cp.async 3-stage pipeline, BK 32", "compute (FP32 pipe)"},
    {"small", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_small), 16, 32, 0.8,
     "16x32 tiles, K split over the block's 8 warps, LDS.128 broadcasts of A (skinny shapes, issue 19)",
     "latency: few warps per SM, one L2 round trip per step of 128 along K"},
    /* rung 10 (10_simt.cu, issue 26): rung 5's warp tiles in block tiles by shape, split-K over a cluster */
    {"simt_128x128", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_simt_128x128), 128, 128, 8.0,
     "rung 5's tile with conflict-free A copies and no 64-bit tile arithmetic in the loop (85% FFMA)",
     "compute (FP32 pipe issue)"},
    {"simt_128x64", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_simt_128x64), 128, 64, 8.0,
     "128x64 tiles, 4 warps: twice the CTAs of 128x128", "compute; 12 warps an SM (shared memory: 3 CTAs)"},
    {"simt_64x64", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_simt_64x64), 64, 64, 8.0,
     "64x64 tiles, 2 warps: four times the CTAs of 128x128", "latency: 8 warps an SM (4 CTAs)"},
    {"simt_k2", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_simt_k2), 128, 128, 8.0,
     "128x128 tiles, K split over a cluster of 2, partials summed in rank order through distributed shared memory",
     "fill (half-length K loops) and the exchange"},
    {"simt_k4", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_simt_k4), 128, 128, 8.0,
     "128x128 tiles, K split over a cluster of 4 (distributed shared memory)",
     "fill (quarter-length K loops) and the exchange"},
    {"simt_128x64_k2", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_simt_128x64_k2), 128, 64,
     8.0, "128x64 tiles, K split over a cluster of 2", "fill and the exchange"},
    {"simt_auto", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_FP32, F32, MM_CUDA(sl_cuda_mm_simt_auto), 128, 128, 8.0,
     "rung 10's configuration chosen by shape (sl_cuda_mm_simt_pick): what sl_gemm runs for f32 (issue 26)",
     "the chosen configuration's (roofline shown for 128x128)"},
    {"wmma_tf32", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TF32, F32, MM_CUDA(sl_cuda_mm_wmma_tf32), 128, 128, 10.67,
     "WMMA 16x16x8 TF32, 128x128 tiles, 3 cp.async stages", "shared memory (fragment loads) and L2"},
    {"wmma", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wmma), 128, 128, 21.33,
     "WMMA 16x16x16 (seed 004), warp tile 64x32, 128x128 tiles, 3 cp.async stages", "L2 (64 flop/B) and shared memory"},
    {"best", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_best), 128, 128, 32.0,
     "ldmatrix + mma.sync m16n8k16, warp tile 64x64, 128x128 tiles, 4 cp.async stages, grouped blocks (not wgmma)",
     "mma.sync issue rate (legacy HMMA path), then L2"},
    {"wgmma", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma), 128, 256, 51.2,
     "wgmma m64n256k16 from 128B-swizzled smem, TMA loads, 4-stage mbarrier pipeline, 1 producer + 2 consumer "
     "warpgroups, 128x256 tiles (sm_90a)",
     "compute (tensor pipe), then L2 (85 flop/B)"},
    {"wgmma_n128", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n128), 128, 128, 42.7,
     "rung 8 with 128x128 tiles (wgmma m64n128k16, 6 stages): twice the CTAs of 128x256 (issue 26)",
     "fill: CTAs per SM wave at small shapes, then L2 (64 flop/B)"},
    {"wgmma_n128_k2", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n128_k2), 128, 128,
     42.7, "128x128 tiles, K split over a cluster of 2, partials summed through distributed shared memory",
     "fill, then the pipeline fill of half-length K loops"},
    {"wgmma_n128_k4", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n128_k4), 128, 128,
     42.7, "128x128 tiles, K split over a cluster of 4 (distributed shared memory)",
     "pipeline fill and the exchange (quarter-length K loops)"},
    {"wgmma_k2", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_k2), 128, 256, 51.2,
     "128x256 tiles, K split over a cluster of 2 (distributed shared memory)", "fill, then L2"},
    {"wgmma_mc2", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_mc2), 256, 256, 51.2,
     "128x256 tiles, clusters of 2 block rows, B multicast by TMA (half of B's L2 reads)",
     "compute (tensor pipe), L2 at 128 flop/B"},
    {"wgmma_n128_mc2", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n128_mc2), 256, 128,
     42.7, "128x128 tiles, clusters of 2 block rows, B multicast by TMA", "L2 at 85 flop/B, fill"},
    {"wgmma_pdl", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_pdl), 128, 256, 51.2,
     "rung 8 (128x256) launched with programmatic dependent launch: set-up overlaps the previous kernel's tail",
     "as wgmma, less the launch gap between kernels"},
    {"wgmma_mc2_pdl", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_mc2_pdl), 256, 256,
     51.2, "wgmma_mc2 with programmatic dependent launch", "as wgmma_mc2"},
    {"wgmma_n128_k2_pdl", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n128_k2_pdl), 128,
     128, 42.7, "wgmma_n128_k2 with programmatic dependent launch", "as wgmma_n128_k2"},
    {"wgmma_p", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_p), 128, 256, 51.2,
     "rung 8 (128x256) persistent: one CTA per SM walks the tiles in grouped order; stage and phase counters run "
     "across tiles, so the next tile's TMA loads overlap the current epilogue (issue 26)",
     "compute (tensor pipe), then L2 (85 flop/B); no per-tile launch or pipeline fill"},
    {"wgmma_p_pdl", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_p_pdl), 128, 256, 51.2,
     "wgmma_p with programmatic dependent launch: the next GEMM's CTAs start on SMs whose persistent CTA has "
     "exited", "as wgmma_p, less the launch gap"},
    {"wgmma_n128_p", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n128_p), 128, 128,
     42.7, "128x128 tiles, persistent (one CTA per SM walks the tiles; next tile's loads under the epilogue)",
     "L2 (64 flop/B), epilogue share doubled against 128x256"},
    {"wgmma_n128_pp", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n128_pp), 128, 128,
     42.7, "128x128 tiles, persistent ping-pong: each consumer warpgroup owns whole tiles (two m64n128k16 per 16 of "
     "K), their main loops alternate through two mbarriers, so one's epilogue runs under the other's main loop",
     "L2 (64 flop/B); the epilogue off the tensor pipe's critical path"},
    {"wgmma_n128_k2_ex", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n128_k2_ex), 128,
     128, 42.7, "wgmma_n128_k2 with the one-sided exchange: partials st.async into a receive buffer of the owner's "
     "own, completing the owning warp's mbarrier (no cluster barrier around the exchange)",
     "fill; the exchange overlaps the slower rank's main loop"},
    {"wgmma_n128_k4_ex", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n128_k4_ex), 128,
     128, 42.7, "wgmma_n128_k4 with the one-sided exchange (5 stages + a 48 KiB receive buffer)",
     "pipeline fill (quarter-length K loops)"},
    {"wgmma_k2_ex", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_k2_ex), 128, 256, 51.2,
     "wgmma_k2 with the one-sided exchange (3 stages + a 64 KiB receive buffer)", "fill, then L2"},
    {"wgmma_n128_k2_ex_pdl", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16,
     MM_CUDA(sl_cuda_mm_wgmma_n128_k2_ex_pdl), 128, 128, 42.7,
     "wgmma_n128_k2_ex with programmatic dependent launch", "as wgmma_n128_k2_ex, less the launch gap"},
    {"wgmma_n64", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n64), 128, 64, 32.0,
     "128x64 tiles (wgmma m64n64k16, 8 stages of 24 KiB): 4x the CTAs of 128x256 (issue 26)",
     "L2 (43 flop/B): 24 KiB a slice"},
    {"wgmma_n64_pdl", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n64_pdl), 128, 64,
     32.0, "wgmma_n64 with programmatic dependent launch", "as wgmma_n64, less the launch gap"},
    {"wgmma_n64_ma2", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n64_ma2), 128, 128,
     32.0, "128x64 tiles, clusters of 2 block columns, A multicast by TMA (each CTA loads half of A)",
     "L2 at 64 flop/B (16 KiB a slice), fill"},
    {"wgmma_n64_ma2_pdl", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n64_ma2_pdl), 128,
     128, 32.0, "wgmma_n64_ma2 with programmatic dependent launch", "as wgmma_n64_ma2, less the launch gap"},
    {"wgmma_n128_ma2", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n128_ma2), 128, 256,
     42.7, "128x128 tiles, clusters of 2 block columns, A multicast by TMA", "L2 at 85 flop/B, fill"},
    {"wgmma_n192", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_n192), 128, 192, 48.0,
     "128x192 tiles (wgmma m64n192k16, 5 stages of 40 KiB): 4/3 the CTAs of 128x256, for the shapes whose "
     "128x256 tile count falls just past a wave (1536^3: 72 tiles, 96 here, on 132 SMs; issue 26)",
     "L2 (77 flop/B): 40 KiB a slice"},
    {"wgmma_auto", SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR, T16, MM_CUDA(sl_cuda_mm_wgmma_auto), 128, 256, 51.2,
     "rung 8's configuration chosen by shape (sl_cuda_mm_wgmma_pick): what sl_gemm runs on sm_90 (issue 26)",
     "the chosen configuration's (roofline shown for 128x256)"},
    {"serial", SL_BACKEND_CPU, SL_KIND_RUNG, SL_MM_FP32, F32 | T16, sl_cpu_mm_serial, 0, 0, 0,
     "one CPU thread, i-k-j, fp32 accumulation (seed 002's CPU)", "CPU"},
    {"omp", SL_BACKEND_CPU, SL_KIND_RUNG, SL_MM_FP32, F32 | T16, sl_cpu_mm_omp, 0, 0, 0,
     "OpenMP over rows, i-k-j, fp32 accumulation", "CPU"},
};

const int sl_mm_nvariants = (int)(sizeof sl_mm_variants / sizeof sl_mm_variants[0]);

const sl_mm_variant *sl_mm_variant_find(const char *name)
{
    for (int i = 0; i < sl_mm_nvariants; i++)
        if (!strcmp(sl_mm_variants[i].name, name))
            return &sl_mm_variants[i];
    return NULL;
}
