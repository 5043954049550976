/*
 * mm.h - the matmul op, C = alpha A B + beta C (seeds 002 and 004): the one
 * problem description every matmul launcher, reference and check takes,
 * the launchers of the rungs and peers, the double-precision reference and
 * the error bound. C11 and CUDA C.
 *
 * Layout: row-major throughout. A is M x K with lda >= K, B is K x N with
 * ldb >= N, C is M x N with ldc >= N, all in elements; element (i, j) of
 * X is X[i * ldx + j]. A, B and C share one storage dtype: f32, or bf16 /
 * f16 (tensor-core rungs: inputs widened exactly, products exact in fp32,
 * fp32 accumulation, one final rounding of alpha acc + beta c into the
 * dtype). beta == 0 never reads C (BLAS convention: C may hold NaN).
 */
#ifndef SL_OP_MM_H
#define SL_OP_MM_H

#include "streamlab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How the products are formed (what the error bound depends on). */
typedef enum sl_mm_math {
    SL_MM_FP32 = 0, /* SIMT fp32 fma chain (f32), or the CPU in fp32 */
    SL_MM_TF32,     /* f32 inputs rounded/truncated to TF32 (10-bit mantissa) on tensor cores */
    SL_MM_TENSOR,   /* bf16 / f16 inputs on tensor cores, fp32 accumulation */
} sl_mm_math;

typedef struct sl_mm {
    int64_t m, n, k;        /* >= 1 */
    int64_t lda, ldb, ldc;  /* elements; lda >= k, ldb >= n, ldc >= n */
    double alpha, beta;     /* rounded to float where they enter (sl_mm_scalar) */
    const void *a, *b;
    void *c;
    sl_dtype dtype;         /* SL_F32, SL_BF16 or SL_F16 */
    void *stream;           /* cudaStream_t or NULL */
} sl_mm;

/* alpha and beta as every path uses them: rounded to f32 once (the
 * kernels take float scalars). sl_gemm, the harness and the reference all
 * round first, so "beta == 0" (C not read) is decided on the rounded
 * value everywhere: a beta of 1e-50 is 0 (issue 25). */
static inline double sl_mm_scalar(double v)
{
    return (double)(float)v;
}

typedef sl_status (*sl_mm_fn)(const sl_mm *p);

#define SL_MM_DTYPES ((1u << SL_F32) | (1u << SL_BF16) | (1u << SL_F16))

/* ---- the CUDA rungs (src/ops/matmul/cuda/NN_*.cu) and peers ---------------- */
sl_status sl_cuda_mm_naive(const sl_mm *p);     /* 01: one thread per C element (f32) */
sl_status sl_cuda_mm_smem(const sl_mm *p);      /* 02: seed 002's 32x32 shared-memory tile, fixed (f32) */
sl_status sl_cuda_mm_regblock(const sl_mm *p);  /* 03: 2-D register blocking 8x8 per thread (f32) */
sl_status sl_cuda_mm_vec(const sl_mm *p);       /* 04: 16-byte loads, transposed A tile (f32) */
sl_status sl_cuda_mm_warptile(const sl_mm *p);  /* 05: warp tiling + cp.async double buffering (f32) */
sl_status sl_cuda_mm_warptile_cfg(const sl_mm *p, int cfg); /* 05 with configuration cfg (0 = default) */
sl_status sl_cuda_mm_wmma(const sl_mm *p);      /* 06: WMMA 16x16x16, bf16/f16 (and TF32 for f32) */
sl_status sl_cuda_mm_wmma_tf32(const sl_mm *p); /* 06 for f32 inputs on TF32 tensor cores */
sl_status sl_cuda_mm_best(const sl_mm *p);      /* 07: our best on sm_90 (bf16/f16) */
sl_status sl_cuda_mm_best_cfg(const sl_mm *p, int cfg); /* 07 with configuration cfg (0 = default; bench --explore) */
/* 08 (sm90a/08_wgmma.cu): wgmma + TMA + mbarrier pipeline, bf16/f16, compute
 * capability 9.0 only. sl_cuda_mm_wgmma runs rung 7 where the operands do
 * not suit TMA (unaligned A or B, lda or ldb not a multiple of 8, an extent
 * >= 2^31) and is SL_ERR_UNSUPPORTED on other devices or builds;
 * _applies says whether the wgmma kernel itself would run (SL_OK) or why
 * not (SL_ERR_UNSUPPORTED, *why); _launches counts its kernel launches in
 * this process (the test checks sl_gemm really runs it), _tstore_launches
 * those of them that took the TMA-store epilogue (the test checks that a
 * failed tensor-map encode does not fall back to the register epilogue
 * unseen), _cfg_launches(c) those that ran configuration c (after
 * sl_gemm's rule and the launcher's 14 -> 15 switch: the test checks which
 * one ran; 0 for c out of range); _built: 1 when the build holds sm_90a
 * code. */
sl_status sl_cuda_mm_wgmma(const sl_mm *p);
/* Rung 8's configurations (issue 26): block tile 128 x BN, K split over
 * SPLIT CTAs of a thread-block cluster whose partial tiles are summed in a
 * fixed order through distributed shared memory (no workspace, no
 * atomics), B multicast by TMA to MC block rows of a cluster. cfg 1: 128 x
 * 256 (sl_cuda_mm_wgmma); 2: 128 x 128; 3: 128 x 128 split 2; 4: 128 x 128
 * split 4; 5: 128 x 256 split 2; 6: 128 x 256, B multicast to 2; 7: 128 x
 * 128, B multicast to 2; 8: 128 x 256 persistent (one CTA per SM walks
 * the tiles, the next tile's loads under the current epilogue); 9: 128 x
 * 128 persistent; 10: 128 x 128 persistent ping-pong (each consumer
 * warpgroup a whole tile, their main loops alternating, one's epilogue
 * under the other's main loop); 11, 12, 13: as 3, 4, 5 with the one-sided
 * exchange (each partial st.async into a receive buffer of the owner's
 * own, completing the owning warp's mbarrier: no cluster barrier around
 * the exchange; the same sums, the same bits); 14: 128 x 64 (wgmma
 * m64n64k16, 8 stages); 15: 128 x 64 with A multicast by TMA to the 2
 * block columns of a cluster (each CTA loads half of A: 16 of 24 KiB a
 * slice from L2); 16: 128 x 128 with A multicast likewise; 0:
 * sl_cuda_mm_wgmma_pick's choice (what sl_gemm runs).
 * Same dispatch rules as sl_cuda_mm_wgmma. _cfg_grid: as _cfg, with the
 * persistent grid capped at ctas CTAs (0: one per SM; the tests use small
 * caps so that each CTA walks many tiles). */
#define SL_MM_WGMMA_PDL 0x100 /* or'd into cfg: programmatic dependent launch (griddepcontrol) */
sl_status sl_cuda_mm_wgmma_cfg(const sl_mm *p, int cfg);
sl_status sl_cuda_mm_wgmma_cfg_grid(const sl_mm *p, int cfg, int ctas);
/* the cfg (1, 2, 5, 11, 12 or 14) for a shape on sms SMs; sl_gemm's launcher runs 15 for 14 where lda or ldb
 * is not a multiple of 64 */
int sl_cuda_mm_wgmma_pick(int64_t m, int64_t n, int64_t k, int sms);
sl_status sl_cuda_mm_wgmma_auto(const sl_mm *p);      /* cfg 0, PDL for grids of one wave at most: sl_gemm's path */
sl_status sl_cuda_mm_wgmma_pdl(const sl_mm *p);       /* cfg 1 | SL_MM_WGMMA_PDL */
sl_status sl_cuda_mm_wgmma_mc2_pdl(const sl_mm *p);   /* cfg 6 | SL_MM_WGMMA_PDL */
sl_status sl_cuda_mm_wgmma_n128_k2_pdl(const sl_mm *p); /* cfg 3 | SL_MM_WGMMA_PDL */
sl_status sl_cuda_mm_wgmma_n128(const sl_mm *p);      /* cfg 2 */
sl_status sl_cuda_mm_wgmma_n128_k2(const sl_mm *p);   /* cfg 3 */
sl_status sl_cuda_mm_wgmma_n128_k4(const sl_mm *p);   /* cfg 4 */
sl_status sl_cuda_mm_wgmma_k2(const sl_mm *p);        /* cfg 5 */
sl_status sl_cuda_mm_wgmma_mc2(const sl_mm *p);       /* cfg 6 */
sl_status sl_cuda_mm_wgmma_n128_mc2(const sl_mm *p);  /* cfg 7 */
sl_status sl_cuda_mm_wgmma_p(const sl_mm *p);         /* cfg 8 */
sl_status sl_cuda_mm_wgmma_p_pdl(const sl_mm *p);     /* cfg 8 | SL_MM_WGMMA_PDL */
sl_status sl_cuda_mm_wgmma_n128_p(const sl_mm *p);    /* cfg 9 */
sl_status sl_cuda_mm_wgmma_n128_pp(const sl_mm *p);   /* cfg 10 */
sl_status sl_cuda_mm_wgmma_n128_k2_ex(const sl_mm *p); /* cfg 11 */
sl_status sl_cuda_mm_wgmma_n128_k4_ex(const sl_mm *p); /* cfg 12 */
sl_status sl_cuda_mm_wgmma_k2_ex(const sl_mm *p);      /* cfg 13 */
sl_status sl_cuda_mm_wgmma_n128_k2_ex_pdl(const sl_mm *p); /* cfg 11 | SL_MM_WGMMA_PDL */
sl_status sl_cuda_mm_wgmma_n64(const sl_mm *p);        /* cfg 14 */
sl_status sl_cuda_mm_wgmma_n64_pdl(const sl_mm *p);    /* cfg 14 | SL_MM_WGMMA_PDL */
sl_status sl_cuda_mm_wgmma_n64_ma2(const sl_mm *p);    /* cfg 15 */
sl_status sl_cuda_mm_wgmma_n64_ma2_pdl(const sl_mm *p); /* cfg 15 | SL_MM_WGMMA_PDL */
sl_status sl_cuda_mm_wgmma_n128_ma2(const sl_mm *p);   /* cfg 16 */
sl_status sl_cuda_mm_wgmma_n192(const sl_mm *p);       /* cfg 17 */
sl_status sl_cuda_mm_wgmma_applies(const sl_mm *p, const char **why);
unsigned long long sl_cuda_mm_wgmma_launches(void);
unsigned long long sl_cuda_mm_wgmma_tstore_launches(void);
unsigned long long sl_cuda_mm_wgmma_cfg_launches(int cfg);
int sl_cuda_mm_wgmma_built(void);
sl_status sl_cuda_mm_small(const sl_mm *p);     /* 09: 16x32 tiles, K split over 8 warps: skinny f32 shapes (issue 19) */
/* 10: the f32 SIMT product with its tiling by shape (issue 26): rung 5's
 * warp tiles (64 x 32, 8 x 8 a lane, cp.async 3 stages, BK 32) in block
 * tiles of cfg 1: 128 x 128; 2: 128 x 64; 3: 64 x 64; 4: 128 x 128 with K
 * split over a cluster of 2 (partials summed in rank order through
 * distributed shared memory: deterministic, no atomics; sm_90+); 5: the
 * same, split 4; 6: 128 x 64, split 2; 0: sl_cuda_mm_simt_pick's choice
 * (what sl_gemm runs for f32 on sm_80+ outside rung 9's shapes). The
 * split configurations are SL_ERR_UNSUPPORTED below sm_90. _launches(cfg)
 * counts launches of configuration cfg (1 .. 6) in this process: the test
 * checks sl_gemm runs the one the rule names. */
sl_status sl_cuda_mm_simt_cfg(const sl_mm *p, int cfg);
int sl_cuda_mm_simt_pick(int64_t m, int64_t n, int64_t k, int sms, int cc); /* cc = major x 10 + minor */
unsigned long long sl_cuda_mm_simt_launches(int cfg);
sl_status sl_cuda_mm_simt_auto(const sl_mm *p);      /* cfg 0 */
sl_status sl_cuda_mm_simt_128x128(const sl_mm *p);   /* cfg 1 */
sl_status sl_cuda_mm_simt_128x64(const sl_mm *p);    /* cfg 2 */
sl_status sl_cuda_mm_simt_64x64(const sl_mm *p);     /* cfg 3 */
sl_status sl_cuda_mm_simt_k2(const sl_mm *p);        /* cfg 4 */
sl_status sl_cuda_mm_simt_k4(const sl_mm *p);        /* cfg 5 */
sl_status sl_cuda_mm_simt_128x64_k2(const sl_mm *p); /* cfg 6 */
sl_status sl_cuda_mm_cublas(const sl_mm *p);    /* peer: cublasSgemm (f32) / cublasGemmEx (bf16, f16) */
sl_status sl_cuda_mm_cublas_tf32(const sl_mm *p); /* peer: cublasGemmEx with CUBLAS_COMPUTE_32F_FAST_TF32 */

/* ---- the CPU rungs (matmul_cpu.c) ----------------------------------------- */
sl_status sl_cpu_mm_serial(const sl_mm *p); /* one thread, i-k-j loop, fp32 accumulation */
sl_status sl_cpu_mm_omp(const sl_mm *p);    /* OpenMP over rows, cache-blocked, fp32 accumulation */

/* ---- the reference and the bound (matmul_ref.c) ----------------------------
 * Independent code, in fp64: for the entries asked, ref = alpha sum_k
 * a_ik b_kj + beta c_ij and mag = |alpha| sum_k |a_ik b_kj| + |beta c_ij|,
 * the inputs widened exactly from their dtype. Every fp64 partial sum of
 * K <= 2^20 terms is within K 2^-53 mag of exact, far inside the bound. */

/* Whole C: ref[i * n + j] and mag[i * n + j] (dense, n columns), blocked
 * over k and j for the cache and split over rows across OpenMP threads.
 * c0: C before the call (read only if beta != 0). */
void sl_mm_reference(const sl_mm *p, const void *c0, double *ref, double *mag);
/* One entry (i, j). */
void sl_mm_reference_at(const sl_mm *p, const void *c0, int64_t i, int64_t j, double *ref, double *mag);

/* The bound on |got - ref| for one entry (Higham, "Accuracy and Stability
 * of Numerical Algorithms", 2nd ed., 2002, section 3.1, eq. (3.5): an inner
 * product of length K in floating point satisfies |fl(x.y) - x.y| <=
 * gamma_K |x|.|y|, gamma_K = K u / (1 - K u)):
 *   bound = u_out |ref| + (gamma_{K+2}(u_acc) + 2 u_in) mag
 * u_out: unit roundoff of the output dtype (2^-24 f32, 2^-8 bf16, 2^-11
 * f16; the final rounding into C); u_acc: of the accumulator, 2^-24 for an
 * fp32 SIMT fma chain, 2^-23 on tensor cores (their fp32 accumulation
 * truncates instead of rounding: Fasi, Higham, Mikaitis and Pranesh,
 * "Numerical behavior of NVIDIA tensor cores", PeerJ CS 7:e330, 2021);
 * the + 2 covers alpha acc and + beta c; u_in: the inputs' rounding before
 * the products, 0 where products are exact (f32 on fp32 fma; bf16 and f16
 * products are exact in fp32), 2^-10 for TF32 (a 10-bit mantissa,
 * truncated or rounded: 2 u_in covers both factors). */
double sl_mm_bound(const sl_mm *p, sl_mm_math math, double ref, double mag);

/* What a result is checked against, computed once per problem (the
 * inputs), then used for every variant. full: every entry's ref and mag.
 * Otherwise `samples` entries (the four corners, then positions drawn from
 * a fixed seed) plus each row's sum: sum_j C_ij must match alpha sum_k a_ik
 * (sum_j b_kj) + beta sum_j c_ij (a checksum, Huang and Abraham 1984)
 * within the sum of the row's bounds, u_out sum_j |C_ij| + (gamma_{K+2} +
 * 2 u_in) sum_j mag_ij, and the fp64 sums' own error. */
typedef struct sl_mm_expect {
    bool full;
    int64_t m, n, k;
    int nsamp;
    double *ref, *mag;          /* full: m x n, dense; sampled: nsamp */
    int64_t *si, *sj;           /* sampled positions */
    double *row_ref, *row_mag;  /* sampled: m row sums and their magnitudes */
} sl_mm_expect;

/* p's A, B (and C, read as C0 when beta != 0) are host pointers here. */
sl_status sl_mm_expect_make(const sl_mm *p, bool full, int samples, sl_mm_expect *e);
/* got: host copy of C after the call (ldc as in p). SL_OK, or SL_ERR_VERIFY
 * naming the first failing entry or row (sl_last_error). *worst: the
 * largest |got - ref| / bound seen (<= 1 passes). */
sl_status sl_mm_expect_check(const sl_mm *p, sl_mm_math math, const sl_mm_expect *e, const void *got,
                             double *worst);
void sl_mm_expect_free(sl_mm_expect *e);

/* make + check + free, for one-off checks (c0: C before the call). */
sl_status sl_mm_check(const sl_mm *p, sl_mm_math math, const void *c0, const void *got, bool full, int samples,
                      double *worst);

/* ---- the ladder: rungs, peers and what the model needs of each ---------------- */
typedef struct sl_mm_variant {
    const char *name;
    sl_backend backend;
    int kind;              /* sl_kind (op.h): SL_KIND_PEER, SL_KIND_RUNG, SL_KIND_API */
    sl_mm_math math;       /* how products and sums are formed: the error bound and the peak */
    unsigned dtypes;       /* of SL_MM_DTYPES */
    sl_mm_fn launch;       /* NULL in a build without the backend */
    int bm, bn;            /* block tile of C: global (L2) traffic; 0: not modelled (CPU, a library) */
    double smem_fpb;       /* flops per byte of shared-memory / L1 wavefronts (0: not modelled) */
    const char *change;    /* what the rung changes, one line */
    const char *limiter;   /* the expected limiter, one line */
} sl_mm_variant;

extern const sl_mm_variant sl_mm_variants[];
extern const int sl_mm_nvariants;
const sl_mm_variant *sl_mm_variant_find(const char *name);

/* ---- the roofline (matmul_model.c) --------------------------------------------- */
typedef struct sl_mm_hw {
    const char *name;
    double fp32_tflops, tf32_tflops, tensor16_tflops; /* dense peaks */
    double dram_gbs, l2_gbs, smem_gbs;                /* bandwidths, GB/s */
    const char *source;
} sl_mm_hw;

extern const sl_mm_hw sl_mm_hw_h200;

/* The dense tensor-core rates of an architecture (cc = compute capability
 * x 10) as multiples of its FP32 FMA rate: TF32 and bf16 / f16 with fp32
 * accumulation, with their source; false for an architecture without
 * published figures here (the roofline and the model then leave the
 * tensor-core rungs unbounded by compute, and say so). */
bool sl_mm_tensor_ratios(int cc, double *tf32_x, double *t16_x, const char **source);

typedef struct sl_mm_roof {
    double flops;       /* 2 M N K */
    double dram_bytes;  /* compulsory: A, B once, C written (and read if beta != 0) */
    double l2_bytes;    /* the tiling's: A re-read ceil(N / bn) times, B ceil(M / bm) times, plus C */
    double ai_dram, ai_l2, ai_smem; /* flop/B */
    double peak_tflops;             /* the math roof for the variant's math */
    double t_math, t_dram, t_l2, t_smem; /* ms at each roof */
    double bound_tflops;            /* flops / max(times) */
    const char *limiter;            /* "compute", "DRAM", "L2", "shared memory" */
} sl_mm_roof;

/* The roofline for v at M x N x K (Williams, Waterman and Patterson,
 * "Roofline", CACM 52(4), 2009): time >= max(flops / peak, bytes_X / BW_X)
 * over DRAM, L2 and shared memory, each with the variant's own bytes. */
sl_mm_roof sl_mm_roofline(const sl_mm_variant *v, const sl_mm_hw *hw, int64_t m, int64_t n, int64_t k, sl_dtype dt,
                          bool beta_nonzero);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_MM_H */
