/*
 * v1 (seed 001, 2.1 "saxpy"): one thread per element, 256 threads per
 * block. The naive kernel every elementwise ladder starts with
 * (ew_rungs.cuh), with the axpy op; 64-bit index (n >= 2^31).
 *
 * Expectation: as add's naive rung: coalesced 4-byte accesses, only two
 * loads in flight per thread, latency bound on Hopper. Seed 001 measured
 * 36% of DRAM peak on a B200 at n = 2^25 (ncu).
 */
#include "axpy.cuh"
#include "ew_rungs.cuh"

SL_EW_LAUNCHER(sl_cuda_axpy_v1_naive, rung_naive, sl_k_axpy)
