/*
 * mlp.h - a multi-layer perceptron trained with SGD on one streamlab
 * context (CUDA or CPU), for `streamlab train` and its tests.
 *
 * Model: sizes[0] inputs, hidden layers of sizes[1..nlayers-1] with ReLU,
 * sizes[nlayers] logits, softmax + cross-entropy (mean over the batch).
 * Layer l (1-based) computes Z_l = A_{l-1} W_l + b_l with W_l sizes[l-1] x
 * sizes[l] row-major (in x out) and b_l sizes[l]. He initialisation (He et
 * al., "Delving Deep into Rectifiers", ICCV 2015, section 2.2): W ~
 * N(0, 2 / fan_in), b = 0, drawn on the host from the seed (splitmix64 +
 * Box-Muller), so both backends start from the same bits.
 * One step on a batch of B rows (the backward of the mean loss):
 *   dZ_L = (softmax(Z_L) - onehot(y)) / B
 *   dW_l = A_{l-1}^T dZ_l,  db_l = column sums of dZ_l,
 *   dZ_{l-1} = (dZ_l W_l^T) * [A_{l-1} > 0]
 *   theta -= lr * grad (plain SGD)
 * GEMMs: sl_gemm (row-major, 'N','N' only, so the transposed operands are
 * made with sl_transpose into scratch; in the fused mode they are made
 * where they are produced instead: the forward epilogue and the batch
 * gather also write A_l^T, and the fused SGD update keeps a copy of W_l^T
 * for l >= 2), or cuBLAS (--gemm cublas, its own transposition flags). The data set stays in device memory; an epoch
 * uploads one permutation (int32 per sample) and each step gathers its
 * rows from it through a device-side cursor (so a captured graph replays
 * with the current position).
 */
#ifndef SL_TRAIN_MLP_H
#define SL_TRAIN_MLP_H

#include "streamlab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MLP_MAX_LAYERS 8

typedef struct mlp_config {
    int nlayers;                     /* weight layers, 1..MLP_MAX_LAYERS */
    int sizes[MLP_MAX_LAYERS + 1];
    int batch;
    float lr;
    uint64_t seed;
    int fused;  /* 0: one kernel per step; 1: the fused kernels */
    int graph;  /* capture the step as a CUDA graph (CUDA only) */
    int cublas; /* GEMMs through cuBLAS instead of sl_gemm (CUDA only) */
} mlp_config;

typedef struct mlp mlp;

/* mlp_create: allocate the model on ctx's backend for batches of up to
 * max(cfg->batch, eval_rows) rows and initialise it. Returns 0, or -1 with
 * a message in err. */
int mlp_create(sl_ctx *ctx, const mlp_config *cfg, int eval_rows, mlp **out, char *err, size_t errlen);
void mlp_destroy(mlp *m);

/* mlp_set_data: copy n training samples (x n x sizes[0], y n) and nt test
 * samples to the backend's memory (once). */
int mlp_set_data(mlp *m, const float *x, const int32_t *y, size_t n, const float *xt, const int32_t *yt, size_t nt,
                 char *err, size_t errlen);

/* progress callback: steps done of total, every 16 steps and at the end;
 * it returns false to stop the epoch there (SIGINT: interrupt.h). */
typedef bool (*mlp_progress)(void *arg, size_t done, size_t total);

/* mlp_train_epoch: one pass over the training set in a fresh permutation
 * (from the seed and the epoch number), ceil(n / batch) steps, the last one
 * shorter. Outputs: mean loss and accuracy of the batches as trained, the
 * wall time of the epoch (the device synchronised at its end). Returns 0,
 * -1 on an error (err), or 1 when cb asked to stop (the device synchronised;
 * the outputs unset). */
int mlp_train_epoch(mlp *m, int epoch, double *loss, double *acc, double *seconds, mlp_progress cb, void *arg,
                    char *err, size_t errlen);
/* mlp_evaluate: mean loss and accuracy on the test set (forward only). */
int mlp_evaluate(mlp *m, double *loss, double *acc, char *err, size_t errlen);

/* For the tests: the parameters (all W_l then b_l per layer, in layer
 * order: W_1, b_1, W_2, b_2, ...) as one host array of mlp_param_count
 * floats. */
size_t mlp_param_count(const mlp *m);
int mlp_get_params(mlp *m, float *out);
int mlp_set_params(mlp *m, const float *in);
/* the gradients of the mean loss over a host batch (rows <= batch), in the
 * same order, without updating; *loss the mean loss. */
int mlp_gradients(mlp *m, const float *x, const int32_t *y, int rows, float *grads, double *loss, char *err,
                  size_t errlen);
/* kernel launches (GEMMs and transposes counted as one each) of one
 * training step */
int mlp_launches_per_step(const mlp *m);
/* the learning rate from the next step on (a schedule); with --graph the
 * step is captured again (the rate is a kernel argument) */
void mlp_set_lr(mlp *m, float lr);

/* The time of each launch of one training step (CUDA): the step captured
 * once with an event-record node after each launch, replayed reps times
 * (the cursor reset before each; these are extra SGD steps on the model);
 * out[i].us = mean time from the previous launch's end to this one's, in
 * us (its kernel plus the graph's node-to-node gap). *graph_us: the mean
 * time of the same step captured without the events. Returns the number of
 * launches, or -1 with the message in err. */
typedef struct mlp_phase {
    char name[48];
    double us;
} mlp_phase;
int mlp_breakdown(mlp *m, int reps, mlp_phase *out, int max, double *graph_us, char *err, size_t errlen);

#endif
