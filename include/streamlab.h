/*
 * streamlab.h - the public C API of streamlab.
 *
 * streamlab exposes the fastest verified kernel of each memory-bound op it
 * benchmarks. Every function returns an sl_status; sl_status_string() names
 * it and sl_last_error() gives the detail (file, line, CUDA error) of the
 * most recent failure on the calling thread.
 *
 * Ownership: the library owns an sl_ctx from sl_ctx_create() until
 * sl_ctx_destroy(). It never owns, frees or retains the data pointers you
 * pass to an op; they must stay valid until the op completes (on the stream
 * you passed, for a CUDA context).
 *
 * Thread safety: one sl_ctx may be used from one thread at a time.
 * Different contexts may be used concurrently.
 *
 * C11. No CUDA header is needed to use this file: streams are passed as
 * void * (a cudaStream_t, or NULL for the legacy default stream).
 */
#ifndef STREAMLAB_H
#define STREAMLAB_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SL_VERSION_MAJOR 0
#define SL_VERSION_MINOR 2
#define SL_VERSION_PATCH 0
#define SL_VERSION_STRING "0.2.0"

/* Status codes. SL_OK is 0; every error is non-zero. */
typedef enum sl_status {
    SL_OK = 0,
    SL_ERR_INVALID_ARG,   /* NULL context or pointer, bad enum value, size overflow */
    SL_ERR_MISALIGNED,    /* a data pointer is not aligned to its element size */
    SL_ERR_OVERLAP,       /* output partially overlaps an input (exact aliasing is allowed) */
    SL_ERR_UNSUPPORTED,   /* dtype or op not (yet) supported by this backend */
    SL_ERR_NO_MEMORY,     /* an allocation failed (host or device) */
    SL_ERR_NO_DEVICE,     /* no CUDA device, or a CPU-only build */
    SL_ERR_BAD_DEVICE,    /* device index out of range */
    SL_ERR_BAD_POINTER,   /* pointer not accessible by the context's device */
    SL_ERR_CUDA,          /* a CUDA runtime call failed; the context is still usable */
    SL_ERR_CUDA_FAULT,    /* a sticky CUDA error (e.g. illegal address): the context is lost */
    SL_ERR_VERIFY,        /* a result differed from the CPU reference */
    SL_ERR_IO,            /* a file could not be written or read */
    SL_ERR_INTERRUPTED,   /* stopped by a signal */
    SL_ERR_INTERNAL       /* a bug in streamlab; please report it */
} sl_status;

/* Element types (storage). Sizes are sl_dtype_size(). Elementwise
 * arithmetic is done in fp32 for f32, f16, bf16 and the fp8 types, and in
 * fp64 for f64: inputs are widened exactly, the result is rounded to
 * nearest-even on the store; fp8 stores saturate to the largest finite
 * value (+-448 for e4m3, +-57344 for e5m2) as cuda_fp8.h's __NV_SATFINITE
 * does, and NaN stays NaN. Each op's doc block says which dtypes it offers.
 * Sources: IEEE 754-2008 binary32, binary64 and binary16 (f16); bfloat16
 * is the top half of an fp32; OCP 8-bit Floating Point Specification
 * (OFP8) rev 1.0 (e4m3 is the "FN" variant: no infinities). */
typedef enum sl_dtype {
    SL_F32 = 0,
    SL_F16,
    SL_BF16,
    SL_FP8_E4M3,
    SL_FP8_E5M2,
    SL_F64,
    SL_DTYPE_COUNT
} sl_dtype;

/* Which hardware a context drives. */
typedef enum sl_backend {
    SL_BACKEND_CPU = 0,   /* OpenMP threads on the host */
    SL_BACKEND_CUDA = 1   /* one CUDA device */
} sl_backend;

/* Device selectors for sl_ctx_create(). Non-negative values are CUDA
 * device indices as the CUDA runtime numbers them. */
#define SL_DEVICE_CPU  (-1)  /* the OpenMP backend */
#define SL_DEVICE_AUTO (-2)  /* CUDA device 0 if present, else the CPU */

typedef struct sl_ctx sl_ctx;

/* What a context knows about its device. Unknown values are 0 (numbers)
 * or -1 (clocks read through NVML). */
typedef struct sl_device_info {
    sl_backend backend;
    int device;                 /* CUDA index, or SL_DEVICE_CPU */
    char name[128];             /* "NVIDIA H200", or the CPU model name */
    int cc_major, cc_minor;     /* compute capability; 0.0 on the CPU */
    int sm_count;               /* SMs, or OpenMP threads on the CPU */
    int max_threads_per_sm;
    int max_blocks_per_sm;
    int regs_per_sm;
    size_t smem_per_sm;         /* bytes */
    size_t l2_bytes;            /* L2 (GPU) or last-level cache (CPU), bytes */
    size_t mem_total, mem_free; /* device (or host) memory, bytes */
    int mem_clock_khz;          /* cudaDevAttrMemoryClockRate */
    int bus_width_bits;         /* cudaDevAttrGlobalMemoryBusWidth */
    int sm_clock_khz;           /* cudaDevAttrClockRate (maximum boost) */
    double peak_gbs;            /* mem_clock x bus width x 2 (DDR), 1e9 B/s; 0 on the CPU (unknown) */
    int nvml_sm_clock_mhz;      /* current SM clock (NVML), -1 if unavailable */
    int nvml_mem_clock_mhz;     /* current memory clock (NVML), -1 if unavailable */
    int nvml_power_mw;          /* current board power (NVML), -1 if unavailable */
    int ecc_enabled;            /* 1, 0, or -1 if unknown */
    char uuid[48];              /* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" as nvidia-smi prints it
                                   (cudaDeviceProp.uuid); "" on the CPU */
} sl_device_info;

/* sl_status_string: a short constant English name for a status
 * ("misaligned pointer"). Never NULL; unknown values give "unknown status". */
const char *sl_status_string(sl_status s);

/* sl_last_error: the detailed message of the most recent failing call on
 * this thread (which check failed, the CUDA error name, file:line), or ""
 * if none failed yet. The string is thread-local and valid until the next
 * failing call on this thread. */
const char *sl_last_error(void);

/* sl_dtype_size: storage bytes per element (4, 2, 2, 1, 1, 8 in enum
 * order), 0 for an invalid value. */
size_t sl_dtype_size(sl_dtype dt);

/* sl_dtype_name: "f32", "f16", "bf16", "fp8e4m3", "fp8e5m2", "f64", or NULL. */
const char *sl_dtype_name(sl_dtype dt);

/* sl_ctx_create: open a context on `device` (a CUDA index >= 0,
 * SL_DEVICE_CPU or SL_DEVICE_AUTO) and store it in *out.
 * With SL_DEVICE_AUTO a CUDA build that finds no GPU, or cannot open GPU 0,
 * returns a CPU context; sl_ctx_info() tells which one you got.
 * A CUDA context's device becomes current on the calling thread (as
 * cudaSetDevice would); later calls with the context switch to its device
 * for their duration and restore the caller's, from any thread.
 * Errors: SL_ERR_INVALID_ARG (out is NULL), SL_ERR_NO_DEVICE (a CUDA index
 * was asked for but the build has no CUDA or no GPU is present),
 * SL_ERR_BAD_DEVICE (index >= device count), SL_ERR_NO_MEMORY,
 * SL_ERR_CUDA. On error *out is set to NULL.
 * The caller owns the context and frees it with sl_ctx_destroy(). */
sl_status sl_ctx_create(int device, sl_ctx **out);

/* sl_ctx_destroy: free a context. NULL is a no-op. Does not reset the
 * device or free memory the caller allocated. */
void sl_ctx_destroy(sl_ctx *ctx);

/* sl_ctx_info: copy the context's device description into *out.
 * Clocks read through NVML are sampled now, on every call.
 * Errors: SL_ERR_INVALID_ARG (NULL argument). */
sl_status sl_ctx_info(const sl_ctx *ctx, sl_device_info *out);

/* How a CUDA context checks the pointers passed to the ops (issue 17).
 * The check asks the CUDA runtime what a pointer is
 * (cudaPointerGetAttributes: device memory of the context's device, or
 * memory the GPU can read) and answers SL_ERR_BAD_POINTER otherwise; one
 * query cost 75 ns on the H200 host we measured, three per sl_add call
 * (bench/results/h200-alignment-2026-11-23.md).
 *   SL_POINTER_CHECKS_FIRST_USE (the default): a pointer is queried the
 *     first time the context sees it; the context then remembers the last
 *     16 pointers that passed and does not ask again for them. Risk: if
 *     such memory is freed and the same address is passed again (a use
 *     after free, or an address the allocator gave to another device),
 *     the call is not refused: the kernel faults (SL_ERR_CUDA_FAULT on a
 *     later synchronisation, and the CUDA context is unusable after a
 *     fault) or reads another device's memory over the peer link.
 *   SL_POINTER_CHECKS_EVERY_CALL: query every pointer on every call (the
 *     behaviour before issue 17).
 *   SL_POINTER_CHECKS_OFF: no query at all; the risk above for every
 *     pointer, host pointers included.
 * NULL, alignment, overlap and dtype checks stay on in every mode. No
 * effect on a CPU context. */
typedef enum sl_pointer_checks {
    SL_POINTER_CHECKS_OFF = 0,
    SL_POINTER_CHECKS_EVERY_CALL = 1,
    SL_POINTER_CHECKS_FIRST_USE = 2
} sl_pointer_checks;

/* sl_ctx_set_pointer_checks: choose the mode above for ctx (and forget
 * the pointers it remembered). Thread-safe against calls using ctx.
 * Errors: SL_ERR_INVALID_ARG (ctx is NULL, or mode not one of the three). */
sl_status sl_ctx_set_pointer_checks(sl_ctx *ctx, sl_pointer_checks mode);

/* The ops: one function each, sl_<op>(), declared in streamlab_ops.h,
 * which the build generates from each op's src/ops/<op>/api.h in the
 * order of src/ops/ops.def; that file is the list (`streamlab list` prints
 * it too). Every one of them shares this contract, except where its own
 * doc block says otherwise:
 *   - ctx: a context from sl_ctx_create(); pointers are device (or managed)
 *     memory of the context's device for a CUDA context, host memory for a
 *     CPU context.
 *   - n may be any value from 0 (a no-op that accepts NULL pointers) up to
 *     what fits in memory, including n >= 2^31. A reduction still writes
 *     its one-element result for n = 0 (sl_dot: 0), so that pointer must
 *     be valid.
 *   - Alignment: each pointer must be aligned to its element size; nothing
 *     more is required.
 *   - Aliasing: an output may be exactly one of the inputs (the same start
 *     and length), unless the op says it may not (sl_dot's result,
 *     sl_transpose, sl_gemm, sl_stencil2d); any other overlap of an output
 *     with another buffer is SL_ERR_OVERLAP. Inputs may overlap each other
 *     freely.
 *   - Stream: for a CUDA context the work is enqueued on `stream` (a
 *     cudaStream_t, NULL for the default stream) and the call returns
 *     without waiting; errors of the kernel itself surface on later
 *     synchronisation. For a CPU context `stream` is ignored and the call
 *     is synchronous.
 *   - Errors: SL_ERR_INVALID_ARG (NULL ctx, NULL pointer with n > 0,
 *     n x size overflows, dtype not an sl_dtype, a bad shape or
 *     parameter), SL_ERR_UNSUPPORTED (a dtype the op does not offer),
 *     SL_ERR_MISALIGNED, SL_ERR_OVERLAP, SL_ERR_BAD_POINTER (host memory
 *     passed to a CUDA context), SL_ERR_CUDA / SL_ERR_CUDA_FAULT (the
 *     launch failed).
 *   - Order: a call with several faults reports the first of, in this
 *     order: (1) ctx NULL; (2) dtype not an sl_dtype, then not offered;
 *     (3) the shape and the op's other parameters (sizes that overflow,
 *     leading dimensions, sl_stencil2d's radius, sl_gemm's trans); (4) a
 *     NULL pointer, (5) a misaligned pointer, (6) an overlap, (7) a
 *     pointer the context cannot use, each of (4)-(7) in argument order;
 *     then (8) the launch. n = 0 returns after (3).
 * The kernel behind each is its op's registry entry marked `api`
 * (`streamlab list`), chosen from the measurements in docs/ladder.md. */
#include "streamlab_ops.h"

#ifdef __cplusplus
}
#endif

#endif /* STREAMLAB_H */
