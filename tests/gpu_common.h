/*
 * gpu_common.h - what the GPU tests share: opening the device or skipping,
 * and running one case of any op (a variant, or the public entry point
 * through sl_op_call, in any dtype, on offset or aliased buffers) with its
 * result checked against the op's reference (sl_verify_launch) and the
 * poisoned bytes around each output checked for stray writes.
 */
#ifndef SL_TEST_GPU_COMMON_H
#define SL_TEST_GPU_COMMON_H

#include "check.h"
#include "internal.h"
#include "op.h"
#include "rng.h"
#include "verify.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

/* Open CUDA device 0, or print why not and return NULL (the test skips). */
static sl_ctx *gpu_open_or_skip(const char *test)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("%s: SKIPPED: no CUDA device on this machine (run it on the GPU machine: bench/device.sh)\n", test);
        return NULL;
    }
    sl_ctx *ctx = NULL;
    if (sl_ctx_create(0, &ctx) != SL_OK) {
        printf("%s: SKIPPED: cannot open device 0: %s\n", test, sl_last_error());
        return NULL;
    }
    return ctx;
}

/* A case runs a variant, or the op's public entry point when v is NULL. */
static inline const char *case_name(const sl_variant *v)
{
    return v ? v->name : "public";
}

/* Count bytes of backend memory C[lo, hi) that are not the poison 0xff. */
static inline size_t stray_writes(const void *C, size_t lo, size_t hi)
{
    if (hi <= lo)
        return 0;
    unsigned char *h = malloc(hi - lo);
    size_t stray = 0;
    if (!h || cudaMemcpy(h, (const char *)C + lo, hi - lo, cudaMemcpyDeviceToHost) != cudaSuccess) {
        free(h);
        return (size_t)-1;
    }
    for (size_t i = 0; i < hi - lo; i++)
        stray += h[i] != 0xffu;
    free(h);
    return stray;
}

/* Device buffers for an op's cases: one per buffer of the op, `len`
 * elements of the widest dtype each; read buffers filled over their whole
 * length from seed[k], so element i of buffer k at offset o holds element
 * o + i of stream seed[k]. */
typedef struct gpu_bufs {
    void *mem[SL_MAX_BUFS];
    uint64_t seed[SL_MAX_BUFS];
    size_t len;
} gpu_bufs;

static inline int gpu_bufs_alloc(sl_ctx *ctx, gpu_bufs *g, size_t len)
{
    memset(g, 0, sizeof *g);
    g->len = len;
    for (int k = 0; k < SL_MAX_BUFS; k++) {
        g->seed[k] = 0x5eed0000u + (uint64_t)k;
        if (ctx->ops->alloc(ctx, len * 8, &g->mem[k]) != SL_OK)
            return 0;
    }
    return 1;
}

static inline void gpu_bufs_free(sl_ctx *ctx, gpu_bufs *g)
{
    for (int k = 0; k < SL_MAX_BUFS; k++)
        ctx->ops->free(ctx, g->mem[k]);
}

static inline void gpu_bufs_fill(sl_ctx *ctx, const sl_op_desc *op, gpu_bufs *g, sl_dtype dt)
{
    for (int k = 0; k < op->nbufs; k++)
        if (sl_role_read(op->bufs[k].role))
            ctx->ops->fill_random(ctx, dt, g->mem[k], g->len, g->seed[k]);
}

/*
 * One case of op: variant v (NULL: the public entry point) in dtype dt on
 * n elements, buffer k at element offset off[k]. alias[w] = r >= 0 makes
 * written buffer w the same memory as input r (in place), which is then
 * refilled after. Returns 1 if the case passed.
 */
static inline int run_case(sl_ctx *ctx, const sl_op_desc *op, const sl_variant *v, sl_dtype dt, gpu_bufs *g,
                           size_t n, const int *off, const int *alias, const double *scalars)
{
    const sl_variant *sem = v ? v : sl_variant_api(op, SL_BACKEND_CUDA);
    const sl_dtype odt = sl_variant_out_dtype(sem, dt);
    int before = check_failures;
    void *ptr[SL_MAX_BUFS];
    uint64_t seeds[SL_MAX_BUFS], first[SL_MAX_BUFS];
    for (int k = 0; k < op->nbufs; k++) {
        const int src = alias[k] >= 0 ? alias[k] : k;
        const size_t es = sl_dtype_size(sl_op_buf_dtype(op, src, dt, odt));
        ptr[k] = (char *)g->mem[src] + (size_t)off[src] * es;
        seeds[k] = g->seed[src];
        first[k] = (uint64_t)off[src];
        if (op->bufs[k].role == SL_ROLE_OUT && alias[k] < 0) {
            const size_t used = ((size_t)off[k] + n) * 8 + (64u << 10);
            CHECK(ctx->ops->poison(ctx, g->mem[k], used < g->len * 8 ? used : g->len * 8) == SL_OK, "poison: %s",
                  sl_last_error());
        }
    }
    double sc[SL_MAX_SCALARS] = {0};
    for (int k = 0; k < op->nscalars; k++)
        sc[k] = scalars ? scalars[k] : op->scalars[k].dflt;
    sl_status st;
    if (v) {
        sl_args x = {.op = op, .shape = sl_shape_1d(n), .n = n, .dtype = dt, .out_dtype = odt, .stream = ctx->stream};
        for (int k = 0; k < op->nbufs; k++)
            x.buf[k] = ptr[k];
        memcpy(x.scalar, sc, sizeof sc);
        st = SL_OK;
        if (v->workspace) {
            x.workspace_bytes = v->workspace(dt, n);
            st = ctx->ops->workspace(ctx, x.workspace_bytes, &x.workspace);
            if (st == SL_OK)
                st = ctx->ops->zero(ctx, x.workspace, x.workspace_bytes);
        }
        if (st == SL_OK)
            st = v->launch(&x);
    } else {
        st = sl_op_call(ctx, op, dt, n, ptr, sc, ctx->stream);
    }
    if (st == SL_OK)
        st = ctx->ops->sync(ctx);
    /* Only a bulk rung may decline, and only below sm_90: a launch that
     * says "unsupported" anywhere else took a wrong path. */
    if (st == SL_ERR_UNSUPPORTED && v && strcmp(v->name, "bulk") == 0 && ctx->info.cc_major < 9)
        return 1;
    CHECK(st == SL_OK, "%s %s %s n=%zu: %s: %s", op->name, case_name(v), sl_dtype_name(dt), n, sl_status_string(st),
          sl_last_error());
    if (st != SL_OK)
        return 0;
    sl_check chk;
    CHECK(sl_verify_launch(ctx, op, sem, dt, sc, n, ptr, seeds, first, &chk) == SL_OK, "verify: %s", sl_last_error());
    if (chk.mismatches) {
        char detail[800];
        sl_check_format(&chk, detail, sizeof detail);
        CHECK(chk.mismatches == 0, "%s %s %s n=%zu offsets %d,%d,%d: %llu mismatches\n%s", op->name, case_name(v),
              sl_dtype_name(dt), n, off[0], off[1], off[2], (unsigned long long)chk.mismatches, detail);
    }
    for (int k = 0; k < op->nbufs; k++) {
        if (op->bufs[k].role != SL_ROLE_OUT || alias[k] >= 0)
            continue;
        const size_t es = sl_dtype_size(sl_op_buf_dtype(op, k, dt, odt)), cnt = op->bufs[k].scalar ? 1 : n;
        /* the bytes before the output and up to 64 KiB after it: where an
         * off-by-one, a wrong head or tail or a wrapped index would land */
        const size_t end = ((size_t)off[k] + cnt) * es, stop = end + (64u << 10) < g->len * 8 ? end + (64u << 10)
                                                                                                  : g->len * 8;
        size_t stray = stray_writes(g->mem[k], 0, (size_t)off[k] * es) + stray_writes(g->mem[k], end, stop);
        CHECK(stray == 0, "%s %s %s n=%zu: %zu bytes written outside %s", op->name, case_name(v), sl_dtype_name(dt),
              n, stray, op->bufs[k].name);
    }
    /* restore inputs an in-place case or an INOUT buffer overwrote */
    gpu_bufs_fill(ctx, op, g, dt);
    return check_failures == before;
}

#endif /* SL_TEST_GPU_COMMON_H */
