/*
 * sbwd_bulk.cuh - the host side that softmax backward's two bulk rungs
 * share (04_bulk.cu: bulk; 05_bulk_ex.cu: bulk_ex): the plan that cuts a
 * row into C = 1, 2, 4 or 8 chunks (of at most sbwd.cuh's SK_MAXV or
 * SK_MAXV_EX vectors of each input; bulk takes rows
 * of up to 8 x 36 KiB of each input, bulk_ex those and up to 8 x 64 KiB:
 * what bulk takes, bulk_ex takes), the refusal's message, the
 * once-per-device shared-memory allowance and the check
 * that the device loaded sm_90 code. The kernels
 * stay in their rung files.
 */
#ifndef SL_SBWD_BULK_CUH
#define SL_SBWD_BULK_CUH

#include "bulk.cuh" /* bulk_code_ok */
#include "sbwd.cuh"

/* Vectors a chunk when nv vectors are cut into c: rounded up to 8 vectors
 * (128 bytes), so that every block's copies start on a line of the row
 * and dy's half of the staging (at cv vectors) on a 128-byte boundary. */
static inline uint32_t sbwd_bulk_cv(uint64_t nv, unsigned c)
{
    return (uint32_t)(((nv + c - 1) / c + 7) / 8 * 8);
}

/* The chunking of a's rows, false where the bulk rungs do not apply (no
 * clusters, i.e. below sm_90; y, dy or dx not 16-byte aligned; ld or cols
 * not a multiple of 16 bytes; more than 8 x maxv vectors a row).
 * kp = maxv = SK_MAXV, !fine (bulk): the fewest chunks of <= SK_MAXV
 * vectors, as the rung was written. fine (bulk_ex): the fewest of <= kp
 * vectors, or where that needs more than 8, of <= SK_MAXV, or of <= maxv
 * (SK_MAXV_EX: f32 rows of 131072 columns); then, while the rows leave
 * SMs without a block (rows x C <= SMs) and the chunks stay at least minv
 * vectors, twice as many; chunks rounded by sbwd_bulk_cv. */
static bool sbwd_bulk_plan(const sl_args *a, uint32_t kp, uint32_t maxv, bool fine, uint32_t minv, unsigned *C,
                           uint32_t *nvec, uint32_t *cv)
{
    if (!sl_cuda_row_clusters())
        return false;
    const uint64_t es = sl_dtype_size(a->dtype), ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    const uintptr_t any = (uintptr_t)a->buf[0] | (uintptr_t)a->buf[1] | (uintptr_t)a->buf[2];
    if ((any & 15u) || (ld * es) % 16 || (a->shape.cols * es) % 16)
        return false;
    const uint64_t nv = a->shape.cols * es / 16, rows = a->shape.rows;
    *nvec = (uint32_t)nv;
    if (!fine)
        return sl_cuda_row_chunks(nv, maxv, rows, C, cv);
    unsigned c;
    uint32_t per;
    if (!sl_cuda_row_chunks(nv, kp, rows, &c, &per) && !sl_cuda_row_chunks(nv, SK_MAXV, rows, &c, &per) &&
        (maxv <= SK_MAXV || !sl_cuda_row_chunks(nv, maxv, rows, &c, &per)))
        return false;
    const uint64_t sms = (uint64_t)sl_cuda_row_sms();
    while (c < 8 && rows * c <= sms && (nv + 2 * c - 1) / (2 * c) >= minv)
        c *= 2;
    *C = c;
    *cv = sbwd_bulk_cv(nv, c); /* <= maxv: kp, SK_MAXV and maxv are multiples of 8 */
    return true;
}

/* The refusal of rung `who` (chunks of at most maxv vectors) for a shape
 * its plan does not take. */
static sl_status sbwd_bulk_refuse(const sl_args *a, const char *who, uint32_t maxv)
{
    const uint64_t ld = a->shape.ld ? a->shape.ld : a->shape.cols;
    return sl_fail(SL_ERR_UNSUPPORTED,
                   "softmax_bwd %s stages a row in shared memory by bulk copies (sm_90): it needs y, dy and dx 16-byte "
                   "aligned (here at +%u, +%u and +%u bytes), cols and ld multiples of 16 bytes and rows of at most "
                   "%u bytes of each input (here %llu and %llu columns of %zu bytes)",
                   who, (unsigned)((uintptr_t)a->buf[0] & 15u), (unsigned)((uintptr_t)a->buf[1] & 15u),
                   (unsigned)((uintptr_t)a->buf[2] & 15u), 8u * maxv * 16u, (unsigned long long)a->shape.cols,
                   (unsigned long long)ld, sl_dtype_size(a->dtype));
}

/* Once per device and dtype: allow fn 2 x maxv x 16 bytes of dynamic
 * shared memory (above the default 48 KiB). ready: the rung's own
 * [3][SL_MAX_DEVICES] flags. */
static sl_status sbwd_bulk_prepare(const void *fn, sl_dtype dt, uint32_t maxv, int (*ready)[SL_MAX_DEVICES])
{
    return sl_cuda_row_smem_allow(fn, (int)(2 * maxv * 16), ready[dt == SL_F32 ? 0 : dt == SL_BF16 ? 1 : 2]);
}

/* Whether fn's sm_90 code was loaded for this device (bulk_code_ok: a build
 * without sm_90 that runs on an H200 JITs PTX whose kernel body is empty
 * and traps). cache: the rung's own [3][SL_MAX_DEVICES] flags. */
static sl_status sbwd_bulk_code(const void *fn, sl_dtype dt, int (*cache)[SL_MAX_DEVICES])
{
    return bulk_code_ok(fn, cache[dt == SL_F32 ? 0 : dt == SL_BF16 ? 1 : 2]);
}

#endif /* SL_SBWD_BULK_CUH */
