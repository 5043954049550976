/*
 * run_common.c - what `streamlab run` does the same way in one process
 * (cmd_run.c) and under MPI (cmd_run_mpi.c): the options both take, read in
 * one loop, the usage messages, the command line and the seed recorded in
 * the results files. Each mode adds its own options through cli_run_mode.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "rng.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The codes of the shared options; a mode's own start at CLI_RUN_OPT_MODE. */
enum { OPT_SIZES = 256, OPT_VARIANTS, OPT_TRIALS, OPT_WARMUP, OPT_DEVICE, OPT_COLD, OPT_OP, OPT_DTYPE, OPT_SEED,
       OPT_JSON, OPT_MD, OPT_QUIET, OPT_SCALAR, OPT_TIMER, OPT_END };
_Static_assert((int)OPT_END <= (int)CLI_RUN_OPT_MODE, "a mode's option codes start past the shared ones");

static const struct option common_opts[] = {
    {"sizes", required_argument, 0, OPT_SIZES},   {"variants", required_argument, 0, OPT_VARIANTS},
    {"trials", required_argument, 0, OPT_TRIALS}, {"warmup", required_argument, 0, OPT_WARMUP},
    {"device", required_argument, 0, OPT_DEVICE}, {"devices", required_argument, 0, OPT_DEVICE},
    {"cold", no_argument, 0, OPT_COLD},           {"op", required_argument, 0, OPT_OP},
    {"dtype", required_argument, 0, OPT_DTYPE},   {"seed", required_argument, 0, OPT_SEED},
    {"json", required_argument, 0, OPT_JSON},     {"md", required_argument, 0, OPT_MD},
    {"quiet", no_argument, 0, OPT_QUIET},         {"alpha", required_argument, 0, OPT_SCALAR},
    {"scalar", required_argument, 0, OPT_SCALAR}, {"timer", required_argument, 0, OPT_TIMER},
    {"help", no_argument, 0, 'h'}};
#define NCOMMON ((int)(sizeof common_opts / sizeof common_opts[0]))
#define MAX_OPTS 64

static int vusage(const cli_run_mode *mode, const char *fmt, va_list ap)
{
    if (mode->speak) {
        fprintf(stderr, "streamlab %s: ", mode->who);
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\nTry 'streamlab run --help'%s.\n", mode->hint_note);
    }
    return EXIT_USAGE;
}

int cli_run_usage(const cli_run_mode *mode, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vusage(mode, fmt, ap);
    va_end(ap);
    return rc;
}

/* One of the shared options. Returns 0 or the exit code (message printed). */
static int common_option(const cli_run_mode *mode, int c, const char *arg, const char *spelled, cli_run_opts *o)
{
    switch (c) {
    case 's':
    case OPT_SIZES:
        o->sizes_arg = arg;
        o->have_sizes = 1;
        break;
    case OPT_VARIANTS: o->variants_arg = arg; break;
    case 'n':
    case OPT_TRIALS:
        if (cli_parse_int(arg, 1, mode->max_trials, &o->trials))
            return cli_run_usage(mode, "--trials wants an integer from 1 to %d%s, not '%s'", mode->max_trials,
                                 mode->trials_note, arg);
        break;
    case OPT_WARMUP:
        if (cli_parse_int(arg, 0, 1000000, &o->warmup))
            return cli_run_usage(mode, "--warmup wants an integer from 0 to 1000000, not '%s'", arg);
        break;
    case 'd':
    case OPT_DEVICE: o->device_arg = arg; break;
    case OPT_COLD: o->cold = 1; break;
    case 'o':
    case OPT_OP: o->op_arg = arg; break;
    case OPT_DTYPE: o->dtype_arg = arg; break;
    case OPT_JSON: o->json_path = arg; break;
    case OPT_MD: o->md_path = arg; break;
    case OPT_QUIET: o->quiet = 1; break;
    case OPT_SCALAR: {
        char *end;
        double a = strtod(arg, &end);
        if (!*arg || *end || !(a == a) || a > 3.4e38 || a < -3.4e38)
            /* the flag as spelled (--scalar or --alpha) where the mode says
             * so, whether its value came as the next argument or after '=' */
            return cli_run_usage(mode, "--%s wants a finite number, not '%s'",
                                 mode->scalar_as_spelled ? spelled : "scalar", arg);
        o->scalar = a;
        o->have_scalar = 1;
        break;
    }
    case OPT_TIMER:
        if (strcmp(arg, "event") == 0)
            o->timer = SL_TIMER_EVENT;
        else if (strcmp(arg, "wall") == 0)
            o->timer = SL_TIMER_WALL;
        else
            return cli_run_usage(mode, "--timer wants event or wall, not '%s'", arg);
        break;
    case OPT_SEED: {
        char *end;
        errno = 0;
        o->seed = strtoull(arg, &end, 0);
        if (!*arg || *end || errno || arg[0] == '-')
            return cli_run_usage(mode, "--seed wants an integer from 0 to 2^64-1, not '%s'", arg);
        o->have_seed = 1;
        break;
    }
    default: return -1;
    }
    return 0;
}

int cli_run_parse(const cli_run_mode *mode, int argc, char **argv, cli_run_opts *o)
{
    *o = (cli_run_opts){.op_arg = "add", .sizes_arg = CLI_RUN_DEFAULT_SIZES, .dtype_arg = "f32",
                        .device_arg = mode->default_device, .trials = 10, .warmup = 5, .timer = SL_TIMER_EVENT};
    /* The shared options, then the mode's own. */
    struct option opts[MAX_OPTS];
    int n = 0;
    for (int i = 0; i < NCOMMON; i++)
        opts[n++] = common_opts[i];
    for (const struct option *e = mode->extra; e && e->name && n < MAX_OPTS - 1; e++)
        opts[n++] = *e;
    opts[n] = (struct option){0, 0, 0, 0};

    opterr = 0;
    optind = 1;
    int c, li = -1;
    /* an option with a value comes once (cli_once_twice): the short aliases are their long options */
    static const int aliases[] = {'s', OPT_SIZES, 'n', OPT_TRIALS, 'd', OPT_DEVICE, 'o', OPT_OP, 0};
    int lists[MAX_OPTS] = {OPT_OP, OPT_SIZES, OPT_DTYPE, OPT_VARIANTS, OPT_DEVICE}, nl = 5;
    for (const int *e = mode->extra_lists; e && *e && nl < MAX_OPTS - 1; e++)
        lists[nl++] = *e;
    lists[nl] = 0;
    cli_once once = {.aliases = aliases, .lists = lists};
    char msg[512];
    while ((li = -1, c = getopt_long(argc, argv, ":hs:d:n:o:", opts, &li)) != -1) {
        const char *spelled = li >= 0 ? opts[li].name : "";
        int rc;
        if (c == 'h') {
            if (mode->speak)
                mode->help(stdout);
            return CLI_RUN_HELP;
        }
        if (c == ':')
            return cli_run_usage(mode, "option '%s' needs a value", argv[optind - 1]);
        if (cli_once_twice(&once, opts, c, optarg, msg, sizeof msg))
            return cli_run_usage(mode, "%s", msg);
        if (c >= CLI_RUN_OPT_MODE && mode->option) {
            if ((rc = mode->option(mode->user, c, optarg)) != 0)
                return rc;
            continue;
        }
        if ((rc = common_option(mode, c, optarg, spelled, o)) < 0)
            return cli_run_usage(mode, "unknown option '%s'%s", argv[optind - 1], mode->unknown_note);
        if (rc)
            return rc;
    }
    if (optind < argc)
        return cli_run_usage(mode, "unexpected argument '%s'", argv[optind]);
    return 0;
}

void cli_run_cmdline(const char *prefix, int argc, char **argv, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "%s", prefix);
    for (int i = 0; i < argc && used < len; i++)
        used += (size_t)snprintf(buf + used, len - used, " %s", argv[i]);
}

uint64_t cli_run_seed(const cli_run_opts *o)
{
    return o->have_seed ? o->seed : sl_mix64((uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32));
}

cli_sweep_opts cli_run_sweep_opts(const cli_run_opts *o, uint64_t seed)
{
    return (cli_sweep_opts){o->have_scalar, o->scalar, o->variants_arg, o->warmup, o->trials, o->cold, o->timer, seed};
}
