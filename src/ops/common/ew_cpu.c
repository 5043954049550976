/*
 * ew_cpu.c - the host side every elementwise op shares: binding a launch's
 * buffers, the reference loop, the CPU copy ceiling and the OpenMP split.
 *
 * All CPU loops split the elements in 64-byte granules in thread order,
 * the split the CPU backend's parallel first touch uses, so on a NUMA
 * machine each thread reads and writes pages that live on its own node.
 */
#include "ew.h"

#include "dtype_conv.h"

#include <omp.h>
#include <string.h>

int sl_ew_nin(const sl_op_desc *op)
{
    int nin = 0;
    for (int k = 0; k < op->nbufs; k++)
        nin += sl_role_read(op->bufs[k].role);
    return nin;
}

void sl_ew_bind(const sl_args *x, const void **in, int nin, void **out)
{
    int j = 0;
    *out = NULL;
    for (int k = 0; k < x->op->nbufs; k++) {
        sl_role r = x->op->bufs[k].role;
        if (sl_role_read(r) && j < nin)
            in[j++] = x->buf[k];
        if (sl_role_written(r) && !*out)
            *out = x->buf[k];
    }
}

void sl_cpu_rows(const sl_args *a, sl_cpu_row_fn *row, bool parallel)
{
    const long long rows = (long long)a->shape.rows;
#pragma omp parallel for schedule(static) if (parallel)
    for (long long r = 0; r < rows; r++)
        row(a, (uint64_t)r);
}

void sl_cpu_share_elems(size_t n, size_t es, size_t *lo, size_t *hi)
{
    size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
    /* 64-byte granules, so no two threads write one cache line. */
    size_t total = n * es, granules = (total + 63) / 64;
    size_t b_lo = granules * t / nt * 64, b_hi = granules * (t + 1) / nt * 64;
    b_lo = b_lo < total ? b_lo : total;
    b_hi = b_hi < total ? b_hi : total;
    *lo = b_lo / es;
    *hi = b_hi / es;
    if (t + 1 == nt)
        *hi = n; /* a granule may end inside an element for es that does not divide 64 */
}

/* The CPU copy ceiling: each thread memcpy()s its static share, which glibc
 * does with the widest loads and stores the machine has (and non-temporal
 * stores for large sizes). */
sl_status sl_cpu_ceiling_copy(const sl_args *x)
{
    const void *in[SL_MAX_BUFS] = {0};
    void *out = NULL;
    sl_ew_bind(x, in, 1, &out);
    const int first_in = sl_op_first(x->op, SL_ROLE_IN);
    const char *src = first_in >= 0 ? x->buf[first_in] : in[0];
    char *dst = out;
    const size_t es = sl_dtype_size(x->dtype);
#pragma omp parallel
    {
        size_t lo, hi;
        sl_cpu_share_elems(x->n, es, &lo, &hi);
        if (dst != src)
            memcpy(dst + lo * es, src + lo * es, (hi - lo) * es);
    }
    return SL_OK;
}

void sl_ew_reference(sl_ref_args *a, int nin, int nscalars, const sl_ew_ref_fn *fn)
{
    const void *in[SL_MAX_BUFS];
    void *out = NULL;
    for (int k = 0, j = 0; k < SL_MAX_BUFS; k++) {
        if (a->in[k] && j < nin)
            in[j++] = a->in[k];
        if (a->out[k] && !out)
            out = a->out[k];
    }
    const size_t m = (size_t)(a->hi - a->lo);
    double sd[SL_MAX_SCALARS] = {0};
    float s[SL_MAX_SCALARS] = {0};
    for (int k = 0; k < nscalars && k < SL_MAX_SCALARS && a->scalar; k++) {
        sd[k] = a->scalar[k];
        s[k] = (float)a->scalar[k];
    }
    if (a->dtype == SL_F64) {
        for (size_t i = 0; i < m; i++) {
            double x[SL_MAX_BUFS];
            for (int j = 0; j < nin; j++)
                x[j] = sl_dtype_load_f64(SL_F64, in[j], i);
            sl_dtype_store_f64(SL_F64, out, i, fn->f64(x, sd));
        }
        return;
    }
    for (size_t i = 0; i < m; i++) {
        float x[SL_MAX_BUFS];
        for (int j = 0; j < nin; j++)
            x[j] = sl_dtype_load(a->dtype, in[j], i);
        sl_dtype_store(a->out_dtype, out, i, fn->f32(x, s));
    }
}
