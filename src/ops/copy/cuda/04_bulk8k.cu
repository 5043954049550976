/*
 * copy rung 4 (an experiment): rung 3 with 8 KiB tiles (two 16-byte
 * vectors per thread, bulk.cuh V = 2) instead of 4 KiB.
 *
 * Why: with one input, rung 3 keeps one 4 KiB bulk load per block in
 * flight, 8 blocks per SM: 32 KiB per SM, under the ~48 KiB knee of the
 * H200's bandwidth-vs-bytes-in-flight curve (docs/probes.md), and measured
 * 0.97-0.99 x CUB where vec (64 KiB per SM) measured 1.00-1.02.
 * Prediction: 8 KiB tiles restore 64 KiB per SM (shared memory allows 8
 * blocks of 8 KiB), so this rung should land on vec's bandwidth, within 1%.
 */
#include "bulk.cuh"
#include "copy.cuh"

template <int DT, class OP> using rung_bulk8k = rung_bulk_tile<256, 2, false, DT, OP>;

SL_EW_LAUNCHER(sl_cuda_copy_bulk8k, rung_bulk8k, sl_k_copy)
