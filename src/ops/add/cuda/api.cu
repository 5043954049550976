/*
 * api.cu - what sl_add() runs on a CUDA context: the elementwise dispatch
 * table (src/ops/common/ew_cuda.cu) with vec4 for working sets up to half
 * the L2, tile4 up to the L2, bulk beyond on sm_90+, vec4 before Hopper
 * (docs/ladder.md, "sl_add dispatch" and "issue 17").
 */
#include "add.h"

extern "C" sl_status sl_cuda_add_api(const sl_args *x)
{
    static const sl_ew_api_rungs r = {sl_cuda_add_vec4, sl_cuda_add_tile4, sl_cuda_add_bulk, sl_cuda_add_vec4};
    return sl_ew_cuda_dispatch_table(x, &r);
}
