/*
 * peer_cub.cu - add's peer: CUB's DeviceTransform (CCCL) with add's own
 * element function, in every dtype (ew_cub.cuh).
 */
#include "add.cuh"
#include "ew_cub.cuh"

SL_EW_CUB_LAUNCHER(sl_cuda_add_cub, sl_k_add)
