/*
 * bench/bench_check.h - the CUDA runtime check that the standalone bench
 * programs share (bench/matmul_bench.c, bench/py_graph_c.c,
 * bench/experiments/align_bench.cu, bench/experiments/bank_conflicts.cu):
 * a failed call prints where and why, and the program exits 1. The library
 * itself never exits; it returns an sl_status (src/cuda/cuda_check.h).
 * Include it after <cuda_runtime_api.h> (or <cuda_runtime.h>) and <stdio.h>.
 */
#ifndef SL_BENCH_CHECK_H
#define SL_BENCH_CHECK_H

#include <stdlib.h>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#endif
