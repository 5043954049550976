/*
 * py_graph_c.c - issue 28's C side of the "streamlab.bench agrees with C"
 * check: sl_add or sl_softmax timed from C exactly as streamlab.bench times
 * a callable (CALLS launches captured in one CUDA graph on a non-default
 * stream, the graph replayed REPS times between events, median per launch),
 * through the public API of the installed libstreamlab.so alone.
 *
 *   py_graph_c add N CALLS REPS          f32, c = a + b, N elements
 *   py_graph_c softmax ROWS COLS CALLS REPS
 *
 * Inputs are memset to 0x3f bytes (0.747f each), not zeros. Prints one line:
 * "op shape us_per_call GB/s". bench/py_h200.sh builds and runs it.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamlab.h"

#include "bench_check.h"

static int cmp(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: py_graph_c add N CALLS REPS | softmax ROWS COLS CALLS REPS\n");
        return 2;
    }
    const int is_add = strcmp(argv[1], "add") == 0;
    const size_t rows = is_add ? 1 : strtoull(argv[2], NULL, 0);
    const size_t cols = strtoull(argv[is_add ? 2 : 3], NULL, 0);
    const int calls = atoi(argv[is_add ? 3 : 4]), reps = atoi(argv[is_add ? 4 : 5]);
    const size_t n = rows * cols;
    sl_ctx *ctx;
    if (sl_ctx_create(0, &ctx) != SL_OK) {
        fprintf(stderr, "sl_ctx_create: %s\n", sl_last_error());
        return 1;
    }
    float *a, *b, *c;
    CK(cudaMalloc((void **)&a, n * 4));
    CK(cudaMalloc((void **)&b, n * 4));
    CK(cudaMalloc((void **)&c, n * 4));
    CK(cudaMemset(a, 0x3f, n * 4));
    CK(cudaMemset(b, 0x3f, n * 4));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    sl_status st = SL_OK;
#define CALL() (is_add ? sl_add(ctx, SL_F32, n, a, b, c, s) : sl_softmax(ctx, SL_F32, rows, cols, a, c, s))
    for (int i = 0; i < 3 && st == SL_OK; i++)
        st = CALL();
    CK(cudaStreamSynchronize(s));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    for (int i = 0; i < calls && st == SL_OK; i++)
        st = CALL();
    CK(cudaStreamEndCapture(s, &g));
    if (st != SL_OK) {
        fprintf(stderr, "%s: %s\n", argv[1], sl_last_error());
        return 1;
    }
    CK(cudaGraphInstantiate(&ge, g, 0));
    CK(cudaGraphLaunch(ge, s)); /* upload, untimed */
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float *t = malloc(sizeof(float) * (size_t)reps);
    for (int r = 0; r < reps; r++) {
        CK(cudaEventRecord(e0, s));
        CK(cudaGraphLaunch(ge, s));
        CK(cudaEventRecord(e1, s));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&t[r], e0, e1));
        t[r] = t[r] * 1e3f / (float)calls;
    }
    qsort(t, (size_t)reps, sizeof(float), cmp);
    const double med = reps % 2 ? t[reps / 2] : 0.5 * (t[reps / 2 - 1] + t[reps / 2]);
    const double bytes = (is_add ? 3.0 : 2.0) * (double)n * 4.0;
    printf("%s %zux%zu %.3f us %.1f GB/s\n", argv[1], rows, cols, med, bytes / (med * 1e-6) / 1e9);
    free(t);
    sl_ctx_destroy(ctx);
    return 0;
}
