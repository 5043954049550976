/*
 * train_kern.h - the training kernels of `streamlab train` (src/train):
 * one table per backend, the CUDA one in train_cuda.cu (extern "C"
 * launchers), the CPU one (OpenMP) in train_cpu.c. mlp.c drives the model
 * through it and through the library's sl_gemm, sl_transpose, sl_softmax
 * and sl_axpy.
 *
 * Layout: every matrix is row-major and dense (leading dimension = cols),
 * f32; labels int32 in [0, cols). `rows` is the batch, `cols` the layer
 * width. Pointers are device memory of the context's GPU (CUDA table) or
 * host memory (CPU table). Every CUDA entry enqueues on `stream` (a
 * cudaStream_t) and returns without waiting; a launch error is returned
 * as -1 with the message in tk_last_error().
 *
 * Numerics: f32 arithmetic, expf / logf (accurate, not the __ intrinsics);
 * the loss and accuracy sums of a step are accumulated in double.
 * Not capturable in a graph: alloc, free, upload, download, zero, sync.
 */
#ifndef SL_TRAIN_KERN_H
#define SL_TRAIN_KERN_H

#include <stddef.h>
#include <stdint.h>

/* The transposed weight copies the fused SGD update keeps in step (so the
 * backward's dZ_l W_l^T needs no transpose launch): layer l's W (in x out,
 * at params + woff) mirrored as out x in at wt + wtoff. */
typedef struct tk_wt {
    int n;                 /* layers mirrored (0: none) */
    size_t woff[8], wtoff[8];
    int in[8], out[8];
    float *wt;
} tk_wt;

typedef struct tk_ops {
    const char *name; /* "cuda" or "cpu" */
    void *(*alloc)(size_t bytes);   /* NULL on failure; zero-filled */
    void (*free)(void *p);
    int (*upload)(void *dst, const void *src, size_t bytes, void *stream);   /* returns when done */
    int (*download)(void *dst, const void *src, size_t bytes, void *stream); /* returns when done */
    int (*zero)(void *p, size_t bytes, void *stream);
    int (*sync)(void *stream);
    /* xb[i, :] = x[r, :], yb[i] = y[r] for i < rows, where
     * r = perm[c + i] (perm may be NULL: r = c + i), c = base + (*cursor if
     * cursor else 0). The cursor lives in device memory so that a captured
     * graph reads the current batch's position at replay time. xbT (may be
     * NULL): also the transposed batch, xbT[j * rows + i] = xb[i, j]. */
    int (*gather)(const float *x, const int32_t *y, const int32_t *perm, const int32_t *cursor, int base, int rows,
                  int dim, float *xb, float *xbT, int32_t *yb, void *stream);
    /* unfused forward: z[i, j] += b[j]; then a = max(a, 0) over n elements (in place) */
    int (*bias_add)(float *z, const float *b, int rows, int cols, void *stream);
    int (*relu)(float *a, size_t n, void *stream);
    /* fused forward epilogue: z[i, j] = max(z[i, j] + b[j], 0) (relu = 1) or
     * z + b (relu = 0); zT (may be NULL): also zT[j * rows + i] = z[i, j],
     * the transposed activation the weight gradient needs */
    int (*bias_act)(float *z, const float *b, int rows, int cols, int relu, float *zT, void *stream);
    /* unfused loss: from probabilities p (sl_softmax's output):
     * loss_rows[i] = -log(max(p[i, y_i], FLT_MIN)), correct_rows[i] = 1 if the
     * first largest p[i, :] is at y_i, else 0 */
    int (*ce_loss)(const float *p, const int32_t *y, int rows, int cols, float *loss_rows, float *correct_rows,
                   void *stream);
    /* unfused reduction: stats[0] += sum loss_rows, stats[1] += sum correct_rows
     * (double); then *cursor += rows when cursor is not NULL */
    int (*row_stats)(const float *loss_rows, const float *correct_rows, int rows, double *stats, int32_t *cursor,
                     void *stream);
    /* unfused loss gradient: dz[i, j] = (p[i, j] - [j == y_i]) / rows (the mean loss's) */
    int (*ce_backward)(const float *p, const int32_t *y, int rows, int cols, float *dz, void *stream);
    /* fused: softmax of the logits z, cross-entropy and its gradient in one
     * pass per row (online max / sum; loss = log sum exp(z - m) - (z_y - m)):
     * stats[0] += sum of losses, stats[1] += correct count; dz as
     * ce_backward (skipped when dz is NULL, for evaluation). */
    int (*softmax_ce)(const float *z, const int32_t *y, int rows, int cols, float *dz, double *stats, void *stream);
    /* *cursor += rows (one thread) */
    int (*advance)(int32_t *cursor, int rows, void *stream);
    /* unfused backward: d[k] = a[k] > 0 ? d[k] : 0 (in place), n elements */
    int (*relu_backward)(float *d, const float *a, size_t n, void *stream);
    /* db[j] = sum_i dz[i, j] (f32, sequential over i) */
    int (*bias_grad)(const float *dz, int rows, int cols, float *db, void *stream);
    /* fused backward: the ReLU mask and the bias gradient in one pass:
     * d[i, j] = a[i, j] > 0 ? d[i, j] : 0 (in place), db[j] = sum_i d[i, j] */
    int (*relu_bias_grad)(float *d, const float *a, int rows, int cols, float *db, void *stream);
    /* fused SGD: p[k] = fma(-lr, g[k], p[k]) for k < n, every parameter in
     * one launch, and the mirrored weights of wt rewritten from the new
     * values */
    int (*sgd)(float *p, const float *g, size_t n, float lr, tk_wt wt, void *stream);
    /* CUDA graphs (NULL in the CPU table): capture everything enqueued on
     * stream between begin and end into *exec; replay with launch. */
    int (*graph_begin)(void *stream);
    int (*graph_end)(void *stream, void **exec);
    int (*graph_launch)(void *exec, void *stream);
    void (*graph_destroy)(void *exec);
    void *(*stream_create)(void);
    void (*stream_destroy)(void *stream);
    /* events (NULL in the CPU table): for the per-launch breakdown of a
     * captured step (event-record nodes between its kernels) */
    void *(*event_create)(void);
    int (*event_record)(void *ev, void *stream);
    double (*event_us)(void *from, void *to); /* elapsed, after a synchronisation */
    void (*event_destroy)(void *ev);
} tk_ops;

const tk_ops *tk_cpu_ops(void);
#ifdef SL_HAVE_CUDA
#ifdef __cplusplus
extern "C" {
#endif
const tk_ops *tk_cuda_ops(void);
const char *tk_cuda_last_error(void);
/* cuBLAS for --gemm cublas: row-major C (m x n) = op(A) op(B), alpha 1,
 * beta 0, through cublasSgemm on the column-major transposes; ta/tb 1 =
 * transposed. */
int tk_cublas_create(void **handle);
void tk_cublas_destroy(void *handle);
int tk_cublas_gemm(void *handle, void *stream, int ta, int tb, int m, int n, int k, const float *A, int lda,
                   const float *B, int ldb, float *C, int ldc);
#ifdef __cplusplus
}
#endif
#endif
const char *tk_last_error(void);

#endif
