/*
 * rmsnorm backward rung 7 (bulk): the row in shared memory
 * (common/norm_bwd_bulk.cuh), softmax_bwd's bulk rung (its 04_bulk.cu)
 * made persistent. A row of nvv 16-byte vectors is cut into C = 1, 2, 4
 * or 8 chunks of at most 1024 vectors of x and of dy (16 KiB each; f32
 * rows past 32768 columns: 2048), one block of 512 threads a chunk, the C
 * blocks of a row a thread block cluster; a cluster (team) owns rows
 * team, team + nteams, ..., so each block owns one column chunk for the
 * whole launch. Thread 0 stages the chunk of x and dy by cp.async.bulk
 * into one of two buffers (an mbarrier each) two rows ahead; the threads
 * form D = sum w dy x and the dw terms (dy rstd) x from shared memory (dw
 * in registers, 16 columns a thread, the same columns every row), add D
 * over the block (shared memory) and the cluster (distributed shared
 * memory: one cluster barrier a row), and write dx from shared memory, one
 * 16-byte st.global a vector. Every 256 rows of a team each block writes
 * its columns of the round's dw partial row (norm_bwd_regs's partial rows
 * and count, norm_bwd_grid_of: the same workspace, sl_rmsnorm_bwd_workspace,
 * and the same fp64 finish in order: deterministic, no atomics).
 *
 * Change from rung 6 (aligned): at 16384-65536 columns aligned takes
 * regs_sm in clusters of 2-8 blocks of 256 (512 at 65536): x and dy in
 * registers (4 vectors of each a thread), loaded only once the previous
 * row's two cluster barriers are passed, so while a cluster waits at them
 * its SMs have no loads in flight (bf16 on the H200: 0.74 of the copy at
 * 8192 x 16384, 0.68 at 8192 x 65536; docs/ladder.md).
 * Bytes in flight: here the loads do not wait for the sums. A block of 512
 * threads asks (4 + 1) x 16 KiB of shared memory (bf16; two stages of x
 * and dy and w's chunk), two blocks an SM (64 registers a thread): while a
 * block works on row k, rows k + 1 and k + 2 of its chunk are requested,
 * up to 2 x 2 x 32 KiB = 128 KiB of x and dy in flight a SM, against
 * aligned's 3 x 256 x 4 x 32 B = 96 KiB at most and none at the barriers.
 * Expectation (unmeasured, docs/ladder.md): the copy's bandwidth on the
 * op's bytes, about 0.9-1.0 of the copy kernel at 8192 x 16384-65536
 * (bf16), as softmax_bwd's bulk rung reached 1.09 at 16384 x 131072.
 * Limits: aligned launches (norm_fwd_aligned: every buffer on 16 bytes,
 * cols and ld whole vectors), rows of at most 8 x 1024 vectors (65536
 * columns in every dtype), sm_90 (cp.async.bulk, clusters); else
 * SL_ERR_UNSUPPORTED.
 *
 * Tenth session (docs/ladder.md, "The long rows: bulk's instructions an
 * element"): x, dy and w widened one instruction an element (a shift or
 * a mask for bf16) where sl_dt's load took two for a pair's high half:
 * the same values, 568 -> 521 instructions a warp and row at bf16 (2 vectors a thread);
 * unmeasured.
 */
#include "norm_bwd_bulk.cuh"
#include "rmsnorm_bwd.cuh"

/* bulk (ex = NB_BULK), bulk_ex (NB_EX, 11_bulk_ex.cu), bulk_exw (NB_EXW,
 * 12_bulk_exw.cu), bulk_exw3 (NB_EXW3, 13_bulk_exw3.cu) and bulk_pipe
 * (NB_PIPE, 14_bulk_pipe.cu) and bulk_q (NB_Q, 15_bulk_q.cu): the kernel's EX;
 * named who in messages. */
extern "C" sl_status sl_cuda_rmsnorm_bwd_bulk_rung(const sl_args *a, int ex, const char *who)
{
    sl_status st = sl_norm_check(a, SL_RMSB_W, "rmsnorm_bwd", who);
    if (st != SL_OK || a->shape.rows == 0 || a->shape.cols == 0)
        return st;
    norm_bwd_cfg c = {};
    st = ex == NB_Q      ? norm_bwd_bulk_plan<NORM_RMS, NB_Q>(a, SL_RMSB_W, "rmsnorm_bwd", who, &c)
         : ex == NB_PIPE ? norm_bwd_bulk_plan<NORM_RMS, NB_PIPE>(a, SL_RMSB_W, "rmsnorm_bwd", who, &c)
         : ex == NB_EXW3 ? norm_bwd_bulk_plan<NORM_RMS, NB_EXW3>(a, SL_RMSB_W, "rmsnorm_bwd", who, &c)
         : ex == NB_EXW ? norm_bwd_bulk_plan<NORM_RMS, NB_EXW>(a, SL_RMSB_W, "rmsnorm_bwd", who, &c)
         : ex == NB_EX ? norm_bwd_bulk_plan<NORM_RMS, NB_EX>(a, SL_RMSB_W, "rmsnorm_bwd", who, &c)
                       : norm_bwd_bulk_plan<NORM_RMS, NB_BULK>(a, SL_RMSB_W, "rmsnorm_bwd", who, &c);
    if (st != SL_OK)
        return st;
    return norm_bwd_run_rms(a, &c, who);
}

extern "C" sl_status sl_cuda_rmsnorm_bwd_bulk(const sl_args *a)
{
    return sl_cuda_rmsnorm_bwd_bulk_rung(a, 0, "bulk");
}
