/*
 * add_rmsnorm rung 8 (bulk): rmsnorm's bulk rung (rmsnorm/cuda/10_bulk.cu)
 * in MODE NORM_ADD_RMS (common/norm_fwd_bulk.cuh): a row's x and res
 * staged in shared memory by bulk copies, 1-8 chunks of at most 32 KiB of
 * each a block of 512 threads, a row's blocks one cluster; h = x + res
 * rounded into the dtype, stored with 16-byte stores and written over x in
 * shared memory, the sum of the rounded h^2 (as the register kernel and an
 * unfused add then rmsnorm), the cluster's sums exchanged once through
 * distributed shared memory, then y = h rstd w from shared memory. Aligned
 * launches only and at most 256 KiB of x a row (131072 bf16, 65536 f32);
 * else SL_ERR_UNSUPPORTED.
 *
 * Change from rung 7 (aligned): aligned holds x and res in registers
 * (lean's clusters of 8 x 256, 2 blocks an SM: x and res take 64
 * registers of row), so an SM has one row's chunk in flight and none
 * while it reduces (0.816 of the copy at 8192 x 65536 bf16 on an H200).
 * Here an SM holds three blocks of 64 KiB (x and res), each in its own
 * phase; h's stores leave before the cluster barrier.
 *
 * Expectation (written before the first run): at 8192 x 65536 bf16
 * (clusters of 4) 0.94-0.97 of the copy; at 16384 (one block) 0.97-1.0;
 * docs/ladder.md, "The norms' forwards, seventh session".
 */
#include "arms.cuh"
#include "norm_fwd_bulk.cuh"

NFB_RUNG(add_rmsnorm, NORM_ADD_RMS, arms_geo_of, SL_ARMS_W, bulk, nfb_bulk)
