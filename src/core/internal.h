/*
 * internal.h - what the core, the backends and the CLI share but users
 * never see: the context layout, the backend operations table and the
 * error-recording helpers. Included from C11 and from CUDA C (.cu) files.
 */
#ifndef SL_INTERNAL_H
#define SL_INTERNAL_H

#include "streamlab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record a failure for sl_last_error() and return `s`, printf-style. */
sl_status sl_fail(sl_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Replace the file at path with text (plus a final newline if it lacks
 * one): write path.tmp, then rename.
 * SL_ERR_IO with the path and errno's message on failure. */
sl_status sl_write_atomic(const char *path, const char *text);

/* The whole file, NUL-terminated, in a malloc'd buffer (the caller frees),
 * its length in *len; NULL with errno set if it cannot be read. */
char *sl_read_file(const char *path, size_t *len);

/* The sl_dtype named s ("f32", "bf16", "fp8e4m3", ...: sl_dtype_name's
 * spelling), or -1. */
int sl_dtype_from_name(const char *s);

/* Operations the harness needs from a backend. Every pointer is a buffer of
 * the backend's own memory (device memory for CUDA, host memory for the
 * CPU). Functions that enqueue work use the context's stream and do not
 * wait unless they say so. */
typedef struct sl_backend_ops {
    const char *name;
    sl_status (*alloc)(sl_ctx *ctx, size_t bytes, void **out);
    void (*free)(sl_ctx *ctx, void *p);
    /* Fill p[0..n) with sl_rand_value(dtype, seed, i) (see rng.h). */
    sl_status (*fill_random)(sl_ctx *ctx, sl_dtype dt, void *p, size_t n, uint64_t seed);
    /* Set every byte to 0xFF, a NaN pattern in every float format we use,
     * so an element the kernel never wrote cannot match the reference. */
    sl_status (*poison)(sl_ctx *ctx, void *p, size_t bytes);
    /* Copy bytes to host memory; waits. */
    sl_status (*download)(sl_ctx *ctx, void *host, const void *src, size_t bytes);
    /* Copy bytes from host memory; waits. */
    sl_status (*upload)(sl_ctx *ctx, void *dst, const void *host, size_t bytes);
    /* Evict the data caches (L2 on a GPU), outside any timed region. */
    sl_status (*flush_cache)(sl_ctx *ctx);
    /* Timed region: start, enqueue work, stop. stop waits and returns ms. */
    sl_status (*timer_start)(sl_ctx *ctx);
    sl_status (*timer_stop)(sl_ctx *ctx, double *ms);
    sl_status (*sync)(sl_ctx *ctx);
    /* Free memory that a new allocation could take, bytes. */
    size_t (*mem_available)(sl_ctx *ctx);
    /* SL_OK if p can be read by this context's device. */
    sl_status (*check_pointer)(const sl_ctx *ctx, const void *p);
    /* Test hook: make the next launch fail the way a real fault would
     * (a sticky illegal-address error on CUDA, an error status on the CPU). */
    sl_status (*inject_fault)(sl_ctx *ctx);
    /* Re-read clocks and power (NVML on CUDA). */
    void (*refresh_info)(sl_ctx *ctx);
    /* Make the context's device current on this thread for one public call;
     * *token remembers what to restore. unbind restores it. */
    sl_status (*bind)(const sl_ctx *ctx, int *token);
    void (*unbind)(int token);
} sl_backend_ops;

struct sl_ctx {
    sl_device_info info;
    char fallback_reason[256]; /* SL_DEVICE_AUTO chose the CPU: why */
    const sl_backend_ops *ops;
    void *stream;  /* the harness's stream (cudaStream_t), NULL on the CPU */
    void *state;   /* backend-private */
};

extern const sl_backend_ops sl_cpu_ops;
sl_status sl_cpu_ctx_init(sl_ctx *ctx);

#ifdef SL_HAVE_CUDA
extern const sl_backend_ops sl_cuda_ops;
/* Number of usable CUDA devices; 0 (and SL_OK) when there is no driver or
 * no GPU, so a CUDA build still runs on a machine without one. */
sl_status sl_cuda_device_count(int *count, char *why, size_t why_len);
sl_status sl_cuda_ctx_init(sl_ctx *ctx, int device);
void sl_cuda_ctx_fini(sl_ctx *ctx);
#endif

/* Validate the arguments of an elementwise op with two inputs and one
 * output, c = f(a, b): NULL, element alignment, size overflow, and overlap
 * of c with an input other than exact aliasing. fn names the caller in
 * the message ("sl_add"); names gives the three pointers' names ("abc",
 * or "xyy" for axpy, whose y is both b and c). */
sl_status sl_check_binary_args(const sl_ctx *ctx, const char *fn, const char *names, sl_dtype dt, size_t n,
                               const void *a, const void *b, const void *c);

#ifdef __cplusplus
}
#endif

#endif /* SL_INTERNAL_H */
