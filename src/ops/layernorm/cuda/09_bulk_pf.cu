/*
 * layernorm rung 11 (bulk_pf): the bulk rung (08_bulk.cu) as a persistent
 * kernel with two shared-memory stages a block (common/norm_fwd_bulk_pf.cuh,
 * MODE NORM_LN): the grid is the clusters that fit resident, each walking
 * rows k, k + P, ...; a block's chunk (at most 32 KiB) of row t + 1 is
 * requested by bulk copy into the other stage before row t's mean, its
 * two-pass variance (two cluster exchanges) and its stores.
 *
 * Change from bulk: layernorm's two cluster barriers a row are the longest
 * time without a load in flight of the three forwards (bulk: 0.787 of the
 * copy at 8192 x 65536 bf16 on an H200, eighth session); here the next
 * row's chunk is requested through both.
 *
 * Expectation (written before the first run): 0.94-0.97 of the copy at
 * 8192 x 65536 bf16, 0.96-0.99 at 32768 x 8192; docs/ladder.md, "The
 * norms' forwards, ninth session: the next row in flight".
 */
#include "layernorm.h"
#include "norm_fwd_bulk_pf.cuh"

extern "C" sl_status sl_cuda_layernorm_bulk_pf(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_LN_W, "layernorm", "bulk_pf");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    const norm_fwd_geo g = {a->buf[SL_LN_X], a->buf[SL_LN_W], a->buf[SL_LN_B], a->buf[SL_LN_Y],
                            (float *)a->buf[SL_LN_MEAN], (float *)a->buf[SL_LN_RSTD], a->shape.rows, a->shape.cols,
                            a->shape.ld ? a->shape.ld : a->shape.cols, (float)a->scalar[0], NULL, NULL};
    return nfp_run<NORM_LN>(a, g, SL_LN_W, "layernorm");
}

extern "C" sl_status sl_cuda_layernorm_bulk_pf_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return nfp_attrs<NORM_LN>(dt, out);
}
