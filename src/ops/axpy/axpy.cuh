/*
 * axpy.cuh - axpy's element function for the CUDA rungs (contract in
 * elementwise.cuh): inputs (x, y), y = fma(alpha, x, y), one rounding.
 */
#ifndef SL_OP_AXPY_CUH
#define SL_OP_AXPY_CUH

#include "axpy.h"
#include "elementwise.cuh"

struct sl_k_axpy {
    enum { NIN = 2 };
    static const unsigned dtypes = SL_AXPY_DTYPES;
    static const bool raw_copy = false;
    sl_scalar alpha;
    static sl_k_axpy from(const sl_args *x)
    {
        sl_k_axpy k;
        k.alpha = sl_scalar::of(x->scalar[0]);
        return k;
    }
    template <class T> __device__ __forceinline__ T operator()(const T *x) const
    {
        return sl_fma(alpha.get(T()), x[0], x[1]);
    }
};

#endif /* SL_OP_AXPY_CUH */
