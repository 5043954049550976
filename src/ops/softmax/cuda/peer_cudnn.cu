/*
 * softmax peer: cuDNN's cudnnSoftmaxForward (CUDNN_SOFTMAX_ACCURATE: the
 * max subtracted; CUDNN_SOFTMAX_MODE_INSTANCE: over C x H x W of each N),
 * on an N = rows, C = cols, H = W = 1 tensor with row stride ld (cuDNN
 * API reference, "cudnnSoftmaxForward"). The C library peer of issue 18.
 *
 * Built where cudnn.h is found (cmake/cudnn.cmake) and loaded at run time
 * with dlopen (libcudnn.so.9, or the file SL_CUDNN_LIB names): the H200
 * image carries cuDNN 9's libraries inside torch's wheels but no header,
 * so the header is carried there and the library found through
 * LD_LIBRARY_PATH (bench/softmax_h200.sh). Without either, the launch is
 * SL_ERR_UNSUPPORTED with the reason and the harness skips the row.
 *
 * One cuDNN handle per device and one tensor descriptor for the last
 * shape, both cached, so a timed launch is the set-stream call plus the
 * kernel. Its numerics are cuDNN's (its own exp and sum order): the
 * descriptor's `ulps` widens SL_TOL_REL for it.
 */
#include "softmax.cuh"

#ifdef SL_HAVE_CUDNN
#include <cudnn.h>
#include <dlfcn.h>
#include <stdlib.h>

typedef cudnnStatus_t (*fn_create)(cudnnHandle_t *);
typedef cudnnStatus_t (*fn_destroy)(cudnnHandle_t);
typedef cudnnStatus_t (*fn_destroy_desc)(cudnnTensorDescriptor_t);
typedef cudnnStatus_t (*fn_set_stream)(cudnnHandle_t, cudaStream_t);
typedef cudnnStatus_t (*fn_create_desc)(cudnnTensorDescriptor_t *);
typedef cudnnStatus_t (*fn_set_desc)(cudnnTensorDescriptor_t, cudnnDataType_t, int, int, int, int, int, int, int,
                                     int);
typedef cudnnStatus_t (*fn_softmax)(cudnnHandle_t, cudnnSoftmaxAlgorithm_t, cudnnSoftmaxMode_t, const void *,
                                    const cudnnTensorDescriptor_t, const void *, const void *,
                                    const cudnnTensorDescriptor_t, void *);
typedef const char *(*fn_err)(cudnnStatus_t);
typedef size_t (*fn_version)(void);

static struct {
    void *lib;
    char why[320];
    fn_create create;
    fn_destroy destroy;
    fn_destroy_desc destroy_desc;
    fn_set_stream set_stream;
    fn_create_desc create_desc;
    fn_set_desc set_desc;
    fn_softmax softmax;
    fn_err err;
    fn_version version;
    cudnnHandle_t h[SL_MAX_DEVICES];
    cudnnTensorDescriptor_t desc;
    int desc_dt;
    uint64_t desc_rows, desc_cols, desc_ld;
} cd;

static bool cudnn_load(void)
{
    if (cd.lib)
        return true;
    if (cd.why[0])
        return false;
    const char *name = getenv("SL_CUDNN_LIB");
    cd.lib = dlopen(name && *name ? name : "libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
    if (!cd.lib) {
        snprintf(cd.why, sizeof cd.why, "cannot load %s (%s); set LD_LIBRARY_PATH or SL_CUDNN_LIB",
                 name && *name ? name : "libcudnn.so.9", dlerror());
        return false;
    }
    cd.create = (fn_create)dlsym(cd.lib, "cudnnCreate");
    cd.destroy = (fn_destroy)dlsym(cd.lib, "cudnnDestroy");
    cd.destroy_desc = (fn_destroy_desc)dlsym(cd.lib, "cudnnDestroyTensorDescriptor");
    cd.set_stream = (fn_set_stream)dlsym(cd.lib, "cudnnSetStream");
    cd.create_desc = (fn_create_desc)dlsym(cd.lib, "cudnnCreateTensorDescriptor");
    cd.set_desc = (fn_set_desc)dlsym(cd.lib, "cudnnSetTensor4dDescriptorEx");
    cd.softmax = (fn_softmax)dlsym(cd.lib, "cudnnSoftmaxForward");
    cd.err = (fn_err)dlsym(cd.lib, "cudnnGetErrorString");
    cd.version = (fn_version)dlsym(cd.lib, "cudnnGetVersion");
    if (!cd.create || !cd.destroy || !cd.destroy_desc || !cd.set_stream || !cd.create_desc || !cd.set_desc || !cd.softmax || !cd.err) {
        snprintf(cd.why, sizeof cd.why, "libcudnn lacks the legacy softmax API (cudnnSoftmaxForward)");
        dlclose(cd.lib);
        cd.lib = NULL;
        return false;
    }
    return true;
}

/* The handles and the descriptor, freed with the last streamlab context
 * (sl_cuda_libs_release), each handle on its own device. */
static void cudnn_release(void)
{
    int cur = -1;
    if (cudaGetDevice(&cur) != cudaSuccess)
        cur = -1;
    for (int d = 0; d < SL_MAX_DEVICES; d++) {
        if (cd.h[d] && cudaSetDevice(d) == cudaSuccess)
            cd.destroy(cd.h[d]);
        cd.h[d] = NULL;
    }
    if (cd.desc)
        cd.destroy_desc(cd.desc);
    cd.desc = NULL;
    cd.desc_dt = 0;
    if (cur >= 0)
        cudaSetDevice(cur);
    (void)cudaGetLastError();
}

#define CUDNN_TRY(expr)                                                                              \
    do {                                                                                             \
        cudnnStatus_t e_ = (expr);                                                                   \
        if (e_ != CUDNN_STATUS_SUCCESS)                                                              \
            return sl_fail(e_ == CUDNN_STATUS_NOT_SUPPORTED ? SL_ERR_UNSUPPORTED : SL_ERR_CUDA,      \
                           "cuDNN softmax: %s: %s", #expr, cd.err(e_));                              \
    } while (0)

extern "C" sl_status sl_cuda_softmax_cudnn(const sl_args *a)
{
    sl_status st = smx_check(a, "cudnn");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    if (!cudnn_load())
        return sl_fail(SL_ERR_UNSUPPORTED, "cuDNN softmax: %s", cd.why);
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    if (a->shape.rows > 0x7fffffffu || ld > 0x7fffffffu || a->shape.rows * ld > 0x7fffffffu)
        return sl_fail(SL_ERR_UNSUPPORTED, "cuDNN softmax: a tensor of more than 2^31 - 1 elements");
    int dev = 0;
    SL_CUDA_TRY(cudaGetDevice(&dev));
    if (dev < 0 || dev >= SL_MAX_DEVICES)
        return sl_fail(SL_ERR_INTERNAL, "cuDNN softmax: device %d", dev);
    if (!cd.h[dev]) {
        CUDNN_TRY(cd.create(&cd.h[dev]));
        sl_cuda_libs_at_release(cudnn_release);
    }
    const cudnnDataType_t dt = a->dtype == SL_F32    ? CUDNN_DATA_FLOAT
                               : a->dtype == SL_BF16 ? CUDNN_DATA_BFLOAT16
                                                     : CUDNN_DATA_HALF;
    if (!cd.desc) {
        CUDNN_TRY(cd.create_desc(&cd.desc));
        sl_cuda_libs_at_release(cudnn_release);
    }
    if (cd.desc_dt != (int)dt + 1 || cd.desc_rows != a->shape.rows || cd.desc_cols != a->shape.cols ||
        cd.desc_ld != ld) {
        CUDNN_TRY(cd.set_desc(cd.desc, dt, (int)a->shape.rows, (int)a->shape.cols, 1, 1, (int)ld, 1, 1, 1));
        cd.desc_dt = (int)dt + 1;
        cd.desc_rows = a->shape.rows;
        cd.desc_cols = a->shape.cols;
        cd.desc_ld = ld;
    }
    CUDNN_TRY(cd.set_stream(cd.h[dev], (cudaStream_t)a->stream));
    const float one = 1.0f, zero = 0.0f;
    CUDNN_TRY(cd.softmax(cd.h[dev], CUDNN_SOFTMAX_ACCURATE, CUDNN_SOFTMAX_MODE_INSTANCE, &one, cd.desc, a->buf[0],
                         &zero, cd.desc, a->buf[1]));
    SL_CUDA_LAUNCHED();
    return SL_OK;
}

#else

extern "C" sl_status sl_cuda_softmax_cudnn(const sl_args *a)
{
    (void)a;
    return sl_fail(SL_ERR_UNSUPPORTED, "cuDNN softmax: this build found no cudnn.h (cmake -DSL_CUDNN_INCLUDE_DIR=...)");
}

#endif
