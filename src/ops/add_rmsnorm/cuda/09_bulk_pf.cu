/*
 * add_rmsnorm rung 9 (bulk_pf): the bulk rung (08_bulk.cu) as a persistent
 * kernel with two shared-memory stages a block (common/norm_fwd_bulk_pf.cuh,
 * MODE NORM_ADD_RMS): the grid is the clusters that fit resident, each
 * walking rows k, k + P, ...; a block's chunk of x and res (at most 16 KiB
 * of each, half bulk's, so clusters of 8 at 65536 bf16) of row t + 1 is
 * requested by bulk copy into the other stage before row t's h, sum,
 * cluster exchange and stores. Rows of at most 128 KiB of x (65536 bf16);
 * else SL_ERR_UNSUPPORTED (bulk takes up to 256 KiB).
 *
 * Change from bulk: bulk requests 64 KiB (x and res) a block at a row's
 * start and nothing while it reduces, meets its cluster and stores h and y
 * (0.868 of the copy at 8192 x 65536 bf16 on an H200, eighth session);
 * here each block keeps its next 32 KiB requested through all of that.
 *
 * Expectation (written before the first run): 0.94-0.97 of the copy at
 * 8192 x 65536 bf16 (clusters of 8: the most DSMEM traffic of the three),
 * 0.96-0.99 at 32768 x 8192; docs/ladder.md, "The norms' forwards, ninth
 * session: the next row in flight".
 */
#include "add_rmsnorm.h"
#include "norm_fwd_bulk_pf.cuh"

extern "C" sl_status sl_cuda_add_rmsnorm_bulk_pf(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_ARMS_W, "add_rmsnorm", "bulk_pf");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    const norm_fwd_geo g = {a->buf[SL_ARMS_X], a->buf[SL_ARMS_W], NULL, a->buf[SL_ARMS_Y], NULL,
                            (float *)a->buf[SL_ARMS_RSTD], a->shape.rows, a->shape.cols,
                            a->shape.ld ? a->shape.ld : a->shape.cols, (float)a->scalar[0], a->buf[SL_ARMS_RES],
                            a->buf[SL_ARMS_H]};
    return nfp_run<NORM_ADD_RMS>(a, g, SL_ARMS_W, "add_rmsnorm");
}

extern "C" sl_status sl_cuda_add_rmsnorm_bulk_pf_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return nfp_attrs<NORM_ADD_RMS>(dt, out);
}
