/*
 * scale.cuh - scale's element function for the CUDA rungs (contract in
 * elementwise.cuh): one multiply in fp32 (fp64 for f64), one rounding: bit-exact.
 */
#ifndef SL_OP_SCALE_CUH
#define SL_OP_SCALE_CUH

#include "scale.h"
#include "elementwise.cuh"

struct sl_k_scale {
    enum { NIN = 1 };
    static const unsigned dtypes = SL_SCALE_DTYPES;
    static const bool raw_copy = false;
    sl_scalar s;
    static sl_k_scale from(const sl_args *x)
    {
        sl_k_scale k;
        k.s = sl_scalar::of(x->scalar[0]);
        return k;
    }
    template <class T> __device__ __forceinline__ T operator()(const T *x) const { return s.get(T()) * x[0]; }
};

#endif /* SL_OP_SCALE_CUH */
