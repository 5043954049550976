/*
 * Every CUDA variant of every op, and every op's public entry point, in
 * every dtype it runs, for n in {1, 3, 1023, 1000003 (prime), 2^20 + 3},
 * each buffer alone at element offsets 1..7 and all at once, and every
 * output aliased to each input where the op allows it: checked against the
 * op's CPU reference (sl_verify_launch: bit for bit for the elementwise
 * ops, within the reduction bound for dot), with the bytes around every
 * output checked for stray writes. Also: the device generator equals the
 * host one in every dtype, argument errors on the GPU, and sl_dot's
 * determinism. Skips (exit 77) without a GPU. Run under compute-sanitizer
 * by bench/device.sh (STREAMLAB_TEST_QUICK: two sizes; STREAMLAB_TEST_OPS and
 * STREAMLAB_TEST_DTYPES: comma lists of ops and dtypes to run).
 */
#include "gpu_common.h"

#include "cuda_check.h"
#include "sizes.h"

#define MAXN ((size_t)(1u << 20) + 3)
#define LEN (MAXN + 16)

/* The device generator writes, in every dtype, exactly what the host
 * regenerates (device conversions == src/core/dtype_conv.c). */
static void test_generator(sl_ctx *ctx, void *A)
{
    size_t n = 1u << 20;
    unsigned char *h = malloc(n * 8), *w = malloc(n * 8);
    for (int d = 0; d < SL_DTYPE_COUNT; d++) {
        size_t es = sl_dtype_size((sl_dtype)d);
        CHECK(ctx->ops->fill_random(ctx, (sl_dtype)d, A, n, 99) == SL_OK, "fill: %s", sl_last_error());
        CHECK(ctx->ops->download(ctx, h, A, n * es) == SL_OK, "download");
        sl_rand_fill((sl_dtype)d, w, n, 99, 0);
        size_t bad = 0;
        for (size_t i = 0; i < n * es; i++)
            bad += h[i] != w[i];
        CHECK(bad == 0, "%s: device generator differs from the host one in %zu of %zu bytes",
              sl_dtype_name((sl_dtype)d), bad, n * es);
    }
    free(h);
    free(w);
}

static void test_errors(sl_ctx *ctx, float *A, float *B, float *C)
{
    float host[16] = {0};
    CHECK(sl_add(ctx, SL_F32, 16, host, B, C, NULL) == SL_ERR_BAD_POINTER, "host a: %s", sl_last_error());
    CHECK(sl_add(ctx, SL_F32, 16, A, B, host, NULL) == SL_ERR_BAD_POINTER, "host c: %s", sl_last_error());
    CHECK(sl_add(ctx, SL_F32, 16, (char *)A + 2, B, C, NULL) == SL_ERR_MISALIGNED, "a + 2 bytes");
    CHECK(sl_add(ctx, SL_BF16, 16, (char *)A + 1, B, C, NULL) == SL_ERR_MISALIGNED, "bf16 a + 1 byte");
    CHECK(sl_add(ctx, SL_F32, 16, A, B, A + 3, NULL) == SL_ERR_OVERLAP, "c overlaps a");
    CHECK(sl_add(ctx, SL_F32, 0, NULL, NULL, NULL, NULL) == SL_OK, "n = 0");
    CHECK(sl_add(ctx, (sl_dtype)17, 16, A, B, C, NULL) == SL_ERR_INVALID_ARG, "bad dtype");
    CHECK(sl_triad(ctx, SL_F64, 16, 0.4, A, B, host, NULL) == SL_ERR_BAD_POINTER, "triad host a");
    CHECK(sl_nstream(ctx, SL_F32, 16, 0.4, A, B, A + 1, NULL) == SL_ERR_OVERLAP, "nstream c overlaps a");
    CHECK(sl_dot(ctx, SL_F32, 16, A, B, host, NULL) == SL_ERR_BAD_POINTER, "dot host result");
    CHECK(sl_dot(ctx, SL_BF16, 16, A, B, C, NULL) == SL_ERR_UNSUPPORTED, "dot bf16");
    CHECK(sl_scale(ctx, SL_FP8_E4M3, 16, 2.0, A, C, NULL) == SL_ERR_UNSUPPORTED, "scale fp8 (copy offers fp8: bytes)");
    CHECK(cudaGetLastError() == cudaSuccess, "an argument error left a CUDA error behind");
    CHECK(cudaDeviceSynchronize() == cudaSuccess, "context still usable after argument errors");
    /* A CUDA error the library reports (sl_cuda_fail, behind SL_CUDA_TRY) is cleared from the thread's
     * last error where it is not sticky: left there, the next launch's check (SL_CUDA_LAUNCHED) reported
     * it as its own (an H200 run: a refused launch, then an unrelated op failing with its error). */
    const cudaError_t bad = cudaSetDevice(-1);
    CHECK(bad != cudaSuccess && cudaPeekAtLastError() == bad, "cudaSetDevice(-1) left no error to clear (%s)",
          cudaGetErrorName(bad));
    CHECK(sl_cuda_fail(bad, "cudaSetDevice(-1)", __FILE__, __LINE__) == SL_ERR_CUDA, "sl_cuda_fail's status");
    CHECK(cudaPeekAtLastError() == cudaSuccess, "sl_cuda_fail left the error it reported as the last error");
    CHECK(sl_add(ctx, SL_F32, 16, A, B, C, NULL) == SL_OK, "sl_add after a reported CUDA error: %s", sl_last_error());
}

/* sl_dot gives the same bits every call, and 0 for n = 0. */
static void test_dot_determinism(sl_ctx *ctx, void *A, void *B, void *C)
{
    for (int d = 0; d < 2; d++) {
        const sl_dtype dt = d ? SL_F64 : SL_F32;
        const size_t n = MAXN;
        ctx->ops->fill_random(ctx, dt, A, n, 41);
        ctx->ops->fill_random(ctx, dt, B, n, 42);
        uint64_t first = 0, again = 0;
        int same = 1;
        for (int k = 0; k < 50 && same; k++) {
            CHECK(sl_dot(ctx, dt, n, A, B, C, ctx->stream) == SL_OK, "sl_dot: %s", sl_last_error());
            ctx->ops->sync(ctx);
            ctx->ops->download(ctx, k ? &again : &first, C, sl_dtype_size(dt));
            same = !k || again == first;
        }
        CHECK(same, "sl_dot %s: different bits between calls", sl_dtype_name(dt));
        /* The context's workspace is every op's scratch: another op (here a
         * memset standing for rmsnorm_bwd's dw partials) may leave anything
         * in it between two dots. sl_dot once returned 0 after that. */
        void *ws = NULL;
        CHECK(ctx->ops->workspace(ctx, 256, &ws) == SL_OK && ws, "the context's workspace");
        CHECK(cudaMemset(ws, 0xa5, 256) == cudaSuccess, "scribble over the workspace");
        CHECK(cudaMemset(C, 0, 8) == cudaSuccess, "clear the result"); /* a dot that writes nothing must fail */
        again = 0;
        CHECK(sl_dot(ctx, dt, n, A, B, C, ctx->stream) == SL_OK, "sl_dot: %s", sl_last_error());
        ctx->ops->sync(ctx);
        ctx->ops->download(ctx, &again, C, sl_dtype_size(dt));
        CHECK(again == first, "sl_dot %s after another op used the workspace: different bits", sl_dtype_name(dt));
        uint64_t zero = ~0ull;
        CHECK(sl_dot(ctx, dt, 0, NULL, NULL, C, ctx->stream) == SL_OK, "dot n = 0");
        ctx->ops->sync(ctx);
        ctx->ops->download(ctx, &zero, C, sl_dtype_size(dt));
        CHECK((sl_dtype_size(dt) == 8 ? zero : (zero & 0xffffffffu)) == 0, "dot of nothing is +0");
    }
}

/* Every case of one variant (NULL: the public entry) of op in one dtype.
 * f32 and f64: every size, each buffer alone at offsets 1, 3 and 6, all at
 * 5, and every in-place pairing. The 16- and 8-bit dtypes, whose kernels are
 * the same templates: three sizes, each buffer alone at 3. Quick mode
 * (compute-sanitizer): two sizes, no offset, all at 5, the first buffer at 3. */
static void test_variant(sl_ctx *ctx, const sl_op_desc *op, const sl_variant *v, sl_dtype dt, gpu_bufs *g)
{
    const int quick = getenv("STREAMLAB_TEST_QUICK") != NULL, wide = dt == SL_F32 || dt == SL_F64;
    const size_t all_sizes[] = {1, 3, 1023, 1000003, MAXN}, narrow_sizes[] = {1, 3, 1000003},
                 quick_sizes[] = {3, 1000003};
    const size_t *sizes = quick ? quick_sizes : wide ? all_sizes : narrow_sizes;
    const size_t nsizes = quick ? 2 : wide ? 5 : 3;
    int failed_before = check_failures, ran = 0, none[SL_MAX_BUFS];
    for (int k = 0; k < SL_MAX_BUFS; k++)
        none[k] = -1;
    /* the offset sets */
    int offs[16][SL_MAX_BUFS];
    int noff = 0;
    memset(offs, 0, sizeof offs);
    noff++; /* none */
    for (int k = 0; k < op->nbufs; k++)
        offs[noff][k] = 5;
    noff++; /* all at 5: one shift aligns them all again */
    for (int k = 0; k < (quick ? 1 : op->nbufs); k++) {
        static const int alone[] = {3, 1, 6};
        for (int o = 0; o < (wide && !quick ? 3 : 1); o++) {
            offs[noff][k] = alone[o];
            noff++;
        }
    }
    gpu_bufs_fill(ctx, op, g, dt);
    for (size_t s = 0; s < nsizes; s++) {
        const size_t n = sizes[s];
        for (int o = 0; o < noff; o++) {
            ran++;
            if (!run_case(ctx, op, v, dt, g, n, offs[o], none, NULL))
                goto done; /* one report per variant is enough */
        }
        if ((v && v->copy) || (quick && s > 0))
            continue;
        /* in place: each OUT buffer as each input */
        for (int w = 0; w < op->nbufs; w++) {
            if (op->bufs[w].role != SL_ROLE_OUT || op->bufs[w].scalar || (v && v->fixed_out))
                continue;
            for (int r = 0; r < op->nbufs; r++) {
                if (op->bufs[r].role == SL_ROLE_OUT)
                    continue;
                int al[SL_MAX_BUFS];
                memcpy(al, none, sizeof al);
                al[w] = r;
                ran++;
                if (!run_case(ctx, op, v, dt, g, n, offs[0], al, NULL))
                    goto done;
            }
        }
    }
done:
    printf("  %-8s %-14s %-8s %s (%d cases)\n", op->name, case_name(v), sl_dtype_name(dt),
           check_failures == failed_before ? "ok" : "FAILED", ran);
    fflush(stdout);
}

int main(void)
{
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_ops");
    if (!ctx)
        return SKIP;
    printf("test_gpu_ops: %s\n", ctx->info.name);
    gpu_bufs g;
    CHECK(gpu_bufs_alloc(ctx, &g, LEN), "alloc: %s", sl_last_error());
    test_generator(ctx, g.mem[0]);
    test_errors(ctx, g.mem[0], g.mem[1], g.mem[2]);
    test_dot_determinism(ctx, g.mem[0], g.mem[1], g.mem[2]);
    const char *only = getenv("STREAMLAB_TEST_OPS"), *dtypes = getenv("STREAMLAB_TEST_DTYPES");
    for (int i = 0; i < sl_op_count(); i++) {
        const sl_op_desc *op = sl_op_at(i);
        if ((only && !sl_list_has(only, op->name)) || op->rank != 1)
            continue; /* a 2-D op has its own GPU test (test_gpu_transpose, test_gpu_softmax, ...) */
        for (int d = 0; d < SL_DTYPE_COUNT; d++) {
            if (!sl_op_supports(op, (sl_dtype)d) || (dtypes && !sl_list_has(dtypes, sl_dtype_name((sl_dtype)d))))
                continue;
            for (int k = 0; k < op->nvariants; k++) {
                const sl_variant *v = &op->variants[k];
                if (v->backend == SL_BACKEND_CUDA && v->launch && sl_variant_supports(op, v, (sl_dtype)d))
                    test_variant(ctx, op, v, (sl_dtype)d, &g);
            }
            test_variant(ctx, op, NULL, (sl_dtype)d, &g);
        }
    }
    gpu_bufs_free(ctx, &g);
    sl_ctx_destroy(ctx);
    return check_exit("test_gpu_ops");
}
