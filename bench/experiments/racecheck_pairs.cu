/*
 * racecheck_pairs.cu - does compute-sanitizer's racecheck follow named
 * barriers (bar.sync id, 64) beside __syncthreads? Supports docs/ladder.md,
 * "The norms' backwards, eighth session: the short rows in flight (pair
 * teams)": racecheck reported hazards in the pair-team kernels between a
 * thread's own shared-memory slot (written in the row loop) and the block's
 * reads of every slot after a __syncthreads, which program order rules out.
 *
 * This kernel has the same synchronisation and nothing else: 256 threads,
 * four pairs of warps; in each step a pair sums a value through its own
 * named barrier (1 + pair, 64 threads, two phases of a shared array), then
 * every thread adds the sum into its own slots of dynamic shared memory
 * ([slot x 256 + t]); after the steps of a round, __syncthreads, every
 * thread reads one slot of all 256 threads, __syncthreads, every thread
 * zeroes its own slots. In the last step some pairs sit out (as the norms'
 * teams past the last row do). NAMED = 0 puts a __syncthreads where the
 * named barrier was and keeps every pair in every step (the control).
 * Correct by construction either way; the host checks the sums.
 *
 *   nvcc -arch=sm_90 -O3 -o /tmp/rcp bench/experiments/racecheck_pairs.cu
 *   compute-sanitizer --tool racecheck /tmp/rcp named
 *   compute-sanitizer --tool racecheck /tmp/rcp control
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_check.h"

enum { NT = 256, SLOTS = 8, STEPS = 6, ROUNDS = 3, LIVE_LAST = 2 };

static __device__ void pair_barrier(unsigned pair)
{
    switch (pair) { /* immediates: one barrier id a pair */
    case 0: asm volatile("bar.sync 1, 64;" ::: "memory"); break;
    case 1: asm volatile("bar.sync 2, 64;" ::: "memory"); break;
    case 2: asm volatile("bar.sync 3, 64;" ::: "memory"); break;
    default: asm volatile("bar.sync 4, 64;" ::: "memory"); break;
    }
}

template <int NAMED> __global__ void __launch_bounds__(NT) pairs(float *out)
{
    extern __shared__ float4 acc[];
    __shared__ float pr[2][NT / 32];
    const unsigned t = threadIdx.x, w = t >> 5, pair = t >> 6;
    unsigned ph = 0;
    for (int s = 0; s < SLOTS; s++)
        acc[s * NT + t] = make_float4(0.f, 0.f, 0.f, 0.f);
    __syncthreads();
    for (int j = 0; j < ROUNDS; j++) {
        for (int k = 0; k < STEPS; k++) {
            if (NAMED && k == STEPS - 1 && pair >= LIVE_LAST)
                continue; /* this pair's rows are done */
            float v = (float)(t + k + j);
            for (int o = 16; o > 0; o >>= 1)
                v += __shfl_xor_sync(0xffffffffu, v, o);
            if ((t & 31u) == 0)
                pr[ph][w] = v;
            if (NAMED)
                pair_barrier(pair);
            else
                __syncthreads();
            v = pr[ph][w & ~1u] + pr[ph][w | 1u];
            ph ^= 1u;
            for (int s = 0; s < SLOTS; s++) {
                float4 a = acc[s * NT + t];
                a.x += v, a.y += 2.f * v, a.z += 3.f * v, a.w += 4.f * v;
                acc[s * NT + t] = a;
            }
        }
        __syncthreads(); /* every slot written */
        float sum = 0.f;
        for (unsigned q = 0; q < NT; q++)
            sum += acc[(t % SLOTS) * NT + q].x;
        out[(blockIdx.x * ROUNDS + j) * NT + t] = sum;
        __syncthreads(); /* every slot read */
        for (int s = 0; s < SLOTS; s++)
            acc[s * NT + t] = make_float4(0.f, 0.f, 0.f, 0.f);
    }
}

/* The value a block's thread t writes in round j: the sum over all 256
 * threads q of the pair sums q's pair took in that round. */
static double expect(int named, int j)
{
    double total = 0.0;
    for (int q = 0; q < NT; q++) {
        const int pair = q / 64;
        for (int k = 0; k < STEPS; k++) {
            if (named && k == STEPS - 1 && pair >= LIVE_LAST)
                continue;
            double v = 0.0;
            for (int p = pair * 64; p < pair * 64 + 64; p++)
                v += p + k + j;
            total += v;
        }
    }
    return total;
}

int main(int argc, char **argv)
{
    const int named = argc > 1 && strcmp(argv[1], "control") == 0 ? 0 : 1;
    const int blocks = 4;
    float *d = NULL;
    const size_t n = (size_t)blocks * ROUNDS * NT;
    CK(cudaMalloc(&d, n * sizeof(float)));
    const size_t smem = SLOTS * NT * sizeof(float4);
    if (named)
        pairs<1><<<blocks, NT, smem>>>(d);
    else
        pairs<0><<<blocks, NT, smem>>>(d);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    float *h = (float *)malloc(n * sizeof(float));
    if (!h)
        return 1;
    CK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        const double e = expect(named, (int)(i / NT % ROUNDS));
        if (fabs((double)h[i] - e) > 1e-5 * fabs(e))
            bad++;
    }
    printf("racecheck_pairs %s: %d of %zu sums wrong\n", named ? "named" : "control", bad, n);
    free(h);
    CK(cudaFree(d));
    return bad != 0;
}
