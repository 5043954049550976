/*
 * test_gpu_matmul.c - every matmul rung and peer on the GPU against the
 * fp64 reference (src/ops/matmul/matmul_ref.c), within the K-length error
 * bound (sl_mm_bound: Higham 2002, section 3.1; tensor-core truncation by
 * Fasi et al. 2021):
 *   1. odd shapes (1x1x1, 33x17x65, 129x257x31, ...) in f32, bf16 and f16,
 *      alpha = 1, beta = 0 with C poisoned to NaN (an entry not written, or
 *      C read when beta == 0, fails), and alpha = 0.75, beta = -0.5;
 *   2. leading dimensions larger than the rows, with the bases one element
 *      off 16-byte alignment (the scalar fall-back paths), padding of A and
 *      B filled with huge values (a read of padding shows) and C's padding
 *      checked untouched;
 *   3. the check itself fails: one wrong entry (full check) and one wrong
 *      row (sampled check + row sums, at 1024^3 bf16);
 *   4. the launchers refuse a dtype they do not offer;
 *   5. the wgmma rung (sm_90a) and sl_gemm with leading dimensions TMA
 *      accepts (multiples of 8 elements, C's odd or tight) at ragged
 *      shapes spanning several blocks and K slices, and the dispatch: on a
 *      compute capability 9.0 device with sm_90a code, every case whose
 *      operands suit TMA (sl_cuda_mm_wgmma_applies) launches the wgmma
 *      kernel exactly once (sl_cuda_mm_wgmma_launches), every other case
 *      none (rung 7 runs). Elsewhere the wgmma rung is skipped, with why.
 *      Its TMA-store epilogue (beta = 0, C 16-byte aligned, ldc and N
 *      multiples of 8) at ragged M and N, rows ending inside a 16-byte
 *      chunk (the register epilogue then: a TMA store would write past N), C's
 *      padding checked untouched, alpha -1.5; each wgmma launch takes that
 *      epilogue exactly where the rule (tstore_expected) says it must
 *      (sl_cuda_mm_wgmma_tstore_launches: a failed tensor-map encode falls
 *      back to the register epilogue, which would otherwise pass unseen),
 *      and sl_gemm runs the configuration its rule names, 14 and 15 both
 *      reached (sl_cuda_mm_wgmma_cfg_launches);
 *   6. issue 26: every configuration of rung 8 (wgmma_*: 128 x 128 tiles,
 *      split-K over a cluster, B multicast, PDL) at the TMA shapes, two
 *      launches of each split configuration give identical bits, and
 *      sl_gemm's shape -> configuration rule (sl_cuda_mm_wgmma_pick);
 *   7. issue 26: the persistent configurations (wgmma_p, wgmma_n128_p
 *      and the ping-pong wgmma_n128_pp) with their grid capped at 1, 2, 7
 *      and 61 CTAs and uncapped (one per SM), at shapes with more tiles
 *      than 2 x the CTAs and tile counts that are not a multiple of the
 *      grid (1300x2900x136, 2048x2048x256, 640x768x320, 2100x4100x200,
 *      ...), so that one CTA walks many tiles, the stage and phase counters
 *      wrap across tile boundaries (K slices per tile not a multiple of the
 *      stages), the last round of tiles is partial, and (ping-pong) a CTA
 *      has an odd tile count or a single tile (its second consumer
 *      warpgroup idle); a hang there is the failure this part looks for.
 *   8. issue 26, f32: every configuration of rung 10 (simt_*: 128 x 128,
 *      128 x 64, 64 x 64 tiles, K split over a cluster of 2 or 4) at ragged
 *      shapes spanning several tiles and K splits (K shorter than a split,
 *      shorter than one K tile), alpha/beta with C poisoned, ldc odd; two
 *      launches of each split configuration give identical bits; sl_gemm
 *      f32 runs exactly the configuration its rule names
 *      (sl_cuda_mm_simt_pick, sl_cuda_mm_simt_launches), and the rule's
 *      table. The split configurations need sm_90 (skipped below, with why).
 *   9. issue 26: the one-sided split-K exchange (wgmma_*_ex: partials
 *      st.async into the owner's receive buffer, one mbarrier per owned
 *      warp, no cluster barrier around it) at the TMA shapes and at shapes
 *      whose K slices do not divide by the split (200x392x1416: 23 slices,
 *      11 / 12 and 5 / 6 / 6 / 6, the last ragged; 129x136x200: 4 slices,
 *      the last ragged; 1x8x1000; 3x5x7: ranks without a slice), bf16 with
 *      C poisoned and f16 with alpha/beta and ldc odd, against the fp64
 *      reference; two launches give identical bits, and so do the
 *      two-barrier configurations of the same split (the same sums in the
 *      same order): a hang there is the failure this part looks for.
 * Skips (exit 77) without a GPU. Run under compute-sanitizer by
 * bench/matmul.sh.
 */
#include "mm.h"

#include "cuda_check.h"

#include "dtype_conv.h"
#include "op.h"
#include "rng.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails, cases;
static int g_cc;          /* compute capability of device 0 */
static int g_tstore_cases; /* cases that took the TMA-store epilogue, as the test expected */
static int g_sms;         /* its SMs (sl_cuda_mm_simt_pick's argument) */
static sl_ctx *g_ctx;     /* a CUDA context for sl_gemm */

/* sl_gemm, the public entry, as a launcher (row-major, no transposition) */
static sl_status api_launch(const sl_mm *p)
{
    return sl_gemm(g_ctx, p->dtype, 'N', 'N', (size_t)p->m, (size_t)p->n, (size_t)p->k, p->alpha, p->a,
                   (size_t)p->lda, p->b, (size_t)p->ldb, p->beta, p->c, (size_t)p->ldc, p->stream);
}
static const sl_mm_variant api_t16 = {"sl_gemm", SL_BACKEND_CUDA, SL_KIND_API, SL_MM_TENSOR,
                                      (1u << SL_BF16) | (1u << SL_F16), api_launch, 0, 0, 0, "sl_gemm", ""};
static const sl_mm_variant api_f32 = {"sl_gemm", SL_BACKEND_CUDA, SL_KIND_API, SL_MM_FP32, 1u << SL_F32, api_launch,
                                      0, 0, 0, "sl_gemm", ""};

/* round up to a multiple of 8 elements (16 bytes of bf16 / f16) */
static int64_t ru8(int64_t x) { return (x + 7) / 8 * 8; }

#define CK(call)                                                                                            \
    do {                                                                                                    \
        cudaError_t e_ = (call);                                                                            \
        if (e_ != cudaSuccess) {                                                                            \
            fprintf(stderr, "FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));      \
            exit(1);                                                                                        \
        }                                                                                                   \
    } while (0)

/* uniform in [-1, 1), rounded to dt */
static void fill(sl_dtype dt, void *p, size_t count, uint64_t seed)
{
    for (size_t i = 0; i < count; i++) {
        const double u = (double)(sl_rand_bits(seed, i) >> 40) * 0x1p-24 * 2.0 - 1.0;
        sl_dtype_store(dt, p, i, (float)u);
    }
}

/* Whether a wgmma launch of variant name must take the TMA-store epilogue (08_wgmma.cu): the
 * configurations with one tile a CTA, no multicast and no two-barrier split (1: wgmma, wgmma_pdl; 2:
 * wgmma_n128; 11-13: the one-sided exchanges; 14-16: 128 x 64, and A multicast to a pair of block columns,
 * whose cluster barrier after the main loop leaves the stages idle; sl_gemm's and wgmma_auto's pick among
 * them), beta 0, C on
 * 16 bytes, ldc and N multiples of 8 elements (a TMA store writes whole 16-byte chunks: a row ending inside
 * one would be written past N, which the pad -3 cases catch). Written here from the rule, not asked of the
 * kernel's code. */
/* The configuration sl_gemm (and wgmma_auto) must run, as this test states
 * the launcher's rule: the pick, then 128 x 64 (14) with A multicast (15)
 * where A's or B's rows are not whole 128-byte lines (lda or ldb % 64);
 * 0 for the variants that name their configuration. */
static int cfg_expected(const char *name, const sl_mm *p)
{
    if (strcmp(name, "sl_gemm") && strcmp(name, "wgmma_auto"))
        return 0;
    const int c = sl_cuda_mm_wgmma_pick(p->m, p->n, p->k, g_sms);
    return c == 14 && (p->lda % 64 != 0 || p->ldb % 64 != 0) ? 15 : c;
}
static unsigned g_cfg_cases[32]; /* cases by the configuration sl_gemm ran (observed) */

static bool tstore_expected(const char *name, const sl_mm *p)
{
    if (p->beta != 0.0 || (uintptr_t)p->c % 16 != 0 || p->ldc % 8 != 0 || p->n % 8 != 0)
        return false;
    if (!strcmp(name, "sl_gemm") || !strcmp(name, "wgmma_auto")) {
        const int c = sl_cuda_mm_wgmma_pick(p->m, p->n, p->k, g_sms);
        return c == 1 || c == 2 || c >= 11;
    }
    static const char *const yes[] = {"wgmma", "wgmma_pdl", "wgmma_n128", "wgmma_n128_k2_ex", "wgmma_n128_k4_ex",
                                      "wgmma_k2_ex", "wgmma_n128_k2_ex_pdl", "wgmma_n64", "wgmma_n64_pdl", "wgmma_n64_ma2",
                                      "wgmma_n64_ma2_pdl", "wgmma_n128_ma2", "wgmma_n192"};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        if (!strcmp(name, yes[i]))
            return true;
    return false;
}

/* One case. off: elements the bases sit past an aligned allocation; pad:
 * extra elements per row of A, B and C; pad -1: lda and ldb rounded up to
 * multiples of 8, ldc = n (what TMA accepts, C tight); pad -2: lda and ldb
 * rounded up to multiples of 8 plus 8 and 16, ldc = n + 3 (odd); pad -3:
 * lda, ldb and ldc rounded up to multiples of 8 (C's rows end inside a
 * 16-byte chunk where n is not a multiple of 8). */
static void run_case(const sl_mm_variant *v, sl_dtype dt, int64_t m, int64_t n, int64_t k, int64_t pad, int off,
                     double alpha, double beta)
{
    const size_t es = sl_dtype_size(dt);
    sl_mm p = {.m = m, .n = n, .k = k, .lda = k + pad, .ldb = n + pad, .ldc = n + pad, .alpha = alpha, .beta = beta,
               .dtype = dt};
    if (pad == -1) {
        p.lda = ru8(k);
        p.ldb = ru8(n);
        p.ldc = n;
    } else if (pad == -2) {
        p.lda = ru8(k) + 8;
        p.ldb = ru8(n) + 16;
        p.ldc = n + 3;
    } else if (pad == -3) {
        p.lda = ru8(k);
        p.ldb = ru8(n);
        p.ldc = ru8(n);
    }
    const size_t na = (size_t)((m - 1) * p.lda + k) + (size_t)off, nb = (size_t)((k - 1) * p.ldb + n) + (size_t)off,
                 nc = (size_t)((m - 1) * p.ldc + n) + (size_t)off;
    unsigned char *ha = malloc(na * es), *hb = malloc(nb * es), *hc = malloc(nc * es), *got = malloc(nc * es);
    if (!ha || !hb || !hc || !got) {
        fprintf(stderr, "FAIL: host memory\n");
        exit(1);
    }
    fill(dt, ha, na, 11 + (uint64_t)m);
    fill(dt, hb, nb, 22 + (uint64_t)n);
    fill(dt, hc, nc, 33 + (uint64_t)k);
    /* padding of A and B: huge, so a kernel that reads it fails the check */
    for (int64_t i = 0; i + 1 < m; i++) /* the last row has no padding inside the span */
        for (int64_t j = k; j < p.lda; j++)
            sl_dtype_store(dt, ha, (size_t)(off + i * p.lda + j), 3e4f);
    for (int64_t i = 0; i + 1 < k; i++)
        for (int64_t j = n; j < p.ldb; j++)
            sl_dtype_store(dt, hb, (size_t)(off + i * p.ldb + j), 3e4f);
    /* beta == 0: C's entries are NaN (all ones), its padding stays random */
    if (beta == 0.0)
        for (int64_t i = 0; i < m; i++)
            memset(hc + (size_t)(off + i * p.ldc) * es, 0xFF, (size_t)n * es);
    void *da, *db, *dc;
    CK(cudaMalloc(&da, na * es));
    CK(cudaMalloc(&db, nb * es));
    CK(cudaMalloc(&dc, nc * es));
    CK(cudaMemcpy(da, ha, na * es, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, nb * es, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dc, hc, nc * es, cudaMemcpyHostToDevice));
    p.a = (unsigned char *)da + off * es;
    p.b = (unsigned char *)db + off * es;
    p.c = (unsigned char *)dc + off * es;
    cases++;
    /* which kernel must run: the wgmma one iff the device and build have it and TMA takes the operands */
    const bool wg_rung = !strncmp(v->name, "wgmma", 5) || (!strcmp(v->name, "sl_gemm") && dt != SL_F32);
    const bool wg_here = sl_cuda_mm_wgmma_built() && g_cc == 90;
    const bool wg_want = wg_rung && wg_here && sl_cuda_mm_wgmma_applies(&p, NULL) == SL_OK;
    const unsigned long long wg0 = sl_cuda_mm_wgmma_launches(), ts0 = sl_cuda_mm_wgmma_tstore_launches();
    const bool ts_want = wg_want && tstore_expected(v->name, &p);
    const int cfg_want = wg_want ? cfg_expected(v->name, &p) : 0;
    const unsigned long long cfg0 = sl_cuda_mm_wgmma_cfg_launches(cfg_want);
    /* f32 sl_gemm: rung 9 (small) under 32 tiles of 128 x 128, else rung 10's configuration by the rule */
    const bool simt_api = !strcmp(v->name, "sl_gemm") && dt == SL_F32 && g_cc >= 80;
    const int simt_want = simt_api && ((m + 127) / 128) * ((n + 127) / 128) >= 32
                              ? sl_cuda_mm_simt_pick(m, n, k, g_sms, g_cc)
                              : 0;
    unsigned long long simt0[7];
    for (int c = 0; c < 7; c++)
        simt0[c] = sl_cuda_mm_simt_launches(c);
    sl_status st = v->launch(&p);
    cudaError_t ce = cudaDeviceSynchronize();
    const unsigned long long wg_ran = sl_cuda_mm_wgmma_launches() - wg0,
                             ts_ran = sl_cuda_mm_wgmma_tstore_launches() - ts0;
    int simt_ran = 0, simt_cfg = 0;
    for (int c = 1; c < 7; c++)
        if (sl_cuda_mm_simt_launches(c) != simt0[c]) {
            simt_ran += (int)(sl_cuda_mm_simt_launches(c) - simt0[c]);
            simt_cfg = c;
        }
    char what[200];
    char simt_tag[24] = "";
    if (simt_api)
        snprintf(simt_tag, sizeof simt_tag, simt_want ? " [simt cfg %d]" : " [small]", simt_want);
    snprintf(what, sizeof what, "%s %s %lldx%lldx%lld ld %lld/%lld/%lld off %d alpha %g beta %g%s%s", v->name,
             sl_dtype_name(dt), (long long)m, (long long)n, (long long)k, (long long)p.lda, (long long)p.ldb,
             (long long)p.ldc, off, alpha, beta, wg_want ? " [wgmma]" : wg_rung && wg_here ? " [best]" : "", simt_tag);
    if (simt_api && st == SL_OK && ce == cudaSuccess &&
        (simt_ran != (simt_want ? 1 : 0) || (simt_want && simt_cfg != simt_want))) {
        fprintf(stderr, "FAIL %s: %d rung 10 launches (configuration %d), expected %s %d\n", what, simt_ran, simt_cfg,
                simt_want ? "1 of configuration" : "none:", simt_want);
        fails++;
    }
    if (st == SL_OK && ce == cudaSuccess && wg_ran != (wg_want ? 1u : 0u)) {
        fprintf(stderr, "FAIL %s: %llu wgmma launches, expected %d\n", what, wg_ran, wg_want ? 1 : 0);
        fails++;
    }
    if (st == SL_OK && ce == cudaSuccess && ts_ran != (ts_want ? 1u : 0u)) {
        fprintf(stderr, "FAIL %s: %llu launches with the TMA-store epilogue, expected %d\n", what, ts_ran,
                ts_want ? 1 : 0);
        fails++;
    }
    if (cfg_want && st == SL_OK && ce == cudaSuccess) {
        if (sl_cuda_mm_wgmma_cfg_launches(cfg_want) - cfg0 != 1) {
            fprintf(stderr, "FAIL %s: sl_gemm's rule names configuration %d, which did not run\n", what, cfg_want);
            fails++;
        } else
            g_cfg_cases[cfg_want]++; /* observed */
    }
    if (ts_want && ts_ran == 1 && st == SL_OK && ce == cudaSuccess)
        g_tstore_cases++; /* observed, where the rule expected it */
    if (st != SL_OK || ce != cudaSuccess) {
        fprintf(stderr, "FAIL %s: %s / %s\n", what, sl_last_error(), cudaGetErrorString(ce));
        fails++;
        if (ce != cudaSuccess)
            exit(1); /* the context is gone */
    } else {
        CK(cudaMemcpy(got, dc, nc * es, cudaMemcpyDeviceToHost));
        /* C's padding untouched */
        bool pad_ok = true;
        for (int64_t i = 0; i < m && pad_ok; i++)
            if (memcmp(got + (size_t)(off + i * p.ldc + n) * es, hc + (size_t)(off + i * p.ldc + n) * es,
                       (size_t)(i + 1 < m ? p.ldc - n : 0) * es))
                pad_ok = false;
        if (off && memcmp(got, hc, (size_t)off * es))
            pad_ok = false;
        sl_mm hp = p;
        hp.a = ha + off * es;
        hp.b = hb + off * es;
        double worst = 0;
        st = sl_mm_check(&hp, v->math, hc + off * es, got + off * es, true, 0, &worst);
        if (!pad_ok) {
            fprintf(stderr, "FAIL %s: wrote outside C (padding changed)\n", what);
            fails++;
        } else if (st != SL_OK) {
            fprintf(stderr, "FAIL %s: %s\n", what, sl_last_error());
            fails++;
        } else {
            printf("ok   %-70s worst %.3f of the bound\n", what, worst);
        }
    }
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    free(ha);
    free(hb);
    free(hc);
    free(got);
}

/* The check must fail on a wrong result: entry (full) and row (sampled). */
static void check_can_fail(void)
{
    const sl_mm_variant *v = NULL;
    for (int i = 0; i < sl_mm_nvariants; i++)
        if (!strcmp(sl_mm_variants[i].name, "wmma"))
            v = &sl_mm_variants[i];
    const int64_t s = 1024;
    const sl_dtype dt = SL_BF16;
    const size_t es = 2, cnt = (size_t)(s * s);
    sl_mm p = {.m = s, .n = s, .k = s, .lda = s, .ldb = s, .ldc = s, .alpha = 1.0, .beta = 0.0, .dtype = dt};
    unsigned char *ha = malloc(cnt * es), *hb = malloc(cnt * es), *got = malloc(cnt * es);
    fill(dt, ha, cnt, 5);
    fill(dt, hb, cnt, 6);
    void *da, *db, *dc;
    CK(cudaMalloc(&da, cnt * es));
    CK(cudaMalloc(&db, cnt * es));
    CK(cudaMalloc(&dc, cnt * es));
    CK(cudaMemcpy(da, ha, cnt * es, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, cnt * es, cudaMemcpyHostToDevice));
    p.a = da;
    p.b = db;
    p.c = dc;
    sl_status st = v->launch(&p);
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(got, dc, cnt * es, cudaMemcpyDeviceToHost));
    sl_mm hp = p;
    hp.a = ha;
    hp.b = hb;
    hp.c = NULL;
    sl_mm_expect e;
    if (st == SL_OK)
        st = sl_mm_expect_make(&hp, false, 1024, &e);
    double w;
    if (st != SL_OK || sl_mm_expect_check(&hp, v->math, &e, got, &w) != SL_OK) {
        fprintf(stderr, "FAIL check_can_fail: the correct result did not pass: %s\n", sl_last_error());
        fails++;
    } else {
        /* row 517: every entry + 0.25 (entries are ~ +-10; bf16 keeps it) */
        for (int64_t j = 0; j < s; j++)
            sl_dtype_store(dt, got, (size_t)(517 * s + j), sl_dtype_load(dt, got, (size_t)(517 * s + j)) + 0.25f);
        if (sl_mm_expect_check(&hp, v->math, &e, got, &w) != SL_ERR_VERIFY) {
            fprintf(stderr, "FAIL check_can_fail: a wrong row passed the sampled check\n");
            fails++;
        } else {
            printf("ok   sampled check caught a wrong row: %s\n", sl_last_error());
        }
    }
    if (st == SL_OK)
        sl_mm_expect_free(&e);
    /* full check, 33x17x65 f32 through cuBLAS, one entry off by 4 bounds */
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    free(ha);
    free(hb);
    free(got);

    sl_mm q = {.m = 33, .n = 17, .k = 65, .lda = 65, .ldb = 17, .ldc = 17, .alpha = 1.0, .beta = 0.0,
               .dtype = SL_F32};
    float a[33 * 65], b[65 * 17], c[33 * 17];
    fill(SL_F32, a, 33 * 65, 7);
    fill(SL_F32, b, 65 * 17, 8);
    /* C on the host by the serial CPU rung, then one entry pushed just past its bound */
    q.a = a;
    q.b = b;
    q.c = c;
    sl_cpu_mm_serial(&q);
    double r, mg;
    sl_mm_reference_at(&q, NULL, 20, 9, &r, &mg);
    const double bound = sl_mm_bound(&q, SL_MM_FP32, r, mg);
    if (sl_mm_check(&q, SL_MM_FP32, NULL, c, true, 0, &w) != SL_OK) {
        fprintf(stderr, "FAIL check_can_fail: the serial CPU rung failed: %s\n", sl_last_error());
        fails++;
    }
    c[20 * 17 + 9] = (float)(r + 4.0 * bound);
    if (sl_mm_check(&q, SL_MM_FP32, NULL, c, true, 0, &w) != SL_ERR_VERIFY) {
        fprintf(stderr, "FAIL check_can_fail: an entry 4 bounds off passed\n");
        fails++;
    } else {
        printf("ok   full check caught an entry 4 bounds off: %s\n", sl_last_error());
    }
}

static void refusals(void)
{
    sl_mm p = {.m = 4, .n = 4, .k = 4, .lda = 4, .ldb = 4, .ldc = 4, .alpha = 1, .dtype = SL_BF16};
    for (int i = 0; i < sl_mm_nvariants; i++) {
        const sl_mm_variant *v = &sl_mm_variants[i];
        if (v->backend != SL_BACKEND_CUDA || !v->launch)
            continue;
        for (int d = 0; d <= SL_F64; d++) {
            if (v->dtypes & (1u << d) || (d != SL_F32 && d != SL_BF16 && d != SL_F16 && d != SL_F64))
                continue;
            /* a dtype the variant does not offer: refused before any launch (pointers are never used) */
            bool other_row = false;
            for (int j = 0; j < sl_mm_nvariants; j++)
                if (j != i && !strcmp(sl_mm_variants[j].name, v->name) && (sl_mm_variants[j].dtypes & (1u << d)))
                    other_row = true;
            if (other_row)
                continue; /* the same launcher serves that dtype under another row (cublas) */
            p.dtype = (sl_dtype)d;
            sl_status st = v->launch(&p);
            if (st != SL_ERR_UNSUPPORTED) {
                fprintf(stderr, "FAIL %s accepted dtype %s (status %d)\n", v->name, sl_dtype_name((sl_dtype)d), st);
                fails++;
            }
        }
    }
    printf("ok   launchers refuse dtypes they do not offer\n");
}

/* Issue 26: the persistent configurations walk tiles b, b + P, ... of a grid
 * of P CTAs; the cap P comes from g_pcap (0: one CTA per SM), the
 * configuration from g_pcfg. A launcher for run_case, named wgmma_* so that
 * run_case expects exactly one wgmma launch. */
static int g_pcfg, g_pcap;
static sl_status persist_launch(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg_grid(p, g_pcfg, g_pcap); }

static void persistent_tiles(bool quick)
{
    /* tiles (128 x 256 / 128 x 128; stages 4 / 6): 640x768x320 15 / 30, 5 slices; 257x513x1000 9 / 15, 16
     * slices (the last ragged); 3x5x7 and 1x8x8 one tile of one slice (ping-pong: warpgroup 2 idle);
     * 1300x2900x136 132 / 253, 3 slices; 2048x2048x256 128 / 256, 4 slices; 2100x4100x200 289 / 561 (above 2 x
     * 132), 4 slices (the last ragged). Cap 1: one CTA walks every tile (75 slices through 4 stages, 240 through 6) */
    static const int64_t ps[][3] = {{640, 768, 320}, {257, 513, 1000}, {3, 5, 7},        {1, 8, 8},
                                    {1300, 2900, 136}, {2048, 2048, 256}, {2100, 4100, 200}};
    static const int caps[] = {1, 2, 7, 61, 0};
    static const struct {
        int cfg;
        const char *name;
    } pc[] = {{8, "wgmma_p(cap)"}, {9, "wgmma_n128_p(cap)"}, {10, "wgmma_n128_pp(cap)"}};
    const int nps = quick ? 4 : (int)(sizeof ps / sizeof ps[0]);
    for (int c = 0; c < 3; c++)
        for (int ci = 0; ci < (int)(sizeof caps / sizeof caps[0]); ci++) {
            if (quick && (caps[ci] == 2 || caps[ci] == 61)) /* under compute-sanitizer: caps 1, 7 and 0 */
                continue;
            const sl_mm_variant v = {pc[c].name, SL_BACKEND_CUDA, SL_KIND_RUNG, SL_MM_TENSOR,
                                     (1u << SL_BF16) | (1u << SL_F16), persist_launch, 0, 0, 0, pc[c].name, ""};
            g_pcfg = pc[c].cfg;
            g_pcap = caps[ci];
            printf("     %s, grid capped at %d CTAs (0: one per SM)\n", pc[c].name, caps[ci]);
            for (int s = 0; s < nps; s++) {
                /* the big shapes (s >= 4: the fp64 reference costs seconds) at caps 7 and 0 in bf16 and uncapped
                 * in f16; the small ones everywhere */
                const int64_t m = ps[s][0], n = ps[s][1], k = ps[s][2];
                if (s >= 4 && caps[ci] != 7 && caps[ci] != 0)
                    continue;
                run_case(&v, SL_BF16, m, n, k, -1, 0, 1.0, 0.0);
                if (s < 4 || caps[ci] == 0)
                    run_case(&v, SL_F16, m, n, k, -2, 0, 0.75, -0.5);
            }
        }
}

/* Issue 26: the split-K configurations sum their partial tiles in a fixed
 * order, so two launches give the same bits; the one-sided exchange
 * (wgmma_*_ex) sums the same partials in the same order as the two-barrier
 * configuration of the same tile and split, so it gives their bits too. At
 * 384x640x1000 (16 K slices) and 200x392x1416 (23: the split is uneven, the
 * last slice 8 deep, M and N ragged). */
static void split_deterministic(void)
{
    static const int64_t sh[][3] = {{384, 640, 1000}, {200, 392, 1416}};
    static const struct {
        sl_mm_fn fn;
        const char *name;
        int same_as; /* the index of the configuration whose bits it must give, -1: none */
    } fns[] = {{sl_cuda_mm_wgmma_n128_k2, "wgmma_n128_k2", -1},       {sl_cuda_mm_wgmma_n128_k4, "wgmma_n128_k4", -1},
               {sl_cuda_mm_wgmma_k2, "wgmma_k2", -1},                 {sl_cuda_mm_wgmma_n128_k2_ex, "wgmma_n128_k2_ex", 0},
               {sl_cuda_mm_wgmma_n128_k4_ex, "wgmma_n128_k4_ex", 1}, {sl_cuda_mm_wgmma_k2_ex, "wgmma_k2_ex", 2},
               {sl_cuda_mm_wgmma_n128_k2_ex_pdl, "wgmma_n128_k2_ex_pdl", 0}};
    enum { NF = (int)(sizeof fns / sizeof fns[0]) };
    const size_t es = 2;
    for (size_t z = 0; z < sizeof sh / sizeof sh[0]; z++) {
        const int64_t m = sh[z][0], n = sh[z][1], k = sh[z][2];
        const size_t cbytes = (size_t)(m * n) * es;
        void *ha = malloc((size_t)(m * k) * es), *hb = malloc((size_t)(k * n) * es);
        unsigned char *keep[NF], *c2 = malloc(cbytes);
        fill(SL_BF16, ha, (size_t)(m * k), 5);
        fill(SL_BF16, hb, (size_t)(k * n), 6);
        void *da, *db, *dc;
        CK(cudaMalloc(&da, (size_t)(m * k) * es));
        CK(cudaMalloc(&db, (size_t)(k * n) * es));
        CK(cudaMalloc(&dc, cbytes));
        CK(cudaMemcpy(da, ha, (size_t)(m * k) * es, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(db, hb, (size_t)(k * n) * es, cudaMemcpyHostToDevice));
        sl_mm p = {.m = m, .n = n, .k = k, .lda = k, .ldb = n, .ldc = n, .alpha = 1, .beta = 0, .a = da, .b = db,
                   .c = dc, .dtype = SL_BF16};
        for (int f = 0; f < NF; f++) {
            keep[f] = malloc(cbytes);
            unsigned char *dst[2] = {keep[f], c2};
            bool ok = true;
            for (int rep = 0; rep < 2 && ok; rep++) {
                CK(cudaMemset(dc, rep ? 0x00 : 0xFF, cbytes));
                if (fns[f].fn(&p) != SL_OK) {
                    fprintf(stderr, "FAIL split determinism %s: %s\n", fns[f].name, sl_last_error());
                    fails++;
                    ok = false;
                    break;
                }
                CK(cudaDeviceSynchronize());
                CK(cudaMemcpy(dst[rep], dc, cbytes, cudaMemcpyDeviceToHost));
            }
            if (!ok)
                continue;
            cases++;
            if (memcmp(keep[f], c2, cbytes)) {
                fprintf(stderr, "FAIL split-K %s at %lldx%lldx%lld: two launches differ\n", fns[f].name, (long long)m,
                        (long long)n, (long long)k);
                fails++;
            } else
                printf("ok   split-K %s at %lldx%lldx%lld: two launches give the same bits\n", fns[f].name,
                       (long long)m, (long long)n, (long long)k);
            if (fns[f].same_as >= 0) {
                cases++;
                if (memcmp(keep[f], keep[fns[f].same_as], cbytes)) {
                    fprintf(stderr, "FAIL split-K %s at %lldx%lldx%lld: not the bits of %s (the same sums)\n",
                            fns[f].name, (long long)m, (long long)n, (long long)k, fns[fns[f].same_as].name);
                    fails++;
                } else
                    printf("ok   split-K %s gives the bits of %s\n", fns[f].name, fns[fns[f].same_as].name);
            }
        }
        CK(cudaFree(da));
        CK(cudaFree(db));
        CK(cudaFree(dc));
        for (int f = 0; f < NF; f++)
            free(keep[f]);
        free(ha);
        free(hb);
        free(c2);
    }
}

/* Issue 26, f32: rung 10's split-K configurations sum their partials in rank order, so two launches give
 * the same bits (C poisoned differently before each). */
static void simt_deterministic(void)
{
    const int64_t m = 300, n = 200, k = 1100;
    float *ha = malloc(sizeof(float) * (size_t)(m * k)), *hb = malloc(sizeof(float) * (size_t)(k * n));
    float *c1 = malloc(sizeof(float) * (size_t)(m * n)), *c2 = malloc(sizeof(float) * (size_t)(m * n));
    fill(SL_F32, ha, (size_t)(m * k), 15);
    fill(SL_F32, hb, (size_t)(k * n), 16);
    void *da, *db, *dc;
    CK(cudaMalloc(&da, sizeof(float) * (size_t)(m * k)));
    CK(cudaMalloc(&db, sizeof(float) * (size_t)(k * n)));
    CK(cudaMalloc(&dc, sizeof(float) * (size_t)(m * n)));
    CK(cudaMemcpy(da, ha, sizeof(float) * (size_t)(m * k), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, hb, sizeof(float) * (size_t)(k * n), cudaMemcpyHostToDevice));
    sl_mm p = {.m = m, .n = n, .k = k, .lda = k, .ldb = n, .ldc = n, .alpha = 1, .beta = 0, .a = da, .b = db,
               .c = dc, .dtype = SL_F32};
    static const int cfgs[] = {4, 5, 6};
    for (int f = 0; f < 3; f++) {
        float *dst[2] = {c1, c2};
        for (int rep = 0; rep < 2; rep++) {
            CK(cudaMemset(dc, rep ? 0x00 : 0xFF, sizeof(float) * (size_t)(m * n)));
            if (sl_cuda_mm_simt_cfg(&p, cfgs[f]) != SL_OK) {
                fprintf(stderr, "FAIL simt split determinism: %s\n", sl_last_error());
                fails++;
                break;
            }
            CK(cudaDeviceSynchronize());
            CK(cudaMemcpy(dst[rep], dc, sizeof(float) * (size_t)(m * n), cudaMemcpyDeviceToHost));
        }
        cases++;
        if (memcmp(c1, c2, sizeof(float) * (size_t)(m * n))) {
            fprintf(stderr, "FAIL simt split-K configuration %d: two launches differ\n", cfgs[f]);
            fails++;
        } else
            printf("ok   simt split-K configuration %d: two launches give the same bits\n", cfgs[f]);
    }
    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    free(ha);
    free(hb);
    free(c1);
    free(c2);
}

int main(int argc, char **argv)
{
    /* --quick (under compute-sanitizer): the check-can-fail part at 1024^3 is left out */
    const bool quick = argc > 1 && !strcmp(argv[1], "--quick");
    setvbuf(stdout, NULL, _IOLBF, 0);
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        printf("SKIP: no CUDA device\n");
        return 77;
    }
    static const int64_t shapes[][3] = {{1, 1, 1},   {2, 3, 4},     {33, 17, 65},  {129, 257, 31}, {64, 64, 64},
                                        {128, 256, 64}, {255, 129, 300}, {300, 520, 17}, {1, 700, 9}, {513, 1, 33},
                                        {200, 300, 1000}};
    const int nshapes = (int)(sizeof shapes / sizeof shapes[0]);
    const sl_dtype dts[] = {SL_F32, SL_BF16, SL_F16};
    CK(cudaDeviceGetAttribute(&g_cc, cudaDevAttrComputeCapabilityMajor, 0));
    {
        int minor = 0;
        CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
        g_cc = g_cc * 10 + minor;
    }
    CK(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
    if (sl_ctx_create(0, &g_ctx) != SL_OK) {
        fprintf(stderr, "FAIL: sl_ctx_create(0): %s\n", sl_last_error());
        return 1;
    }
    const bool wg_here = sl_cuda_mm_wgmma_built() && g_cc == 90;
    printf("%s wgmma rung: %s\n", wg_here ? "ok  " : "skip",
           wg_here ? "sm_90a code on a compute capability 9.0 device: tested, and sl_gemm must dispatch to it"
                   : sl_cuda_mm_wgmma_built() ? "this device is not compute capability 9.0"
                                               : "this build has no sm_90a code");
    /* shapes for the TMA paths: ragged M, N, K over several blocks (128 x 256) and K slices (64) */
    /* issue 26: 384x640x1000 has 16 K slices (the last ragged): sl_gemm splits K 4 ways there; 1300x2900x136
     * has an odd number of block rows (the multicast configurations' last cluster has a padding row); 3x5x7
     * and 1x8x8 give the split configurations K ranges with no slice at all; sl_gemm takes 128 x 192 tiles
     * (17) at 1536x1536x64 (96 tiles, one K slice) */
    static const int64_t tshapes[][3] = {{1, 8, 8},       {3, 5, 7},       {129, 257, 72},  {64, 64, 64},
                                         {130, 260, 136}, {257, 513, 200}, {128, 256, 64}, {640, 768, 320},
                                         {384, 640, 1000}, {1300, 2900, 136}, {1536, 1536, 64}};
    const int ntshapes = (int)(sizeof tshapes / sizeof tshapes[0]);
    /* the wgmma rung's TMA-store epilogue (beta = 0, C 16-byte aligned, ldc and N multiples of 8): a ragged last
     * block row (200: its second consumer warpgroup 8 rows deep, warps wholly past M; 100: its last warp
     * wholly past M), N not a multiple of 64 (392, 72) or 8 columns past 1024; run with ldc = n + 8, whose
     * padding must stay untouched, and alpha -1.5, and with ldc = n; and 390 columns in rows of 392 (pad -3:
     * the last 16-byte chunk of a row half C's: the register epilogue must take it, since a TMA store writes
     * the chunk whole; the twentieth session's first run found the padding written) */
    static const int64_t cshapes[][3] = {{200, 392, 136}, {100, 72, 64}, {1100, 1032, 200}, {130, 390, 72}};
    const int ncshapes = (int)(sizeof cshapes / sizeof cshapes[0]);
    /* issue 26, f32 (rung 10 and sl_gemm): ragged M, N, K over several 128 x 128 tiles and K splits; 300x200x777
     * splits 25 K tiles 12/13 (k2) and 6/6/6/7 (k4), the last ragged; 130x70x40 gives split 4 two ranks without
     * a K tile, 130x70x5 less than one K tile; 1030x520x64: 9 block rows (one of 6 rows); sl_gemm at 1024 x
     * 1024 takes split 2 (K 1100 and K 1000), 64x64 (K 300) on an H200, 2048x1024x300 128x64 */
    static const int64_t fshapes[][3] = {{300, 200, 777},   {130, 70, 40},      {130, 70, 5},
                                         {1030, 520, 64},   {257, 129, 1000},   {1024, 1024, 1100},
                                         {1024, 1024, 1000}, {1024, 1024, 300}, {2048, 1024, 300}};
    const int nfshapes = (int)(sizeof fshapes / sizeof fshapes[0]);
    /* issue 26, the one-sided exchange (wgmma_*_ex): 23 K slices (200x392x1416: split 2 as 11 / 12, split 4 as
     * 5 / 6 / 6 / 6, the last slice 8 deep; N not a multiple of 128), 4 slices with a ragged last (129x136x200:
     * one per rank at split 4), one row (1x8x1000, 16 slices) */
    static const int64_t xshapes[][3] = {{200, 392, 1416}, {129, 136, 200}, {1, 8, 1000}};
    const int nxshapes = (int)(sizeof xshapes / sizeof xshapes[0]);
    const sl_mm_variant *extra[] = {&api_t16, &api_f32};
    for (int vi = 0; vi < sl_mm_nvariants + 2; vi++) {
        const sl_mm_variant *v = vi < sl_mm_nvariants ? &sl_mm_variants[vi] : extra[vi - sl_mm_nvariants];
        if (v->backend != SL_BACKEND_CUDA || !v->launch)
            continue;
        const bool wg = !strncmp(v->name, "wgmma", 5); /* rung 8 and its configurations (issue 26) */
        if (wg && !wg_here)
            continue; /* unavailable here (said above) */
        const bool simt = !strncmp(v->name, "simt", 4); /* rung 10's configurations (issue 26) */
        if (simt && strstr(v->name, "_k") && g_cc < 90) {
            printf("skip %s: K split over a cluster needs sm_90 (this device is sm_%d)\n", v->name, g_cc);
            continue;
        }
        if (simt && g_cc < 80) {
            printf("skip %s: cp.async needs sm_80 (this device is sm_%d)\n", v->name, g_cc);
            continue;
        }
        if (simt || (!strcmp(v->name, "sl_gemm") && (v->dtypes & (1u << SL_F32))))
            for (int s = 0; s < (quick ? 3 : simt ? 5 : nfshapes); s++) { /* the 1024-row ones: sl_gemm's rule */
                const int64_t m = fshapes[s][0], n = fshapes[s][1], k = fshapes[s][2];
                run_case(v, SL_F32, m, n, k, -1, 0, 1.0, 0.0);     /* C poisoned, ldc = n */
                run_case(v, SL_F32, m, n, k, -2, 0, 0.75, -0.5);   /* ldc = n + 3: odd where n is even */
                run_case(v, SL_F32, m, n, k, 3, 1, -1.25, 0.5);    /* 4-byte copies of B (rows not 16-byte) */
            }
        if (wg && strstr(v->name, "_ex")) /* the one-sided exchange: K slices that do not divide by the split */
            for (int s = quick ? 1 : 0; s < nxshapes; s++) {
                const int64_t m = xshapes[s][0], n = xshapes[s][1], k = xshapes[s][2];
                run_case(v, SL_BF16, m, n, k, -1, 0, 1.0, 0.0);   /* C poisoned, ldc = n */
                run_case(v, SL_F16, m, n, k, -2, 0, 0.75, -0.5);  /* ldc = n + 3 */
                run_case(v, SL_BF16, m, n, k, 8, 0, -1.5, 0.0);   /* the TMA-store epilogue, C padded */
            }
        if (wg || !strcmp(v->name, "sl_gemm"))
            for (int d = 0; d < 3; d++) {
                if (!(v->dtypes & (1u << dts[d])))
                    continue;
                for (int s = 0; s < (quick ? 5 : ntshapes); s++) {
                    const int64_t m = tshapes[s][0], n = tshapes[s][1], k = tshapes[s][2];
                    run_case(v, dts[d], m, n, k, -1, 0, 1.0, 0.0);
                    run_case(v, dts[d], m, n, k, -2, 0, 0.75, -0.5);
                }
                for (int s = 0; s < (quick ? 2 : ncshapes); s++) {
                    const int64_t m = cshapes[s][0], n = cshapes[s][1], k = cshapes[s][2];
                    if (n % 8) { /* C's rows end inside a 16-byte chunk: the TMA clips at n, not at the chunk */
                        run_case(v, dts[d], m, n, k, -3, 0, -1.5, 0.0);
                        continue;
                    }
                    run_case(v, dts[d], m, n, k, 8, 0, -1.5, 0.0);
                    run_case(v, dts[d], m, n, k, -1, 0, 1.0, 0.0);
                }
            }
        for (int d = 0; d < 3; d++) {
            if (!(v->dtypes & (1u << dts[d])))
                continue;
            for (int s = 0; s < (quick ? (simt ? 3 : 8) : nshapes); s++) { /* quick: memcheck's time */
                const int64_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2];
                run_case(v, dts[d], m, n, k, 0, 0, 1.0, 0.0);
                run_case(v, dts[d], m, n, k, 0, 0, 0.75, -0.5);
                if (s % 2 == 0)
                    run_case(v, dts[d], m, n, k, 3, 1, -1.25, 0.5);
                else
                    run_case(v, dts[d], m, n, k, 8, 0, 1.0, 0.0); /* padded, aligned: the vector paths */
            }
        }
    }
    if (wg_here) {
        split_deterministic();
        persistent_tiles(quick);
    }
    if (g_cc >= 90)
        simt_deterministic();
    {
        /* sl_gemm's f32 rule (sl_cuda_mm_simt_pick), as docs/ladder.md records it: 132 SMs, sm_90; and an
         * sm_80 of 108 SMs (no clusters: narrower tiles instead of a split) */
        static const struct {
            int64_t m, n, k;
            int sms, cc, cfg;
        } fpicks[] = {{1024, 1024, 1024, 132, 90, 4}, {2048, 2048, 2048, 132, 90, 4}, {4096, 4096, 4096, 132, 90, 4},
                      {1024, 1024, 1100, 132, 90, 4}, {1024, 1024, 1000, 132, 90, 4}, {1024, 1024, 300, 132, 90, 3},
                      {2048, 1024, 300, 132, 90, 2},  {1536, 1536, 4096, 132, 90, 4}, {1024, 1024, 1024, 108, 80, 2},
                      {4096, 4096, 14336, 132, 90, 4}, {2048, 2048, 1000, 132, 90, 1}, {4096, 4096, 1024, 108, 80, 1}};
        for (size_t i = 0; i < sizeof fpicks / sizeof fpicks[0]; i++) {
            const int got = sl_cuda_mm_simt_pick(fpicks[i].m, fpicks[i].n, fpicks[i].k, fpicks[i].sms, fpicks[i].cc);
            cases++;
            if (got != fpicks[i].cfg) {
                fprintf(stderr, "FAIL sl_cuda_mm_simt_pick(%lld, %lld, %lld, %d, %d) = %d, expected %d\n",
                        (long long)fpicks[i].m, (long long)fpicks[i].n, (long long)fpicks[i].k, fpicks[i].sms,
                        fpicks[i].cc, got, fpicks[i].cfg);
                fails++;
            }
        }
        printf("ok   sl_gemm's f32 configuration by shape (sl_cuda_mm_simt_pick)\n");
    }
    {
        /* sl_gemm's shape -> configuration rule on 132 SMs (H200), as docs/ladder.md records it */
        static const struct {
            int64_t m, n, k;
            int cfg;
        } picks[] = {{1024, 1024, 1024, 14}, {2048, 2048, 2048, 1}, {4096, 4096, 4096, 1}, {8192, 8192, 8192, 1},
                     {4096, 4096, 14336, 1}, {4096, 14336, 4096, 1}, {384, 640, 1000, 12}, {512, 512, 512, 14},
                     {768, 768, 768, 14},     {2048, 512, 512, 14},   {1536, 1536, 1536, 17}, {1280, 1280, 1280, 2},
                     {1024, 4096, 4096, 1},   {256, 4096, 4096, 11},
                     {3072, 3072, 3072, 17}, {2560, 2560, 2560, 1}, {1792, 1792, 1792, 1}};
        for (size_t i = 0; i < sizeof picks / sizeof picks[0]; i++) {
            const int got = sl_cuda_mm_wgmma_pick(picks[i].m, picks[i].n, picks[i].k, 132);
            cases++;
            if (got != picks[i].cfg) {
                fprintf(stderr, "FAIL sl_cuda_mm_wgmma_pick(%lld, %lld, %lld, 132) = %d, expected %d\n",
                        (long long)picks[i].m, (long long)picks[i].n, (long long)picks[i].k, got, picks[i].cfg);
                fails++;
            }
        }
        printf("ok   sl_gemm's configuration by shape (sl_cuda_mm_wgmma_pick)\n");
    }
    if (sl_cuda_mm_wgmma_built() && g_cc == 90) {
        /* the TMA-store cases above exist on every device where the wgmma kernel runs: none taken is a failure */
        if (g_tstore_cases == 0) {
            fprintf(stderr, "FAIL: no case took the TMA-store epilogue\n");
            fails++;
        } else
            printf("ok   %d cases took the TMA-store epilogue, each as the rule says\n", g_tstore_cases);
        /* sl_gemm's 128 x 64 tile both ways: rows of whole 128-byte lines (14) and not (15, A multicast) */
        /* and 128 x 192 (17) outside the quick (memcheck) run, whose shapes stop short of 1536x1536x64 */
        if (g_cfg_cases[14] == 0 || g_cfg_cases[15] == 0 || (!quick && g_cfg_cases[17] == 0)) {
            fprintf(stderr,
                    "FAIL: sl_gemm ran configuration 14 in %u cases, 15 in %u and 17 in %u: the test must reach "
                    "each%s\n",
                    g_cfg_cases[14], g_cfg_cases[15], g_cfg_cases[17], quick ? " (17 not in the quick run)" : "");
            fails++;
        } else {
            printf("ok   sl_gemm ran the configuration its rule names in every case:");
            for (int c = 0; c < 32; c++)
                if (g_cfg_cases[c])
                    printf(" %d x%u", c, g_cfg_cases[c]);
            printf("\n");
        }
    }
    if (!quick)
        check_can_fail();
    refusals();
    sl_ctx_destroy(g_ctx);
    sl_cuda_libs_release(); /* the cuBLAS handle, so that memcheck's leak check sees nothing of ours */
    printf("%d cases, %d failures\n", cases, fails);
    return fails ? 1 : 0;
}
