/*
 * cmd_explain.c - `streamlab explain`: the bottleneck model's table for one
 * kernel (or every rung of an op) at one size, before or instead of
 * running it.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "hw.h"
#include "internal.h"
#include "model.h"
#include "sizes.h"
#include "sl_bundled_hw.h"
#include "table.h"

#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The largest --n: 2^48 elements (a petabyte of f32) is beyond any GPU's
 * memory, and keeps every byte count exact in a double. */
#define SL_EXPLAIN_MAX_N (1ull << 48)

static void help(FILE *f)
{
    fprintf(f, "usage: streamlab explain [options]\n"
               "\n"
               "Predict a kernel's time from the analytic bottleneck model (seed 000, \"What I\n"
               "Would Do Differently\"): the time each resource alone would need (DRAM, latency,\n"
               "L2, compute, issue, load/store units, shared memory, PCIe, launch), the largest\n"
               "of them, and what would move it. No kernel is run.\n"
               "\n"
               "options:\n"
               "  -o, --op NAME    the op (default add; streamlab list shows them all)\n"
               "  --n SIZE         elements of a 1-D op, 1 to 2^48 (default 200M; 10M, 2^28, 1e6 ...)\n"
               "  --shape S        a 2-D op's shape: ROWSxCOLS, ROWSxCOLS:LD or MxNxK (default: the\n"
               "                   first of the op's default shapes)\n"
               "  --variant NAME   one registry entry in detail (default: every rung, in a table)\n"
               "  --dtype T        any dtype the op offers (default f32; the model needs no kernel)\n"
               "  --hw FILE        describe a GPU instead of querying one (e.g. hw/rtx4060.json);\n"
               "                   without --hw and without a GPU (or with --device cpu), the bundled\n"
               "                   description of the H200 (" SL_BUNDLED_HW_PATH "), named in the first line\n"
               "  --profile FILE   measured parameters from `streamlab probe` (default: the\n"
               "                   device's <name>.profile.json in . or profiles/, if present)\n"
               "  --profile-force  use --profile FILE even if it was measured on another device\n"
               "  --no-profile     ignore profiles: queried and arch-table values only\n"
               "  -d, --device N|cpu  the GPU to describe (default 0); cpu: the model describes GPUs,\n"
               "                   so the bundled H200 description, as with no GPU\n"
               "  --cold           caches start empty (else a working set that fits in L2 stays there)\n"
               "  --json FILE      also write the parameters and bounds as JSON (- for stdout)\n"
               "  -h, --help       this help\n"
               "\n"
               "Every hardware parameter is printed with its source: queried, arch-table, probe\n"
               "or user. Equations and their sources: docs/model.md.\n"
               "\n"
               "exit codes: 0 ok, 1 the JSON file could not be written at the end, 2 usage error\n"
               "(bad flag, size, variant, device, --hw or --profile file, unwritable --json)\n");
}

static int parse_dtype(const char *s, sl_dtype *dt)
{
    int d = sl_dtype_from_name(s);
    if (d < 0)
        return -1;
    *dt = (sl_dtype)d;
    return 0;
}

static void print_hw(const sl_hw *hw)
{
    if (hw->bif_n > 0) {
        printf("Little's law: the measured bandwidth-vs-bytes-in-flight curve (%d points, %s)", hw->bif_n,
               hw->bif_ref);
        if (hw->knee_bif_per_sm > 0) {
            char k[32];
            sl_format_bytes(hw->knee_bif_per_sm, k, sizeof k);
            printf("; knee %s per SM, %.0f ns there", k, hw->knee_latency_ns);
        }
        printf("\n\n");
    }
    static const sl_col cols[] = {
        {"parameter", 20, 'l'}, {"value", 14, 'r'}, {"unit", 7, 'l'}, {"source", 10, 'l'}, {"reference", 0, 'l'}};
    sl_table t;
    sl_table_open(&t, cols, 5, stdout, NULL);
    for (int k = 0; k < HW_NKEYS; k++) {
        const sl_param *p = &hw->p[k];
        if (p->src == SL_SRC_NONE)
            continue;
        char v[32];
        if (k == HW_L2_BYTES)
            sl_format_bytes(p->v, v, sizeof v);
        else
            snprintf(v, sizeof v, p->v >= 100 ? "%.0f" : "%.3g", p->v);
        const char *cells[] = {sl_hw_key_name((sl_hw_key)k), v, k == HW_L2_BYTES ? "" : sl_hw_key_unit((sl_hw_key)k),
                               sl_src_name(p->src), p->ref};
        sl_table_row(&t, cells);
    }
}

static void print_detail(const sl_op_desc *op, const sl_variant *v, sl_dtype dt, const sl_shape *shape,
                         const sl_model *m, int have_attrs)
{
    static const sl_col cols[] = {{"bottleneck", 28, 'l'}, {"estimated duration or efficiency", 0, 'l'},
                                  {"", 0, 'l'}};
    printf("\n");
    sl_table t;
    sl_table_open(&t, cols, 3, stdout, NULL);
    for (int b = 0; b < SL_B_COUNT; b++) {
        char val[160];
        if (b == SL_B_LATENCY) {
            if (m->latency_eff < 0) {
                snprintf(val, sizeof val, "%s", m->l2_resident ? "n/a: the working set stays in L2"
                                                                : "n/a: bytes in flight unknown for this kernel");
            } else {
                char have[32], need[32];
                sl_format_bytes(m->bif_per_sm, have, sizeof have);
                sl_format_bytes(m->bif_needed_per_sm, need, sizeof need);
                snprintf(val, sizeof val, "%.0f%% (%s in flight per SM, %s needed) -> %.4f ms", 100 * m->latency_eff,
                         have, need, m->ms[b]);
            }
        } else if (m->ms[b] < 0) {
            snprintf(val, sizeof val, "n/a (parameter unknown)");
        } else if (b == SL_B_PCIE && m->ms[b] == 0) {
            snprintf(val, sizeof val, "0 (no host <-> device transfer in this op)");
        } else if (b == SL_B_SMEM && m->ms[b] == 0) {
            snprintf(val, sizeof val, "0 (no shared memory)");
        } else if (b == SL_B_DRAM && m->l2_resident) {
            snprintf(val, sizeof val, "0 (the working set fits in L2 and is warm; --cold to change that)");
        } else {
            snprintf(val, sizeof val, "%.4f ms", m->ms[b]);
        }
        int is_lim = (sl_bound)b == m->limiter && !(b == SL_B_LATENCY && m->body_ms == m->floor_ms);
        const char *cells[] = {sl_bound_name((sl_bound)b), val, is_lim ? "<- limiter" : ""};
        sl_table_row(&t, cells);
    }
    if (m->floor_ms > 0) {
        char val[96];
        snprintf(val, sizeof val, "%.4f ms (two dependent %s latencies)", m->floor_ms, m->l2_resident ? "L2" : "DRAM");
        const char *cells[] = {"round-trip floor", val,
                               m->limiter == SL_B_LATENCY && m->body_ms == m->floor_ms ? "<- limiter" : ""};
        sl_table_row(&t, cells);
    }
    const sl_traffic tr = sl_variant_traffic(op, v, shape, dt);
    printf("\npredicted: %.4f ms = %.4f launch + %.4f body; %.0f GB/s; limiter: %s\n", m->pred_ms,
           m->ms[SL_B_LAUNCH], m->body_ms, (tr.rd_bytes + tr.wr_bytes) / (m->pred_ms * 1e6), sl_bound_name(m->limiter));
    if (!have_attrs && v->attrs)
        printf("(occupancy assumed full: no GPU to ask for this kernel's registers and blocks per SM)\n");
    char lines[8][256];
    int k = sl_model_advice(op, v, dt, m, lines, 8);
    if (k) {
        printf("to move the limiter:\n");
        for (int i = 0; i < k; i++)
            printf("  - %s\n", lines[i]);
    }
}

/* The model for v, with the kernel's real occupancy when a GPU can say. */
static sl_status predict(const sl_hw *hw, const sl_op_desc *op, const sl_variant *v, int have_gpu, sl_dtype dt,
                         const sl_shape *shape, int cold, sl_model *m, int *have_attrs)
{
    sl_kernel_attrs a;
    *have_attrs = have_gpu && v->attrs && v->attrs(dt, &a) == SL_OK;
    return sl_model_predict(hw, op, v, *have_attrs ? &a : NULL, dt, shape, -1.0, cold, m);
}

static cJSON *model_json(const sl_variant *v, const sl_model *m)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "variant", v->name);
    cJSON_AddNumberToObject(o, "pred_ms", m->pred_ms);
    cJSON_AddNumberToObject(o, "body_ms", m->body_ms);
    cJSON_AddStringToObject(o, "limiter", sl_bound_name(m->limiter));
    cJSON *b = cJSON_AddObjectToObject(o, "bounds_ms");
    for (int i = 0; i < SL_B_COUNT; i++) {
        if (m->ms[i] >= 0)
            cJSON_AddNumberToObject(b, sl_bound_short((sl_bound)i), m->ms[i]);
        else
            cJSON_AddNullToObject(b, sl_bound_short((sl_bound)i));
    }
    if (m->latency_eff >= 0) {
        cJSON_AddNumberToObject(o, "latency_efficiency", m->latency_eff);
        cJSON_AddNumberToObject(o, "bytes_in_flight_per_sm", m->bif_per_sm);
        cJSON_AddNumberToObject(o, "bytes_in_flight_needed_per_sm", m->bif_needed_per_sm);
    }
    cJSON_AddBoolToObject(o, "l2_resident", m->l2_resident);
    return o;
}

int cmd_explain(int argc, char **argv)
{
    enum { OPT_OP = 256, OPT_N, OPT_VARIANT, OPT_DTYPE, OPT_HW, OPT_PROFILE, OPT_NOPROFILE, OPT_DEVICE, OPT_COLD,
           OPT_JSON, OPT_PROFILE_FORCE, OPT_SHAPE };
    static const struct option opts[] = {
        {"op", required_argument, 0, OPT_OP},           {"n", required_argument, 0, OPT_N},
        {"variant", required_argument, 0, OPT_VARIANT}, {"dtype", required_argument, 0, OPT_DTYPE},
        {"hw", required_argument, 0, OPT_HW},           {"profile", required_argument, 0, OPT_PROFILE},
        {"no-profile", no_argument, 0, OPT_NOPROFILE},  {"device", required_argument, 0, OPT_DEVICE},
        {"cold", no_argument, 0, OPT_COLD},             {"json", required_argument, 0, OPT_JSON},
        {"profile-force", no_argument, 0, OPT_PROFILE_FORCE},
        {"shape", required_argument, 0, OPT_SHAPE},
        {"help", no_argument, 0, 'h'},                  {0, 0, 0, 0}};
    const char *variant = NULL, *hw_path = NULL, *prof_path = NULL, *json = NULL, *shape_arg = NULL;
    const sl_op_desc *op = sl_op_find("add");
    uint64_t n = 200000000ull;
    sl_dtype dt = SL_F32;
    int device = 0, cold = 0, no_profile = 0, force = 0, have_n = 0, c;
    char why[200];
    opterr = 0;
    optind = 1;
    static const int aliases[] = {'o', OPT_OP, 'd', OPT_DEVICE, 0};
    cli_once once = {.aliases = aliases};
    char once_msg[512];
    while ((c = getopt_long(argc, argv, ":ho:d:", opts, NULL)) != -1) {
        if (cli_once_twice(&once, opts, c, optarg, once_msg, sizeof once_msg))
            return cli_usage_error("explain", "%s", once_msg);
        switch (c) {
        case 'o':
        case OPT_OP:
            if (!(op = sl_op_find(optarg))) {
                char names[256];
                sl_op_names(names, sizeof names);
                return cli_usage_error("explain", "--op '%s' is not implemented (available: %s)", optarg, names);
            }
            break;
        case OPT_N:
            if (sl_parse_count(optarg, &n, why, sizeof why) != 0)
                return cli_usage_error("explain", "--n '%s': %s", optarg, why);
            if (n > SL_EXPLAIN_MAX_N)
                return cli_usage_error("explain", "--n %s is more than 2^48 elements, larger than any GPU memory",
                                       optarg);
            have_n = 1;
            break;
        case OPT_SHAPE: shape_arg = optarg; break;
        case OPT_VARIANT: variant = optarg; break;
        case OPT_DTYPE:
            if (parse_dtype(optarg, &dt))
                return cli_usage_error("explain", "--dtype '%s' is not one of %s", optarg, sl_dtype_all_names());
            break;
        case OPT_HW: hw_path = optarg; break;
        case OPT_PROFILE: prof_path = optarg; break;
        case OPT_NOPROFILE: no_profile = 1; break;
        case OPT_PROFILE_FORCE: force = 1; break;
        case 'd':
        case OPT_DEVICE:
            if (strcmp(optarg, "cpu") == 0)
                device = SL_DEVICE_CPU;
            else if (cli_parse_int(optarg, 0, 1 << 20, &device))
                return cli_usage_error("explain", "--device wants a CUDA index or cpu, not '%s'", optarg);
            break;
        case OPT_COLD: cold = 1; break;
        case OPT_JSON: json = optarg; break;
        case 'h': help(stdout); return 0;
        case ':': return cli_usage_error("explain", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("explain", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error("explain", "unexpected argument '%s'", argv[optind]);
    if (!sl_op_supports(op, dt)) {
        char list[96];
        sl_op_dtype_list(op, list, sizeof list);
        return cli_usage_error("explain", "--dtype %s: %s is offered in %s", sl_dtype_name(dt), op->name, list);
    }
    if (force && !prof_path)
        return cli_usage_error("explain", "--profile-force goes with --profile FILE");
    if (no_profile && prof_path)
        return cli_usage_error("explain", "--profile and --no-profile contradict each other");
    /* A 1-D op takes --n, a 2-D op --shape (default: the first of its
     * default shapes). */
    sl_shape shape = sl_shape_1d(n);
    if (op->rank == 2) {
        if (have_n)
            return cli_usage_error("explain", "%s is 2-D: give --shape ROWSxCOLS, not --n", op->name);
        const char *text = shape_arg ? shape_arg : op->default_shapes;
        if (!text)
            return cli_usage_error("explain", "%s has no default shape: give --shape ROWSxCOLS", op->name);
        /* one shape: the one given, or the first of the op's defaults */
        char first[128];
        const size_t m = shape_arg ? strlen(text) : strcspn(text, ",");
        if (m >= sizeof first)
            return cli_usage_error("explain", "--shape '%.40s...': too long", text);
        snprintf(first, sizeof first, "%.*s", (int)m, text);
        sl_shape list[1];
        if (sl_parse_shape(first, &list[0], why, sizeof why) != 0)
            return cli_usage_error("explain", "--shape '%s': %s", first, why);
        if (!sl_op_shape_ok(op, &list[0], why, sizeof why))
            return cli_usage_error("explain", "--shape '%s' for %s: %s", first, op->name, why);
        if (sl_shape_elems(&list[0]) > SL_EXPLAIN_MAX_N)
            return cli_usage_error("explain", "--shape %s is more than 2^48 elements, larger than any GPU memory",
                                   text);
        shape = list[0];
        n = sl_shape_elems(&shape);
        for (int k = 0; k < op->nbufs; k++)
            if (sl_role_read(op->bufs[k].role) && !sl_op_buf_elems(op, k, &shape))
                return cli_usage_error("explain", "--shape %s: %s's %s is empty (give MxNxK)", first, op->name,
                                       op->bufs[k].name);
    } else if (shape_arg) {
        return cli_usage_error("explain", "%s is 1-D: give --n N, not --shape", op->name);
    }
    /* The JSON file is checked before any work, so that a path that cannot
     * be written is a usage error, as in run and probe. */
    sl_output json_out;
    cli_data_to_stdout(&json, 1);
    if (json && sl_output_open(&json_out, json, "streamlab.explain/") != SL_OK) {
        fprintf(stderr, "streamlab explain: %s\n", sl_last_error());
        return EXIT_USAGE;
    }

    sl_hw hw;
    sl_ctx *ctx = NULL;
    int have_gpu = 0;
    char bundled[512] = ""; /* why the bundled description is explained, or "" */
    char hw_source[600];
    if (!hw_path && device != SL_DEVICE_CPU && sl_ctx_create(device, &ctx) != SL_OK) {
        if (device != 0) { /* a GPU named and missing: an error, not a substitute */
            fprintf(stderr, "streamlab explain: %s; describe a GPU with --hw FILE (e.g. hw/rtx4060.json)\n",
                    sl_last_error());
            return EXIT_USAGE;
        }
        snprintf(bundled, sizeof bundled, "no GPU here (%s)", sl_last_error());
        ctx = NULL;
    } else if (!hw_path && device == SL_DEVICE_CPU) {
        snprintf(bundled, sizeof bundled, "--device cpu: the model describes GPUs, not the CPU backend");
    }
    if (bundled[0]) {
        static const char text[] = SL_BUNDLED_HW_JSON;
        if (sl_hw_parse(text, sizeof text - 1, SL_BUNDLED_HW_PATH, &hw) != SL_OK) {
            fprintf(stderr, "streamlab explain: the bundled %s: %s\n", SL_BUNDLED_HW_PATH, sl_last_error());
            return EXIT_RUN_FAILED;
        }
        snprintf(hw_source, sizeof hw_source, "the bundled description " SL_BUNDLED_HW_PATH);
    } else if (hw_path) {
        if (sl_hw_read_file(hw_path, &hw) != SL_OK) {
            fprintf(stderr, "streamlab explain: %s\n", sl_last_error());
            return EXIT_USAGE;
        }
        snprintf(hw_source, sizeof hw_source, "--hw %s", hw_path);
    } else {
        snprintf(hw_source, sizeof hw_source, "queried from CUDA device %d", device);
        if (sl_hw_from_ctx(ctx, &hw) != SL_OK) {
            fprintf(stderr, "streamlab explain: %s\n", sl_last_error());
            sl_ctx_destroy(ctx);
            return EXIT_USAGE;
        }
        have_gpu = 1;
    }
    char used[512] = "";
    int found = 0;
    if (!no_profile && sl_hw_load_profile(&hw, prof_path, force, &found, used, sizeof used) != SL_OK) {
        fprintf(stderr, "streamlab explain: %s\n", sl_last_error());
        sl_ctx_destroy(ctx);
        return EXIT_USAGE;
    }
    if (hw.profile_warning[0])
        fprintf(stderr, "streamlab explain: warning: %s\n", hw.profile_warning);
    const sl_variant *one = NULL;
    if (variant && !(one = sl_variant_find(op, SL_BACKEND_CUDA, variant))) {
        int rc = cli_usage_error("explain", "unknown variant '%s' of %s (see streamlab list)", variant, op->name);
        sl_ctx_destroy(ctx);
        return rc;
    }

    char n_s[40], bytes_s[32];
    sl_format_shape(&shape, n_s, sizeof n_s);
    if (bundled[0])
        printf("streamlab explain: %s: explaining the bundled description of the %s (%s; --hw FILE describes "
               "another GPU)\n",
               bundled, hw.name, SL_BUNDLED_HW_PATH);
    printf("streamlab explain: %s %s, n = %s, on %s%s\n", op->name, sl_dtype_name(dt), n_s, hw.name,
           cold ? ", cold caches" : "");
    if (found)
        printf("measured parameters: %s (source: probe)\n", used);
    else if (!no_profile && !hw_path)
        printf("no probe profile found: run `streamlab probe` to replace datasheet numbers with measured ones\n");
    printf("\n");
    print_hw(&hw);

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "streamlab.explain/1");
    cJSON_AddStringToObject(root, "hardware", hw.name);
    cJSON_AddStringToObject(root, "hardware_source", hw_source);
    cJSON_AddStringToObject(root, "op", op->name);
    cJSON_AddNumberToObject(root, "n", (double)n);
    if (op->rank == 2) {
        cJSON *sh = cJSON_AddObjectToObject(root, "shape");
        cJSON_AddNumberToObject(sh, "rows", (double)shape.rows);
        cJSON_AddNumberToObject(sh, "cols", (double)shape.cols);
        cJSON_AddNumberToObject(sh, "ld", (double)shape.ld);
        if (shape.k)
            cJSON_AddNumberToObject(sh, "k", (double)shape.k);
    }
    cJSON_AddStringToObject(root, "dtype", sl_dtype_name(dt));
    cJSON *params = cJSON_AddObjectToObject(root, "params");
    for (int k = 0; k < HW_NKEYS; k++) {
        if (hw.p[k].src == SL_SRC_NONE)
            continue;
        cJSON *p = cJSON_AddObjectToObject(params, sl_hw_key_name((sl_hw_key)k));
        cJSON_AddNumberToObject(p, "value", hw.p[k].v);
        cJSON_AddStringToObject(p, "source", sl_src_name(hw.p[k].src));
        cJSON_AddStringToObject(p, "ref", hw.p[k].ref);
    }
    cJSON *arr = cJSON_AddArrayToObject(root, "kernels");
    int rc = 0;
    if (one) {
        int have_attrs;
        sl_model m;
        if (predict(&hw, op, one, have_gpu, dt, &shape, cold, &m, &have_attrs) != SL_OK) {
            fprintf(stderr, "streamlab explain: %s\n", sl_last_error());
            rc = EXIT_USAGE;
        } else {
            const sl_traffic tr = sl_variant_traffic(op, one, &shape, dt);
            sl_format_bytes(tr.rd_bytes + tr.wr_bytes, bytes_s, sizeof bytes_s);
            printf("\nkernel: %s (%s): %s; %d array%s read, %d written; %.4g B and %.4g flop%s per element; %s "
                   "moved\n",
                   one->name, one->technique, op->formula, tr.rd_streams, tr.rd_streams == 1 ? "" : "s", tr.wr_streams,
                   (tr.rd_bytes + tr.wr_bytes) / (double)n, sl_variant_flops(op, one, &shape) / (double)n,
                   sl_variant_flops(op, one, &shape) == (double)n ? "" : "s", bytes_s);
            print_detail(op, one, dt, &shape, &m, have_attrs);
            cJSON_AddItemToArray(arr, model_json(one, &m));
        }
    } else {
        static const sl_col cols[] = {{"variant", 12, 'l'}, {"pred ms", 11, 'r'},      {"GB/s", 9, 'r'},
                                      {"limiter", 10, 'l'}, {"lat.eff", 8, 'r'},      {"in flight/SM", 12, 'r'},
                                      {"next", 0, 'l'}};
        printf("\n");
        sl_table t;
        sl_table_open(&t, cols, 7, stdout, NULL);
        for (int i = 0; i < op->nvariants; i++) {
            const sl_variant *v = &op->variants[i];
            if (v->backend != SL_BACKEND_CUDA || !sl_variant_supports(op, v, dt))
                continue;
            int have_attrs;
            sl_model m;
            if (predict(&hw, op, v, have_gpu, dt, &shape, cold, &m, &have_attrs) != SL_OK) {
                fprintf(stderr, "streamlab explain: %s\n", sl_last_error());
                rc = EXIT_USAGE;
                break;
            }
            const sl_traffic tr = sl_variant_traffic(op, v, &shape, dt);
            char eff[16] = "-", bif[32] = "-", pred[24], gbs[24];
            if (m.latency_eff >= 0) {
                snprintf(eff, sizeof eff, "%.0f%%", 100 * m.latency_eff);
                sl_format_bytes(m.bif_per_sm, bif, sizeof bif);
            }
            snprintf(pred, sizeof pred, "%.4f", m.pred_ms);
            snprintf(gbs, sizeof gbs, "%.0f", (tr.rd_bytes + tr.wr_bytes) / (m.pred_ms * 1e6));
            char lines[4][256];
            int k = sl_model_advice(op, v, dt, &m, lines, 4);
            const char *next = k ? strstr(lines[k - 1], "removed: ") : NULL;
            const char *cells[] = {v->name, pred, gbs, sl_bound_short(m.limiter), eff, bif, next ? next + 9 : ""};
            sl_table_row(&t, cells);
            cJSON_AddItemToArray(arr, model_json(v, &m));
        }
        printf("\n`--variant NAME` prints one kernel's full table and what would move its limiter.\n");
    }
    if (op->explain && rc == 0) {
        /* the op's own section, from the same device as the table above */
        char src[700];
        snprintf(src, sizeof src, "%s: SMs, clock, FP32 lanes, DRAM and L2 as listed above", hw_source);
        const sl_op_hw ohw = {.name = hw.name,
                              .cc = hw.cc,
                              .sm_count = hw.p[HW_SM_COUNT].v,
                              .sm_clock_ghz = hw.p[HW_SM_CLOCK_GHZ].v,
                              .fp32_lanes_per_sm = hw.p[HW_FP32_LANES_PER_SM].v,
                              .dram_gbs = hw.p[HW_PEAK_DRAM_GBS].v,
                              .l2_gbs = hw.p[HW_L2_GBS].v,
                              .smem_bytes_per_clk_per_sm = hw.p[HW_SMEM_BANKS].v * hw.p[HW_SMEM_BANK_BYTES].v,
                              .source = src};
        op->explain(stdout, &shape, dt, &ohw);
    }
    if (json && rc == 0) {
        char *text = cJSON_Print(root);
        if (!text || sl_output_replace(&json_out, text) != SL_OK) {
            fprintf(stderr, "streamlab explain: %s\n", sl_last_error());
            rc = EXIT_RUN_FAILED;
        }
        free(text);
    }
    if (json)
        sl_output_close(&json_out);
    cJSON_Delete(root);
    sl_ctx_destroy(ctx);
    return rc;
}
