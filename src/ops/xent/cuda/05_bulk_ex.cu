/*
 * cross-entropy rung 5 (ours): bulk (rung 4) with the one-sided cluster
 * exchange of the norms' and softmax's bulk_ex (cluster_x1.cuh), in two
 * configurations of xk_bulk.cuh's template:
 *   bulk_ex     256 threads, chunks of 32 KiB (the fewest that fit; rows
 *               over 8 x 32 KiB take up to 8 x 72 KiB), six blocks an SM
 *               at 32 KiB;
 *   bulk_ex512  bulk's 512 threads and chunks of <= 72 KiB: the exchange
 *               alone.
 *
 * Change from rung 4 (bulk): bulk reduces over the block four times a row
 * (the max, the sum of exp, the sum of the logits with smoothing: each
 * smx_block two bar.sync) and then over the cluster once (thread 0 writes
 * the block's (max, sum, sum x, target logit), a full cluster barrier,
 * thread 0 reads the C slots remotely and merges them, a bar.sync hands
 * the result to the block, an arrive.release (MEMBAR.ALL.GPU) and its
 * wait at the exit). Here every reduction stops at the warp: each warp's
 * max is the reference of its own sum of exp and gradient terms (one fma
 * and one MUFU.EX2 an element as before, nl a warp), and the warps'
 * (max, sum, sum x, target logit) go, 16 bytes by one st.async .v4 a
 * destination, into slot [rank x warps + warp] of every CTA of the
 * cluster, completing that CTA's mbarrier; each warp waits once on its
 * own CTA's and folds the warps x C states in slot order (the max of all,
 * each sum rescaled to it by expf as smx_ms_merge, the other two sums
 * added): the same (M, S, SX, XT) bits in every warp of every CTA, so the
 * loss and lse (rank 0's thread 0) and every block's gradient agree. The
 * gradient's factor is exp(ref_warp - M) / S a warp. No bar.sync (but the
 * one after the mbarriers' initialisation), no cluster barrier and no
 * MEMBAR in a row's path, nothing waited at the exit.
 * Bytes in flight: bulk_ex512 stages what bulk stages; its blocks no
 * longer hold all warps on eight bar.sync and a cluster barrier between
 * the load and the gradient stores, so an SM's other blocks' loads and
 * stores keep the DRAM queue fuller. bulk_ex: six blocks of 32 KiB an SM
 * (192 KiB staged, as bulk's three of 64-72 KiB), each in its own phase.
 *
 * Numerics: as rung 4 with the warp's max in place of the block's as the
 * reference: 04_bulk.cu's bound for factors across the cluster's blocks
 * ((|x - ref| + |ref| + |M|) 2^-24 relative on p) holds for factors
 * across warps unchanged. A warp of -inf logits takes factor 0. In place
 * (dx = x) as rung 4: a block writes only its own chunk, after all of it
 * has landed; the target's element by the thread that stored its vector.
 *
 * Limits: rung 4's (logits and dx 16-byte aligned, rows whole 16-byte
 * vectors, at most 8 x 72 KiB a row, sm_90), else SL_ERR_UNSUPPORTED.
 * Expectation (written before the first run; docs/ladder.md, "The fused
 * bulk rung, tenth session"), H200, bf16, fraction of the copy kernel:
 * 16384 x 131072 bulk_ex 0.86-0.92, bulk_ex512 0.84-0.88; 16384 x 262144
 * bulk_ex 0.80-0.86 (three 256-thread blocks of 64 KiB an SM), bulk_ex512
 * 0.84-0.88 (bulk 0.76-0.81 and 0.78-0.79).
 */
#include "xk_bulk.cuh"

typedef row_bulk_cfg<256, 6, 2048, 1> xk_ex;
typedef row_bulk_cfg<512, 3, XK_MAXV, 1> xk_ex512;

bool sl_cuda_xent_bulk_ex_fits(const sl_xent_args *a)
{
    return xk_fits<xk_ex>(a);
}

sl_status sl_cuda_xent_bulk_ex_run(const sl_xent_args *a)
{
    return xk_run<xk_ex>(a, "bulk_ex");
}

extern "C" sl_status sl_cuda_xent_bulk_ex(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 1);
    return sl_cuda_xent_bulk_ex_run(&x);
}

extern "C" sl_status sl_cuda_xent_bulk_ex_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return xk_attrs<xk_ex>(dt, out);
}

extern "C" sl_status sl_cuda_xent_bulk_ex512(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 1);
    return xk_run<xk_ex512>(&x, "bulk_ex512");
}

extern "C" sl_status sl_cuda_xent_bulk_ex512_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return xk_attrs<xk_ex512>(dt, out);
}
