/*
 * rmsnorm rung 10 (bulk): the row staged in shared memory by the
 * bulk-copy engine (cp.async.bulk, sm_90), the cross-entropy bulk rung's
 * scheme with rmsnorm's arithmetic (common/norm_fwd_bulk.cuh, MODE
 * NORM_RMS): a row cut into 1-8 chunks of at most 64 KiB, one block of 512
 * threads a chunk, a row's blocks one cluster; thread 0 brings the chunk
 * in with 16 KiB bulk copies on one mbarrier, the block sums x^2 from
 * shared memory, the cluster's blocks exchange their sums once through
 * distributed shared memory, then y = x rstd w goes out from shared memory
 * with 16-byte stores. Aligned launches only (norm_fwd_aligned) and rows
 * of at most 512 KiB (262144 bf16, 131072 f32); else SL_ERR_UNSUPPORTED.
 *
 * Change from rung 9 (aligned): at N = 65536 bf16 aligned holds the row
 * in registers across a cluster of 8 x 256 threads, 8 vectors a thread,
 * 4 blocks (half a row) an SM under its register cap: while a block
 * reduces and meets its cluster it has no load in flight, and an SM's
 * blocks reach the barrier together, so its load, barrier and store
 * phases run one after another (0.847 of the copy on an H200,
 * h200-norms-aligned2-2026-11-26j.md). Here the row costs no registers:
 * an SM holds three 64 KiB chunks (3 x 512 threads), each in its own
 * phase, and one bulk copy puts 16 KiB in flight from one instruction.
 * Bytes in flight an SM: up to 3 x 64 KiB of loads against aligned's
 * 4 x 256 x 8 x 16 = 128 KiB, which it holds only between its load and
 * its barrier; Little's law asks ~36 KiB an SM (4.8 TB/s x ~1 us over 132
 * SMs).
 *
 * Expectation (written before the first run): at 8192 x 65536 bf16
 * (clusters of 2 x 64 KiB) 0.95-0.98 of the copy (softmax_bwd's bulk rung,
 * one pass before its barrier as here, ran 1.05 with clusters of 8); at
 * 8192 x 16384 and 32768 (one block a row, no cluster) 0.97-1.0; at
 * 4096 x 131072 (clusters of 4) 0.94-0.97. docs/ladder.md, "The norms'
 * forwards, seventh session".
 */
#include "regs.cuh"
#include "norm_fwd_bulk.cuh"

NFB_RUNG(rmsnorm, NORM_RMS, rms_fwd_geo_of, SL_RMS_W, bulk, nfb_bulk)
