/*
 * transfer.h - the host <-> device transfer cost of one call of an op
 * (issue 14, `streamlab run --include-transfer`): what a program whose data
 * live in ordinary host memory pays around the kernel, as seed 002's CPU vs
 * GPU experiment counts it (cudaMemcpy of the inputs in, the output out).
 */
#ifndef SL_TRANSFER_H
#define SL_TRANSFER_H

#include "internal.h"

/* Time copying every buffer the op reads from a pageable host array into
 * bufs[k], and every buffer it writes back to one (the backend's upload and
 * download, which wait), for op at shape s in dtype dt; the median of three
 * repetitions, in ms, into *ms. The device buffers' contents are
 * overwritten (the harness refills inputs before each row). SL_ERR_NO_MEMORY
 * without host memory for the staging array. */
sl_status sl_measure_transfer(sl_ctx *ctx, const sl_op_desc *op, sl_dtype dt, const sl_shape *s, void *const *bufs,
                              double *ms);

#endif /* SL_TRANSFER_H */
