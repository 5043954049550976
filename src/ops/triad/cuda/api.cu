/*
 * api.cu - what sl_triad() runs on a CUDA context: the bulk rung on sm_90+,
 * vec before (the elementwise dispatch, ew_cuda.cu).
 */
#include "triad.h"

extern "C" sl_status sl_cuda_triad_api(const sl_args *x)
{
    return sl_ew_cuda_dispatch(x, sl_cuda_triad_bulk, sl_cuda_triad_vec);
}
