/*
 * tile4 (ours; add's rung 7): a block tile of 256 threads x 4 16-byte
 * vectors per input, all loads issued before the first fma (tile.cuh).
 *
 * Expectation: 128 bytes in flight per thread, DRAM-bound like add's tile4
 * (0.985 x CUB there).
 */
#include "axpy.cuh"
#include "tile.cuh"

template <int DT, class OP> using rung_tile4 = rung_tile<256, 4, HINT_DEFAULT, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_axpy_tile4, rung_tile4, sl_k_axpy)
