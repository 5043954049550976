/*
 * api.cu - what sl_scale() runs on a CUDA context: the bulk rung on sm_90+,
 * vec before (the elementwise dispatch, ew_cuda.cu).
 */
#include "scale.h"

extern "C" sl_status sl_cuda_scale_api(const sl_args *x)
{
    return sl_ew_cuda_dispatch(x, sl_cuda_scale_bulk, sl_cuda_scale_vec);
}
