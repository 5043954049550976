/*
 * softmax rung 10 (ours): bulk (rung 9) with the one-sided cluster
 * exchange of the norms' bulk_ex (cluster_x1.cuh), in two configurations
 * of smx_bulk.cuh's template:
 *   bulk_ex     256 threads, chunks of 32 KiB (the fewest that fit; rows
 *               over 8 x 32 KiB take up to 8 x 72 KiB), pieces of 8 KiB,
 *               six blocks an SM at 32 KiB;
 *   bulk_ex512  bulk's 512 threads and chunks of <= 72 KiB: the exchange
 *               alone.
 *
 * Change from rung 9 (bulk): after its sweep each warp folds its lanes'
 * online (max, sum) (the butterfly, as bulk); then, where bulk wrote the
 * warps' states to shared memory, synchronised the block, let warp 0 fold
 * them, synchronised the cluster (a full barrier.cluster arrive + wait),
 * read the C blocks' states remotely, synchronised the block again and
 * arrived on the cluster barrier with release (a MEMBAR.ALL.GPU) to wait
 * on it at the exit, each warp here stores its (max, sum) (8 bytes, one
 * st.async .v2) into slot [rank x warps + warp] of every CTA of the
 * cluster, completing that CTA's mbarrier, waits once on its own CTA's
 * mbarrier and folds the warps x C states in slot order (the max of all,
 * then each sum rescaled to it by one exp, in the same order in every
 * warp: the same (M, S) bits in every warp of every CTA of the row). No
 * bar.sync (beyond the one after the mbarriers' initialisation) and no
 * cluster barrier in the row's path, nothing waited at the exit; the
 * cluster arrive (relaxed) follows the initialisation and its wait comes
 * before the first remote store, by then overlapped by the loads.
 * Bytes in flight: the same chunks staged as bulk for bulk_ex512; what
 * changes is that a block no longer idles all its warps on two block
 * barriers and a cluster barrier between its sweeps (at C = 8 the cluster
 * barrier also waits for the slowest of eight blocks), so the SM's next
 * block's loads are not held up behind it. bulk_ex halves the chunk:
 * six blocks of 32 KiB an SM (192 KiB staged, as bulk's three of 64-72),
 * each in its own phase, so a block in its exchange or stores leaves 1/6
 * of the SM's staging idle instead of 1/3 (the norms measured 0.917 ->
 * 0.957 of the copy with both, 0.956 with the exchange alone, rmsnorm
 * 8192 x 65536 bf16 on an H200).
 *
 * Numerics: rung 9's sweep; the row's state is merged from the warps'
 * states directly (one rescale a warp state to the row's max, where bulk
 * rescaled to the block's max and then to the row's): one rounding fewer.
 * Special rows as rung 9: a NaN sum stays NaN (its factor is 0 only for a
 * warp state of -inf, and NaN x 0 is NaN), a row of -inf gives M = -inf.
 *
 * Limits: rung 9's (x and y 16-byte aligned, rows whole 16-byte vectors,
 * at most 8 x 72 KiB a row, sm_90), else SL_ERR_UNSUPPORTED.
 * Expectation (written before the first run; docs/ladder.md, "Softmax
 * forward, tenth session"), H200, fraction of the copy kernel: bf16
 * 16384 x 131072 bulk_ex 0.95-0.97, bulk_ex512 0.94-0.95 (bulk ~0.93);
 * f32 there 0.84-0.88 / 0.86-0.89 (bulk ~0.84); bf16 128 x 131072 26-29 /
 * 29-30 us (bulk 30.9 us).
 */
#include "smx_bulk.cuh"

typedef row_bulk_cfg<256, 6, 2048, 1> sb_ex;
typedef row_bulk_cfg<512, 3, SB_MAXV, 1> sb_ex512;

extern "C" sl_status sl_cuda_softmax_bulk_ex(const sl_args *a)
{
    return sb_run<sb_ex>(a, "bulk_ex");
}

extern "C" sl_status sl_cuda_softmax_bulk_ex_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sb_attrs<sb_ex>(dt, out);
}

extern "C" sl_status sl_cuda_softmax_bulk_ex512(const sl_args *a)
{
    return sb_run<sb_ex512>(a, "bulk_ex512");
}

extern "C" sl_status sl_cuda_softmax_bulk_ex512_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sb_attrs<sb_ex512>(dt, out);
}
