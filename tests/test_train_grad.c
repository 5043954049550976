/*
 * test_train_grad.c - the backward kernels of src/train against finite
 * differences. A tiny MLP (7-6-5-4, batch 5) on random inputs: the
 * gradients mlp_gradients returns (our forward, loss and backward
 * kernels, f32) against central differences of an independent fp64
 * forward pass written here (eps 1e-6, truncation error O(eps^2) ~ 1e-12,
 * far below the tolerance). Each gradient entry must be within
 * 1e-5 + 1e-3 |g| of the fp64 one (f32 gradients of O(0.1) carry about
 * 1e-7 relative rounding per operation, a few dozen operations deep); the
 * loss within 1e-5 relative. Both fusion modes, and on CUDA the cuBLAS
 * GEMMs too. A negative control checks that the comparison rejects the
 * same gradients with one entry off by 1 %.
 * Usage: test_train_grad cpu|cuda   (cuda: exit 77 without a GPU)
 */
#include "check.h"
#include "mlp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { L = 3, B = 5 };
static const int sizes[L + 1] = {7, 6, 5, 4};

/* the mean cross-entropy of the MLP in fp64; p packed W1 b1 W2 b2 ... */
static double loss64(const double *p, const float *x, const int32_t *y, int rows)
{
    double total = 0;
    for (int i = 0; i < rows; i++) {
        double a[8], z[8];
        for (int j = 0; j < sizes[0]; j++)
            a[j] = x[i * sizes[0] + j];
        const double *q = p;
        for (int l = 1; l <= L; l++) {
            const int in = sizes[l - 1], out = sizes[l];
            for (int j = 0; j < out; j++) {
                double s = q[in * out + j];
                for (int k = 0; k < in; k++)
                    s += a[k] * q[k * out + j];
                z[j] = s;
            }
            for (int j = 0; j < out; j++)
                a[j] = l < L ? (z[j] > 0 ? z[j] : 0) : z[j];
            q += in * out + out;
        }
        double m = a[0];
        for (int j = 1; j < sizes[L]; j++)
            m = a[j] > m ? a[j] : m;
        double s = 0;
        for (int j = 0; j < sizes[L]; j++)
            s += exp(a[j] - m);
        total += log(s) + m - a[y[i]];
    }
    return total / rows;
}

static int compare(const float *g, const double *fd, size_t n, int report)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        double tol = 1e-5 + 1e-3 * fabs(fd[i]);
        if (fabs(g[i] - fd[i]) > tol) {
            if (report && bad < 5)
                fprintf(stderr, "  param %zu: backward %.9g, finite difference %.9g\n", i, g[i], fd[i]);
            bad++;
        }
    }
    return bad;
}

int main(int argc, char **argv)
{
    const int cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
    sl_ctx *ctx = NULL;
    sl_status st = sl_ctx_create(cuda ? 0 : SL_DEVICE_CPU, &ctx);
    if (cuda && st != SL_OK) {
        printf("test_train_grad: no usable GPU (%s): skipped\n", sl_status_string(st));
        return SKIP;
    }
    if (st != SL_OK) {
        fprintf(stderr, "cannot open a CPU context: %s\n", sl_status_string(st));
        return 1;
    }
    float x[B * 7];
    int32_t y[B];
    unsigned s = 12345;
    for (int i = 0; i < B * 7; i++) {
        s = s * 1103515245u + 12345u;
        x[i] = (float)((s >> 8) & 0xffff) / 65536.0f * 2.0f - 0.5f;
    }
    for (int i = 0; i < B; i++)
        y[i] = (i * 3 + 1) % 4;
    for (int mode = 0; mode < (cuda ? 3 : 2); mode++) {
        mlp_config cfg = {.nlayers = L, .batch = B, .lr = 0.1f, .seed = 7, .fused = mode == 1, .cublas = mode == 2};
        memcpy(cfg.sizes, sizes, sizeof sizes);
        mlp *m = NULL;
        char err[256];
        if (mlp_create(ctx, &cfg, B, &m, err, sizeof err) != 0) {
            CHECK(0, "mlp_create: %s", err);
            break;
        }
        const size_t n = mlp_param_count(m);
        float *p = malloc(n * 4), *g = malloc(n * 4);
        double *pd = malloc(n * 8), *fd = malloc(n * 8);
        CHECK(mlp_get_params(m, p) == 0, "get_params");
        /* biases start at 0: give them values so their gradients and the
         * ReLU pattern are not a special case */
        size_t o = 0;
        for (int l = 1; l <= L; l++) {
            o += (size_t)sizes[l - 1] * sizes[l];
            for (int j = 0; j < sizes[l]; j++)
                p[o + j] = 0.05f * (float)((j % 5) - 2);
            o += sizes[l];
        }
        CHECK(mlp_set_params(m, p) == 0, "set_params");
        double loss = 0;
        CHECK(mlp_gradients(m, x, y, B, g, &loss, err, sizeof err) == 0, "mlp_gradients: %s", err);
        for (size_t i = 0; i < n; i++)
            pd[i] = p[i];
        const double l64 = loss64(pd, x, y, B);
        CHECK(fabs(loss - l64) <= 1e-5 * fabs(l64), "mode %d: loss %.9g, fp64 %.9g", mode, loss, l64);
        const double eps = 1e-6;
        for (size_t i = 0; i < n; i++) {
            const double v = pd[i];
            pd[i] = v + eps;
            double lp = loss64(pd, x, y, B);
            pd[i] = v - eps;
            double lm = loss64(pd, x, y, B);
            pd[i] = v;
            fd[i] = (lp - lm) / (2 * eps);
        }
        double gmax = 0;
        for (size_t i = 0; i < n; i++)
            gmax = fabs(fd[i]) > gmax ? fabs(fd[i]) : gmax;
        int bad = compare(g, fd, n, 1);
        CHECK(bad == 0, "mode %d (%s%s): %d of %zu gradients off", mode, mode == 1 ? "fused" : "unfused",
              mode == 2 ? ", cublas" : "", bad, n);
        CHECK(gmax > 1e-3, "gradients too small to test (%g)", gmax);
        /* negative control: the largest gradient off by 1 % is caught */
        size_t imax = 0;
        for (size_t i = 0; i < n; i++)
            imax = fabs(fd[i]) > fabs(fd[imax]) ? i : imax;
        g[imax] *= 1.01f;
        CHECK(compare(g, fd, n, 0) == 1, "the check does not catch a 1 %% error");
        printf("%s mode %d (%s%s): %zu gradients agree with fp64 finite differences (largest %.4g), loss %.8f\n",
               cuda ? "cuda" : "cpu", mode, mode == 1 ? "fused" : "unfused", mode == 2 ? ", cublas" : "", n, gmax,
               loss);
        free(p);
        free(g);
        free(pd);
        free(fd);
        mlp_destroy(m);
    }
    sl_ctx_destroy(ctx);
    return check_exit("test_train_grad");
}
