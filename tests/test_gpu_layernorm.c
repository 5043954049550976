/*
 * test_gpu_layernorm.c - layernorm and its backward on a CUDA device: every
 * CUDA rung (block, regs, regs_pf: the warp, block and cluster teams) and
 * sl_layernorm_fwd / sl_layernorm_bwd against the fp64 oracle and finite
 * differences of layernorm_check.h, in f32, bf16 and f16 with w in the rows'
 * dtype or f32, at odd shapes up to rows of 65536, misaligned (x and y at
 * one offset and at different ones), in place, rows of zeros, huge values
 * and NaN; guard bytes around every output; dw and db the same bits twice, and
 * with the caller's workspace as with the context's; the API's errors.
 * The backward with few teams, each owning more than 256 rows (t_rounds).
 * Buffers are CUDA managed memory. Exits 77 (skipped) without a GPU.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "layernorm_check.h"

#include "gpu_common.h"
#include "norm_rounds.h"

#include <stdio.h>

static void *d_alloc(size_t bytes)
{
    void *p = NULL;
    return cudaMallocManaged(&p, bytes, cudaMemAttachGlobal) == cudaSuccess ? p : NULL;
}

static void d_release(void *p)
{
    cudaFree(p);
}

static int d_sync(void)
{
    return cudaDeviceSynchronize() != cudaSuccess;
}

int main(void)
{
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_layernorm");
    if (!ctx)
        return SKIP;
    static const nmem m = {d_alloc, d_release, d_sync};
    nm = &m;
    int dev = 0, major = 0;
    t_sm90 = cudaGetDevice(&dev) == cudaSuccess &&
             cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess && major >= 9;
    t_rounds(ctx, &sl_op_layernorm_bwd, ln_bwd);
    const int rc = ln_main(ctx, SL_BACKEND_CUDA, 1, "test_gpu_layernorm");
    sl_ctx_destroy(ctx);
    return rc;
}
