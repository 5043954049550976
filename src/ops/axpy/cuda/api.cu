/*
 * api.cu - what sl_axpy() runs on a CUDA context: the bulk rung on sm_90+,
 * v5_vec before (docs/ladder.md, "sl_axpy dispatch").
 */
#include "axpy.h"

extern "C" sl_status sl_cuda_axpy_api(const sl_args *x)
{
    return sl_ew_cuda_dispatch(x, sl_cuda_axpy_bulk, sl_cuda_axpy_v5_vec);
}
