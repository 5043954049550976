/*
 * api.cu - what sl_add() runs on a CUDA context: rung 8 (bulk) on sm_90+,
 * rung 3 (vec4) before (docs/ladder.md, "sl_add dispatch").
 */
#include "add.h"

extern "C" sl_status sl_cuda_add_api(const sl_args *x)
{
    return sl_ew_cuda_dispatch(x, sl_cuda_add_bulk, sl_cuda_add_vec4);
}
