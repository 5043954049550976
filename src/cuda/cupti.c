/*
 * cupti.c - hardware counters through CUPTI's Range Profiling API (CUDA
 * 12.6 Update 2 and later; written against CUDA 13.0's headers): the CUDA
 * backend's sl_counter_ops (counter_ops.h), which the lab's counter
 * sessions (src/lab/counters.h) reach through the context. Host code, C11. Compiled only when CMake found
 * CUPTI (cmake/counters.cmake), which defines SL_HAVE_CUPTI.
 *
 * What the CUPTI documentation describes ("CUPTI Profiler Host API":
 * enumeration, configuration, evaluation; "CUPTI Range Profiling API":
 * collection), and how this file maps onto it:
 *
 *   open    cuptiProfilerInitialize; cuptiProfilerDeviceSupported (says
 *           why a GPU cannot be profiled); cuptiDeviceGetChipName;
 *           cuptiProfilerGetCounterAvailability on the context (this is
 *           where a missing profiling permission shows); a host object
 *           for the chip (cuptiProfilerHostInitialize); every metric of
 *           the table checked (cuptiProfilerHostGetMetricProperties) and
 *           scheduled (cuptiProfilerHostConfigAddMetrics); the config
 *           image (cuptiProfilerHostGetConfigImage) and its pass count
 *           (cuptiProfilerHostGetNumOfPasses); one enable/disable of the
 *           range profiler to prove the context can be profiled.
 *   collect cuptiRangeProfilerEnable on the context; a counter data image
 *           for one range (GetCounterDataSize, CounterDataImageInitialize);
 *           cuptiRangeProfilerSetConfig with CUPTI_UserRange +
 *           CUPTI_UserReplay; then per pass: clear L2 and wait (outside
 *           the range), Start, PushRange, wait, fn, wait, PopRange, Stop,
 *           until Stop reports isAllPassSubmitted; DecodeData;
 *           GetCounterDataInfo (one range expected);
 *           cuptiProfilerHostEvaluateToGpuValues; cuptiRangeProfilerDisable.
 *   close   host object and profiler deinitialised, buffers freed.
 *
 * The waits (cudaDeviceSynchronize) make the range hold exactly fn's work
 * on every stream of the context, whatever CUPTI does with streams; the
 * cost is that gpu__time_duration.sum covers the range, so it includes
 * the host round trips around fn (tens of microseconds), unlike ncu's
 * per-kernel Duration. The counts and the per-active-cycle averages
 * (occupancy, eligible warps) do not include idle time.
 *
 * Why user range + user replay: a range spans whatever fn enqueues (a
 * memcpy ceiling, CUB's kernels, several launches), and CUPTI needs no
 * save/restore of device memory because fn itself is replayed (CUPTI's
 * kernel replay works only with auto ranges, one per kernel).
 *
 * The range profiler is enabled only inside collect() and disabled before
 * it returns, so the CUDA-event timing the harness does between collects
 * runs on a context CUPTI is not profiling. The price is one
 * Enable/SetConfig/Disable per collect (host work, expected to be a few
 * ms; collect_ms in the result measures it).
 *
 * The CUDA driver API (cuCtxGetCurrent, cuCtxGetDevice) is reached through
 * cudaGetDriverEntryPointByVersion rather than by linking libcuda, so that
 * a CUDA build still starts on a machine without the driver (the CPU
 * fallback): the runtime already loads the driver dynamically.
 *
 * cupti_profiler_host.h includes the C++ header <string> although it
 * declares only C; cmake/counters.cmake puts an empty <string> on this
 * file's include path so the header compiles as C.
 */
#include "counter_ops.h"
#include "cuda_check.h"
#include "probe_ops.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_result.h>
#include <cupti_target.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CUresult (*ctx_get_current_fn)(CUcontext *ctx);
typedef CUresult (*ctx_get_device_fn)(CUdevice *dev);

#define MAX_METRICS 32

typedef struct cupti_session {
    sl_ctx *ctx;
    CUcontext cu;                 /* the runtime's primary context of ctx's device */
    ctx_get_current_fn get_current;
    bool initialized;             /* cuptiProfilerInitialize succeeded */
    char chip[64];                /* "GH100", ... */
    uint8_t *avail;               /* counter availability image of the context */
    CUpti_Profiler_Host_Object *host;
    const char *const *wanted;    /* the metrics asked for, and how many */
    int nwanted;
    const char *names[MAX_METRICS]; /* metrics scheduled (the caller's strings) */
    int ids[MAX_METRICS];         /* their index in wanted[] */
    size_t nnames;
    uint8_t *config;              /* config image */
    size_t config_size;
    size_t passes;                /* passes the config image needs */
    uint8_t *data;                /* counter data image, reused by every collect */
    size_t data_cap;
    bool flush;                   /* clear L2 before every pass */
    void *scratch;                /* 2 x L2 bytes read to clear L2 */
    size_t scratch_words;
    uint32_t *sum;                /* the read probe's accumulator */
} cupti_session;

/* Which kind of call failed: in open() every CUPTI failure means "no
 * counters here" (SL_ERR_UNSUPPORTED, the run goes on); in collect() only
 * the permission and availability ones do, the rest are errors. */
typedef enum phase { PHASE_OPEN, PHASE_COLLECT } phase;

/* Record a failed CUPTI call (its name and CUPTI's error name and message)
 * for sl_last_error() and return the status it maps to. The permission,
 * virtualisation and busy cases get one sentence that says what to do.
 * Error codes: cupti_result.h (CUDA 13.0). */
static sl_status cupti_fail(CUptiResult r, const char *call, phase ph)
{
    const char *name = NULL, *msg = NULL;
    if (cuptiGetResultString(r, &name) != CUPTI_SUCCESS || !name)
        name = "CUPTI error";
    if (cuptiGetErrorMessage(r, &msg) != CUPTI_SUCCESS || !msg)
        msg = "";
    switch (r) {
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "hardware counters need profiling permission, which the NVIDIA driver gives only to "
                       "administrators on this machine (nvidia module option NVreg_RestrictProfilingToAdminUsers=1): "
                       "run as root or reload the module with NVreg_RestrictProfilingToAdminUsers=0 (%s from %s)",
                       name, call);
    case CUPTI_ERROR_HARDWARE_BUSY:
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "the GPU's performance counters are held by another profiler (Nsight Compute, Nsight Systems "
                       "or DCGM profiling), so streamlab cannot read them (%s from %s)",
                       name, call);
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_NOT_SUPPORTED:
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "this is a virtualised GPU (vGPU or passthrough without profiling) on which CUPTI cannot read "
                       "counters (%s from %s)",
                       name, call);
    case CUPTI_ERROR_MIG_DEVICE_NOT_SUPPORTED:
        return sl_fail(SL_ERR_UNSUPPORTED, "CUPTI cannot profile this MIG instance (%s from %s)", name, call);
    case CUPTI_ERROR_CONFIDENTIAL_COMPUTING_NOT_SUPPORTED:
        return sl_fail(SL_ERR_UNSUPPORTED, "confidential computing is on, which disables GPU profiling (%s from %s)",
                       name, call);
    case CUPTI_ERROR_CMP_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_SLI_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_WSL_DEVICE_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_SUPPORTED:
    case CUPTI_ERROR_NOT_COMPATIBLE:
    case CUPTI_ERROR_INVALID_CHIP_NAME:
    case CUPTI_ERROR_LEGACY_PROFILER_NOT_SUPPORTED:
    case CUPTI_ERROR_OLD_PROFILER_API_INITIALIZED:
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        return sl_fail(SL_ERR_UNSUPPORTED, "CUPTI cannot profile this GPU or configuration: %s from %s (%s)", name,
                       call, msg);
    case CUPTI_ERROR_OUT_OF_MEMORY:
        if (ph == PHASE_COLLECT)
            return sl_fail(SL_ERR_NO_MEMORY, "CUPTI ran out of memory in %s (%s)", call, msg);
        break;
    default:
        break;
    }
    if (ph == PHASE_OPEN) {
        /* libcupti loads libnvperf_host.so when the profiler starts; a
         * loader path without the CUDA libraries shows up here. */
        const char *hint = strcmp(call, "cuptiProfilerInitialize") == 0 ||
                                   strcmp(call, "cuptiProfilerHostInitialize") == 0
                               ? "; check that libnvperf_host.so from the CUDA toolkit is on the library path"
                               : "";
        return sl_fail(SL_ERR_UNSUPPORTED, "CUPTI could not set up counter collection: %s from %s (%s)%s", name,
                       call, msg, hint);
    }
    return sl_fail(SL_ERR_CUDA, "CUPTI %s failed: %s (%s)", call, name, msg);
}

/* Calls below need a local `sl_status st`, a local `phase ph` and a label
 * `done` that releases what the function holds. */
#define CUPTI_TRY(fn, params)                                                   \
    do {                                                                        \
        CUptiResult sl_r_ = fn(params);                                         \
        if (sl_r_ != CUPTI_SUCCESS) {                                           \
            st = cupti_fail(sl_r_, #fn, ph);                                    \
            goto done;                                                          \
        }                                                                       \
    } while (0)

#define CUDA_TRY(expr)                                                          \
    do {                                                                        \
        cudaError_t sl_e_ = (expr);                                             \
        if (sl_e_ != cudaSuccess) {                                             \
            st = sl_cuda_fail(sl_e_, #expr, __FILE__, __LINE__);                \
            goto done;                                                          \
        }                                                                       \
    } while (0)

#define SL_TRY(expr)                                                            \
    do {                                                                        \
        if ((st = (expr)) != SL_OK)                                             \
            goto done;                                                          \
    } while (0)

/* A driver API function by name, through the runtime (CUDA 12.5+), from
 * the CUDA 12.0 ABI. */
static sl_status driver_fn(const char *symbol, void **fn)
{
    enum cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    *fn = NULL;
    cudaError_t e = cudaGetDriverEntryPointByVersion(symbol, fn, 12000, cudaEnableDefault, &q);
    if (e != cudaSuccess || q != cudaDriverEntryPointSuccess || !*fn) {
        (void)cudaGetLastError();
        return sl_fail(SL_ERR_UNSUPPORTED, "the CUDA driver does not provide %s (%s)", symbol,
                       e != cudaSuccess ? cudaGetErrorString(e) : "symbol not found");
    }
    return SL_OK;
}

/* One sentence for a device cuptiProfilerDeviceSupported turned down. */
static sl_status device_unsupported(const CUpti_Profiler_DeviceSupported_Params *p, const sl_ctx *ctx)
{
    const CUpti_Profiler_Support_Level ok = CUPTI_PROFILER_CONFIGURATION_SUPPORTED;
    if (p->architecture != ok)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "CUPTI's range profiler does not support %s (compute capability %d.%d; it needs Turing, 7.5, "
                       "or newer)",
                       ctx->info.name, ctx->info.cc_major, ctx->info.cc_minor);
    if (p->vGpu == CUPTI_PROFILER_CONFIGURATION_DISABLED)
        return sl_fail(SL_ERR_UNSUPPORTED,
                       "this virtual GPU supports profiling but the hypervisor has not enabled it, so counters "
                       "cannot be read");
    if (p->vGpu != ok)
        return sl_fail(SL_ERR_UNSUPPORTED, "this virtualised GPU (vGPU) does not support CUPTI profiling");
    if (p->confidentialCompute != ok)
        return sl_fail(SL_ERR_UNSUPPORTED, "confidential computing is on, which disables GPU profiling");
    if (p->cmp != ok)
        return sl_fail(SL_ERR_UNSUPPORTED, "NVIDIA CMP (crypto mining) GPUs do not support profiling");
    if (p->wsl != ok)
        return sl_fail(SL_ERR_UNSUPPORTED, "CUPTI profiling is not supported under this WSL setup");
    if (p->sli != ok)
        return sl_fail(SL_ERR_UNSUPPORTED, "CUPTI cannot profile a GPU in an SLI group");
    return sl_fail(SL_ERR_UNSUPPORTED, "CUPTI says %s in this configuration cannot be profiled", ctx->info.name);
}

/* A host object (metric enumeration, configuration, evaluation) for the
 * session's chip and counter availability. */
static sl_status host_init(cupti_session *s, CUpti_Profiler_Host_Object **out)
{
    const phase ph = PHASE_OPEN;
    sl_status st = SL_OK;
    CUpti_Profiler_Host_Initialize_Params p = {.structSize = CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE};
    p.profilerType = CUPTI_PROFILER_TYPE_RANGE_PROFILER;
    p.pChipName = s->chip;
    p.pCounterAvailabilityImage = s->avail;
    *out = NULL;
    CUPTI_TRY(cuptiProfilerHostInitialize, &p);
    *out = p.pHostObject;
done:
    return st;
}

static void host_fini(CUpti_Profiler_Host_Object *h)
{
    if (!h)
        return;
    CUpti_Profiler_Host_Deinitialize_Params p = {.structSize = CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE};
    p.pHostObject = h;
    (void)cuptiProfilerHostDeinitialize(&p);
}

static CUptiResult host_add(CUpti_Profiler_Host_Object *h, const char **names, size_t n)
{
    CUpti_Profiler_Host_ConfigAddMetrics_Params p = {.structSize = CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE};
    p.pHostObject = h;
    p.ppMetricNames = names;
    p.numMetrics = n;
    return cuptiProfilerHostConfigAddMetrics(&p);
}

/* Schedule the table's metrics on a host object and build the config
 * image. A metric the chip does not know (CUPTI_ERROR_INVALID_METRIC_NAME)
 * is left out: its has[] stays false in every collection. */
static sl_status build_config(cupti_session *s)
{
    const phase ph = PHASE_OPEN;
    sl_status st = SL_OK;
    const char *cand[MAX_METRICS];
    int cand_id[MAX_METRICS];
    size_t n = 0;

    SL_TRY(host_init(s, &s->host));
    for (int i = 0; i < s->nwanted; i++) {
        CUpti_Profiler_Host_GetMetricProperties_Params p = {
            .structSize = CUpti_Profiler_Host_GetMetricProperties_Params_STRUCT_SIZE};
        p.pHostObject = s->host;
        p.pMetricName = s->wanted[i];
        CUptiResult r = cuptiProfilerHostGetMetricProperties(&p);
        if (r == CUPTI_ERROR_INVALID_METRIC_NAME)
            continue;
        if (r != CUPTI_SUCCESS) {
            st = cupti_fail(r, "cuptiProfilerHostGetMetricProperties", ph);
            goto done;
        }
        cand[n] = s->wanted[i];
        cand_id[n] = i;
        n++;
    }

    CUptiResult r = n ? host_add(s->host, cand, n) : CUPTI_ERROR_INVALID_METRIC_NAME;
    if (r == CUPTI_ERROR_INVALID_METRIC_NAME && n > 0) {
        /* The properties query accepted a name the scheduler refuses (a
         * rollup or submetric this chip lacks): find the ones it takes, one
         * per fresh host object, then schedule those together. */
        size_t keep = 0;
        host_fini(s->host);
        s->host = NULL;
        for (size_t k = 0; k < n; k++) {
            CUpti_Profiler_Host_Object *h = NULL;
            SL_TRY(host_init(s, &h));
            CUptiResult rk = host_add(h, &cand[k], 1);
            host_fini(h);
            if (rk == CUPTI_SUCCESS) {
                cand[keep] = cand[k];
                cand_id[keep] = cand_id[k];
                keep++;
            } else if (rk != CUPTI_ERROR_INVALID_METRIC_NAME) {
                st = cupti_fail(rk, "cuptiProfilerHostConfigAddMetrics", ph);
                goto done;
            }
        }
        n = keep;
        SL_TRY(host_init(s, &s->host));
        r = n ? host_add(s->host, cand, n) : CUPTI_ERROR_INVALID_METRIC_NAME;
    }
    if (n == 0) {
        st = sl_fail(SL_ERR_UNSUPPORTED, "CUPTI knows none of the %d counter metrics asked for on chip %s",
                     s->nwanted, s->chip);
        goto done;
    }
    if (r != CUPTI_SUCCESS) {
        st = cupti_fail(r, "cuptiProfilerHostConfigAddMetrics", ph);
        goto done;
    }
    for (size_t k = 0; k < n; k++) {
        s->names[k] = cand[k];
        s->ids[k] = cand_id[k];
    }
    s->nnames = n;

    CUpti_Profiler_Host_GetConfigImageSize_Params zp = {
        .structSize = CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE};
    zp.pHostObject = s->host;
    CUPTI_TRY(cuptiProfilerHostGetConfigImageSize, &zp);
    s->config = calloc(zp.configImageSize ? zp.configImageSize : 1, 1);
    if (!s->config) {
        st = sl_fail(SL_ERR_NO_MEMORY, "out of host memory for CUPTI's config image (%zu bytes)", zp.configImageSize);
        goto done;
    }
    s->config_size = zp.configImageSize;
    CUpti_Profiler_Host_GetConfigImage_Params gp = {.structSize = CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE};
    gp.pHostObject = s->host;
    gp.configImageSize = s->config_size;
    gp.pConfigImage = s->config;
    CUPTI_TRY(cuptiProfilerHostGetConfigImage, &gp);

    CUpti_Profiler_Host_GetNumOfPasses_Params np = {.structSize = CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE};
    np.configImageSize = s->config_size;
    np.pConfigImage = s->config;
    CUPTI_TRY(cuptiProfilerHostGetNumOfPasses, &np);
    s->passes = np.numOfPasses;
done:
    return st;
}

/* Size (and on first use allocate) the counter data image for one range
 * on an enabled range profiler, and reset it. */
static sl_status data_image(cupti_session *s, CUpti_RangeProfiler_Object *obj, phase ph, size_t *size)
{
    sl_status st = SL_OK;
    CUpti_RangeProfiler_GetCounterDataSize_Params zp = {
        .structSize = CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE};
    zp.pRangeProfilerObject = obj;
    zp.pMetricNames = s->names;
    zp.numMetrics = s->nnames;
    zp.maxNumOfRanges = 1;
    zp.maxNumRangeTreeNodes = 1;
    CUPTI_TRY(cuptiRangeProfilerGetCounterDataSize, &zp);
    if (zp.counterDataSize > s->data_cap) {
        uint8_t *d = realloc(s->data, zp.counterDataSize);
        if (!d) {
            st = sl_fail(SL_ERR_NO_MEMORY, "out of host memory for CUPTI's counter data image (%zu bytes)",
                         zp.counterDataSize);
            goto done;
        }
        s->data = d;
        s->data_cap = zp.counterDataSize;
    }
    memset(s->data, 0, zp.counterDataSize);
    CUpti_RangeProfiler_CounterDataImage_Initialize_Params ip = {
        .structSize = CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE};
    ip.pRangeProfilerObject = obj;
    ip.counterDataSize = zp.counterDataSize;
    ip.pCounterData = s->data;
    CUPTI_TRY(cuptiRangeProfilerCounterDataImageInitialize, &ip);
    *size = zp.counterDataSize;
done:
    return st;
}

static void disable(CUpti_RangeProfiler_Object *obj)
{
    CUpti_RangeProfiler_Disable_Params p = {.structSize = CUpti_RangeProfiler_Disable_Params_STRUCT_SIZE};
    p.pRangeProfilerObject = obj;
    (void)cuptiRangeProfilerDisable(&p);
}

/* Evict whatever earlier work left in L2, outside any range: read a buffer
 * twice the L2's size past L1 (ld.global.cg, the probe read kernel), which
 * writes back every dirty line and leaves L2 holding clean lines of the
 * scratch buffer, so the range neither hits on its inputs nor pays for
 * earlier writes. This stands in for Nsight Compute's cache flush
 * (--cache-control all), which CUPTI 13.0 offers no call for. */
static sl_status clear_l2(cupti_session *s)
{
    return s->ctx->ops->probe->read(s->ctx, s->scratch, s->scratch_words, 4, 4, 0, 1, 1, s->sum, NULL);
}

static void cupti_close(void *session);

static sl_status cupti_open(sl_ctx *ctx, const char *const *metrics, int nmetrics, void **out)
{
    const phase ph = PHASE_OPEN;
    sl_status st = SL_OK;
    int token = -1;
    bool bound = false;
    *out = NULL;
    if (nmetrics < 1 || nmetrics > MAX_METRICS)
        return sl_fail(SL_ERR_INVALID_ARG, "counters: %d metrics asked for (1 to %d)", nmetrics, MAX_METRICS);
    cupti_session *s = calloc(1, sizeof *s);
    if (!s)
        return sl_fail(SL_ERR_NO_MEMORY, "out of host memory for a counter session");
    s->ctx = ctx;
    s->wanted = metrics;
    s->nwanted = nmetrics;
    s->flush = true;

    SL_TRY(ctx->ops->bind(ctx, &token));
    bound = true;
    /* Any runtime call makes the device's primary context current on this
     * thread; the driver API then names it. */
    CUDA_TRY(cudaFree(NULL));
    ctx_get_device_fn get_device = NULL;
    SL_TRY(driver_fn("cuCtxGetCurrent", (void **)&s->get_current));
    SL_TRY(driver_fn("cuCtxGetDevice", (void **)&get_device));
    CUdevice dev = 0;
    if (s->get_current(&s->cu) != CUDA_SUCCESS || !s->cu || get_device(&dev) != CUDA_SUCCESS) {
        st = sl_fail(SL_ERR_CUDA, "no CUDA context is current after selecting device %d", ctx->info.device);
        goto done;
    }

    CUpti_Profiler_Initialize_Params ip = {.structSize = CUpti_Profiler_Initialize_Params_STRUCT_SIZE};
    CUPTI_TRY(cuptiProfilerInitialize, &ip);
    s->initialized = true;

    CUpti_Profiler_DeviceSupported_Params dp = {.structSize = CUpti_Profiler_DeviceSupported_Params_STRUCT_SIZE};
    dp.cuDevice = dev;
    dp.api = CUPTI_PROFILER_RANGE_PROFILING;
    CUPTI_TRY(cuptiProfilerDeviceSupported, &dp);
    if (dp.isSupported != CUPTI_PROFILER_CONFIGURATION_SUPPORTED) {
        st = device_unsupported(&dp, ctx);
        goto done;
    }

    CUpti_Device_GetChipName_Params cp = {.structSize = CUpti_Device_GetChipName_Params_STRUCT_SIZE};
    cp.deviceIndex = (size_t)ctx->info.device;
    CUPTI_TRY(cuptiDeviceGetChipName, &cp);
    if (!cp.pChipName || !cp.pChipName[0]) {
        st = sl_fail(SL_ERR_UNSUPPORTED, "CUPTI returned no chip name for %s", ctx->info.name);
        goto done;
    }
    snprintf(s->chip, sizeof s->chip, "%s", cp.pChipName);

    /* Which counters this context may use; the first call sizes the image.
     * A missing profiling permission fails here. */
    CUpti_Profiler_GetCounterAvailability_Params ap = {
        .structSize = CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE};
    ap.ctx = s->cu;
    CUPTI_TRY(cuptiProfilerGetCounterAvailability, &ap);
    s->avail = calloc(ap.counterAvailabilityImageSize ? ap.counterAvailabilityImageSize : 1, 1);
    if (!s->avail) {
        st = sl_fail(SL_ERR_NO_MEMORY, "out of host memory for CUPTI's counter availability image");
        goto done;
    }
    ap.pCounterAvailabilityImage = s->avail;
    CUPTI_TRY(cuptiProfilerGetCounterAvailability, &ap);

    SL_TRY(build_config(s));

    /* Prove the range profiler can be enabled on this context and sized
     * for our metrics now, rather than at the first collect. */
    {
        CUpti_RangeProfiler_Enable_Params ep = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
        ep.ctx = s->cu;
        CUPTI_TRY(cuptiRangeProfilerEnable, &ep);
        size_t size = 0;
        st = data_image(s, ep.pRangeProfilerObject, ph, &size);
        disable(ep.pRangeProfilerObject);
        if (st != SL_OK)
            goto done;
    }

    /* The L2-clearing buffer, allocated now so that it is taken before the
     * harness sizes its arrays to the memory left. */
    size_t l2 = ctx->info.l2_bytes ? ctx->info.l2_bytes : ((size_t)64 << 20);
    size_t bytes = (2 * l2 + 15) / 16 * 16;
    cudaError_t e = cudaMalloc(&s->scratch, bytes);
    if (e == cudaErrorMemoryAllocation) {
        (void)cudaGetLastError();
        s->scratch = NULL;
        st = sl_fail(SL_ERR_NO_MEMORY, "counters: no device memory for the %zu MB buffer that clears L2 between passes",
                     bytes >> 20);
        goto done;
    }
    CUDA_TRY(e);
    s->scratch_words = bytes / 4;
    CUDA_TRY(cudaMalloc((void **)&s->sum, SL_PROBE_SUM_WORDS * sizeof *s->sum));
    /* Initialised memory, so that the clearing reads are of defined data. */
    CUDA_TRY(cudaMemsetAsync(s->scratch, 0, bytes, (cudaStream_t)ctx->stream));
    CUDA_TRY(cudaMemsetAsync(s->sum, 0, SL_PROBE_SUM_WORDS * sizeof *s->sum, (cudaStream_t)ctx->stream));
    CUDA_TRY(cudaStreamSynchronize((cudaStream_t)ctx->stream));

done:
    if (bound)
        ctx->ops->unbind(token);
    if (st != SL_OK) {
        /* Cleanup must not replace the reason. */
        char why[1024];
        snprintf(why, sizeof why, "%s", sl_last_error());
        cupti_close(s);
        return sl_fail(st, "%s", why);
    }
    *out = s;
    return SL_OK;
}

static void cupti_set_flush(void *session, bool flush)
{
    ((cupti_session *)session)->flush = flush;
}

static sl_status cupti_collect(void *session, sl_counter_work_fn fn, void *user, double *out_values, bool *out_has,
                               int *out_passes)
{
    cupti_session *s = session;
    const phase ph = PHASE_COLLECT;
    sl_status st = SL_OK;
    int token = -1, pass = 0;
    bool bound = false, started = false, pushed = false;
    CUpti_RangeProfiler_Object *obj = NULL;
    double values[MAX_METRICS];
    for (int i = 0; i < s->nwanted; i++) {
        out_has[i] = false;
        out_values[i] = 0.0;
    }
    sl_ctx *ctx = s->ctx;

    SL_TRY(ctx->ops->bind(ctx, &token));
    bound = true;
    CUcontext cur = NULL;
    if (s->get_current(&cur) != CUDA_SUCCESS || cur != s->cu) {
        st = sl_fail(SL_ERR_CUDA, "the CUDA context of device %d changed since sl_counters_open (was the device reset?)",
                     ctx->info.device);
        goto done;
    }
    /* Earlier work finishes outside the range. */
    CUDA_TRY(cudaDeviceSynchronize());

    CUpti_RangeProfiler_Enable_Params ep = {.structSize = CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE};
    ep.ctx = s->cu;
    CUPTI_TRY(cuptiRangeProfilerEnable, &ep);
    obj = ep.pRangeProfilerObject;

    size_t data_size = 0;
    SL_TRY(data_image(s, obj, ph, &data_size));

    CUpti_RangeProfiler_SetConfig_Params cp = {.structSize = CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE};
    cp.pRangeProfilerObject = obj;
    cp.configSize = s->config_size;
    cp.pConfig = s->config;
    cp.counterDataImageSize = data_size;
    cp.pCounterDataImage = s->data;
    cp.range = CUPTI_UserRange;
    cp.replayMode = CUPTI_UserReplay;
    cp.maxRangesPerPass = 1;
    cp.numNestingLevels = 1;
    cp.minNestingLevel = 1;
    cp.passIndex = 0;
    cp.targetNestingLevel = 1;
    CUPTI_TRY(cuptiRangeProfilerSetConfig, &cp);

    /* One pass per iteration until CUPTI has scheduled every counter. The
     * cap guards against a CUPTI that never says it is done. */
    const int cap = (int)s->passes + 8;
    bool all = false;
    while (!all) {
        if (pass >= cap) {
            st = sl_fail(SL_ERR_CUDA, "CUPTI still wanted more passes after %d (the config image needs %zu)", pass,
                         s->passes);
            goto done;
        }
        if (s->flush)
            SL_TRY(clear_l2(s));
        CUDA_TRY(cudaDeviceSynchronize());

        CUpti_RangeProfiler_Start_Params sp = {.structSize = CUpti_RangeProfiler_Start_Params_STRUCT_SIZE};
        sp.pRangeProfilerObject = obj;
        CUPTI_TRY(cuptiRangeProfilerStart, &sp);
        started = true;
        CUpti_RangeProfiler_PushRange_Params pp = {.structSize = CUpti_RangeProfiler_PushRange_Params_STRUCT_SIZE};
        pp.pRangeProfilerObject = obj;
        pp.pRangeName = "streamlab";
        CUPTI_TRY(cuptiRangeProfilerPushRange, &pp);
        pushed = true;
        /* Whatever the push put in flight is done before fn's first launch,
         * on any stream. */
        CUDA_TRY(cudaDeviceSynchronize());

        SL_TRY(fn(user));
        /* All of fn's work, on whatever stream, completes inside the range. */
        CUDA_TRY(cudaDeviceSynchronize());

        CUpti_RangeProfiler_PopRange_Params op = {.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
        op.pRangeProfilerObject = obj;
        pushed = false;
        CUPTI_TRY(cuptiRangeProfilerPopRange, &op);
        CUpti_RangeProfiler_Stop_Params tp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        tp.pRangeProfilerObject = obj;
        started = false;
        CUPTI_TRY(cuptiRangeProfilerStop, &tp);
        all = tp.isAllPassSubmitted != 0;
        pass++;
    }

    CUpti_RangeProfiler_DecodeData_Params dp = {.structSize = CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE};
    dp.pRangeProfilerObject = obj;
    CUPTI_TRY(cuptiRangeProfilerDecodeData, &dp);
    if (dp.numOfRangeDropped > 0) {
        st = sl_fail(SL_ERR_CUDA, "CUPTI dropped %zu profiled range(s) while decoding", dp.numOfRangeDropped);
        goto done;
    }
    CUpti_RangeProfiler_GetCounterDataInfo_Params ip = {
        .structSize = CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE};
    ip.pCounterDataImage = s->data;
    ip.counterDataImageSize = data_size;
    CUPTI_TRY(cuptiRangeProfilerGetCounterDataInfo, &ip);
    if (ip.numTotalRanges != 1) {
        st = sl_fail(SL_ERR_CUDA, "CUPTI recorded %zu ranges where streamlab pushed one", ip.numTotalRanges);
        goto done;
    }

    CUpti_Profiler_Host_EvaluateToGpuValues_Params vp = {
        .structSize = CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE};
    vp.pHostObject = s->host;
    vp.pCounterDataImage = s->data;
    vp.counterDataImageSize = data_size;
    vp.rangeIndex = 0;
    vp.ppMetricNames = s->names;
    vp.numMetrics = s->nnames;
    vp.pMetricValues = values;
    CUPTI_TRY(cuptiProfilerHostEvaluateToGpuValues, &vp);

    for (size_t k = 0; k < s->nnames; k++) {
        out_values[s->ids[k]] = values[k];
        out_has[s->ids[k]] = isfinite(values[k]) && values[k] >= 0.0;
    }

done:
    /* Close what is open, quietly: the first failure is the one reported. */
    if (pushed) {
        CUpti_RangeProfiler_PopRange_Params op = {.structSize = CUpti_RangeProfiler_PopRange_Params_STRUCT_SIZE};
        op.pRangeProfilerObject = obj;
        (void)cuptiRangeProfilerPopRange(&op);
    }
    if (started) {
        CUpti_RangeProfiler_Stop_Params tp = {.structSize = CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE};
        tp.pRangeProfilerObject = obj;
        (void)cuptiRangeProfilerStop(&tp);
    }
    if (obj) {
        if (st != SL_OK)
            (void)cudaDeviceSynchronize();
        disable(obj);
    }
    if (st != SL_OK) {
        /* Never half-filled: nothing is reported from a failed collection. */
        for (int i = 0; i < s->nwanted; i++) {
            out_has[i] = false;
            out_values[i] = 0.0;
        }
    }
    *out_passes = pass;
    if (bound)
        ctx->ops->unbind(token);
    return st;
}

static void cupti_close(void *session)
{
    cupti_session *s = session;
    if (!s)
        return;
    /* Best effort, and sl_last_error() is left as the caller saw it. */
    char keep[1024];
    snprintf(keep, sizeof keep, "%s", sl_last_error());
    int token = -1;
    bool bound = false;
    if (s->scratch || s->sum) {
        bound = s->ctx->ops->bind(s->ctx, &token) == SL_OK;
        if (s->scratch)
            cudaFree(s->scratch);
        if (s->sum)
            cudaFree(s->sum);
        (void)cudaGetLastError();
    }
    host_fini(s->host);
    if (s->initialized) {
        CUpti_Profiler_DeInitialize_Params p = {.structSize = CUpti_Profiler_DeInitialize_Params_STRUCT_SIZE};
        (void)cuptiProfilerDeInitialize(&p);
    }
    if (bound)
        s->ctx->ops->unbind(token);
    free(s->avail);
    free(s->config);
    free(s->data);
    free(s);
    (void)sl_fail(SL_OK, "%s", keep);
}

const sl_counter_ops sl_cupti_counter_ops = {
    .open = cupti_open,
    .set_flush = cupti_set_flush,
    .collect = cupti_collect,
    .close = cupti_close,
};
