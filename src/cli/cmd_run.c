/*
 * cmd_run.c - `streamlab run`: the main job. Everything op-specific comes
 * from the op descriptors (src/ops/ops.def): this file names no op.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "counters.h"
#include "harness.h"
#include "hw.h"
#include "internal.h"
#include "model.h"
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
#define DEFAULT_SIZES "10M,100M,200M"
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
            "  --op NAME|LIST|all  the op, a comma list, or all of them (default " DEFAULT_OP
            "); `all` ends\n"
            "                    with one line per op (its public function), as BabelStream prints\n"
            "  --sizes LIST      element counts, comma-separated (default " DEFAULT_SIZES ");\n"
            "                    forms: 100000, 10M (10^6), 64Ki (2^10), 2^28, 1e6\n"
            "  --dtype LIST      storage types, comma-separated (default f32): %s;\n"
            "                    each op runs the ones it offers (streamlab list shows which)\n"
            "  --variants LIST   variants to run (default: all; see streamlab list);\n"
            "                    the copy ceiling and the peer always run\n"
            "  --scalar X        the op's scalar: axpy's alpha (default 1.3), s of scale, triad\n"
            "                    and nstream (default 0.4, BabelStream's); --alpha X is the same\n"
            "  --trials N        timed launches per row (default 10)\n"
            "  --warmup N        untimed launches before the trials (default 5)\n"
            "  --timer event|wall  event (default): device events around each launch alone;\n"
            "                    wall: a host clock around launch + synchronisation, as\n"
            "                    BabelStream and STREAM time (launch latency included)\n"
            "  --device N|cpu    CUDA device index, or cpu (default: GPU 0 if present, else cpu)\n"
            "  --cold            flush L2 before every trial (for sizes that fit in L2)\n"
            "  --offset K        start every array K elements past its allocation (cudaMalloc:\n"
            "                    256-byte aligned; CPU: 64-byte): element-aligned pointers that\n"
            "                    are not vector-aligned\n"
            "  --seed N          seed for the random inputs (default: from the clock; recorded)\n"
            "  --csv FILE        also write the rows as CSV\n"
            "  --json FILE       also write everything as JSON (schema streamlab.run/1)\n"
            "  --md FILE         also write the table as Markdown\n"
            "  --quiet           no table on stdout (files and errors only)\n"
            "  --counters        after each row's trials, one more launch profiled through CUPTI:\n"
            "                    DRAM bytes, L2 sectors and hit rates, instructions, occupancy\n"
            "                    (Nsight Compute's metric names); derived columns: measured/model\n"
            "                    bytes, instructions per element; the model then uses the measured\n"
            "                    instructions. Where counters cannot be read, says why once and\n"
            "                    runs without them.\n"
            "  --profile FILE    measured parameters for the model columns (default: the device's\n"
            "                    <name>.profile.json in . or profiles/, if present)\n"
            "  -h, --help        this help\n"
            "\n"
            "Files are rewritten after every row: an interrupted or failing run leaves\n"
            "valid files with the rows it finished (JSON status: running, interrupted, failed).\n"
            "exit codes: 0 ok, 1 a row failed or a CUDA fault, 2 usage error, 130 interrupted\n",
            sl_dtype_all_names());
}

static void on_signal(int sig)
{
    (void)sig;
    sl_harness_request_stop();
}

/* The command line, for the results files. */
static void join_args(int argc, char **argv, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "streamlab");
    for (int i = 0; i < argc && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, " %s", argv[i]);
}

static int kind_rank(sl_kind k)
{
    return k == SL_KIND_CEILING ? 0 : k == SL_KIND_PEER ? 1 : 2;
}

/* The variants of op on backend to run: every one, or the names in list
 * (ceilings and peers always: every ratio needs them), ceilings and peers
 * first. */
static int select_variants(const sl_op_desc *op, sl_backend backend, const char *list, const sl_variant **out)
{
    int count = 0;
    const int all = !list || strcmp(list, "all") == 0;
    for (int rank = 0; rank < 3; rank++)
        for (int i = 0; i < op->nvariants && count < MAX_VARIANTS; i++) {
            const sl_variant *v = &op->variants[i];
            if (v->backend == backend && kind_rank(v->kind) == rank &&
                (all || rank < 2 || sl_list_has(list, v->name)))
                out[count++] = v;
        }
    return count;
}

/* Every name in --variants must be a variant of at least one selected op. */
static int check_variant_names(const sl_op_desc *const *ops, int nops, sl_backend backend, const char *list)
{
    if (!list || strcmp(list, "all") == 0)
        return 0;
    char *copy = strdup(list), *save = NULL;
    if (!copy)
        return -1;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        int found = 0;
        for (int o = 0; o < nops && !found; o++)
            found = sl_variant_find(ops[o], backend, tok) != NULL;
        if (!found) {
            char names[1024] = "";
            size_t used = 0;
            for (int o = 0; o < nops; o++)
                for (int i = 0; i < ops[o]->nvariants && used < sizeof names; i++)
                    if (ops[o]->variants[i].backend == backend && !strstr(names, ops[o]->variants[i].name))
                        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                                 ops[o]->variants[i].name);
            rc = cli_usage_error("run", "unknown variant '%s' for %s on the %s backend (known: %s)", tok,
                                 nops == 1 ? ops[0]->name : "these ops", backend == SL_BACKEND_CUDA ? "cuda" : "cpu",
                                 names);
        }
    }
    free(copy);
    return rc;
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
    const sl_hw *hw;
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

int cmd_run(int argc, char **argv)
{
    enum { OPT_SIZES = 256, OPT_VARIANTS, OPT_TRIALS, OPT_WARMUP, OPT_DEVICE, OPT_COLD, OPT_OP, OPT_DTYPE, OPT_SEED,
           OPT_CSV, OPT_JSON, OPT_MD, OPT_QUIET, OPT_PROFILE, OPT_SCALAR, OPT_COUNTERS, OPT_OFFSET, OPT_TIMER };
    static const struct option opts[] = {
        {"sizes", required_argument, 0, OPT_SIZES},   {"variants", required_argument, 0, OPT_VARIANTS},
        {"trials", required_argument, 0, OPT_TRIALS}, {"warmup", required_argument, 0, OPT_WARMUP},
        {"device", required_argument, 0, OPT_DEVICE}, {"cold", no_argument, 0, OPT_COLD},
        {"op", required_argument, 0, OPT_OP},         {"dtype", required_argument, 0, OPT_DTYPE},
        {"seed", required_argument, 0, OPT_SEED},     {"csv", required_argument, 0, OPT_CSV},
        {"json", required_argument, 0, OPT_JSON},     {"md", required_argument, 0, OPT_MD},
        {"quiet", no_argument, 0, OPT_QUIET},         {"profile", required_argument, 0, OPT_PROFILE},
        {"alpha", required_argument, 0, OPT_SCALAR},  {"scalar", required_argument, 0, OPT_SCALAR},
        {"counters", no_argument, 0, OPT_COUNTERS},   {"offset", required_argument, 0, OPT_OFFSET},
        {"timer", required_argument, 0, OPT_TIMER},   {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};

    char cmdline[2048];
    join_args(argc, argv, cmdline, sizeof cmdline);
    const char *sizes_arg = DEFAULT_SIZES, *variants_arg = NULL, *profile_arg = NULL, *dtype_arg = "f32",
               *op_arg = DEFAULT_OP;
    double scalar = 0.0;
    int have_scalar = 0;
    int trials = 10, warmup = 5, device = SL_DEVICE_AUTO, cold = 0, quiet = 0, counters = 0, offset = 0;
    sl_timer timer = SL_TIMER_EVENT;
    uint64_t seed = sl_mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
    sl_report_opts ropts = {0};
    char why[256];

    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        switch (c) {
        case OPT_SIZES: sizes_arg = optarg; break;
        case OPT_VARIANTS: variants_arg = optarg; break;
        case OPT_TRIALS:
            if (cli_parse_int(optarg, 1, 1000000, &trials))
                return cli_usage_error("run", "--trials wants an integer from 1 to 1000000, not '%s'", optarg);
            break;
        case OPT_WARMUP:
            if (cli_parse_int(optarg, 0, 1000000, &warmup))
                return cli_usage_error("run", "--warmup wants an integer from 0 to 1000000, not '%s'", optarg);
            break;
        case OPT_DEVICE:
            if (cli_parse_device(optarg, &device))
                return cli_usage_error("run", "--device wants a CUDA index (0, 1, ...), 'cpu' or 'auto', not '%s'",
                                       optarg);
            break;
        case OPT_COLD: cold = 1; break;
        case OPT_OP: op_arg = optarg; break;
        case OPT_DTYPE: dtype_arg = optarg; break;
        case OPT_SCALAR: {
            char *end;
            double a = strtod(optarg, &end);
            if (!*optarg || *end || !(a == a) || a > 3.4e38 || a < -3.4e38)
                return cli_usage_error("run", "%s wants a finite number, not '%s'", argv[optind - 1], optarg);
            scalar = a;
            have_scalar = 1;
            break;
        }
        case OPT_TIMER:
            if (strcmp(optarg, "event") == 0)
                timer = SL_TIMER_EVENT;
            else if (strcmp(optarg, "wall") == 0)
                timer = SL_TIMER_WALL;
            else
                return cli_usage_error("run", "--timer wants event or wall, not '%s'", optarg);
            break;
        case OPT_SEED: {
            char *end;
            seed = strtoull(optarg, &end, 0);
            if (!*optarg || *end)
                return cli_usage_error("run", "--seed wants an integer, not '%s'", optarg);
            break;
        }
        case OPT_CSV: ropts.csv_path = optarg; break;
        case OPT_JSON: ropts.json_path = optarg; break;
        case OPT_MD: ropts.md_path = optarg; break;
        case OPT_QUIET: quiet = 1; break;
        case OPT_COUNTERS: counters = 1; break;
        case OPT_OFFSET:
            if (cli_parse_int(optarg, 0, 1 << 20, &offset))
                return cli_usage_error("run", "--offset wants an element count from 0 to 1048576, not '%s'", optarg);
            break;
        case OPT_PROFILE: profile_arg = optarg; break;
        case 'h': help(stdout); return 0;
        case ':': return cli_usage_error("run", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("run", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("run", "unexpected argument '%s'", argv[optind]);

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

    uint64_t sizes[MAX_SIZES];
    int nsizes = sl_parse_count_list(sizes_arg, sizes, MAX_SIZES, why, sizeof why);
    if (nsizes < 0)
        return cli_usage_error("run", "--sizes: %s", why);
    sl_shape shapes[MAX_SIZES];
    for (int i = 0; i < nsizes; i++)
        shapes[i] = sl_shape_1d(sizes[i]);

    sl_ctx *ctx = NULL;
    int rc = cli_open_ctx("run", device, &ctx);
    if (rc)
        return rc;
    if (check_variant_names(ops, nops, ctx->info.backend, variants_arg) != 0) {
        sl_ctx_destroy(ctx);
        return EXIT_USAGE;
    }

    /* One sweep per (op, dtype): its config. */
    typedef struct sweep {
        sl_run_config cfg;
        const sl_variant *chosen[MAX_VARIANTS];
    } sweep;
    sweep *sweeps = calloc((size_t)nops * ndtypes, sizeof *sweeps);
    if (!sweeps) {
        sl_ctx_destroy(ctx);
        fprintf(stderr, "streamlab run: out of host memory\n");
        return EXIT_RUN_FAILED;
    }
    int nsweeps = 0, steps = 0;
    for (int o = 0; o < nops; o++) {
        for (int d = 0; d < ndtypes; d++) {
            if (!sl_op_supports(ops[o], dtypes[d]))
                continue;
            sweep *s = &sweeps[nsweeps];
            sl_run_config *cfg = &s->cfg;
            cfg->op = ops[o];
            cfg->dtype = dtypes[d];
            for (int k = 0; k < ops[o]->nscalars; k++)
                cfg->scalar[k] = have_scalar ? scalar : ops[o]->scalars[k].dflt;
            cfg->shapes = shapes;
            cfg->nshapes = nsizes;
            cfg->nvariants = select_variants(ops[o], ctx->info.backend, variants_arg, s->chosen);
            cfg->variants = s->chosen;
            cfg->warmup = warmup;
            cfg->trials = trials;
            cfg->cold = cold;
            cfg->timer = timer;
            cfg->progress = !quiet && isatty(STDERR_FILENO);
            cfg->seed = seed;
            cfg->inject_fault = getenv("STREAMLAB_INJECT_FAULT");
            /* With every variant, one that has no kernel for a dtype gets no
             * row; one the user named gets a "skip" row saying so. */
            cfg->quiet_unsupported = !variants_arg || strcmp(variants_arg, "all") == 0;
            cfg->offset = (uint64_t)offset;
            int rows = 0;
            for (int i = 0; i < cfg->nvariants; i++)
                rows += !cfg->quiet_unsupported || sl_variant_supports(ops[o], s->chosen[i], dtypes[d]);
            steps += rows * nsizes;
            nsweeps++;
        }
    }
    for (int i = 0; i < nsweeps; i++)
        sweeps[i].cfg.steps = steps;

    /* --counters: open the profiler once (it holds a buffer to clear L2
     * between replay passes, so it goes before the memory checks). */
    sl_counter_session *ctr = NULL;
    if (counters) {
        if (sl_counters_open(ctx, &ctr) != SL_OK) {
            fprintf(stderr, "streamlab run: counters unavailable, running without them: %s\n", sl_last_error());
            ctr = NULL;
        }
    }
    /* Every size must fit, for every op and dtype, before the first one runs. */
    for (int i = 0; i < nsweeps; i++) {
        sweeps[i].cfg.counters = ctr;
        for (int j = 0; j < nsizes; j++) {
            if (sl_harness_check_fit(ctx, &sweeps[i].cfg, &shapes[j]) != SL_OK) {
                fprintf(stderr, "streamlab run: %s\n", sl_last_error());
                sl_counters_close(ctr);
                sl_ctx_destroy(ctx);
                free(sweeps);
                return EXIT_USAGE;
            }
        }
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

    /* The model columns: queried + arch table, and a probe profile if one
     * exists for this device. CPU rows get none. */
    sl_hw hw;
    char hw_note[600] = "", prof_used[512] = "";
    int model = 0;
    if (ctx->info.backend == SL_BACKEND_CUDA && sl_hw_from_ctx(ctx, &hw) == SL_OK) {
        int found = 0;
        if (sl_hw_load_profile(&hw, profile_arg, &found, prof_used, sizeof prof_used) != SL_OK) {
            fprintf(stderr, "streamlab run: %s\n", sl_last_error());
            sl_counters_close(ctr);
            sl_ctx_destroy(ctx);
            free(sweeps);
            return EXIT_USAGE;
        }
        snprintf(hw_note, sizeof hw_note, "%s%s",
                 found ? "measured parameters from " : "no probe profile: datasheet and arch-table parameters",
                 found ? prof_used : "");
        model = 1;
    }
    sl_report_meta meta = {
        .ctxs = &ctx,
        .nctx = 1,
        .command_line = cmdline,
        .ops = op_list,
        .dtypes = dtype_list,
        .sizes = sizes,
        .nsizes = nsizes,
        .warmup = warmup,
        .trials = trials,
        .cold = cold,
        .timer = timer,
        .seed = seed,
        .offset = (uint64_t)offset,
        .scalars = scalars[0] ? scalars : NULL,
        .model = model,
        .hw_note = model ? hw_note : NULL,
        .counters = ctr != NULL,
        .multi_op = nops > 1,
    };
    ropts.quiet = quiet;
    sl_report *rep;
    if (sl_report_open(&meta, &ropts, &rep) != SL_OK) {
        fprintf(stderr, "streamlab run: %s\n", sl_last_error());
        sl_counters_close(ctr);
        sl_ctx_destroy(ctx);
        free(sweeps);
        return EXIT_USAGE;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    row_hook hook = {rep, model ? &hw : NULL, cold};
    sl_status sweep_st = SL_OK;
    int done = 0;
    for (int i = 0; i < nsweeps && sweep_st == SL_OK; i++) {
        sweeps[i].cfg.step0 = done;
        sweep_st = sl_harness_run(ctx, &sweeps[i].cfg, on_row, &hook);
        int rows = 0;
        for (int k = 0; k < sweeps[i].cfg.nvariants; k++)
            rows += !sweeps[i].cfg.quiet_unsupported ||
                    sl_variant_supports(sweeps[i].cfg.op, sweeps[i].chosen[k], sweeps[i].cfg.dtype);
        done += rows * nsizes;
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
    /* After a sticky fault the context cannot be torn down cleanly; the
     * process exit releases it. */
    if (sweep_st != SL_ERR_CUDA_FAULT) {
        sl_counters_close(ctr);
        sl_ctx_destroy(ctx);
    }
    return rc;
}
