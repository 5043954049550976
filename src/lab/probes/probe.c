/*
 * probe.c - the list of the probes of `streamlab probe` and the runner
 * (see probe.h). The probes themselves are one file each in this folder.
 *
 * Each probe sweeps one knob, times every point with the backend's timer
 * (CUDA events), checks the point's result (a checksum, a mismatch count, a
 * pointer chase's end node), prints a short table, stores its raw points in
 * the profile's "points" object and its summary numbers in the profile.
 */
#include "interrupt.h"
#include "probe_util.h"

#include "sizes.h"

#include <time.h>

/* A new probe is a file here exporting probe_<name>(env *e), declared in
 * probe_util.h, listed in SL_CORE_SOURCES, and a row of this table (whose
 * order is the order they run in: bif reads the ceilings' copy ceiling). */
typedef struct probe_def {
    const char *name;
    const char *what;
    const char *seed;
    sl_status (*run)(env *e);
    int needs; /* 1: ops->launch, 2: persistent reads (GPU occupancy), 4: a GPU L2, 8: ops->smem, 16: ops->micro */
} probe_def;

static const probe_def probes[] = {
    {"ceilings",
     "copy (memcpy, SM kernel), read-only, write-only, add (sl_add; plain and demoted loads): "
     "best GB/s over 4 x L2 .. 4 GiB",
     "seed 000 Benchmark Results; DESIGN.md peer figures", probe_ceilings, 0},
    {"latency", "pointer chase over random cyclic permutations, 16 KiB .. 4 x L2: L1, L2, DRAM latency",
     "seed 004 (latency); seed 001 section 2.2", probe_latency, 0},
    {"bif", "read bandwidth vs bytes in flight per SM (resident warps x ILP x bytes per load); Little's-law knee",
     "seed 001 section 2.2; seed 004 (Little's law, ~6 KB/SM on Volta)", probe_bif, 2},
    {"launch", "empty kernel: event-timed, back-to-back, CUDA graph replay", "DESIGN.md (4.2-4.5 us, 3.1 us)",
     probe_launch, 1},
    {"l2", "L2 read bandwidth over working sets L2/16 .. 2 x L2", "seed 000 section D (L2 bound)", probe_l2, 4},
    {"offset", "copy at element offsets 0..128 (misaligned reads)", "seed 002 (misaligned copy)", probe_offset, 0},
    {"stride", "copy at strides 1..128: useful bandwidth and sector efficiency",
     "seed 002 (strided copy); seed 004 (access patterns)", probe_stride, 0},
    {"l2-write", "write-validate: coalesced vs stride-8 write-only kernels",
     "seed 000 (Revisiting the L2 Cache Write Behavior)", probe_l2_write, 4},
    {"smem", "shared-memory bandwidth: conflict-free 4-, 8-, 16-byte loads and stores, cycles per warp access",
     "seed 004 (Volta Shared Memory: 128 B/clk/SM)", probe_smem, 8},
    {"bank", "bank-conflict sweep: strides 1..32 of 4-, 8-, 16-byte words vs the seed's predicted wavefronts",
     "seed 004 (Shared Memory Bank Conflicts, lines 598-707)", probe_bank, 8},
    {"l1", "L1 load bandwidth: a working set per SM of 16 KiB .. 512 KiB read with ld.global.ca, B/clk/SM",
     "seed 004 (Volta L1 / shared memory: 128 B/clk/SM)", probe_l1, 16},
    {"const", "constant cache: 1 (broadcast) .. 32 distinct addresses per warp access, cycles per access",
     "seed 004 (constant memory: serialised over distinct addresses)", probe_const, 16},
    {"divergence", "warp divergence: the same FFMA work on paths split inside warps vs between warps",
     "seed 004 (Control Flow, lines 115-174)", probe_divergence, 16},
};
#define NPROBES ((int)(sizeof probes / sizeof probes[0]))

int sl_probe_count(void)
{
    return NPROBES;
}

const char *sl_probe_name(int i)
{
    return i >= 0 && i < NPROBES ? probes[i].name : NULL;
}

const char *sl_probe_what(int i)
{
    return i >= 0 && i < NPROBES ? probes[i].what : NULL;
}

const char *sl_probe_seed(int i)
{
    return i >= 0 && i < NPROBES ? probes[i].seed : NULL;
}

sl_status sl_probe_run(sl_ctx *ctx, const sl_probe_config *cfg, sl_profile *prof, cJSON *points, FILE *out,
                       FILE *md)
{
    const sl_probe_ops *ops = ctx->ops->probe;
    if (!ops)
        return sl_fail(SL_ERR_UNSUPPORTED, "the %s backend offers no probe primitives", ctx->ops->name);
    env e = {.ctx = ctx, .ops = ops, .cfg = cfg, .prof = prof, .points = points, .out = out, .md = md};
    int is_gpu = ctx->info.backend == SL_BACKEND_CUDA;
    for (int i = 0; i < NPROBES; i++) {
        const probe_def *p = &probes[i];
        if (cfg->only && !sl_list_has(cfg->only, p->name))
            continue;
        /* SIGINT / SIGTERM (interrupt.h): stop between probes; what finished stays */
        if (sl_interrupted())
            return sl_fail(SL_ERR_INTERRUPTED, "interrupted by %s before probe %s", sl_interrupt_cause(), p->name);
        probe_say(&e, "\n== %s: %s\n   (%s)", p->name, p->what, p->seed);
        int can = !((p->needs & 1) && !ops->launch) && !((p->needs & 6) && !is_gpu) &&
                  !((p->needs & 8) && !ops->smem) && !((p->needs & 16) && !ops->micro);
        sl_status st = SL_OK;
        /* A probe writes its raw points into a fresh object; they replace the
         * previous run's only if it succeeds, so `--only X` and a failed
         * probe leave every other curve (and the old X) in the profile. */
        cJSON *fresh = cJSON_CreateObject();
        e.points = fresh;
        if (can)
            st = p->run(&e);
        else
            probe_say(&e, "skipped: needs a GPU");
        fflush(out);
        if (st == SL_OK) {
            cJSON *item = fresh->child;
            while (item) {
                cJSON *next = item->next;
                char key[64]; /* cJSON frees the item's own name while renaming it */
                snprintf(key, sizeof key, "%s", item->string);
                cJSON *moved = cJSON_DetachItemViaPointer(fresh, item);
                if (cJSON_GetObjectItemCaseSensitive(points, key))
                    cJSON_ReplaceItemInObjectCaseSensitive(points, key, moved);
                else
                    cJSON_AddItemToObject(points, key, moved);
                item = next;
            }
        }
        cJSON_Delete(fresh);
        if (st != SL_OK) {
            char why[1024];
            snprintf(why, sizeof why, "%s", sl_last_error()); /* sl_fail must not format its own buffer */
            if (st == SL_ERR_INTERRUPTED)
                return sl_fail(st, "%s during probe %s (its points are dropped)", why, p->name);
            return sl_fail(st, "probe %s: %s", p->name, why);
        }
    }
    return SL_OK;
}

sl_status sl_probe_reprobe(sl_ctx *ctx, sl_profile *prof, double *seconds)
{
    struct timespec t0, t1;
    timespec_get(&t0, TIME_UTC); /* C11 */
    FILE *sink = fopen("/dev/null", "w");
    if (!sink)
        return sl_fail(SL_ERR_IO, "--reprobe: cannot open /dev/null");
    cJSON *points = cJSON_CreateObject();
    const sl_probe_config cfg = {.only = "ceilings", .reprobe = true, .trials = 5};
    sl_status st = points ? sl_probe_run(ctx, &cfg, prof, points, sink, NULL)
                          : sl_fail(SL_ERR_NO_MEMORY, "--reprobe: out of host memory");
    cJSON_Delete(points);
    fclose(sink);
    timespec_get(&t1, TIME_UTC);
    *seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return st;
}
