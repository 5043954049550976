/*
 * triad.cuh - triad's element function for the CUDA rungs (contract in
 * elementwise.cuh): one fused multiply-add fma(s, c, b) in fp32 (fp64 for
 * f64), one rounding: bit-exact.
 */
#ifndef SL_OP_TRIAD_CUH
#define SL_OP_TRIAD_CUH

#include "triad.h"
#include "elementwise.cuh"

struct sl_k_triad {
    enum { NIN = 2 };
    static const unsigned dtypes = SL_TRIAD_DTYPES;
    static const bool raw_copy = false;
    sl_scalar s;
    static sl_k_triad from(const sl_args *x)
    {
        sl_k_triad k;
        k.s = sl_scalar::of(x->scalar[0]);
        return k;
    }
    template <class T> __device__ __forceinline__ T operator()(const T *x) const
    {
        return sl_fma(s.get(T()), x[1], x[0]);
    }
};

#endif /* SL_OP_TRIAD_CUH */
