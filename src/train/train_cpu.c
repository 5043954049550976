/*
 * train_cpu.c - the CPU table of the training kernels (train_kern.h):
 * the same steps as train_cuda.cu on host memory, parallel over rows (or
 * columns, for the bias gradients) with OpenMP. Synchronous: `stream` is
 * ignored.
 */
#include "train_kern.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void *h_alloc(size_t bytes) { return calloc(1, bytes ? bytes : 16); }
static void h_free(void *p) { free(p); }
static int h_copy(void *d, const void *s, size_t n, void *st)
{
    (void)st;
    memcpy(d, s, n);
    return 0;
}
static int h_zero(void *p, size_t n, void *st)
{
    (void)st;
    memset(p, 0, n);
    return 0;
}
static int h_sync(void *st)
{
    (void)st;
    return 0;
}

static int h_gather(const float *x, const int32_t *y, const int32_t *perm, const int32_t *cursor, int base, int rows,
                    int dim, float *xb, float *xbT, int32_t *yb, void *st)
{
    (void)st;
    const int c = base + (cursor ? *cursor : 0);
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++) {
        const int r = perm ? perm[c + i] : c + i;
        memcpy(xb + (size_t)i * dim, x + (size_t)r * dim, (size_t)dim * sizeof(float));
        if (xbT)
            for (int j = 0; j < dim; j++)
                xbT[(size_t)j * rows + i] = x[(size_t)r * dim + j];
        yb[i] = y[r];
    }
    return 0;
}

static int h_bias_add(float *z, const float *b, int rows, int cols, void *st)
{
    (void)st;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++)
            z[(size_t)i * cols + j] += b[j];
    return 0;
}

static int h_relu(float *a, size_t n, void *st)
{
    (void)st;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++)
        a[k] = fmaxf(a[k], 0.0f);
    return 0;
}

static int h_bias_act(float *z, const float *b, int rows, int cols, int relu, float *zT, void *st)
{
    (void)st;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            float v = z[(size_t)i * cols + j] + b[j];
            v = relu ? fmaxf(v, 0.0f) : v;
            z[(size_t)i * cols + j] = v;
            if (zT)
                zT[(size_t)j * rows + i] = v;
        }
    return 0;
}

static int h_sgd(float *p, const float *g, size_t n, float lr, tk_wt wt, void *st)
{
    (void)st;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++)
        p[k] = fmaf(-lr, g[k], p[k]);
    for (int l = 0; l < wt.n; l++) {
        const int in = wt.in[l], out = wt.out[l];
        const float *w = p + wt.woff[l];
        float *t = wt.wt + wt.wtoff[l];
#pragma omp parallel for schedule(static)
        for (int i = 0; i < in; i++)
            for (int j = 0; j < out; j++)
                t[(size_t)j * in + i] = w[(size_t)i * out + j];
    }
    return 0;
}

/* The first index of the row's largest value (the predicted class). */
static int row_argmax(const float *r, int cols)
{
    int best = 0;
    for (int j = 1; j < cols; j++)
        if (r[j] > r[best])
            best = j;
    return best;
}

static int h_ce_loss(const float *p, const int32_t *y, int rows, int cols, float *loss, float *correct, void *st)
{
    (void)st;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++) {
        const float *pr = p + (size_t)i * cols;
        const int best = row_argmax(pr, cols);
        loss[i] = -logf(fmaxf(pr[y[i]], FLT_MIN));
        correct[i] = best == y[i] ? 1.0f : 0.0f;
    }
    return 0;
}

static int h_row_stats(const float *loss, const float *correct, int rows, double *stats, int32_t *cursor, void *st)
{
    (void)st;
    double a = 0, c = 0;
    for (int i = 0; i < rows; i++) {
        a += loss[i];
        c += correct[i];
    }
    stats[0] += a;
    stats[1] += c;
    if (cursor)
        *cursor += rows;
    return 0;
}

static int h_ce_backward(const float *p, const int32_t *y, int rows, int cols, float *dz, void *st)
{
    (void)st;
    const float inv = 1.0f / (float)rows;
#pragma omp parallel for schedule(static)
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            size_t k = (size_t)i * cols + j;
            dz[k] = (p[k] - (j == y[i] ? 1.0f : 0.0f)) * inv;
        }
    return 0;
}

static int h_softmax_ce(const float *z, const int32_t *y, int rows, int cols, float *dz, double *stats, void *st)
{
    (void)st;
    double a = 0, c = 0;
#pragma omp parallel for schedule(static) reduction(+ : a, c)
    for (int i = 0; i < rows; i++) {
        const float *zr = z + (size_t)i * cols;
        const int arg = row_argmax(zr, cols);
        const float m = zr[arg];
        float s = 0;
        for (int j = 0; j < cols; j++)
            s += expf(zr[j] - m);
        if (dz) {
            const float inv_s = 1.0f / s, inv_n = 1.0f / (float)rows;
            for (int j = 0; j < cols; j++)
                dz[(size_t)i * cols + j] = (expf(zr[j] - m) * inv_s - (j == y[i] ? 1.0f : 0.0f)) * inv_n;
        }
        a += (double)(logf(s) - (zr[y[i]] - m));
        c += arg == y[i] ? 1.0 : 0.0;
    }
    stats[0] += a;
    stats[1] += c;
    return 0;
}

static int h_advance(int32_t *cursor, int rows, void *st)
{
    (void)st;
    *cursor += rows;
    return 0;
}

static int h_relu_backward(float *d, const float *a, size_t n, void *st)
{
    (void)st;
#pragma omp parallel for schedule(static)
    for (size_t k = 0; k < n; k++)
        d[k] = a[k] > 0.0f ? d[k] : 0.0f;
    return 0;
}

static int h_bias_grad(const float *dz, int rows, int cols, float *db, void *st)
{
    (void)st;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < cols; j++) {
        float s = 0;
        for (int i = 0; i < rows; i++)
            s += dz[(size_t)i * cols + j];
        db[j] = s;
    }
    return 0;
}

static int h_relu_bias_grad(float *d, const float *a, int rows, int cols, float *db, void *st)
{
    (void)st;
#pragma omp parallel for schedule(static)
    for (int j = 0; j < cols; j++) {
        float s = 0;
        for (int i = 0; i < rows; i++) {
            size_t k = (size_t)i * cols + j;
            float v = a[k] > 0.0f ? d[k] : 0.0f;
            d[k] = v;
            s += v;
        }
        db[j] = s;
    }
    return 0;
}

static const tk_ops cpu_ops = {
    .name = "cpu", .alloc = h_alloc, .free = h_free, .upload = h_copy, .download = h_copy, .zero = h_zero,
    .sync = h_sync, .gather = h_gather, .bias_add = h_bias_add, .relu = h_relu, .bias_act = h_bias_act,
    .ce_loss = h_ce_loss, .row_stats = h_row_stats, .ce_backward = h_ce_backward, .softmax_ce = h_softmax_ce,
    .advance = h_advance, .relu_backward = h_relu_backward, .bias_grad = h_bias_grad,
    .relu_bias_grad = h_relu_bias_grad, .sgd = h_sgd};

const tk_ops *tk_cpu_ops(void) { return &cpu_ops; }

const char *tk_last_error(void)
{
#ifdef SL_HAVE_CUDA
    return tk_cuda_last_error();
#else
    return "";
#endif
}
