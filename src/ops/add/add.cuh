/*
 * add.cuh - add's element function for the CUDA rungs (the contract is in
 * elementwise.cuh): c = a + b in the compute type, one rounding.
 */
#ifndef SL_OP_ADD_CUH
#define SL_OP_ADD_CUH

#include "add.h"
#include "elementwise.cuh"

struct sl_k_add {
    enum { NIN = 2 };
    static const unsigned dtypes = SL_ADD_DTYPES;
    static const bool raw_copy = false;
    static sl_k_add from(const sl_args *) { return sl_k_add(); }
    template <class T> __device__ __forceinline__ T operator()(const T *x) const { return x[0] + x[1]; }
};

#endif /* SL_OP_ADD_CUH */
