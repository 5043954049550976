/*
 * peer_cub.cu - triad's peer: CUB's DeviceTransform (CCCL) with triad's
 * own element function, in every dtype (ew_cub.cuh).
 */
#include "triad.cuh"
#include "ew_cub.cuh"

SL_EW_CUB_LAUNCHER(sl_cuda_triad_cub, sl_k_triad)
