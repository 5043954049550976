/*
 * The copy-kernel ceiling: the op's first IN buffer copied into its first
 * written buffer of the same size (sl_ceiling_dst), or into the workspace
 * for an op without one (a read-only op), rows x cols elements (the whole span when ld = cols), by
 * a grid-stride SM kernel: 16-byte loads and stores over the aligned body
 * when source and destination share their offset modulo 16 bytes (the
 * head and tail byte by byte), bytes otherwise. Its traffic is one read
 * and one write of the first input (sl_variant_traffic, .copy): the bar a
 * row op's bandwidth is quoted against (issue 33: a copy kernel on the
 * same tensor, not cudaMemcpy).
 */
#include "elementwise.cuh"
#include "softmax_bwd.h"

enum { CPK_BLOCK = 256 };

static __global__ void __launch_bounds__(CPK_BLOCK) cpk_body(uint4 *dst, const uint4 *src, size_t n16)
{
    size_t i = (size_t)blockIdx.x * CPK_BLOCK + threadIdx.x;
    const size_t stride = (size_t)gridDim.x * CPK_BLOCK;
    /* 4 independent 16-byte loads in flight a thread */
    for (; i + 3 * stride < n16; i += 4 * stride) {
        const uint4 a = src[i], b = src[i + stride], c = src[i + 2 * stride], d = src[i + 3 * stride];
        dst[i] = a;
        dst[i + stride] = b;
        dst[i + 2 * stride] = c;
        dst[i + 3 * stride] = d;
    }
    for (; i < n16; i += stride)
        dst[i] = src[i];
}

static __global__ void cpk_bytes(unsigned char *dst, const unsigned char *src, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = src[i];
}

static unsigned cpk_grid(size_t work)
{
    int dev = 0, sms = 132;
    if (cudaGetDevice(&dev) == cudaSuccess)
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    const size_t most = (size_t)sms * (2048 / CPK_BLOCK);
    const size_t need = (work + CPK_BLOCK - 1) / CPK_BLOCK;
    return (unsigned)(need < most ? (need ? need : 1) : most);
}

extern "C" sl_status sl_cuda_ceiling_copy_kernel(const sl_args *x)
{
    const int src_k = sl_op_first(x->op, SL_ROLE_IN), dst_k = sl_ceiling_dst(x->op, &x->shape);
    const size_t bytes = x->n * sl_dtype_size(x->dtype);
    if (src_k < 0 || (dst_k < 0 && x->workspace_bytes < bytes))
        return sl_fail(SL_ERR_INTERNAL, "copy-kernel ceiling: op %s has no input, or no output or workspace of its "
                       "size", x->op->name);
    const unsigned char *src = (const unsigned char *)x->buf[src_k];
    unsigned char *dst = dst_k >= 0 ? (unsigned char *)x->buf[dst_k] : (unsigned char *)x->workspace;
    if (bytes == 0 || src == dst)
        return SL_OK;
    cudaStream_t s = (cudaStream_t)x->stream;
    if ((((uintptr_t)src ^ (uintptr_t)dst) & 15u) == 0) {
        const size_t head = (16 - ((uintptr_t)src & 15u)) & 15u;
        const size_t h = head < bytes ? head : bytes;
        const size_t n16 = (bytes - h) / 16, tail = bytes - h - 16 * n16;
        if (h) {
            cpk_bytes<<<1, 32, 0, s>>>(dst, src, h);
            SL_CUDA_LAUNCHED();
        }
        if (n16) {
            cpk_body<<<cpk_grid(n16 / 4 + 1), CPK_BLOCK, 0, s>>>((uint4 *)(dst + h), (const uint4 *)(src + h), n16);
            SL_CUDA_LAUNCHED();
        }
        if (tail) {
            cpk_bytes<<<1, 32, 0, s>>>(dst + h + 16 * n16, src + h + 16 * n16, tail);
            SL_CUDA_LAUNCHED();
        }
        return SL_OK;
    }
    cpk_bytes<<<cpk_grid(bytes), CPK_BLOCK, 0, s>>>(dst, src, bytes);
    SL_CUDA_LAUNCHED();
    return SL_OK;
}
