/*
 * layernorm rung 10 (bulk): rmsnorm's bulk rung (rmsnorm/cuda/10_bulk.cu)
 * in MODE NORM_LN (common/norm_fwd_bulk.cuh): the row staged in shared
 * memory by bulk copies, 1-8 chunks of at most 64 KiB a block of 512
 * threads, a row's blocks one cluster; the mean from shared memory and
 * the cluster, then sum (x - mean)^2 from shared memory again (two-pass:
 * the row is on chip, so no second DRAM read and no cancellation), the
 * cluster again, then y = fmaf((x - mean) rstd, w, b) from shared memory.
 * Aligned launches only, rows of at most 512 KiB; else SL_ERR_UNSUPPORTED.
 *
 * Change from rung 9 (aligned): aligned's clusters hold the row in
 * registers and layernorm's two team sums are two cluster barriers with
 * no load in flight (0.671 of the copy at 8192 x 65536 bf16 on an H200,
 * the worst of the three forwards). Here the two barriers are the same
 * count, but three blocks an SM, each in its own phase, keep other
 * chunks' bulk copies in flight through them.
 *
 * Expectation (written before the first run): at 8192 x 65536 bf16
 * (clusters of 2) 0.92-0.96 of the copy; at 16384 (one block a row)
 * 0.96-1.0; docs/ladder.md, "The norms' forwards, seventh session".
 */
#include "ln_regs.cuh"
#include "norm_fwd_bulk.cuh"

NFB_RUNG(layernorm, NORM_LN, ln_geo_of, SL_LN_W, bulk, nfb_bulk)
