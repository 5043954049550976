/*
 * ew_cub.cuh - CUB's DeviceTransform as the peer of an elementwise op: the
 * same element function (the op's functor, widen / compute / narrow) on
 * the same buffers, so the two differ only in how they move the bytes
 * (CUB stages tiles through shared memory with bulk copies on sm_90,
 * "ublkcp", and prefetches elsewhere). CUB allows the output to be exactly
 * one of the inputs (cub/device/device_transform.cuh, "inplace").
 */
#ifndef SL_EW_CUB_CUH
#define SL_EW_CUB_CUH

#include <cub/device/device_transform.cuh>
#include <cuda/std/tuple>

#include "elementwise.cuh"

/* CUB calls this per element with NIN raw values. */
template <int DT, class OP> struct sl_cub_fn {
    typedef sl_dt<DT> D;
    typedef typename D::raw raw;
    OP op;
    template <class... R> __device__ raw operator()(R... r) const
    {
        if constexpr (OP::raw_copy) {
            const raw v[] = {r...};
            return v[0];
        } else {
            const typename D::T x[] = {D::load(r)...};
            return D::store(op(x));
        }
    }
};

template <int DT, class OP> struct rung_cub {
    static sl_status launch(const sl_args *x, const OP &op)
    {
        typedef typename sl_dt<DT>::raw raw;
        if (x->n == 0)
            return SL_OK;
        const void *in[SL_MAX_BUFS];
        void *out = NULL;
        sl_ew_bind(x, in, OP::NIN, &out);
        const raw *p0 = (const raw *)in[0], *p1 = (const raw *)in[OP::NIN > 1 ? 1 : 0],
                  *p2 = (const raw *)in[OP::NIN > 2 ? 2 : 0];
        const sl_cub_fn<DT, OP> fn{op};
        /* int64 item count: CUB picks 64-bit offsets when n >= 2^31. */
        cudaError_t e;
        if constexpr (OP::NIN == 1)
            e = cub::DeviceTransform::Transform(::cuda::std::make_tuple(p0), (raw *)out, (int64_t)x->n, fn,
                                                (cudaStream_t)x->stream);
        else if constexpr (OP::NIN == 2)
            e = cub::DeviceTransform::Transform(::cuda::std::make_tuple(p0, p1), (raw *)out, (int64_t)x->n, fn,
                                                (cudaStream_t)x->stream);
        else
            e = cub::DeviceTransform::Transform(::cuda::std::make_tuple(p0, p1, p2), (raw *)out, (int64_t)x->n, fn,
                                                (cudaStream_t)x->stream);
        SL_CUDA_TRY(e);
        SL_CUDA_LAUNCHED();
        return SL_OK;
    }
};

/* The peer's launcher: NAME(x) for every dtype the op offers. */
#define SL_EW_CUB_LAUNCHER(NAME, OP) \
    extern "C" sl_status NAME(const sl_args *x) { return sl_ew_run<rung_cub, OP>(x); }

#endif /* SL_EW_CUB_CUH */
