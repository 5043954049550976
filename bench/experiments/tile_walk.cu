/*
 * Experiment (bench/experiments/): supports docs/ladder.md, "Issue 11, third
 * pass: L1 / constant / divergence probes, memcheck of the probes, the last
 * bars" (the tile walk: predictions and measurement).
 * Run: nvcc -O3 -arch=sm_90 -o tile_walk bench/experiments/tile_walk.cu &&
 * ./tile_walk 20.
 *
 * tile_walk.cu - what the transpose's 2-D tile traversal costs DRAM by
 * itself (issue 11, third pass: why every tile transpose, ours and
 * cublasSgeam alike, stops at ~0.90-0.92 of a linear copy with compulsory
 * DRAM bytes).
 *
 * A copy (out = in, 8192 x 8192 f32, 268 MB each way) that walks the
 * matrix in tiles of 16 KiB exactly as the transpose's vec rung does (one
 * tile per block of 256 threads, 4 independent 16-byte loads per thread,
 * then 4 stores; tiles in row order), but writes each tile back to the same
 * place instead of transposing it. The tile's shape varies: TR rows of
 * 16384 / TR bytes, from 1 row of 16 KiB (a linear chunk: the copy's
 * pattern) to 128 rows of 128 B. If the 64 x 256 B tile (vec's) already
 * loses ~8-10% against the linear chunk, the loss belongs to the 2-D
 * traversal (many DRAM rows open at once, short pieces of each), not to
 * the transposition or to anything on the SM. Two more 64 x 256 B rows
 * split the rest: "swapped" writes tile (tr, tc) to tile position (tc, tr)
 * (the transpose's DRAM write pattern at tile granularity, no transposition
 * inside), "via smem" adds the shared-memory round trip and the barrier.
 *
 * Checks: out == in (host memcmp) after every shape's timed runs; inputs
 * are random, never zeros. Time: CUDA events, median of 20 after 3
 * warm-ups. Usage: tile_walk [reps]. Exit 0, 1 on a CUDA error or a
 * mismatch, 77 without a GPU.
 */
#include <cuda_runtime.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x)                                                                                                         \
    do {                                                                                                              \
        cudaError_t e_ = (x);                                                                                         \
        if (e_ != cudaSuccess) {                                                                                      \
            fprintf(stderr, "tile_walk: %s: %s (%s:%d)\n", #x, cudaGetErrorString(e_), __FILE__, __LINE__);           \
            exit(1);                                                                                                  \
        }                                                                                                             \
    } while (0)

enum { N = 8192, ROWB = N * 4, TILEB = 16384, THREADS = 256, PER = TILEB / 16 / THREADS /* 4 */ };

/* tile of TR rows x (TILEB / TR) bytes; the tiles in row order. SWAP:
 * tile (tr, tc) goes to the tile position (tc, tr) of out (the tile grid is
 * square for TR = 64: 128 x 128 tiles), rows copied as they are: the
 * transpose's DRAM write pattern at tile granularity, without transposing
 * inside the tile. SMEM: the data goes through shared memory with a block
 * barrier between loads and stores, as in the transpose rungs. */
template <int TR, bool SWAP, bool SMEM>
static __global__ void __launch_bounds__(THREADS) walk(const char *__restrict__ in, char *__restrict__ out)
{
    enum { W = TILEB / TR, VPR = W / 16, TILES_C = ROWB / W };
    static_assert(!SWAP || TILES_C == N / TR, "swapped tiles need a square tile grid");
    const unsigned tr = blockIdx.x / TILES_C, tc = blockIdx.x % TILES_C;
    const size_t base = (size_t)tr * TR * ROWB + (size_t)tc * W;
    const size_t obase = SWAP ? (size_t)tc * TR * ROWB + (size_t)tr * W : base;
    __shared__ uint4 sm[SMEM ? TILEB / 16 : 1];
    uint4 v[PER];
#pragma unroll
    for (int p = 0; p < PER; p++) {
        const int k = p * THREADS + threadIdx.x, r = k / VPR, c = k % VPR;
        v[p] = __ldg((const uint4 *)(in + base + (size_t)r * ROWB + (size_t)c * 16));
    }
    if (SMEM) {
#pragma unroll
        for (int p = 0; p < PER; p++)
            sm[p * THREADS + threadIdx.x] = v[p];
        __syncthreads();
#pragma unroll
        for (int p = 0; p < PER; p++) /* another thread's vector: a real round trip */
            v[p] = sm[(p * THREADS + threadIdx.x) ^ 32];
    }
#pragma unroll
    for (int p = 0; p < PER; p++) {
        const int k = (p * THREADS + threadIdx.x) ^ (SMEM ? 32 : 0), r = k / VPR, c = k % VPR;
        *(uint4 *)(out + obase + (size_t)r * ROWB + (size_t)c * 16) = v[p];
    }
}

template <int TR, bool SWAP = false, bool SMEM = false> static double run(const char *in, char *out, int reps)
{
    const int grid = (int)((size_t)N * ROWB / TILEB);
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    float t[64];
    for (int i = 0; i < 3; i++)
        walk<TR, SWAP, SMEM><<<grid, THREADS>>>(in, out);
    CK(cudaGetLastError());
    for (int i = 0; i < reps; i++) {
        CK(cudaEventRecord(a));
        walk<TR, SWAP, SMEM><<<grid, THREADS>>>(in, out);
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        CK(cudaEventElapsedTime(&t[i], a, b));
    }
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    for (int i = 0; i < reps; i++) /* median: insertion sort of <= 64 */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            const float x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return t[reps / 2];
}

static int check(const char *d_out, const unsigned char *h_in, unsigned char *h_out, size_t bytes, int tr)
{
    CK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    if (memcmp(h_out, h_in, bytes) != 0) {
        fprintf(stderr, "tile_walk: %d-row tiles: out != in\n", tr);
        return 1;
    }
    return 0;
}

/* out's tile (tc, tr) must hold in's tile (tr, tc), 64 x 256 B tiles */
static int check_swapped(const char *d_out, const unsigned char *h_in, unsigned char *h_out, int tr_rows)
{
    const size_t bytes = (size_t)N * ROWB, w = TILEB / tr_rows, tiles = N / tr_rows;
    CK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    for (size_t tr = 0; tr < tiles; tr++)
        for (size_t tc = 0; tc < tiles; tc++)
            for (size_t r = 0; r < (size_t)tr_rows; r++)
                if (memcmp(h_out + (tc * tr_rows + r) * ROWB + tr * w, h_in + (tr * tr_rows + r) * ROWB + tc * w, w)) {
                    fprintf(stderr, "tile_walk: swapped %d-row tiles: tile (%zu, %zu) row %zu wrong\n", tr_rows, tr, tc,
                            r);
                    return 1;
                }
    return 0;
}

int main(int argc, char **argv)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
        printf("tile_walk: SKIPPED: no CUDA device\n");
        return 77;
    }
    int reps = argc > 1 ? atoi(argv[1]) : 20;
    if (reps < 1 || reps > 64)
        reps = 20;
    const size_t bytes = (size_t)N * ROWB;
    unsigned char *h_in = (unsigned char *)malloc(bytes), *h_out = (unsigned char *)malloc(bytes);
    if (!h_in || !h_out) {
        fprintf(stderr, "tile_walk: out of host memory\n");
        return 1;
    }
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < bytes; i += 8) { /* xorshift64: random, never all zeros */
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        memcpy(h_in + i, &s, 8);
    }
    char *in = NULL, *out = NULL;
    CK(cudaMalloc(&in, bytes));
    CK(cudaMalloc(&out, bytes));
    CK(cudaMemcpy(in, h_in, bytes, cudaMemcpyHostToDevice));
    /* the copy ceiling, as streamlab's copy row: cudaMemcpyAsync device to device */
    cudaEvent_t a, b;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    float t[64];
    for (int i = 0; i < 3 + reps; i++) {
        CK(cudaEventRecord(a));
        CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice));
        CK(cudaEventRecord(b));
        CK(cudaEventSynchronize(b));
        if (i >= 3)
            CK(cudaEventElapsedTime(&t[i - 3], a, b));
    }
    for (int i = 0; i < reps; i++)
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            const float x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    const double cp = t[reps / 2];
    printf("8192 x 8192 f32 (%.0f MB each way), median of %d\n", bytes / 1e6, reps);
    printf("%-44s %9s %8s %8s\n", "pattern", "ms", "GB/s", "x copy");
    printf("%-44s %9.4f %8.0f %8.3f\n", "cudaMemcpyAsync (copy ceiling)", cp, 2 * bytes / cp / 1e6, 1.0);
    int bad = 0;
#define ROW(TR, SWAP, SMEM)                                                                                           \
    do {                                                                                                              \
        CK(cudaMemset(out, 0, bytes));                                                                                \
        const double ms = run<TR, SWAP, SMEM>(in, out, reps);                                                         \
        bad |= SWAP ? check_swapped(out, h_in, h_out, TR) : check(out, h_in, h_out, bytes, TR);                      \
        char label[96];                                                                                               \
        snprintf(label, sizeof label, "tiles of %d rows x %d B%s%s", TR, TILEB / TR, SWAP ? ", swapped" : "",       \
                 SMEM ? ", via smem" : "");                                                                           \
        printf("%-44s %9.4f %8.0f %8.3f\n", label, ms, 2 * bytes / ms / 1e6, cp / ms);                               \
    } while (0)
    ROW(1, false, false);
    ROW(4, false, false);
    ROW(16, false, false);
    ROW(32, false, false);
    ROW(64, false, false);
    ROW(128, false, false);
    ROW(64, false, true);
    ROW(64, true, false);
    ROW(64, true, true);
    printf("%s\n", bad ? "CHECK FAILED" : "every pattern verified (out == in)");
    CK(cudaFree(in));
    CK(cudaFree(out));
    free(h_in);
    free(h_out);
    return bad;
}
