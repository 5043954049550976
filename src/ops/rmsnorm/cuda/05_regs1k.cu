/*
 * rmsnorm rung 5 (regs_1k, an experiment of issue 32's second session):
 * rows of 257-8192 vectors (N = 2056-65536 bf16) held by ONE block of 1024
 * threads, 2-8 vectors a thread, no cluster; shorter rows as regs.
 *
 * Why: every cluster configuration was the slowest row of its ladder
 * (0.81 at N = 32768 with 2 blocks, 0.74 at 65536 with 4; first H200
 * session), while a block of 512 without a cluster (regs_pf at 32768)
 * reached 0.904. A row in one block costs one block barrier pair, no
 * cluster barriers and no co-scheduling of a cluster on one GPC.
 *
 * Floor at 32768 x 65536 bf16: 4 GiB read + 4 GiB written = 8.6 GB, at
 * the copy kernel's ~4.4 TB/s about 1.95 ms. Expectation: 1024 threads x
 * 8 x 16 B = 128 KiB in flight per SM (one block per SM at <= 64
 * registers), three times Little's law's ~40 KiB, but nothing else runs on
 * the SM while its block reduces and writes: between the cluster's 0.74
 * and the 512-block's 0.90, about 0.80-0.85 of the copy at N = 65536.
 */
#include "regs.cuh"

extern "C" sl_status sl_cuda_rmsnorm_regs_1k(const sl_args *a)
{
    return rms_regs_rung(a, NORM_FWD_1K, "regs_1k");
}
