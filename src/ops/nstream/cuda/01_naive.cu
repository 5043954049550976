/*
 * nstream rung 1: naive, one thread per element, 256 threads per block
 * (ew_rungs.cuh). BabelStream Nstream is this kernel with 1024-thread blocks
 * and an n that must be a multiple of 1024.
 *
 * Expectation: coalesced 4-byte (8-byte for f64) accesses but few bytes in
 * flight per thread: 3 read + 1 write streams (a in place) x one element. On
 * the H200 add's naive rung ran at ~0.80 x CUB (latency bound); f64 doubles
 * the bytes per load, so expect it closer to the roof in f64 than in f32.
 */
#include "nstream.cuh"
#include "ew_rungs.cuh"

SL_EW_LAUNCHER(sl_cuda_nstream_naive, rung_naive, sl_k_nstream)
