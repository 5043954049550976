/*
 * test_train_agree.c - the CUDA training path against the CPU one. The
 * same seed (so the same He initialisation and the same shuffles: both
 * come from the host) and the same data (640 random 784-pixel images,
 * labels from a fixed linear map of them, so there is something to learn)
 * through the default 784-300-100-10 model, batch 64, lr 0.1, 3 epochs
 * (30 steps):
 *   - CUDA (fused, sl_gemm) vs CPU (fused): each epoch's mean loss within
 *     1e-4 relative, and the parameters after the 30 steps within 1e-3 of
 *     the largest parameter (the GEMMs sum in different orders; 30 SGD
 *     steps amplify that little);
 *   - CUDA unfused and CUDA with cuBLAS vs CUDA fused: the same bounds;
 *   - CUDA with --graph vs eager: bit for bit (the same kernels replayed).
 * The loss must also fall (epoch 3 below epoch 1). Exit 77 without a GPU.
 */
#include "check.h"
#include "mlp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 640, D = 784, E = 3 };

typedef struct run {
    double loss[E];
    float *p;
} run;

static int train(int device, int fused, int graph, int cublas, const float *x, const int32_t *y, run *r)
{
    sl_ctx *ctx = NULL;
    if (sl_ctx_create(device, &ctx) != SL_OK)
        return -1;
    mlp_config cfg = {.nlayers = 3, .sizes = {D, 300, 100, 10}, .batch = 64, .lr = 0.1f, .seed = 3, .fused = fused,
                      .graph = graph, .cublas = cublas};
    mlp *m = NULL;
    char err[256];
    int rc = -1;
    if (mlp_create(ctx, &cfg, 64, &m, err, sizeof err) != 0 || mlp_set_data(m, x, y, N, x, y, 64, err, sizeof err) != 0)
        goto out;
    for (int e = 0; e < E; e++) {
        double acc, sec;
        if (mlp_train_epoch(m, e + 1, &r->loss[e], &acc, &sec, NULL, NULL, err, sizeof err) != 0)
            goto out;
    }
    r->p = malloc(mlp_param_count(m) * 4);
    rc = mlp_get_params(m, r->p);
out:
    if (rc != 0)
        fprintf(stderr, "train(device %d, fused %d, graph %d, cublas %d): %s\n", device, fused, graph, cublas, err);
    mlp_destroy(m);
    sl_ctx_destroy(ctx);
    return rc;
}

static size_t nparams(void) { return (size_t)D * 300 + 300 + 300 * 100 + 100 + 100 * 10 + 10; }

static void agree(const char *what, const run *a, const run *b)
{
    for (int e = 0; e < E; e++) {
        double rel = fabs(a->loss[e] - b->loss[e]) / fabs(b->loss[e]);
        CHECK(rel <= 1e-4, "%s: epoch %d loss %.9g vs %.9g (rel %.2g)", what, e + 1, a->loss[e], b->loss[e], rel);
    }
    double dmax = 0, pmax = 0;
    for (size_t i = 0; i < nparams(); i++) {
        dmax = fmax(dmax, fabs((double)a->p[i] - b->p[i]));
        pmax = fmax(pmax, fabs((double)b->p[i]));
    }
    CHECK(dmax <= 1e-3 * pmax, "%s: parameters differ by %.3g (largest %.3g)", what, dmax, pmax);
    printf("%-28s losses %.7f %.7f %.7f vs %.7f %.7f %.7f; max parameter difference %.3g of %.3g\n", what,
           a->loss[0], a->loss[1], a->loss[2], b->loss[0], b->loss[1], b->loss[2], dmax, pmax);
}

int main(void)
{
    sl_ctx *probe = NULL;
    if (sl_ctx_create(0, &probe) != SL_OK) {
        printf("test_train_agree: no usable GPU: skipped\n");
        return SKIP;
    }
    sl_ctx_destroy(probe);
    float *x = malloc((size_t)N * D * 4);
    int32_t *y = malloc(N * 4);
    unsigned s = 99;
    for (size_t i = 0; i < (size_t)N * D; i++) {
        s = s * 1103515245u + 12345u;
        x[i] = (float)((s >> 8) & 0xffff) / 65536.0f;
    }
    for (int i = 0; i < N; i++) { /* label: the largest of 10 fixed projections */
        double best = -1e30;
        for (int c = 0; c < 10; c++) {
            double v = 0;
            for (int j = c; j < D; j += 10)
                v += x[(size_t)i * D + j] * ((j / 10) % 3 == 0 ? 1.0 : -0.5);
            if (v > best) {
                best = v;
                y[i] = c;
            }
        }
    }
    run cpu = {0}, gpu = {0}, unf = {0}, cub = {0}, gr = {0};
    CHECK(train(SL_DEVICE_CPU, 1, 0, 0, x, y, &cpu) == 0, "cpu run");
    CHECK(train(0, 1, 0, 0, x, y, &gpu) == 0, "cuda run");
    CHECK(train(0, 0, 0, 0, x, y, &unf) == 0, "cuda unfused run");
    CHECK(train(0, 1, 0, 1, x, y, &cub) == 0, "cuda cublas run");
    CHECK(train(0, 1, 1, 0, x, y, &gr) == 0, "cuda graph run");
    if (cpu.p && gpu.p && unf.p && cub.p && gr.p) {
        agree("cuda fused vs cpu fused", &gpu, &cpu);
        agree("cuda unfused vs cuda fused", &unf, &gpu);
        agree("cuda cublas vs cuda sl_gemm", &cub, &gpu);
        CHECK(memcmp(gr.p, gpu.p, nparams() * 4) == 0, "graph replay and eager steps differ");
        for (int e = 0; e < E; e++)
            CHECK(gr.loss[e] == gpu.loss[e], "graph epoch %d loss %.17g vs eager %.17g", e + 1, gr.loss[e],
                  gpu.loss[e]);
        CHECK(gpu.loss[E - 1] < gpu.loss[0], "the loss does not fall: %g -> %g", gpu.loss[0], gpu.loss[E - 1]);
    }
    free(x);
    free(y);
    free(cpu.p);
    free(gpu.p);
    free(unf.p);
    free(cub.p);
    free(gr.p);
    return check_exit("test_train_agree");
}
