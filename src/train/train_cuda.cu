/*
 * train_cuda.cu - the CUDA table of the training kernels (train_kern.h):
 * elementwise forward / backward steps, the cross-entropy kernels, the
 * bias-gradient reductions, the batch gather, CUDA graph capture and the
 * cuBLAS comparison GEMM.
 *
 * Launch shapes: elementwise kernels are grid-stride loops of 256-thread
 * blocks (at most 4 blocks per SM's worth of work: the layers here have
 * at most a few hundred thousand elements); the row kernels give one warp
 * to a row; the column reductions one thread to a column, so that a
 * warp's 32 loads of one row are one coalesced 128-byte request. Blocks
 * are at most 256 threads (the seed launched 2048, above the 1024 limit).
 */
#include "train_kern.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g_err[256];

extern "C" const char *tk_cuda_last_error(void) { return g_err; }

static int check(cudaError_t e, const char *what)
{
    if (e == cudaSuccess)
        return 0;
    snprintf(g_err, sizeof g_err, "%s: %s", what, cudaGetErrorString(e));
    return -1;
}
#define LAUNCHED(what) check(cudaGetLastError(), what)

static unsigned blocks_for(size_t n)
{
    size_t b = (n + 255) / 256;
    return (unsigned)(b < 1 ? 1 : b > 2048 ? 2048 : b);
}

static void *c_alloc(size_t bytes)
{
    void *p = NULL;
    if (check(cudaMalloc(&p, bytes ? bytes : 16), "cudaMalloc") != 0)
        return NULL;
    /* cudaMemset runs on the legacy default stream, which the training's
     * non-blocking stream does not wait for: finish it here */
    if (check(cudaMemset(p, 0, bytes), "cudaMemset") != 0 || check(cudaDeviceSynchronize(), "cudaMemset") != 0) {
        cudaFree(p);
        return NULL;
    }
    return p;
}
static void c_free(void *p) { cudaFree(p); }
static int c_upload(void *d, const void *s, size_t n, void *st)
{
    if (check(cudaMemcpyAsync(d, s, n, cudaMemcpyHostToDevice, (cudaStream_t)st), "upload") != 0)
        return -1;
    return check(cudaStreamSynchronize((cudaStream_t)st), "upload (synchronize)");
}
static int c_download(void *d, const void *s, size_t n, void *st)
{
    if (check(cudaMemcpyAsync(d, s, n, cudaMemcpyDeviceToHost, (cudaStream_t)st), "download") != 0)
        return -1;
    return check(cudaStreamSynchronize((cudaStream_t)st), "download (synchronize)");
}
static int c_zero(void *p, size_t n, void *st) { return check(cudaMemsetAsync(p, 0, n, (cudaStream_t)st), "memset"); }
static int c_sync(void *st) { return check(cudaStreamSynchronize((cudaStream_t)st), "training step"); }

/* ---- kernels ----------------------------------------------------------- */

__global__ void k_gather(const float *__restrict__ x, const int32_t *__restrict__ y, const int32_t *__restrict__ perm,
                         const int32_t *__restrict__ cursor, int base, int rows, int dim, float *__restrict__ xb,
                         float *__restrict__ xbT, int32_t *__restrict__ yb)
{
    const int c = base + (cursor ? *cursor : 0);
    for (int i = blockIdx.x; i < rows; i += gridDim.x) {
        const int r = perm ? perm[c + i] : c + i;
        const float *src = x + (size_t)r * dim;
        float *dst = xb + (size_t)i * dim;
        if ((dim & 3) == 0) { /* 16-byte rows: float4 copies */
            const float4 *s4 = reinterpret_cast<const float4 *>(src);
            float4 *d4 = reinterpret_cast<float4 *>(dst);
            for (int j = threadIdx.x; j < dim / 4; j += blockDim.x)
                d4[j] = s4[j];
        } else {
            for (int j = threadIdx.x; j < dim; j += blockDim.x)
                dst[j] = src[j];
        }
        if (xbT)
            for (int j = threadIdx.x; j < dim; j += blockDim.x)
                xbT[(size_t)j * rows + i] = src[j];
        if (threadIdx.x == 0)
            yb[i] = y[r];
    }
}

__global__ void k_bias_add(float *z, const float *__restrict__ b, size_t n, int cols)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x)
        z[k] += b[k % cols];
}

__global__ void k_relu(float *a, size_t n)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x)
        a[k] = fmaxf(a[k], 0.0f);
}

__global__ void k_bias_act(float *z, const float *__restrict__ b, size_t n, int cols, int relu,
                           float *__restrict__ zT, int rows)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        float v = z[k] + b[k % cols];
        v = relu ? fmaxf(v, 0.0f) : v;
        z[k] = v;
        if (zT) /* strided stores: the activations are a few hundred KB at most */
            zT[(k % cols) * rows + k / cols] = v;
    }
}

__global__ void k_sgd(float *p, const float *__restrict__ g, size_t n, float lr, tk_wt wt)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        const float v = fmaf(-lr, g[k], p[k]);
        p[k] = v;
        for (int l = 0; l < wt.n; l++)
            if (k >= wt.woff[l] && k < wt.woff[l] + (size_t)wt.in[l] * wt.out[l]) {
                const size_t e = k - wt.woff[l], i = e / wt.out[l], j = e % wt.out[l];
                wt.wt[wt.wtoff[l] + j * wt.in[l] + i] = v;
            }
    }
}

/* one thread per row: the unfused loss from probabilities */
__global__ void k_ce_loss(const float *__restrict__ p, const int32_t *__restrict__ y, int rows, int cols,
                          float *__restrict__ loss, float *__restrict__ correct)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows)
        return;
    const float *pr = p + (size_t)i * cols;
    int best = 0;
    for (int j = 1; j < cols; j++)
        if (pr[j] > pr[best])
            best = j;
    loss[i] = -logf(fmaxf(pr[y[i]], FLT_MIN));
    correct[i] = best == y[i] ? 1.0f : 0.0f;
}

/* one block: sums in double, then the step's bookkeeping */
__global__ void k_row_stats(const float *__restrict__ loss, const float *__restrict__ correct, int rows,
                            double *stats, int32_t *cursor)
{
    __shared__ double sl[256], sc[256];
    double a = 0, c = 0;
    for (int i = threadIdx.x; i < rows; i += blockDim.x) {
        a += loss[i];
        c += correct[i];
    }
    sl[threadIdx.x] = a;
    sc[threadIdx.x] = c;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            sl[threadIdx.x] += sl[threadIdx.x + s];
            sc[threadIdx.x] += sc[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        stats[0] += sl[0];
        stats[1] += sc[0];
        if (cursor)
            *cursor += rows;
    }
}

__global__ void k_ce_backward(const float *__restrict__ p, const int32_t *__restrict__ y, int rows, int cols,
                              float *__restrict__ dz)
{
    const size_t n = (size_t)rows * cols;
    const float inv = 1.0f / (float)rows;
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x) {
        const int i = (int)(k / cols), j = (int)(k % cols);
        dz[k] = (p[k] - (j == y[i] ? 1.0f : 0.0f)) * inv;
    }
}

/* one warp per row, 8 rows per 256-thread block: max, sum of exp, loss,
 * argmax and the gradient; one double atomic per block for the stats */
__global__ void k_softmax_ce(const float *__restrict__ z, const int32_t *__restrict__ y, int rows, int cols,
                             float *__restrict__ dz, double *stats)
{
    __shared__ double sl[8], sc[8];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int i = blockIdx.x * 8 + warp;
    double loss = 0, corr = 0;
    if (i < rows) {
        const float *zr = z + (size_t)i * cols;
        float m = -INFINITY;
        int arg = cols;
        for (int j = lane; j < cols; j += 32)
            if (zr[j] > m || (zr[j] == m && j < arg)) {
                m = zr[j];
                arg = j;
            }
        for (int o = 16; o > 0; o >>= 1) {
            float m2 = __shfl_xor_sync(0xffffffffu, m, o);
            int a2 = __shfl_xor_sync(0xffffffffu, arg, o);
            if (m2 > m || (m2 == m && a2 < arg)) {
                m = m2;
                arg = a2;
            }
        }
        float s = 0;
        for (int j = lane; j < cols; j += 32)
            s += expf(zr[j] - m);
        for (int o = 16; o > 0; o >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, o);
        const int yi = y[i];
        if (dz) {
            const float inv_s = 1.0f / s, inv_n = 1.0f / (float)rows;
            for (int j = lane; j < cols; j += 32)
                dz[(size_t)i * cols + j] = (expf(zr[j] - m) * inv_s - (j == yi ? 1.0f : 0.0f)) * inv_n;
        }
        loss = (double)(logf(s) - (zr[yi] - m));
        corr = arg == yi ? 1.0 : 0.0;
    }
    if (lane == 0) {
        sl[warp] = loss;
        sc[warp] = corr;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double a = 0, c = 0;
        for (int w = 0; w < 8; w++) {
            a += sl[w];
            c += sc[w];
        }
        atomicAdd(&stats[0], a);
        atomicAdd(&stats[1], c);
    }
}

__global__ void k_advance(int32_t *cursor, int rows) { *cursor += rows; }

__global__ void k_relu_backward(float *d, const float *__restrict__ a, size_t n)
{
    for (size_t k = blockIdx.x * (size_t)blockDim.x + threadIdx.x; k < n; k += (size_t)gridDim.x * blockDim.x)
        d[k] = a[k] > 0.0f ? d[k] : 0.0f;
}

/* Column sums over the batch: a block of 32 columns x 8 row groups; thread
 * (c, g) sums rows g, g + 8, ... of column c (its loads independent of
 * each other, so they are in flight together), then the 8 partials of a
 * column are added in group order (deterministic). The first version gave
 * one thread a whole column: 64 dependent-latency loads in a row, about
 * 20 us for the fused ReLU-mask kernel (stores to d kept the compiler from
 * overlapping them), as slow as the unfused pair. */
#define CS_COLS 32
#define CS_GROUPS 8
template <bool MASK>
__global__ void __launch_bounds__(CS_COLS *CS_GROUPS)
    k_colsum(float *__restrict__ d, const float *__restrict__ a, int rows, int cols, float *__restrict__ db)
{
    __shared__ float part[CS_GROUPS][CS_COLS];
    const int c = threadIdx.x % CS_COLS, g = threadIdx.x / CS_COLS;
    const int j = blockIdx.x * CS_COLS + c;
    float s = 0;
    if (j < cols) {
#pragma unroll 4
        for (int i = g; i < rows; i += CS_GROUPS) {
            const size_t k = (size_t)i * cols + j;
            float v = d[k];
            if (MASK) {
                v = a[k] > 0.0f ? v : 0.0f;
                d[k] = v;
            }
            s += v;
        }
    }
    part[g][c] = s;
    __syncthreads();
    if (g == 0 && j < cols) {
        float t = part[0][c];
#pragma unroll
        for (int q = 1; q < CS_GROUPS; q++)
            t += part[q][c];
        db[j] = t;
    }
}

/* ---- launchers ----------------------------------------------------------- */
#define ST(s) ((cudaStream_t)(s))

static int c_gather(const float *x, const int32_t *y, const int32_t *perm, const int32_t *cursor, int base, int rows,
                    int dim, float *xb, float *xbT, int32_t *yb, void *s)
{
    k_gather<<<rows < 1024 ? rows : 1024, 128, 0, ST(s)>>>(x, y, perm, cursor, base, rows, dim, xb, xbT, yb);
    return LAUNCHED("gather");
}
static int c_bias_add(float *z, const float *b, int rows, int cols, void *s)
{
    size_t n = (size_t)rows * cols;
    k_bias_add<<<blocks_for(n), 256, 0, ST(s)>>>(z, b, n, cols);
    return LAUNCHED("bias_add");
}
static int c_relu(float *a, size_t n, void *s)
{
    k_relu<<<blocks_for(n), 256, 0, ST(s)>>>(a, n);
    return LAUNCHED("relu");
}
static int c_bias_act(float *z, const float *b, int rows, int cols, int relu, float *zT, void *s)
{
    size_t n = (size_t)rows * cols;
    k_bias_act<<<blocks_for(n), 256, 0, ST(s)>>>(z, b, n, cols, relu, zT, rows);
    return LAUNCHED("bias_act");
}
static int c_sgd(float *p, const float *g, size_t n, float lr, tk_wt wt, void *s)
{
    k_sgd<<<blocks_for(n), 256, 0, ST(s)>>>(p, g, n, lr, wt);
    return LAUNCHED("sgd");
}
static int c_ce_loss(const float *p, const int32_t *y, int rows, int cols, float *loss, float *correct, void *s)
{
    k_ce_loss<<<(rows + 255) / 256, 256, 0, ST(s)>>>(p, y, rows, cols, loss, correct);
    return LAUNCHED("ce_loss");
}
static int c_row_stats(const float *loss, const float *correct, int rows, double *stats, int32_t *cursor, void *s)
{
    k_row_stats<<<1, 256, 0, ST(s)>>>(loss, correct, rows, stats, cursor);
    return LAUNCHED("row_stats");
}
static int c_ce_backward(const float *p, const int32_t *y, int rows, int cols, float *dz, void *s)
{
    k_ce_backward<<<blocks_for((size_t)rows * cols), 256, 0, ST(s)>>>(p, y, rows, cols, dz);
    return LAUNCHED("ce_backward");
}
static int c_softmax_ce(const float *z, const int32_t *y, int rows, int cols, float *dz, double *stats, void *s)
{
    k_softmax_ce<<<(rows + 7) / 8, 256, 0, ST(s)>>>(z, y, rows, cols, dz, stats);
    return LAUNCHED("softmax_ce");
}
static int c_advance(int32_t *cursor, int rows, void *s)
{
    k_advance<<<1, 1, 0, ST(s)>>>(cursor, rows);
    return LAUNCHED("advance");
}
static int c_relu_backward(float *d, const float *a, size_t n, void *s)
{
    k_relu_backward<<<blocks_for(n), 256, 0, ST(s)>>>(d, a, n);
    return LAUNCHED("relu_backward");
}
static int c_bias_grad(const float *dz, int rows, int cols, float *db, void *s)
{
    k_colsum<false><<<(cols + CS_COLS - 1) / CS_COLS, CS_COLS * CS_GROUPS, 0, ST(s)>>>(const_cast<float *>(dz), NULL,
                                                                                       rows, cols, db);
    return LAUNCHED("bias_grad");
}
static int c_relu_bias_grad(float *d, const float *a, int rows, int cols, float *db, void *s)
{
    k_colsum<true><<<(cols + CS_COLS - 1) / CS_COLS, CS_COLS * CS_GROUPS, 0, ST(s)>>>(d, a, rows, cols, db);
    return LAUNCHED("relu_bias_grad");
}

static int c_graph_begin(void *s)
{
    return check(cudaStreamBeginCapture(ST(s), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
}
static int c_graph_end(void *s, void **exec)
{
    cudaGraph_t g;
    if (check(cudaStreamEndCapture(ST(s), &g), "cudaStreamEndCapture") != 0)
        return -1;
    cudaGraphExec_t e;
    int rc = check(cudaGraphInstantiate(&e, g, 0), "cudaGraphInstantiate");
    cudaGraphDestroy(g);
    if (rc == 0)
        *exec = (void *)e;
    return rc;
}
static int c_graph_launch(void *exec, void *s)
{
    return check(cudaGraphLaunch((cudaGraphExec_t)exec, ST(s)), "cudaGraphLaunch");
}
static void c_graph_destroy(void *exec)
{
    if (exec)
        cudaGraphExecDestroy((cudaGraphExec_t)exec);
}
static void *c_stream_create(void)
{
    cudaStream_t s;
    if (check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate") != 0)
        return NULL;
    return (void *)s;
}
static void c_stream_destroy(void *s)
{
    if (s)
        cudaStreamDestroy(ST(s));
}

static void *c_event_create(void)
{
    cudaEvent_t e;
    if (check(cudaEventCreate(&e), "cudaEventCreate") != 0)
        return NULL;
    return (void *)e;
}
/* External: inside a stream capture a plain cudaEventRecord is only a
 * fork/join marker; this flag makes it an event-record node of the graph */
static int c_event_record(void *ev, void *s)
{
    cudaStreamCaptureStatus cs = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(ST(s), &cs);
    return check(cudaEventRecordWithFlags((cudaEvent_t)ev, ST(s),
                                          cs == cudaStreamCaptureStatusActive ? cudaEventRecordExternal : 0),
                 "cudaEventRecord");
}
static double c_event_us(void *a, void *b)
{
    float ms = 0;
    if (cudaEventElapsedTime(&ms, (cudaEvent_t)a, (cudaEvent_t)b) != cudaSuccess)
        return -1;
    return 1e3 * (double)ms;
}
static void c_event_destroy(void *ev)
{
    if (ev)
        cudaEventDestroy((cudaEvent_t)ev);
}

static tk_ops make_ops(void)
{
    tk_ops o;
    memset(&o, 0, sizeof o);
    o.name = "cuda";
    o.alloc = c_alloc;
    o.free = c_free;
    o.upload = c_upload;
    o.download = c_download;
    o.zero = c_zero;
    o.sync = c_sync;
    o.gather = c_gather;
    o.bias_add = c_bias_add;
    o.relu = c_relu;
    o.bias_act = c_bias_act;
    o.ce_loss = c_ce_loss;
    o.row_stats = c_row_stats;
    o.ce_backward = c_ce_backward;
    o.softmax_ce = c_softmax_ce;
    o.advance = c_advance;
    o.relu_backward = c_relu_backward;
    o.bias_grad = c_bias_grad;
    o.relu_bias_grad = c_relu_bias_grad;
    o.sgd = c_sgd;
    o.graph_begin = c_graph_begin;
    o.graph_end = c_graph_end;
    o.graph_launch = c_graph_launch;
    o.graph_destroy = c_graph_destroy;
    o.stream_create = c_stream_create;
    o.stream_destroy = c_stream_destroy;
    o.event_create = c_event_create;
    o.event_record = c_event_record;
    o.event_us = c_event_us;
    o.event_destroy = c_event_destroy;
    return o;
}
static const tk_ops cuda_ops = make_ops();

extern "C" const tk_ops *tk_cuda_ops(void) { return &cuda_ops; }

/* ---- cuBLAS (--gemm cublas) ------------------------------------------------ */
extern "C" int tk_cublas_create(void **handle)
{
    cublasHandle_t h;
    cublasStatus_t st = cublasCreate(&h);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(g_err, sizeof g_err, "cublasCreate: status %d", (int)st);
        return -1;
    }
    *handle = (void *)h;
    return 0;
}
extern "C" void tk_cublas_destroy(void *handle)
{
    if (handle)
        cublasDestroy((cublasHandle_t)handle);
}
/* Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the
 * operands and keep each one's transposition flag. */
extern "C" int tk_cublas_gemm(void *handle, void *stream, int ta, int tb, int m, int n, int k, const float *A,
                              int lda, const float *B, int ldb, float *C, int ldc)
{
    cublasHandle_t h = (cublasHandle_t)handle;
    const float one = 1.0f, zero = 0.0f;
    cublasSetStream(h, ST(stream));
    cublasStatus_t st = cublasSgemm(h, tb ? CUBLAS_OP_T : CUBLAS_OP_N, ta ? CUBLAS_OP_T : CUBLAS_OP_N, n, m, k, &one,
                                    B, ldb, A, lda, &zero, C, ldc);
    if (st != CUBLAS_STATUS_SUCCESS) {
        snprintf(g_err, sizeof g_err, "cublasSgemm: status %d", (int)st);
        return -1;
    }
    return 0;
}
