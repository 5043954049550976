/*
 * test_gpu_rmsnorm.c - rmsnorm and its backward on a CUDA device: every
 * CUDA rung (naive, block, regs: the warp, block and cluster teams) and
 * sl_rmsnorm_fwd / sl_rmsnorm_bwd against the fp64 oracle and finite
 * differences of norm_check.h, in f32, bf16 and f16 with w in the rows'
 * dtype or f32, at odd shapes up to rows of 65536, misaligned (x and y at
 * one offset and at different ones), in place, rows of zeros, huge values
 * and NaN; guard bytes around every output; dw the same bits twice, and
 * with the caller's workspace as with the context's; the API's errors.
 * The backward with few teams, each owning more than 256 rows (t_rounds).
 * Buffers are CUDA managed memory. Exits 77 (skipped) without a GPU.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include "norm_check.h"

#include "gpu_common.h"

#include <stdio.h>

/* The backward's rounds (common/norm_bwd.cuh): SL_NORM_BWD_TEAMS caps a
 * launch's teams so that a team owns more than 256 rows and writes a
 * partial row per 256, and some blocks write a round of zeros (rows = 256
 * x teams + 1 for the warp teams' 2 blocks of 16, 1025 for 2 block teams).
 * Warp teams (64 columns), block teams (1500), clusters (20000); every
 * register rung and the public function. */
static void t_rounds(sl_ctx *ctx, const sl_op_desc *op,
                     void (*bwd)(sl_ctx *, const sl_variant *, sl_dtype, sl_dtype, const ncase *, int))
{
    static const ncase cs[] = {{8193, 64, 0, 0, 0, {K_RAND}, 1},
                               {1025, 1500, 0, 0, 0, {K_RAND}, 1},
                               {600, 20000, 0, 0, 0, {K_RAND}, 1}};
    setenv("SL_NORM_BWD_TEAMS", "2", 1);
    for (size_t i = 0; i < sizeof cs / sizeof cs[0]; i++)
        for (int d = 0; d < 2; d++) {
            const sl_dtype dt = d ? SL_BF16 : SL_F32;
            for (int k = 0; k < op->nvariants; k++) {
                const sl_variant *v = &op->variants[k];
                if (v->backend == SL_BACKEND_CUDA && v->kind == SL_KIND_RUNG && v->launch &&
                    strncmp(v->name, "regs", 4) == 0)
                    bwd(ctx, v, dt, dt, &cs[i], 0);
            }
            bwd(ctx, NULL, dt, dt, &cs[i], 0);
        }
    unsetenv("SL_NORM_BWD_TEAMS");
}

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
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_rmsnorm");
    if (!ctx)
        return SKIP;
    static const nmem m = {d_alloc, d_release, d_sync};
    nm = &m;
    t_rounds(ctx, &sl_op_rmsnorm_bwd, t_bwd);
    const int rc = t_main(ctx, SL_BACKEND_CUDA, 1, "test_gpu_rmsnorm");
    sl_ctx_destroy(ctx);
    return rc;
}
