/*
 * rmsnorm rung 11 (bulk_pf): rung 10 (bulk) as a persistent kernel with
 * two shared-memory stages a block (common/norm_fwd_bulk_pf.cuh, MODE
 * NORM_RMS): the grid is the clusters that fit resident, each walking rows
 * k, k + P, ...; a block's chunk (at most 32 KiB, half bulk's, so clusters
 * of 4 at 65536 bf16) of row t + 1 is requested by bulk copy into the
 * other stage before row t's sum, cluster exchange and stores.
 *
 * Change from rung 10: bulk holds up to 64 KiB a block in flight at a
 * row's start and nothing while it reduces, meets its cluster and stores
 * (0.912 of the copy at 8192 x 65536 bf16 on an H200, eighth session);
 * here each block keeps its next chunk (32 KiB) requested through all of
 * that: ~3 x 32 KiB an SM requested most of the time against the ~50-70
 * KiB the H200 needs.
 *
 * Expectation (written before the first run): 0.95-0.98 of the copy at
 * 8192 x 65536 and 4096 x 131072 bf16, 0.96-0.99 at 8192 x 32768 and
 * 32768 x 8192 (one block a row); docs/ladder.md, "The norms' forwards,
 * ninth session: the next row in flight".
 */
#include "norm_fwd_bulk_pf.cuh"
#include "rmsnorm.cuh"

extern "C" sl_status sl_cuda_rmsnorm_bulk_pf(const sl_args *a)
{
    sl_status st = sl_norm_check(a, SL_RMS_W, "rmsnorm", "bulk_pf");
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    const rms_geo r = rms_geo_of(a);
    const norm_fwd_geo g = {r.x, r.w, NULL, r.y, NULL, r.rstd, r.rows, r.cols, r.ld, r.eps, NULL, NULL};
    return nfp_run<NORM_RMS>(a, g, SL_RMS_W, "rmsnorm");
}

extern "C" sl_status sl_cuda_rmsnorm_bulk_pf_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return nfp_attrs<NORM_RMS>(dt, out);
}
