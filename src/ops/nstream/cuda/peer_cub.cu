/*
 * peer_cub.cu - nstream's peer: CUB's DeviceTransform (CCCL) with nstream's
 * own element function, in every dtype (ew_cub.cuh).
 */
#include "nstream.cuh"
#include "ew_cub.cuh"

SL_EW_CUB_LAUNCHER(sl_cuda_nstream_cub, sl_k_nstream)
