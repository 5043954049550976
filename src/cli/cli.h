/*
 * cli.h - what the subcommands share. Exit codes: 0 success, 1 a run that
 * failed (a wrong result, a CUDA fault, a write failing mid-run), 2 a usage
 * error (bad flag, size, variant or device; a size that does not fit; an
 * output file that cannot be created at the start), 130 interrupted.
 */
#ifndef SL_CLI_H
#define SL_CLI_H

#include "harness.h"
#include "op.h"
#include "streamlab.h"

#include <getopt.h>
#include <stdio.h>

enum { EXIT_RUN_FAILED = 1, EXIT_USAGE = 2, EXIT_INTERRUPTED = 130 };

int cmd_run(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_train(int argc, char **argv);

/* Print "streamlab <cmd>: <message>" and a hint to stderr; return 2. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Options with a value are given once: a second --op (--op add --op copy)
 * would silently replace the first. One cli_once per parse, its other
 * fields zero: aliases, pairs (short option, its long option's code) ended
 * by 0, so that -o and --op are one option; lists, the codes of the options
 * that take a comma list, ended by 0, for the message's hint. After each
 * getopt_long, cli_once_twice(&once, opts, c, optarg, msg, sizeof msg) is
 * true, with msg the usage error, when c's option came before with a
 * value. Options without a value may repeat. */
typedef struct cli_once {
    const int *aliases;
    const int *lists;
    int n;
    int code[64];
    const char *value[64];
} cli_once;
int cli_once_twice(cli_once *o, const struct option *opts, int c, const char *value, char *msg, size_t len);

/* Parse --device: "cpu", "auto" or a CUDA index >= 0. Returns 0 or -1. */
int cli_parse_device(const char *s, int *device);

/* Open a context; with SL_DEVICE_AUTO and no usable GPU, say so in one
 * line on stderr. On failure prints the reason and returns the exit code
 * (2 for a bad or missing device), else 0. */
int cli_open_ctx(const char *cmd, int device, sl_ctx **ctx);

/* Parse the options of a command that takes only --device and --help
 * (list, info). Returns -1 to go on, or the exit code (0 after --help). */
int cli_device_only(const char *cmd, int argc, char **argv, void (*help)(FILE *), int *device);

/* When an output file is "-": standard output carries that data alone, so
 * the human-readable text printed to stdout goes to standard error from
 * here on. Call before opening the outputs; no-op unless any path is "-". */
void cli_data_to_stdout(const char *const *paths, int npaths);

/* A device list naming the CPU and GPUs where there is no GPU: the GPUs
 * are dropped with a message (the CPU runs alone). Returns the new count. */
int cli_drop_missing_gpus(const char *cmd, int *ids, int n);

/* Parse a non-negative int option value within [lo, hi]. */
int cli_parse_int(const char *s, int lo, int hi, int *out);

/* The variants of op on backend that `run` runs, into out[0..max): every
 * one, or the names in list (ceilings and peers always: every ratio needs
 * them), ceilings first, then peers, then the rest in table order. Returns
 * the count. */
int cli_select_variants(const sl_op_desc *op, sl_backend backend, const char *list, const sl_variant **out, int max);

/* The options of `streamlab run` that every sweep shares, in one process
 * (cmd_run.c) and under MPI (cmd_run_mpi.c). */
typedef struct cli_sweep_opts {
    int have_scalar;      /* --scalar / --alpha given: scalar for every op's scalars, else each one's default */
    double scalar;
    const char *variants; /* --variants; NULL or "all": every variant, and no "skip" rows */
    int warmup, trials, cold;
    sl_timer timer;
    uint64_t seed;
} cli_sweep_opts;

/* Fills the config of one sweep (harness.h) of op in dtype on backend over
 * shapes[0..nshapes): its scalars, variants (cli_select_variants, into
 * chosen[0..max)), warm-up, trials, cache, timer, seed and whether a variant
 * without a kernel for dtype is left out quietly. The caller sets the rest
 * (its mode's progress, sync, transfer, stopping rule). */
void cli_sweep_config(sl_run_config *c, const sl_op_desc *op, sl_dtype dtype, sl_backend backend,
                      const sl_shape *shapes, int nshapes, const cli_sweep_opts *o, const sl_variant **chosen,
                      int max);

/* ---- `streamlab run`, shared by its two modes (run_common.c) ---- */

#define CLI_RUN_DEFAULT_SIZES "10M,100M,200M"

/* The options every mode of `run` takes (the defaults in brackets): -o/--op
 * [add], -s/--sizes [CLI_RUN_DEFAULT_SIZES], --dtype [f32], --variants,
 * -d/--device(s) [the mode's], -n/--trials [10], --warmup [5], --cold,
 * --seed [from the clock], --scalar/--alpha, --timer [event], --json, --md,
 * --quiet, -h/--help. */
typedef struct cli_run_opts {
    const char *op_arg, *sizes_arg, *dtype_arg, *variants_arg, *device_arg, *json_path, *md_path;
    int have_sizes, trials, warmup, cold, quiet, have_scalar, have_seed;
    double scalar;
    sl_timer timer;
    uint64_t seed;
} cli_run_opts;

struct option;

/* What differs between the modes: the words of their messages, who speaks
 * (under MPI only rank 0), and their own options (codes from
 * CLI_RUN_OPT_MODE), handled by option(user, code, value), which returns 0
 * or the exit code with the message printed. */
enum { CLI_RUN_OPT_MODE = 512, CLI_RUN_HELP = -1 };
typedef struct cli_run_mode {
    const char *who;            /* "streamlab WHO: message" */
    const char *hint_note;      /* after "Try 'streamlab run --help'" */
    const char *unknown_note;   /* after "unknown option '--x'" */
    const char *trials_note;    /* after "--trials wants an integer from 1 to MAX" */
    const char *default_device; /* --device when not given */
    int max_trials;
    int scalar_as_spelled; /* a bad value names --alpha or --scalar as given (else --scalar) */
    int speak;             /* this process prints help and usage errors */
    void (*help)(FILE *);
    const struct option *extra; /* the mode's own options, ended by a zero entry */
    const int *extra_lists;     /* the codes of those that take a comma list, ended by 0 (cli_once) */
    int (*option)(void *user, int code, const char *value);
    void *user;
} cli_run_mode;

/* Print "streamlab WHO: message" and the hint to stderr (when mode->speak);
 * return 2. */
int cli_run_usage(const cli_run_mode *mode, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Read argv (argv[0] is the command's name) into o: the shared options here,
 * the mode's through mode->option, in the order given. Returns 0,
 * CLI_RUN_HELP after --help (help printed), or the exit code of a usage
 * error (message printed). */
int cli_run_parse(const cli_run_mode *mode, int argc, char **argv, cli_run_opts *o);

/* The command line for the results files: prefix, then every argument. */
void cli_run_cmdline(const char *prefix, int argc, char **argv, char *buf, size_t len);

/* --seed, or one from the clock and the process id. */
uint64_t cli_run_seed(const cli_run_opts *o);

/* The sweep options of o (cli_sweep_config) with the seed in use. */
cli_sweep_opts cli_run_sweep_opts(const cli_run_opts *o, uint64_t seed);

#endif /* SL_CLI_H */
