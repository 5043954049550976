/*
 * cmd_report.c - `streamlab report`: results files into one self-contained
 * HTML page of gnuplot figures (src/lab/report/html_report.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "html_report.h"
#include "internal.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f, "usage: streamlab report FILE.json [FILE.json ...] -o REPORT.html\n"
               "\n"
               "Turn results files into one self-contained HTML page (inline SVG, nothing loaded\n"
               "from elsewhere), every figure drawn by gnuplot:\n"
               "  from `streamlab run` JSON results: GB/s vs size per op, dtype and variant, with\n"
               "    the theoretical peak, the copy ceiling and the L2 size marked; a ladder bar\n"
               "    chart per op at the largest size, with x peer, %% of peak and the model's\n"
               "    prediction; a roofline per GPU; the CPU vs GPU table of a run over both;\n"
               "  from `streamlab probe` JSON profiles: the latency staircase, bandwidth vs\n"
               "    bytes in flight with the knee, the offset and stride copy curves, the bank-\n"
               "    conflict sweep, L1 bandwidth, the constant cache and warp divergence (the\n"
               "    profile's copy ceiling and L2 bandwidth also go into the run figures);\n"
               "  from every file: its reproducibility record and command line.\n"
               "\n"
               "options:\n"
               "  -o, --output FILE  the page to write (required); - is standard output. A device\n"
               "                     or FIFO is written in place, a symbolic link's target is\n"
               "                     replaced, and an existing file is replaced only if streamlab\n"
               "                     report wrote it\n"
               "  -h, --help         this help\n"
               "\n"
               "Needs gnuplot 5 (Debian: gnuplot-nox; scripts/deps.sh installs it), found on PATH\n"
               "or named by $STREAMLAB_GNUPLOT.\n"
               "exit codes: 0 ok, 1 gnuplot missing or failing, or the page could not be written,\n"
               "2 usage error (bad flag, no input, an input that cannot be read or is not a\n"
               "streamlab run or profile file, an output that cannot be written)\n");
}

int cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    /* the command line as typed, before getopt reorders argv */
    char cmdline[4096];
    size_t used = (size_t)snprintf(cmdline, sizeof cmdline, "streamlab");
    for (int i = 0; i < argc && used < sizeof cmdline; i++)
        used += (size_t)snprintf(cmdline + used, sizeof cmdline - used, " %s", argv[i]);
    const char *out = NULL;
    opterr = 0;
    optind = 1;
    int c;
    cli_once once = {0};
    char once_msg[512];
    while ((c = getopt_long(argc, argv, ":ho:", opts, NULL)) != -1) {
        if (cli_once_twice(&once, opts, c, optarg, once_msg, sizeof once_msg))
            return cli_usage_error("report", "%s", once_msg);
        switch (c) {
        case 'o': out = optarg; break;
        case 'h': help(stdout); return 0;
        case ':': return cli_usage_error("report", "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error("report", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind >= argc)
        return cli_usage_error("report", "no results file given (streamlab run --json FILE or probe --json FILE)");
    if (!out)
        return cli_usage_error("report", "-o REPORT.html is required");
    const char *paths[] = {out};
    cli_data_to_stdout(paths, 1);
    sl_html_opts o = {.inputs = (const char *const *)(argv + optind),
                      .ninputs = argc - optind,
                      .out_path = out,
                      .command_line = cmdline};
    sl_html_stage stage;
    int nfig = 0;
    if (sl_html_report(&o, &stage, &nfig) != SL_OK) {
        if (stage == SL_HTML_INPUT || stage == SL_HTML_OUTPUT)
            return cli_usage_error("report", "%s", sl_last_error());
        fprintf(stderr, "streamlab report: %s\n", sl_last_error());
        return EXIT_RUN_FAILED;
    }
    fprintf(strcmp(out, "-") == 0 ? stderr : stdout, "streamlab report: %d figures in %s\n", nfig, out);
    return 0;
}
