/*
 * softmax rung 9 (ours): the row staged in shared memory by the bulk-copy
 * engine (cp.async.bulk, sm_90; bulk_copy.cuh), read once from DRAM and
 * written once, as the bulk rungs of softmax_bwd and xent (04_bulk.cu
 * there) do. A row is cut into C = 1, 2, 4 or 8 chunks of at most 72 KiB,
 * one block of 512 threads a chunk, the C blocks of a row one thread
 * block cluster. Thread 0 issues the chunk's loads as 16 KiB pieces, each
 * completing on its own mbarrier, so that the block starts on piece 0
 * while the others land. One sweep over shared memory carries each
 * thread's online (max, sum) (Milakov and Gimelshein 2018: the running
 * sum rescaled when a piece raises the max, at most once a piece); the
 * block folds its 512 states through warp butterflies (one exp a thread
 * to rescale), the cluster's blocks exchange their (max, sum) once
 * through distributed shared memory (lanes 0..C-1 of warp 0 read one rank
 * each and fold them the same way in every block: the same bits), and a
 * second sweep writes y = exp(x - M) (1 / S) from shared memory with
 * 16-byte st.global. In place (y == x) is safe: a block writes only its
 * own chunk, after all of it has landed.
 *
 * Change from rung 8 (regs): regs holds a row in registers (32 elements a
 * thread under a 64-register cap, 64 packed for 16-bit many-row shapes),
 * so at 2^17 columns a row is a cluster of 8 blocks of 512-1024 threads
 * and an SM holds one row segment: its load, reduce, cluster-barrier and
 * store phases run one after the other (0.72 / 0.74 of the copy at
 * 16384 x 131072 f32 / bf16); at 128 rows x 2^15 one 1024-thread block a
 * row runs load -> reduce -> store on 128 of 132 SMs (0.58 / 0.47).
 * Bytes in flight: here the data costs no registers (the kernel is capped
 * at 40, three 512-thread blocks an SM). (a) Long rows: an SM holds three
 * chunks of up to 72 KiB, each block in its own phase, and one bulk copy
 * puts 16 KiB in flight from one instruction, so the loads requested per
 * SM go from regs' 128 KiB in the load phase only (then none while it
 * reduces and stores) to up to 216 KiB whenever one of its three blocks
 * is loading; Little's law needs ~50 KiB an SM (33 GB/s an SM x ~1.5 us).
 * (b) Few rows: a row is split until rows x C exceeds the SM count (C up
 * to 8, chunks of at least 16 KiB): 128 rows of 2^15 f32 become 256
 * blocks of 64 KiB, all loads of an SM (128 KiB) in flight at once from
 * four-odd instructions, the exp sweep hidden under the later pieces'
 * arrival, two blocks (32 warps) an SM for the exp work instead of one.
 *
 * Numerics: softmax.cuh's, with the online rescale: f32 uses the accurate
 * expf everywhere (the sum's terms, the rescales, the write pass); bf16 /
 * f16 use ex2.approx.ftz (smx_exp_ftz, as regs' packed kernel), the max
 * on packed pairs (HMNMX2). Each thread adds at most 9 vectors (36 f32 or
 * 72 16-bit terms) a chunk in order, a piece's terms first; the state is
 * rescaled at most once a piece (5 a chunk), once to the warp's max and
 * once to the row's: within the op's bound (16 + ln(1/|y|) + ln n) x
 * 2^-24 (test_gpu_softmax checks it on the wide rows). Special rows as
 * the formula: a NaN makes its row NaN (its term reaches S, the factor
 * of an all -inf thread state is 0 times S, which keeps a NaN), +inf
 * gives inf - inf = NaN, a row of -inf gives M = -inf and NaN.
 *
 * Limits: x and y 16-byte aligned, rows a whole number of 16-byte vectors
 * (cols x size and ld x size multiples of 16: cols a multiple of 4 in f32,
 * of 8 in bf16 / f16), at most 8 x 72 KiB a row (2^17 + 2^14 f32 columns,
 * 2^18 + 2^15 bf16 / f16), sm_90 with sm_90 code in the binary; anything
 * else is SL_ERR_UNSUPPORTED with the reason (the other rungs take it).
 * Expectation (written before the first run; docs/ladder.md, "Softmax
 * forward, seventh session"): 0.93-0.97 of the copy kernel at 16384 x
 * 131072 f32 and bf16 and at 4096 x 32768, 0.7-0.85 at 128 x 2^15, level
 * with regs at 128 x 2^12 and the decode rows (launch and latency bound).
 *
 * The kernel, its plan and launch are smx_bulk.cuh's template (shared with
 * rung 10, bulk_ex); bulk is its configuration
 * row_bulk_cfg<512, 3, SB_MAXV, 0> (row.cuh).
 */
#include "smx_bulk.cuh"

typedef row_bulk_cfg<512, 3, SB_MAXV, 0> sb_bulk;

extern "C" sl_status sl_cuda_softmax_bulk(const sl_args *a)
{
    return sb_run<sb_bulk>(a, "bulk");
}

extern "C" sl_status sl_cuda_softmax_bulk_attrs(sl_dtype dt, sl_kernel_attrs *out)
{
    return sb_attrs<sb_bulk>(dt, out);
}
