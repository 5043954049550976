/*
 * layernorm backward rung 7 (bulk): the row in shared memory, rmsnorm_bwd's
 * bulk rung (its 05_bulk.cu says how; the kernel is common/norm_bwd_bulk.cuh
 * in MODE NORM_LN) with layernorm's per-row numerics (norm_bwd_regs's): xh
 * = (x - mean) rstd, g = w dy, the two row sums sum g and sum g xh formed
 * in one pass from shared memory and sent to the cluster together (one
 * st.async of 8 bytes a block and peer), dx = fmaf(-xh, c2, g - c1) rstd
 * written from shared memory; dw += dy xh and db += dy in registers (32
 * columns' sums a thread at 16-bit), written every 256 rows of a team as
 * the two halves of the workspace's partial rows (sl_layernorm_bwd_ws, the
 * regs rungs' layout) and finished in fp64 in order (deterministic).
 *
 * Change from rung 6 (aligned): at 16384-65536 columns aligned takes
 * regs_sm in clusters with four cluster barriers a row (two team sums),
 * none of its loads in flight while a cluster waits at them (bf16 on the
 * H200: 0.60 of the copy at 8192 x 16384, 0.54 at 8192 x 65536;
 * docs/ladder.md). Bytes in flight: as rmsnorm_bwd's bulk rung, up to two
 * rows of each block's chunk of x and dy requested ahead of the one it
 * works on (2 blocks of 512 a SM, (4 + 1) x 16 KiB of shared memory each
 * at bf16: 128 KiB of x and dy in flight a SM), and no cluster barrier a
 * row. Expectation (unmeasured, docs/ladder.md): about 0.85-0.95 of the
 * copy at 8192 x 16384-65536 (bf16): the same bytes as rmsnorm_bwd's, a
 * few more instructions an element (the mean, the second sum, db).
 * Limits: as rmsnorm_bwd's bulk rung (aligned launches, rows of at most
 * 65536 columns, sm_90); else SL_ERR_UNSUPPORTED.
 *
 * Tenth session (docs/ladder.md, "The long rows: bulk's instructions an
 * element"): x, dy and w widened one instruction an element (a shift or
 * a mask for bf16) where sl_dt's load took two for a pair's high half:
 * the same values, 694 -> 645 instructions a warp and row at bf16 (2 vectors a thread);
 * unmeasured.
 */
#include "layernorm_bwd.h"
#include "norm_bwd_bulk.cuh"

/* bulk (ex = NB_BULK), bulk_ex (NB_EX, 11_bulk_ex.cu), bulk_exw (NB_EXW,
 * 12_bulk_exw.cu), bulk_exw3 (NB_EXW3, 13_bulk_exw3.cu) and bulk_pipe
 * (NB_PIPE, 14_bulk_pipe.cu) and bulk_q (NB_Q, 15_bulk_q.cu): the kernel's EX;
 * named who in messages. */
extern "C" sl_status sl_cuda_layernorm_bwd_bulk_rung(const sl_args *a, int ex, const char *who)
{
    sl_status st = sl_norm_check(a, SL_LNB_W, "layernorm_bwd", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    norm_bwd_cfg c = {};
    st = ex == NB_Q      ? norm_bwd_bulk_plan<NORM_LN, NB_Q>(a, SL_LNB_W, "layernorm_bwd", who, &c)
         : ex == NB_PIPE ? norm_bwd_bulk_plan<NORM_LN, NB_PIPE>(a, SL_LNB_W, "layernorm_bwd", who, &c)
         : ex == NB_EXW3 ? norm_bwd_bulk_plan<NORM_LN, NB_EXW3>(a, SL_LNB_W, "layernorm_bwd", who, &c)
         : ex == NB_EXW ? norm_bwd_bulk_plan<NORM_LN, NB_EXW>(a, SL_LNB_W, "layernorm_bwd", who, &c)
         : ex == NB_EX ? norm_bwd_bulk_plan<NORM_LN, NB_EX>(a, SL_LNB_W, "layernorm_bwd", who, &c)
                       : norm_bwd_bulk_plan<NORM_LN, NB_BULK>(a, SL_LNB_W, "layernorm_bwd", who, &c);
    if (st != SL_OK)
        return st;
    return norm_bwd_run_ln(a, &c, who);
}

extern "C" sl_status sl_cuda_layernorm_bwd_bulk(const sl_args *a)
{
    return sl_cuda_layernorm_bwd_bulk_rung(a, 0, "bulk");
}
