/*
 * mm_glue.c - for the standalone matmul binaries of bench/matmul.sh only
 * (matmul_bench, test_gpu_matmul built without the rest of the library, so
 * that a device call compiles a dozen files instead of every op): the two
 * CUDA error helpers that src/cuda/backend.c defines in the full library,
 * reduced to what the matmul launchers need. The CMake build links the
 * real ones.
 */
#include "cuda_check.h"

int sl_cuda_error_is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorMisalignedAddress:
    case cudaErrorIllegalInstruction:
    case cudaErrorHardwareStackError:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorAssert: return 1;
    default: return 0;
    }
}

sl_status sl_cuda_fail(cudaError_t e, const char *expr, const char *file, int line)
{
    return sl_fail(sl_cuda_error_is_sticky(e) ? SL_ERR_CUDA_FAULT : e == cudaErrorMemoryAllocation ? SL_ERR_NO_MEMORY
                                                                                                    : SL_ERR_CUDA,
                   "%s at %s:%d: %s (%s)", expr, file, line, cudaGetErrorName(e), cudaGetErrorString(e));
}
