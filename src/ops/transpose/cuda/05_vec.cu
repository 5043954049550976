/*
 * transpose rung 5 (ours): 64 x 64 tiles, 16-byte accesses on both global
 * sides, an XOR-swizzled tile. A 16-byte vector holds V = 16 / size
 * elements (4 f32, 8 f16, 2 f64).
 *
 *  - Read: a warp takes 4 rows x 128 bytes of the tile (8 lanes a row, one
 *    16-byte load each: whole lines); the block's 8 warps cover 32 rows, so
 *    a thread issues 64 / (8 V) x 2 independent 16-byte loads before its
 *    first store into shared memory (4 in f32: 64 bytes in flight per
 *    thread, 128 KiB per SM at 2048 threads, several times Little's law's
 *    ~32 KiB per SM on the H200: docs/probes.md).
 *  - Tile: element (r, c) at r * 64 + (c ^ (r & 31)). In f32 the 4 stores
 *    of a vector's elements and the 4 loads that gather an output vector
 *    down a column each hit 32 distinct banks (lane = 4 rows x 8 vectors:
 *    the row's low 2 bits and the vector's 3 bits fill the 5 bank bits
 *    through the XOR): conflict-free both ways.
 *  - Write: a warp takes 4 rows of out x 128 bytes (8 lanes a row), each
 *    lane gathering V elements down a tile column into one 16-byte store.
 *
 * 16-byte accesses need in and out 16-byte aligned, ld a multiple of V
 * (reads) and rows a multiple of V (writes); otherwise, and in the edge
 * tiles where a vector would cross the matrix's edge, the lane moves its V
 * elements one at a time (same tile, same layout).
 *
 * Expectation: a quarter of the tile rungs' load/store instructions and
 * twice their tile per block, so DRAM-bound at the copy ceiling's pace:
 * >= 0.96x the copy ceiling at 8192^2 f32 and above cublasSgeam (issue 11's
 * bar: >= 1.03x). f64 moves 8-byte elements 2 to a vector, with its
 * half-warp phases conflict-free; f16 gathers 8 two-byte elements per
 * store, 2-way conflicted on the gather (a column's lanes p and p + 4 share
 * a bank): more shared-memory instructions per byte, still under DRAM.
 */
#include "transpose.cuh"

enum { VT = SL_TP_VEC_TILE, VB = SL_TP_VEC_BLOCK };

template <class T> struct tp_vec_cfg {
    enum {
        V = 16 / (int)sizeof(T), /* elements per 16-byte vector */
        W = 8 * V,               /* tile columns a warp covers: 128 bytes */
        CP = VT / W,             /* column passes of the read */
        LOADS = CP * 2,          /* vectors per thread: CP x (64 rows / 32 rows per pass) */
    };
};

static __device__ __forceinline__ int tp_swz(int r, int c)
{
    return r * VT + (c ^ (r & 31));
}

template <class T>
static __global__ void __launch_bounds__(VB) tp_vec(const T *__restrict__ in, T *__restrict__ out, tp_geom g,
                                                    bool vin, bool vout)
{
    typedef tp_vec_cfg<T> C;
    enum { V = C::V, W = C::W };
    union vec {
        uint4 u;
        T e[V];
    };
    __shared__ T tile[VT * VT];
    const uint64_t r0 = (uint64_t)(blockIdx.x / g.tiles_c) * VT;
    const uint64_t c0 = (uint64_t)(blockIdx.x % g.tiles_c) * VT;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int sub = lane >> 3, q = lane & 7; /* 4 rows x 8 vectors per warp */

    /* read: all the thread's vectors in flight before the first use */
    vec v[C::LOADS];
#pragma unroll
    for (int p = 0; p < C::LOADS; p++) {
        const int tr = (p / C::CP) * 32 + warp * 4 + sub, tc = (p % C::CP) * W + q * V;
        const uint64_t r = r0 + tr, c = c0 + tc;
        if (vin && r < g.rows && c + V <= g.cols) {
            v[p].u = __ldg((const uint4 *)(in + r * g.ld + c));
        } else {
#pragma unroll
            for (int k = 0; k < V; k++)
                v[p].e[k] = (r < g.rows && c + k < g.cols) ? in[r * g.ld + c + k] : T(0);
        }
    }
#pragma unroll
    for (int p = 0; p < C::LOADS; p++) {
        const int tr = (p / C::CP) * 32 + warp * 4 + sub, tc = (p % C::CP) * W + q * V;
#pragma unroll
        for (int k = 0; k < V; k++)
            tile[tp_swz(tr, tc + k)] = v[p].e[k];
    }
    __syncthreads();

    /* write: out row j = tile column, V tile rows gathered per vector */
#pragma unroll
    for (int p = 0; p < C::LOADS; p++) {
        const int tj = (p / C::CP) * 32 + warp * 4 + sub, ti = (p % C::CP) * W + q * V;
        vec o;
#pragma unroll
        for (int k = 0; k < V; k++)
            o.e[k] = tile[tp_swz(ti + k, tj)];
        const uint64_t j = c0 + tj, i = r0 + ti;
        if (j >= g.cols)
            continue;
        if (vout && i + V <= g.rows) {
            *(uint4 *)(out + j * g.rows + i) = o.u;
        } else {
#pragma unroll
            for (int k = 0; k < V; k++)
                if (i + k < g.rows)
                    out[j * g.rows + i + k] = o.e[k];
        }
    }
}

template <class T> static sl_status launch_vec(const sl_args *x)
{
    tp_geom g;
    sl_status st = tp_geometry(x, VT, "vec", &g);
    if (st != SL_OK || x->shape.rows == 0 || x->shape.cols == 0)
        return st;
    const uint64_t V = 16 / sizeof(T);
    const bool vin = ((uintptr_t)x->buf[0] % 16 == 0) && g.ld % V == 0;
    const bool vout = ((uintptr_t)x->buf[1] % 16 == 0) && g.rows % V == 0;
    tp_vec<T><<<g.grid, VB, 0, (cudaStream_t)x->stream>>>((const T *)x->buf[0], (T *)x->buf[1], g, vin, vout);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

extern "C" sl_status sl_cuda_transpose_vec(const sl_args *x)
{
    TP_DISPATCH(x->dtype, return launch_vec<T>(x))
}

extern "C" sl_status sl_cuda_transpose_vec_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    TP_DISPATCH(dt, return sl_cuda_kernel_attrs((const void *)tp_vec<T>, VB, 0, out))
}

/* sl_transpose's kernel on a CUDA context: the vec rung (docs/ladder.md,
 * "transpose": the fastest verified rung on the H200 in every dtype). */
extern "C" sl_status sl_cuda_transpose_api(const sl_args *x)
{
    return sl_cuda_transpose_vec(x);
}
