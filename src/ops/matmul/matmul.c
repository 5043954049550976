/*
 * matmul.c - the matmul op (C = alpha A B + beta C, row-major; seeds 002
 * and 004) as the harness, the CLI and the public API see it: its
 * descriptor, the harness's reference (fp64, whole C at once), the
 * launchers' adapters from sl_args, the traffic each rung's tiling moves,
 * and the public sl_gemm().
 *
 * Through the descriptor a shape is MxNxK: rows = M, cols = N, k = K, ld
 * = ldc (>= N); A is M x K and B is K x N, dense (lda = K, ldb = N);
 * sl_gemm takes any lda, ldb, ldc. The rungs themselves, their checks and
 * the roofline are in mm.h.
 */
#include "mm.h"

#include "dtype_conv.h"
#include "internal.h"
#include "op.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef SL_HAVE_CUDA
#include "cuda_check.h"
#define MM_CUDA(f) f
#else
#define MM_CUDA(f) NULL
#endif

/* ---- shapes, flops, traffic ------------------------------------------------- */

static uint64_t buf_elems(const sl_shape *s, int k)
{
    switch (k) {
    case 0: return s->rows * s->k;                  /* A: M x K */
    case 1: return s->k * s->cols;                  /* B: K x N */
    default: return sl_shape_span(s);               /* C: M x N, ld */
    }
}

static double flops(const sl_shape *s)
{
    return 2.0 * (double)s->rows * (double)s->cols * (double)s->k;
}

/* The bytes a BM x BN block tiling moves from L2 / DRAM: A re-read once
 * per block column (ceil(N / BN) times), B once per block row (ceil(M /
 * BM) times), C read and written once (matmul_model.c has the same
 * count for the roofline). */
static sl_traffic tiled(const sl_shape *s, sl_dtype dt, double bm, double bn)
{
    const double es = (double)sl_dtype_size(dt), M = (double)s->rows, N = (double)s->cols, K = (double)s->k;
    sl_traffic t = {es * (M * K * ceil(N / bn) + K * N * ceil(M / bm) + M * N), es * M * N, 3, 1};
    return t;
}
static sl_traffic moved16(const sl_shape *s, sl_dtype dt) { return tiled(s, dt, 16, 16); }
static sl_traffic moved32(const sl_shape *s, sl_dtype dt) { return tiled(s, dt, 32, 32); }
static sl_traffic moved16x32(const sl_shape *s, sl_dtype dt) { return tiled(s, dt, 16, 32); }
static sl_traffic moved128(const sl_shape *s, sl_dtype dt) { return tiled(s, dt, 128, 128); }
static sl_traffic moved128x64(const sl_shape *s, sl_dtype dt) { return tiled(s, dt, 128, 64); }
static sl_traffic moved64(const sl_shape *s, sl_dtype dt) { return tiled(s, dt, 64, 64); }
static sl_traffic moved128x256(const sl_shape *s, sl_dtype dt) { return tiled(s, dt, 128, 256); }
static sl_traffic moved128x192(const sl_shape *s, sl_dtype dt) { return tiled(s, dt, 128, 192); }
/* B multicast to 2 block rows: B read once per 256 rows of C */
static sl_traffic moved256x256(const sl_shape *s, sl_dtype dt) { return tiled(s, dt, 256, 256); }
static sl_traffic moved256x128(const sl_shape *s, sl_dtype dt) { return tiled(s, dt, 256, 128); }

/* ---- the harness's reference -------------------------------------------------
 * in[0] = A (M x K), in[1] = B (K x N), in[2] = C0 (ld), all whole
 * (ref_whole); out[2] = the expected C, each entry the fp64 result rounded
 * once into the dtype; scale = the largest |alpha| sum_p |a_ip b_pj| +
 * |beta c_ij| over the entries, the magnitude SL_TOL_REDUCTION multiplies
 * by L u_acc (L from K: the harness passes the shape's k). */
static void reference(sl_ref_args *r)
{
    const sl_shape *s = &r->shape;
    sl_mm p = {.m = (int64_t)s->rows, .n = (int64_t)s->cols, .k = (int64_t)s->k, .lda = (int64_t)s->k,
               .ldb = (int64_t)s->cols, .ldc = (int64_t)s->ld, .alpha = sl_mm_scalar(r->scalar[0]),
               .beta = sl_mm_scalar(r->scalar[1]),
               .a = r->in[0], .b = r->in[1], .c = (void *)r->in[2], .dtype = r->dtype};
    const size_t mn = (size_t)(p.m * p.n);
    double *ref = malloc(sizeof(double) * mn), *mag = malloc(sizeof(double) * mn);
    if (!ref || !mag) {
        /* no memory for the dense fp64 result: NaN everywhere, so every row fails visibly */
        for (int64_t i = 0; i < p.m; i++)
            for (int64_t j = 0; j < p.n; j++)
                sl_dtype_store_f64(r->out_dtype, r->out[2], (size_t)(i * p.ldc + j), NAN);
        free(ref);
        free(mag);
        r->scale = 0.0;
        return;
    }
    sl_mm_reference(&p, r->in[2], ref, mag);
    double big = 0.0;
    for (int64_t i = 0; i < p.m; i++)
        for (int64_t j = 0; j < p.n; j++) {
            sl_dtype_store_f64(r->out_dtype, r->out[2], (size_t)(i * p.ldc + j), ref[i * p.n + j]);
            if (mag[i * p.n + j] > big)
                big = mag[i * p.n + j];
        }
    r->scale = big;
    free(ref);
    free(mag);
}

/* ---- explain: the roofline with the tensor-core peaks ---------------------------- */
static void explain(FILE *f, const sl_shape *s, sl_dtype dt, const sl_op_hw *d)
{
    /* Every figure from the device described (d): FP32 = SMs x lanes x
     * clock x 2, shared memory = SMs x bytes per clock x clock, DRAM and L2
     * as the model has them; the tensor-core peaks from its architecture's
     * ratios, where streamlab has them. */
    double tf32_x = 0, t16_x = 0;
    const char *ratio_src = NULL;
    const bool tensor = sl_mm_tensor_ratios(d->cc, &tf32_x, &t16_x, &ratio_src);
    const double fp32 = d->sm_count * d->fp32_lanes_per_sm * d->sm_clock_ghz * 2.0 / 1e3;
    sl_mm_hw dev = {.name = d->name,
                    .fp32_tflops = fp32,
                    .tf32_tflops = fp32 * tf32_x,
                    .tensor16_tflops = fp32 * t16_x,
                    .dram_gbs = d->dram_gbs,
                    .l2_gbs = d->l2_gbs,
                    .smem_gbs = d->sm_count * d->smem_bytes_per_clk_per_sm * d->sm_clock_ghz,
                    .source = d->source};
    const sl_mm_hw *hw = &dev;
    if (!(fp32 > 0 && hw->dram_gbs > 0 && hw->l2_gbs > 0 && hw->smem_gbs > 0)) {
        fprintf(f, "\nmatmul roofline: %s lacks a figure it needs (FP32 lanes, DRAM, L2 or shared-memory "
                   "bandwidth)\n", d->name);
        return;
    }
    fprintf(f,
            "\nmatmul roofline on the %s (matmul_model.c; %s):\n"
            "  bound = flops / max(flops / peak, DRAM bytes / %.3g TB/s, tile bytes / %.3g TB/s (L2), "
            "flops / (AI_smem x %.3g TB/s))\n",
            hw->name, hw->source, hw->dram_gbs / 1e3, hw->l2_gbs / 1e3, hw->smem_gbs / 1e3);
    if (tensor)
        fprintf(f, "  peaks, dense: FP32 %.1f (SMs x lanes x clock x 2), TF32 %.1f, bf16/f16 %.1f TFLOP/s (%s)\n\n",
                hw->fp32_tflops, hw->tf32_tflops, hw->tensor16_tflops, ratio_src);
    else
        fprintf(f, "  peaks, dense: FP32 %.1f TFLOP/s (SMs x lanes x clock x 2); tensor cores: no figures for "
                   "sm_%d here, so their rungs are left out\n\n", hw->fp32_tflops, d->cc);
    fprintf(f, "%-12s %-6s %9s %9s %9s %9s %11s %10s  %s\n", "variant", "math", "peak", "AI DRAM", "AI L2", "AI smem",
            "bound TF/s", "pred ms", "limiter");
    for (int i = 0; i < sl_mm_nvariants; i++) {
        const sl_mm_variant *v = &sl_mm_variants[i];
        if (v->backend != SL_BACKEND_CUDA || !(v->dtypes & (1u << dt)))
            continue;
        if (v->math != SL_MM_FP32 && !tensor)
            continue;
        const sl_mm_roof r = sl_mm_roofline(v, hw, (int64_t)s->rows, (int64_t)s->cols, (int64_t)s->k, dt, false);
        char smem[16] = "-";
        if (r.ai_smem > 0)
            snprintf(smem, sizeof smem, "%.2f", r.ai_smem);
        fprintf(f, "%-12s %-6s %9.1f %9.1f %9.1f %9s %11.1f %10.4f  %s%s\n", v->name,
                v->math == SL_MM_FP32 ? "fp32" : v->math == SL_MM_TF32 ? "tf32" : "tensor", r.peak_tflops, r.ai_dram,
                r.ai_l2, smem, r.bound_tflops, r.flops / (r.bound_tflops * 1e12) * 1e3, r.limiter,
                v->bm ? "" : " (a library: peak only)");
    }
    fprintf(f, "\n  AI in flop/B; tile bytes: A re-read once per block column, B once per block row (the rung's\n"
               "  block tile); AI smem: flops per byte of shared-memory (L1) wavefronts the rung's inner loop\n"
               "  issues (docs/ladder.md, matmul).\n");
}

/* ---- the generic model's compute rate ---------------------------------------------
 * The run model's compute term is the FP32 pipe; a tensor-core variant runs
 * at the roofline's peak for its math instead (matmul_model.c, the same
 * figures explain prints), given as a multiple of the FP32 peak so that
 * the hardware description's clock and SM count still apply. The math
 * follows from the variant's numerics: truncating accumulation on bf16 /
 * f16 is tensor cores, a rounded input (in_round) on f32 is TF32; the f32
 * cuBLAS peer (cublasSgemm) and every CPU variant stay on the FP32 pipe. */
static double math_rate_x(const sl_variant *v, sl_dtype dt, int cc)
{
    double tf32_x, t16_x;
    const char *src;
    if (v->backend != SL_BACKEND_CUDA || !v->acc_truncates || !sl_mm_tensor_ratios(cc, &tf32_x, &t16_x, &src))
        return 0;
    if (dt == SL_F32)
        return v->in_round > 0 ? tf32_x : 0;
    return t16_x;
}

/* ---- launchers: sl_args -> sl_mm ------------------------------------------------- */

static void from_args(const sl_args *x, sl_mm *p)
{
    memset(p, 0, sizeof *p);
    p->m = (int64_t)x->shape.rows;
    p->n = (int64_t)x->shape.cols;
    p->k = (int64_t)x->shape.k;
    p->lda = p->k;
    p->ldb = p->n;
    p->ldc = (int64_t)x->shape.ld;
    p->alpha = sl_mm_scalar(x->scalar[0]);
    p->beta = sl_mm_scalar(x->scalar[1]);
    p->a = x->buf[0];
    p->b = x->buf[1];
    p->c = x->buf[2];
    p->dtype = x->dtype;
    p->stream = x->stream;
}

#define MM_ADAPT(NAME, FN)                      \
    static sl_status NAME(const sl_args *x)     \
    {                                           \
        sl_mm p;                                \
        from_args(x, &p);                       \
        return FN(&p);                          \
    }

MM_ADAPT(cpu_serial, sl_cpu_mm_serial)
MM_ADAPT(cpu_omp, sl_cpu_mm_omp)
#ifdef SL_HAVE_CUDA
MM_ADAPT(cuda_cublas, sl_cuda_mm_cublas)
MM_ADAPT(cuda_cublas_tf32, sl_cuda_mm_cublas_tf32)
MM_ADAPT(cuda_naive, sl_cuda_mm_naive)
MM_ADAPT(cuda_smem, sl_cuda_mm_smem)
MM_ADAPT(cuda_regblock, sl_cuda_mm_regblock)
MM_ADAPT(cuda_vec, sl_cuda_mm_vec)
MM_ADAPT(cuda_warptile, sl_cuda_mm_warptile)
MM_ADAPT(cuda_small, sl_cuda_mm_small)
MM_ADAPT(cuda_simt_128x128, sl_cuda_mm_simt_128x128)
MM_ADAPT(cuda_simt_128x64, sl_cuda_mm_simt_128x64)
MM_ADAPT(cuda_simt_64x64, sl_cuda_mm_simt_64x64)
MM_ADAPT(cuda_simt_k2, sl_cuda_mm_simt_k2)
MM_ADAPT(cuda_simt_k4, sl_cuda_mm_simt_k4)
MM_ADAPT(cuda_simt_128x64_k2, sl_cuda_mm_simt_128x64_k2)
MM_ADAPT(cuda_simt_auto, sl_cuda_mm_simt_auto)
MM_ADAPT(cuda_wmma_tf32, sl_cuda_mm_wmma_tf32)
MM_ADAPT(cuda_wmma, sl_cuda_mm_wmma)
MM_ADAPT(cuda_best, sl_cuda_mm_best)
MM_ADAPT(cuda_wgmma, sl_cuda_mm_wgmma)
MM_ADAPT(cuda_wgmma_n128, sl_cuda_mm_wgmma_n128)
MM_ADAPT(cuda_wgmma_n128_k2, sl_cuda_mm_wgmma_n128_k2)
MM_ADAPT(cuda_wgmma_n128_k4, sl_cuda_mm_wgmma_n128_k4)
MM_ADAPT(cuda_wgmma_k2, sl_cuda_mm_wgmma_k2)
MM_ADAPT(cuda_wgmma_mc2, sl_cuda_mm_wgmma_mc2)
MM_ADAPT(cuda_wgmma_n128_mc2, sl_cuda_mm_wgmma_n128_mc2)
MM_ADAPT(cuda_wgmma_pdl, sl_cuda_mm_wgmma_pdl)
MM_ADAPT(cuda_wgmma_mc2_pdl, sl_cuda_mm_wgmma_mc2_pdl)
MM_ADAPT(cuda_wgmma_n128_k2_pdl, sl_cuda_mm_wgmma_n128_k2_pdl)
MM_ADAPT(cuda_wgmma_auto, sl_cuda_mm_wgmma_auto)
MM_ADAPT(cuda_wgmma_p, sl_cuda_mm_wgmma_p)
MM_ADAPT(cuda_wgmma_p_pdl, sl_cuda_mm_wgmma_p_pdl)
MM_ADAPT(cuda_wgmma_n128_p, sl_cuda_mm_wgmma_n128_p)
MM_ADAPT(cuda_wgmma_n128_pp, sl_cuda_mm_wgmma_n128_pp)
MM_ADAPT(cuda_wgmma_n128_k2_ex, sl_cuda_mm_wgmma_n128_k2_ex)
MM_ADAPT(cuda_wgmma_n128_k4_ex, sl_cuda_mm_wgmma_n128_k4_ex)
MM_ADAPT(cuda_wgmma_k2_ex, sl_cuda_mm_wgmma_k2_ex)
MM_ADAPT(cuda_wgmma_n128_k2_ex_pdl, sl_cuda_mm_wgmma_n128_k2_ex_pdl)
MM_ADAPT(cuda_wgmma_n64, sl_cuda_mm_wgmma_n64)
MM_ADAPT(cuda_wgmma_n64_pdl, sl_cuda_mm_wgmma_n64_pdl)
MM_ADAPT(cuda_wgmma_n64_ma2, sl_cuda_mm_wgmma_n64_ma2)
MM_ADAPT(cuda_wgmma_n64_ma2_pdl, sl_cuda_mm_wgmma_n64_ma2_pdl)
MM_ADAPT(cuda_wgmma_n128_ma2, sl_cuda_mm_wgmma_n128_ma2)
MM_ADAPT(cuda_wgmma_n192, sl_cuda_mm_wgmma_n192)

/* what sl_gemm runs on a CUDA context: simt (f32: rung 10, its block tile
 * and K split by shape, sl_cuda_mm_simt_pick; issue 26) and best (bf16,
 * f16) need sm_80 (cp.async); f32 on an older GPU runs the vec rung, bf16 /
 * f16 there are refused by best with the reason. bf16 / f16 on a compute
 * capability 9.0 device run the wgmma rung when its TMA rules hold (16-byte
 * aligned A and B, lda and ldb multiples of 8: sl_cuda_mm_wgmma_applies),
 * best otherwise. */
static sl_status cuda_api_mm(const sl_mm *p)
{
    int cc = 0;
    sl_status st = sl_cuda_current_cc(&cc);
    if (st != SL_OK)
        return st;
    /* small / skinny f32 products (issue 19): rung 5's grid of 128 x 128
     * blocks would fill under a quarter of an H200's 132 SMs */
    if (p->dtype == SL_F32 && ((p->m + 127) / 128) * ((p->n + 127) / 128) < 32)
        return sl_cuda_mm_small(p);
    if (p->dtype == SL_F32)
        return cc >= 80 ? sl_cuda_mm_simt_auto(p) : sl_cuda_mm_vec(p);
    if (sl_cuda_mm_wgmma_applies(p, NULL) == SL_OK)
        return sl_cuda_mm_wgmma_auto(p); /* the configuration by shape (issue 26) */
    return sl_cuda_mm_best(p);
}
MM_ADAPT(cuda_api, cuda_api_mm)
#endif

#define F32 (1u << SL_F32)
#define T16 ((1u << SL_BF16) | (1u << SL_F16))

/* The tolerance of every row is SL_TOL_REDUCTION over K (op.h): 2 ulps of
 * the dtype (the final rounding, and the reference's own) + L u_acc scale
 * with L = K + 1 (P = 1: each entry one chain; a tree of partials only
 * shortens it), u_acc 2^-24, doubled where the accumulator truncates
 * (tensor cores), + 2 in_round scale where the inputs are rounded first
 * (TF32). sl_mm_bound (mm.h) is the per-entry form test_gpu_matmul uses. */
static const sl_variant variants[] = {
    {.name = "cublas", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER,
     .technique = "cublasSgemm (f32, fp32 SIMT) / cublasGemmEx (bf16, f16; CUBLAS_COMPUTE_32F)",
     .source = "issue 12; DESIGN.md peers", .launch = MM_CUDA(cuda_cublas), .acc = SL_F32, .partials = 1,
     .acc_truncates = true, .access_bytes = 16},
    {.name = "cublas_tf32", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_PEER, .dtypes = F32,
     .technique = "cublasGemmEx, CUBLAS_COMPUTE_32F_FAST_TF32 (TF32 tensor cores)", .source = "issue 12",
     .launch = MM_CUDA(cuda_cublas_tf32), .acc = SL_F32, .partials = 1, .acc_truncates = true,
     .in_round = 0x1p-10f, .access_bytes = 16},
    {.name = "naive", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = F32,
     .technique = "one thread per C element, K fmas from global memory", .source = "seed 002 (matmul)",
     .launch = MM_CUDA(cuda_naive), .acc = SL_F32, .partials = 1, .access_bytes = 4, .moved = moved16, .moved_in_l2 = true},
    {.name = "smem", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = F32,
     .technique = "32x32 shared-memory tiles, bound check fixed (tile_offset + tx)",
     .source = "seed 002 (tiled matmul)", .launch = MM_CUDA(cuda_smem), .acc = SL_F32, .partials = 1,
     .access_bytes = 4, .moved = moved32, .moved_in_l2 = true},
    {.name = "regblock", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = F32,
     .technique = "128x128 block tile, 8x8 register micro-tile per thread (thread coarsening)",
     .source = "issue 12; SGEMM_CUDA worklog (2-D blocktiling)", .launch = MM_CUDA(cuda_regblock),
     .acc = SL_F32, .partials = 1, .access_bytes = 4, .moved = moved128, .moved_in_l2 = true},
    {.name = "vec", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = F32,
     .technique = "16-byte loads, transposed padded A tile, conflict-free LDS.128 strips",
     .source = "issue 12; seed 004 (bank conflicts, padding)", .launch = MM_CUDA(cuda_vec), .acc = SL_F32,
     .partials = 1, .access_bytes = 16, .moved = moved128, .moved_in_l2 = true},
    {.name = "warptile", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = F32,
     .technique = "warp tiles 64x32, cp.async 3-stage pipeline, BK 32", .source = "issue 12",
     .launch = MM_CUDA(cuda_warptile), .acc = SL_F32, .partials = 1, .access_bytes = 16, .async_reads = true,
     .moved = moved128, .moved_in_l2 = true},
    {.name = "small", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = F32,
     .technique = "16x32 tiles, K split over 8 warps, LDS.128 broadcasts (skinny shapes)", .source = "issue 19",
     .launch = MM_CUDA(cuda_small), .acc = SL_F32, .partials = 1, .access_bytes = 4, .moved = moved16x32, .moved_in_l2 = true},
/* rung 10's configurations (issue 26; 10_simt.cu, docs/ladder.md "sl_gemm f32 by shape"): one row each */
#define MM_SIMT(NAME, FN, TECH, MOVED)                                                                           \
    {.name = NAME, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = F32, .technique = TECH,           \
     .source = "issue 26", .launch = MM_CUDA(FN), .acc = SL_F32, .partials = 1, .access_bytes = 16,              \
     .async_reads = true, .moved = MOVED, .moved_in_l2 = true}
    MM_SIMT("simt_128x128", cuda_simt_128x128, "rung 5's warp tiles, 128x128 blocks, conflict-free A copies (fp32 SIMT)",
            moved128),
    MM_SIMT("simt_128x64", cuda_simt_128x64, "128x64 blocks of rung 5's warp tiles", moved128x64),
    MM_SIMT("simt_64x64", cuda_simt_64x64, "64x64 blocks of rung 5's warp tiles", moved64),
    MM_SIMT("simt_k2", cuda_simt_k2, "128x128 blocks, K split over a cluster of 2, partials summed in rank order "
            "through distributed shared memory", moved128),
    MM_SIMT("simt_k4", cuda_simt_k4, "128x128 blocks, K split over a cluster of 4", moved128),
    MM_SIMT("simt_128x64_k2", cuda_simt_128x64_k2, "128x64 blocks, K split over a cluster of 2", moved128x64),
    MM_SIMT("simt_auto", cuda_simt_auto, "rung 10's configuration by shape (sl_cuda_mm_simt_pick): sl_gemm's f32 path",
            moved128),
#undef MM_SIMT
    {.name = "wmma_tf32", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = F32,
     .technique = "WMMA 16x16x8 TF32 tensor cores, 128x128 tiles, 3 cp.async stages",
     .source = "seed 004 (tensor cores)", .launch = MM_CUDA(cuda_wmma_tf32), .acc = SL_F32, .partials = 1,
     .acc_truncates = true, .in_round = 0x1p-10f, .access_bytes = 16, .async_reads = true, .moved = moved128, .moved_in_l2 = true},
    {.name = "wmma", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = T16,
     .technique = "WMMA 16x16x16 bf16/f16, fp32 accumulators, 128x128 tiles, 3 cp.async stages",
     .source = "seed 004 (tensor cores)", .launch = MM_CUDA(cuda_wmma), .acc = SL_F32, .partials = 1,
     .acc_truncates = true, .access_bytes = 16, .async_reads = true, .moved = moved128, .moved_in_l2 = true},
    {.name = "best", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = T16,
     .technique = "ldmatrix + mma.sync m16n8k16, warp tile 64x64, 4 cp.async stages (not wgmma)",
     .source = "issue 12", .launch = MM_CUDA(cuda_best), .acc = SL_F32, .partials = 1, .acc_truncates = true,
     .access_bytes = 16, .async_reads = true, .moved = moved128, .moved_in_l2 = true},
    {.name = "wgmma", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = T16,
     .technique = "wgmma m64n256k16 from 128B-swizzled smem, TMA loads, 4-stage mbarrier pipeline, warp-specialised "
                  "(sm_90a)",
     .source = "issue 12; PTX ISA (wgmma.mma_async, cp.async.bulk.tensor)", .launch = MM_CUDA(cuda_wgmma),
     .acc = SL_F32, .partials = 1, .acc_truncates = true, .access_bytes = 16, .async_reads = true,
     .moved = moved128x256, .moved_in_l2 = true},
/* rung 8's configurations (issue 26; 08_wgmma.cu, docs/ladder.md "sl_gemm by shape"): one row each */
#define MM_WG(NAME, FN, TECH, MOVED)                                                                             \
    {.name = NAME, .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .dtypes = T16, .technique = TECH,           \
     .source = "issue 26", .launch = MM_CUDA(FN), .acc = SL_F32, .partials = 1, .acc_truncates = true,            \
     .access_bytes = 16, .async_reads = true, .moved = MOVED, .moved_in_l2 = true}
    MM_WG("wgmma_n128", cuda_wgmma_n128, "rung 8 with 128x128 tiles (wgmma m64n128k16, 6 stages)", moved128),
    MM_WG("wgmma_n128_k2", cuda_wgmma_n128_k2, "128x128 tiles, K split over a cluster of 2, partials summed in "
          "rank order through distributed shared memory", moved128),
    MM_WG("wgmma_n128_k4", cuda_wgmma_n128_k4, "128x128 tiles, K split over a cluster of 4", moved128),
    MM_WG("wgmma_k2", cuda_wgmma_k2, "128x256 tiles, K split over a cluster of 2", moved128x256),
    MM_WG("wgmma_mc2", cuda_wgmma_mc2, "128x256 tiles, B multicast by TMA to 2 block rows of a cluster",
          moved256x256),
    MM_WG("wgmma_n128_mc2", cuda_wgmma_n128_mc2, "128x128 tiles, B multicast to 2 block rows", moved256x128),
    MM_WG("wgmma_pdl", cuda_wgmma_pdl, "rung 8 (128x256) with programmatic dependent launch", moved128x256),
    MM_WG("wgmma_mc2_pdl", cuda_wgmma_mc2_pdl, "wgmma_mc2 with programmatic dependent launch", moved256x256),
    MM_WG("wgmma_n128_k2_pdl", cuda_wgmma_n128_k2_pdl, "wgmma_n128_k2 with programmatic dependent launch", moved128),
    MM_WG("wgmma_p", cuda_wgmma_p, "rung 8 (128x256) persistent: one CTA per SM walks the tiles in grouped order, "
          "the next tile's TMA loads under the current epilogue", moved128x256),
    MM_WG("wgmma_p_pdl", cuda_wgmma_p_pdl, "wgmma_p with programmatic dependent launch", moved128x256),
    MM_WG("wgmma_n128_p", cuda_wgmma_n128_p, "128x128 tiles, persistent (one CTA per SM walks the tiles)", moved128),
    MM_WG("wgmma_n128_pp", cuda_wgmma_n128_pp, "128x128 tiles, persistent ping-pong: each consumer warpgroup owns "
          "whole tiles, main loops alternate, one's epilogue under the other's main loop", moved128),
    MM_WG("wgmma_n128_k2_ex", cuda_wgmma_n128_k2_ex, "128x128 tiles, K split over a cluster of 2, one-sided "
          "exchange: partials st.async into the owner's receive buffer, one mbarrier per owned warp", moved128),
    MM_WG("wgmma_n128_k4_ex", cuda_wgmma_n128_k4_ex, "128x128 tiles, K split over a cluster of 4, one-sided exchange",
          moved128),
    MM_WG("wgmma_k2_ex", cuda_wgmma_k2_ex, "128x256 tiles, K split over a cluster of 2, one-sided exchange",
          moved128x256),
    MM_WG("wgmma_n128_k2_ex_pdl", cuda_wgmma_n128_k2_ex_pdl, "wgmma_n128_k2_ex with programmatic dependent launch",
          moved128),
    MM_WG("wgmma_n64", cuda_wgmma_n64, "128x64 tiles (wgmma m64n64k16, 8 stages of 24 KiB)", moved128x64),
    MM_WG("wgmma_n64_pdl", cuda_wgmma_n64_pdl, "wgmma_n64 with programmatic dependent launch", moved128x64),
    MM_WG("wgmma_n64_ma2", cuda_wgmma_n64_ma2, "128x64 tiles, A multicast by TMA to the 2 block columns of a cluster "
          "(each CTA loads half of A)", moved128),
    MM_WG("wgmma_n64_ma2_pdl", cuda_wgmma_n64_ma2_pdl, "wgmma_n64_ma2 with programmatic dependent launch", moved128),
    MM_WG("wgmma_n128_ma2", cuda_wgmma_n128_ma2, "128x128 tiles, A multicast to 2 block columns", moved128x256),
    MM_WG("wgmma_n192", cuda_wgmma_n192, "128x192 tiles (wgmma m64n192k16, 5 stages of 40 KiB)", moved128x192),
    MM_WG("wgmma_auto", cuda_wgmma_auto, "rung 8's configuration by shape (sl_cuda_mm_wgmma_pick): sl_gemm's path",
          moved128x256),
#undef MM_WG
    {.name = "sl_gemm", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_API,
     .technique = "public sl_gemm(): simt by shape (f32; small under 32 blocks), wgmma on sm_90 (its configuration by shape) "
                  "else best (bf16, f16)", .source = "issue 12",
     .launch = MM_CUDA(cuda_api), .acc = SL_F32, .partials = 1, .acc_truncates = true, .access_bytes = 16,
     .moved = moved128, .moved_in_l2 = true},
    {.name = "serial", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "one thread, i-k-j, fp32 accumulation", .source = "seed 002 (CPU vs GPU)", .launch = cpu_serial,
     .acc = SL_F32, .partials = 1},
    {.name = "omp", .backend = SL_BACKEND_CPU, .kind = SL_KIND_RUNG,
     .technique = "OpenMP over rows, i-k-j, fp32 accumulation", .source = "seed 002 (CPU vs GPU)",
     .launch = cpu_omp, .acc = SL_F32, .partials = 1},
    {.name = "sl_gemm", .backend = SL_BACKEND_CPU, .kind = SL_KIND_API,
     .technique = "the public function on a CPU context: the omp rung", .source = "issue 12", .launch = cpu_omp,
     .acc = SL_F32, .partials = 1},
};

const sl_op_desc sl_op_matmul = {
    .id = SL_OP_MATMUL,
    .name = "matmul",
    .formula = "C = alpha A B + beta C",
    .source = "seed 002 (naive and tiled matmul), seed 004 (tensor cores); issue 12",
    .numerics = "fp32 accumulation (f32 on CUDA cores; bf16/f16 inputs on tensor cores), one rounding into the "
                "dtype; within the K-length bound (Higham 2002, 3.1)",
    .rank = 2,
    .nbufs = 3,
    .bufs = {{"A", SL_ROLE_IN, false}, {"B", SL_ROLE_IN, false}, {"C", SL_ROLE_INOUT, false}},
    .nscalars = 2,
    .scalars = {{"alpha", 1.0}, {"beta", 0.0}},
    .dtypes = SL_MM_DTYPES,
    .flops_per_elem = 0,
    .fma = true,
    .tol = {SL_TOL_REDUCTION, 2},
    .reference = reference,
    .variants = variants,
    .nvariants = (int)(sizeof variants / sizeof variants[0]),
    .default_shapes = "512x512x512,1000x1000x1000",
    .buf_elems = buf_elems,
    .third_side = "K, the inner dimension (MxNxK)",
    .ref_whole = true,
    .no_inplace = true,
    .flops = flops,
    .explain = explain,
    .math_rate_x = math_rate_x,
};

/* ---- sl_gemm ------------------------------------------------------------------- */

/* [p, p + pb) and [q, q + qb) share a byte */
static bool overlap(const void *p, size_t pb, const void *q, size_t qb)
{
    const uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
    return pb && qb && a < b + qb && b < a + pb;
}

sl_status sl_gemm(sl_ctx *ctx, sl_dtype dtype, char transa, char transb, size_t m, size_t n, size_t k, double alpha,
                  const void *A, size_t lda, const void *B, size_t ldb, double beta, void *C, size_t ldc,
                  void *stream)
{
    /* the contract's order (streamlab.h, "Errors"): ctx, dtype, the other
     * parameters and the extents, NULL, misaligned, overlap */
    if (!ctx)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_gemm: ctx is NULL");
    const size_t es = sl_dtype_size(dtype);
    if (!es)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_gemm: dtype %d is not an sl_dtype", (int)dtype);
    if (!(SL_MM_DTYPES & (1u << dtype)))
        return sl_fail(SL_ERR_UNSUPPORTED, "sl_gemm: dtype %s is not offered (f32, bf16, f16 are)",
                       sl_dtype_name(dtype));
    const char tr[2] = {transa, transb};
    for (int i = 0; i < 2; i++) {
        if (tr[i] == 'N' || tr[i] == 'n')
            continue;
        if (strchr("TtCc", tr[i]) && tr[i])
            return sl_fail(SL_ERR_UNSUPPORTED, "sl_gemm: trans%c = '%c': only 'N' (no transposition) is implemented",
                           i ? 'b' : 'a', tr[i]);
        return sl_fail(SL_ERR_INVALID_ARG, "sl_gemm: trans%c = 0x%02x is not 'N', 'T' or 'C'", i ? 'b' : 'a',
                       (unsigned char)tr[i]);
    }
    if (m == 0 || n == 0 || k == 0)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_gemm: m = %zu, n = %zu, k = %zu: every extent must be >= 1", m, n, k);
    if (lda < k || ldb < n || ldc < n)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_gemm: %s = %zu is less than its row length %zu",
                       lda < k ? "lda" : ldb < n ? "ldb" : "ldc", lda < k ? lda : ldb < n ? ldb : ldc,
                       lda < k ? k : n);
    const int64_t lim = INT64_MAX / 2;
    if (m > (size_t)lim || n > (size_t)lim || k > (size_t)lim || lda > (size_t)lim / m ||
        ldb > (size_t)lim / k || ldc > (size_t)lim / m || (m * lda) > SIZE_MAX / es || (k * ldb) > SIZE_MAX / es ||
        (m * ldc) > SIZE_MAX / es)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_gemm: the extents overflow (m %zu, n %zu, k %zu)", m, n, k);
    if (!A || !B || !C)
        return sl_fail(SL_ERR_INVALID_ARG, "sl_gemm: %s is NULL", !A ? "A" : !B ? "B" : "C");
    const void *ptrs[3] = {A, B, C};
    static const char *names[3] = {"A", "B", "C"};
    for (int i = 0; i < 3; i++)
        if ((uintptr_t)ptrs[i] % es)
            return sl_fail(SL_ERR_MISALIGNED, "sl_gemm: %s = %p is not aligned to its %zu-byte %s elements", names[i],
                           ptrs[i], es, sl_dtype_name(dtype));
    const size_t ab = ((m - 1) * lda + k) * es, bb = ((k - 1) * ldb + n) * es, cb = ((m - 1) * ldc + n) * es;
    if (overlap(C, cb, A, ab) || overlap(C, cb, B, bb))
        return sl_fail(SL_ERR_OVERLAP, "sl_gemm: C = %p (%zu bytes) overlaps %s = %p (%zu bytes)", C, cb,
                       overlap(C, cb, A, ab) ? "A" : "B", overlap(C, cb, A, ab) ? A : B,
                       overlap(C, cb, A, ab) ? ab : bb);
    sl_mm p = {.m = (int64_t)m, .n = (int64_t)n, .k = (int64_t)k, .lda = (int64_t)lda, .ldb = (int64_t)ldb,
               .ldc = (int64_t)ldc, .alpha = sl_mm_scalar(alpha), .beta = sl_mm_scalar(beta), .a = A, .b = B, .c = C,
               .dtype = dtype,
               .stream = stream};
    sl_mm_fn fn = NULL;
    if (ctx->info.backend == SL_BACKEND_CPU)
        fn = sl_cpu_mm_omp;
#ifdef SL_HAVE_CUDA
    else
        fn = cuda_api_mm;
#endif
    if (!fn)
        return sl_fail(SL_ERR_NO_DEVICE, "sl_gemm: this build has no CUDA backend");
    int token;
    sl_status st = ctx->ops->bind(ctx, &token);
    if (st != SL_OK)
        return st;
    for (int i = 0; i < 3 && st == SL_OK; i++)
        st = ctx->ops->check_pointer(ctx, ptrs[i]);
    if (st == SL_OK)
        st = fn(&p);
    ctx->ops->unbind(token);
    return st;
}
