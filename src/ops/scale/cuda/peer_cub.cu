/*
 * peer_cub.cu - scale's peer: CUB's DeviceTransform (CCCL) with scale's
 * own element function, in every dtype (ew_cub.cuh).
 */
#include "scale.cuh"
#include "ew_cub.cuh"

SL_EW_CUB_LAUNCHER(sl_cuda_scale_cub, sl_k_scale)
