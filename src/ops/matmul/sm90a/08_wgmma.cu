/*
 * 08_wgmma.cu - rung 8: Hopper warpgroup MMA (wgmma.mma_async) fed by the
 * Tensor Memory Accelerator through a multi-stage mbarrier pipeline.
 * sm_90a only (CMakeLists.txt compiles this file for compute_90a where the
 * build targets sm_90; elsewhere the kernel body is empty and the launcher
 * reports the rung unavailable, SL_ERR_UNSUPPORTED, before launching).
 *
 * Change from rung 7 (ldmatrix + mma.sync, 128 x 128 tiles):
 *  - operands never pass through registers: wgmma reads A and B from shared
 *    memory through 64-bit matrix descriptors (PTX ISA, "Asynchronous
 *    Warpgroup Level Matrix Multiply-Accumulate", "Matrix Descriptor"), so a
 *    warpgroup's 64 x 256 accumulator tile (128 fp32 registers a thread) is
 *    affordable and the block tile grows to 128 x 256;
 *  - TMA (cp.async.bulk.tensor.2d) copies each 64-wide K slice of A (128 x
 *    64, K-major) and B (64 x 256 as four 64 x 64 boxes, N-major: B is
 *    row-major K x N, which wgmma reads with its transpose bit) into shared
 *    memory in the 128-byte swizzled layout wgmma expects, zero-filling what
 *    lies outside the matrix (the ragged edges in M, N and K cost nothing);
 *  - warp specialisation: warpgroup 0 is the producer (one thread issues the
 *    TMA copies, setmaxnreg gives its registers away), warpgroups 1 and 2
 *    consume, each a 64 x 256 half of the block tile; 4 stages of 48 KiB
 *    (192 KiB of shared memory, one block per SM), a "full" mbarrier per
 *    stage (the TMA's transaction count) and an "empty" one (one arrival per
 *    consumer warp); consumers keep one K slice of wgmma in flight
 *    (wgmma.wait_group 1) and free the stage of the slice before;
 *  - epilogue straight from the accumulators: alpha acc + beta c rounded
 *    once into the dtype, two adjacent columns per 4-byte store where C
 *    allows, bounds-checked; grouped block order (8 block rows) for L2.
 *    Nineteenth session: where beta = 0 and C suits TMA (16-byte aligned,
 *    ldc and N multiples of 8: a TMA store writes whole 16-byte chunks, so
 *    a row ending inside one would be written past N; the twentieth
 *    session's test caught it at N = 390) in the configurations of one tile a CTA without
 *    multicast (1, 2, 11-13), each consumer warp writes its 16 rows,
 *    rounded, into the idle stage memory in the 128-byte swizzled layout
 *    (conflict-free 4-byte stores) and stores them with TMA boxes of 16 x
 *    64, which clip at C's edges. ncu at 4096^3 had put 12.9% of the warps'
 *    stall samples in the old epilogue (~2,300 instructions a thread, a
 *    bounds check and a branch per pair) with the tensor pipe idle; after
 *    its first form (boxes of 64 rows a warpgroup), 2.1%. Configuration 1 against cuBLAS in the same process (graph
 *    replay): 0.80 -> 0.96 at 2048^3, 0.84 -> 0.87-0.94 at 4096^3, 0.945
 *    -> 0.99 at 8192^3 (bench/results/h200-gemm-tstore-2026-11-28.md).
 * Arithmetic intensity: to L2 2 BM BN / ((BM + BN) 2 B) = 85.3 flop/B
 * (128 x 256, bf16); shared memory: wgmma reads the A (16 KiB) and B
 * (32 KiB) of a slice once per consumer warpgroup, 2 x 128 x 256 x 64
 * flops per (2 x 8 + 2 x 32) KiB = 51.2 flop/B.
 * Expected limiter: compute (the tensor pipe, 989 TFLOP/s dense) if the
 * pipeline hides TMA latency, with the L2 roof (85 flop/B x 7.66 TB/s =
 * 654 TFLOP/s) just above the 0.70 x cuBLAS bar; no cluster multicast.
 * Configurations (issue 26; the kernel is a template over them): block
 * tile 128 x BN (BN = 256; 192, 128 or 64 with wgmma m64nBNk16 and 5, 6 or
 * 8 stages), K
 * split over SPLIT = 1, 2 or 4 CTAs of a cluster (each K rank sends the
 * rows it does not own to their owner's idle stage memory with
 * st.shared::cluster; the owner sums the partials in rank order: no
 * workspace, deterministic), B multicast by TMA to MC = 2 block rows of a
 * cluster, and programmatic dependent launch (griddepcontrol). sl_gemm's
 * choice by shape: sl_cuda_mm_wgmma_pick; measurements in docs/ladder.md.
 * Persistent configurations (PERSIST, issue 26; cfg 8 = 128 x 256, 9 =
 * 128 x 128, 10 = 128 x 128 ping-pong): a grid of one CTA per SM walks the
 * tiles in the same grouped order, tile b, b + P, ... for CTA b of P; the
 * producer's stage and phase counters run on across tiles and the
 * consumers release a tile's last stage before its epilogue, so up to
 * STAGES slices of the next tile (all 192 KiB of stages) are in flight
 * while the epilogue stores, and no SM launches a CTA, initialises
 * barriers or waits for a pipeline fill more than once. Ping-pong also
 * takes the epilogue off the tensor pipe's path: each consumer warpgroup
 * owns whole 128 x 128 tiles and the two main loops alternate. Expected
 * effect: only on grids of more than one wave (one tile per CTA is the
 * old kernel), ~1.3 us per tile after a CTA's first (of the 3.8 us fixed
 * cost per wave fitted at 1024^3 and 2048^3), 1-2.5% from 4096^3 up;
 * docs/ladder.md, "Persistent tiles".
 * The split's one-sided exchange (EX, issue 26; cfg 11 = 128 x 128 split 2,
 * 12 = 128 x 128 split 4, 13 = 128 x 256 split 2): the two cluster
 * barriers around the exchange through stage memory (cfg 3-5) become one
 * st.async per 16 bytes into a receive buffer of the owner's own (32 / 48
 * / 64 KiB after 6 / 5 / 3 stages), completing the owning warp's mbarrier
 * by its bytes: a rank sends as soon as its own main loop ends and waits
 * only for the bytes it sums. Bytes in flight in the main loop: 6 / 5 / 3
 * stages of 32 / 32 / 48 KiB (cfg 3-5: 6 / 6 / 4), 96-192 KiB, still
 * several slices ahead of the 4-8 a CTA computes at 1024^3. Expected
 * effect: the exchange's 3.0 us (128 x 128) and 4.8 us (128 x 256) down to
 * 1-1.5 and ~2; docs/ladder.md, "Split-K with a one-sided exchange".
 * Dispatch (sl_cuda_mm_wgmma): needs an sm_90 device (compute capability
 * 9.0 exactly: sm_90a code runs nowhere else), bf16 or f16, A and B with
 * 16-byte aligned bases and leading dimensions (lda, ldb multiples of 8
 * elements: TMA's rule for global addresses and strides) and extents below
 * 2^31 (TMA coordinates are int32); otherwise it runs rung 7 (`best`).
 */

#include "../cuda/mm_common.cuh"
#include "bulk_copy.cuh"  /* st.async and the split cluster barrier (src/ops/common; sm_90 only) */
#include "tensor_map.cuh" /* the host's encoder (tmap_encoder, tmap_encode_2d_raw): no -lcuda */

#include <atomic>

#ifndef SL_MM_WGMMA_SM90A
#define SL_MM_WGMMA_SM90A 0 /* CMakeLists.txt: 1 when this file is compiled for sm_90a */
#endif

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MM_WGMMA_DEVICE 1
#else
#define MM_WGMMA_DEVICE 0
#endif

namespace {

constexpr int BM = 128, BK = 64;
constexpr int A_BYTES = BM * BK * 2; /* 16 KiB: 128 rows of 128 swizzled bytes */
constexpr int NT = 384;              /* 3 warpgroups: producer + 2 consumers */

/* Tile scheduling (the kernel's PERSIST): one tile per CTA; persistent, both consumer warpgroups on each
 * tile; persistent ping-pong, each consumer warpgroup on its own tiles. */
constexpr int P_NONE = 0, P_COOP = 1, P_PINGPONG = 2;

constexpr int SMEM_MAX = 232448; /* 227 KiB: the most dynamic shared memory an sm_90 CTA may have */

/* One configuration of the kernel's shared memory: block tile 128 x BN
 * (BN = 256, 192, 128 or 64), K split over SPLIT CTAs of a cluster (partial tiles
 * summed through distributed shared memory), EX: the split's one-sided
 * exchange, which receives the peers' partials in a buffer of its own
 * (RED bytes after the stages: OWN owned consumer warps x SPLIT - 1 peers
 * x FRAG, one warp's partial) and one mbarrier per owned warp. Stages: 4
 * of 48 KiB (BN = 256), 5 of 40 KiB (192), 6 of 32 KiB (128) or 8 of 24
 * KiB (64),
 * fewer where they and
 * the receive buffer would pass 227 KiB. */
template <int BN, int SPLIT, bool EX> struct wg_cfg {
    static constexpr int B_BYTES = BK * BN * 2;            /* 32 / 16 / 8 KiB: BN / 64 boxes side by side in N */
    static constexpr int STAGE_BYTES = A_BYTES + B_BYTES;  /* what one stage's full barrier expects */
    static constexpr int OWN = EX ? 8 / SPLIT : 0;         /* consumer warps (16 rows each) a K rank owns */
    static constexpr int FRAG = 32 * (BN / 2) * 4;          /* one warp's partial: 32 lanes x BN / 2 floats */
    static constexpr int RED = EX ? OWN * (SPLIT - 1) * FRAG : 0;
    static constexpr int STAGES_MAX = BN == 256 ? 4 : BN == 192 ? 5 : BN == 128 ? 6 : 8; /* 192-200 KiB of stages */
    static constexpr int FIT = (SMEM_MAX - 1024 - 256 - RED) / STAGE_BYTES; /* 256: room for the barriers */
    static constexpr int STAGES = FIT < STAGES_MAX ? FIT : STAGES_MAX;
    /* stages, receive buffer, full + empty + ping-pong's turn + EX's barriers, 1024-byte alignment slack */
    static constexpr size_t SMEM = (size_t)STAGES * STAGE_BYTES + RED + (2 * STAGES + 2 + OWN) * 8 + 1024;
    static_assert(STAGES >= 3 && SMEM <= SMEM_MAX, "the stages and the receive buffer fit 227 KiB");
};

std::atomic<unsigned long long> g_launches{0};
std::atomic<unsigned long long> g_tstore_launches{0}; /* those of them that took the TMA-store epilogue */

/* The configurations that can take the TMA-store epilogue: the stages must be idle after the main loop, so
 * one tile a CTA, no B multicast (left as measured), and a split only with the one-sided exchange (the
 * two-barrier one sends its partials into the stages). A's multicast (MA, never split) takes it: its cluster
 * barrier after the main loop leaves no copy or remote arrival pending. The kernel's TSTORE and the host's
 * choice both ask this. */
constexpr bool tstore_cfg(int split, int mc, int persist, bool ex)
{
    return !persist && mc == 1 && (split == 1 || ex);
}

#if MM_WGMMA_DEVICE /* the device helpers exist in the sm_90a pass only (unused elsewhere) */
constexpr int BBOX_BYTES = BK * 64 * 2; /* 8 KiB: one 64 (K) x 64 (N) box of B */
constexpr int CBOX_BYTES = 16 * 64 * 2; /* 2 KiB: one 16 x 64 box of C, a warp's (the TMA-store epilogue) */

/* ---- device helpers (PTX ISA 8.x: mbarrier, cp.async.bulk.tensor, wgmma) ---- */
__device__ __forceinline__ void mbar_init(uint32_t bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
/* Wait until the phase of parity `parity` of the barrier has completed. */
__device__ __forceinline__ void mbar_wait(uint32_t bar, unsigned parity)
{
    unsigned done = 0;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
    } while (!done);
}
/* 2-D TMA copy of one box at coordinates (c0 innermost, c1) into shared memory, completing on bar. */
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap *map, int c0, int c1, uint32_t bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];\n" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}
/* Shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor Format"):
 * bits 0-13 start address >> 4, 16-29 leading-dimension byte offset >> 4,
 * 32-45 stride-dimension byte offset >> 4, 62-63 layout (1 = 128-byte
 * swizzle); base offset 0 (every stage is 1024-byte aligned). */
__device__ __forceinline__ uint64_t sw128_desc(uint32_t addr, uint32_t lbo, uint32_t sbo)
{
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32) |
           (1ull << 62);
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

/* ---- clusters (PTX ISA: barrier.cluster, mapa, multicast TMA) ---- */
/* cluster_sync, map_rank and the remote vector store are mm_common.cuh's (mm_cluster_sync, mm_map_rank,
 * mm_st_cluster_v4, shared with rung 10); st.async and the split cluster barrier are common/bulk_copy.cuh's */
/* Arrive on an mbarrier of another CTA of the cluster (a shared::cluster
 * address), default semantics (release, CTA scope: the arrival only tells
 * the producer that a stage's wgmma reads are done; no data is published). */
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar)
{
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(bar) : "memory");
}
/* As tma_load_2d, the box written at the same offset of every CTA in `mask`, each one's bar completing. */
__device__ __forceinline__ void tma_load_2d_mc(uint32_t dst, const CUtensorMap *map, int c0, int c1, uint32_t bar,
                                               uint16_t mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
                 "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
                 : "memory");
}
__device__ __forceinline__ float4 ld_shared_v4(uint32_t addr)
{
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr)
                 : "memory");
    return v;
}

/* d (64 x N fp32, this thread's N / 2) += A (64 x 16, K-major) B (16 x N,
 * N-major: imm-trans-b = 1), both through descriptors; accumulate = 0:
 * d = A B (scale-d, PTX ISA wgmma.mma_async). N = 256, 192, 128 or 64. */
#define MM_WGMMA_N256(TY)                                                                          \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                                     \
    "wgmma.mma_async.sync.aligned.m64n256k16.f32." TY "." TY "\n{"                                      \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
    "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
    "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
    "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
    "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95," \
    "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111," \
    "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127" \
    "},\n%128, %129, p, 1, 1, 0, 1;\n}\n"

#define MM_WGMMA_N192(TY)                                                                          \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"                                                     \
    "wgmma.mma_async.sync.aligned.m64n192k16.f32." TY "." TY "\n{"                                      \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
    "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
    "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63," \
    "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79," \
    "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95" \
    "},\n%96, %97, p, 1, 1, 0, 1;\n}\n"

#define MM_WGMMA_N128(TY)                                                                          \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                                     \
    "wgmma.mma_async.sync.aligned.m64n128k16.f32." TY "." TY "\n{"                                      \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
    "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31," \
    "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47," \
    "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63" \
    "},\n%64, %65, p, 1, 1, 0, 1;\n}\n"

#define MM_WGMMA_N64(TY)                                                                           \
    "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                                     \
    "wgmma.mma_async.sync.aligned.m64n64k16.f32." TY "." TY "\n{"                                       \
    "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15," \
    "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31" \
    "},\n%32, %33, p, 1, 1, 0, 1;\n}\n"

#define WGMMA_OPS256 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
    "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
    "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
    "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
    "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
    "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
    "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

#define WGMMA_OPS192 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
    "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
    "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])

#define WGMMA_OPS128 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])

#define WGMMA_OPS64 \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])

template <class Ts, int N> struct mm_wg_ty;
#define MM_WG_TY(TS, TY, N)                                                                     \
    template <> struct mm_wg_ty<TS, N> {                                                        \
        static __device__ __forceinline__ void mma(float *d, uint64_t da, uint64_t db, int accumulate) \
        {                                                                                       \
            asm volatile(MM_WGMMA_N##N(TY) : WGMMA_OPS##N : "l"(da), "l"(db), "r"(accumulate)); \
        }                                                                                       \
    };
MM_WG_TY(__nv_bfloat16, "bf16", 256)
MM_WG_TY(__half, "f16", 256)
MM_WG_TY(__nv_bfloat16, "bf16", 192)
MM_WG_TY(__half, "f16", 192)
MM_WG_TY(__nv_bfloat16, "bf16", 128)
MM_WG_TY(__half, "f16", 128)
MM_WG_TY(__nv_bfloat16, "bf16", 64)
MM_WG_TY(__half, "f16", 64)
#undef MM_WG_TY

/* two values rounded once into the dtype, packed as C holds them (the lower column in the low half) */
template <class Ts> __device__ __forceinline__ uint32_t pack_pair(float v0, float v1)
{
    Ts o[2] = {mm_from_f32<Ts>(v0), mm_from_f32<Ts>(v1)};
    return *reinterpret_cast<const uint32_t *>(o);
}
/* Two adjacent entries (i, j), (i, j + 1) of C: one 4-byte store where both
 * are inside and C's rows allow it (pair = 1), else one at a time. */
template <class Ts>
__device__ __forceinline__ void store_pair(Ts *c, int64_t ldc, int64_t m, int64_t n, int64_t i, int64_t j, float v0,
                                           float v1, float alpha, float beta, bool pair)
{
    if (i >= m || j >= n)
        return;
    if (pair && j + 1 < n) {
        Ts *at = c + i * ldc + j;
        float a0 = alpha * v0, a1 = alpha * v1;
        if (beta != 0.0f) {
            a0 = fmaf(beta, mm_to_f32(at[0]), a0);
            a1 = fmaf(beta, mm_to_f32(at[1]), a1);
        }
        *reinterpret_cast<uint32_t *>(at) = pack_pair<Ts>(a0, a1);
        return;
    }
    mm_store(c, ldc, i, j, v0, alpha, beta);
    if (j + 1 < n)
        mm_store(c, ldc, i, j + 1, v1, alpha, beta);
}

__device__ __forceinline__ void st_shared_u32(uint32_t at, uint32_t v)
{
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(at), "r"(v) : "memory");
}
/* 2-D TMA store of one box from shared memory at src to coordinates (c0 innermost, c1); the parts of the box
 * outside the tensor are not written. Then the bulk group's commit, and the wait until its reads of shared
 * memory are done (the memory may then be freed or reused). */
__device__ __forceinline__ void tma_store_2d(const CUtensorMap *map, uint32_t src, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(
                     reinterpret_cast<uint64_t>(map)),
                 "r"(src), "r"(c0), "r"(c1)
                 : "memory");
}
__device__ __forceinline__ void tma_store_drain(void)
{
    asm volatile("cp.async.bulk.commit_group;\ncp.async.bulk.wait_group.read 0;\n" ::: "memory");
}
/* Grouped tile order (L2 reuse): G = 8 / MC block rows (whole multicast groups) sweep the block columns
 * together; tile id of gx block columns and gy block rows (groups) -> (block column, block row or group). */
template <int MC> __device__ __forceinline__ int2 tile_at(int id, int gx, int gy)
{
    constexpr int G = 8 / MC;
    const int per = G * gx, first = (id / per) * G, rows = gy - first < G ? gy - first : G;
    return make_int2((id % per) / rows, first + (id % per) % rows);
}

#endif /* MM_WGMMA_DEVICE */

/* The kernel. Grid: x = block columns x SPLIT, y = block rows rounded up to
 * a multiple of MC; cluster (SPLIT, MC, 1), so the CTA's rank in its
 * cluster is kr + mr SPLIT (kr = blockIdx.x % SPLIT: which K range; mr =
 * blockIdx.y % MC: which block row of the multicast group).
 * PERSIST (SPLIT = MC = 1 only): a persistent, tile-scheduled grid of at
 * most one CTA per SM, gridDim = (P, 1, 1); CTA b takes the tiles b, b + P,
 * b + 2P, ... of the same grouped order, and the producer's and consumers'
 * slice counters (stage, phase) run on across its tiles, so the producer
 * loads the next tile's first slices while the consumers run the epilogue
 * of the current one. A CTA without a tile (none: the launcher makes P at
 * most the tile count) would skip both loops and exit.
 * PERSIST = P_PINGPONG (BN = 128): as P_COOP, but each consumer warpgroup
 * owns whole 128 x 128 tiles (two m64n128k16 per 16 of K, 128 accumulator
 * registers), warpgroup 1 the CTA's tiles 0, 2, 4, ..., warpgroup 2 tiles
 * 1, 3, ...; a pair of "turn" mbarriers makes their main loops alternate
 * (warpgroup c starts tile j's main loop once the other has issued the
 * last wgmma of tile j - 1), so one warpgroup's epilogue runs under the
 * other's main loop. The turn order also keeps every full-barrier wait at
 * most one phase ahead of the barrier (tile j's slices are waited for only
 * after all of tile j - 1's have completed), which the parity wait needs.
 * EX (SPLIT > 1, MC = 1 only): the one-sided split-K exchange. The owner of
 * a consumer warp's rows receives the other ranks' partials of them in a
 * receive buffer of its own (not the stages), by st.async, each 16 bytes
 * completing the transaction count of that warp's mbarrier in the owner
 * (armed at launch for (SPLIT - 1) x FRAG bytes); so no rank waits for a
 * peer's main loop before sending, a sending warp exits after its stores,
 * and an owning warp waits for its own rows only. The one cluster barrier
 * (arrived at launch, after the mbarrier set-up; waited before the first
 * remote store) only says that every peer's mbarriers exist. Every CTA
 * owns rows, so every CTA waits until all bytes sent to it have landed
 * before it exits; nothing is read remotely. */
template <class Ts, int BN, int SPLIT, int MC, int PERSIST, bool EX, int MA>
__global__ void __launch_bounds__(NT, 1)
    mm_wgmma_kernel(const __grid_constant__ CUtensorMap tma, const __grid_constant__ CUtensorMap tmb,
                    const __grid_constant__ CUtensorMap tmc, int64_t m, int64_t n, int64_t k, Ts *c, int64_t ldc,
                    float alpha, float beta, int pair, int tstore)
{
#if MM_WGMMA_DEVICE
    static_assert(BN == 256 || BN == 192 || BN == 128 || BN == 64, "BN");
    static_assert(BN / 64 % MC == 0, "B multicast: whole boxes a CTA of the group");
    static_assert(MA == 1 || (MA == 2 && SPLIT == 1 && MC == 1 && !PERSIST), "A multicast: one tile a CTA, no split");
    static_assert(SPLIT == 1 || SPLIT == 2 || SPLIT == 4, "SPLIT");
    static_assert(MC == 1 || MC == 2, "MC");
    static_assert(!PERSIST || SPLIT * MC == 1, "the persistent grid has no clusters");
    constexpr bool PP = PERSIST == P_PINGPONG;
    static_assert(!PP || BN == 128, "ping-pong: 128 x 128 tiles (128 accumulators a thread)");
    static_assert(!EX || (SPLIT > 1 && MC == 1 && !PERSIST), "the one-sided exchange: split K, no multicast");
    using CF = wg_cfg<BN, SPLIT, EX>;
    constexpr int STAGES = CF::STAGES, STAGE_BYTES = CF::STAGE_BYTES;
    constexpr bool CLUSTER = SPLIT * MC * MA > 1;
    constexpr bool TSTORE = tstore_cfg(SPLIT, MC, PERSIST, EX);
    static_assert(!TSTORE || 8 * (BN / 64) * CBOX_BYTES <= STAGES * STAGE_BYTES, "the C tile fits in the stages");
    extern __shared__ unsigned char mm_wg_smem[];
    /* 128-byte swizzle: TMA boxes and descriptors want 1024-byte aligned atoms */
    const uint32_t raw = (uint32_t)__cvta_generic_to_shared(mm_wg_smem);
    const uint32_t base = (raw + 1023u) & ~1023u;
    /* the stages, EX's receive buffer (CF::RED bytes at red), then the barriers: full[s] at bars + 8 s,
     * empty[s] at bars + 8 (STAGES + s), ping-pong's turn[c] at bars + 8 (2 STAGES + c), EX's xbar[o] (owned
     * warp o's partials received) at bars + 8 (2 STAGES + 2 + o) */
    const uint32_t red = base + STAGES * STAGE_BYTES, bars = red + CF::RED, turn = bars + 8 * 2 * STAGES,
                   xbar = turn + 16;
    const int kr = SPLIT > 1 ? (int)(blockIdx.x % SPLIT) : 0;
    const int mr = MC > 1 ? (int)(blockIdx.y % MC) : 0;
    const int ar = MA > 1 ? (int)(blockIdx.x % MA) : 0; /* MA: which block column of the A-sharing pair */

    /* the tiles (block columns gx, block rows or multicast groups gy) in grouped order: tile id's place is
     * tile_at(id); this CTA's tiles are id0, id0 + step, ... below id_end (one tile unless PERSIST) */
    const int gx = PERSIST ? (int)((n + BN - 1) / BN) : (int)gridDim.x / (SPLIT * MA); /* MA: pairs of columns */
    const int gy = PERSIST ? (int)((m + BM - 1) / BM) : (int)gridDim.y / MC;
    const int id0 = PERSIST ? (int)blockIdx.x : (int)(blockIdx.y / MC) * gx + (int)(blockIdx.x / (SPLIT * MA));
    const int id_end = PERSIST ? gx * gy : id0 + 1, step = PERSIST ? (int)gridDim.x : 1;
    /* this CTA's K range: slices [kb, kb + kt) of the kt_all, split evenly over the SPLIT ranks */
    const int kt_all = (int)((k + BK - 1) / BK);
    const int kb = (int)((int64_t)kt_all * kr / SPLIT), kt = (int)((int64_t)kt_all * (kr + 1) / SPLIT) - kb;
    const int wg = threadIdx.x / 128;

    if (threadIdx.x == 0) {
        /* A's and B's tensor maps (kernel parameters) into the TMA unit's cache before the first copy needs
         * them (C's is used once, at the end) */
        asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tma)) : "memory");
        asm volatile("prefetch.tensormap [%0];\n" ::"l"(reinterpret_cast<uint64_t>(&tmb)) : "memory");
        for (int s = 0; s < STAGES; s++) {
            mbar_init(bars + 8 * s, 1);                      /* the producer's arrive.expect_tx */
            /* one arrival per consumer warp of the MC group (ping-pong: of the one warpgroup that owns the slice) */
            mbar_init(bars + 8 * (STAGES + s), PP ? 4 : 2 * 4 * MC * MA);
        }
        if (PP) {
            mbar_init(turn, 4); /* warpgroup 1's turn: one arrival per warp of warpgroup 2 */
            mbar_init(turn + 8, 4);
        }
        /* EX: owned warp o's slots complete phase 0 when the SPLIT - 1 peers' partials (FRAG bytes each) have
         * landed; the one arrival is this arrive.expect_tx (a peer's bytes may land before it: the count only
         * needs both to balance within the phase) */
        for (int o = 0; o < CF::OWN; o++) {
            mbar_init(xbar + 8 * o, 1);
            mbar_expect_tx(xbar + 8 * o, (unsigned)((SPLIT - 1) * CF::FRAG));
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();
    if (MC > 1 || MA > 1)
        mm_cluster_sync(); /* the group's barriers exist before any multicast or remote arrival reaches them */
    if (EX) /* the split barrier: arrive now (thread 0's fence above releases the mbarrier set-up), wait before
             * the first remote store, long after every peer has arrived */
        cluster_arrive_relaxed();
    /* programmatic dependent launch (a no-op when launched without it): everything above overlaps the
     * previous kernel's tail; no global memory is touched before the previous grid has completed and
     * its writes are visible. Then let the next kernel launch (its CTAs wait here in turn). */
    asm volatile("griddepcontrol.wait;\n" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");

    if (wg == 0) {
        /* producer: registers to the consumers; one thread issues the copies */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            /* it: the slices issued so far over this CTA's tiles; use it / STAGES of stage it % STAGES waits
             * for the consumers' release of the use before (phase it / STAGES - 1 of its empty barrier) */
            int it = 0;
            for (int id = id0; id < id_end; id += step) {
                const int2 tl = tile_at<MC>(id, gx, gy);
                const int i0 = (tl.y * MC + mr) * BM, j0 = (tl.x * MA + ar) * BN;
                for (int t = 0; t < kt; t++, it++) {
                    const int s = it % STAGES, kc = (kb + t) * BK;
                    if (it >= STAGES)
                        mbar_wait(bars + 8 * (STAGES + s), (unsigned)((it / STAGES - 1) & 1));
                    const uint32_t full = bars + 8 * s, sa = base + s * STAGE_BYTES, sb = sa + A_BYTES;
                    mbar_expect_tx(full, STAGE_BYTES);
                    if (MA == 1)
                        tma_load_2d(sa, &tma, kc, i0, full);
                    else /* the pair shares A: each CTA fetches its 64-row half (A's map has boxes of 64 rows)
                          * into both; the half starts 8 KiB in, on a 1024-byte swizzle atom, so the layout is
                          * the whole box's */
                        tma_load_2d_mc(sa + ar * (BM / 2) * 128, &tma, kc, i0 + ar * (BM / 2), full, 0x3);
                    if (MC == 1) {
#pragma unroll
                        for (int q = 0; q < BN / 64; q++)
                            tma_load_2d(sb + q * BBOX_BYTES, &tmb, j0 + 64 * q, kc, full);
                    } else {
                        /* the group shares B: each CTA fetches BN / 64 / MC of its boxes into every CTA of the group */
                        const uint16_t mask = (uint16_t)((1u << kr) | (1u << (kr + SPLIT)));
#pragma unroll
                        for (int q = mr * (BN / 64 / MC); q < (mr + 1) * (BN / 64 / MC); q++)
                            tma_load_2d_mc(sb + q * BBOX_BYTES, &tmb, j0 + 64 * q, kc, full, mask);
                    }
                }
            }
        }
        if (CLUSTER) {
            __syncwarp();
            if (EX) {
                cluster_wait(); /* the launch's split barrier, closed before exit */
            } else {
                mm_cluster_sync(); /* 1: every CTA of the cluster is past its main loop */
                if (SPLIT > 1)
                    mm_cluster_sync(); /* 2: the partial tiles are exchanged */
            }
        }
        return;
    }

    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    /* consumer warpgroup cw: rows 64 cw .. 64 cw + 63 of every tile (ping-pong: all 128 rows of every other
     * tile, as two 64-row halves h) */
    const int cw = wg - 1;
    const int w = (threadIdx.x % 128) / 32, lane = threadIdx.x % 32;
    constexpr int HALVES = PP ? 2 : 1, JSTEP = PP ? 2 : 1;
    /* no zero fill: the first wgmma of the tile runs with scale-d = 0 (D = A B), so no non-wgmma
     * instruction writes the accumulators inside the pipeline (ptxas would serialise the wgmmas) */
    float d[HALVES * BN / 2];
    /* j: the tile's place among this CTA's tiles; it: the CTA's slice counter (as the producer's) */
    for (int j = PP ? cw : 0; id0 + j * step < id_end; j += JSTEP) {
        const int2 tl = tile_at<MC>(id0 + j * step, gx, gy);
        const int i0 = (tl.y * MC + mr) * BM, j0 = (tl.x * MA + ar) * BN;
        int it = j * kt;
        if (PP && j > 0) /* the other warpgroup has issued tile j - 1's last wgmma (its phase (j - 1) / 2) */
            mbar_wait(turn + 8 * cw, (unsigned)(((j - 1) / 2) & 1));
        for (int t = 0; t < kt; t++, it++) {
            const int s = it % STAGES;
            mbar_wait(bars + 8 * s, (unsigned)((it / STAGES) & 1));
            wgmma_fence();
#pragma unroll
            for (int h = 0; h < HALVES; h++) {
                const uint32_t sa = base + s * STAGE_BYTES + (PP ? h : cw) * 64 * 128,
                               sb = base + s * STAGE_BYTES + A_BYTES;
#pragma unroll
                for (int kk = 0; kk < BK / 16; kk++) {
                    /* A, K-major: rows of 128 swizzled bytes, 8-row atoms 1024 B apart (SBO); a 16-deep step is 32 B
                     * further along the row (LBO unused with this swizzle: 16 B, i.e. 1). B, N-major: 64-column
                     * atoms of 8 K rows x 128 B, the next 64 columns one box (8 KiB, LBO) away, the next 8 K rows
                     * 1024 B (SBO); a 16-deep step is 16 rows = 2048 B. */
                    const uint64_t da = sw128_desc(sa + kk * 32, 16, 1024);
                    const uint64_t db = sw128_desc(sb + kk * 2048, BBOX_BYTES, 1024);
                    mm_wg_ty<Ts, BN>::mma(d + h * (BN / 2), da, db, t > 0 || kk > 0);
                }
            }
            wgmma_commit();
            wgmma_wait<1>(); /* slice t - 1 is done: its stage goes back to the producer(s) */
            if (t > 0 && lane == 0) {
                const uint32_t e = bars + 8 * (STAGES + (it - 1) % STAGES);
                mbar_arrive(e);
                if (MC > 1) /* and the other CTA of the group, whose multicast also fills this stage */
                    mbar_arrive_cluster(mm_map_rank(e, (unsigned)(kr + (1 - mr) * SPLIT)));
                if (MA > 1) /* likewise for A's pair (cluster (2, 1, 1): rank = ar) */
                    mbar_arrive_cluster(mm_map_rank(e, (unsigned)(1 - ar)));
            }
        }
        if (PP && lane == 0) /* the other warpgroup's turn: its next tile's main loop overlaps this one's drain */
            mbar_arrive(turn + 8 * (1 - cw));
        wgmma_wait<0>();
        if (PERSIST && kt > 0 && lane == 0) /* the tile's last stage too: the producer refills it under the epilogue */
            mbar_arrive(bars + 8 * (STAGES + (it - 1) % STAGES));
        if (kt == 0) /* a K range with no slice (K < SPLIT slices): its partial is zero */
#pragma unroll
            for (int i = 0; i < HALVES * BN / 2; i++)
                d[i] = 0.0f;

        if (CLUSTER && !EX) {
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
            mm_cluster_sync(); /* 1: no CTA of the cluster reads its stages any more; no remote arrival is pending */
        }
        if (SPLIT > 1) {
            /* split-K: consumer warp cw * 4 + w (16 rows of the tile) belongs to K rank (cw * 4 + w) / OWN, which
             * receives the other ranks' partials of those rows, one FRAG per source, lane-interleaved float4s
             * (a warp's store is 512 contiguous bytes), in its (now idle) stage memory, or with EX in its
             * receive buffer; then it sums the SPLIT partials in rank order 0, 1, ... (a fixed order: the
             * result does not depend on timing, and EX's is the same sum as the two-barrier exchange's) and
             * stores. */
            constexpr int OWN = 8 / SPLIT, FR = BN / 2, FRAG = 32 * FR * 4;
            static_assert(EX || OWN * (SPLIT - 1) * FRAG <= STAGES * STAGE_BYTES, "the partials fit in the stages");
            static_assert(!EX || (CF::OWN == OWN && CF::FRAG == FRAG), "the receive buffer's geometry");
            const int cwarp = cw * 4 + w, owner = cwarp / OWN;
            const uint32_t mine = (EX ? red : base) + (uint32_t)((cwarp % OWN) * (SPLIT - 1) * FRAG) + lane * 16;
            if (EX)
                cluster_wait(); /* every peer's xbar is initialised (its arrive came right after) */
            if (owner != kr) {
                const int slot = kr < owner ? kr : kr - 1;
                const unsigned peer = (unsigned)(owner + mr * SPLIT);
                const uint32_t dst = mm_map_rank(mine + slot * FRAG, peer);
                if constexpr (EX) {
                    /* each 16 bytes count towards the owner's xbar of these rows; nothing to wait for here: the
                     * owner's wait covers them, and this warp has no rows to store (it returns below) */
                    const uint32_t xb = mm_map_rank(xbar + 8 * (cwarp % OWN), peer);
#pragma unroll
                    for (int q = 0; q < FR / 4; q++)
                        st_async_v4_f32(dst + q * 512, d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3], xb);
                } else {
#pragma unroll
                    for (int q = 0; q < FR / 4; q++)
                        mm_st_cluster_v4(dst + q * 512, d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3]);
                }
            }
            if (EX) {
                if (owner != kr) {
                    if (TSTORE && tstore) /* the owners' TMA-store epilogue waits for every consumer warp */
                        asm volatile("bar.arrive 1, 256;\n" ::: "memory");
                    return;
                }
                mbar_wait(xbar + 8 * (cwarp % OWN), 0); /* phase 0: the SPLIT - 1 partials of these rows landed */
            } else {
                mm_cluster_sync(); /* 2 */
                if (owner != kr)
                    return;
            }
#pragma unroll
            for (int q = 0; q < FR / 4; q++) {
                float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
                for (int r = 0; r < SPLIT; r++) {
                    const float4 v = r == kr ? make_float4(d[4 * q], d[4 * q + 1], d[4 * q + 2], d[4 * q + 3])
                                             : ld_shared_v4(mine + (r < kr ? r : r - 1) * FRAG + q * 512);
                    sum.x += v.x;
                    sum.y += v.y;
                    sum.z += v.z;
                    sum.w += v.w;
                }
                d[4 * q] = sum.x;
                d[4 * q + 1] = sum.y;
                d[4 * q + 2] = sum.z;
                d[4 * q + 3] = sum.w;
            }
        }

        /* accumulator layout (PTX ISA, wgmma "Matrix fragments for .m64nNk16", fp32 D): for 8-column group g,
         * d[4g], d[4g + 1] at row 16 w + lane / 4, columns 8 g + 2 (lane % 4) + {0, 1}; d[4g + 2], d[4g + 3] 8 rows lower */
        if constexpr (TSTORE) {
            if (tstore) {
                /* the TMA-store epilogue (beta = 0, C 16-byte aligned with ldc and N multiples of 8: the
                 * host's choice). The stages are idle once every consumer warp is past its last wgmma (one tile a
                 * CTA, no multicast; the one-sided split's partials arrive in a buffer of their own, and its
                 * sending warps arrive on this barrier before they exit). Each warp writes its 16 x BN rows,
                 * rounded, into BN / 64 boxes of 16 x 64 (2 KiB each, 128-byte swizzle: 16-byte chunk q of row
                 * r at chunk q ^ (r % 8), so a warp's 4-byte stores, 8 rows x 16 bytes, hit 32 distinct
                 * banks), and its lane 0 stores the boxes with the TMA, which clips what lies outside C at
                 * 16-byte granularity in N (hence N a multiple of 8) and by rows in M. */
                asm volatile("bar.sync 1, 256;\n" ::: "memory");
                const int cwarp = cw * 4 + w;
                const uint32_t cs = base + (uint32_t)(cwarp * (BN / 64) * CBOX_BYTES);
#pragma unroll
                for (int g = 0; g < BN / 8; g++) {
                    const uint32_t at = cs + (uint32_t)((g / 8) * CBOX_BYTES + (lane / 4) * 128 +
                                                        (((g % 8) ^ (lane / 4)) << 4) + 4 * (lane % 4));
                    st_shared_u32(at, pack_pair<Ts>(alpha * d[4 * g], alpha * d[4 * g + 1]));
                    st_shared_u32(at + 8 * 128, pack_pair<Ts>(alpha * d[4 * g + 2], alpha * d[4 * g + 3]));
                }
                asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); /* visible to the TMA unit */
                __syncwarp();
                if (lane == 0) {
#pragma unroll
                    for (int q = 0; q < BN / 64; q++)
                        tma_store_2d(&tmc, cs + (uint32_t)(q * CBOX_BYTES), j0 + 64 * q, i0 + 16 * cwarp);
                    tma_store_drain();
                }
                continue; /* the tile loop ends: one tile a CTA */
            }
        }
#pragma unroll
        for (int h = 0; h < HALVES; h++) {
            const int64_t r = (int64_t)i0 + (PP ? h : cw) * 64 + w * 16 + lane / 4;
            const float *dh = d + h * (BN / 2);
#pragma unroll
            for (int g = 0; g < BN / 8; g++) {
                const int64_t col = (int64_t)j0 + 8 * g + 2 * (lane % 4);
                store_pair(c, ldc, m, n, r, col, dh[4 * g], dh[4 * g + 1], alpha, beta, pair != 0);
                store_pair(c, ldc, m, n, r + 8, col, dh[4 * g + 2], dh[4 * g + 3], alpha, beta, pair != 0);
            }
        }
    } /* the next tile */
#else
    (void)tma, (void)tmb, (void)tmc, (void)m, (void)n, (void)k, (void)c, (void)ldc, (void)alpha, (void)beta,
        (void)pair, (void)tstore;
#endif
}

/* ---- host ------------------------------------------------------------------------- */

/* A 2-D tensor map over a row-major rows x cols matrix of 16-bit elements
 * (ld elements a row) with box_cols x box_rows boxes, 128-byte swizzle,
 * zero fill outside (tensor_map.cuh). */
CUresult encode_raw(sl_tmap_encode_fn fn, CUtensorMap *map, sl_dtype dt, const void *base, int64_t rows, int64_t cols,
                    int64_t ld, unsigned box_cols, unsigned box_rows)
{
    return tmap_encode_2d_raw(fn, map, dt == SL_BF16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                              const_cast<void *>(base), (uint64_t)rows, (uint64_t)cols, (uint64_t)ld * 2, box_cols,
                              box_rows, CU_TENSOR_MAP_SWIZZLE_128B);
}
sl_status encode(sl_tmap_encode_fn fn, CUtensorMap *map, sl_dtype dt, const void *base, int64_t rows, int64_t cols,
                 int64_t ld, unsigned box_cols, unsigned box_rows)
{
    const CUresult r = encode_raw(fn, map, dt, base, rows, cols, ld, box_cols, box_rows);
    if (r != CUDA_SUCCESS)
        return sl_fail(SL_ERR_CUDA, "matmul wgmma: cuTensorMapEncodeTiled failed (CUresult %d) for a %lldx%lld "
                                    "matrix, ld %lld",
                       (int)r, (long long)rows, (long long)cols, (long long)ld);
    return SL_OK;
}

int sm_count(void)
{
    int dev = 0, sms = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess)
        return 132;
    return sms;
}

/* ctas: PERSIST's grid, at most this many CTAs (0: one per SM); the grid is never larger than the tile
 * count, so every CTA has a tile */
template <class Ts, int BN, int SPLIT, int MC, int PERSIST, bool EX, int MA = 1>
sl_status wgmma_launch(const sl_mm *p, bool pdl, int ctas)
{
    constexpr size_t SMEM = wg_cfg<BN, SPLIT, EX>::SMEM;
    sl_tmap_encode_fn fn = nullptr;
    sl_status st = tmap_encoder(&fn, "matmul wgmma");
    dim3 g;
    if (st == SL_OK)
        st = mm_grid(p, BM, BN, "matmul wgmma", &g);
    if (st == SL_OK && ((uint64_t)g.x * SPLIT * MA > 0x7fffffffu || (g.y + MC - 1) / MC * MC > 65535u ||
                        (PERSIST && (uint64_t)g.x * g.y >= 0x40000000u)))
        st = sl_fail(SL_ERR_INVALID_ARG, "matmul wgmma: %lldx%lld needs too large a grid", (long long)p->m,
                     (long long)p->n);
    CUtensorMap ta, tb;
    if (st == SL_OK)
        st = encode(fn, &ta, p->dtype, p->a, p->m, p->k, p->lda, BK, BM / MA); /* MA: each CTA loads half of A */
    if (st == SL_OK)
        st = encode(fn, &tb, p->dtype, p->b, p->k, p->n, p->ldb, 64, BK);
    if (st != SL_OK)
        return st;
    /* the TMA-store epilogue: its configurations (tstore_cfg), beta = 0 (C is not read), and C as TMA takes
     * it (16-byte aligned base and row stride) with rows of whole 16-byte chunks: a TMA store writes a
     * chunk that straddles the tensor's inner extent whole (measured: N = 390 wrote columns 390-391 of
     * ldc = 392; triton-lang/triton issue 11583 reports the same), so N % 8 != 0 would write past C's rows.
     * Otherwise the stores from registers. A C the encoder refuses takes the register path too. */
    CUtensorMap tc{};
    int tstore = tstore_cfg(SPLIT, MC, PERSIST, EX) && p->beta == 0.0 && (uintptr_t)p->c % 16 == 0 &&
                 (p->ldc * 2) % 16 == 0 && (p->n * 2) % 16 == 0;
    if (tstore && encode_raw(fn, &tc, p->dtype, p->c, p->m, p->n, p->ldc, 64, 16) != CUDA_SUCCESS)
        tstore = 0;
    g.x *= SPLIT;
    g.y = (g.y + MC - 1) / MC * MC; /* whole multicast groups: a padding block row loads zeros, stores nothing */
    g.x = (g.x + MA - 1) / MA * MA; /* whole A pairs: a padding block column loads its half of A for its pair,
                                     * B's zeros, and stores nothing */
    if (PERSIST) {
        /* one CTA per SM (192 KiB of shared memory each), or fewer where there are fewer tiles */
        const uint64_t tiles = (uint64_t)g.x * g.y;
        uint64_t P = (uint64_t)(ctas > 0 ? ctas : sm_count());
        if (P > tiles)
            P = tiles;
        g = dim3((unsigned)P, 1, 1);
    }
    const int pair = ((uintptr_t)p->c % 4 == 0) && (p->ldc % 2 == 0);
    SL_CUDA_TRY(cudaFuncSetAttribute(mm_wgmma_kernel<Ts, BN, SPLIT, MC, PERSIST, EX, MA>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)SMEM));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = g;
    cfg.blockDim = dim3(NT, 1, 1);
    cfg.dynamicSmemBytes = SMEM;
    cfg.stream = (cudaStream_t)p->stream;
    cudaLaunchAttribute at[2];
    unsigned na = 0;
    if (SPLIT * MC * MA > 1) {
        at[na].id = cudaLaunchAttributeClusterDimension;
        at[na].val.clusterDim.x = SPLIT * MA;
        at[na].val.clusterDim.y = MC;
        at[na].val.clusterDim.z = 1;
        na++;
    }
    if (pdl) { /* programmatic dependent launch: may start while the previous kernel of the stream drains */
        at[na].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[na].val.programmaticStreamSerializationAllowed = 1;
        na++;
    }
    cfg.attrs = at;
    cfg.numAttrs = na;
    SL_CUDA_TRY(cudaLaunchKernelEx(&cfg, mm_wgmma_kernel<Ts, BN, SPLIT, MC, PERSIST, EX, MA>, ta, tb, tc, p->m, p->n, p->k,
                                   (Ts *)p->c, p->ldc, (float)p->alpha, (float)p->beta, pair, tstore));
    g_launches.fetch_add(1, std::memory_order_relaxed);
    if (tstore)
        g_tstore_launches.fetch_add(1, std::memory_order_relaxed);
    return SL_OK;
}

/* The configurations (sl_cuda_mm_wgmma_cfg): block tile 128 x BN, K split
 * over SPLIT CTAs of a cluster, B multicast to MC block rows, the
 * persistent schedule, the split's one-sided exchange (ex). */
struct wg_conf {
    int bn, split, mc, persist, ex, ma;
};
constexpr wg_conf CONFS[] = {{0, 0, 0, 0, 0, 1},   {256, 1, 1, 0, 0, 1}, {128, 1, 1, 0, 0, 1}, {128, 2, 1, 0, 0, 1},
                             {128, 4, 1, 0, 0, 1}, {256, 2, 1, 0, 0, 1}, {256, 1, 2, 0, 0, 1}, {128, 1, 2, 0, 0, 1},
                             {256, 1, 1, 1, 0, 1}, {128, 1, 1, 1, 0, 1}, {128, 1, 1, 2, 0, 1}, {128, 2, 1, 0, 1, 1},
                             {128, 4, 1, 0, 1, 1}, {256, 2, 1, 0, 1, 1}, {64, 1, 1, 0, 0, 1},  {64, 1, 1, 0, 0, 2},
                             {128, 1, 1, 0, 0, 2}, {192, 1, 1, 0, 0, 1}};
constexpr int NCONF = (int)(sizeof CONFS / sizeof CONFS[0]);

/* The CTAs configuration f launches over an m x n C: block rows x block columns (whole A pairs) x the K split
 * (the launcher's grid before the persistent cap; the pick's and the PDL rule's count) */
constexpr int64_t conf_ctas(const wg_conf &f, int64_t m, int64_t n)
{
    return (m + BM - 1) / BM * (((n + f.bn - 1) / f.bn + f.ma - 1) / f.ma * f.ma) * f.split;
}

/* launches by configuration, every launch of the rung: sl_gemm's after its rule resolved the configuration,
 * and each named variant's (sl_cuda_mm_wgmma_cfg_launches) */
std::atomic<unsigned long long> g_cfg_launches[NCONF];

template <class Ts> sl_status wgmma_run(const sl_mm *p, int cfg, bool pdl, int ctas)
{
    switch (cfg) {
    case 1: return wgmma_launch<Ts, 256, 1, 1, P_NONE, false>(p, pdl, 0);
    case 2: return wgmma_launch<Ts, 128, 1, 1, P_NONE, false>(p, pdl, 0);
    case 3: return wgmma_launch<Ts, 128, 2, 1, P_NONE, false>(p, pdl, 0);
    case 4: return wgmma_launch<Ts, 128, 4, 1, P_NONE, false>(p, pdl, 0);
    case 5: return wgmma_launch<Ts, 256, 2, 1, P_NONE, false>(p, pdl, 0);
    case 6: return wgmma_launch<Ts, 256, 1, 2, P_NONE, false>(p, pdl, 0);
    case 7: return wgmma_launch<Ts, 128, 1, 2, P_NONE, false>(p, pdl, 0);
    case 8: return wgmma_launch<Ts, 256, 1, 1, P_COOP, false>(p, pdl, ctas);
    case 9: return wgmma_launch<Ts, 128, 1, 1, P_COOP, false>(p, pdl, ctas);
    case 10: return wgmma_launch<Ts, 128, 1, 1, P_PINGPONG, false>(p, pdl, ctas);
    case 11: return wgmma_launch<Ts, 128, 2, 1, P_NONE, true>(p, pdl, 0);
    case 12: return wgmma_launch<Ts, 128, 4, 1, P_NONE, true>(p, pdl, 0);
    case 13: return wgmma_launch<Ts, 256, 2, 1, P_NONE, true>(p, pdl, 0);
    case 14: return wgmma_launch<Ts, 64, 1, 1, P_NONE, false>(p, pdl, 0);
    case 15: return wgmma_launch<Ts, 64, 1, 1, P_NONE, false, 2>(p, pdl, 0);
    case 16: return wgmma_launch<Ts, 128, 1, 1, P_NONE, false, 2>(p, pdl, 0);
    case 17: return wgmma_launch<Ts, 192, 1, 1, P_NONE, false>(p, pdl, 0);
    default: return sl_fail(SL_ERR_INVALID_ARG, "matmul wgmma: no configuration %d", cfg);
    }
}

} // namespace

/* The shape -> configuration rule of sl_gemm (docs/ladder.md, "sl_gemm by
 * shape"): a model of the time in units of one 128 x 256 x 64 slice of
 * rung 8 as measured on the H200 (0.825 us at 2048^3, where the 48 KiB a
 * slice loads make it L2-bound): each CTA costs its slices (kt / SPLIT; a
 * 128 x 128 slice 0.52 of one), plus 4.6 (the fixed 3.8 us of launch,
 * pipeline fill and epilogue, from the 1024^3 and 2048^3 rows), plus 3.6 x
 * BN / 128 per split (the exchange, measured 3 us at 128 x 128 and 4.8 us
 * at 128 x 256); CTAs run in waves of one per SM. The cheapest wins (ties:
 * the earlier, i.e. the wider tile, no split); a split needs at least 4
 * slices per CTA. From one full wave of 128 x 256 tiles up, rung 8 as is
 * (the B multicast, cfg 6, measured slower: docs/ladder.md). A 128-wide
 * split then takes the one-sided exchange (3 -> 11, 4 -> 12): the
 * two-barrier form's time over its, at the shapes where the rule splits,
 * 1.033x at 1024^3 split 2 with PDL (as sl_gemm launches it), 1.037x at
 * 384 x 640 x 1000 split 4 without PDL (with it not measured), and
 * 1.02-1.06x for every 128-wide split at 1024^3-2048^3 (H200, graph
 * replay, bench/results/h200-gemm-splitk-2026-11-27.md); the 256-wide split's
 * (13) measured no faster than 5's, so the cost model is unchanged
 * (docs/ladder.md, "Split-K with a one-sided exchange"). Twentieth session:
 * 128 x 64 tiles (cfg 14, cuBLAS's tile at 1024^3) join the candidates at
 * 0.40 of a slice (fitted 0.28-0.40 from their times against the old
 * picks' at 512^3-1024^3, where they ran 0.97-1.07x cuBLAS with PDL
 * against 0.73-0.88x; docs/ladder.md, "128 x 64 tiles"); where A's or B's
 * rows are not whole 128-byte lines the launcher takes the same tile with
 * A multicast (15) instead (1000^3: 0.93x against 14's 0.77x). 128 x 128
 * with A multicast (16) is left out: 12% behind 1 at 4096^3, within 1-3%
 * of 2. Twenty-first session: 128 x 192 tiles (17) at 0.80 of a slice
 * (fitted from its time against 1's at 1536^3, one wave each, 0.84, and
 * 3072^3, three waves each, 0.79-0.81, less the fixed 4.6; predicted
 * 0.76): a candidate of the cost model below one wave of 128 x 256 tiles
 * like the others (1536^3: 72 tiles of 128 x 256 against 96 of 128 x 192;
 * also 1472^3-1728^3), and from one full wave up, where it must cost 5%
 * less than 1 (a margin for a cost fitted at two shapes): 2304^3 and
 * 3072^3 (288 tiles, 2.2 waves, against 384, 2.9) take it. 1536^3,
 * 2304^3, 3072^3: 0.81x, 0.92-1.09x and 0.89-0.91x cuBLAS, where 1 ran
 * 0.65x, 0.74-0.83x and 0.71-0.74x in the same processes
 * (bench/results/h200-gemm-n192-2026-11-29.md);
 * 2048^3, 4096^3, 5120^3 and 8192^3 stay with 1 (at 2048^3-5120^3 17 ran
 * 1.05-1.48x 1's time). */
extern "C" int sl_cuda_mm_wgmma_pick(int64_t m, int64_t n, int64_t k, int sms)
{
    if (sms < 1)
        sms = 1;
    const int64_t tm = (m + BM - 1) / BM, kt = (k + BK - 1) / BK;
    const auto cost_of = [&](const wg_conf &f) {
        const int64_t ctas = conf_ctas(f, m, n);
        const double waves = (double)((ctas + sms - 1) / sms);
        const double slice = f.bn == 256 ? 1.0 : f.bn == 192 ? 0.80 : f.bn == 128 ? 0.52 : 0.40;
        return waves * ((double)kt / f.split * slice + 4.6 + (f.split > 1 ? 3.6 * f.bn / 128.0 : 0.0));
    };
    if (tm * ((n + 255) / 256) >= sms)
        return cost_of(CONFS[17]) < 0.95 * cost_of(CONFS[1]) ? 17 : 1; /* 5%: the model is not fitted there */
    int best = 1;
    double best_cost = 0;
    for (int c = 1; c < NCONF; c++) {
        const wg_conf f = CONFS[c];
        if (f.mc != 1 || f.persist || f.ex || (f.split > 1 && kt < 4 * f.split) || ((f.ma != 1 || f.bn == 64) && c != 14))
            continue;
        const double cost = cost_of(f);
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best == 3 ? 11 : best == 4 ? 12 : best;
}

extern "C" int sl_cuda_mm_wgmma_built(void)
{
    return SL_MM_WGMMA_SM90A;
}

extern "C" unsigned long long sl_cuda_mm_wgmma_launches(void)
{
    return g_launches.load(std::memory_order_relaxed);
}

extern "C" unsigned long long sl_cuda_mm_wgmma_tstore_launches(void)
{
    return g_tstore_launches.load(std::memory_order_relaxed);
}

extern "C" unsigned long long sl_cuda_mm_wgmma_cfg_launches(int cfg)
{
    return cfg >= 0 && cfg < NCONF ? g_cfg_launches[cfg].load(std::memory_order_relaxed) : 0;
}

extern "C" sl_status sl_cuda_mm_wgmma_applies(const sl_mm *p, const char **why)
{
    const char *no = nullptr;
    int cc = 0;
    sl_status st = sl_cuda_current_cc(&cc);
    if (st != SL_OK)
        return st;
    if (!SL_MM_WGMMA_SM90A)
        no = "this build has no sm_90a code (CMAKE_CUDA_ARCHITECTURES without 90)";
    else if (cc != 90)
        no = "wgmma needs a compute capability 9.0 device (sm_90a)";
    else if (p->dtype != SL_BF16 && p->dtype != SL_F16)
        no = "wgmma rung: bf16 / f16 only";
    else if ((uintptr_t)p->a % 16 || (uintptr_t)p->b % 16 || (p->lda * 2) % 16 || (p->ldb * 2) % 16)
        no = "TMA needs 16-byte aligned A and B and leading dimensions that are multiples of 8 elements";
    else if (p->m >= INT32_MAX || p->n >= INT32_MAX || p->k >= INT32_MAX)
        no = "TMA coordinates are int32: an extent of 2^31 or more";
    if (why)
        *why = no;
    return no ? SL_ERR_UNSUPPORTED : SL_OK;
}

extern "C" sl_status sl_cuda_mm_wgmma_cfg_grid(const sl_mm *p, int cfg, int ctas)
{
    sl_status st = mm_need_dtype(p, (1u << SL_BF16) | (1u << SL_F16), "matmul wgmma");
    if (st != SL_OK)
        return st;
    bool pdl = (cfg & SL_MM_WGMMA_PDL) != 0;
    cfg &= ~SL_MM_WGMMA_PDL;
    if (cfg < 0 || cfg >= NCONF)
        return sl_fail(SL_ERR_INVALID_ARG, "matmul wgmma: no configuration %d (0 .. %d)", cfg, NCONF - 1);
    const char *why = nullptr;
    st = sl_cuda_mm_wgmma_applies(p, &why);
    if (st == SL_ERR_UNSUPPORTED) {
        int cc = 0;
        /* the rung does not exist on this device or build: say so (the ladder skips it) */
        if (!SL_MM_WGMMA_SM90A || (sl_cuda_current_cc(&cc) == SL_OK && cc != 90))
            return sl_fail(SL_ERR_UNSUPPORTED, "matmul wgmma: %s", why);
        /* unaligned operands or huge extents on an sm_90: rung 7 does it */
        return sl_cuda_mm_best(p);
    }
    if (st != SL_OK)
        return st;
    if (cfg == 0) {
        /* sl_gemm: the configuration by shape, and programmatic dependent launch only where the grid is
         * one wave at most (measured: -1.1 us at 1024^3, -0.6 us at 2048^3, but +5% at 4096^3, whose last
         * partial wave lets the next grid's CTAs in early; docs/ladder.md) */
        const int sms = sm_count();
        cfg = sl_cuda_mm_wgmma_pick(p->m, p->n, p->k, sms);
        /* 128 x 64 over rows that are not whole 128-byte lines (lda or ldb not a multiple of 64): with half
         * of A's boxes a CTA, A multicast to the pair (measured 0.93x cuBLAS at 1000^3, without it 0.77x) */
        if (cfg == 14 && (p->lda % 64 != 0 || p->ldb % 64 != 0))
            cfg = 15;
        pdl = pdl && conf_ctas(CONFS[cfg], p->m, p->n) <= sms;
    }
    st = p->dtype == SL_BF16 ? wgmma_run<__nv_bfloat16>(p, cfg, pdl, ctas) : wgmma_run<__half>(p, cfg, pdl, ctas);
    if (st == SL_OK)
        g_cfg_launches[cfg].fetch_add(1, std::memory_order_relaxed);
    return st;
}

extern "C" sl_status sl_cuda_mm_wgmma_cfg(const sl_mm *p, int cfg)
{
    return sl_cuda_mm_wgmma_cfg_grid(p, cfg, 0);
}

/* rung 8 as first measured: 128 x 256 tiles, no split, no multicast */
extern "C" sl_status sl_cuda_mm_wgmma(const sl_mm *p)
{
    return sl_cuda_mm_wgmma_cfg(p, 1);
}
/* sl_gemm's choice by shape; programmatic dependent launch where the grid is one wave at most */
extern "C" sl_status sl_cuda_mm_wgmma_auto(const sl_mm *p)
{
    return sl_cuda_mm_wgmma_cfg(p, 0 | SL_MM_WGMMA_PDL);
}
extern "C" sl_status sl_cuda_mm_wgmma_pdl(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 1 | SL_MM_WGMMA_PDL); }
extern "C" sl_status sl_cuda_mm_wgmma_mc2_pdl(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 6 | SL_MM_WGMMA_PDL); }
extern "C" sl_status sl_cuda_mm_wgmma_n128_k2_pdl(const sl_mm *p)
{
    return sl_cuda_mm_wgmma_cfg(p, 3 | SL_MM_WGMMA_PDL);
}
extern "C" sl_status sl_cuda_mm_wgmma_n128(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 2); }
extern "C" sl_status sl_cuda_mm_wgmma_n128_k2(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 3); }
extern "C" sl_status sl_cuda_mm_wgmma_n128_k4(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 4); }
extern "C" sl_status sl_cuda_mm_wgmma_k2(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 5); }
extern "C" sl_status sl_cuda_mm_wgmma_mc2(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 6); }
extern "C" sl_status sl_cuda_mm_wgmma_n128_mc2(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 7); }
extern "C" sl_status sl_cuda_mm_wgmma_p(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 8); }
extern "C" sl_status sl_cuda_mm_wgmma_p_pdl(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 8 | SL_MM_WGMMA_PDL); }
extern "C" sl_status sl_cuda_mm_wgmma_n128_p(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 9); }
extern "C" sl_status sl_cuda_mm_wgmma_n128_pp(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 10); }
extern "C" sl_status sl_cuda_mm_wgmma_n128_k2_ex(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 11); }
extern "C" sl_status sl_cuda_mm_wgmma_n128_k4_ex(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 12); }
extern "C" sl_status sl_cuda_mm_wgmma_k2_ex(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 13); }
extern "C" sl_status sl_cuda_mm_wgmma_n128_k2_ex_pdl(const sl_mm *p)
{
    return sl_cuda_mm_wgmma_cfg(p, 11 | SL_MM_WGMMA_PDL);
}
extern "C" sl_status sl_cuda_mm_wgmma_n64(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 14); }
extern "C" sl_status sl_cuda_mm_wgmma_n64_pdl(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 14 | SL_MM_WGMMA_PDL); }
extern "C" sl_status sl_cuda_mm_wgmma_n64_ma2(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 15); }
extern "C" sl_status sl_cuda_mm_wgmma_n64_ma2_pdl(const sl_mm *p)
{
    return sl_cuda_mm_wgmma_cfg(p, 15 | SL_MM_WGMMA_PDL);
}
extern "C" sl_status sl_cuda_mm_wgmma_n128_ma2(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 16); }
extern "C" sl_status sl_cuda_mm_wgmma_n192(const sl_mm *p) { return sl_cuda_mm_wgmma_cfg(p, 17); }
