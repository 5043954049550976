/*
 * matmul_model.c - the roofline of each matmul rung: which roof (compute,
 * DRAM, L2, shared memory) bounds it at a given M x N x K, and at what
 * rate. docs/ladder.md ("matmul") derives each rung's intensities.
 */
#include "mm.h"

#include <math.h>
#include <string.h>

/* H200 SXM. Peaks: NVIDIA H200 Tensor Core GPU datasheet (2024): FP32 67
 * TFLOPS, TF32 Tensor Core 989 TFLOPS and BF16/FP16 Tensor Core 1,979
 * TFLOPS "with sparsity", so 494.5 and 989.5 dense (half); the FP32 figure
 * is 132 SMs x 128 FP32 lanes x 2 flops x 1.98 GHz = 66.9 TFLOP/s.
 * DRAM: the datasheet's 4.8 TB/s. L2: 7.66 TB/s, the L2 read bandwidth
 * `streamlab probe` measured on the H200 (profiles/NVIDIA-H200.profile.json,
 * "l2.read_gbs"). Shared memory: 32 banks x 4 bytes per clock per SM
 * (CUDA C++ Programming Guide, "Shared Memory" of compute capability 9.0)
 * x 132 SMs x 1.98 GHz = 33.4 TB/s. */
const sl_mm_hw sl_mm_hw_h200 = {
    .name = "NVIDIA H200",
    .fp32_tflops = 66.9,
    .tf32_tflops = 494.5,
    .tensor16_tflops = 989.5,
    .dram_gbs = 4800.0,
    .l2_gbs = 7661.6,
    .smem_gbs = 33454.0,
    .source = "H200 datasheet (peaks dense = half the sparse figures; 4.8 TB/s); L2 read 7.66 TB/s measured "
              "(profiles/NVIDIA-H200.profile.json); shared memory 128 B/clk/SM x 132 x 1.98 GHz",
};

/* Hopper (sm_90): the H200 datasheet's dense peaks above over its FP32
 * peak (the H100 SXM datasheet gives the same ratios). Ampere A100
 * (sm_80): the A100 whitepaper's 19.5 FP32, 156 TF32 and 312 BF16/FP16
 * dense TFLOPS. */
bool sl_mm_tensor_ratios(int cc, double *tf32_x, double *t16_x, const char **source)
{
    if (cc == 90) {
        *tf32_x = sl_mm_hw_h200.tf32_tflops / sl_mm_hw_h200.fp32_tflops;
        *t16_x = sl_mm_hw_h200.tensor16_tflops / sl_mm_hw_h200.fp32_tflops;
        *source = "sm_90: H200 datasheet, dense TF32 494.5 and bf16 989.5 over FP32 66.9 TFLOP/s";
        return true;
    }
    if (cc == 80) {
        *tf32_x = 156.0 / 19.5;
        *t16_x = 312.0 / 19.5;
        *source = "sm_80: A100 whitepaper, dense TF32 156 and bf16 312 over FP32 19.5 TFLOP/s";
        return true;
    }
    *tf32_x = *t16_x = 0;
    *source = NULL;
    return false;
}

sl_mm_roof sl_mm_roofline(const sl_mm_variant *v, const sl_mm_hw *hw, int64_t m, int64_t n, int64_t k, sl_dtype dt,
                          bool beta_nonzero)
{
    sl_mm_roof r;
    memset(&r, 0, sizeof r);
    const double es = (double)sl_dtype_size(dt), M = (double)m, N = (double)n, K = (double)k;
    const double cbytes = es * M * N * (beta_nonzero ? 2.0 : 1.0);
    r.flops = 2.0 * M * N * K;
    r.dram_bytes = es * (M * K + K * N) + cbytes;
    r.peak_tflops = v->math == SL_MM_FP32     ? hw->fp32_tflops
                    : v->math == SL_MM_TF32 ? hw->tf32_tflops
                                            : hw->tensor16_tflops;
    if (v->bm > 0 && v->bn > 0) {
        const double rn = ceil(N / v->bn), rm = ceil(M / v->bm);
        r.l2_bytes = es * (M * K * rn + K * N * rm) + cbytes;
    } else {
        r.l2_bytes = r.dram_bytes;
    }
    r.ai_dram = r.flops / r.dram_bytes;
    r.ai_l2 = r.flops / r.l2_bytes;
    r.ai_smem = v->smem_fpb;
    r.t_math = r.flops / (r.peak_tflops * 1e12) * 1e3;
    r.t_dram = r.dram_bytes / (hw->dram_gbs * 1e9) * 1e3;
    r.t_l2 = r.l2_bytes / (hw->l2_gbs * 1e9) * 1e3;
    r.t_smem = v->smem_fpb > 0 ? r.flops / (v->smem_fpb * hw->smem_gbs * 1e9) * 1e3 : 0.0;
    double t = r.t_math;
    r.limiter = "compute";
    if (r.t_dram > t) {
        t = r.t_dram;
        r.limiter = "DRAM";
    }
    if (r.t_l2 > t) {
        t = r.t_l2;
        r.limiter = "L2";
    }
    if (r.t_smem > t) {
        t = r.t_smem;
        r.limiter = "shared memory / L1";
    }
    r.bound_tflops = r.flops / (t * 1e-3) / 1e12;
    return r;
}
