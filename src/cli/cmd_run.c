/*
 * cmd_run.c - `streamlab run`: the main job.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "../core/counters.h"
#include "../core/harness.h"
#include "../core/hw.h"
#include "../core/internal.h"
#include "../core/registry.h"
#include "../core/results.h"
#include "../core/rng.h"
#include "../core/sizes.h"

#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_SIZES 64
#define DEFAULT_SIZES "10M,100M,200M"

static void help(FILE *f)
{
    fprintf(f,
            "usage: streamlab run [options]\n"
            "\n"
            "Verify and time every variant of a ladder at each size and dtype, beside the copy\n"
            "ceiling (cudaMemcpy) and a library peer, and print one table: time, throughput and\n"
            "efficiency (the seed's three tables), one row per variant, dtype and size.\n"
            "  add   c = a + b              (seed 000; peer: CUB DeviceTransform)\n"
            "  axpy  y = alpha * x + y       (seed 001; peer: cuBLAS saxpy / AxpyEx)\n"
            "Every row is checked against the CPU reference before and after timing, bit for bit\n"
            "(library peers: within the ulps they declare, see streamlab list).\n"
            "\n"
            "options:\n"
            "  --sizes LIST      element counts, comma-separated (default " DEFAULT_SIZES ");\n"
            "                    forms: 100000, 10M (10^6), 64Ki (2^10), 2^28, 1e6\n"
            "  --variants LIST   variants to run (default: all; see streamlab list);\n"
            "                    the copy ceiling and the peer always run\n"
            "  --trials N        timed launches per row (default 10)\n"
            "  --warmup N        untimed launches before the trials (default 5)\n"
            "  --device N|cpu    CUDA device index, or cpu (default: GPU 0 if present, else cpu)\n"
            "  --cold            flush L2 before every trial (for sizes that fit in L2)\n"
            "  --op add|axpy     the ladder (default add)\n"
            "  --dtype LIST      storage types, comma-separated (default f32): f32, f16, bf16,\n"
            "                    fp8e4m3, fp8e5m2 (axpy: f32, f16, bf16); compute is fp32,\n"
            "                    stores round to nearest-even (fp8: saturating)\n"
            "  --alpha A         axpy's scalar (default 1.3)\n"
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
            "exit codes: 0 ok, 1 a row failed or a CUDA fault, 2 usage error, 130 interrupted\n");
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

/* Resolve --variants against the registry for this backend and op.
 * Ceilings and peers always run (every ratio needs them) and come first. */
static int select_variants(sl_backend backend, sl_op op, const char *list, const sl_variant **out, int *count)
{
    *count = 0;
    int want_all = !list || strcmp(list, "all") == 0;
    if (!want_all) {
        char *copy = strdup(list), *save = NULL;
        if (!copy)
            return -1;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            const sl_variant *v = sl_registry_find(backend, op, tok);
            if (!v || v->op != op) {
                char names[1024] = "";
                size_t used = 0;
                for (size_t i = 0; i < sl_registry_count(); i++) {
                    const sl_variant *r = sl_registry_at(i);
                    if (r->backend == backend && r->op == op)
                        used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", used ? ", " : "",
                                                 r->name);
                }
                cli_usage_error("run", "unknown variant '%s' for %s on the %s backend (known: %s)", tok,
                                sl_op_name(op), backend == SL_BACKEND_CUDA ? "cuda" : "cpu", names);
                free(copy);
                return -1;
            }
        }
        free(copy);
    }
    for (int rank = 0; rank < 3; rank++) {
        for (size_t i = 0; i < sl_registry_count(); i++) {
            const sl_variant *v = sl_registry_at(i);
            if (v->backend != backend || v->op != op || kind_rank(v->kind) != rank)
                continue;
            if (want_all || rank < 2 || sl_list_has(list, v->name))
                out[(*count)++] = v;
        }
    }
    return 0;
}

int cmd_run(int argc, char **argv)
{
    enum { OPT_SIZES = 256, OPT_VARIANTS, OPT_TRIALS, OPT_WARMUP, OPT_DEVICE, OPT_COLD, OPT_OP, OPT_DTYPE, OPT_SEED,
           OPT_CSV, OPT_JSON, OPT_MD, OPT_QUIET, OPT_PROFILE, OPT_ALPHA, OPT_COUNTERS, OPT_OFFSET };
    static const struct option opts[] = {
        {"sizes", required_argument, 0, OPT_SIZES},   {"variants", required_argument, 0, OPT_VARIANTS},
        {"trials", required_argument, 0, OPT_TRIALS}, {"warmup", required_argument, 0, OPT_WARMUP},
        {"device", required_argument, 0, OPT_DEVICE}, {"cold", no_argument, 0, OPT_COLD},
        {"op", required_argument, 0, OPT_OP},         {"dtype", required_argument, 0, OPT_DTYPE},
        {"seed", required_argument, 0, OPT_SEED},     {"csv", required_argument, 0, OPT_CSV},
        {"json", required_argument, 0, OPT_JSON},     {"md", required_argument, 0, OPT_MD},
        {"quiet", no_argument, 0, OPT_QUIET},         {"profile", required_argument, 0, OPT_PROFILE},
        {"alpha", required_argument, 0, OPT_ALPHA},   {"counters", no_argument, 0, OPT_COUNTERS},
        {"offset", required_argument, 0, OPT_OFFSET},
        {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};

    char cmdline[2048];
    join_args(argc, argv, cmdline, sizeof cmdline);
    const char *sizes_arg = DEFAULT_SIZES, *variants_arg = NULL, *profile_arg = NULL, *dtype_arg = "f32";
    sl_op op = SL_OP_ADD;
    float alpha = 1.3f;
    int trials = 10, warmup = 5, device = SL_DEVICE_AUTO, cold = 0, quiet = 0, counters = 0, offset = 0;
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
        case OPT_OP: {
            int o = sl_op_parse(optarg);
            if (o < 0)
                return cli_usage_error("run", "--op '%s' is not implemented (available: add, axpy)", optarg);
            op = (sl_op)o;
            break;
        }
        case OPT_DTYPE: dtype_arg = optarg; break;
        case OPT_ALPHA: {
            char *end;
            double a = strtod(optarg, &end);
            if (!*optarg || *end || !(a == a) || a > 3.4e38 || a < -3.4e38)
                return cli_usage_error("run", "--alpha wants a finite number, not '%s'", optarg);
            alpha = (float)a;
            break;
        }
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

    /* --dtype: every name known, offered by the op, no repeats. */
    sl_dtype dtypes[SL_DTYPE_COUNT];
    int ndtypes = 0;
    {
        char list[128];
        if (strlen(dtype_arg) >= sizeof list)
            return cli_usage_error("run", "--dtype: the list is too long");
        snprintf(list, sizeof list, "%s", dtype_arg);
        char *save = NULL;
        for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            int d = sl_dtype_from_name(tok);
            if (d < 0)
                return cli_usage_error("run", "--dtype '%s' is not one of f32, f16, bf16, fp8e4m3, fp8e5m2", tok);
            if (op == SL_OP_AXPY && d != SL_F32 && d != SL_F16 && d != SL_BF16)
                return cli_usage_error("run", "--dtype %s: axpy is offered in f32, f16 and bf16", tok);
            for (int i = 0; i < ndtypes; i++)
                if (dtypes[i] == (sl_dtype)d)
                    return cli_usage_error("run", "--dtype lists %s twice", tok);
            if (ndtypes == SL_DTYPE_COUNT)
                return cli_usage_error("run", "--dtype: too many entries");
            dtypes[ndtypes++] = (sl_dtype)d;
        }
        if (ndtypes == 0)
            return cli_usage_error("run", "--dtype wants at least one of f32, f16, bf16, fp8e4m3, fp8e5m2");
    }

    uint64_t sizes[MAX_SIZES];
    int nsizes = sl_parse_count_list(sizes_arg, sizes, MAX_SIZES, why, sizeof why);
    if (nsizes < 0)
        return cli_usage_error("run", "--sizes: %s", why);

    sl_ctx *ctx = NULL;
    int rc = cli_open_ctx("run", device, &ctx);
    if (rc)
        return rc;

    const sl_variant *chosen[256];
    int nchosen = 0;
    if (select_variants(ctx->info.backend, op, variants_arg, chosen, &nchosen) != 0) {
        sl_ctx_destroy(ctx);
        return EXIT_USAGE;
    }
    sl_run_config cfg = {
        .op = op,
        .dtype = dtypes[0],
        .alpha = alpha,
        .sizes = sizes,
        .nsizes = nsizes,
        .variants = chosen,
        .nvariants = nchosen,
        .warmup = warmup,
        .trials = trials,
        .cold = cold,
        .progress = !quiet && isatty(STDERR_FILENO),
        .seed = seed,
        .inject_fault = getenv("STREAMLAB_INJECT_FAULT"),
        /* With every variant, one that has no kernel for a dtype gets no
         * row; one the user named gets a "skip" row saying so. */
        .quiet_unsupported = !variants_arg || strcmp(variants_arg, "all") == 0,
        .offset = (uint64_t)offset,
    };
    /* --counters: open the profiler once (it holds a buffer to clear L2
     * between replay passes, so it goes before the memory checks). */
    sl_counter_session *ctr = NULL;
    if (counters) {
        if (sl_counters_open(ctx, &ctr) != SL_OK) {
            fprintf(stderr, "streamlab run: counters unavailable, running without them: %s\n", sl_last_error());
            ctr = NULL;
        }
        cfg.counters = ctr;
    }
    /* Every size must fit, in every dtype, before the first one runs. */
    for (int d = 0; d < ndtypes; d++) {
        cfg.dtype = dtypes[d];
        for (int i = 0; i < nsizes; i++) {
            if (sl_harness_check_fit(ctx, &cfg, sizes[i]) != SL_OK) {
                fprintf(stderr, "streamlab run: %s\n", sl_last_error());
                sl_counters_close(ctr);
                sl_ctx_destroy(ctx);
                return EXIT_USAGE;
            }
        }
    }
    cfg.dtype = dtypes[0];
    char alpha_note[64];
    snprintf(alpha_note, sizeof alpha_note, "alpha = %.9g (float)", (double)alpha);
    /* The list as parsed, for the header and the JSON config. */
    char dtype_list[64] = "";
    for (int d = 0; d < ndtypes; d++)
        snprintf(dtype_list + strlen(dtype_list), sizeof dtype_list - strlen(dtype_list), "%s%s", d ? "," : "",
                 sl_dtype_name(dtypes[d]));
    ropts.dtype_list = dtype_list;
    ropts.alpha_note = op == SL_OP_AXPY ? alpha_note : NULL;

    ropts.quiet = quiet;
    ropts.command_line = cmdline;
    /* The model columns: queried + arch table, and a probe profile if one
     * exists for this device. CPU rows get none. */
    sl_hw hw;
    char hw_note[600] = "", prof_used[512] = "";
    if (ctx->info.backend == SL_BACKEND_CUDA && sl_hw_from_ctx(ctx, &hw) == SL_OK) {
        int found = 0;
        if (sl_hw_load_profile(&hw, profile_arg, &found, prof_used, sizeof prof_used) != SL_OK) {
            fprintf(stderr, "streamlab run: %s\n", sl_last_error());
            sl_counters_close(ctr);
            sl_ctx_destroy(ctx);
            return EXIT_USAGE;
        }
        snprintf(hw_note, sizeof hw_note, "%s%s", found ? "measured parameters from " : "no probe profile: datasheet "
                                                                                        "and arch-table parameters",
                 found ? prof_used : "");
        ropts.hw = &hw;
        ropts.hw_note = hw_note;
    }
    sl_report *rep;
    if (sl_report_open(ctx, &cfg, &ropts, &rep) != SL_OK) {
        fprintf(stderr, "streamlab run: %s\n", sl_last_error());
        sl_counters_close(ctr);
        sl_ctx_destroy(ctx);
        return EXIT_USAGE;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    sl_status sweep = SL_OK;
    for (int d = 0; d < ndtypes && sweep == SL_OK; d++) {
        cfg.dtype = dtypes[d];
        sweep = sl_harness_run(ctx, &cfg, sl_report_row, rep);
    }
    char error[1024] = "";
    if (sweep != SL_OK)
        snprintf(error, sizeof error, "%s", sl_last_error());
    int failed = sl_report_failed_rows(rep);
    sl_status wst = sl_report_close(rep, sweep, error);

    const char *where = ropts.json_path ? ropts.json_path : ropts.csv_path ? ropts.csv_path : ropts.md_path;
    if (sweep == SL_ERR_INTERRUPTED) {
        fprintf(stderr, "streamlab run: interrupted%s%s\n", where ? "; rows finished so far are in " : "",
                where ? where : "");
        rc = EXIT_INTERRUPTED;
    } else if (sweep != SL_OK) {
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
    if (sweep != SL_ERR_CUDA_FAULT) {
        sl_counters_close(ctr);
        sl_ctx_destroy(ctx);
    }
    return rc;
}
