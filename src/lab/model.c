/*
 * model.c - see model.h and docs/model.md. Every term below cites the seed
 * section it implements.
 */
#include "model.h"

#include "sizes.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *sl_bound_name(sl_bound b)
{
    switch (b) {
    case SL_B_DRAM: return "DRAM bandwidth";
    case SL_B_LATENCY: return "latency (bytes in flight)";
    case SL_B_L2: return "L2 bandwidth";
    case SL_B_COMPUTE: return "compute";
    case SL_B_ISSUE: return "instruction issue";
    case SL_B_LSU: return "load/store units";
    case SL_B_SMEM: return "shared memory";
    case SL_B_PCIE: return "PCIe";
    case SL_B_LAUNCH: return "launch overhead";
    default: return "?";
    }
}

const char *sl_bound_short(sl_bound b)
{
    static const char *s[SL_B_COUNT] = {"DRAM", "latency", "L2", "compute", "issue", "LSU", "SMEM", "PCIe", "launch"};
    return b < SL_B_COUNT ? s[b] : "?";
}

/* The measured curve's upper envelope: the best GB/s any probe point
 * reached with at most x bytes in flight per SM. Below the smallest point,
 * bandwidth scales linearly with bytes in flight (the latency-bound end of
 * Little's law). */
static double curve_at(const sl_hw *hw, double x)
{
    double best = 0, x0 = 0, y0 = 0;
    for (int i = 0; i < hw->bif_n; i++) {
        if (hw->bif_x[i] <= x && hw->bif_y[i] > best)
            best = hw->bif_y[i];
        if (x0 == 0 || hw->bif_x[i] < x0 || (hw->bif_x[i] == x0 && hw->bif_y[i] > y0)) {
            x0 = hw->bif_x[i];
            y0 = hw->bif_y[i];
        }
    }
    return best > 0 ? best : (x0 > 0 ? y0 * x / x0 : 0);
}

static double curve_top(const sl_hw *hw)
{
    double top = 0;
    for (int i = 0; i < hw->bif_n; i++)
        top = hw->bif_y[i] > top ? hw->bif_y[i] : top;
    return top;
}

/* Smallest bytes in flight per SM at which the curve reaches `gbs` (or
 * its top, when it never does). */
static double curve_reach_rate(const sl_hw *hw, double gbs)
{
    double target = fmin(gbs, curve_top(hw)), best = -1;
    for (int i = 0; i < hw->bif_n; i++)
        if (hw->bif_y[i] >= target && (best < 0 || hw->bif_x[i] < best))
            best = hw->bif_x[i];
    return best;
}

/* The L1 data path moves 128 B per clock per SM (Volta and later: V100 and
 * A100 whitepapers). */
#define LSU_BYTES_PER_CLK 128.0

sl_status sl_model_predict(const sl_hw *hw, const sl_op_desc *op, const sl_variant *v, const sl_kernel_attrs *attrs,
                           sl_dtype dt, const sl_shape *s, double insts_per_elem, bool cold, sl_model *m)
{
    memset(m, 0, sizeof *m);
    const double sms = hw->p[HW_SM_COUNT].v, clk = hw->p[HW_SM_CLOCK_GHZ].v * 1e9;
    const double rd_bw = hw->p[HW_DRAM_READ_GBS].v * 1e9, wr_bw = hw->p[HW_DRAM_WRITE_GBS].v * 1e9;
    if (sms <= 0 || clk <= 0 || rd_bw <= 0 || wr_bw <= 0)
        return sl_fail(SL_ERR_INVALID_ARG, "model: the hardware description lacks SMs, clock or DRAM bandwidth");
    const double es = (double)sl_dtype_size(dt), N = (double)sl_shape_elems(s);
    /* The bytes the rung really moves (a second pass, halos, its tiling),
     * and the op's flops for the whole launch. */
    const sl_traffic tr = sl_variant_moved(op, v, s, dt);
    /* a tiling's re-reads stay in L2 (moved_in_l2): DRAM sees the compulsory bytes, L2 all of them */
    const sl_traffic dr = v->moved_in_l2 ? sl_variant_traffic(op, v, s, dt) : tr;
    const double rbytes = dr.rd_bytes, wbytes = dr.wr_bytes, bytes = rbytes + wbytes;
    const double l2_all = tr.rd_bytes + tr.wr_bytes;
    const double flops = sl_variant_flops(op, v, s);
    const double ipe = insts_per_elem > 0 ? insts_per_elem : v->insts_per_elem;
    for (int b = 0; b < SL_B_COUNT; b++)
        m->ms[b] = -1;

    /* A. DRAM (seed 000 section A): bytes / bandwidth. Reads and writes
     * share the bus, each at its own achievable rate (probe), else both at
     * the theoretical peak, as the seed computes it. A working set that
     * fits in L2 and is warm never reaches DRAM. */
    m->fits_l2 = hw->p[HW_L2_BYTES].v > 0 && bytes <= hw->p[HW_L2_BYTES].v;
    m->l2_resident = m->fits_l2 && !cold;
    m->bytes = m->l2_resident ? 0 : bytes;
    m->l2_bytes = v->moved_in_l2 ? l2_all : bytes;
    /* Read/write mix (issue 17; docs/model.md, "Read/write mix"): when
     * reads and writes share the bus, every switch of direction idles it
     * (write-to-read and read-to-write turnarounds), and the controller
     * drains writes in batches, so the cost grows with the written bytes:
     * writes then move at the mixed write rate, measured as the copy
     * kernel's ceiling less its reads (hw.c), not at the write-only rate.
     * bench/experiments/align_bench rwmix: 1:1 to 3:1 read:write mixes on the H200
     * give a mixed write rate of 3940-4130 GB/s against 4613 write-only. */
    const double mix_bw = hw->p[HW_DRAM_MIXED_WRITE_GBS].v * 1e9;
    const double wr_eff = rbytes > 0 && wbytes > 0 && mix_bw > 0 ? mix_bw : wr_bw;
    double t_dram = m->l2_resident ? 0 : rbytes / rd_bw + wbytes / wr_eff;
    /* Static partition (issue 17; docs/model.md): a persistent grid-stride
     * loop gives every SM the same share at launch; the SMs do not stream
     * at the same rate, so the kernel lasts until the slowest one is done
     * while DRAM idles in the tail. A grid of many short blocks is balanced
     * by the block scheduler. Measured as the time of a persistent float4
     * add over that of a balanced one (hw.c [SP]: 1.055 on the H200; ncu:
     * the same DRAM bytes and DRAM active cycles, DRAM idle 3-5.5 points
     * more of the time than vec4). */
    if (v->static_partition && hw->p[HW_STATIC_PARTITION].v > 1)
        t_dram *= hw->p[HW_STATIC_PARTITION].v;
    /* Demoted loads (issue 17; docs/model.md, "Demoted loads"): loads that
     * mark their lines for early eviction (ld.global.lu, .nc, .cs) mixed
     * with plain stores move the same DRAM bytes in more time; with the
     * stores demoted too (tile1_cs, tile1_ef) they do not. Measured as the
     * time of a plain float4 add kernel with ld.global.lu loads over the
     * same kernel with plain loads (ceilings probe; hw.c [DL]: 1.051 on the
     * H200), at add's 2:1 read:write mix. Only for kernels that read and
     * write DRAM: read-only streams lose nothing. */
    if (v->demoted_loads && rbytes > 0 && wbytes > 0 && hw->p[HW_DEMOTED_LOADS].v > 1)
        t_dram *= hw->p[HW_DEMOTED_LOADS].v;
    m->ms[SL_B_DRAM] = 1e3 * t_dram;

    /* C. Latency (seed 000 section C; Little's law, seed 001 2.2, seed 004).
     * Loads hold a thread until they return; stores are posted. So Little's
     * law bounds the read stream: reads in flight = resident threads x
     * independent loads x bytes each, and the reads can stream no faster
     * than (in flight) / latency. With the probe's bandwidth-vs-bytes-in-
     * flight curve, that rate is read off the curve at the kernel's own
     * bytes in flight per SM (latency measured at the load the kernel puts
     * on the memory system: ~0.9 us in the latency-bound region, 1.5 us at
     * the knee on the H200); without it, the pointer-chase latency gives an
     * optimistic rate. T_latency = read bytes / that rate; the efficiency
     * reported is T_DRAM / T_latency (<= 1), the seed's "bytes in flight
     * over bytes in flight needed". */
    double per_sm = attrs && attrs->blocks_per_sm > 0 ? (double)attrs->blocks_per_sm * attrs->block
                                                      : hw->p[HW_MAX_THREADS_PER_SM].v;
    double ept = v->elems_per_thread ? v->elems_per_thread : 1;
    double want_threads = ceil(N / ept);
    m->resident_threads = fmin(per_sm * sms, want_threads);
    double bif_thread = (double)tr.rd_streams * v->loads_in_flight * v->access_bytes;
    double lat = hw->p[HW_DRAM_LATENCY_NS].v * 1e-9;
    m->latency_eff = -1;
    if (bif_thread > 0 && !m->l2_resident && t_dram > 0 && rbytes > 0) {
        double have = m->resident_threads * bif_thread;
        double need_rate = rbytes / t_dram; /* the read rate that keeps up with DRAM */
        double rate = 0;
        m->bif_per_sm = have / sms;
        if (hw->bif_n > 0) {
            rate = curve_at(hw, m->bif_per_sm) * 1e9;
            m->bif_needed_per_sm = curve_reach_rate(hw, need_rate / 1e9);
        } else if (lat > 0) {
            rate = have / lat;
            m->bif_needed_per_sm = need_rate * lat / sms;
        }
        if (rate > 0) {
            m->ms[SL_B_LATENCY] = 1e3 * rbytes / rate;
            m->latency_eff = fmin(1.0, t_dram / (rbytes / rate));
        }
    }

    /* D. L2 (seed 000 section D): every byte passes through L2. */
    if (hw->p[HW_L2_GBS].v > 0)
        m->ms[SL_B_L2] = 1e3 * m->l2_bytes / (hw->p[HW_L2_GBS].v * 1e9);

    /* B. Compute (seed 000 section B): flops / (lanes x SMs x clock), x2
     * for fused multiply-adds. */
    if (hw->p[HW_FP32_LANES_PER_SM].v > 0) {
        /* tensor cores: the op's rate over the FP32 pipe (op.h, math_rate_x; matmul's roofline peaks) */
        const double x = op->math_rate_x ? op->math_rate_x(v, dt, hw->cc) : 0;
        m->ms[SL_B_COMPUTE] =
            1e3 * flops / (hw->p[HW_FP32_LANES_PER_SM].v * sms * clk * (op->fma ? 2 : 1) * (x > 0 ? x : 1));
    }

    /* E. Issue (seed 000 section E): warp instructions / (schedulers x SMs
     * x clock), one instruction per scheduler per clock. */
    if (hw->p[HW_SCHEDULERS_PER_SM].v > 0 && ipe > 0)
        m->ms[SL_B_ISSUE] = 1e3 * (N * ipe / 32.0) / (hw->p[HW_SCHEDULERS_PER_SM].v * sms * clk);

    /* F. Load/store units (seed 000 section F). Two limits, the larger
     * wins: address throughput, warp memory instructions / (lanes / 32 x SMs
     * x clock), i.e. 32 lanes take one warp instruction per clock; and the
     * L1 data path, bytes / (128 B x SMs x clock). Bulk copies bypass both
     * for the inputs. */
    if (hw->p[HW_LSU_LANES_PER_SM].v > 0) {
        double arrays = v->async_reads ? tr.wr_streams : tr.rd_streams + tr.wr_streams;
        double per_access = v->access_bytes ? v->access_bytes / es : 1; /* elements per thread access */
        double warp_insts = N * arrays / (per_access > 1 ? per_access : 1) / 32.0;
        double t_addr = warp_insts / (hw->p[HW_LSU_LANES_PER_SM].v / 32.0 * sms * clk);
        double t_data = arrays * N * es / (LSU_BYTES_PER_CLK * sms * clk);
        m->ms[SL_B_LSU] = 1e3 * fmax(t_addr, t_data);
    }

    /* G. Shared memory (seed 000 section G; seed 004 "Volta Shared Memory"
     * and "Shared Memory Bank Conflicts", lines 598-707). The pipe serves
     * one wavefront per clock per SM: up to banks x bank bytes (32 x 4 =
     * 128 B), one word per bank. A warp access whose lanes hit n different
     * words of one bank takes n wavefronts, so its bytes cost n times:
     *   T_SMEM = N x (b - c + n x c) / (B/clk/SM x SMs x clock)
     * with b = smem bytes per element, c = the conflicted bytes of them,
     * n = the conflict's ways (sl_variant). B/clk/SM = banks x bank bytes,
     * the arch table's or, after `streamlab probe`, the smem probe's
     * measured bytes per clock (hw.c). bench/results/h200-transpose: the
     * 32x32 f32 tile's column read measures 32.5 wavefronts per
     * instruction, the padded one 1.1. */
    if (hw->p[HW_SMEM_BANKS].v > 0 && hw->p[HW_SMEM_BANK_BYTES].v > 0) {
        const double ways = v->smem_conflict_ways > 1 ? v->smem_conflict_ways : 1;
        const double cb = fmin(v->smem_conflict_bytes_per_elem, v->smem_bytes_per_elem);
        const double wf_bytes = v->smem_bytes_per_elem - cb + ways * cb; /* bytes, conflicts counted */
        m->smem_ways = ways;
        m->ms[SL_B_SMEM] = v->smem_bytes_per_elem
                               ? 1e3 * N * wf_bytes / (hw->p[HW_SMEM_BANKS].v * hw->p[HW_SMEM_BANK_BYTES].v * sms * clk)
                               : 0;
    }

    /* H. PCIe (seed 003 section H): host <-> device bytes / bandwidth. The
     * ops here work on device memory: no host bytes. */
    m->ms[SL_B_PCIE] = 0;

    /* Launch overhead (not in the seed): what an empty kernel costs between
     * two events, so that small n is predicted too. */
    m->ms[SL_B_LAUNCH] = hw->p[HW_LAUNCH_US].v > 0 ? hw->p[HW_LAUNCH_US].v * 1e-3 : 0;

    /* I. T_kernel = max of the bounds (seed 003 section I), plus launch.
     * The latency term only takes the name when it stretches the DRAM time
     * by more than the probe curve's own noise (5%); below that the two are
     * the same resource. */
    sl_bound body_lim = SL_B_DRAM;
    double body = 0;
    for (int b = 0; b < SL_B_COUNT; b++) {
        if (b == SL_B_LAUNCH || m->ms[b] < 0)
            continue;
        if (m->ms[b] > body) {
            body = m->ms[b];
            body_lim = (sl_bound)b;
        }
    }
    if (body_lim == SL_B_LATENCY && m->ms[SL_B_LATENCY] <= 1.05 * m->ms[SL_B_DRAM])
        body_lim = SL_B_DRAM;
    /* A kernel cannot finish faster than one dependent round trip: its
     * loads must return before its stores go out, and the stores must land.
     * Two latencies of the level that serves the data (L2 or DRAM). */
    double rt = m->l2_resident ? hw->p[HW_L2_LATENCY_NS].v : hw->p[HW_DRAM_LATENCY_NS].v;
    double floor_ms = rt > 0 ? 2e-6 * rt : 0;
    if (floor_ms > body) {
        body = floor_ms;
        body_lim = SL_B_LATENCY;
    }
    m->floor_ms = floor_ms;
    m->body_ms = body;
    m->pred_ms = body + m->ms[SL_B_LAUNCH];
    m->limiter = m->ms[SL_B_LAUNCH] > body ? SL_B_LAUNCH : body_lim;
    return SL_OK;
}

int sl_model_advice(const sl_op_desc *op, const sl_variant *v, sl_dtype dt, const sl_model *m,
                    char lines[][256], int max)
{
    int k = 0;
#define ADVISE(...)                                                             \
    do {                                                                        \
        if (k < max)                                                            \
            snprintf(lines[k++], 256, __VA_ARGS__);                             \
    } while (0)
    double es = (double)sl_dtype_size(dt);
    const sl_shape one = sl_shape_1d(1);
    const sl_traffic tr = sl_variant_traffic(op, v, &one, dt);
    const int arrays = tr.rd_streams + tr.wr_streams, reads = tr.rd_streams, writes = tr.wr_streams;
    switch (m->limiter) {
    case SL_B_DRAM:
    case SL_B_LATENCY:
        if (m->limiter == SL_B_LATENCY) {
            char have[32], need[32];
            sl_format_bytes(m->bif_per_sm, have, sizeof have);
            sl_format_bytes(m->bif_needed_per_sm, need, sizeof need);
            ADVISE("more bytes in flight: %s per SM now, %s needed (bandwidth x latency / SMs); wider loads "
                   "(float4: 4x per load), ILP, or more resident warps",
                   have, need);
        }
        if (es > 2)
            ADVISE("halve the bytes: f16/bf16 storage moves %d instead of %.0f B/element, T_DRAM %.3f -> %.3f ms",
                   arrays * 2, arrays * es, m->ms[SL_B_DRAM], m->ms[SL_B_DRAM] * 2.0 / es);
        if (es >= 4 && writes)
            ADVISE("fp8 output from %s inputs (seed 000's FP8 experiment): %.0f instead of %.0f B/element, "
                   "T_DRAM -%.0f%%",
                   sl_dtype_name(dt), reads * es + writes, arrays * es, 100.0 * writes * (es - 1) / (arrays * es));
        if (arrays > 0)
            ADVISE("fuse with the kernel that produces an input or consumes the output: each array that skips DRAM "
                   "saves %.0f%% of the bytes",
                   100.0 / arrays);
        break;
    case SL_B_LAUNCH:
        ADVISE("the launch (%.1f us) outweighs the work (%.2f us): batch into fewer, larger launches, replay a "
               "CUDA graph, or fuse with neighbouring kernels",
               m->ms[SL_B_LAUNCH] * 1e3, m->body_ms * 1e3);
        break;
    case SL_B_L2:
        ADVISE("keep reuse in shared memory or registers instead of L2, or cut the bytes (lower precision)");
        break;
    case SL_B_COMPUTE:
        ADVISE("fewer or cheaper flops: FMA (2 flops per lane per clock), lower-precision math");
        break;
    case SL_B_ISSUE:
        ADVISE("fewer instructions per element (%.1f now): vectorize (float4 cuts loads/stores 4x), hoist index "
               "math, unroll",
               (double)v->insts_per_elem);
        break;
    case SL_B_LSU:
        ADVISE("wider accesses (16-byte loads) or bulk copies (cp.async.bulk) to relieve the load/store units");
        break;
    case SL_B_SMEM:
        if (m->smem_ways > 1)
            ADVISE("the shared accesses take %.0f-way bank conflicts: pad the tile (32x33) or swizzle it",
                   m->smem_ways);
        else
            ADVISE("fewer shared-memory passes, and no bank conflicts (pad or swizzle)");
        break;
    default:
        break;
    }
    /* What would limit next. */
    double second = -1;
    sl_bound next = SL_B_COUNT;
    for (int b = 0; b < SL_B_COUNT; b++) {
        if (b == (int)m->limiter || m->ms[b] < 0 || (m->limiter == SL_B_DRAM && b == SL_B_LATENCY) ||
            (m->limiter == SL_B_LATENCY && b == SL_B_DRAM))
            continue;
        if (m->ms[b] > second) {
            second = m->ms[b];
            next = (sl_bound)b;
        }
    }
    if (next < SL_B_COUNT && second > 0)
        ADVISE("next limiter if this one were removed: %s at %.4f ms", sl_bound_name(next), second);
#undef ADVISE
    return k;
}
