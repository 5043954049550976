/*
 * The transpose op on the GPU: every CUDA variant of sl_op_transpose (the
 * rungs, the cuBLAS peer in its dtypes, the public entry) in every dtype,
 * at odd shapes, padded row strides and element offsets that defeat the
 * 16-byte path, and a large shape of many tiles, each checked element by
 * element against the oracle (transpose_check.h) with the bytes after the
 * output checked for stray writes; then sl_transpose's argument errors.
 * Exits 77 (skipped) without a GPU. STREAMLAB_TEST_QUICK=1 (for
 * compute-sanitizer) keeps every variant, dtype and path but fewer shapes.
 *
 * The TMA rungs (tma, tma_col, tma_col2: 06_tma.cu) take only what a tensor map can
 * describe; where this file's own statement of those rules (tma_takes)
 * says they cannot, they must refuse with SL_ERR_UNSUPPORTED and leave the
 * output unwritten, and on an sm_90 device they must take and pass some
 * cases of every dtype, edge tiles included.
 */
#include "op.h"
#include "transpose_check.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>

static int g_cc;                 /* the device's compute capability, 10 x major + minor */
static int g_tma_took, g_tma_refused; /* cases the TMA rungs took / refused */

/* The edge shapes of issue 26 item 3 (rows, cols, pad: ld = cols + pad),
 * run for every variant: 1-wide, a row or a column alone, many partial
 * tiles, and padded versions that meet a tensor map's 16-byte strides in
 * every dtype (ld and rows multiples of 8 elements) so that the TMA rungs
 * take them with clipped edge tiles. */
static const tp_case tp_edge_cases[] = {
    {1, 1, 0}, {1, 777, 0}, {777, 1, 0}, {1000, 777, 0}, {4097, 33, 0},
    {1000, 777, 7}, {4096, 33, 7}, {776, 1, 7}, {8, 1, 7}, {136, 72, 0},
};
#define TP_NEDGE ((int)(sizeof tp_edge_cases / sizeof tp_edge_cases[0]))

/* Whether a TMA rung can take a case: an sm_90 device, both pointers
 * 16-byte aligned, the input's row stride (ld x size) and the output's
 * (rows x size) multiples of 16 bytes (cuTensorMapEncodeTiled's rules for
 * global addresses and strides). */
static int tma_takes(size_t es, size_t rows, size_t ld, const void *in, const void *out)
{
    return g_cc >= 90 && (uintptr_t)in % 16 == 0 && (uintptr_t)out % 16 == 0 && (ld * es) % 16 == 0 &&
           (rows * es) % 16 == 0;
}

static int cuda_ok(cudaError_t e, const char *what)
{
    CHECK(e == cudaSuccess, "%s: %s", what, cudaGetErrorString(e));
    return e == cudaSuccess;
}

/* One case: variant v (NULL: sl_transpose) on rows x cols with row stride
 * cols + pad, the input at element offset off_in and the output at off_out
 * of their allocations. */
static void run_gpu_case(sl_ctx *ctx, const sl_variant *v, sl_dtype dt, size_t rows, size_t cols, size_t pad,
                         size_t off_in, size_t off_out)
{
    const size_t es = sl_dtype_size(dt), ld = cols + pad;
    const size_t in_elems = (rows - 1) * ld + cols, out_elems = rows * cols;
    const size_t in_bytes = (in_elems + off_in) * es, out_bytes = (out_elems + off_out) * es + TP_GUARD;
    char what[200];
    snprintf(what, sizeof what, "%s %s %zux%zu ld %zu offsets %zu,%zu", v ? v->name : "sl_transpose",
             sl_dtype_name(dt), rows, cols, ld, off_in, off_out);
    unsigned char *h_in = malloc(in_bytes), *h_out = malloc(out_bytes);
    void *d_in = NULL, *d_out = NULL;
    if (!cuda_ok(cudaMalloc(&d_in, in_bytes), "cudaMalloc in") || !cuda_ok(cudaMalloc(&d_out, out_bytes), "out"))
        goto done;
    tp_fill(h_in, in_bytes, 0x1234 + rows * 7 + cols * 13 + off_in);
    if (v && v->kind == SL_KIND_PEER) {
        /* cuBLAS computes 1 x a + 0 x b: bit-exact for finite numbers only
         * (cublasDgeam quiets signalling NaNs), so its inputs are normal
         * numbers: the top byte of every element 0x3f (sign 0, a mid-range
         * exponent in f16, bf16, f32 and f64) */
        for (size_t b = es - 1; b < in_bytes; b += es)
            h_in[b] = 0x3f;
    }
    if (!cuda_ok(cudaMemcpy(d_in, h_in, in_bytes, cudaMemcpyHostToDevice), "upload") ||
        !cuda_ok(cudaMemset(d_out, 0xff, out_bytes), "poison"))
        goto done;
    void *in = (char *)d_in + off_in * es, *out = (char *)d_out + off_out * es;
    sl_status st;
    if (v) {
        sl_args x = {.op = &sl_op_transpose, .n = out_elems, .dtype = dt, .out_dtype = dt};
        x.shape.rows = rows;
        x.shape.cols = cols;
        x.shape.ld = ld;
        x.buf[0] = in;
        x.buf[1] = out;
        st = v->launch(&x);
    } else {
        st = sl_transpose(ctx, dt, rows, cols, in, out, NULL);
    }
    if (v && strncmp(v->name, "tma", 3) == 0 && !tma_takes(es, rows, ld, in, out)) {
        /* refused, with a reason, and nothing written */
        g_tma_refused++;
        CHECK(st == SL_ERR_UNSUPPORTED, "%s: a TMA rung must refuse this case (status %d)", what, (int)st);
        CHECK(strstr(sl_last_error(), "tma") != NULL, "%s: the refusal names the rung: %s", what, sl_last_error());
        if (!cuda_ok(cudaDeviceSynchronize(), what) ||
            !cuda_ok(cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost), "download"))
            goto done;
        size_t touched = 0;
        for (size_t b = 0; b < out_bytes; b++)
            touched += h_out[b] != 0xffu;
        CHECK(touched == 0, "%s: a refusal wrote %zu bytes", what, touched);
        goto done;
    }
    if (v && strncmp(v->name, "tma", 3) == 0)
        g_tma_took++;
    CHECK(st == SL_OK, "%s: %s", what, sl_last_error());
    if (st != SL_OK || !cuda_ok(cudaDeviceSynchronize(), what) ||
        !cuda_ok(cudaMemcpy(h_out, d_out, out_bytes, cudaMemcpyDeviceToHost), "download"))
        goto done;
    for (size_t b = 0; b < off_out * es; b++)
        CHECK(h_out[b] == 0xffu, "%s: byte %zu before out written", what, b);
    CHECK(tp_mismatches(h_in + off_in * es, h_out + off_out * es, rows, cols, ld, es, what) == 0, "%s: wrong output",
          what);
done:
    cudaFree(d_in);
    cudaFree(d_out);
    free(h_in);
    free(h_out);
}

static void check_errors(sl_ctx *ctx)
{
    void *d = NULL;
    if (!cuda_ok(cudaMalloc(&d, 1 << 16), "cudaMalloc"))
        return;
    float *f = d;
    CHECK(sl_transpose(ctx, SL_F32, 64, 64, f, f, NULL) == SL_ERR_OVERLAP, "in place is refused on the GPU");
    CHECK(strstr(sl_last_error(), "place") != NULL, "the message says in place is not supported: %s",
          sl_last_error());
    CHECK(sl_transpose(ctx, SL_F32, 64, 64, f, f + 100, NULL) == SL_ERR_OVERLAP, "partial overlap");
    CHECK(sl_transpose(ctx, SL_F64, 8, 8, d, (double *)d + 1, NULL) == SL_ERR_OVERLAP, "partial overlap f64");
    CHECK(sl_transpose(ctx, SL_F32, 8, 8, f, NULL, NULL) == SL_ERR_INVALID_ARG, "NULL out");
    CHECK(sl_transpose(ctx, SL_FP8_E5M2, 8, 8, f, f + 1024, NULL) == SL_ERR_UNSUPPORTED, "fp8");
    CHECK(sl_transpose(ctx, SL_F32, 8, 8, (char *)d + 2, f + 1024, NULL) == SL_ERR_MISALIGNED, "misaligned");
    float host[64];
    CHECK(sl_transpose(ctx, SL_F32, 8, 8, host, f + 1024, NULL) == SL_ERR_BAD_POINTER, "host memory on a CUDA ctx");
    CHECK(sl_transpose(ctx, SL_F32, 0, 8, NULL, NULL, NULL) == SL_OK, "0 rows: no-op");
    CHECK(cuda_ok(cudaDeviceSynchronize(), "after the errors"), "no launch faulted");
    cudaFree(d);
}

int main(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("test_gpu_transpose: SKIPPED: no CUDA device on this machine (run it on the GPU machine)\n");
        return SKIP;
    }
    sl_ctx *ctx = NULL;
    if (sl_ctx_create(0, &ctx) != SL_OK) {
        printf("test_gpu_transpose: SKIPPED: cannot open device 0: %s\n", sl_last_error());
        return SKIP;
    }
    int dev = 0, major = 0, minor = 0;
    if (cudaGetDevice(&dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess &&
        cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess)
        g_cc = 10 * major + minor;
    const sl_op_desc *op = &sl_op_transpose;
    const char *q = getenv("STREAMLAB_TEST_QUICK");
    const int quick = q && *q && strcmp(q, "0") != 0;
    int ran = 0;
    for (int v = -1; v < op->nvariants; v++) {
        const sl_variant *var = v < 0 ? NULL : &op->variants[v];
        if (var && (var->backend != SL_BACKEND_CUDA || var->kind == SL_KIND_CEILING || !var->launch))
            continue;
        ran++;
        for (int k = 0; k < TP_NDTYPES; k++) {
            const sl_dtype dt = tp_dtypes[k];
            if (var && !sl_variant_supports(op, var, dt))
                continue;
            for (int i = 0; i < TP_NCASES; i++) {
                const tp_case *c = &tp_cases[i];
                if ((!var && c->pad) || (quick && i % 3 != 0))
                    continue;
                run_gpu_case(ctx, var, dt, c->rows, c->cols, c->pad, 0, 0);
                /* one element off: not 16-byte aligned, the scalar path */
                if (!(c->rows == 1 && c->cols == 1))
                    run_gpu_case(ctx, var, dt, c->rows, c->cols, c->pad, 1, 3);
            }
            /* many tiles, interior and edges */
            if (!quick)
                run_gpu_case(ctx, var, dt, 1536, 1000, 0, 0, 0);
            run_gpu_case(ctx, var, dt, 999, 2050, var ? 6 : 0, 0, 0);
            /* issue 26's edge shapes, aligned (the TMA rungs take the padded
             * ones); under STREAMLAB_TEST_QUICK (memcheck) for the TMA rungs
             * only, whose edge tiles the tensor maps clip */
            const int tma = var && strncmp(var->name, "tma", 3) == 0;
            for (int i = 0; i < TP_NEDGE; i++) {
                const tp_case *c = &tp_edge_cases[i];
                if ((!var && c->pad) || (quick && !tma))
                    continue;
                run_gpu_case(ctx, var, dt, c->rows, c->cols, c->pad, 0, 0);
            }
        }
    }
    CHECK(ran == 16, "naive, tile32, pad33, swizzle, the six vec rungs, the three tma rungs, cublas, the api row and "
                     "sl_transpose ran (%d)",
          ran);
    /* per dtype at least the 1000 x 777 (ld 784), 4096 x 33, 776 x 1, 8 x 1
     * and 136 x 72 edge cases and the 128 x 256 / 64 x 64 / 32 x 32 ones */
    if (g_cc >= 90)
        CHECK(g_tma_took >= 3 * TP_NDTYPES * 5, "the TMA rungs took %d cases (refused %d)", g_tma_took,
              g_tma_refused);
    else
        CHECK(g_tma_took == 0, "below sm_90 the TMA rungs took %d cases", g_tma_took);
    CHECK(g_tma_refused > 0, "the TMA rungs refused no case");
    check_errors(ctx);
    sl_ctx_destroy(ctx);
    return check_exit("test_gpu_transpose");
}
