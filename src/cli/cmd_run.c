/*
 * cmd_run.c - `streamlab run`: the main job. Everything op-specific comes
 * from the op descriptors (src/ops/ops.def): this file names no op.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "counters.h"
#include "harness.h"
#include "hw.h"
#include "profile.h"
#include "relsize.h"
#include "internal.h"
#include "interrupt.h"
#include "model.h"
#include "mpi_run.h"
#include "probe.h"
#include "results.h"
#include "rng.h"
#include "sizes.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES 64
#define MAX_VARIANTS 64
#define MAX_DEVICES 16
#define NBACKENDS 2 /* SL_BACKEND_CPU, SL_BACKEND_CUDA */
#define DEFAULT_SIZES CLI_RUN_DEFAULT_SIZES
#define DEFAULT_OP "add"

static void help(FILE *f)
{
    fprintf(f, "usage: streamlab run [options]\n"
               "\n"
               "Verify and time every variant of an op's ladder at each size and dtype, beside the\n"
               "copy ceiling (cudaMemcpy) and a library peer, and print one table: time,\n"
               "throughput and efficiency (the seed's three tables), one row per variant, dtype\n"
               "and size. The ops:\n");
    for (int i = 0; i < sl_op_count(); i++) {
        const sl_op_desc *op = sl_op_at(i);
        const sl_variant *peer = NULL;
        for (int k = 0; k < op->nvariants && !peer; k++)
            if (op->variants[k].kind == SL_KIND_PEER)
                peer = &op->variants[k];
        fprintf(f, "  %-8s %-18s %s%s%s\n", op->name, op->formula, op->source, peer ? "; peer: " : "",
                peer ? peer->name : "");
    }
    fprintf(f,
            "Every row is checked against the op's CPU reference before and after timing, bit for bit\n"
            "(library peers: within the ulps they declare; reductions: within the bound of\n"
            "docs/architecture.md, \"Tolerances\").\n"
            "\n"
            "options:\n"
            "  -o, --op NAME|LIST|all  the op, a comma list, or all of them (default " DEFAULT_OP
            "); `all`\n"
            "                    ends with one line per op (its public function), as BabelStream prints\n"
            "  -s, --sizes LIST  element counts of the 1-D ops, comma-separated (default " DEFAULT_SIZES ");\n"
            "                    forms: 100000, 10M (10^6), 64Ki (2^10), 2^28, 1e6; or relative to\n"
            "                    the device: 0.5xL2 (a working set of half the L2, or the CPU's\n"
            "                    last-level cache), 25%%mem (a quarter of its memory); the table\n"
            "                    shows what each resolved to for each op and dtype\n"
            "  --shape LIST      shapes of the 2-D ops, comma-separated: ROWSxCOLS, ROWSxCOLS:LD\n"
            "                    (padded rows), MxNxK (matmul); each side a count as in --sizes\n"
            "                    (default: each 2-D op's own list, shown by streamlab list)\n"
            "  --dtype LIST      storage types, comma-separated (default f32): %s;\n"
            "                    each op runs the ones it offers (streamlab list shows which)\n"
            "  --variants LIST   variants to run (default: all; see streamlab list);\n"
            "                    the copy ceiling and the peer always run\n"
            "  --scalar X        the op's scalar: axpy's alpha (default 1.3), s of scale, triad\n"
            "                    and nstream (default 0.4, BabelStream's); --alpha X is the same\n"
            "  -n, --trials N    timed launches per row (default 10); with --stdrel, the least\n"
            "  --stdrel PCT      noise-aware timing (nvbench's stdrel): after --trials, keep timing\n"
            "                    until the median's relative standard error is below PCT %%, or\n"
            "                    --max-time runs out; each row reports its trials and its noise\n"
            "  --max-time S      seconds of timing per row at most (default with --stdrel: 2;\n"
            "                    without it, none: the trials stop at --trials or S, first)\n"
            "  --warmup N        untimed launches before the trials (default 5)\n"
            "  --timer event|wall  event (default): device events around each launch alone;\n"
            "                    wall: a host clock around launch + synchronisation, as\n"
            "                    BabelStream and STREAM time (launch latency included)\n"
            "  -d, --device LIST  CUDA device indices and/or cpu, comma-separated (default: GPU 0\n"
            "                    if present, else cpu); each device runs the whole sweep in turn\n"
            "                    and the table gains a device column; --devices is the same\n"
            "  --cold            flush L2 before every trial (for sizes that fit in L2)\n"
            "  --include-transfer  GPU rows also time copying the inputs in from host memory and\n"
            "                    the outputs back (once per size); a CPU vs GPU run (--devices\n"
            "                    cpu,0) then adds the GPU's speed-ups and crossover with them\n"
            "  --offset K        start every array K elements past its allocation (cudaMalloc:\n"
            "                    256-byte aligned; CPU: 64-byte): element-aligned pointers that\n"
            "                    are not vector-aligned\n"
            "  --seed N          seed for the random inputs (default: from the clock; recorded)\n"
            "  --csv FILE        also write the rows as CSV (a null value is an empty field)\n"
            "  --json FILE       also write everything as JSON (schema streamlab.run/1)\n"
            "  --md FILE         also write the table as Markdown\n"
            "                    FILE - is standard output (the table then goes to stderr); a\n"
            "                    device or FIFO is written in place, a symbolic link's target is\n"
            "                    replaced, and an existing file is replaced only if streamlab wrote it\n"
            "  --quiet           no table on stdout (files and errors only)\n"
            "  --counters        after each row's trials, one more launch profiled through CUPTI:\n"
            "                    DRAM bytes, L2 sectors and hit rates, instructions, occupancy\n"
            "                    (Nsight Compute's metric names); derived columns: measured/model\n"
            "                    bytes, instructions per element; the model then uses the measured\n"
            "                    instructions. Where counters cannot be read, says why once and\n"
            "                    runs without them.\n"
            "  --profile FILE    measured parameters for the model columns (default: the device's\n"
            "                    <name>.profile.json in . or profiles/, if present); a file that\n"
            "                    cannot be read or was measured on another device is an error\n"
            "  --profile-force   use --profile FILE even if it was measured on another device\n"
            "  --reprobe         re-measure the DRAM read, write and copy ceilings now (one working\n"
            "                    set, under a second) and use them in the model; the JSON records\n"
            "                    the profile and the rates used (a profile belongs to one GPU: `run`\n"
            "                    warns when it was made on another)\n"
            "  -h, --help        this help\n"
            "\n"
            "Files are rewritten after every row: an interrupted or failing run leaves\n"
            "valid files with the rows it finished (JSON status: running, interrupted, failed).\n"
            "exit codes: 0 ok, 1 a row failed, a CUDA fault or a write failing mid-run, 2 usage\n"
            "error (bad flag, size, variant, device, profile; an output that cannot be written),\n"
            "130 interrupted\n",
            sl_dtype_all_names());
}

/* --reprobe (issue 17): the DRAM ceilings measured now replace the
 * profile's in hw, and the note (the JSON's model_parameters) says so. */
static int run_reprobe(sl_ctx *ctx, sl_hw *hw, char *note, size_t len)
{
    sl_profile rp;
    sl_profile_init(&rp);
    double sec = 0;
    if (sl_probe_reprobe(ctx, &rp, &sec) != SL_OK) {
        fprintf(stderr, "streamlab run: --reprobe: %s\n", sl_last_error());
        return EXIT_RUN_FAILED;
    }
    sl_hw_apply_profile(hw, &rp, "run --reprobe");
    size_t used = strlen(note);
    snprintf(note + used, len - used, "%sDRAM ceilings re-probed now (--reprobe, %.2f s): read %.0f, write %.0f, "
             "SM copy %.0f, add plain / demoted loads %.0f / %.0f GB/s", used ? "; " : "", sec, rp.read_gbs,
             rp.write_gbs, rp.copy_sm_gbs, rp.add_plain_gbs, rp.add_demoted_gbs);
    return 0;
}

/* The DRAM rates the model uses, appended to the note. */
static void run_note_rates(const sl_hw *hw, char *note, size_t len)
{
    size_t used = strlen(note);
    snprintf(note + used, len - used, "%smodel DRAM rates: read %.0f (%s), write %.0f (%s), mixed write %.0f GB/s (%s)",
             used ? "; " : "", hw->p[HW_DRAM_READ_GBS].v, sl_src_name(hw->p[HW_DRAM_READ_GBS].src),
             hw->p[HW_DRAM_WRITE_GBS].v, sl_src_name(hw->p[HW_DRAM_WRITE_GBS].src),
             hw->p[HW_DRAM_MIXED_WRITE_GBS].v, sl_src_name(hw->p[HW_DRAM_MIXED_WRITE_GBS].src));
    if (hw->p[HW_DEMOTED_LOADS].v > 0) {
        used = strlen(note);
        snprintf(note + used, len - used, ", demoted-load factor %.3f (%s)", hw->p[HW_DEMOTED_LOADS].v,
                 sl_src_name(hw->p[HW_DEMOTED_LOADS].src));
    }
    if (hw->profile_warning[0]) {
        used = strlen(note);
        snprintf(note + used, len - used, "; warning: %s", hw->profile_warning);
    }
}

/* --variants: no empty item, and every name a variant of at least one
 * selected op on at least one of the backends in use. */
static int check_variant_names(const sl_op_desc *const *ops, int nops, const bool *backends, const char *list)
{
    if (!list || strcmp(list, "all") == 0)
        return 0;
    /* "", "," or "a,,b": an empty name would silently select nothing. */
    size_t len = strlen(list);
    if (len == 0 || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,"))
        return cli_usage_error("run", "--variants '%s' has an empty name (give names, or all)", list);
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -1;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int b = 0; b < NBACKENDS && !found; b++)
            for (int o = 0; o < nops && !found && backends[b]; o++)
                found = sl_variant_find(ops[o], (sl_backend)b, tok) != NULL;
        if (!found) {
            char names[1024] = "";
            size_t used = 0;
            for (int o = 0; o < nops; o++)
                for (int i = 0; i < ops[o]->nvariants && used < sizeof names; i++)
                    if (backends[ops[o]->variants[i].backend] && !strstr(names, ops[o]->variants[i].name))
                        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                                 ops[o]->variants[i].name);
            const char *where = backends[SL_BACKEND_CPU] && backends[SL_BACKEND_CUDA] ? "cpu and cuda backends"
                                : backends[SL_BACKEND_CUDA]                           ? "cuda backend"
                                                                                      : "cpu backend";
            rc = cli_usage_error("run", "unknown variant '%s' for %s on the %s (known: %s)", tok,
                                 nops == 1 ? ops[0]->name : "these ops", where, names);
        }
    }
    free(copy);
    return rc;
}

/* --device LIST: "cpu", "auto" or CUDA indices, comma-separated, no repeats.
 * Returns the count or -1 (message printed). */
static int parse_devices(const char *arg, int *out)
{
    char list[256];
    if (strlen(arg) >= sizeof list) {
        cli_usage_error("run", "--device: the list is too long");
        return -1;
    }
    snprintf(list, sizeof list, "%s", arg);
    size_t len = strlen(list);
    if (len == 0 || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,")) {
        cli_usage_error("run", "--device '%s' has an empty item (give CUDA indices and/or cpu)", arg);
        return -1;
    }
    int n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int d;
        if (cli_parse_device(tok, &d)) {
            cli_usage_error("run", "--device wants CUDA indices (0, 1, ...), 'cpu' or 'auto', not '%s'", tok);
            return -1;
        }
        if (n == MAX_DEVICES) {
            cli_usage_error("run", "--device lists more than %d devices", MAX_DEVICES);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (out[i] == d) {
                cli_usage_error("run", "--device lists %s twice", tok);
                return -1;
            }
        out[n++] = d;
    }
    if (n > 1)
        for (int i = 0; i < n; i++)
            if (out[i] == SL_DEVICE_AUTO) {
                cli_usage_error("run", "--device: auto stands alone (it picks one device)");
                return -1;
            }
    return n;
}

/* --op: one name, a comma list, or "all". Returns the count or -1. */
static int parse_ops(const char *arg, const sl_op_desc **ops)
{
    int n = 0;
    if (strcmp(arg, "all") == 0) {
        for (int i = 0; i < sl_op_count(); i++)
            ops[n++] = sl_op_at(i);
        return n;
    }
    char list[256];
    if (strlen(arg) >= sizeof list) {
        cli_usage_error("run", "--op: the list is too long");
        return -1;
    }
    snprintf(list, sizeof list, "%s", arg);
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        const sl_op_desc *op = sl_op_find(tok);
        if (!op) {
            char names[256];
            sl_op_names(names, sizeof names);
            cli_usage_error("run", "--op '%s' is not implemented (available: %s, or all)", tok, names);
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (ops[i] == op) {
                cli_usage_error("run", "--op lists %s twice", tok);
                return -1;
            }
        ops[n++] = op;
    }
    if (n == 0) {
        cli_usage_error("run", "--op wants an op name or all");
        return -1;
    }
    return n;
}

/* --dtype: every name known, no repeats. Returns the count or -1. */
static int parse_dtypes(const char *arg, sl_dtype *out)
{
    char list[128];
    int n = 0;
    if (strlen(arg) >= sizeof list) {
        cli_usage_error("run", "--dtype: the list is too long");
        return -1;
    }
    snprintf(list, sizeof list, "%s", arg);
    char *save = NULL;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int d = sl_dtype_from_name(tok);
        if (d < 0) {
            cli_usage_error("run", "--dtype '%s' is not one of %s", tok, sl_dtype_all_names());
            return -1;
        }
        for (int i = 0; i < n; i++)
            if (out[i] == (sl_dtype)d) {
                cli_usage_error("run", "--dtype lists %s twice", tok);
                return -1;
            }
        out[n++] = (sl_dtype)d;
    }
    if (n == 0) {
        cli_usage_error("run", "--dtype wants at least one of %s", sl_dtype_all_names());
        return -1;
    }
    return n;
}

/* The model beside the harness: each CUDA row gets its prediction before
 * the writers see it, with the kernel's real occupancy and, when counters
 * were read, the measured instructions per element (issue 5). */
typedef struct row_hook {
    sl_report *rep;
    const sl_hw *hw; /* the model's parameters for the device being run; NULL: none */
    bool cold;
} row_hook;

static void on_row(void *user, sl_result *r)
{
    row_hook *h = user;
    if (h->hw && r->v->backend == SL_BACKEND_CUDA) {
        double ipe = r->ctr.valid ? sl_counters_insts_per_elem(&r->ctr, (double)r->n, 32) : -1.0;
        r->has_model = sl_model_predict(h->hw, r->op, r->v, r->has_attrs ? &r->attrs : NULL, r->dtype, &r->shape, ipe,
                                        h->cold, &r->model) == SL_OK;
    }
    sl_report_row(h->rep, r);
}

/* One device of the run: its context, model parameters and counters. */
typedef struct run_device {
    sl_ctx *ctx;
    sl_hw hw;
    bool model;
    sl_counter_session *ctr;
} run_device;

static void close_devices(run_device *devs, int ndev, bool faulted)
{
    /* After a sticky fault the context cannot be torn down cleanly; the
     * process exit releases it. */
    if (faulted)
        return;
    for (int i = 0; i < ndev; i++) {
        sl_counters_close(devs[i].ctr);
        sl_ctx_destroy(devs[i].ctx);
    }
}

/* The options of a run in one process, beside the shared ones (cli.h). */
enum { OPT_CSV = CLI_RUN_OPT_MODE, OPT_PROFILE, OPT_PROFILE_FORCE, OPT_COUNTERS, OPT_OFFSET, OPT_SHAPE, OPT_REPROBE,
       OPT_STDREL, OPT_MAX_TIME, OPT_INCLUDE_TRANSFER };
static const struct option one_opts[] = {
    {"csv", required_argument, 0, OPT_CSV},         {"profile", required_argument, 0, OPT_PROFILE},
    {"profile-force", no_argument, 0, OPT_PROFILE_FORCE}, {"counters", no_argument, 0, OPT_COUNTERS},
    {"offset", required_argument, 0, OPT_OFFSET},   {"shape", required_argument, 0, OPT_SHAPE},
    {"stdrel", required_argument, 0, OPT_STDREL},   {"max-time", required_argument, 0, OPT_MAX_TIME},
    {"include-transfer", no_argument, 0, OPT_INCLUDE_TRANSFER},
    {"reprobe", no_argument, 0, OPT_REPROBE},
    {0, 0, 0, 0}};

typedef struct one_run_opts {
    const char *shape_arg, *profile_arg, *csv_path;
    int profile_force, reprobe, counters, offset;
    double stdrel, max_time; /* --stdrel (a fraction here), --max-time (s; -1: not given) */
    bool include_transfer;
} one_run_opts;

static int one_option(void *user, int c, const char *arg)
{
    one_run_opts *x = user;
    switch (c) {
    case OPT_SHAPE: x->shape_arg = arg; break;
    case OPT_CSV: x->csv_path = arg; break;
    case OPT_COUNTERS: x->counters = 1; break;
    case OPT_OFFSET:
        if (cli_parse_int(arg, 0, 1 << 20, &x->offset))
            return cli_usage_error("run", "--offset wants an element count from 0 to 1048576, not '%s'", arg);
        break;
    case OPT_STDREL:
    case OPT_MAX_TIME: {
        char *end;
        double v = strtod(arg, &end);
        const bool is_rel = c == OPT_STDREL;
        if (!*arg || *end || !(v > 0) || v > (is_rel ? 100.0 : 3600.0))
            return cli_usage_error("run", "%s wants a number above 0 and at most %s, not '%s'",
                                   is_rel ? "--stdrel" : "--max-time", is_rel ? "100 (percent)" : "3600 (seconds)", arg);
        if (is_rel)
            x->stdrel = v / 100.0;
        else
            x->max_time = v;
        break;
    }
    case OPT_INCLUDE_TRANSFER: x->include_transfer = true; break;
    case OPT_PROFILE: x->profile_arg = arg; break;
    case OPT_PROFILE_FORCE: x->profile_force = 1; break;
    case OPT_REPROBE: x->reprobe = 1; break;
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    /* Started by mpirun or srun: one rank per device (mpi_run.h). */
    if (cli_mpi_launched(NULL, 0))
        return cmd_run_mpi(argc, argv);

    one_run_opts x = {.max_time = -1.0};
    static const int one_lists[] = {OPT_SHAPE, 0};
    const cli_run_mode mode = {.who = "run", .hint_note = "", .unknown_note = "", .trials_note = "",
                               .default_device = "auto", .max_trials = 1000000, .scalar_as_spelled = 1, .speak = 1,
                               .help = help, .extra = one_opts, .extra_lists = one_lists, .option = one_option,
                               .user = &x};
    cli_run_opts ro;
    int prc = cli_run_parse(&mode, argc, argv, &ro);
    if (prc)
        return prc == CLI_RUN_HELP ? 0 : prc;
    if (x.profile_force && !x.profile_arg)
        return cli_usage_error("run", "--profile-force goes with --profile FILE");

    char cmdline[2048];
    cli_run_cmdline("streamlab", argc, argv, cmdline, sizeof cmdline);
    const char *const sizes_arg = ro.sizes_arg, *const shape_arg = x.shape_arg, *const variants_arg = ro.variants_arg,
                      *const profile_arg = x.profile_arg, *const dtype_arg = ro.dtype_arg, *const op_arg = ro.op_arg,
                      *const device_arg = ro.device_arg;
    const double scalar = ro.scalar, stdrel = x.stdrel, max_time = x.max_time;
    const int have_scalar = ro.have_scalar, profile_force = x.profile_force, have_sizes = ro.have_sizes,
              reprobe = x.reprobe, trials = ro.trials, warmup = ro.warmup, cold = ro.cold, quiet = ro.quiet,
              counters = x.counters, offset = x.offset;
    const sl_timer timer = ro.timer;
    const bool include_transfer = x.include_transfer;
    const uint64_t seed = cli_run_seed(&ro);
    sl_report_opts ropts = {.csv_path = x.csv_path, .json_path = ro.json_path, .md_path = ro.md_path};
    char why[256];

    const sl_op_desc *ops[SL_OP_COUNT];
    int nops = parse_ops(op_arg, ops);
    if (nops < 0)
        return EXIT_USAGE;
    sl_dtype dtypes[SL_DTYPE_COUNT];
    int ndtypes = parse_dtypes(dtype_arg, dtypes);
    if (ndtypes < 0)
        return EXIT_USAGE;
    /* A single op must offer every dtype asked for; in a multi-op run each
     * op runs the ones it offers, and an op offering none of them says so. */
    for (int o = 0; o < nops; o++) {
        int offered = 0;
        for (int d = 0; d < ndtypes; d++) {
            offered += sl_op_supports(ops[o], dtypes[d]);
            if (nops == 1 && !sl_op_supports(ops[o], dtypes[d])) {
                char list[96];
                sl_op_dtype_list(ops[o], list, sizeof list);
                return cli_usage_error("run", "--dtype %s: %s is offered in %s", sl_dtype_name(dtypes[d]),
                                       ops[o]->name, list);
            }
        }
        if (!offered)
            fprintf(stderr, "streamlab run: %s offers none of --dtype %s: skipped\n", ops[o]->name, dtype_arg);
    }

    /* 1-D ops run --sizes (counts, and sizes relative to each device: 0.5xL2,
     * 25%mem, relsize.h); 2-D ops run --shape, or their default shapes. */
    sl_size_spec specs[MAX_SIZES];
    int nsizes = sl_parse_size_specs(sizes_arg, specs, MAX_SIZES, why, sizeof why);
    if (nsizes < 0)
        return cli_usage_error("run", "--sizes: %s", why);
    const bool rel_sizes = sl_size_specs_relative(specs, nsizes);
    uint64_t sizes[MAX_SIZES];
    sl_shape shapes[MAX_SIZES];
    for (int i = 0; i < nsizes; i++) {
        sizes[i] = specs[i].n; /* 0 for a relative size */
        shapes[i] = sl_shape_1d(sizes[i] ? sizes[i] : 1);
    }
    int n1d = 0, n2d = 0;
    for (int o = 0; o < nops; o++)
        ops[o]->rank == 2 ? n2d++ : n1d++;
    if (shape_arg && !n2d)
        return cli_usage_error("run", "--shape is for the 2-D ops (rows x cols); %s takes --sizes",
                               nops == 1 ? ops[0]->name : "this op list");
    if (have_sizes && !n1d)
        return cli_usage_error("run", "%s is 2-D: give --shape ROWSxCOLS (a list), not --sizes",
                               nops == 1 ? ops[0]->name : "every op listed");
    static sl_shape shapes2[SL_OP_COUNT][MAX_SIZES];
    int nshapes2[SL_OP_COUNT] = {0};
    char shapes_text[1024] = "";
    for (int o = 0; o < nops; o++) {
        if (ops[o]->rank != 2)
            continue;
        const char *list = shape_arg ? shape_arg : ops[o]->default_shapes;
        if (!list)
            return cli_usage_error("run", "%s has no default shape: give --shape ROWSxCOLS", ops[o]->name);
        nshapes2[o] = sl_parse_shape_list(list, shapes2[o], MAX_SIZES, why, sizeof why);
        if (nshapes2[o] < 0)
            return cli_usage_error("run", "--shape%s%s: %s", shape_arg ? "" : " (default of ",
                                   shape_arg ? "" : ops[o]->name, why);
        /* a shape that leaves an input empty (matmul's RxC without K) */
        for (int j = 0; j < nshapes2[o]; j++)
            for (int k = 0; k < ops[o]->nbufs; k++)
                if (sl_role_read(ops[o]->bufs[k].role) && !sl_op_buf_elems(ops[o], k, &shapes2[o][j]))
                    return cli_usage_error("run", "--shape: %s's %s is empty at %llux%llu%s", ops[o]->name,
                                           ops[o]->bufs[k].name, (unsigned long long)shapes2[o][j].rows,
                                           (unsigned long long)shapes2[o][j].cols,
                                           shapes2[o][j].k ? "" : " (give MxNxK)");
        for (int j = 0; j < nshapes2[o]; j++)
            if (!sl_op_shape_ok(ops[o], &shapes2[o][j], why, sizeof why))
                return cli_usage_error("run", "--shape for %s: %s", ops[o]->name, why);
        /* the results' header: --shape as given, or each op's defaults */
        if (!shape_arg) {
            size_t used = strlen(shapes_text);
            snprintf(shapes_text + used, sizeof shapes_text - used, "%s%s: %s", used ? "; " : "", ops[o]->name, list);
        }
    }
    if (shape_arg)
        snprintf(shapes_text, sizeof shapes_text, "%s", shape_arg);
    int device_ids[MAX_DEVICES];
    int ndev = parse_devices(device_arg, device_ids);
    if (ndev < 0)
        return EXIT_USAGE;
    ndev = cli_drop_missing_gpus("run", device_ids, ndev); /* cpu,0 without a GPU: the CPU alone */
    /* A profile given by name must be readable and well formed whatever the
     * backend: it is checked here, before any device is opened. */
    sl_profile given_profile;
    if (profile_arg && sl_profile_read(profile_arg, &given_profile) != SL_OK)
        return cli_usage_error("run", "--profile: %s", sl_last_error());

    run_device devs[MAX_DEVICES];
    memset(devs, 0, sizeof devs);
    sl_ctx *ctxs[MAX_DEVICES];
    bool backends[NBACKENDS] = {false, false};
    int rc = 0;
    for (int i = 0; i < ndev && rc == 0; i++) {
        rc = cli_open_ctx("run", device_ids[i], &devs[i].ctx);
        if (rc == 0) {
            ctxs[i] = devs[i].ctx;
            backends[devs[i].ctx->info.backend] = true;
            /* The same GPU twice (auto resolving to a listed index) would
             * run every row twice: refuse it. */
            for (int j = 0; j < i && rc == 0; j++)
                if (ctxs[j]->info.backend == ctxs[i]->info.backend && ctxs[j]->info.device == ctxs[i]->info.device)
                    rc = cli_usage_error("run", "--device names %s twice", ctxs[i]->info.name);
        }
    }
    if (rc) {
        close_devices(devs, ndev, false);
        return rc;
    }
    if (check_variant_names(ops, nops, backends, variants_arg) != 0) {
        close_devices(devs, ndev, false);
        return EXIT_USAGE;
    }

    /* The model columns of each GPU: queried + arch table, and a probe
     * profile (--profile, or the device's default one if present). CPU rows
     * get none; a --profile given for them is still checked against the
     * device, so that a wrong file never passes unnoticed. */
    char hw_note[4800] = "";
    int model = 0;
    for (int i = 0; i < ndev; i++) {
        sl_ctx *ctx = devs[i].ctx;
        char note[2400] = "", prof_used[512] = "";
        if (ctx->info.backend == SL_BACKEND_CUDA && sl_hw_from_ctx(ctx, &devs[i].hw) == SL_OK) {
            int found = 0;
            if (sl_hw_load_profile(&devs[i].hw, profile_arg, profile_force, &found, prof_used, sizeof prof_used) !=
                SL_OK) {
                rc = cli_usage_error("run", "--profile: %s", sl_last_error());
                break;
            }
            snprintf(note, sizeof note, "%s%s",
                     found ? "measured parameters from " : "no probe profile: datasheet and arch-table parameters",
                     found ? prof_used : "");
            if (devs[i].hw.profile_warning[0])
                fprintf(stderr, "streamlab run: warning: %s\n", devs[i].hw.profile_warning);
            if (reprobe && (rc = run_reprobe(ctx, &devs[i].hw, note, sizeof note)) != 0)
                break;
            run_note_rates(&devs[i].hw, note, sizeof note);
            devs[i].model = true;
            model = 1;
        } else if (profile_arg) {
            if (strcmp(given_profile.device, ctx->info.name) != 0 && !profile_force) {
                rc = cli_usage_error("run",
                                     "--profile %s was measured on %s, not %s (--profile-force uses it anyway)",
                                     profile_arg, given_profile.device, ctx->info.name);
                break;
            }
            fprintf(stderr, "streamlab run: %s has no model columns (the model describes GPUs): --profile %s is "
                            "checked but not used there\n", ctx->info.name, profile_arg);
        }
        if (note[0])
            snprintf(hw_note + strlen(hw_note), sizeof hw_note - strlen(hw_note), "%s%s%s%s", hw_note[0] ? "; " : "",
                     ndev > 1 ? ctx->info.name : "", ndev > 1 ? ": " : "", note);
    }
    if (rc) {
        close_devices(devs, ndev, false);
        return rc;
    }

    /* One sweep per (device, op, dtype): its config. */
    typedef struct sweep {
        int dev;
        sl_run_config cfg;
        const sl_variant *chosen[MAX_VARIANTS];
        int rows;
        sl_shape shapes[MAX_SIZES]; /* relative sizes, resolved for this device, op and dtype */
        const char *labels[MAX_SIZES];
    } sweep;
    sweep *sweeps = calloc((size_t)ndev * nops * ndtypes, sizeof *sweeps);
    if (!sweeps) {
        close_devices(devs, ndev, false);
        fprintf(stderr, "streamlab run: out of host memory\n");
        return EXIT_RUN_FAILED;
    }
    int nsweeps = 0, steps = 0;
    const cli_sweep_opts sweep_opts = cli_run_sweep_opts(&ro, seed);
    for (int g = 0; g < ndev; g++) {
        for (int o = 0; o < nops; o++) {
            for (int d = 0; d < ndtypes; d++) {
                if (!sl_op_supports(ops[o], dtypes[d]))
                    continue;
                sweep *s = &sweeps[nsweeps];
                sl_run_config *cfg = &s->cfg;
                s->dev = g;
                cli_sweep_config(cfg, ops[o], dtypes[d], devs[g].ctx->info.backend,
                                 ops[o]->rank == 2 ? shapes2[o] : shapes, ops[o]->rank == 2 ? nshapes2[o] : nsizes,
                                 &sweep_opts, s->chosen, MAX_VARIANTS);
                if (rel_sizes && ops[o]->rank != 2 &&
                    sl_size_apply(cfg, specs, nsizes, devs[g].ctx, s->shapes, s->labels) != SL_OK && rc == 0)
                    rc = cli_usage_error("run", "--sizes: %s", sl_last_error());
                cfg->stdrel = stdrel;
                cfg->max_time_s = max_time > 0 ? max_time : stdrel > 0 ? 2.0 : 0.0; /* --stdrel alone: 2 s a row */
                cfg->max_trials = 1000000;
                cfg->include_transfer = include_transfer;
                cfg->progress = !quiet && isatty(STDERR_FILENO);
                cfg->inject_fault = getenv("STREAMLAB_INJECT_FAULT");
                cfg->offset = (uint64_t)offset;
                for (int i = 0; i < cfg->nvariants; i++)
                    s->rows += !cfg->quiet_unsupported || sl_variant_supports(ops[o], s->chosen[i], dtypes[d]);
                steps += s->rows * cfg->nshapes;
                nsweeps++;
            }
        }
    }
    for (int i = 0; i < nsweeps; i++)
        sweeps[i].cfg.steps = steps;

    /* --counters: open the profiler once per device (it holds a buffer to
     * clear L2 between replay passes, so it goes before the memory checks). */
    for (int g = 0; g < ndev && counters; g++) {
        if (sl_counters_open(devs[g].ctx, &devs[g].ctr) != SL_OK) {
            fprintf(stderr, "streamlab run: counters unavailable on %s, running without them: %s\n",
                    devs[g].ctx->info.name, sl_last_error());
            devs[g].ctr = NULL;
        }
    }
    /* Every size must fit, for every device, op and dtype, before the first
     * row runs. */
    for (int i = 0; i < nsweeps && rc == 0; i++) {
        sweeps[i].cfg.counters = devs[sweeps[i].dev].ctr;
        for (int j = 0; j < sweeps[i].cfg.nshapes && rc == 0; j++)
            if (sl_harness_check_fit(devs[sweeps[i].dev].ctx, &sweeps[i].cfg, &sweeps[i].cfg.shapes[j]) != SL_OK) {
                fprintf(stderr, "streamlab run: %s\n", sl_last_error());
                rc = EXIT_USAGE;
            }
    }
    if (rc) {
        close_devices(devs, ndev, false);
        free(sweeps);
        return rc;
    }

    /* The header's lists, as run. */
    char op_list[256] = "", dtype_list[96] = "", scalars[256] = "";
    for (int o = 0; o < nops; o++)
        snprintf(op_list + strlen(op_list), sizeof op_list - strlen(op_list), "%s%s", o ? "," : "", ops[o]->name);
    for (int d = 0; d < ndtypes; d++)
        snprintf(dtype_list + strlen(dtype_list), sizeof dtype_list - strlen(dtype_list), "%s%s", d ? "," : "",
                 sl_dtype_name(dtypes[d]));
    for (int o = 0; o < nops; o++)
        for (int k = 0; k < ops[o]->nscalars; k++)
            snprintf(scalars + strlen(scalars), sizeof scalars - strlen(scalars), "%s%s = %.9g (%s)",
                     scalars[0] ? "; " : "", ops[o]->scalars[k].name,
                     have_scalar ? scalar : ops[o]->scalars[k].dflt, ops[o]->name);
    bool any_counters = false;
    for (int g = 0; g < ndev; g++)
        any_counters |= devs[g].ctr != NULL;

    sl_report_meta meta = {
        .ctxs = ctxs,
        .nctx = ndev,
        .command_line = cmdline,
        .ops = op_list,
        .dtypes = dtype_list,
        .sizes = n1d ? sizes : NULL,
        .sizes_given = n1d && rel_sizes ? sizes_arg : NULL,
        .nsizes = n1d ? nsizes : 0,
        .shapes = n2d ? shapes_text : NULL,
        .warmup = warmup,
        .trials = trials,
        .stdrel = stdrel,
        .max_time_s = max_time > 0 ? max_time : stdrel > 0 ? 2.0 : 0.0,
        .cold = cold,
        .timer = timer,
        .seed = seed,
        .offset = (uint64_t)offset,
        .scalars = scalars[0] ? scalars : NULL,
        .model = model,
        .hw_note = model ? hw_note : NULL,
        .counters = any_counters,
        .multi_op = nops > 1,
    };
    ropts.quiet = quiet;
    const char *paths[] = {ropts.json_path, ropts.csv_path, ropts.md_path};
    cli_data_to_stdout(paths, 3);
    sl_report *rep;
    if (sl_report_open(&meta, &ropts, &rep) != SL_OK) {
        fprintf(stderr, "streamlab run: %s\n", sl_last_error());
        close_devices(devs, ndev, false);
        free(sweeps);
        return EXIT_USAGE;
    }

    sl_interrupt_install();

    row_hook hook = {rep, NULL, cold};
    sl_status sweep_st = SL_OK;
    int done = 0;
    for (int i = 0; i < nsweeps && sweep_st == SL_OK; i++) {
        const run_device *dev = &devs[sweeps[i].dev];
        hook.hw = dev->model ? &dev->hw : NULL;
        sweeps[i].cfg.step0 = done;
        sweep_st = sl_harness_run(dev->ctx, &sweeps[i].cfg, on_row, &hook);
        done += sweeps[i].rows * sweeps[i].cfg.nshapes;
    }
    free(sweeps);
    char error[1024] = "";
    if (sweep_st != SL_OK)
        snprintf(error, sizeof error, "%s", sl_last_error());
    int failed = sl_report_failed_rows(rep);
    sl_status wst = sl_report_close(rep, sweep_st, error);

    const char *where = ropts.json_path ? ropts.json_path : ropts.csv_path ? ropts.csv_path : ropts.md_path;
    if (sweep_st == SL_ERR_INTERRUPTED) {
        fprintf(stderr, "streamlab run: interrupted%s%s\n", where ? "; rows finished so far are in " : "",
                where ? where : "");
        rc = EXIT_INTERRUPTED;
    } else if (sweep_st != SL_OK) {
        fprintf(stderr, "streamlab run: error: %s%s%s\n", error, where ? "; rows finished so far are in " : "",
                where ? where : "");
        rc = EXIT_RUN_FAILED;
    } else if (failed) {
        fprintf(stderr, "streamlab run: %d row%s failed verification or launch (see the table)\n", failed,
                failed == 1 ? "" : "s");
        rc = EXIT_RUN_FAILED;
    } else if (wst != SL_OK) {
        fprintf(stderr, "streamlab run: %s\n", sl_last_error());
        rc = EXIT_RUN_FAILED;
    }
    close_devices(devs, ndev, sweep_st == SL_ERR_CUDA_FAULT);
    return rc;
}
