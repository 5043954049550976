/*
 * status.c - status names, the thread-local error detail, dtype facts.
 */
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static _Thread_local char last_error[1024];

sl_status sl_fail(sl_status s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return s;
}

const char *sl_last_error(void)
{
    return last_error;
}

const char *sl_status_string(sl_status s)
{
    switch (s) {
    case SL_OK: return "success";
    case SL_ERR_INVALID_ARG: return "invalid argument";
    case SL_ERR_MISALIGNED: return "misaligned pointer";
    case SL_ERR_OVERLAP: return "output overlaps an input";
    case SL_ERR_UNSUPPORTED: return "not supported";
    case SL_ERR_NO_MEMORY: return "out of memory";
    case SL_ERR_NO_DEVICE: return "no CUDA device";
    case SL_ERR_BAD_DEVICE: return "no such device";
    case SL_ERR_BAD_POINTER: return "pointer not accessible by the device";
    case SL_ERR_CUDA: return "CUDA error";
    case SL_ERR_CUDA_FAULT: return "CUDA fault (context lost)";
    case SL_ERR_VERIFY: return "result differs from the CPU reference";
    case SL_ERR_IO: return "I/O error";
    case SL_ERR_INTERRUPTED: return "interrupted";
    case SL_ERR_INTERNAL: return "internal error";
    }
    return "unknown status";
}

size_t sl_dtype_size(sl_dtype dt)
{
    switch (dt) {
    case SL_F32: return 4;
    case SL_F16: return 2;
    case SL_BF16: return 2;
    case SL_FP8_E4M3: return 1;
    case SL_FP8_E5M2: return 1;
    case SL_F64: return 8;
    default: return 0;
    }
}

const char *sl_dtype_name(sl_dtype dt)
{
    switch (dt) {
    case SL_F32: return "f32";
    case SL_F16: return "f16";
    case SL_BF16: return "bf16";
    case SL_FP8_E4M3: return "fp8e4m3";
    case SL_FP8_E5M2: return "fp8e5m2";
    case SL_F64: return "f64";
    default: return NULL;
    }
}

const char *sl_dtype_all_names(void)
{
    return "f32, f64, f16, bf16, fp8e4m3, fp8e5m2";
}

int sl_dtype_from_name(const char *s)
{
    for (int i = 0; i < SL_DTYPE_COUNT && s; i++)
        if (strcmp(s, sl_dtype_name((sl_dtype)i)) == 0)
            return i;
    return -1;
}
