/*
 * counters.h - hardware counters of one profiled launch, read by streamlab
 * itself through CUPTI's profiling API (no Nsight run needed), under the
 * metric names Nsight Compute uses, so that a value here and a value in an
 * `ncu --metrics ...` report mean the same thing (bench/ncu_check.sh
 * compares the two).
 *
 * Three layers:
 *   - the metric table (sl_counter_info): ncu name, short column header,
 *     unit, meaning. Pure data, in every build.
 *   - sl_counters: the decoded values of one collection, and pure functions
 *     that derive what `streamlab run --counters` shows (bytes over the
 *     model's bytes, instructions per element, ...). CPU-testable.
 *   - a session (sl_counters_open/collect/close) that profiles a caller's
 *     launch function on a CUDA context, through the backend's profiler
 *     (sl_backend_ops.counters: CUPTI in a CUDA build that has it,
 *     src/cuda/cupti.c); everywhere else open() says why not and returns
 *     SL_ERR_UNSUPPORTED, and the caller carries on without counters.
 *
 * Metric names and meanings: Nsight Compute "Kernel Profiling Guide",
 * sections "Metrics Structure" (unit__counter.rollup.submetric) and
 * "Metrics Reference"; the sections that show them ("Memory Workload
 * Analysis" tables, "Occupancy", "Scheduler Statistics", "GPU Speed Of
 * Light"). Collection: CUPTI documentation, "CUPTI Profiler Host API" and
 * "CUPTI Range Profiling API" (CUDA 12.6 Update 2 and later).
 */
#ifndef SL_COUNTERS_H
#define SL_COUNTERS_H

#include "internal.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The metrics of one collection, in table order. Every id is an index
 * into sl_counter_info_at() and into sl_counters.value/has. */
typedef enum sl_counter_id {
    SL_CTR_DRAM_READ_BYTES = 0, /* dram__bytes_read.sum */
    SL_CTR_DRAM_WRITE_BYTES,    /* dram__bytes_write.sum */
    SL_CTR_L2_READ_SECTORS,     /* lts__t_sectors_op_read.sum */
    SL_CTR_L2_WRITE_SECTORS,    /* lts__t_sectors_op_write.sum */
    SL_CTR_L2_READ_HIT_PCT,     /* lts__t_sector_op_read_hit_rate.pct */
    SL_CTR_L2_WRITE_HIT_PCT,    /* lts__t_sector_op_write_hit_rate.pct */
    SL_CTR_INST_EXECUTED,       /* smsp__inst_executed.sum (warp instructions) */
    SL_CTR_OCCUPANCY_PCT,       /* sm__warps_active.avg.pct_of_peak_sustained_active */
    SL_CTR_ELIGIBLE_WARPS,      /* smsp__warps_eligible.avg.per_cycle_active */
    SL_CTR_DURATION_NS,         /* gpu__time_duration.sum */
    SL_CTR_SMEM_LD_CONFLICTS,   /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum */
    SL_CTR_SMEM_ST_CONFLICTS,   /* l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum */
    SL_CTR_SMEM_LD_INSTS,       /* smsp__sass_inst_executed_op_shared_ld.sum (warp instructions) */
    SL_CTR_SMEM_ST_INSTS,       /* smsp__sass_inst_executed_op_shared_st.sum */
    SL_CTR_COUNT
} sl_counter_id;

/* One row of the metric table. All strings are static. */
typedef struct sl_counter_info {
    sl_counter_id id;   /* equals the row's index */
    const char *metric; /* the Nsight Compute metric name, e.g. "dram__bytes_read.sum" */
    const char *column; /* short table header, e.g. "dram_rd" (unique, no spaces) */
    const char *unit;   /* what one unit of value[] is: "byte", "sector", "%", "inst", "warp/cycle", "ns" */
    const char *what;   /* one line: what the metric counts */
} sl_counter_info;

/* Rows in the table: SL_CTR_COUNT. */
int sl_counter_count(void);

/* Row i (0 <= i < sl_counter_count()), or NULL when i is out of range. */
const sl_counter_info *sl_counter_info_at(int i);

/* The row whose ncu metric name is `name` (exact, case-sensitive), else the
 * row whose column header is `name`; NULL when neither matches or name is
 * NULL. */
const sl_counter_info *sl_counter_find(const char *name);

/* The values of one collection. value[i] is in the unit of row i and is
 * meaningful only where has[i]; a metric the GPU or CUPTI could not give
 * has has[i] == false. valid is true when the collection ran to the end
 * (even if some has[i] are false). passes: replay passes the launch took
 * (the launch function ran that many times). collect_ms: host wall time of
 * the whole collection (enable, passes, decode, disable), for budgeting. */
typedef struct sl_counters {
    bool valid;
    double value[SL_CTR_COUNT];
    bool has[SL_CTR_COUNT];
    int passes;
    double collect_ms;
} sl_counters;

/* Set *c to "nothing collected": valid false, every has[] false, values 0. */
void sl_counters_reset(sl_counters *c);

/* ---- derived values ------------------------------------------------------
 * Pure functions of an sl_counters. Each returns a negative value (-1) when
 * c is NULL or not valid, when a counter it needs is missing (has[] false,
 * or a negative or non-finite value), or when a divisor is zero or
 * negative; callers print "-" for a negative result. A zero numerator is a
 * real measurement and gives 0. */

/* DRAM bytes moved by the launch: dram__bytes_read.sum +
 * dram__bytes_write.sum, bytes. */
double sl_counters_dram_bytes(const sl_counters *c);

/* Measured DRAM bytes over the bytes the model says the launch must move
 * (registry: (reads + writes) x sizeof(element) x n). 1.0 is ideal; above 1
 * means extra traffic (write-allocate reads, re-reads, partial sectors),
 * below 1 means the L2 absorbed some of it (a working set that fits in L2,
 * or dirty lines still in L2 when the range ended). */
double sl_counters_bytes_ratio(const sl_counters *c, double model_bytes);

/* SASS instructions per element per thread:
 *     smsp__inst_executed.sum x warp_size / n.
 * smsp__inst_executed counts warp-level instructions (one per warp per
 * instruction issued, whatever the number of active lanes), so multiplying
 * by the warp size (32) gives thread instructions when every lane is
 * active, and dividing by the elements gives the "instructions per element"
 * that seed 000 reads off Nsight Compute and that the registry's
 * insts_per_elem estimates and the model's issue bound consumes
 * (model.c: warp instructions = n x insts_per_elem / 32). Partially active
 * warps (tails, edges) make this a slight overestimate of thread work. */
double sl_counters_insts_per_elem(const sl_counters *c, double n, int warp_size);

/* Warp instructions per element: smsp__inst_executed.sum / n. */
double sl_counters_warp_insts_per_elem(const sl_counters *c, double n);

/* DRAM bytes per warp instruction: sl_counters_dram_bytes / smsp__inst_executed.sum. */
double sl_counters_bytes_per_inst(const sl_counters *c);

/* DRAM read bytes over DRAM write bytes (the same ratio in 32-byte
 * sectors): the load:store comparison of seed 000's write-validate
 * experiment, where a fully written sector needs no DRAM read (ratio near
 * 0 for a write-only kernel) and a partly written one does (near 1:1).
 * For add it is 2.0 (two arrays read, one written). Negative when the
 * write bytes are missing or zero. */
double sl_counters_sector_ratio(const sl_counters *c);

/* Shared-memory bank conflicts per shared-memory warp instruction, loads
 * and stores together: (conflicts ld + st) / (instructions ld + st). A
 * conflict is a wavefront beyond the access's ideal (Nsight Compute,
 * "Shared Memory" table): a 32x32 f32 transpose tile read down its columns
 * gives ~15.5 (31 on the reads, 0 on the writes), a padded one ~0.
 * Negative when a counter is missing or the kernel has no shared
 * instruction. */
double sl_counters_smem_conflicts_per_inst(const sl_counters *c);

/* Write counter `id` of c for a table cell into buf (always NUL-terminated
 * when len > 0): "-" when missing; bytes in decimal units ("1.20 GB",
 * "512.00 MB", "800 B"); sectors and instructions as counts with k/M/G
 * ("25.00M"); percentages with one decimal ("96.3%"); eligible warps with
 * two decimals ("0.06"); durations as "551.3 us" or "1.234 ms". */
void sl_counters_format(const sl_counters *c, sl_counter_id id, char *buf, size_t len);

/* ---- the profiling session ---------------------------------------------- */

typedef struct sl_counter_session sl_counter_session;

/* Enqueue the work to profile, once, on the context's stream (or any
 * stream of the context's device). Called once per replay pass, so it must
 * be repeatable: the same work each time (for an in-place op, restore the
 * inputs elsewhere). Returns SL_OK or the launch's error. */
typedef sl_status (*sl_counters_launch_fn)(void *user);
/* (the same type as counter_ops.h's sl_counter_work_fn) */

/* Open a profiling session on the context's CUDA device for every metric
 * in the table, and store it in *out (NULL on error).
 * Errors: SL_ERR_INVALID_ARG (NULL ctx or out). SL_ERR_UNSUPPORTED, with
 * sl_last_error() saying why in one sentence, when counters cannot be read
 * here: the environment variable STREAMLAB_COUNTERS_UNAVAILABLE is set (a
 * test hook), a CPU context, a build without CUDA or without CUPTI, no
 * permission (the driver's NVreg_RestrictProfilingToAdminUsers), a GPU or
 * configuration CUPTI cannot profile (older than Turing, vGPU, MIG,
 * confidential computing, WSL, CMP), or another profiler holding the
 * counters. SL_ERR_CUDA / SL_ERR_NO_MEMORY for other failures. The caller
 * prints the message once and carries on without counters.
 * One session per process at a time. The caller owns the session and frees
 * it with sl_counters_close() before destroying the context. */
sl_status sl_counters_open(sl_ctx *ctx, sl_counter_session **out);

/* Make the session clear the GPU's L2 before every replay pass (the
 * default, true), as Nsight Compute's default --cache-control all does, so
 * that what is left in L2 by earlier work (dirty lines written back during
 * the range, inputs still resident) does not count; false leaves the caches
 * as the previous work left them (ncu --cache-control none). A no-op on a
 * NULL session. */
void sl_counters_set_flush(sl_counter_session *s, bool flush);

/* Profile fn: one user range around fn per pass, replayed (fn called once
 * per pass) until CUPTI has every metric; waits for the device; decodes
 * every metric into *out. Before each pass the device is synchronised (and
 * L2 cleared, see sl_counters_set_flush) outside the range, so only fn's
 * work is counted. The session leaves the context as it found it: normal
 * launches and CUDA-event timing afterwards are not profiled.
 * Errors: SL_ERR_INVALID_ARG (NULL argument), fn's own error (returned as
 * is, counters not valid), SL_ERR_UNSUPPORTED / SL_ERR_CUDA from CUPTI,
 * SL_ERR_CUDA_FAULT when the work faulted. *out is reset first, so it is
 * never half-filled: out->valid says whether it holds values. */
sl_status sl_counters_collect(sl_counter_session *s, sl_counters_launch_fn fn, void *user, sl_counters *out);

/* Free the session and everything CUPTI allocated for it. NULL is a no-op. */
void sl_counters_close(sl_counter_session *s);

#ifdef __cplusplus
}
#endif

#endif /* SL_COUNTERS_H */
