/*
 * rng.c - filling host memory from the counter-based generator (rng.h).
 */
#include "rng.h"

#include "dtype_conv.h"

void sl_rand_fill(sl_dtype dt, void *dst, size_t n, uint64_t seed, uint64_t first)
{
    if (dt == SL_F32) {
        uint32_t *u = dst;
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            u[i] = sl_rand_f32_bits(seed, first + i);
        return;
    }
    if (dt == SL_F64) {
        uint64_t *u = dst;
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < n; i++)
            u[i] = sl_rand_f64_bits(seed, first + i);
        return;
    }
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        sl_dtype_store(dt, dst, i, sl_rand_f32(seed, first + i));
}
