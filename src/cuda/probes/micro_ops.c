/*
 * micro_ops.c - sl_probe_ops.micro of the CUDA backend (src/core/micro_ops.h):
 * buffers, events and the host side of the checks around the kernels of
 * micro.cu.
 */
#include "../cuda_check.h"
#include "micro_ops.h"

#include <stdlib.h>

sl_status sl_cuda_micro_fill(uint32_t *p, size_t words_per_block, size_t words, cudaStream_t stream);
uint32_t sl_cuda_micro_l1_expected(int word_bytes, size_t ws, int steps);
sl_status sl_cuda_micro_l1(int word_bytes, const void *buf, size_t ws, int steps, int blocks,
                           unsigned long long *out, cudaStream_t stream);
sl_status sl_cuda_micro_const_init(cudaStream_t stream);
uint32_t sl_cuda_micro_const_expected(int distinct, int accesses);
sl_status sl_cuda_micro_const(int distinct, int accesses, int blocks, unsigned long long *out, cudaStream_t stream);
float sl_cuda_micro_diverge_ref(unsigned tid, int mode, int g, int iters);
int sl_cuda_micro_diverge_block(void);
sl_status sl_cuda_micro_diverge(float *out, int mode, int g, int iters, int blocks, cudaStream_t stream);

enum { MICRO_THREADS = 1024, MICRO_UNROLL = 8 };

static int blocks_of(const sl_ctx *ctx, int light)
{
    const int sms = ctx->info.sm_count > 0 ? ctx->info.sm_count : 1;
    return light ? (sms < 2 ? sms : 2) : sms;
}

/* Per-block (clocks, checksum) pairs from `out`: the mean clocks and the
 * blocks whose checksum is not `want`. Waits. */
static sl_status collect(sl_ctx *ctx, const unsigned long long *out, int blocks, uint32_t want, double *cycles,
                         uint64_t *bad)
{
    unsigned long long *h = malloc(2 * (size_t)blocks * sizeof *h);
    if (!h)
        return sl_fail(SL_ERR_NO_MEMORY, "probe: out of host memory");
    sl_status st = ctx->ops->download(ctx, h, out, 2 * (size_t)blocks * sizeof *h);
    if (st == SL_OK) {
        double sum = 0;
        *bad = 0;
        for (int i = 0; i < blocks; i++) {
            sum += (double)h[2 * i];
            *bad += (uint32_t)h[2 * i + 1] != want;
        }
        *cycles = sum / blocks;
    }
    free(h);
    return st;
}

static sl_status l1_(sl_ctx *ctx, int word_bytes, size_t ws, size_t bytes_per_block, int light, double *cycles,
                     double *bytes, double *ms, uint64_t *bad)
{
    if ((word_bytes != 4 && word_bytes != 16) || ws < 16384 || ws > ((size_t)4 << 20) || (ws & (ws - 1)))
        return sl_fail(SL_ERR_INVALID_ARG, "probe l1: %d-byte words, working set %zu B (16 KiB .. 4 MiB, a power of 2)",
                       word_bytes, ws);
    const int blocks = blocks_of(ctx, light);
    const size_t step = (size_t)MICRO_THREADS * (size_t)word_bytes;
    size_t steps = bytes_per_block / step;
    if (light)
        steps = MICRO_UNROLL;
    steps = (steps + MICRO_UNROLL - 1) / MICRO_UNROLL * MICRO_UNROLL;
    if (steps < MICRO_UNROLL || steps > (1u << 24))
        return sl_fail(SL_ERR_INVALID_ARG, "probe l1: %zu bytes per block", bytes_per_block);
    void *buf = NULL;
    unsigned long long *out = NULL;
    sl_status st = ctx->ops->alloc(ctx, (size_t)blocks * ws, &buf);
    if (st == SL_OK)
        st = ctx->ops->alloc(ctx, 2 * (size_t)blocks * sizeof *out, (void **)&out);
    if (st == SL_OK)
        st = sl_cuda_micro_fill(buf, ws / 4, (size_t)blocks * ws / 4, (cudaStream_t)ctx->stream);
    if (st == SL_OK && (st = ctx->ops->timer_start(ctx)) == SL_OK &&
        (st = sl_cuda_micro_l1(word_bytes, buf, ws, (int)steps, blocks, out, (cudaStream_t)ctx->stream)) == SL_OK)
        st = ctx->ops->timer_stop(ctx, ms);
    if (st == SL_OK)
        st = collect(ctx, out, blocks, sl_cuda_micro_l1_expected(word_bytes, ws, (int)steps), cycles, bad);
    *bytes = (double)steps * (double)step;
    ctx->ops->free(ctx, out);
    ctx->ops->free(ctx, buf);
    return st;
}

static sl_status constant_(sl_ctx *ctx, int distinct, int light, double *cycles, double *ms, uint64_t *bad)
{
    if (distinct < 1 || distinct > 32)
        return sl_fail(SL_ERR_INVALID_ARG, "probe const: %d distinct addresses per warp (1..32)", distinct);
    const int blocks = blocks_of(ctx, light), accesses = light ? MICRO_UNROLL : 4096;
    unsigned long long *out = NULL;
    sl_status st = ctx->ops->alloc(ctx, 2 * (size_t)blocks * sizeof *out, (void **)&out);
    if (st == SL_OK)
        st = sl_cuda_micro_const_init((cudaStream_t)ctx->stream);
    if (st == SL_OK && (st = ctx->ops->timer_start(ctx)) == SL_OK &&
        (st = sl_cuda_micro_const(distinct, accesses, blocks, out, (cudaStream_t)ctx->stream)) == SL_OK)
        st = ctx->ops->timer_stop(ctx, ms);
    if (st == SL_OK)
        st = collect(ctx, out, blocks, sl_cuda_micro_const_expected(distinct, accesses), cycles, bad);
    if (st == SL_OK)
        *cycles /= (double)(MICRO_THREADS / 32) * accesses; /* per warp access */
    ctx->ops->free(ctx, out);
    return st;
}

static sl_status diverge_(sl_ctx *ctx, int mode, int g, int reps, int light, double *ms, double *threads,
                          double *iters, uint64_t *bad)
{
    const int block = sl_cuda_micro_diverge_block();
    const int blocks = light ? 2 : (ctx->info.sm_count > 0 ? ctx->info.sm_count : 1) * (2048 / block);
    const int n = light ? 64 : 1 << 14;
    const size_t nthreads = (size_t)blocks * (size_t)block;
    float *out = NULL, *h = malloc(nthreads * sizeof *h);
    if (!h)
        return sl_fail(SL_ERR_NO_MEMORY, "probe divergence: out of host memory");
    sl_status st = ctx->ops->alloc(ctx, nthreads * sizeof *out, (void **)&out);
    if (st == SL_OK) /* warm-up */
        st = sl_cuda_micro_diverge(out, mode, g, n, blocks, (cudaStream_t)ctx->stream);
    double best = -1;
    for (int r = 0; st == SL_OK && r < (light ? 1 : reps); r++) {
        double t = 0;
        if ((st = ctx->ops->timer_start(ctx)) == SL_OK &&
            (st = sl_cuda_micro_diverge(out, mode, g, n, blocks, (cudaStream_t)ctx->stream)) == SL_OK &&
            (st = ctx->ops->timer_stop(ctx, &t)) == SL_OK && (best < 0 || t < best))
            best = t;
    }
    if (st == SL_OK)
        st = ctx->ops->download(ctx, h, out, nthreads * sizeof *h);
    if (st == SL_OK) {
        /* 512 threads spread over the grid (with the first and last warps'
         * every lane), each against the host's chain of its own path */
        *bad = 0;
        const size_t stride = nthreads / 448 > 0 ? nthreads / 448 : 1;
        for (size_t i = 0; i < nthreads; i++) {
            if (!(i < 32 || i + 32 >= nthreads || i % stride == 0))
                continue;
            const float want = sl_cuda_micro_diverge_ref((unsigned)i, mode, g, n);
            *bad += h[i] != want;
        }
        *ms = best;
        *threads = (double)nthreads;
        *iters = n;
    }
    ctx->ops->free(ctx, out);
    free(h);
    return st;
}

const sl_micro_ops sl_cuda_micro_ops = {
    .l1 = l1_,
    .constant = constant_,
    .diverge = diverge_,
};
