/*
 * probe_ops.c - the CUDA backend's probe primitives (probe_ops.h): the kernels
 * of probes.cu on the context's stream.
 */
#include "../cuda_check.h"
#include "micro_ops.h"
#include "probe_ops.h"

#include <stdlib.h>

sl_status sl_cuda_probe_read(const void *src, size_t words, int vec, int ilp, int warps_per_sm, int passes, int cg,
                             uint32_t *sum, cudaStream_t stream, int *warps_out);
sl_status sl_cuda_probe_read_collect(uint32_t *sum, cudaStream_t stream, uint32_t *total);
sl_status sl_cuda_probe_write(void *dst, size_t count, size_t stride, uint32_t value, cudaStream_t stream);
sl_status sl_cuda_probe_copy(void *dst, const void *src, size_t words, cudaStream_t stream);
sl_status sl_cuda_probe_add(void *c, const void *a, const void *b, size_t words, int demote, cudaStream_t stream);
sl_status sl_cuda_probe_copy_strided(void *dst, const void *src, size_t count, size_t stride, size_t offset,
                                     cudaStream_t stream);
sl_status sl_cuda_probe_mismatches(const void *dst, size_t dst_stride, const void *src, size_t src_stride,
                                   size_t src_offset, size_t count, uint32_t value, cudaStream_t stream,
                                   uint64_t *out);
sl_status sl_cuda_probe_chase(const void *next, uint32_t start, uint64_t steps, uint32_t node_words, uint32_t *end,
                              uint64_t *cycles, cudaStream_t stream);
sl_status sl_cuda_probe_launch(int mode, int count, cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop,
                               double *us);
sl_status sl_cuda_probe_smem(int word_bytes, int stride, int store, int iters, int blocks, unsigned long long *out,
                             unsigned long long *host, cudaStream_t stream, cudaEvent_t start, cudaEvent_t stop,
                             double *ms);
int sl_cuda_probe_smem_accesses(int iters);
uint32_t sl_cuda_probe_smem_expected(int word_bytes, int stride, int iters);
extern const sl_micro_ops sl_cuda_micro_ops;

static sl_status read_(sl_ctx *ctx, const void *src, size_t words, int vec, int ilp, int warps_per_sm, int passes,
                       int cg, uint32_t *sum, int *warps_used)
{
    return sl_cuda_probe_read(src, words, vec, ilp, warps_per_sm, passes, cg, sum, (cudaStream_t)ctx->stream,
                              warps_used);
}

static sl_status read_collect_(sl_ctx *ctx, uint32_t *sum, uint32_t *total)
{
    return sl_cuda_probe_read_collect(sum, (cudaStream_t)ctx->stream, total);
}

static sl_status write_(sl_ctx *ctx, void *dst, size_t count, size_t stride, uint32_t value)
{
    return sl_cuda_probe_write(dst, count, stride, value, (cudaStream_t)ctx->stream);
}

static sl_status copy_(sl_ctx *ctx, void *dst, const void *src, size_t words)
{
    return sl_cuda_probe_copy(dst, src, words, (cudaStream_t)ctx->stream);
}

static sl_status add_(sl_ctx *ctx, void *c, const void *a, const void *b, size_t words, int demote)
{
    return sl_cuda_probe_add(c, a, b, words, demote, (cudaStream_t)ctx->stream);
}

static sl_status copy_strided_(sl_ctx *ctx, void *dst, const void *src, size_t count, size_t stride, size_t offset)
{
    return sl_cuda_probe_copy_strided(dst, src, count, stride, offset, (cudaStream_t)ctx->stream);
}

static sl_status mismatches_(sl_ctx *ctx, const void *dst, size_t dst_stride, const void *src, size_t src_stride,
                             size_t src_offset, size_t count, uint32_t value, uint64_t *bad)
{
    return sl_cuda_probe_mismatches(dst, dst_stride, src, src_stride, src_offset, count, value,
                                    (cudaStream_t)ctx->stream, bad);
}

/* The chase's end index and cycle count come back through a small device
 * buffer; the elapsed time through the context's events. */
static sl_status chase_(sl_ctx *ctx, const void *next, uint32_t start, uint64_t steps, uint32_t node_words,
                        uint32_t *end, double *cycles, double *ms)
{
    uint64_t *d = NULL;
    sl_status st = ctx->ops->alloc(ctx, 2 * sizeof(uint64_t), (void **)&d);
    if (st != SL_OK)
        return st;
    uint64_t h[2] = {0, 0};
    if ((st = ctx->ops->timer_start(ctx)) == SL_OK &&
        (st = sl_cuda_probe_chase(next, start, steps, node_words, (uint32_t *)&d[0], &d[1],
                                  (cudaStream_t)ctx->stream)) == SL_OK &&
        (st = ctx->ops->timer_stop(ctx, ms)) == SL_OK)
        st = ctx->ops->download(ctx, h, d, sizeof h);
    ctx->ops->free(ctx, d);
    *end = (uint32_t)h[0];
    *cycles = (double)h[1];
    return st;
}


static sl_status launch_(sl_ctx *ctx, int mode, int count, double *us)
{
    cudaEvent_t a, b;
    SL_CUDA_TRY(cudaEventCreate(&a));
    SL_CUDA_TRY(cudaEventCreate(&b));
    sl_status st = sl_cuda_probe_launch(mode, count, (cudaStream_t)ctx->stream, a, b, us);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return st;
}

static sl_status smem_(sl_ctx *ctx, int word_bytes, int stride, int store, int light, double *cycles, double *ms,
                       double *bytes, uint64_t *bad)
{
    const int sms = ctx->info.sm_count > 0 ? ctx->info.sm_count : 1;
    const int blocks = light && sms > 2 ? 2 : sms, iters = light ? 2 : 512; /* light: checks only (sanitizer) */
    unsigned long long *d = NULL, *h = malloc(2 * (size_t)blocks * sizeof *h);
    if (!h)
        return sl_fail(SL_ERR_NO_MEMORY, "probe smem: out of host memory");
    sl_status st = ctx->ops->alloc(ctx, 2 * (size_t)blocks * sizeof *d, (void **)&d);
    cudaEvent_t a = NULL, b = NULL;
    if (st == SL_OK && (cudaEventCreate(&a) != cudaSuccess || cudaEventCreate(&b) != cudaSuccess))
        st = sl_fail(SL_ERR_CUDA, "probe smem: cudaEventCreate failed");
    if (st == SL_OK)
        st = sl_cuda_probe_smem(word_bytes, stride, store, iters, blocks, d, h, (cudaStream_t)ctx->stream, a, b, ms);
    if (st == SL_OK) {
        const double per_block = 32.0 * sl_cuda_probe_smem_accesses(iters); /* warp accesses */
        const uint32_t want = store ? 0u : sl_cuda_probe_smem_expected(word_bytes, stride, iters);
        double sum = 0;
        *bad = 0;
        for (int i = 0; i < blocks; i++) {
            sum += (double)h[2 * i];
            *bad += (uint32_t)h[2 * i + 1] != want;
        }
        *cycles = sum / blocks / per_block;
        *bytes = per_block * blocks * 32.0 * word_bytes;
    }
    if (a)
        cudaEventDestroy(a);
    if (b)
        cudaEventDestroy(b);
    ctx->ops->free(ctx, d);
    free(h);
    return st;
}

const sl_probe_ops sl_cuda_probe_ops = {
    .read = read_,
    .read_collect = read_collect_,
    .write = write_,
    .copy = copy_,
    .copy_strided = copy_strided_,
    .add = add_,
    .mismatches = mismatches_,
    .chase = chase_,
    .launch = launch_,
    .smem = smem_,
    .micro = &sl_cuda_micro_ops,
};
