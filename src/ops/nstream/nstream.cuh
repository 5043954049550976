/*
 * nstream.cuh - nstream's element function for the CUDA rungs (contract in
 * elementwise.cuh): a + fma(s, c, b) in fp32 (fp64 for f64): two roundings
 * in the compute type, one to the storage type; bit-exact.
 */
#ifndef SL_OP_NSTREAM_CUH
#define SL_OP_NSTREAM_CUH

#include "nstream.h"
#include "elementwise.cuh"

struct sl_k_nstream {
    enum { NIN = 3 };
    static const unsigned dtypes = SL_NSTREAM_DTYPES;
    static const bool raw_copy = false;
    sl_scalar s;
    static sl_k_nstream from(const sl_args *x)
    {
        sl_k_nstream k;
        k.s = sl_scalar::of(x->scalar[0]);
        return k;
    }
    template <class T> __device__ __forceinline__ T operator()(const T *x) const
    {
        return x[0] + sl_fma(s.get(T()), x[2], x[1]);
    }
};

#endif /* SL_OP_NSTREAM_CUH */
