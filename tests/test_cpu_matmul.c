/*
 * test_cpu_matmul.c - matmul on the CPU (CI): the serial and OpenMP CPU
 * rungs against the fp64 reference within the K-length bound, at odd
 * shapes, with alpha / beta, padded leading dimensions and f32 / bf16 / f16;
 * the reference against hand-worked products; the check failing on a wrong
 * entry and a wrong row; the bound growing with K; the roofline naming the
 * limiter the ladder expects.
 */
#include "mm.h"

#include "dtype_conv.h"
#include "internal.h"
#include "op.h"
#include "rng.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;

#define EXPECT(cond, ...)                                  \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                  \
            fprintf(stderr, "\n");                         \
            fails++;                                       \
        }                                                  \
    } while (0)

static void fill(sl_dtype dt, void *p, size_t count, uint64_t seed)
{
    for (size_t i = 0; i < count; i++)
        sl_dtype_store(dt, p, i, (float)((double)(sl_rand_bits(seed, i) >> 40) * 0x1p-24 * 2.0 - 1.0));
}

static void cpu_case(sl_mm_fn fn, const char *who, sl_dtype dt, int64_t m, int64_t n, int64_t k, int64_t pad,
                     double alpha, double beta)
{
    const size_t es = sl_dtype_size(dt);
    sl_mm p = {.m = m, .n = n, .k = k, .lda = k + pad, .ldb = n + pad, .ldc = n + pad, .alpha = alpha, .beta = beta,
               .dtype = dt};
    const size_t na = (size_t)((m - 1) * p.lda + k), nb = (size_t)((k - 1) * p.ldb + n),
                 nc = (size_t)((m - 1) * p.ldc + n);
    unsigned char *a = malloc(na * es), *b = malloc(nb * es), *c0 = malloc(nc * es), *c = malloc(nc * es);
    fill(dt, a, na, 1 + (uint64_t)k);
    fill(dt, b, nb, 2 + (uint64_t)n);
    fill(dt, c0, nc, 3 + (uint64_t)m);
    if (beta == 0.0) /* NaN entries: must be ignored */
        for (int64_t i = 0; i < m; i++)
            memset(c0 + (size_t)(i * p.ldc) * es, 0xFF, (size_t)n * es);
    memcpy(c, c0, nc * es);
    p.a = a;
    p.b = b;
    p.c = c;
    fn(&p);
    double w = 0;
    sl_status st = sl_mm_check(&p, SL_MM_FP32, c0, c, true, 0, &w);
    EXPECT(st == SL_OK, "%s %s %lldx%lldx%lld pad %lld: %s", who, sl_dtype_name(dt), (long long)m, (long long)n,
           (long long)k, (long long)pad, sl_last_error());
    for (int64_t i = 0; i + 1 < m; i++) /* padding of C untouched */
        EXPECT(!memcmp(c + (size_t)(i * p.ldc + n) * es, c0 + (size_t)(i * p.ldc + n) * es, (size_t)pad * es),
               "%s wrote C's padding", who);
    free(a);
    free(b);
    free(c0);
    free(c);
}

/* Hand-worked: [[1, 2], [3, 4]] x [[5, 6], [7, 8]] = [[19, 22], [43, 50]];
 * with alpha = 2, beta = -1 and C0 = [[1, 1], [1, 1]]: [[37, 43], [85, 99]]. */
static void hand_worked(void)
{
    const float a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
    const float c0[4] = {1, 1, 1, 1};
    float c[4];
    sl_mm p = {.m = 2, .n = 2, .k = 2, .lda = 2, .ldb = 2, .ldc = 2, .alpha = 2, .beta = -1, .a = a, .b = b,
               .c = c, .dtype = SL_F32};
    double ref[4], mag[4];
    sl_mm_reference(&p, c0, ref, mag);
    const double want[4] = {37, 43, 85, 99}, wmag[4] = {39, 45, 87, 101};
    for (int i = 0; i < 4; i++) {
        EXPECT(ref[i] == want[i], "reference[%d] = %g, want %g", i, ref[i], want[i]);
        EXPECT(mag[i] == wmag[i], "magnitude[%d] = %g, want %g", i, mag[i], wmag[i]);
    }
    memcpy(c, c0, sizeof c);
    sl_cpu_mm_serial(&p);
    for (int i = 0; i < 4; i++)
        EXPECT(c[i] == (float)want[i], "serial C[%d] = %g, want %g", i, c[i], want[i]);
    /* 1 x 1 x 3 in bf16: 1.5 x 2 + 0.25 x 4 + (-1) x 0.5 = 3.5 */
    uint16_t ha[3], hb[3], hc[1];
    const float av[3] = {1.5f, 0.25f, -1.0f}, bv[3] = {2.0f, 4.0f, 0.5f};
    for (int i = 0; i < 3; i++) {
        ha[i] = sl_f32_to_bf16(av[i]);
        hb[i] = sl_f32_to_bf16(bv[i]);
    }
    sl_mm q = {.m = 1, .n = 1, .k = 3, .lda = 3, .ldb = 1, .ldc = 1, .alpha = 1, .beta = 0, .a = ha, .b = hb, .c = hc,
               .dtype = SL_BF16};
    sl_cpu_mm_omp(&q);
    EXPECT(sl_bf16_to_f32(hc[0]) == 3.5f, "bf16 1x1x3 = %g, want 3.5", sl_bf16_to_f32(hc[0]));
}

/* The check fails: an entry just past its bound (full), a row (sampled). */
static void check_fails(void)
{
    const int64_t m = 64, n = 48, k = 200;
    float *a = malloc(sizeof(float) * (size_t)(m * k)), *b = malloc(sizeof(float) * (size_t)(k * n)),
          *c = malloc(sizeof(float) * (size_t)(m * n));
    fill(SL_F32, a, (size_t)(m * k), 9);
    fill(SL_F32, b, (size_t)(k * n), 10);
    sl_mm p = {.m = m, .n = n, .k = k, .lda = k, .ldb = n, .ldc = n, .alpha = 1, .beta = 0, .a = a, .b = b, .c = c,
               .dtype = SL_F32};
    sl_cpu_mm_omp(&p);
    double w, r, g;
    EXPECT(sl_mm_check(&p, SL_MM_FP32, NULL, c, true, 0, &w) == SL_OK, "omp result failed: %s", sl_last_error());
    EXPECT(sl_mm_check(&p, SL_MM_FP32, NULL, c, false, 64, &w) == SL_OK, "omp result failed sampled: %s",
           sl_last_error());
    sl_mm_reference_at(&p, NULL, 13, 29, &r, &g);
    const float keep = c[13 * n + 29];
    c[13 * n + 29] = (float)(r + 2.0 * sl_mm_bound(&p, SL_MM_FP32, r, g));
    EXPECT(sl_mm_check(&p, SL_MM_FP32, NULL, c, true, 0, &w) == SL_ERR_VERIFY, "an entry 2 bounds off passed");
    c[13 * n + 29] = keep;
    for (int64_t j = 0; j < n; j++) /* row 40 shifted by 0.01: the row sum moves by 0.48 */
        c[40 * n + j] += 0.01f;
    EXPECT(sl_mm_check(&p, SL_MM_FP32, NULL, c, false, 16, &w) == SL_ERR_VERIFY, "a wrong row passed the row sums");
    free(a);
    free(b);
    free(c);
    /* the bound grows with K */
    sl_mm q = {.m = 1, .n = 1, .k = 100, .dtype = SL_F32};
    const double b100 = sl_mm_bound(&q, SL_MM_FP32, 1.0, 10.0);
    q.k = 10000;
    const double b10k = sl_mm_bound(&q, SL_MM_FP32, 1.0, 10.0);
    EXPECT(b10k > 90 * b100 && b10k < 110 * b100, "bound(K=1e4) / bound(K=100) = %g, want ~100", b10k / b100);
    EXPECT(sl_mm_bound(&q, SL_MM_TF32, 1.0, 10.0) > 10 * b10k / 2, "TF32 bound not dominated by input rounding");
}

static void roofline(void)
{
    const sl_mm_variant *nv = sl_mm_variant_find("naive"), *wt = sl_mm_variant_find("warptile"),
                        *rb = sl_mm_variant_find("regblock"), *wm = sl_mm_variant_find("wmma");
    EXPECT(nv && wt && rb && wm, "variants missing");
    if (!(nv && wt && rb && wm))
        return;
    sl_mm_roof r = sl_mm_roofline(wt, &sl_mm_hw_h200, 4096, 4096, 4096, SL_F32, false);
    EXPECT(!strcmp(r.limiter, "compute"), "warptile 4096 f32: limiter %s, want compute", r.limiter);
    EXPECT(fabs(r.flops - 2.0 * 4096.0 * 4096.0 * 4096.0) < 1, "flops");
    EXPECT(fabs(r.dram_bytes - 3.0 * 4 * 4096.0 * 4096.0) < 1, "compulsory bytes");
    /* A re-read 4096/128 = 32 times, B 32 times, C once: 65 x 4 x 4096^2 */
    EXPECT(fabs(r.l2_bytes - 65.0 * 4 * 4096.0 * 4096.0) < 1, "tile bytes %g", r.l2_bytes);
    r = sl_mm_roofline(nv, &sl_mm_hw_h200, 4096, 4096, 4096, SL_F32, false);
    EXPECT(!strcmp(r.limiter, "shared memory / L1"), "naive: limiter %s", r.limiter);
    r = sl_mm_roofline(rb, &sl_mm_hw_h200, 4096, 4096, 4096, SL_F32, false);
    EXPECT(!strcmp(r.limiter, "shared memory / L1"), "regblock: limiter %s", r.limiter);
    r = sl_mm_roofline(wm, &sl_mm_hw_h200, 8192, 8192, 8192, SL_BF16, false);
    EXPECT(!strcmp(r.limiter, "L2"), "wmma 8192 bf16: limiter %s", r.limiter);
    /* a thin product is memory bound: 8192 x 8192 x 1 */
    r = sl_mm_roofline(wt, &sl_mm_hw_h200, 8192, 8192, 1, SL_F32, false);
    EXPECT(!strcmp(r.limiter, "DRAM"), "8192x8192x1: limiter %s, want DRAM", r.limiter);
}


/* sl_gemm on a CPU context: padded leading dimensions against the
 * reference, and every argument error with its status. */
static void public_api(void)
{
    sl_ctx *ctx = NULL;
    EXPECT(sl_ctx_create(SL_DEVICE_CPU, &ctx) == SL_OK, "CPU context: %s", sl_last_error());
    if (!ctx)
        return;
    enum { M = 37, N = 21, K = 50, LDA = 53, LDB = 24, LDC = 22 };
    static float a[M * LDA], b[K * LDB], c0[M * LDC], c[M * LDC];
    fill(SL_F32, a, M * LDA, 31);
    fill(SL_F32, b, K * LDB, 32);
    fill(SL_F32, c0, M * LDC, 33);
    memcpy(c, c0, sizeof c);
    EXPECT(sl_gemm(ctx, SL_F32, 'N', 'n', M, N, K, 1.5, a, LDA, b, LDB, -0.25, c, LDC, NULL) == SL_OK, "sl_gemm: %s",
           sl_last_error());
    sl_mm p = {.m = M, .n = N, .k = K, .lda = LDA, .ldb = LDB, .ldc = LDC, .alpha = 1.5, .beta = -0.25, .a = a,
               .b = b, .dtype = SL_F32};
    double w;
    EXPECT(sl_mm_check(&p, SL_MM_FP32, c0, c, true, 0, &w) == SL_OK, "sl_gemm result: %s", sl_last_error());
    for (int i = 0; i + 1 < M; i++)
        EXPECT(c[i * LDC + N] == c0[i * LDC + N], "sl_gemm wrote C's padding");
    /* errors */
    struct {
        sl_status want;
        sl_status got;
        const char *what;
    } e[] = {
        {SL_ERR_UNSUPPORTED, sl_gemm(ctx, SL_F32, 'T', 'N', M, N, K, 1, a, LDA, b, LDB, 0, c, LDC, NULL), "transa T"},
        {SL_ERR_UNSUPPORTED, sl_gemm(ctx, SL_F32, 'N', 'c', M, N, K, 1, a, LDA, b, LDB, 0, c, LDC, NULL), "transb c"},
        {SL_ERR_INVALID_ARG, sl_gemm(ctx, SL_F32, 'X', 'N', M, N, K, 1, a, LDA, b, LDB, 0, c, LDC, NULL), "transa X"},
        {SL_ERR_INVALID_ARG, sl_gemm(ctx, SL_F32, 'N', 'N', 0, N, K, 1, a, LDA, b, LDB, 0, c, LDC, NULL), "m = 0"},
        {SL_ERR_INVALID_ARG, sl_gemm(ctx, SL_F32, 'N', 'N', M, N, 0, 1, a, LDA, b, LDB, 0, c, LDC, NULL), "k = 0"},
        {SL_ERR_INVALID_ARG, sl_gemm(ctx, SL_F32, 'N', 'N', M, N, K, 1, a, K - 1, b, LDB, 0, c, LDC, NULL), "lda < k"},
        {SL_ERR_INVALID_ARG, sl_gemm(ctx, SL_F32, 'N', 'N', M, N, K, 1, a, LDA, b, N - 1, 0, c, LDC, NULL), "ldb < n"},
        {SL_ERR_INVALID_ARG, sl_gemm(ctx, SL_F32, 'N', 'N', M, N, K, 1, a, LDA, b, LDB, 0, c, N - 1, NULL), "ldc < n"},
        {SL_ERR_UNSUPPORTED, sl_gemm(ctx, SL_F64, 'N', 'N', M, N, K, 1, a, LDA, b, LDB, 0, c, LDC, NULL), "f64"},
        {SL_ERR_INVALID_ARG, sl_gemm(ctx, SL_F32, 'N', 'N', M, N, K, 1, NULL, LDA, b, LDB, 0, c, LDC, NULL), "A NULL"},
        {SL_ERR_MISALIGNED, sl_gemm(ctx, SL_F32, 'N', 'N', M, N, K, 1, (char *)a + 2, LDA, b, LDB, 0, c, LDC, NULL),
         "A misaligned"},
        {SL_ERR_OVERLAP, sl_gemm(ctx, SL_F32, 'N', 'N', M, N, K, 1, a, LDA, b, LDB, 0, a + 5, LDC, NULL), "C inside A"},
        {SL_ERR_INVALID_ARG, sl_gemm(NULL, SL_F32, 'N', 'N', M, N, K, 1, a, LDA, b, LDB, 0, c, LDC, NULL), "ctx NULL"},
    };
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++)
        EXPECT(e[i].got == e[i].want, "sl_gemm %s: status %d, want %d (%s)", e[i].what, (int)e[i].got,
               (int)e[i].want, sl_last_error());
    sl_ctx_destroy(ctx);
}

/* The ladder's table (mm.h, for the bench and the roofline) and the
 * descriptor's variants name the same rungs. */
static void tables_agree(void)
{
    for (int i = 0; i < sl_mm_nvariants; i++) {
        const sl_mm_variant *v = &sl_mm_variants[i];
        EXPECT(sl_variant_find(&sl_op_matmul, v->backend, v->name) != NULL, "%s is not in sl_op_matmul", v->name);
    }
    for (int i = 0; i < sl_op_matmul.nvariants; i++) {
        const sl_variant *v = &sl_op_matmul.variants[i];
        bool found = v->kind == SL_KIND_API;
        for (int j = 0; j < sl_mm_nvariants; j++)
            found |= sl_mm_variants[j].backend == v->backend && !strcmp(sl_mm_variants[j].name, v->name);
        EXPECT(found, "%s is not in sl_mm_variants", v->name);
    }
    sl_shape s = {.rows = 300, .cols = 200, .ld = 210, .k = 50};
    EXPECT(sl_op_buf_elems(&sl_op_matmul, 0, &s) == 300 * 50, "A's extent");
    EXPECT(sl_op_buf_elems(&sl_op_matmul, 1, &s) == 50 * 200, "B's extent");
    EXPECT(sl_op_buf_elems(&sl_op_matmul, 2, &s) == 299 * 210 + 200, "C's extent");
    EXPECT(sl_op_flops(&sl_op_matmul, &s) == 2.0 * 300 * 200 * 50, "flops");
}

int main(void)
{
    hand_worked();
    public_api();
    tables_agree();
    static const int64_t shapes[][3] = {{1, 1, 1}, {33, 17, 65}, {129, 257, 31}, {7, 600, 3}, {70, 1, 513}};
    const sl_dtype dts[] = {SL_F32, SL_BF16, SL_F16};
    for (int s = 0; s < 5; s++)
        for (int d = 0; d < 3; d++) {
            const int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
            cpu_case(sl_cpu_mm_serial, "serial", dts[d], m, n, k, 0, 1.0, 0.0);
            cpu_case(sl_cpu_mm_omp, "omp", dts[d], m, n, k, 0, 1.0, 0.0);
            cpu_case(sl_cpu_mm_serial, "serial", dts[d], m, n, k, 5, 0.75, -0.5);
            cpu_case(sl_cpu_mm_omp, "omp", dts[d], m, n, k, 3, -1.5, 2.0);
        }
    check_fails();
    roofline();
    if (fails)
        fprintf(stderr, "%d failures\n", fails);
    else
        printf("test_cpu_matmul: ok\n");
    return fails ? 1 : 0;
}
