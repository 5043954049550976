/*
 * peer_cub.cu - copy's peer: CUB's DeviceTransform (CCCL) with copy's
 * own element function, in every dtype (ew_cub.cuh).
 */
#include "copy.cuh"
#include "ew_cub.cuh"

SL_EW_CUB_LAUNCHER(sl_cuda_copy_cub, sl_k_copy)
