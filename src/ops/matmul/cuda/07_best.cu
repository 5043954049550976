/*
 * 07_best.cu - rung 7: our best verified tensor-core kernel on sm_90.
 *
 * What it is, honestly: not Hopper's wgmma + TMA (asynchronous warpgroup
 * MMA from shared-memory descriptors, fed by the Tensor Memory
 * Accelerator), which is what cuBLAS runs on the H200; we did not have
 * the time to make and verify one. It is rung 6's WMMA kernel
 * (mm_wmma.cuh) with the configuration that measured fastest on the H200
 * among the ones tried (bench/matmul_bench.c --explore): larger warp
 * tiles (64x64: 16 accumulator fragments, each A fragment reused 4 times
 * and each B fragment 4 times, against 2 and 4 in rung 6), a deeper
 * cp.async pipeline, and a grouped block order so that 8 block rows share
 * their B panels in L2.
 * Arithmetic intensity: per warp per 16-deep step 8 fragments (4 KiB of
 * shared reads) for 16 x 8192 flops: 32 flop/B of shared memory (rung 6:
 * 21); to L2 / DRAM 2 BM BN / (BM + BN) / sizeof(bf16) flop/B: 85 for
 * 128x256 tiles.
 * Expected limiter: the mma.sync issue rate and shared-memory bandwidth;
 * an mma.sync kernel on Hopper stays well below the wgmma peak.
 */
#include "mm_wmma.cuh"

/* The configurations tried (index 0 is the default). */
template <class Ts> static sl_status best_cfg(const sl_mm *p, int cfg)
{
    switch (cfg) {
    case 0: return mm_wmma_launch<Ts, 128, 256, 64, 64, 4, true>(p, "matmul best");
    case 1: return mm_wmma_launch<Ts, 128, 128, 64, 64, 4, true>(p, "matmul best");
    case 2: return mm_wmma_launch<Ts, 256, 128, 64, 64, 3, true>(p, "matmul best");
    case 3: return mm_wmma_launch<Ts, 128, 128, 64, 32, 4, true>(p, "matmul best");
    default: return sl_fail(SL_ERR_INVALID_ARG, "matmul best: no configuration %d", cfg);
    }
}

extern "C" sl_status sl_cuda_mm_best_cfg(const sl_mm *p, int cfg)
{
    switch (p->dtype) {
    case SL_BF16: return best_cfg<__nv_bfloat16>(p, cfg);
    case SL_F16: return best_cfg<__half>(p, cfg);
    default: return mm_need_dtype(p, (1u << SL_BF16) | (1u << SL_F16), "matmul best");
    }
}

extern "C" sl_status sl_cuda_mm_best(const sl_mm *p)
{
    return sl_cuda_mm_best_cfg(p, 0);
}
