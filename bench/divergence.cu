/*
 * divergence.cu - seed 004's warp-divergence claim, measured ("Control
 * Flow": different warps may run different code at no cost, each warp has
 * its own program counter; when the threads of one warp take different
 * paths, the inactive ones are masked and the warp runs every path; "New
 * in Volta": each thread has its own program counter, but a warp still
 * issues one path at a time). Issue 11.
 *
 * Every thread does the same amount of work, a chain of `iters` dependent
 * FFMAs, on one of P code paths (distinct constants, distinct loops: the
 * compiler cannot merge them into one predicated loop; the timing shows if
 * it did). Which path a thread takes:
 *   granularity g (2 paths): path = (thread index / g) % 2. g < 32 splits
 *       every warp (intra-warp divergence: the warp runs both loops); g >= 32
 *       gives whole warps one path (inter-warp: no cost);
 *   ways k (k paths, k = 1, 2, 4, 8): path = lane % k (intra-warp: the warp
 *       runs k loops), and the same k paths chosen per warp (warp % k:
 *       inter-warp).
 * Time: CUDA events around each launch, the minimum of `reps`, after a
 * warm-up; grid = SMs x 8 blocks of 256 threads (2048 threads per SM, full
 * occupancy). The prediction: time(intra, k ways) = k x time(uniform),
 * time(inter) = time(uniform) (the scheduler keeps every warp's issue slot
 * busy either way: the work is issue-bound with 64 warps per SM).
 *
 * Usage: divergence [out.json]   (prints a table; writes JSON when given a path)
 * Exit 0, 1 on a CUDA error, 77 without a GPU.
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                                                         \
    do {                                                                                                              \
        cudaError_t e_ = (x);                                                                                         \
        if (e_ != cudaSuccess) {                                                                                      \
            fprintf(stderr, "divergence: %s: %s (%s:%d)\n", #x, cudaGetErrorString(e_), __FILE__, __LINE__);          \
            exit(1);                                                                                                  \
        }                                                                                                             \
    } while (0)

enum { BLOCK = 256 };

/* One path: `iters` dependent FFMAs with constants of its own. */
template <int P> static __device__ __forceinline__ float path(float a, int iters)
{
    const float m = 1.0f - (P + 1) * 1e-7f, c = (P + 1) * 1e-3f;
#pragma unroll 16
    for (int i = 0; i < iters; i++)
        a = fmaf(a, m, c);
    return a;
}

static __device__ __forceinline__ float run_path(int p, float a, int iters)
{
    switch (p) {
    case 0: return path<0>(a, iters);
    case 1: return path<1>(a, iters);
    case 2: return path<2>(a, iters);
    case 3: return path<3>(a, iters);
    case 4: return path<4>(a, iters);
    case 5: return path<5>(a, iters);
    case 6: return path<6>(a, iters);
    default: return path<7>(a, iters);
    }
}

/* mode 0: path = (tid / g) % 2; mode 1: path = lane % k; mode 2: path = warp % k. */
static __global__ void __launch_bounds__(BLOCK) diverge(float *out, int mode, int g, int iters)
{
    const unsigned tid = blockIdx.x * BLOCK + threadIdx.x;
    const unsigned lane = tid % 32, warp = tid / 32;
    int p;
    if (mode == 0)
        p = (int)((tid / (unsigned)g) % 2u);
    else if (mode == 1)
        p = (int)(lane % (unsigned)g);
    else
        p = (int)(warp % (unsigned)g);
    const float a = run_path(p, (float)(tid & 255) * 1e-3f, iters);
    out[tid] = a;
}

static float time_one(float *out, int grid, int mode, int g, int iters, int reps)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    diverge<<<grid, BLOCK>>>(out, mode, g, iters); /* warm-up */
    CK(cudaGetLastError());
    float best = 1e30f;
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(e0));
        diverge<<<grid, BLOCK>>>(out, mode, g, iters);
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float ms = 0;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        if (ms < best)
            best = ms;
    }
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
    return best;
}

int main(int argc, char **argv)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("divergence: SKIPPED: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const int grid = prop.multiProcessorCount * 8, iters = 1 << 14, reps = 20;
    float *out = NULL;
    CK(cudaMalloc(&out, (size_t)grid * BLOCK * sizeof(float)));
    FILE *js = argc > 1 ? fopen(argv[1], "w") : NULL;
    if (argc > 1 && !js) {
        fprintf(stderr, "divergence: cannot write %s\n", argv[1]);
        return 2;
    }
    const double uni = time_one(out, grid, 1, 1, iters, reps);
    /* FFMA lane-ops per second of the uniform case: a sanity figure */
    const double rate = (double)grid * BLOCK * iters / (uni * 1e-3) / 1e12;
    printf("device %s, %d SMs, grid %d x %d, %d dependent FFMAs per thread\n", prop.name, prop.multiProcessorCount,
           grid, BLOCK, iters);
    printf("uniform: %.4f ms (%.2f T FFMA/s)\n", uni, rate);
    if (js)
        fprintf(js, "{\"device\": \"%s\", \"sms\": %d, \"grid\": %d, \"block\": %d, \"iters\": %d, \"reps\": %d,\n"
                    " \"uniform_ms\": %.6f, \"uniform_tffma_s\": %.4f,\n \"granularity\": [",
                prop.name, prop.multiProcessorCount, grid, BLOCK, iters, reps, uni, rate);
    printf("%-34s %10s %8s %9s\n", "case", "ms", "x unif", "predicted");
    const int gs[] = {1, 2, 4, 8, 16, 32, 64, 128};
    for (int i = 0; i < 8; i++) {
        const double t = time_one(out, grid, 0, gs[i], iters, reps);
        const double pred = gs[i] < 32 ? 2.0 : 1.0;
        printf("2 paths, switch every %3d threads  %10.4f %8.3f %9.1f\n", gs[i], t, t / uni, pred);
        if (js)
            fprintf(js, "%s{\"g\": %d, \"ms\": %.6f, \"ratio\": %.4f, \"predicted\": %.1f}", i ? ", " : "", gs[i], t,
                    t / uni, pred);
    }
    if (js)
        fprintf(js, "],\n \"ways\": [");
    const int ks[] = {1, 2, 4, 8};
    for (int i = 0; i < 4; i++) {
        const double ti = time_one(out, grid, 1, ks[i], iters, reps);
        const double tw = time_one(out, grid, 2, ks[i], iters, reps);
        printf("%d paths by lane (intra-warp)        %10.4f %8.3f %9.1f\n", ks[i], ti, ti / uni, (double)ks[i]);
        printf("%d paths by warp (inter-warp)        %10.4f %8.3f %9.1f\n", ks[i], tw, tw / uni, 1.0);
        if (js)
            fprintf(js, "%s{\"k\": %d, \"intra_ms\": %.6f, \"intra_ratio\": %.4f, \"inter_ms\": %.6f, \"inter_ratio\": %.4f}",
                    i ? ", " : "", ks[i], ti, ti / uni, tw, tw / uni);
    }
    if (js) {
        fprintf(js, "]}\n");
        fclose(js);
    }
    CK(cudaFree(out));
    return 0;
}
