/*
 * api.cu - what sl_copy() runs on a CUDA context: the bulk rung on sm_90+,
 * vec before (the elementwise dispatch, ew_cuda.cu).
 */
#include "copy.h"

extern "C" sl_status sl_cuda_copy_api(const sl_args *x)
{
    return sl_ew_cuda_dispatch(x, sl_cuda_copy_bulk, sl_cuda_copy_vec);
}
