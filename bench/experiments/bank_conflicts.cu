/*
 * Experiment (bench/experiments/): supports docs/ladder.md, "Transpose and
 * bank conflicts (issue 11, seed 004)" (predictions, measurement, where
 * Hopper differs from Volta); docs/probes.md, "bank" (the probe that
 * replaced it in streamlab probe).
 * Run: STAGES=transpose bash bench/device.sh (its bank stage).
 *
 * bank_conflicts.cu - seed 004's shared-memory bank-conflict rules, measured
 * (issue 11): every lane of a warp loads (or stores) one word of W = 4, 8
 * or 16 bytes at word index lane x s, for strides s = 1..32, and the time
 * per warp-wide access is compared with the n-way conflict the seed's
 * rules predict (seed 004, "Bank Conflict Resolution", lines 670-707):
 *
 *   4-byte words: one phase of 32 lanes; n = gcd(s, 32) lanes share a bank
 *                 (their words are s x 4 bytes apart: different words).
 *   8-byte words: two phases of 16 lanes; a word spans 2 banks; per phase
 *                 n = gcd(s, 16); 2 x n wavefronts in all.
 *  16-byte words: four phases of 8 lanes; per phase n = gcd(s, 8);
 *                 4 x n wavefronts in all.
 *
 * So the predicted cost of one warp access, in shared-memory wavefronts
 * (one wavefront: up to 128 bytes, one 4-byte word per bank, per clock,
 * seed 004 "Volta Shared Memory": 32 banks x 4 B per clock per SM), is
 * gcd(s, 32), 2 gcd(s, 16) and 4 gcd(s, 8).
 *
 * Method: one block of 1024 threads (32 warps) per SM, every SM busy; each
 * warp issues ITER x 16 volatile shared-memory accesses (PTX ld/st
 * .volatile.shared, so none is merged or hoisted) to the same addresses,
 * the block's SM clock (clock64) read around the loop after a barrier.
 * cycles per warp access = block cycles / (32 warps x ITER x 16): the
 * shared-memory pipe's throughput, which a conflict divides. Under ncu the
 * same kernels give l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{ld,st}
 * and l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}
 * (bench/transpose_h200.sh).
 *
 * Build: nvcc -O3 -arch=sm_90 -o bank_conflicts bench/experiments/bank_conflicts.cu
 * Run:   ./bank_conflicts [strides, e.g. 1,2,4,32 [reps]] > bank.csv
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WARPS = 32, THREADS = WARPS * 32, ITER = 256, UNROLL = 16, SMEM = 16384 };

#include "../bench_check.h"

template <int W, bool STORE> __device__ __forceinline__ uint32_t access(uint32_t a, uint32_t v)
{
    if (W == 4) {
        if (STORE) {
            asm volatile("st.volatile.shared.u32 [%0], %1;" ::"r"(a), "r"(v) : "memory");
            return v;
        }
        uint32_t x;
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(x) : "r"(a) : "memory");
        return x;
    } else if (W == 8) {
        if (STORE) {
            asm volatile("st.volatile.shared.v2.u32 [%0], {%1, %1};" ::"r"(a), "r"(v) : "memory");
            return v;
        }
        uint32_t x, y;
        asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(x), "=r"(y) : "r"(a) : "memory");
        return x ^ y;
    } else {
        if (STORE) {
            asm volatile("st.volatile.shared.v4.u32 [%0], {%1, %1, %1, %1};" ::"r"(a), "r"(v) : "memory");
            return v;
        }
        uint32_t x, y, z, w;
        asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                     : "r"(a)
                     : "memory");
        return x ^ y ^ z ^ w;
    }
}

template <int W, bool STORE>
__global__ void __launch_bounds__(THREADS) probe(int stride, unsigned long long *cycles, uint32_t *sink)
{
    __shared__ __align__(16) unsigned char sm[SMEM];
    for (int i = threadIdx.x; i < SMEM / 4; i += THREADS)
        ((uint32_t *)sm)[i] = i * 2654435761u;
    const int lane = threadIdx.x & 31;
    const uint32_t a = (uint32_t)__cvta_generic_to_shared(sm + ((lane * stride * W) % SMEM));
    uint32_t acc = lane;
    __syncthreads();
    const long long t0 = clock64();
    for (int it = 0; it < ITER; it++) {
#pragma unroll
        for (int u = 0; u < UNROLL; u++)
            acc ^= access<W, STORE>(a, acc);
    }
    __syncthreads();
    const long long t1 = clock64();
    if (threadIdx.x == 0)
        cycles[blockIdx.x] = (unsigned long long)(t1 - t0);
    if (acc == 0x7fffffffu)
        sink[blockIdx.x] = acc; /* keeps the loads live; practically never true */
}

static int gcd(int a, int b)
{
    while (b) {
        int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static int reps = 3; /* timed launches per case (best kept); 1: no warm-up either (for ncu) */

template <int W, bool STORE> static double run(int sms, int stride, unsigned long long *d_cyc, uint32_t *d_sink)
{
    if (reps > 1) {
        probe<W, STORE><<<sms, THREADS>>>(stride, d_cyc, d_sink); /* warm-up */
        CK(cudaGetLastError());
    }
    double best = 1e30;
    unsigned long long *h = (unsigned long long *)malloc(sizeof *h * sms);
    for (int rep = 0; rep < reps; rep++) {
        probe<W, STORE><<<sms, THREADS>>>(stride, d_cyc, d_sink);
        CK(cudaGetLastError());
        CK(cudaMemcpy(h, d_cyc, sizeof *h * sms, cudaMemcpyDeviceToHost));
        double sum = 0;
        for (int b = 0; b < sms; b++)
            sum += (double)h[b];
        const double per = sum / sms / ((double)WARPS * ITER * UNROLL);
        if (per < best)
            best = per;
    }
    free(h);
    return best;
}

int main(int argc, char **argv)
{
    int strides[32], ns = 0;
    if (argc > 1) {
        for (char *t = strtok(argv[1], ","); t && ns < 32; t = strtok(NULL, ","))
            strides[ns++] = atoi(t);
    } else {
        for (int s = 1; s <= 32; s++)
            strides[ns++] = s;
    }
    if (argc > 2)
        reps = atoi(argv[2]);
    if (reps < 1 || reps > 100) {
        fprintf(stderr, "bank_conflicts: reps %d outside 1..100\n", reps);
        return 2;
    }
    for (int i = 0; i < ns; i++)
        if (strides[i] < 1 || strides[i] > 32) {
            fprintf(stderr, "bank_conflicts: stride %d outside 1..32\n", strides[i]);
            return 2;
        }
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    const int sms = p.multiProcessorCount;
    unsigned long long *d_cyc;
    uint32_t *d_sink;
    CK(cudaMalloc(&d_cyc, sizeof *d_cyc * sms));
    CK(cudaMalloc(&d_sink, sizeof *d_sink * sms));
    printf("# %s, %d SMs; cycles per warp access (SM clock), best of %d; predicted = seed 004's wavefronts\n", p.name,
           sms, reps);
    printf("word_bytes,stride,op,predicted_wavefronts,cycles_per_access\n");
    for (int i = 0; i < ns; i++) {
        const int s = strides[i];
        const int p4 = gcd(s, 32), p8 = 2 * gcd(s, 16), p16 = 4 * gcd(s, 8);
        printf("4,%d,ld,%d,%.3f\n", s, p4, run<4, false>(sms, s, d_cyc, d_sink));
        printf("4,%d,st,%d,%.3f\n", s, p4, run<4, true>(sms, s, d_cyc, d_sink));
        printf("8,%d,ld,%d,%.3f\n", s, p8, run<8, false>(sms, s, d_cyc, d_sink));
        printf("8,%d,st,%d,%.3f\n", s, p8, run<8, true>(sms, s, d_cyc, d_sink));
        printf("16,%d,ld,%d,%.3f\n", s, p16, run<16, false>(sms, s, d_cyc, d_sink));
        printf("16,%d,st,%d,%.3f\n", s, p16, run<16, true>(sms, s, d_cyc, d_sink));
    }
    CK(cudaDeviceSynchronize());
    return 0;
}
