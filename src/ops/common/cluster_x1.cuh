/*
 * cluster_x1.cuh - the one-sided cluster exchange of a row's warp partials
 * (the norms' forwards' bulk_ex, common/norm_fwd_bulk.cuh; softmax's and
 * the cross-entropy's bulk_ex rungs): each warp's partial, N floats that
 * every lane of the warp holds, is stored into slot [rank x NW + warp] of
 * every CTA of the cluster, lane q writing CTA q's by st.async, which
 * completes that CTA's mbarrier by its bytes; every thread then waits on
 * its own CTA's mbarrier, and the caller folds the NW x C slots in index
 * order (the same bits in every warp of every CTA). No bar.sync and no
 * cluster barrier in the row's path: a warp waits only for the partials.
 * Without a cluster (C = 1) lane 0 stores its own slot and arrives on the
 * mbarrier (NW arrivals; the arrive releases, the wait acquires).
 *
 * Protocol (one exchange a slot set and mbarrier a launch, phase 0):
 *   thread 0:       x1_arm(xb, NW, C, 4 N)       (with the chunk's loads)
 *   every thread:   a __syncthreads() where C = 1 (xb initialised before
 *                   any arrival), then, C > 1, cluster_arrive_relaxed()
 *   every thread:   x1_post<N, NW>(v, xr, xb, C, rank, first), first for
 *                   the launch's first exchange (it waits on that cluster
 *                   arrive: every peer's mbarrier initialised before a
 *                   remote store), then the fold over xr[0 .. NW C N).
 * A CTA exits without a cluster wait: its slots have received every byte
 * before its own wait passes, and nothing is read remotely.
 * A persistent kernel exchanging once a row (the norms' backward bulk_ex,
 * common/norm_bwd_bulk.cuh) alternates two slot sets and mbarriers by row,
 * passes the row's phase parity to x1_post, and thread 0 re-arms a barrier
 * (x1_rearm) once its own wait on it has passed: a peer stores row k + 2's
 * partial only after every warp of the cluster posted row k + 1's, which
 * each does after folding row k's slots and, thread 0, after the re-arm.
 * One that sends row k + 1's partial before it waits for row k's (x1_send,
 * then the wait: bulk_pipe) needs four slot sets and mbarriers (k & 3): a
 * peer then sends row k + 4's only after every warp of the cluster sent
 * row k + 2's, which each does after folding row k's.
 * sm_90 only (st.async, mapa); callers guard with __CUDA_ARCH__ >= 900.
 */
#ifndef SL_CLUSTER_X1_CUH
#define SL_CLUSTER_X1_CUH

#include "bulk_copy.cuh"

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900

/* Thread 0: the mbarrier of one exchange of NW warps' partials of `bytes`
 * each over C CTAs (C > 1: one arrival, NW x C x bytes of transactions;
 * C = 1: NW arrivals). */
static __device__ __forceinline__ void x1_arm(uint64_t *xb, unsigned nw, unsigned C, unsigned bytes)
{
    mbar_init(xb, C > 1 ? 1u : nw);
    if (C > 1)
        mbar_arrive_expect(xb, nw * C * bytes);
}

/* Thread 0, after its wait on xb's phase passed: arm the next phase (C > 1:
 * one arrival and NW x C x bytes of transactions; C = 1 re-arms itself, its
 * NW arrivals a phase). */
static __device__ __forceinline__ void x1_rearm(uint64_t *xb, unsigned nw, unsigned C, unsigned bytes)
{
    if (C > 1)
        mbar_arrive_expect(xb, nw * C * bytes);
}

/* Send this warp's N floats v (the same in every lane; N = 1, 2 or 4) to
 * slot [rank x NW + warp] of every CTA's xr (N floats a slot, xr aligned to
 * 4 N bytes), without waiting: x1_post's first half, for a caller that
 * works on between the send and its wait (the norms' backward bulk_pipe
 * sends row k + 1's sums before it waits for row k's). */
template <int N, int NW>
static __device__ __forceinline__ void x1_send(const float (&v)[N], float *xr, uint64_t *xb, unsigned C,
                                               unsigned rank, bool first)
{
    static_assert(N == 1 || N == 2 || N == 4, "one st.async a slot");
    const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (C > 1) {
        if (first)
            cluster_wait();
        if (lane < C) {
            float *d = xr + (rank * NW + warp) * N;
            if (N == 1)
                st_async_f32(smem_peer(d, lane), v[0], smem_peer(xb, lane));
            else if (N == 2)
                st_async_v2_f32(smem_peer(d, lane), v[0], v[N > 1 ? 1 : 0], smem_peer(xb, lane));
            else
                st_async_v4_f32(smem_peer(d, lane), v[0], v[N > 1 ? 1 : 0], v[N > 2 ? 2 : 0], v[N > 3 ? 3 : 0],
                                smem_peer(xb, lane));
        }
    } else if (lane == 0) { /* rank 0 */
#pragma unroll
        for (int k = 0; k < N; k++)
            xr[warp * N + k] = v[k];
        mbar_arrive(xb);
    }
}

/* x1_send, then wait until this CTA's slots are all written (the phase of
 * parity `parity`: 0 for a launch's one exchange). */
template <int N, int NW>
static __device__ __forceinline__ void x1_post(const float (&v)[N], float *xr, uint64_t *xb, unsigned C,
                                               unsigned rank, bool first, uint32_t parity = 0)
{
    x1_send<N, NW>(v, xr, xb, C, rank, first);
    mbar_wait(xb, parity);
}

#endif /* __CUDA_ARCH__ >= 900 */

#endif /* SL_CLUSTER_X1_CUH */
