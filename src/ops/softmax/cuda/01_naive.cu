/*
 * softmax rung 1: naive (seed 002, "Recalling our own softmax"). One thread
 * per output element; each rescans its whole row twice, for the maximum
 * and for the sum, then writes its one element. Fixed from the seed: the
 * maximum starts at -inf (not the row's first element read unguarded), and
 * the divisor has no 1e-9f added (it biased every output), and the sum of
 * the N terms is compensated (softmax.cuh, smx_kahan: a plain f32 sum of
 * 1024 terms missed the 16 x 2^-24 bound on the H200).
 *
 * Work: 2 N loads per output, 2 M N^2 per launch, nearly all hits in L1 /
 * L2 (the row is shared by the N threads that rescan it); DRAM sees each
 * byte once. Expectation: bound by the load pipe, not DRAM, and quadratic
 * in N: at N = 1024 about 2^28 loads, ~1 ms at ~0.3 T loads/s (one 4-byte
 * load per lane per clock on 132 SMs x 4 partitions at ~1.9 GHz, L1 hit
 * throughput); hundreds of times slower than a stream at the seed widths.
 * It refuses M N^2 > SL_SOFTMAX_NAIVE_MAX_WORK. Not for in-place use: the
 * threads of a row read elements that others have already overwritten.
 */
#include "softmax.cuh"

enum { NAIVE_BLOCK = 256 };

template <int DT> static __global__ void __launch_bounds__(NAIVE_BLOCK) smx_naive(smx_geo g)
{
    const uint64_t c = (uint64_t)blockIdx.x * NAIVE_BLOCK + threadIdx.x;
    if (c >= g.cols)
        return;
    for (uint64_t r = blockIdx.y; r < g.rows; r += gridDim.y) {
        const void *x = smx_row<DT>(g.x, r, g.ld);
        float m = -CUDART_INF_F;
        for (uint64_t i = 0; i < g.cols; i++)
            m = fmaxf(m, smx_ld<DT>(x, i));
        smx_kahan s = {0.0f, 0.0f};
        for (uint64_t i = 0; i < g.cols; i++)
            s.add(expf(smx_ld<DT>(x, i) - m));
        smx_st<DT>(smx_row<DT>(g.y, r, g.ld), c, expf(smx_ld<DT>(x, c) - m) / s.s);
    }
}

template <int DT> static sl_status launch_naive(const sl_args *a)
{
    const smx_geo g = smx_geo_of(a);
    dim3 grid((unsigned)((g.cols + NAIVE_BLOCK - 1) / NAIVE_BLOCK), g.rows > 65535 ? 65535u : (unsigned)g.rows);
    smx_naive<DT><<<grid, NAIVE_BLOCK, 0, (cudaStream_t)a->stream>>>(g);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_softmax_naive(const sl_args *a)
{
    sl_status st = smx_check(a, "naive");
    if (st != SL_OK)
        return st;
    const double work = (double)a->shape.rows * (double)a->shape.cols * (double)a->shape.cols;
    if (work > (double)SL_SOFTMAX_NAIVE_MAX_WORK)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "naive rescans each row per element: %llux%llu is %.3g loads, above the cap of 2 x 2^32",
                       (unsigned long long)a->shape.rows, (unsigned long long)a->shape.cols, 2 * work);
    if (a->shape.rows == 0 || a->shape.cols == 0)
        return SL_OK;
    return SMX_DISPATCH(a, launch_naive, a);
}

extern "C" sl_status sl_cuda_softmax_naive_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sl_cuda_kernel_attrs(SMX_KERNEL_FOR(dt, smx_naive), NAIVE_BLOCK, 0, out);
}
