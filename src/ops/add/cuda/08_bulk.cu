/*
 * Rung 8 (ours): the inputs staged through shared memory by the bulk-copy
 * engine (cp.async.bulk, the non-tensor TMA path), completed on an mbarrier;
 * one tile per block.
 *
 * Change from rung 7: one thread per block issues two bulk copies (a tile,
 * b tile) instead of 2 x 256 x K LDG.128; the SM's load/store unit no longer
 * tracks hundreds of outstanding 16-byte requests per block. Every thread
 * waits on the barrier's transaction count, adds from shared memory
 * (consecutive float4 per thread: conflict-free) and stores float4 to global.
 * CUB's DeviceTransform takes the same route on sm_90 ("ublkcp").
 *
 * First version: 16 KiB tiles per input (V = 4), 6 blocks/SM by shared
 * memory: 0.985 x CUB at 200M. CUB sizes its tile to just reach 48 KiB in
 * flight per SM at full occupancy (3 KiB per input). With V = 1 (4 KiB per
 * input, 8 KiB of shared memory, 15 registers) 8 blocks of 256 fit per SM,
 * 64 KiB in flight: 0.998-1.000 x CUB at 100M-200M (docs/ladder.md, the
 * tile sweep). Needs sm_90.
 */
#include "add.cuh"
#include "bulk.cuh"

#define BULK_BLOCK 256
#define BULK_V 1

template <int DT, class OP> using rung_bulk = rung_bulk_tile<BULK_BLOCK, BULK_V, false, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_add_bulk, rung_bulk, sl_k_add)
