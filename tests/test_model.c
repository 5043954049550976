/*
 * The bottleneck model (src/core/model.c, hw.c) on the CPU:
 * - seed 000's RTX 4060 numbers from its parameters (hw/rtx4060.json):
 *   T_DRAM = 8.82 ms and T_compute = 0.026 ms for 200M-element fp32 add,
 *   latency 100%, limiter DRAM;
 * - Little's law, launch overhead, L2 residency, FMA, advice;
 * - the arch table, profile overrides and --hw file errors.
 * Usage: test_model HW_DIR TMP_DIR
 */
#include "check.h"
#include "hw.h"
#include "model.h"
#include "op.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *hw_dir = "hw", *tmp = ".";

static const sl_variant *naive_like(void)
{
    /* The seed's naive kernel as the model sees it, whether or not this
     * build has CUDA rungs. */
    static sl_variant v = {.name = "naive", .backend = SL_BACKEND_CUDA, .kind = SL_KIND_RUNG, .technique = "naive",
                           .loads_in_flight = 1, .access_bytes = 4, .elems_per_thread = 1, .insts_per_elem = 12};
    return &v;
}

/* The model for variant v of add at n elements. */
static sl_status predict_op(const sl_op_desc *op, const sl_hw *hw, const sl_variant *v, const sl_kernel_attrs *a,
                            sl_dtype dt, uint64_t n, bool cold, sl_model *m)
{
    const sl_shape s = sl_shape_1d(n);
    return sl_model_predict(hw, op, v, a, dt, &s, -1.0, cold, m);
}

static sl_status predict(const sl_hw *hw, const sl_variant *v, const sl_kernel_attrs *a, sl_dtype dt, uint64_t n,
                         bool cold, sl_model *m)
{
    return predict_op(&sl_op_add, hw, v, a, dt, n, cold, m);
}

/* A DRAM-time factor of the model (hw key k, flag set in `flagged`):
 * sm_90's arch row gives `want`, the flagged variant's T_DRAM is want x
 * the plain one's, factor 0 leaves it alone, sm_80 has no such factor. */
static void check_dram_factor(const sl_hw *hw, const sl_variant *plain, const sl_variant *flagged, sl_hw_key k,
                              double want, uint64_t n)
{
    sl_model mf, mp;
    predict(hw, plain, NULL, SL_F32, n, true, &mp);
    predict(hw, flagged, NULL, SL_F32, n, true, &mf);
    CHECK(hw->p[k].v == want && hw->p[k].src == SL_SRC_ARCH, "sm_90 %s %.3f", sl_hw_key_name(k), hw->p[k].v);
    CHECK(fabs(mf.ms[SL_B_DRAM] - want * mp.ms[SL_B_DRAM]) < 1e-9, "%s: flagged T_DRAM %.6f, plain %.6f",
          sl_hw_key_name(k), mf.ms[SL_B_DRAM], mp.ms[SL_B_DRAM]);
    sl_hw h0 = *hw;
    h0.p[k].v = 0;
    predict(&h0, flagged, NULL, SL_F32, n, true, &mf);
    CHECK(fabs(mf.ms[SL_B_DRAM] - mp.ms[SL_B_DRAM]) < 1e-12, "%s 0 must leave T_DRAM alone", sl_hw_key_name(k));
    sl_hw h80;
    sl_hw_from_arch(80, &h80);
    CHECK(h80.p[k].v == 0, "sm_80 has no measured %s", sl_hw_key_name(k));
}

static void test_seed_rtx4060(void)
{
    char path[512];
    snprintf(path, sizeof path, "%s/rtx4060.json", hw_dir);
    sl_hw hw;
    CHECK(sl_hw_read_file(path, &hw) == SL_OK, "read %s: %s", path, sl_last_error());
    CHECK(hw.p[HW_SM_COUNT].src == SL_SRC_USER && hw.p[HW_SCHEDULERS_PER_SM].src == SL_SRC_ARCH, "sources");
    sl_model m;
    CHECK(predict(&hw, naive_like(), NULL, SL_F32, 200000000ull, true, &m) == SL_OK, "predict");
    CHECK(fabs(m.ms[SL_B_DRAM] - 8.82) < 0.005, "T_DRAM %.4f ms, seed 000: 8.82 ms", m.ms[SL_B_DRAM]);
    CHECK(fabs(m.ms[SL_B_COMPUTE] - 0.026) < 0.0005, "T_compute %.5f ms, seed 000: 0.026 ms", m.ms[SL_B_COMPUTE]);
    CHECK(m.latency_eff == 1.0, "latency efficiency %.2f, seed 000: 100%%", m.latency_eff);
    CHECK(m.limiter == SL_B_DRAM, "limiter %s, seed 000: DRAM", sl_bound_name(m.limiter));
    char lines[8][256];
    int k = sl_model_advice(&sl_op_add, naive_like(), SL_F32, &m, lines, 8);
    int bf16 = 0, fp8 = 0;
    for (int i = 0; i < k; i++) {
        bf16 |= strstr(lines[i], "bf16") != NULL && strstr(lines[i], "4.412") != NULL;
        fp8 |= strstr(lines[i], "fp8") != NULL && strstr(lines[i], "9 instead of 12") != NULL;
    }
    CHECK(bf16 && fp8, "advice lacks the bf16 (4.412 ms) or fp8 (9 B) suggestion");
}

/* An H200-like description, all user values, for the equations' edges. */
static sl_hw h200_like(void)
{
    sl_hw hw;
    sl_hw_from_arch(90, &hw);
    snprintf(hw.name, sizeof hw.name, "test");
    const struct { sl_hw_key k; double v; } vals[] = {
        {HW_SM_COUNT, 132},        {HW_SM_CLOCK_GHZ, 1.98},        {HW_MAX_THREADS_PER_SM, 2048},
        {HW_L2_BYTES, 60e6},       {HW_PEAK_DRAM_GBS, 4814},       {HW_DRAM_READ_GBS, 4400},
        {HW_DRAM_WRITE_GBS, 4200}, {HW_DRAM_LATENCY_NS, 1000},     {HW_L2_GBS, 9000},
        {HW_LAUNCH_US, 4.5}};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        hw.p[vals[i].k].v = vals[i].v;
        hw.p[vals[i].k].src = SL_SRC_USER;
    }
    return hw;
}

static void test_equations(void)
{
    sl_hw hw = h200_like();
    sl_model m;
    const double n = 2e8;
    /* DRAM: reads at 4400, writes at 4200 */
    predict(&hw, naive_like(), NULL, SL_F32, (uint64_t)n, true, &m);
    double want = 1e3 * (8 * n / 4400e9 + 4 * n / 4200e9);
    CHECK(fabs(m.ms[SL_B_DRAM] - want) < 1e-9, "T_DRAM %.6f, want %.6f", m.ms[SL_B_DRAM], want);
    /* read/write mix: with a mixed write rate, the writes of a kernel that
     * also reads move at it; a write-only or read-only kernel is unchanged */
    {
        sl_hw hm = hw;
        hm.p[HW_DRAM_MIXED_WRITE_GBS].v = 3900;
        hm.p[HW_DRAM_MIXED_WRITE_GBS].src = SL_SRC_USER;
        sl_model mm;
        predict(&hm, naive_like(), NULL, SL_F32, (uint64_t)n, true, &mm);
        const double wmix = 1e3 * (8 * n / 4400e9 + 4 * n / 3900e9);
        CHECK(fabs(mm.ms[SL_B_DRAM] - wmix) < 1e-9, "mixed T_DRAM %.6f, want %.6f", mm.ms[SL_B_DRAM], wmix);
    }
    /* Little's law on the read stream: 2048 threads x 8 B = 16 KiB per SM
     * in flight; reads stream at (in flight) / 1000 ns; needed per SM =
     * the read rate DRAM could take x latency / SMs */
    double have = 132.0 * 2048 * 8, rate = have / 1000e-9, t_lat = 1e3 * 8 * n / rate;
    double need = (8 * n / (want * 1e-3)) * 1000e-9 / 132;
    CHECK(fabs(m.bif_per_sm - 16384) < 1e-6, "bytes in flight per SM %.1f", m.bif_per_sm);
    CHECK(fabs(m.bif_needed_per_sm - need) < 1e-3, "needed per SM %.1f, want %.1f", m.bif_needed_per_sm, need);
    CHECK(fabs(m.ms[SL_B_LATENCY] - t_lat) < 1e-9, "T_latency %.6f, want %.6f", m.ms[SL_B_LATENCY], t_lat);
    CHECK(fabs(m.latency_eff - want / t_lat) < 1e-9, "efficiency %.4f", m.latency_eff);
    CHECK(m.limiter == SL_B_LATENCY, "naive on an H200-like GPU should be latency-bound, got %s",
          sl_bound_name(m.limiter));
    CHECK(fabs(m.pred_ms - (t_lat + 4.5e-3)) < 1e-9, "pred = launch + body");

    /* float4 loads: 4x the bytes in flight, enough: DRAM-bound */
    sl_variant v4 = *naive_like();
    v4.access_bytes = 16;
    v4.elems_per_thread = 4;
    predict(&hw, &v4, NULL, SL_F32, (uint64_t)n, true, &m);
    CHECK(m.limiter == SL_B_DRAM && m.latency_eff == 1.0, "float4: %s, eff %.2f", sl_bound_name(m.limiter),
          m.latency_eff);
    /* issue 17's two DRAM factors: a flagged variant's DRAM time is the
     * sm_90 arch row's factor x the plain one's; with the factor off,
     * unchanged; sm_80 has none. static partition: a persistent grid-stride
     * loop (1.055); demoted loads: loads with an eviction hint beside plain
     * stores (1.051). */
    sl_variant vs = v4, vd = v4;
    vs.static_partition = true;
    vd.demoted_loads = true;
    check_dram_factor(&hw, &v4, &vs, HW_STATIC_PARTITION, 1.055, (uint64_t)n);
    check_dram_factor(&hw, &v4, &vd, HW_DEMOTED_LOADS, 1.051, (uint64_t)n);
    /* occupancy from the kernel's attributes: 4 blocks of 256 = 1024 threads, half the bytes in flight */
    sl_kernel_attrs a = {.regs = 64, .block = 256, .blocks_per_sm = 4};
    predict(&hw, &v4, &a, SL_F32, (uint64_t)n, true, &m);
    CHECK(fabs(m.bif_per_sm - 1024 * 32) < 1e-6, "attrs occupancy: %.0f B/SM", m.bif_per_sm);

    /* n = 2^16, warm: L2-resident, launch-bound */
    predict(&hw, &v4, NULL, SL_F32, 65536, false, &m);
    CHECK(m.l2_resident && m.ms[SL_B_DRAM] == 0, "2^16 warm should be L2-resident");
    CHECK(m.limiter == SL_B_LAUNCH, "2^16: limiter %s, want launch overhead", sl_bound_name(m.limiter));
    /* the same, cold: DRAM bytes count, a small grid limits bytes in flight */
    predict(&hw, &v4, NULL, SL_F32, 65536, true, &m);
    CHECK(!m.l2_resident && m.resident_threads == 16384, "2^16 cold: %.0f threads", m.resident_threads);

    /* compute: an FMA counts 2 flops and runs 2 per lane per clock: axpy's
     * fma costs what add's one add does */
    sl_model mf, mp;
    predict_op(&sl_op_axpy, &hw, naive_like(), NULL, SL_F32, (uint64_t)n, true, &mf);
    predict(&hw, naive_like(), NULL, SL_F32, (uint64_t)n, true, &mp);
    CHECK(mf.ms[SL_B_COMPUTE] > 0 && fabs(mf.ms[SL_B_COMPUTE] - mp.ms[SL_B_COMPUTE]) < 1e-12, "FMA rate");
    /* the traffic is the descriptor's: axpy moves x and y in, y out, like add */
    CHECK(fabs(mf.ms[SL_B_DRAM] - mp.ms[SL_B_DRAM]) < 1e-12, "axpy's bytes are add's");
    /* bf16 halves the bytes */
    sl_model mb;
    predict(&hw, &v4, NULL, SL_BF16, (uint64_t)n, true, &mb);
    predict(&hw, &v4, NULL, SL_F32, (uint64_t)n, true, &m);
    CHECK(fabs(mb.ms[SL_B_DRAM] * 2 - m.ms[SL_B_DRAM]) < 1e-9, "bf16 T_DRAM is half of f32's");
    /* missing parameters are an error, not a division by zero */
    sl_hw empty;
    memset(&empty, 0, sizeof empty);
    CHECK(predict(&empty, &v4, NULL, SL_F32, 1000, true, &m) == SL_ERR_INVALID_ARG, "empty hw");
}

/* With the probe's bandwidth-vs-bytes-in-flight curve, the latency term
 * reads the curve's upper envelope at the kernel's bytes in flight. */
static void test_curve(void)
{
    sl_hw hw = h200_like();
    const double x[] = {512, 4096, 16384, 16384, 32768, 65536, 262144};
    const double y[] = {170, 1300, 2000, 2200, 3900, 4500, 4300};
    hw.bif_n = 7;
    memcpy(hw.bif_x, x, sizeof x);
    memcpy(hw.bif_y, y, sizeof y);
    sl_model m;
    const double n = 2e8, t_dram = 1e3 * (8 * n / 4400e9 + 4 * n / 4200e9);
    /* naive: 16 KiB per SM -> the best read rate at <= 16 KiB is 2200 GB/s */
    predict(&hw, naive_like(), NULL, SL_F32, (uint64_t)n, true, &m);
    double t_lat = 1e3 * 8 * n / 2200e9;
    CHECK(fabs(m.ms[SL_B_LATENCY] - t_lat) < 1e-9, "T_latency %.6f, want %.6f", m.ms[SL_B_LATENCY], t_lat);
    CHECK(fabs(m.latency_eff - t_dram / t_lat) < 1e-9, "efficiency %.4f", m.latency_eff);
    CHECK(m.limiter == SL_B_LATENCY, "naive with the curve: %s", sl_bound_name(m.limiter));
    /* to keep up, reads must stream at 8n / T_DRAM: first reached at 32 KiB */
    CHECK(m.bif_needed_per_sm == 32768, "needed %.0f, want 32768", m.bif_needed_per_sm);
    /* 64 KiB per SM: 4500 GB/s of reads is more than DRAM takes: DRAM */
    sl_variant v4 = *naive_like();
    v4.access_bytes = 16;
    v4.elems_per_thread = 4;
    predict(&hw, &v4, NULL, SL_F32, (uint64_t)n, true, &m);
    CHECK(m.latency_eff == 1.0 && m.limiter == SL_B_DRAM, "float4 with the curve: eff %.3f, %s", m.latency_eff,
          sl_bound_name(m.limiter));
    /* below the smallest point: linear in bytes in flight (256 B/SM -> 85 GB/s) */
    sl_kernel_attrs one_warp = {.block = 32, .blocks_per_sm = 1};
    predict(&hw, naive_like(), &one_warp, SL_F32, (uint64_t)n, true, &m);
    CHECK(fabs(m.ms[SL_B_LATENCY] - 1e3 * 8 * n / 85e9) < 1e-6, "extrapolated T_latency %.4f", m.ms[SL_B_LATENCY]);
    /* a warm 2^16 still costs two L2 round trips */
    hw.p[HW_L2_LATENCY_NS].v = 150;
    predict(&hw, &v4, NULL, SL_F32, 65536, false, &m);
    CHECK(fabs(m.body_ms - 300e-6) < 1e-12 && m.limiter == SL_B_LAUNCH, "floor %.6f ms, limiter %s", m.body_ms,
          sl_bound_name(m.limiter));
}

static void test_arch_and_profile(void)
{
    const int ccs[] = {70, 75, 80, 86, 89, 90, 100, 120};
    for (size_t i = 0; i < sizeof ccs / sizeof ccs[0]; i++) {
        sl_hw hw;
        CHECK(sl_hw_from_arch(ccs[i], &hw) == SL_OK, "sm_%d missing from the arch table", ccs[i]);
        CHECK(hw.p[HW_FP32_LANES_PER_SM].v >= 64 && hw.p[HW_SCHEDULERS_PER_SM].v == 4, "sm_%d values", ccs[i]);
        CHECK(hw.p[HW_FP32_LANES_PER_SM].ref[0] != 0, "sm_%d lacks a citation", ccs[i]);
    }
    sl_hw hw;
    CHECK(sl_hw_from_arch(87, &hw) == SL_ERR_UNSUPPORTED && hw.p[HW_FP32_LANES_PER_SM].v == 128,
          "sm_87 falls back to the sm_86 row");
    CHECK(strstr(sl_last_error(), "sm_86") != NULL, "fallback named: %s", sl_last_error());
    CHECK(sl_hw_from_arch(60, &hw) == SL_ERR_UNSUPPORTED, "sm_60 is not covered");

    hw = h200_like();
    hw.p[HW_DRAM_READ_GBS].src = SL_SRC_QUERIED; /* not user-given: a probe may override */
    hw.p[HW_DRAM_LATENCY_NS].src = SL_SRC_ARCH;
    sl_profile prof;
    sl_profile_init(&prof);
    prof.read_gbs = 4464;
    prof.lat_dram_ns = 341;
    prof.knee_latency_ns = 1112; /* reported, not used as the chase latency */
    prof.launch_event_us = 4.3; /* launch_us is user-given above: must stay 4.5 */
    sl_hw_apply_profile(&hw, &prof, "x.profile.json");
    CHECK(hw.p[HW_DRAM_READ_GBS].v == 4464 && hw.p[HW_DRAM_READ_GBS].src == SL_SRC_PROBE, "probe read bw");
    CHECK(hw.p[HW_DRAM_LATENCY_NS].v == 341 && hw.p[HW_DRAM_LATENCY_NS].src == SL_SRC_PROBE, "probe latency");
    CHECK(hw.knee_latency_ns == 1112, "knee kept for reports");
    CHECK(hw.p[HW_LAUNCH_US].v == 4.5 && hw.p[HW_LAUNCH_US].src == SL_SRC_USER, "user beats probe");
    CHECK(hw.p[HW_DRAM_WRITE_GBS].v == 4200, "an unmeasured field keeps its value");
    CHECK(hw.p[HW_DRAM_MIXED_WRITE_GBS].v == 0, "no copy ceiling: no mixed write rate");
    /* the mixed write rate from the copy kernel's ceiling: 0.5 / 4200 =
     * 0.5 / 4464 + 0.5 / mixed */
    prof.copy_sm_gbs = 4200;
    sl_hw_apply_profile(&hw, &prof, "x.profile.json");
    const double mixed = 0.5 / (1 / 4200.0 - 0.5 / 4464);
    CHECK(fabs(hw.p[HW_DRAM_MIXED_WRITE_GBS].v - mixed) < 1e-9 && hw.p[HW_DRAM_MIXED_WRITE_GBS].src == SL_SRC_PROBE,
          "mixed write rate %.3f, want %.3f", hw.p[HW_DRAM_MIXED_WRITE_GBS].v, mixed);
    /* the demoted-load factor: the probe's plain add over its demoted one,
     * only when both were measured */
    {
        const sl_param before = hw.p[HW_DEMOTED_LOADS];
        prof.add_plain_gbs = 4340;
        sl_hw_apply_profile(&hw, &prof, "x.profile.json");
        CHECK(hw.p[HW_DEMOTED_LOADS].v == before.v && hw.p[HW_DEMOTED_LOADS].src == before.src,
              "half a measurement must not set the demoted-load factor");
        prof.add_demoted_gbs = 4130;
        sl_hw_apply_profile(&hw, &prof, "x.profile.json");
        CHECK(fabs(hw.p[HW_DEMOTED_LOADS].v - 4340.0 / 4130) < 1e-12 && hw.p[HW_DEMOTED_LOADS].src == SL_SRC_PROBE,
              "demoted-load factor %.4f from the probe", hw.p[HW_DEMOTED_LOADS].v);
    }
    /* a profile belongs to one GPU (issue 17) */
    snprintf(hw.uuid, sizeof hw.uuid, "GPU-aaaa");
    hw.sm_clock_max_mhz = 1980;
    hw.mem_clock_mhz = 3201;
    hw.ecc = 1;
    sl_hw_profile_warning(&hw, &prof, "x.profile.json");
    CHECK(strstr(hw.profile_warning, "records no GPU UUID") != NULL, "no UUID: %s", hw.profile_warning);
    snprintf(prof.uuid, sizeof prof.uuid, "GPU-bbbb");
    sl_hw_profile_warning(&hw, &prof, "x.profile.json");
    CHECK(strstr(hw.profile_warning, "GPU-bbbb") && strstr(hw.profile_warning, "GPU-aaaa"), "other GPU: %s",
          hw.profile_warning);
    snprintf(prof.uuid, sizeof prof.uuid, "GPU-aaaa");
    prof.sm_clock_max_mhz = 1980;
    prof.mem_clock_mhz = 3201;
    prof.ecc = 1;
    sl_hw_profile_warning(&hw, &prof, "x.profile.json");
    CHECK(hw.profile_warning[0] == 0, "same GPU, same clocks: no warning, got %s", hw.profile_warning);
    prof.ecc = 0;
    sl_hw_profile_warning(&hw, &prof, "x.profile.json");
    CHECK(strstr(hw.profile_warning, "ECC") != NULL, "ECC changed: %s", hw.profile_warning);
    hw.uuid[0] = 0;
    sl_hw_profile_warning(&hw, &prof, "x.profile.json");
    CHECK(hw.profile_warning[0] == 0, "no GPU to compare (a --hw file): no warning");
    CHECK(strcmp(sl_src_name(SL_SRC_PROBE), "probe") == 0 && strcmp(sl_src_name(SL_SRC_ARCH), "arch-table") == 0,
          "source names");
}

static void expect_hw_error(const char *name, const char *text, const char *part)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s.hw.json", tmp, name);
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    sl_hw hw;
    CHECK(sl_hw_read_file(path, &hw) == SL_ERR_IO, "%s accepted", name);
    CHECK(strstr(sl_last_error(), part) != NULL, "%s: '%s' lacks '%s'", name, sl_last_error(), part);
}

static void test_hw_file_errors(void)
{
    sl_hw hw;
    CHECK(sl_hw_read_file("/nonexistent.json", &hw) == SL_ERR_IO, "missing file");
    expect_hw_error("notjson", "{", "not valid JSON");
    expect_hw_error("schema", "{\"schema\": \"x\", \"cc\": \"8.9\", \"params\": {}}", "schema");
    expect_hw_error("cc", "{\"schema\": \"streamlab.hw/1\", \"cc\": 89, \"params\": {}}", "\"cc\"");
    expect_hw_error("typo",
                    "{\"schema\": \"streamlab.hw/1\", \"cc\": \"8.9\", \"params\": {\"sm_cont\": 24}}",
                    "unknown parameter \"sm_cont\"");
    expect_hw_error("string",
                    "{\"schema\": \"streamlab.hw/1\", \"cc\": \"8.9\", \"params\": {\"sm_count\": \"24\"}}",
                    "positive number");
    expect_hw_error("required", "{\"schema\": \"streamlab.hw/1\", \"cc\": \"8.9\", \"params\": {\"sm_count\": 24}}",
                    "required");
}

/* Issue 11: T_SMEM counts bank conflicts (seed 004 lines 598-707). At
 * 8192x8192 f32 on an H200-like GPU the 32x32 tile's column read (32-way)
 * makes tile32 shared-memory bound, 132 B/elem at 128 B/clk/SM (0.257 ms
 * against DRAM's 0.125); the padded tile (conflict-free, 8 B/elem) stays
 * DRAM bound. A probed bandwidth (profile "smem") replaces 128 B/clk. */
static const sl_variant *find_variant(const sl_op_desc *op, const char *name)
{
    for (int i = 0; i < op->nvariants; i++)
        if (op->variants[i].backend == SL_BACKEND_CUDA && strcmp(op->variants[i].name, name) == 0)
            return &op->variants[i];
    return NULL;
}

static void test_smem_conflicts(void)
{
    const sl_op_desc *op = sl_op_find("transpose");
    CHECK(op != NULL, "no transpose op");
    if (!op)
        return;
    const sl_variant *t32 = find_variant(op, "tile32"), *p33 = find_variant(op, "pad33");
    CHECK(t32 && p33, "transpose lacks tile32 or pad33");
    if (!t32 || !p33)
        return;
    sl_hw hw = h200_like();
    const sl_shape s = {.rows = 8192, .cols = 8192, .ld = 8192};
    sl_model a, b;
    CHECK(sl_model_predict(&hw, op, t32, NULL, SL_F32, &s, -1.0, true, &a) == SL_OK, "predict tile32");
    CHECK(sl_model_predict(&hw, op, p33, NULL, SL_F32, &s, -1.0, true, &b) == SL_OK, "predict pad33");
    const double n = 8192.0 * 8192.0, clk = 132 * 1.98e9 * 128;
    CHECK(fabs(a.ms[SL_B_SMEM] - 1e3 * n * (4 + 32 * 4) / clk) < 1e-9, "tile32 T_SMEM %.6f ms, want %.6f",
          a.ms[SL_B_SMEM], 1e3 * n * 132 / clk);
    CHECK(fabs(b.ms[SL_B_SMEM] - 1e3 * n * 8 / clk) < 1e-9, "pad33 T_SMEM %.6f ms", b.ms[SL_B_SMEM]);
    CHECK(a.limiter == SL_B_SMEM && a.smem_ways == 32, "tile32: limiter %s (%.0f ways), want shared memory, 32",
          sl_bound_name(a.limiter), a.smem_ways);
    CHECK(b.limiter == SL_B_DRAM && b.smem_ways == 1, "pad33: limiter %s, want DRAM", sl_bound_name(b.limiter));
    char lines[8][256];
    int k = sl_model_advice(op, t32, SL_F32, &a, lines, 8), said = 0;
    for (int i = 0; i < k; i++)
        said |= strstr(lines[i], "32-way bank conflicts") != NULL;
    CHECK(said, "tile32's advice does not name its 32-way bank conflicts");
    /* a probed 64 B/clk/SM doubles the term (hw.c: bank bytes = measured / banks) */
    sl_profile prof;
    sl_profile_init(&prof);
    prof.smem_bytes_per_clk_sm = 64;
    sl_hw_apply_profile(&hw, &prof, "test.profile.json");
    CHECK(hw.p[HW_SMEM_BANK_BYTES].src == SL_SRC_PROBE && hw.p[HW_SMEM_BANK_BYTES].v == 2.0,
          "profile smem 64 B/clk: bank bytes %.2f (%s)", hw.p[HW_SMEM_BANK_BYTES].v,
          sl_src_name(hw.p[HW_SMEM_BANK_BYTES].src));
    sl_model c;
    CHECK(sl_model_predict(&hw, op, t32, NULL, SL_F32, &s, -1.0, true, &c) == SL_OK, "predict tile32, probed");
    CHECK(fabs(c.ms[SL_B_SMEM] - 2 * a.ms[SL_B_SMEM]) < 1e-9, "probed T_SMEM %.6f, want %.6f", c.ms[SL_B_SMEM],
          2 * a.ms[SL_B_SMEM]);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        hw_dir = argv[1];
    if (argc > 2)
        tmp = argv[2];
    test_seed_rtx4060();
    test_equations();
    test_curve();
    test_arch_and_profile();
    test_hw_file_errors();
    test_smem_conflicts();
    return check_exit("test_model");
}
