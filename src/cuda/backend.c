/*
 * backend.c - the CUDA backend: device query, memory, events, and the
 * operations table the harness drives (see internal.h). Host code, C11.
 */
#include "counter_ops.h"
#include "cuda_check.h"
#include "nvml.h"
#include "probe_ops.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Live CUDA contexts: the last one out releases the peers' handles. */
static int live_contexts;

typedef struct cuda_state {
    cudaStream_t stream;
    cudaEvent_t start, stop;
    void *flush_buf;
    size_t flush_bytes;
    void *workspace;
    size_t workspace_bytes;
    sl_nvml *nvml;
    int counted; /* included in live_contexts */
    char uuid[48]; /* cudaDeviceProp.uuid as "GPU-8-4-4-4-12" hex, for the record when NVML is absent */
} cuda_state;

/* Strip the build's absolute prefix so messages name "src/cuda/x.cu:12". */
static const char *short_path(const char *file)
{
    const char *s = strstr(file, "src/");
    return s ? s : file;
}

int sl_cuda_error_is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert:
    case cudaErrorLaunchTimeout:
    case cudaErrorECCUncorrectable:
    case cudaErrorUnknown:
        return 1;
    default:
        return 0;
    }
}

sl_status sl_cuda_fail(cudaError_t e, const char *expr, const char *file, int line)
{
    sl_status s = SL_ERR_CUDA;
    const int sticky = sl_cuda_error_is_sticky(e);
    if (sticky)
        s = SL_ERR_CUDA_FAULT;
    else if (e == cudaErrorMemoryAllocation)
        s = SL_ERR_NO_MEMORY;
    /* A failed call (a launch refused for its configuration, say) also left
     * e as the thread's last error; this call reports it, so clear it, or
     * the next launch's check (SL_CUDA_LAUNCHED) would report it again as
     * that launch's (an H200 run did: a later op's fill failed with the
     * earlier launch's "invalid argument"). A sticky error stays. */
    if (!sticky)
        (void)cudaGetLastError();
    return sl_fail(s, "%s (%s) from %s at %s:%d", cudaGetErrorName(e), cudaGetErrorString(e), expr,
                   short_path(file), line);
}

/* Whether the NVIDIA driver's library (libcuda.so.1, which the runtime
 * loads) can be loaded here. */
static bool driver_present(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (h)
        dlclose(h);
    return h != NULL;
}

sl_status sl_cuda_device_count(int *count, char *why, size_t why_len)
{
    *count = 0;
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        /* No driver, no device, or a driver too old for this runtime: a
         * CPU fallback situation, not an error of ours. Without the driver
         * library at all the runtime reports an "insufficient driver",
         * which misleads: say what is missing. */
        if (why)
            snprintf(why, why_len, "%s", driver_present() ? cudaGetErrorString(e) : "no NVIDIA driver or GPU found");
        (void)cudaGetLastError();
        return SL_OK;
    }
    *count = n;
    return SL_OK;
}

static int attr(enum cudaDeviceAttr a, int dev)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess)
        return 0;
    return v;
}

static void cuda_refresh_info(sl_ctx *ctx)
{
    cuda_state *s = ctx->state;
    sl_nvml_sample(s->nvml, &ctx->info.nvml_sm_clock_mhz, &ctx->info.nvml_mem_clock_mhz,
                   &ctx->info.nvml_power_mw);
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) == cudaSuccess) {
        ctx->info.mem_free = free_b;
        ctx->info.mem_total = total_b;
    }
}

/* The record (env_record.h): versions, UUID and modes. */
static void cuda_env_static(sl_ctx *ctx, sl_env_static *out)
{
    cuda_state *s = ctx->state;
    memset(out, 0, sizeof *out);
    out->cuda_driver_version = out->cuda_runtime_version = out->persistence_mode = out->compute_mode = -1;
    int v = 0;
    if (cudaDriverGetVersion(&v) == cudaSuccess)
        out->cuda_driver_version = v;
    if (cudaRuntimeGetVersion(&v) == cudaSuccess)
        out->cuda_runtime_version = v;
    snprintf(out->uuid, sizeof out->uuid, "%s", s->uuid);
    sl_nvml_static(s->nvml, out);
}

static void cuda_env_sample(sl_ctx *ctx, sl_env_sample *out)
{
    cuda_state *s = ctx->state;
    sl_nvml_env(s->nvml, out);
}

static sl_status cuda_init_on(sl_ctx *ctx, int dev);

/* The caller's current device is left as it was (the contract of every
 * public call, cuda_bind): a context for device 1 made while device 0 is
 * current leaves device 0 current (found on two H100s, 2026-11-26: torch's
 * current device became 1 after streamlab's first call on cuda:1). */
sl_status sl_cuda_ctx_init(sl_ctx *ctx, int dev)
{
    int prev = -1;
    if (cudaGetDevice(&prev) != cudaSuccess) {
        (void)cudaGetLastError();
        prev = -1;
    }
    sl_status st = cuda_init_on(ctx, dev);
    int cur = -1;
    if (prev >= 0 && cudaGetDevice(&cur) == cudaSuccess && cur != prev)
        cudaSetDevice(prev);
    return st;
}

static sl_status cuda_init_on(sl_ctx *ctx, int dev)
{
    int count = 0;
    char why[160] = "";
    sl_cuda_device_count(&count, why, sizeof why);
    if (count == 0)
        return sl_fail(SL_ERR_NO_DEVICE, "no CUDA device for device %d: %s", dev,
                       why[0] ? why : "no CUDA device is present");
    if (dev < 0 || dev >= count)
        return sl_fail(SL_ERR_BAD_DEVICE, "device %d does not exist: this machine has %d CUDA device%s (0..%d)",
                       dev, count, count == 1 ? "" : "s", count - 1);
    SL_CUDA_TRY(cudaSetDevice(dev));

    cuda_state *s = calloc(1, sizeof *s);
    if (!s)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for the CUDA context");
    ctx->state = s;
    ctx->ops = &sl_cuda_ops;

    struct cudaDeviceProp p;
    SL_CUDA_TRY(cudaGetDeviceProperties(&p, dev));
    sl_device_info *d = &ctx->info;
    d->backend = SL_BACKEND_CUDA;
    d->device = dev;
    /* cudaDeviceProp.name is 256 bytes; names are far shorter. */
    memcpy(d->name, p.name, sizeof d->name - 1);
    d->name[sizeof d->name - 1] = 0;
    d->cc_major = p.major;
    d->cc_minor = p.minor;
    d->sm_count = p.multiProcessorCount;
    d->max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    d->max_blocks_per_sm = p.maxBlocksPerMultiProcessor;
    d->regs_per_sm = p.regsPerMultiprocessor;
    d->smem_per_sm = p.sharedMemPerMultiprocessor;
    d->l2_bytes = (size_t)p.l2CacheSize;
    /* CUDA 13 removed memoryClockRate, memoryBusWidth and clockRate from
     * cudaDeviceProp; the attributes remain. */
    d->mem_clock_khz = attr(cudaDevAttrMemoryClockRate, dev);
    d->bus_width_bits = attr(cudaDevAttrGlobalMemoryBusWidth, dev);
    d->sm_clock_khz = attr(cudaDevAttrClockRate, dev);
    d->ecc_enabled = attr(cudaDevAttrEccEnabled, dev);
    /* Theoretical DRAM bandwidth: clock x bus bytes x 2 transfers per clock
     * (DDR), as the seed computes it (seed 000, "Benchmark Methodology"). */
    d->peak_gbs = (double)d->mem_clock_khz * 1e3 * (d->bus_width_bits / 8.0) * 2.0 / 1e9;
    /* The UUID names this GPU among identical ones (issue 17: a profile
     * belongs to one machine); nvidia-smi's layout, 8-4-4-4-12 hex digits. */
    {
        const unsigned char *u = (const unsigned char *)p.uuid.bytes;
        snprintf(d->uuid, sizeof d->uuid,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1], u[2], u[3],
                 u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    }

    {
        const unsigned char *u = (const unsigned char *)p.uuid.bytes;
        char *o = s->uuid;
        o += sprintf(o, "GPU-");
        for (int i = 0; i < 16; i++)
            o += sprintf(o, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", u[i]);
    }
    char bus_id[32] = "";
    if (cudaDeviceGetPCIBusId(bus_id, (int)sizeof bus_id, dev) == cudaSuccess)
        s->nvml = sl_nvml_open(bus_id);

    SL_CUDA_TRY(cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking));
    SL_CUDA_TRY(cudaEventCreate(&s->start));
    SL_CUDA_TRY(cudaEventCreate(&s->stop));
    ctx->stream = s->stream;
    cuda_refresh_info(ctx);
    __atomic_add_fetch(&live_contexts, 1, __ATOMIC_RELAXED);
    s->counted = 1;
    return SL_OK;
}

void sl_cuda_ctx_fini(sl_ctx *ctx)
{
    cuda_state *s = ctx->state;
    if (!s)
        return;
    /* Best effort: after a sticky fault these calls fail, and that is fine. */
    if (s->flush_buf)
        cudaFree(s->flush_buf);
    if (s->workspace)
        cudaFree(s->workspace);
    if (s->start)
        cudaEventDestroy(s->start);
    if (s->stop)
        cudaEventDestroy(s->stop);
    if (s->stream)
        cudaStreamDestroy(s->stream);
    sl_nvml_close(s->nvml);
    if (s->counted && __atomic_sub_fetch(&live_contexts, 1, __ATOMIC_RELAXED) == 0)
        sl_cuda_libs_release();
    free(s);
    ctx->state = NULL;
    (void)cudaGetLastError();
}

static sl_status cuda_alloc(sl_ctx *ctx, size_t bytes, void **out)
{
    (void)ctx;
    *out = NULL;
    cudaError_t e = cudaMalloc(out, bytes ? bytes : 1);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        return sl_fail(SL_ERR_NO_MEMORY, "cudaMalloc of %zu bytes failed: out of device memory", bytes);
    }
    SL_CUDA_TRY(e);
    return SL_OK;
}

static void cuda_free(sl_ctx *ctx, void *p)
{
    (void)ctx;
    if (p)
        cudaFree(p);
}

static sl_status cuda_fill_random(sl_ctx *ctx, sl_dtype dt, void *p, size_t n, uint64_t seed)
{
    return sl_cuda_fill_random(dt, p, n, seed, (cudaStream_t)ctx->stream);
}

static sl_status cuda_poison(sl_ctx *ctx, void *p, size_t bytes)
{
    SL_CUDA_TRY(cudaMemsetAsync(p, 0xff, bytes, (cudaStream_t)ctx->stream));
    return SL_OK;
}

static sl_status cuda_download(sl_ctx *ctx, void *host, const void *src, size_t bytes)
{
    SL_CUDA_TRY(cudaMemcpyAsync(host, src, bytes, cudaMemcpyDeviceToHost, (cudaStream_t)ctx->stream));
    SL_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)ctx->stream));
    return SL_OK;
}

/* Writing a buffer twice the L2's size through L2 evicts whatever the last
 * trial left there (dirty lines are written back now, not in the next
 * timed region). */
static sl_status cuda_upload(sl_ctx *ctx, void *dst, const void *host, size_t bytes)
{
    SL_CUDA_TRY(cudaMemcpyAsync(dst, host, bytes, cudaMemcpyHostToDevice, (cudaStream_t)ctx->stream));
    SL_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)ctx->stream));
    return SL_OK;
}

static sl_status cuda_flush_cache(sl_ctx *ctx)
{
    cuda_state *s = ctx->state;
    if (!s->flush_buf) {
        size_t bytes = 2 * (ctx->info.l2_bytes ? ctx->info.l2_bytes : (64u << 20));
        sl_status st = cuda_alloc(ctx, bytes, &s->flush_buf);
        if (st != SL_OK)
            return st;
        s->flush_bytes = bytes;
    }
    SL_CUDA_TRY(cudaMemsetAsync(s->flush_buf, 0x5a, s->flush_bytes, s->stream));
    return SL_OK;
}

static sl_status cuda_timer_start(sl_ctx *ctx)
{
    cuda_state *s = ctx->state;
    SL_CUDA_TRY(cudaEventRecord(s->start, s->stream));
    return SL_OK;
}

static sl_status cuda_timer_stop(sl_ctx *ctx, double *ms)
{
    cuda_state *s = ctx->state;
    float f = 0.0f;
    SL_CUDA_TRY(cudaEventRecord(s->stop, s->stream));
    SL_CUDA_TRY(cudaEventSynchronize(s->stop));
    SL_CUDA_TRY(cudaEventElapsedTime(&f, s->start, s->stop));
    *ms = f;
    return SL_OK;
}

static sl_status cuda_sync(sl_ctx *ctx)
{
    SL_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)ctx->stream));
    return SL_OK;
}

static size_t cuda_mem_available(sl_ctx *ctx)
{
    (void)ctx;
    size_t free_b = 0, total_b = 0;
    if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess)
        return 0;
    return free_b;
}

static sl_status cuda_check_pointer(const sl_ctx *ctx, const void *p)
{
    struct cudaPointerAttributes pa;
    cudaError_t e = cudaPointerGetAttributes(&pa, p);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return sl_fail(SL_ERR_BAD_POINTER, "pointer %p: %s", p, cudaGetErrorString(e));
    }
    if (pa.type == cudaMemoryTypeDevice && pa.device != ctx->info.device)
        return sl_fail(SL_ERR_BAD_POINTER, "pointer %p belongs to device %d, the context is on device %d",
                       p, pa.device, ctx->info.device);
    if (pa.type == cudaMemoryTypeUnregistered || (pa.type == cudaMemoryTypeHost && !pa.devicePointer))
        return sl_fail(SL_ERR_BAD_POINTER,
                       "pointer %p is host memory the GPU cannot read; pass device (cudaMalloc) or managed memory",
                       p);
    return SL_OK;
}

static sl_status cuda_inject_fault(sl_ctx *ctx)
{
    return sl_cuda_launch_fault((cudaStream_t)ctx->stream);
}

/* A context may be used from any thread, whatever device that thread has
 * current: each public call switches to the context's device and back. */
static sl_status cuda_bind(const sl_ctx *ctx, int *token)
{
    int cur = -1;
    SL_CUDA_TRY(cudaGetDevice(&cur));
    *token = -1; /* nothing to restore: unbind makes no runtime call (issue 17, per-call cost) */
    if (cur != ctx->info.device) {
        *token = cur;
        SL_CUDA_TRY(cudaSetDevice(ctx->info.device));
    }
    return SL_OK;
}

static void cuda_unbind(int token)
{
    int cur = -1;
    if (token >= 0 && cudaGetDevice(&cur) == cudaSuccess && cur != token)
        cudaSetDevice(token);
}

/* Zeroed with a synchronous memset (legacy stream semantics: ordered
 * before any later launch on any stream of the device), so a caller's
 * first launch on its own stream sees zeros. */
static sl_status cuda_workspace(sl_ctx *ctx, size_t bytes, void **out)
{
    cuda_state *s = ctx->state;
    *out = NULL;
    if (bytes == 0)
        return SL_OK;
    if (bytes > s->workspace_bytes) {
        if (s->workspace) {
            SL_CUDA_TRY(cudaDeviceSynchronize()); /* no launch may still use the old one */
            cudaFree(s->workspace);
            s->workspace = NULL;
            s->workspace_bytes = 0;
        }
        sl_status st = cuda_alloc(ctx, bytes, &s->workspace);
        if (st != SL_OK)
            return st;
        SL_CUDA_TRY(cudaMemset(s->workspace, 0, bytes));
        s->workspace_bytes = bytes;
    }
    *out = s->workspace;
    return SL_OK;
}

static sl_status cuda_zero(sl_ctx *ctx, void *p, size_t bytes)
{
    if (bytes)
        SL_CUDA_TRY(cudaMemsetAsync(p, 0, bytes, (cudaStream_t)ctx->stream));
    return SL_OK;
}

const sl_backend_ops sl_cuda_ops = {
    .name = "cuda",
    .alloc = cuda_alloc,
    .free = cuda_free,
    .fill_random = cuda_fill_random,
    .poison = cuda_poison,
    .download = cuda_download,
    .upload = cuda_upload,
    .flush_cache = cuda_flush_cache,
    .timer_start = cuda_timer_start,
    .timer_stop = cuda_timer_stop,
    .sync = cuda_sync,
    .mem_available = cuda_mem_available,
    .check_pointer = cuda_check_pointer,
    .inject_fault = cuda_inject_fault,
    .refresh_info = cuda_refresh_info,
    .env_static = cuda_env_static,
    .env_sample = cuda_env_sample,
    .bind = cuda_bind,
    .unbind = cuda_unbind,
    .workspace = cuda_workspace,
    .zero = cuda_zero,
    .fini = sl_cuda_ctx_fini,
    .probe = &sl_cuda_probe_ops,
#ifdef SL_HAVE_CUPTI
    .counters = &sl_cupti_counter_ops,
#endif
};
