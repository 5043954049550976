/*
 * Rung 7 (ours): block tile, K = 4 float4 per input per thread, all loads
 * issued before the first add, one tile per block (not persistent).
 *
 * Change from rung 6: instead of a grid-stride loop, block j owns a
 * contiguous tile of 256 x 4 float4, so there is no loop-carried index and
 * a finished block's slot is refilled by a fresh tile while its neighbours
 * are still loading. Full tiles run without bounds checks.
 *
 * Prediction (written before the first H200 run): 128 bytes in flight per
 * thread, far above the ~48 KiB per SM that Little's law asks, so DRAM-bound
 * and within 2% of CUB. Measured (docs/ladder.md): 0.985 x CUB at 34
 * registers (6 blocks/SM), and 0.984 after capping it at 32 registers
 * (8 blocks/SM): not occupancy. K = 1 (the vec4 rung, or this template at
 * K = 1) reaches 0.99-1.00 x CUB; more float4 per thread costs ~1.5%.
 */
#include "add.cuh"
#include "tile.cuh"

template <int DT, class OP> using rung_tile4 = rung_tile<256, 4, HINT_DEFAULT, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_add_tile4, rung_tile4, sl_k_add)
