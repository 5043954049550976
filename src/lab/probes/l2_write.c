/*
 * l2_write.c - the l2-write probe (seed 000, "Revisiting the L2 Cache
 * Write Behavior"): coalesced against stride-8 write-only kernels. A write
 * that fills only part of a 32-byte sector makes L2 read the sector from
 * DRAM first (write-validate), so the stride-8 kernel costs more than the
 * 8x its wasted sector bytes explain. With --counters, CUPTI measures the
 * DRAM bytes and L2 hit rates behind it.
 */
#include "probe_util.h"

#include "counters.h"

/* One kernel of the L2 experiments, for sl_counters_collect. */
typedef struct ctr_job {
    env *e;
    probe_job_fn fn;
    void *arg;
} ctr_job;

static sl_status ctr_thunk(void *user)
{
    ctr_job *j = user;
    return j->fn(j->e, j->arg);
}

/*
 * Seed 000's L2 experiments ("Revisiting the L2 Cache Write Behavior"),
 * with counters: read-only, write-only and add kernels over `count` words
 * each (L2 hit rates for reads and writes), then write-only coalesced vs
 * stride 8 (DRAM read : write bytes, which equals the load : store sector
 * ratio). The seed on an RTX 4060: read hit ~0.07%, write ~96%, add ~31%;
 * DRAM load : store sectors about 1 : 19.6 coalesced and 1.09 : 1 at
 * stride 8 (a partial sector is read from DRAM before it is written back).
 * Buffer A holds 8 x count words: the read-only and write-only kernels use
 * its first count words, add reads the first two count-word blocks and
 * writes the third. Each collection clears L2 first (the
 * counter session's default), so the numbers are cold-cache ones.
 */
static sl_status write_validate_counters(env *e, void *A, size_t count, cJSON *point)
{
    sl_ctx *ctx = e->ctx;
    uint32_t *sum = NULL;
    sl_status st = ctx->ops->alloc(ctx, SL_PROBE_SUM_WORDS * sizeof *sum, (void **)&sum);
    if (st != SL_OK)
        return st;
    uint32_t *w = A;
    rw_job rd = {.src = w, .words = count, .vec = 4, .ilp = 1, .passes = 1, .sum = sum};
    rw_job wr = {.dst = w, .words = count, .stride = 1};
    rw_job ad = {.src = w, .b = w + count, .dst = w + 2 * count, .words = count};
    rw_job w8 = {.dst = w, .words = count, .stride = 8};
    struct {
        const char *name;
        ctr_job job;
    } k[] = {{"read-only", {e, probe_job_read, &rd}},
             {"write-only coalesced", {e, probe_job_write, &wr}},
             {"add (c = a + b)", {e, probe_job_add, &ad}},
             {"write-only stride 8", {e, probe_job_write, &w8}}};
    /* The add reads data: give it values (the fill is outside the range). */
    if ((st = ctx->ops->fill_random(ctx, SL_F32, w, 2 * count, 7)) != SL_OK)
        goto done;
    enum { NK = sizeof k / sizeof k[0] };
    probe_say(e, "\nhardware counters (CUPTI, L2 cleared before each; %zu words per kernel):", count);
    static const sl_col cols[] = {{"kernel", 22, 'l'},    {"DRAM rd MB", 12, 'r'}, {"DRAM wr MB", 12, 'r'},
                                  {"L2 rd hit", 11, 'r'}, {"L2 wr hit", 11, 'r'},  {"DRAM rd : wr", 14, 'r'}};
    probe_sweep sw;
    probe_sweep_open(&sw, e, NULL);
    probe_table(&sw, cols, 6);
    char failed[NK][256]; /* why a kernel's counters failed, said under the table */
    cJSON *arr = cJSON_CreateArray();
    cJSON_AddItemToObject(point, "counters", arr);
    for (size_t i = 0; i < NK; i++) {
        failed[i][0] = 0;
        sl_counters c;
        st = sl_counters_collect(e->cfg->counters, ctr_thunk, &k[i].job, &c);
        if (st == SL_OK && k[i].job.fn == probe_job_read)
            st = e->ops->read_collect(ctx, sum, &(uint32_t){0});
        if (st == SL_ERR_CUDA_FAULT)
            goto done;
        if (st != SL_OK) {
            /* Counters are optional: the timed probe above stands. */
            snprintf(failed[i], sizeof failed[i], "%s", sl_last_error());
            probe_cell(&sw, "%s", k[i].name);
            probe_row(&sw);
            st = SL_OK;
            continue;
        }
        char rs[32];
        const double v_rd = c.has[SL_CTR_DRAM_READ_BYTES] ? c.value[SL_CTR_DRAM_READ_BYTES] : -1;
        const double v_wr = c.has[SL_CTR_DRAM_WRITE_BYTES] ? c.value[SL_CTR_DRAM_WRITE_BYTES] : -1;
        const double v_hr = c.has[SL_CTR_L2_READ_HIT_PCT] ? c.value[SL_CTR_L2_READ_HIT_PCT] : -1;
        const double v_hw = c.has[SL_CTR_L2_WRITE_HIT_PCT] ? c.value[SL_CTR_L2_WRITE_HIT_PCT] : -1;
        /* read : write, written so that the smaller side is 1; no reads at all is "0 : 1". */
        if (v_rd < 0 || v_wr < 0 || (v_rd == 0 && v_wr == 0))
            snprintf(rs, sizeof rs, "-");
        else if (v_rd == 0)
            snprintf(rs, sizeof rs, "0 : 1");
        else if (v_wr == 0)
            snprintf(rs, sizeof rs, "1 : 0");
        else if (v_rd >= v_wr)
            snprintf(rs, sizeof rs, "%.2f : 1", v_rd / v_wr);
        else
            snprintf(rs, sizeof rs, "1 : %.1f", v_wr / v_rd);
        probe_cell(&sw, "%s", k[i].name);
        probe_num(&sw, v_rd < 0 ? -1 : v_rd / 1e6, 1, "");
        probe_num(&sw, v_wr < 0 ? -1 : v_wr / 1e6, 1, "");
        probe_num(&sw, v_hr, 2, "%");
        probe_num(&sw, v_hw, 2, "%");
        probe_cell(&sw, "%s", rs);
        probe_row(&sw);
        cJSON *o = cJSON_CreateObject();
        cJSON_AddStringToObject(o, "kernel", k[i].name);
        cJSON_AddNumberToObject(o, "dram_read_bytes", v_rd);
        cJSON_AddNumberToObject(o, "dram_write_bytes", v_wr);
        cJSON_AddNumberToObject(o, "l2_read_hit_pct", v_hr);
        cJSON_AddNumberToObject(o, "l2_write_hit_pct", v_hw);
        cJSON_AddItemToArray(arr, o);
    }
    for (size_t i = 0; i < NK; i++)
        if (failed[i][0])
            probe_say(e, "%s: counters failed: %s", k[i].name, failed[i]);
    probe_say(e,
              "seed 000 (RTX 4060): L2 hit read ~0.07%%, write ~96%%, add ~31%%; DRAM load : store 1 : 19.6 coalesced, "
              "1.09 : 1 stride 8");
done:
    ctx->ops->free(ctx, sum);
    return st;
}

sl_status probe_l2_write(env *e)
{
    sl_ctx *ctx = e->ctx;
    const size_t count = e->cfg->quick ? (1u << 20) : (64u << 20);
    void *A = NULL;
    sl_status st;
    if ((st = ctx->ops->alloc(ctx, count * 8 * 4, &A)) != SL_OK)
        goto done;
    double ms[2];
    static const char *what[2] = {"coalesced (every word)", "stride 8 (4 B per 32 B sector)"};
    for (int k = 0; k < 2; k++) {
        size_t stride = k ? 8 : 1;
        ctx->ops->poison(ctx, A, count * stride * 4);
        rw_job j = {.dst = A, .words = count, .stride = stride};
        if ((st = probe_time_job(e, probe_job_write, &j, 2, e->cfg->trials, &ms[k])) != SL_OK ||
            (st = probe_check_mismatches(e, "write-validate", A, stride, NULL, 0, 0, count, 0x3f800000u)) != SL_OK)
            goto done;
    }
    double g0 = probe_gbs((double)count * 4, ms[0]), g1 = probe_gbs((double)count * 4, ms[1]);
    static const sl_col cols[] = {
        {"kernel (useful bytes: 4 per write)", 32, 'l'}, {"time ms", 10, 'r'}, {"useful GB/s", 14, 'r'}};
    probe_sweep sw;
    probe_sweep_open(&sw, e, "l2_write");
    probe_table(&sw, cols, 3);
    for (int k = 0; k < 2; k++) {
        probe_cell(&sw, "%s", what[k]);
        probe_cell(&sw, "%.4f", ms[k]);
        probe_cell(&sw, "%.1f", k ? g1 : g0);
        probe_row(&sw);
    }
    double ratio = ms[1] / ms[0];
    probe_say(e,
              "time ratio %.1f: a partial sector costs %.1f x a full one's share. Writing 32 B per 4 useful B would\n"
              "give 8x; a 32 B read to fill the sector (write-validate) plus the 32 B write gives 16x.",
              ratio, ratio);
    cJSON *p = probe_point(&sw);
    cJSON_AddNumberToObject(p, "writes", (double)count);
    cJSON_AddNumberToObject(p, "coalesced_ms", ms[0]);
    cJSON_AddNumberToObject(p, "stride8_ms", ms[1]);
    if (!e->cfg->counters) {
        probe_say(e, "DRAM load/store sector counts need hardware counters: rerun with --counters (CUPTI).");
    } else if ((st = write_validate_counters(e, A, count, p)) != SL_OK) {
        goto done;
    }
    e->prof->wv_coalesced_gbs = g0;
    e->prof->wv_stride8_gbs = g1;
done:
    ctx->ops->free(ctx, A);
    return st;
}
