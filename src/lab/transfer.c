/*
 * transfer.c - see transfer.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "transfer.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

sl_status sl_measure_transfer(sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, const sl_shape *s, void *const *bufs,
                              double *ms)
{
    *ms = -1.0;
    size_t bytes[SL_MAX_BUFS], most = 0;
    for (int k = 0; k < op->nbufs; k++) {
        bytes[k] = (size_t)sl_op_buf_elems(op, k, s) * sl_dtype_size(sl_op_buf_dtype(op, k, dt, dt));
        most = bytes[k] > most ? bytes[k] : most;
    }
    void *host = malloc(most ? most : 1);
    if (!host)
        return sl_fail(SL_ERR_NO_MEMORY, "no host memory for a %zu-byte transfer array (--include-transfer)", most);
    /* first touch outside the timing: the pages exist before any copy */
    memset(host, 0x3c, most);
    double t[3];
    sl_status st = SL_OK;
    for (int rep = 0; rep < 3 && st == SL_OK; rep++) {
        double t0 = now_ms();
        for (int k = 0; k < op->nbufs && st == SL_OK; k++)
            if (sl_role_read(op->bufs[k].role))
                st = ctx->ops->upload(ctx, bufs[k], host, bytes[k]);
        for (int k = 0; k < op->nbufs && st == SL_OK; k++)
            if (sl_role_written(op->bufs[k].role))
                st = ctx->ops->download(ctx, host, bufs[k], bytes[k]);
        t[rep] = now_ms() - t0;
    }
    free(host);
    if (st != SL_OK)
        return st;
    /* the median of three */
    double a = t[0], b = t[1], c = t[2];
    *ms = a > b ? (b > c ? b : (a > c ? c : a)) : (a > c ? a : (b > c ? c : b));
    return SL_OK;
}
