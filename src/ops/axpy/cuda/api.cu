/*
 * api.cu - what sl_axpy() runs on a CUDA context: the elementwise dispatch
 * table (src/ops/common/ew_cuda.cu) with v5_vec for working sets up to
 * half the L2, tile4 up to the L2, the bulk rung beyond on sm_90+, v5_vec
 * before Hopper (docs/ladder.md, "sl_axpy dispatch" and "issue 17").
 */
#include "axpy.h"

extern "C" sl_status sl_cuda_axpy_api(const sl_args *x)
{
    static const sl_ew_api_rungs r = {sl_cuda_axpy_v5_vec, sl_cuda_axpy_tile4, sl_cuda_axpy_bulk,
                                      sl_cuda_axpy_v5_vec};
    return sl_ew_cuda_dispatch_table(x, &r);
}
