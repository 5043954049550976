/*
 * main.c - the streamlab command: dispatch to a subcommand.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "sizes.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: streamlab <command> [options]\n"
            "\n"
            "A lab for memory-bound GPU kernels: every rung of each kernel ladder,\n"
            "verified against a CPU reference and timed beside the copy ceiling and a\n"
            "library peer (CUB, cuBLAS).\n"
            "\n"
            "commands:\n"
            "  run      verify and time an op's ladder (the main job; see run --help)\n"
            "  list     print the kernel registry, with registers per thread\n"
            "  info     print the device and its theoretical peak bandwidth\n"
            "  probe    measure the memory system (ceilings, latency, bytes in flight, ...)\n"
            "  explain  predict a kernel's time and limiter with the bottleneck model\n"
            "  report   results files into one HTML page of gnuplot figures\n"
            "  train    train an MLP on Fashion-MNIST with streamlab's kernels\n"
            "  help     print this help, or a command's: streamlab help run\n"
            "  version  print the version\n"
            "\n"
            "exit codes: 0 ok, 1 a run failed (wrong result, CUDA fault, a write\n"
            "            failing mid-run), 2 usage error (bad flag, size, variant or\n"
            "            device; a size that does not fit; an input file that cannot be\n"
            "            read; an output file that cannot be written), 130 interrupted\n"
            "            (run); each command's --help says which it uses\n");
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "streamlab%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nTry 'streamlab %s%s--help'.\n", cmd ? cmd : "", cmd ? " " : "");
    return EXIT_USAGE;
}

int cli_once_twice(cli_once *o, const struct option *opts, int c, const char *value, char *msg, size_t len)
{
    if (!value || c == ':' || c == '?')
        return 0;
    for (int i = 0; o->aliases && o->aliases[i]; i += 2)
        if (o->aliases[i] == c) {
            c = o->aliases[i + 1];
            break;
        }
    char name[64];
    snprintf(name, sizeof name, "-%c", c > 32 && c < 127 ? c : '?');
    for (int i = 0; opts[i].name; i++) /* the first long name of the code (--device for --devices) */
        if (opts[i].val == c) {
            snprintf(name, sizeof name, "--%s", opts[i].name);
            break;
        }
    int list = 0;
    for (int i = 0; o->lists && o->lists[i]; i++)
        list |= o->lists[i] == c;
    for (int i = 0; i < o->n; i++)
        if (o->code[i] == c) {
            if (list)
                snprintf(msg, len, "%s given twice ('%s', then '%s'): give it once, as a list: %s %s,%s", name,
                         o->value[i], value, name, o->value[i], value);
            else
                snprintf(msg, len, "%s given twice ('%s', then '%s'): give it once", name, o->value[i], value);
            return 1;
        }
    if (o->n < (int)(sizeof o->code / sizeof o->code[0])) {
        o->code[o->n] = c;
        o->value[o->n++] = value;
    }
    return 0;
}

int cli_parse_int(const char *s, int lo, int hi, int *out)
{
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < lo || v > hi)
        return -1;
    *out = (int)v;
    return 0;
}

int cli_device_only(const char *cmd, int argc, char **argv, void (*help)(FILE *), int *device)
{
    static const struct option opts[] = {
        {"device", required_argument, 0, 'd'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    cli_once once = {0};
    char msg[512];
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, ":hd:", opts, NULL)) != -1) {
        if (cli_once_twice(&once, opts, c, optarg, msg, sizeof msg))
            return cli_usage_error(cmd, "%s", msg);
        switch (c) {
        case 'd':
            if (cli_parse_device(optarg, device))
                return cli_usage_error(cmd, "--device wants a CUDA index, 'cpu' or 'auto', not '%s'", optarg);
            break;
        case 'h': help(stdout); return 0;
        case ':': return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    return -1;
}

void cli_data_to_stdout(const char *const *paths, int npaths)
{
    int any = 0;
    for (int i = 0; i < npaths; i++)
        any |= paths[i] && strcmp(paths[i], "-") == 0;
    if (!any)
        return;
    fflush(stdout);
    int data = dup(STDOUT_FILENO);
    if (data < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        return; /* then the data and the text share stdout, as before */
    sl_output_set_stdout_fd(data);
}

int cli_parse_device(const char *s, int *device)
{
    if (strcmp(s, "cpu") == 0) {
        *device = SL_DEVICE_CPU;
        return 0;
    }
    if (strcmp(s, "auto") == 0) {
        *device = SL_DEVICE_AUTO;
        return 0;
    }
    return cli_parse_int(s, 0, INT_MAX, device);
}

int cli_open_ctx(const char *cmd, int device, sl_ctx **ctx)
{
    sl_status st = sl_ctx_create(device, ctx);
    if (st == SL_ERR_NO_DEVICE || st == SL_ERR_BAD_DEVICE) {
        fprintf(stderr, "streamlab %s: %s; use --device cpu for the CPU backend\n", cmd, sl_last_error());
        return EXIT_USAGE;
    }
    if (st != SL_OK) {
        fprintf(stderr, "streamlab %s: cannot open device: %s: %s\n", cmd, sl_status_string(st), sl_last_error());
        return EXIT_RUN_FAILED;
    }
    if (device == SL_DEVICE_AUTO && (*ctx)->info.backend == SL_BACKEND_CPU)
        fprintf(stderr, "streamlab: no usable GPU (%s): running on the CPU backend (%d OpenMP threads)\n",
                (*ctx)->fallback_reason, (*ctx)->info.sm_count);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "list") == 0)
        return cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "info") == 0)
        return cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "probe") == 0)
        return cmd_probe(argc - 1, argv + 1);
    if (strcmp(cmd, "explain") == 0)
        return cmd_explain(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return cmd_report(argc - 1, argv + 1);
    if (strcmp(cmd, "train") == 0)
        return cmd_train(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("streamlab %s\n", SL_VERSION_STRING);
        return 0;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        if (argc > 2 && strcmp(cmd, "help") == 0 && strcmp(argv[2], "--help") != 0 && strcmp(argv[2], "-h") != 0 &&
            strcmp(argv[2], "help") != 0) {
            char *sub[] = {argv[2], "--help", NULL};
            if (strcmp(argv[2], "run") == 0)
                return cmd_run(2, sub);
            if (strcmp(argv[2], "list") == 0)
                return cmd_list(2, sub);
            if (strcmp(argv[2], "info") == 0)
                return cmd_info(2, sub);
            if (strcmp(argv[2], "probe") == 0)
                return cmd_probe(2, sub);
            if (strcmp(argv[2], "explain") == 0)
                return cmd_explain(2, sub);
            if (strcmp(argv[2], "report") == 0)
                return cmd_report(2, sub);
            if (strcmp(argv[2], "train") == 0)
                return cmd_train(2, sub);
            return cli_usage_error(NULL, "no command '%s'", argv[2]);
        }
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "streamlab: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return EXIT_USAGE;
}

static int kind_rank(sl_kind k)
{
    return k == SL_KIND_CEILING ? 0 : k == SL_KIND_PEER ? 1 : 2;
}

int cli_select_variants(const sl_op_desc *op, sl_backend backend, const char *list, const sl_variant **out, int max)
{
    int count = 0;
    const int all = !list || strcmp(list, "all") == 0;
    for (int rank = 0; rank < 3; rank++)
        for (int i = 0; i < op->nvariants && count < max; i++) {
            const sl_variant *v = &op->variants[i];
            if (v->backend == backend && kind_rank(v->kind) == rank &&
                (all || rank < 2 || sl_list_has(list, v->name)))
                out[count++] = v;
        }
    return count;
}

void cli_sweep_config(sl_run_config *c, const sl_op_desc *op, sl_dtype dtype, sl_backend backend,
                      const sl_shape *shapes, int nshapes, const cli_sweep_opts *o, const sl_variant **chosen,
                      int max)
{
    c->op = op;
    c->dtype = dtype;
    for (int k = 0; k < op->nscalars; k++)
        c->scalar[k] = o->have_scalar ? o->scalar : op->scalars[k].dflt;
    c->shapes = shapes;
    c->nshapes = nshapes;
    c->nvariants = cli_select_variants(op, backend, o->variants, chosen, max);
    c->variants = chosen;
    c->warmup = o->warmup;
    c->trials = o->trials;
    c->cold = o->cold;
    c->timer = o->timer;
    c->seed = o->seed;
    /* With every variant, one that has no kernel for a dtype gets no row;
     * one the user named gets a "skip" row saying so. */
    c->quiet_unsupported = !o->variants || strcmp(o->variants, "all") == 0;
}
