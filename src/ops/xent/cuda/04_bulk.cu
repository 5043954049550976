/*
 * cross-entropy rung 4 (ours): fused forward and backward with the row
 * staged in shared memory by the bulk-copy engine (cp.async.bulk, sm_90;
 * bulk_copy.cuh), the logits read once from DRAM and the gradient written
 * once. A row of B bytes is cut into C = 1, 2, 4 or 8 equal chunks of at
 * most 72 KiB (the fewest that fit), one block of 512 threads a chunk, the
 * C blocks of a row one thread block cluster. Thread 0 issues the chunk's
 * loads (16 KiB a copy) on one mbarrier; the block then makes three passes
 * over shared memory: the chunk's max (16-bit storage: on packed pairs,
 * max.bf16x2 / max.f16x2, one instruction a word), its sum of
 * exp(x - m_b) (and, with smoothing, of x), then the gradient, stored from registers with 16-byte
 * st.global. A cluster's blocks exchange (max, sum, sum x, target logit)
 * once through distributed shared memory and merge them as the online
 * normaliser does (thread 0 reads the C slots, the block gets the result
 * through its own shared memory); the target's logit comes from the
 * chunk that holds it, so x is never read twice. In place (dx = x) is
 * safe: a block writes only its own chunk, after all of it has landed
 * (the target's element twice, by one thread, in program order).
 *
 * Change from rung 2 (regs): regs held a row in registers with 16
 * registers of data a thread under a 64-register cap, so at 2^15 columns
 * a row took a cluster of 4 x 256 threads and an SM held one row: its
 * load, reduce, cluster-barrier and store phases ran one after the other
 * (0.58 of the copy at 16384 x 2^15, docs/ladder.md). Here the data costs
 * no registers: an SM holds three chunks of <= 72 KiB (3 x 512 threads,
 * 40 registers), each in its own phase, so one block's loads overlap
 * another's passes and stores, and 16-64 KiB a chunk are in flight from
 * one instruction.
 * Limits: logits and dx 16-byte aligned, each row a whole number of
 * 16-byte vectors (cols x size and ld x size multiples of 16: every
 * vocabulary that is a multiple of 8 in bf16 / f16, of 4 in f32), at most
 * 8 x 72 KiB a row (2^18 + 2^15 bf16 columns, 2^17 + 2^14 f32), sm_90;
 * anything else is SL_ERR_UNSUPPORTED (the public function then takes
 * the other rungs).
 * Expectation (written before the first run): the copy's bytes plus 12 B
 * a row; about 12 instructions and 2 MUFU.EX2 an element, 0.2 and 0.28 ms
 * of issue at 16384 x 32000 bf16 on 132 SMs against ~0.7 ms of copy:
 * DRAM-bound, ~0.9-0.95 of the copy kernel at 16384 x {32000, 131072}.
 * Measured (H100, bf16, bandwidth / the copy kernel's in one process;
 * docs/ladder.md, "The bulk rungs"): 1.05 at 16384 x 32000 (one block a
 * row), 0.93 at 16384 x 131072 (clusters of 4; the packed max added 1%
 * there), against 0.73 for the unfused pair the public function ran
 * before. 32 KiB chunks (4 blocks an SM, clusters of 8) measured 0.89
 * and 0.87.
 *
 * Fewer instructions an element (fourth session, issue 33; H200 0.806 /
 * 0.791 of the copy at 2^17 / 2^18 bf16, ncu on an H100: issue 0.55 a
 * scheduler, DRAM 73%). Read from the sm_90 SASS of the bf16 kernel,
 * executed thread-instructions an element in the hot loops, before ->
 * after: max 0.75 -> 0.75 (HMNMX2 already), sum of exp 6.2 -> 4.4,
 * gradient 8.3 -> 5.1; 15.2 -> 10.3 (docs/ladder.md has the counts):
 *  - exp(x - ref) as 2^(x log2 e + nl), nl = -ref log2 e rounded once a
 *    block: one FFMA and one MUFU.EX2, where x - ref, a multiply and the
 *    MUFU took three (as 03_bwd.cu);
 *  - bf16 widened by one instruction an element (the high half masked,
 *    not shifted down and up);
 *  - the target's - (1 - eps) g not tested per element (8 compares and
 *    predicated adds a vector, a BSSY region): the thread that stored the
 *    target's vector stores that element again, same expression minus
 *    one1g (program order keeps its second store); an ignored row is a
 *    block-uniform loop of zero stores;
 *  - four vectors a step (XU) with no bounds test between them, the
 *    loads' and stores' addresses immediate offsets from one pointer;
 *  - the block's reductions read the 16 warp values as four LDS.128
 *    (row.cuh's smx_block with the block size a constant: its unrolled
 *    fold of red[0..15] is vectorised by the compiler; the generic
 *    xent_block loops over blockDim.x / 32).
 * Numerics of the fma form: the rounding of ref log2 e multiplies every
 * term 2^t of a block (its sum and its gradient) by one factor 2^e,
 * |e| <= |ref| log2 e 2^-24; within a block it cancels in p = 2^t / S, so
 * the target at the row's max (p near 1, p - (1 - eps) cancelling) stays
 * exact to the absolute term; across the cluster's blocks the factors
 * differ: (|ref| + |M|) 2^-24 relative on p, and the fma rounds once
 * (|x - ref| 2^-24): (|x - ref| + |ref| + |M|) 2^-24 <= 3 S 2^-24 where
 * |x|, |ref| <= S, and where they are not p <= e^-(|x| - S) and the
 * excess is under the absolute (16 + L) 2^-24: inside api.h's 4 S 2^-24
 * relative (the old form: 2 |x - ref| 2^-24). Tolerance text unchanged.
 *
 * The kernel, its plan and launch are xk_bulk.cuh's template (shared with
 * rung 5, bulk_ex); bulk is its configuration
 * row_bulk_cfg<512, 3, XK_MAXV, 0> (row.cuh).
 */
#include "xk_bulk.cuh"

typedef row_bulk_cfg<512, 3, XK_MAXV, 0> xk_bulk;

bool sl_cuda_xent_bulk_fits(const sl_xent_args *a)
{
    return xk_fits<xk_bulk>(a);
}

sl_status sl_cuda_xent_bulk_run(const sl_xent_args *a)
{
    return xk_run<xk_bulk>(a, "bulk");
}

extern "C" sl_status sl_cuda_xent_bulk(const sl_args *a)
{
    const sl_xent_args x = sl_xent_from(a, 1);
    return sl_cuda_xent_bulk_run(&x);
}

extern "C" sl_status sl_cuda_xent_bulk_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return xk_attrs<xk_bulk>(dt, out);
}
