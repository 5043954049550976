/*
 * test_gpu_graph: the public elementwise functions are capturable into a
 * CUDA graph (issue 17). For every elementwise op, f32 and bf16, at a size
 * the dispatch table sends to its L2 row (4099) and one it sends to bulk
 * (2^23 + 3), with the buffers at element offsets 1, 2, 3 (the realigned
 * layout): the call is captured on a user stream in the strictest mode
 * (cudaStreamCaptureModeGlobal, which refuses any call that could
 * synchronise), the output is checked to be untouched by the capture, the
 * graph is instantiated and launched, and the result is checked bit for
 * bit against the op's CPU reference (sl_verify_launch). Out-of-place ops
 * are then re-poisoned and the graph launched again (a replay redoes the
 * work). The cases cycle through the three pointer-check modes
 * (sl_ctx_set_pointer_checks); and in the two checking modes a host
 * pointer is refused on every call. Skips (exit 77) without a GPU.
 */
#include "gpu_common.h"

#include "streamlab.h"

static int is_elementwise(const sl_op_desc *op)
{
    if (op->rank != 1)
        return 0;
    for (int k = 0; k < op->nbufs; k++)
        if (op->bufs[k].scalar)
            return 0;
    return 1;
}

/* The output (written buffer) index and whether the op is in place. */
static int out_index(const sl_op_desc *op)
{
    return sl_op_first_written(op);
}

/* Every byte of p[0, bytes) still holds the poison (stray_writes counts the
 * bytes that do not). */
static int all_poison(const void *p, size_t bytes)
{
    return stray_writes(p, 0, bytes) == 0;
}

static void one_case(sl_ctx *ctx, cudaStream_t s, const sl_op_desc *op, sl_dtype dt, size_t n, sl_pointer_checks checks)
{
    const int off[SL_MAX_BUFS] = {1, 2, 3, 1};
    const size_t es = sl_dtype_size(dt);
    const int w = out_index(op);
    const int inplace = op->bufs[w].role == SL_ROLE_INOUT;
    void *mem[SL_MAX_BUFS] = {0}, *ptr[SL_MAX_BUFS] = {0};
    uint64_t seeds[SL_MAX_BUFS], first[SL_MAX_BUFS];
    for (int k = 0; k < op->nbufs; k++) {
        CHECK(ctx->ops->alloc(ctx, (n + 16) * es, &mem[k]) == SL_OK, "alloc: %s", sl_last_error());
        seeds[k] = 0x6a0000u + (uint64_t)k;
        first[k] = (uint64_t)off[k];
        ptr[k] = (char *)mem[k] + (size_t)off[k] * es;
        if (sl_role_read(op->bufs[k].role))
            CHECK(ctx->ops->fill_random(ctx, dt, mem[k], n + 16, seeds[k]) == SL_OK, "fill");
        else
            CHECK(ctx->ops->poison(ctx, mem[k], (n + 16) * es) == SL_OK, "poison");
    }
    CHECK(ctx->ops->sync(ctx) == SL_OK, "sync");
    CHECK(sl_ctx_set_pointer_checks(ctx, checks) == SL_OK, "set pointer checks");
    double sc[SL_MAX_SCALARS];
    for (int k = 0; k < op->nscalars; k++)
        sc[k] = op->scalars[k].dflt;

    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaSuccess, "begin capture");
    sl_status st = sl_op_call(ctx, op, dt, n, ptr, sc, s);
    cudaError_t e = cudaStreamEndCapture(s, &graph);
    CHECK(st == SL_OK, "sl_%s %s n=%zu under capture: %s: %s", op->name, sl_dtype_name(dt), n, sl_status_string(st),
          sl_last_error());
    CHECK(e == cudaSuccess && graph, "sl_%s %s n=%zu: end capture: %s", op->name, sl_dtype_name(dt), n,
          cudaGetErrorString(e));
    if (st != SL_OK || e != cudaSuccess || !graph) {
        (void)cudaGetLastError();
        goto out;
    }
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, NULL, &nodes) == cudaSuccess && nodes >= 1, "graph has %zu nodes", nodes);
    if (!inplace)
        CHECK(all_poison(mem[w], (n + 16) * es), "sl_%s %s: the capture ran the kernel instead of recording it",
              op->name, sl_dtype_name(dt));
    CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess, "instantiate");
    for (int rep = 0; rep < (inplace ? 1 : 2) && exec; rep++) {
        if (rep)
            CHECK(ctx->ops->poison(ctx, mem[w], (n + 16) * es) == SL_OK && ctx->ops->sync(ctx) == SL_OK, "repoison");
        CHECK(cudaGraphLaunch(exec, s) == cudaSuccess, "graph launch");
        CHECK(cudaStreamSynchronize(s) == cudaSuccess, "sync after the graph: %s",
              cudaGetErrorString(cudaGetLastError()));
        sl_check chk;
        const sl_variant *api = sl_variant_api(op, SL_BACKEND_CUDA);
        CHECK(sl_verify_launch(ctx, op, api, dt, sc, n, ptr, seeds, first, &chk) == SL_OK, "verify: %s",
              sl_last_error());
        if (chk.mismatches) {
            char detail[800];
            sl_check_format(&chk, detail, sizeof detail);
            CHECK(0, "sl_%s %s n=%zu graph launch %d: %llu mismatches\n%s", op->name, sl_dtype_name(dt), n, rep,
                  (unsigned long long)chk.mismatches, detail);
        }
    }
out:
    if (exec)
        cudaGraphExecDestroy(exec);
    if (graph)
        cudaGraphDestroy(graph);
    sl_ctx_set_pointer_checks(ctx, SL_POINTER_CHECKS_FIRST_USE);
    for (int k = 0; k < op->nbufs; k++)
        ctx->ops->free(ctx, mem[k]);
}

int main(void)
{
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_graph");
    if (!ctx)
        return 77;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess, "stream");
    const size_t sizes[] = {4099, ((size_t)1 << 23) + 3};
    const sl_dtype dts[] = {SL_F32, SL_BF16};
    int cases = 0;
    for (int i = 0; i < sl_op_count(); i++) {
        const sl_op_desc *op = sl_op_at(i);
        if (!is_elementwise(op))
            continue;
        for (int d = 0; d < 2; d++)
            for (int z = 0; z < 2; z++) {
                if (!sl_op_supports(op, dts[d]))
                    continue;
                one_case(ctx, s, op, dts[d], sizes[z], (sl_pointer_checks)(cases % 3));
                cases++;
            }
    }
    CHECK(cases >= 12, "only %d cases ran", cases);
    /* the pointer-check modes: a host pointer is refused on first use and
     * on every call (also after a device pointer was remembered) */
    {
        float host[16] = {0};
        void *d = NULL;
        CHECK(cudaMalloc(&d, 64 * sizeof(float)) == cudaSuccess, "cudaMalloc");
        float *A = d, *B = A + 16, *C = A + 32;
        const sl_pointer_checks modes[] = {SL_POINTER_CHECKS_FIRST_USE, SL_POINTER_CHECKS_EVERY_CALL};
        for (int m = 0; m < 2; m++) {
            CHECK(sl_ctx_set_pointer_checks(ctx, modes[m]) == SL_OK, "mode %d", m);
            for (int r = 0; r < 3; r++) {
                CHECK(sl_add(ctx, SL_F32, 16, A, B, C, s) == SL_OK, "device pointers, mode %d: %s", m,
                      sl_last_error());
                CHECK(sl_add(ctx, SL_F32, 16, A, host, C, s) == SL_ERR_BAD_POINTER, "host b, mode %d, call %d", m, r);
            }
        }
        CHECK(sl_ctx_set_pointer_checks(ctx, (sl_pointer_checks)7) == SL_ERR_INVALID_ARG, "mode 7");
        CHECK(sl_ctx_set_pointer_checks(NULL, SL_POINTER_CHECKS_OFF) == SL_ERR_INVALID_ARG, "NULL ctx");
        CHECK(cudaStreamSynchronize(s) == cudaSuccess, "sync");
        cudaFree(d);
        sl_ctx_set_pointer_checks(ctx, SL_POINTER_CHECKS_FIRST_USE);
    }
    cudaStreamDestroy(s);
    sl_ctx_destroy(ctx);
    if (check_failures) {
        printf("test_gpu_graph: %d failure(s)\n", check_failures);
        return 1;
    }
    printf("test_gpu_graph: %d captured calls replayed and verified\n", cases);
    return 0;
}
