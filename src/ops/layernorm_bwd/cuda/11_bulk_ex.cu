/*
 * layernorm backward rung 12 (bulk_ex): the bulk rung's kernel
 * (common/norm_bwd_bulk.cuh) in its EX configuration, launched by
 * 05_bulk.cu's sl_cuda_layernorm_bwd_bulk_rung: the same staging (x and dy
 * chunks by cp.async.bulk two rows ahead, clusters of 1-8 blocks of 512 a
 * row, persistent teams), the same partial rows and fp64 finish
 * (deterministic), with fewer instructions and waits a row:
 * - the two row sums one-sided (common/cluster_x1.cuh, as the forwards'
 *   bulk_ex): each warp's pair of sums st.async into its slot in every CTA
 *   of the cluster, one mbarrier wait, each warp folding the 16 x C slots
 *   in index order; no __syncthreads between the passes (bulk: one, then
 *   a second butterfly and thread 0's serial pushes);
 * - the rstd and mean of row k + 2 copied into shared memory by thread 0
 *   (cp.async) when it issues that row's stage (bulk: every warp loaded
 *   them when the row started and waited for the round trip at once);
 * - w's chunk widened to f32 once, in shared memory (bulk: widened from
 *   16-bit in both passes of every row);
 * - dx in four operations an element where bulk takes five, fmaf(x - mean,
 *   -c2 rstd^2, fmaf(w dy, rstd, -c1 rstd)), for 2^-32 <= rstd <= 2^32
 *   (rows beyond take bulk's form), and 1 / N once a launch.
 *
 * Why (docs/ladder.md, "The norms' backwards, eleventh session: the long
 * rows' instructions and waits"): at 8192 x 16384-65536 bf16 bulk runs
 * layernorm at 0.756 / 0.790 of the copy against rmsnorm's 0.866 / 0.911
 * on the H200 with the same template; both issue at the same rate, and
 * layernorm's warp takes ~530 instructions a row against rmsnorm's ~463
 * (SASS, the typical warp at C = 2): the time ratio is the instruction
 * ratio. Here ~465 (-12%), with the row-start load and one block barrier a
 * row off the path.
 * Bytes in flight: as bulk (two 32 KiB stages of x and dy a block, two
 * blocks a SM: up to 128 KiB a SM); shared memory 96 KiB a block at 16-bit
 * (w's chunk as f32: 32 KiB where bulk keeps 16), still two blocks a SM.
 * Expectation (unmeasured): H200, bf16, of the copy kernel: 0.82-0.90 at
 * 8192 x 16384, 0.86-0.93 at 8192 x 65536 (bulk 0.756 / 0.790).
 * Limits: as bulk (aligned launches, rows of at most 65536 columns, sm_90);
 * else SL_ERR_UNSUPPORTED.
 */
#include "layernorm_bwd.h"

extern "C" sl_status sl_cuda_layernorm_bwd_bulk_ex(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_bulk_rung(a, 1, "bulk_ex");
}
