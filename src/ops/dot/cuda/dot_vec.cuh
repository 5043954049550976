/*
 * dot_vec.cuh - the vectorised dot kernel of rungs 2 and 3: 16-byte loads
 * (4 f32 or 2 f64 per input), ILP of them per input per thread issued before
 * the first fma, over a persistent grid walking the body grid-stride; an
 * unaligned head and the tail go element by element on the first threads.
 * A template because the rungs differ only in ILP.
 */
#ifndef SL_DOT_VEC_CUH
#define SL_DOT_VEC_CUH

#include "dot.cuh"

enum { VEC_BLOCK = 256 };

/* fma the 16-byte vectors x and y (N elements of T) into s. */
template <class T>
static __device__ __forceinline__ double fma16(uint4 x, uint4 y, double s)
{
    if (sizeof(T) == 8) {
        s = fma(__hiloint2double(x.y, x.x), __hiloint2double(y.y, y.x), s);
        s = fma(__hiloint2double(x.w, x.z), __hiloint2double(y.w, y.z), s);
    } else {
        s = fma((double)__uint_as_float(x.x), (double)__uint_as_float(y.x), s);
        s = fma((double)__uint_as_float(x.y), (double)__uint_as_float(y.y), s);
        s = fma((double)__uint_as_float(x.z), (double)__uint_as_float(y.z), s);
        s = fma((double)__uint_as_float(x.w), (double)__uint_as_float(y.w), s);
    }
    return s;
}

/* head: elements [0, head) before a's first 16-byte boundary; body: nvec
 * vectors; tail: [tail_start, n). a and b share their offset modulo 16. */
template <int ILP, class T>
static __global__ void __launch_bounds__(VEC_BLOCK) dot_vec(const T *a, const T *b, size_t n, size_t head, size_t nvec,
                                                             dot_ws w, T *r)
{
    const size_t per = 16 / sizeof(T), tid = (size_t)blockIdx.x * VEC_BLOCK + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * VEC_BLOCK, tail_start = head + nvec * per;
    double s[ILP];
#pragma unroll
    for (int k = 0; k < ILP; k++)
        s[k] = 0.0;
    /* edges: one element each on the first threads */
    if (tid < head)
        s[0] = fma((double)a[tid], (double)b[tid], s[0]);
    else if (tid - head < n - tail_start)
        s[0] = fma((double)a[tail_start + tid - head], (double)b[tail_start + tid - head], s[0]);
    const uint4 *a4 = (const uint4 *)(a + head), *b4 = (const uint4 *)(b + head);
    size_t i = tid;
    for (; i + (ILP - 1) * stride < nvec; i += ILP * stride) {
        uint4 x[ILP], y[ILP];
#pragma unroll
        for (int k = 0; k < ILP; k++) {
            x[k] = a4[i + k * stride];
            y[k] = b4[i + k * stride];
        }
#pragma unroll
        for (int k = 0; k < ILP; k++)
            s[k] = fma16<T>(x[k], y[k], s[k]);
    }
    for (; i < nvec; i += stride)
        s[0] = fma16<T>(a4[i], b4[i], s[0]);
    double t = 0.0;
#pragma unroll
    for (int k = 0; k < ILP; k++)
        t += s[k];
    grid_finish<VEC_BLOCK>(block_sum<VEC_BLOCK>(t), w, r);
}

template <int ILP, class T> static sl_status launch_vec(const sl_args *x)
{
    static sl_grid_cache cache;
    const T *a = (const T *)x->buf[0], *b = (const T *)x->buf[1];
    const uintptr_t ua = (uintptr_t)a, ub = (uintptr_t)b;
    /* No one shift aligns a and b: the element-per-step kernel, at the
     * naive rung's bandwidth, with the same fp64 sum. */
    if ((ua ^ ub) & 15u)
        return sl_cuda_dot_naive(x);
    size_t head = ((16u - (ua & 15u)) & 15u) / sizeof(T);
    head = head < x->n ? head : x->n;
    const size_t nvec = (x->n - head) / (16 / sizeof(T));
    int grid = 0;
    sl_status st = dot_grid(&cache, (const void *)dot_vec<ILP, T>, VEC_BLOCK, &grid);
    if (st == SL_OK)
        st = dot_zero_ticket(x);
    if (st != SL_OK)
        return st;
    dot_vec<ILP, T><<<grid, VEC_BLOCK, 0, (cudaStream_t)x->stream>>>(a, b, x->n, head, nvec, dot_workspace_of(x),
                                                                    (T *)x->buf[2]);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

#endif /* SL_DOT_VEC_CUH */
