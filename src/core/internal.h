/*
 * internal.h - what the core, the backends, the ops, the lab and the CLI
 * share but users never see: the context layout, the backend operations
 * table (the only way the core and the lab reach a backend) and the
 * error-recording helpers. Included from C11 and from CUDA C (.cu) files.
 */
#ifndef SL_INTERNAL_H
#define SL_INTERNAL_H

#include "op.h"
#include "streamlab.h"
#include "env_record.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Record a failure for sl_last_error() and return `s`, printf-style. */
sl_status sl_fail(sl_status s, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* ---- files --------------------------------------------------------------- */

/* The most sl_read_file reads: 64 MiB (profiles and hardware descriptions
 * are a few KiB; a larger file is a mistake, not an input). */
#define SL_READ_MAX ((uint64_t)64 << 20)

/* The whole of a regular file, NUL-terminated, in a malloc'd buffer (the
 * caller frees), its length in *len; NULL with errno set if it cannot be
 * read: EISDIR for a directory, EINVAL for anything else that is not a
 * regular file (a device, a FIFO), EFBIG past SL_READ_MAX. */
char *sl_read_file(const char *path, size_t *len);
/* A one-phrase reason for sl_read_file's errno ("it is a directory"). */
const char *sl_read_error(int err);

/* An output file, checked before anything is written to it. Regular files
 * (new, existing, or the target of a symbolic link, which stays a link)
 * are replaced atomically; character devices, FIFOs and "-" (standard
 * output) are written in place; anything else (a directory, a dangling
 * link, a FIFO with no reader, a block device, a socket) is refused with
 * the reason. Nothing that is not a regular file is ever replaced. */
typedef enum sl_output_kind { SL_OUT_REGULAR = 0, SL_OUT_STREAM } sl_output_kind;

typedef struct sl_output {
    char path[4096];   /* as given */
    char target[4096]; /* the file written: absolute, the link resolved */
    sl_output_kind kind;
    int fd;            /* a stream's descriptor; -1 otherwise */
    bool is_stdout, via_link, exists, written;
    unsigned long long dev, ino; /* of an existing target */
    unsigned mode;     /* an existing regular file's permissions, kept */
} sl_output;

/* Check path and prepare it (a FIFO or device is opened now). An existing
 * regular file is replaced only if it is empty or its first 4 KiB contain
 * `ours` (a marker of the file streamlab writes there, e.g. "streamlab.";
 * NULL: no check), so a file that is not ours is never lost. SL_ERR_IO
 * with "cannot write PATH: reason". */
sl_status sl_output_open(sl_output *o, const char *path, const char *ours);
/* Whether two outputs would write the same file ("-" twice included). */
bool sl_output_same(const sl_output *a, const sl_output *b);
/* The whole text: a regular file is replaced atomically (a temporary file
 * in the same directory, then rename; its permissions kept); a stream gets
 * the text written in place (call it once, at the end). A final newline is
 * added if missing. */
sl_status sl_output_replace(sl_output *o, const char *text);
/* A FILE to write as one goes (CSV rows, a probe's tables): a regular file
 * opened in place and truncated, or the stream; NULL with the reason. */
FILE *sl_output_stream(sl_output *o);
void sl_output_close(sl_output *o);

/* The descriptor "-" writes to (default STDOUT_FILENO): the CLI gives the
 * data its own copy of standard output when it sends the tables to
 * standard error (cli_data_to_stdout). */
void sl_output_set_stdout_fd(int fd);

/* sl_output_open + sl_output_replace + close, for a one-shot document. */
sl_status sl_write_atomic(const char *path, const char *text, const char *ours);

/* The sl_dtype named s ("f32", "bf16", "fp8e4m3", ...: sl_dtype_name's
 * spelling), or -1. */
int sl_dtype_from_name(const char *s);

/* "f32, f64, f16, bf16, fp8e4m3, fp8e5m2" */
const char *sl_dtype_all_names(void);

/* Operations the harness needs from a backend. Every pointer is a buffer of
 * the backend's own memory (device memory for CUDA, host memory for the
 * CPU). Functions that enqueue work use the context's stream and do not
 * wait unless they say so. */
typedef struct sl_backend_ops {
    const char *name;
    sl_status (*alloc)(sl_ctx *ctx, size_t bytes, void **out);
    void (*free)(sl_ctx *ctx, void *p);
    /* Fill p[0..n) with element i of the stream named by seed, in dtype
     * (rng.h: sl_rand_f32 rounded to dt, or sl_rand_f64 for f64). */
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
    /* The reproducibility record (env_record.h); NULL where the backend has
     * none to give (the CPU). */
    void (*env_static)(sl_ctx *ctx, sl_env_static *out);
    void (*env_sample)(sl_ctx *ctx, sl_env_sample *out);
    /* Make the context's device current on this thread for one public call;
     * *token remembers what to restore. unbind restores it. */
    sl_status (*bind)(const sl_ctx *ctx, int *token);
    void (*unbind)(int token);
    /* Scratch of at least `bytes` owned by the context (grown on demand,
     * freed with it), zeroed when first handed out or grown; *out NULL for
     * bytes = 0. Variants that need it say so (sl_variant.workspace). The
     * one buffer serves every call on the context: calls on different
     * streams must be ordered by the caller. */
    sl_status (*workspace)(sl_ctx *ctx, size_t bytes, void **out);
    /* Set `bytes` of backend memory to zero; enqueued, does not wait. */
    sl_status (*zero)(sl_ctx *ctx, void *p, size_t bytes);
    /* Release the backend's state (context teardown). */
    void (*fini)(sl_ctx *ctx);
    /* The probe primitives (probe_ops.h) and the hardware-counter
     * interface (counter_ops.h); NULL where the backend has none. */
    const struct sl_probe_ops *probe;
    const struct sl_counter_ops *counters;
} sl_backend_ops;

struct sl_ctx {
    sl_device_info info;
    char fallback_reason[256]; /* SL_DEVICE_AUTO chose the CPU: why */
    const sl_backend_ops *ops;
    void *stream;  /* the harness's stream (cudaStream_t), NULL on the CPU */
    void *state;   /* backend-private */
    /* sl_ctx_set_pointer_checks: the mode (an sl_pointer_checks; set to
     * SL_POINTER_CHECKS_FIRST_USE by sl_ctx_create) and the pointers that
     * passed (a ring; read and written with atomics). */
    int pointer_checks;
#define SL_PTR_MEMO 16
    const void *ptr_memo[SL_PTR_MEMO];
    unsigned ptr_memo_next;
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

/* The public entry point of every op (each op's sl_<op>() calls it):
 * checks the arguments against the op's descriptor, then runs the op's
 * SL_KIND_API variant for the context's backend on the context's device.
 * ptrs[] are the op's buffers in descriptor order, scalars[] its scalars.
 * Checks, in order: ctx not NULL; dtype an sl_dtype and offered by the op
 * (SL_ERR_INVALID_ARG, SL_ERR_UNSUPPORTED); for n > 0: no NULL pointer,
 * n x size fits in size_t (SL_ERR_INVALID_ARG), every pointer aligned to
 * its element (SL_ERR_MISALIGNED), no written buffer overlapping another
 * buffer unless both start at the same address and span the same bytes
 * (SL_ERR_OVERLAP; inputs may overlap each other freely); then every
 * pointer accessible by the device (SL_ERR_BAD_POINTER). n = 0 is a no-op
 * that accepts NULL pointers. */
sl_status sl_op_call(sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, size_t n, void *const *ptrs,
                     const double *scalars, void *stream);

/* sl_op_call for any shape (a 2-D op's public function builds its shape:
 * rows x cols, ld, and matmul's k). The same checks, with each buffer's
 * extent from sl_op_buf_elems (a buffer spans (rows - 1) x ld + cols
 * elements unless the op says otherwise); also shape NULL, rows x cols
 * overflowing, ld < cols (SL_ERR_INVALID_ARG), and, for an op with
 * no_inplace, an output equal to an input (SL_ERR_OVERLAP). rows x cols =
 * 0 is a no-op. sl_op_call(n) is this with the 1-D shape {1, n, n}. */
sl_status sl_op_call_shape(sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, const sl_shape *shape,
                           void *const *ptrs, const double *scalars, void *stream);

/* What a public function adds to sl_op_call_shape: buffers it stores in
 * f32 beyond the descriptor's (f32_bufs: (1u << k) for buffer k; a norm's
 * f32 weights), and scratch of its caller's (workspace, workspace_bytes:
 * at least sl_variant_workspace of the api variant, else
 * SL_ERR_INVALID_ARG; NULL: the context's buffer, grown on first use). */
typedef struct sl_call_opts {
    unsigned f32_bufs;
    void *workspace;
    size_t workspace_bytes;
} sl_call_opts;

/* sl_op_call_shape with opts (NULL: none). */
sl_status sl_op_call_opts(sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, const sl_shape *shape,
                          void *const *ptrs, const double *scalars, const sl_call_opts *opts, void *stream);

#ifdef __cplusplus
}
#endif

#endif /* SL_INTERNAL_H */
