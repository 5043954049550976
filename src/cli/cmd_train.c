/*
 * cmd_train.c - `streamlab train`: an MLP trained with SGD on an IDX data
 * set (Fashion-MNIST by default) with streamlab's kernels (src/train).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include "idx.h"
#include "internal.h"
#include "interrupt.h"
#include "mlp.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_DATA "/usr/share/datasets/fashion-mnist"

static void help(FILE *f)
{
    fprintf(f,
            "usage: streamlab train [options]\n"
            "\n"
            "Train a multi-layer perceptron (ReLU hidden layers, softmax +\n"
            "cross-entropy, He initialisation, plain SGD) on an IDX image set with\n"
            "streamlab's own kernels: sl_gemm for the layers, elementwise, softmax and\n"
            "reduction kernels for the rest (docs/training.md). Per epoch, on stderr:\n"
            "the mean training loss, training and test accuracy, and the epoch time.\n"
            "\n"
            "options:\n"
            "  --data DIR        the IDX files {train,t10k}-{images-idx3,labels-idx1}-ubyte[.gz]\n"
            "                    (default " DEFAULT_DATA ", Debian's\n"
            "                    dataset-fashion-mnist; MNIST works too)\n"
            "  --layers LIST     layer widths, input first, classes last (default 784-300-100-10;\n"
            "                    '-' or ',' between them; 2 to 9 widths)\n"
            "  --epochs N        passes over the training set (default 10)\n"
            "  --batch N         samples per SGD step (default 64)\n"
            "  --lr X            learning rate (default 0.1)\n"
            "  --lr-decay D      linear (default: epoch e of E at lr x (E - e + 1) / E) or\n"
            "                    none (a constant rate)\n"
            "  --seed N          initialisation and shuffling seed (default 1)\n"
            "  --backend B       cuda or cpu (default cuda when a GPU is usable, else cpu)\n"
            "  --device N        CUDA device index (default 0)\n"
            "  --fusion F        none (one kernel per step) or fused (bias+ReLU epilogue,\n"
            "                    softmax+cross-entropy+gradient, ReLU mask+bias gradient,\n"
            "                    one SGD launch for all parameters; default fused)\n"
            "  --graph           capture the training step once as a CUDA graph and replay it\n"
            "  --gemm G          sl (sl_gemm, default) or cublas (cublasSgemm, for comparison)\n"
            "  --limit N         train on the first N training samples only\n"
            "  --test-limit N    evaluate on the first N test samples only\n"
            "  --json FILE       write the configuration and per-epoch record as JSON\n"
            "  --breakdown       after training, time each launch of one step (CUDA): the step\n"
            "                    captured with an event after each launch, replayed 200 times\n"
            "  --help            print this help\n"
            "\n"
            "exit codes: 0 done, 1 a failure while training (CUDA fault, non-finite\n"
            "            loss), 2 usage error (bad flag, missing or malformed data files,\n"
            "            an output file that cannot be written), 130 interrupted (SIGINT,\n"
            "            SIGTERM: --json keeps the epochs finished, \"status\": \"interrupted\")\n");
}

static int parse_layers(const char *s, mlp_config *c)
{
    char buf[256];
    if (strlen(s) >= sizeof buf)
        return -1;
    strcpy(buf, s);
    int n = 0;
    for (char *save = NULL, *t = strtok_r(buf, "-,", &save); t; t = strtok_r(NULL, "-,", &save)) {
        if (n > MLP_MAX_LAYERS)
            return -1;
        if (cli_parse_int(t, 1, 1 << 16, &c->sizes[n]) != 0)
            return -1;
        n++;
    }
    if (n < 2)
        return -1;
    c->nlayers = n - 1;
    return 0;
}

static int parse_float(const char *s, float *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || *end || !(v > 0) || v > 1e3)
        return -1;
    *out = (float)v;
    return 0;
}

typedef struct progress {
    int tty, epoch, epochs;
} progress;

/* A two-way switch: 0 for `off`, 1 for `on`, -1 for anything else. */
static int parse_switch(const char *s, const char *off, const char *on)
{
    return strcmp(s, off) == 0 ? 0 : strcmp(s, on) == 0 ? 1 : -1;
}

/* The progress bar (on a terminal), and the stop: false after SIGINT or
 * SIGTERM (interrupt.h), which ends the epoch at the next 16 steps. */
static bool on_progress(void *arg, size_t done, size_t total)
{
    progress *p = arg;
    if (sl_interrupted())
        return false;
    if (!p->tty)
        return true;
    const int w = 30, fill = (int)((double)w * (double)done / (double)total);
    fprintf(stderr, "\repoch %d/%d [", p->epoch, p->epochs);
    for (int i = 0; i < w; i++)
        fputc(i < fill ? '#' : '.', stderr);
    fprintf(stderr, "] %zu/%zu steps", done, total);
    fflush(stderr);
    return true;
}

int cmd_train(int argc, char **argv)
{
    static const struct option opts[] = {{"data", required_argument, 0, 'D'},   {"layers", required_argument, 0, 'L'},
                                         {"epochs", required_argument, 0, 'e'}, {"batch", required_argument, 0, 'b'},
                                         {"lr", required_argument, 0, 'r'},     {"seed", required_argument, 0, 's'},
                                         {"backend", required_argument, 0, 'B'},
                                         {"device", required_argument, 0, 'd'},
                                         {"fusion", required_argument, 0, 'f'}, {"graph", no_argument, 0, 'g'},
                                         {"gemm", required_argument, 0, 'G'},   {"limit", required_argument, 0, 'l'},
                                         {"test-limit", required_argument, 0, 't'},
                                         {"json", required_argument, 0, 'j'},   {"help", no_argument, 0, 'h'},
                                         {"lr-decay", required_argument, 0, 'y'},
                                         {"breakdown", no_argument, 0, 'k'},
                                         {0, 0, 0, 0}};
    const char *cmd = "train", *data = DEFAULT_DATA, *json = NULL, *backend = NULL;
    mlp_config cfg = {.nlayers = 3, .sizes = {784, 300, 100, 10}, .batch = 64, .lr = 0.1f, .seed = 1, .fused = 1};
    int epochs = 10, device = 0, limit = 0, test_limit = 0, seed = 1, decay = 1, breakdown = 0;
    int c;
    opterr = 0;
    optind = 1;
    cli_once once = {0};
    char once_msg[512];
    while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
        if (cli_once_twice(&once, opts, c, optarg, once_msg, sizeof once_msg))
            return cli_usage_error(cmd, "%s", once_msg);
        switch (c) {
        case 'D': data = optarg; break;
        case 'L':
            if (parse_layers(optarg, &cfg) != 0)
                return cli_usage_error(cmd, "--layers wants 2 to %d widths in 1..65536 joined by '-' or ',' "
                                            "(784-300-100-10), not '%s'", MLP_MAX_LAYERS + 1, optarg);
            break;
        case 'e':
            if (cli_parse_int(optarg, 1, 100000, &epochs) != 0)
                return cli_usage_error(cmd, "--epochs wants an integer in 1..100000, not '%s'", optarg);
            break;
        case 'b':
            if (cli_parse_int(optarg, 1, 65536, &cfg.batch) != 0)
                return cli_usage_error(cmd, "--batch wants an integer in 1..65536, not '%s'", optarg);
            break;
        case 'r':
            if (parse_float(optarg, &cfg.lr) != 0)
                return cli_usage_error(cmd, "--lr wants a number in (0, 1000], not '%s'", optarg);
            break;
        case 's':
            if (cli_parse_int(optarg, 0, INT_MAX, &seed) != 0)
                return cli_usage_error(cmd, "--seed wants a non-negative integer, not '%s'", optarg);
            cfg.seed = (uint64_t)seed;
            break;
        case 'B':
            if (strcmp(optarg, "cuda") != 0 && strcmp(optarg, "cpu") != 0)
                return cli_usage_error(cmd, "--backend wants 'cuda' or 'cpu', not '%s'", optarg);
            backend = optarg;
            break;
        case 'd':
            if (cli_parse_int(optarg, 0, INT_MAX, &device) != 0)
                return cli_usage_error(cmd, "--device wants a CUDA index >= 0, not '%s'", optarg);
            break;
        case 'f':
            if ((cfg.fused = parse_switch(optarg, "none", "fused")) < 0)
                return cli_usage_error(cmd, "--fusion wants 'none' or 'fused', not '%s'", optarg);
            break;
        case 'g': cfg.graph = 1; break;
        case 'k': breakdown = 1; break;
        case 'G':
            if ((cfg.cublas = parse_switch(optarg, "sl", "cublas")) < 0)
                return cli_usage_error(cmd, "--gemm wants 'sl' or 'cublas', not '%s'", optarg);
            break;
        case 'l':
            if (cli_parse_int(optarg, 1, INT_MAX, &limit) != 0)
                return cli_usage_error(cmd, "--limit wants a sample count >= 1, not '%s'", optarg);
            break;
        case 't':
            if (cli_parse_int(optarg, 1, INT_MAX, &test_limit) != 0)
                return cli_usage_error(cmd, "--test-limit wants a sample count >= 1, not '%s'", optarg);
            break;
        case 'j': json = optarg; break;
        case 'y':
            if ((decay = parse_switch(optarg, "none", "linear")) < 0)
                return cli_usage_error(cmd, "--lr-decay wants 'none' or 'linear', not '%s'", optarg);
            break;
        case 'h': help(stdout); return 0;
        case ':': return cli_usage_error(cmd, "option '%s' needs a value", argv[optind - 1]);
        default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
    if (backend && strcmp(backend, "cpu") == 0 && (cfg.graph || cfg.cublas || breakdown))
        return cli_usage_error(cmd, "%s needs the CUDA backend (--backend cuda)",
                               cfg.graph ? "--graph" : cfg.cublas ? "--gemm cublas" : "--breakdown");

    /* SIGINT / SIGTERM (interrupt.h) from here on: training stops within 16
     * steps, the JSON records the epochs that finished, and the exit is 130 */
    sl_interrupt_install();
    /* checked before any work; written once at the end (sl_output: never
     * replaces a file that is not a regular file of ours), with the epochs
     * that finished and the reason when a run fails part way */
    sl_output jout;
    if (json && sl_output_open(&jout, json, "\"streamlab.train/") != SL_OK) {
        fprintf(stderr, "streamlab train: %s\n", sl_last_error());
        return EXIT_USAGE;
    }

    /* the data, checked before any device work */
    char err[512] = "";
    idx_set tr, te;
    const int classes = cfg.sizes[cfg.nlayers];
    if (idx_load_set(data, "train", classes, &tr, err, sizeof err) != 0) {
        fprintf(stderr, "streamlab train: %s\n", err);
        if (strcmp(data, DEFAULT_DATA) == 0 && access(DEFAULT_DATA, F_OK) != 0)
            fprintf(stderr, "streamlab train: Fashion-MNIST is not installed: `sudo apt-get install "
                            "dataset-fashion-mnist` (scripts/deps.sh does it), or give --data DIR with the IDX "
                            "files\n");
        if (json)
            sl_output_close(&jout);
        return EXIT_USAGE;
    }
    if (idx_load_set(data, "t10k", classes, &te, err, sizeof err) != 0) {
        fprintf(stderr, "streamlab train: %s\n", err);
        idx_set_free(&tr);
        if (json)
            sl_output_close(&jout);
        return EXIT_USAGE;
    }
    int rc = EXIT_USAGE;
    sl_ctx *ctx = NULL;
    mlp *m = NULL;
    cJSON *root = NULL;
    bool complete = false, interrupted = false;
    if (tr.dim != (size_t)cfg.sizes[0] || te.dim != tr.dim) {
        fprintf(stderr, "streamlab train: the images have %zu pixels (train) and %zu (test) but --layers starts at %d\n",
                tr.dim, te.dim, cfg.sizes[0]);
        goto out;
    }
    const size_t n = limit && (size_t)limit < tr.count ? (size_t)limit : tr.count;
    const size_t nt = test_limit && (size_t)test_limit < te.count ? (size_t)test_limit : te.count;

    int dev = backend ? (strcmp(backend, "cpu") == 0 ? SL_DEVICE_CPU : device) : SL_DEVICE_AUTO;
    if (!backend && device != 0)
        dev = device;
    if ((rc = cli_open_ctx(cmd, dev, &ctx)) != 0)
        goto out;
    rc = EXIT_RUN_FAILED;
    sl_device_info info;
    sl_ctx_info(ctx, &info);
    if ((cfg.graph || cfg.cublas || breakdown) && info.backend != SL_BACKEND_CUDA) {
        fprintf(stderr, "streamlab train: %s needs the CUDA backend, and this run is on the CPU\n",
                cfg.graph ? "--graph" : cfg.cublas ? "--gemm cublas" : "--breakdown");
        rc = EXIT_USAGE;
        goto out;
    }
    if (mlp_create(ctx, &cfg, 1000, &m, err, sizeof err) != 0 ||
        mlp_set_data(m, tr.x, tr.y, n, te.x, te.y, nt, err, sizeof err) != 0) {
        fprintf(stderr, "streamlab train: %s\n", err);
        goto out;
    }
    const char *bname = info.backend == SL_BACKEND_CUDA ? "cuda" : "cpu";
    fprintf(stderr, "streamlab train: %s (%s), layers", bname, info.name);
    for (int l = 0; l <= cfg.nlayers; l++)
        fprintf(stderr, "%c%d", l ? '-' : ' ', cfg.sizes[l]);
    fprintf(stderr, " (%zu parameters), %zu train / %zu test samples, batch %d, lr %g%s, fusion %s%s, gemm %s\n",
            mlp_param_count(m), n, nt, cfg.batch, (double)cfg.lr, decay ? " (linear decay)" : "", cfg.fused ? "fused" : "none",
            cfg.graph ? ", graph" : "", cfg.cublas ? "cublas" : "sl_gemm");

    root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", "streamlab.train/1");
    cJSON *jc = cJSON_AddObjectToObject(root, "config");
    cJSON_AddStringToObject(jc, "backend", bname);
    cJSON_AddStringToObject(jc, "device", info.name);
    cJSON *jl = cJSON_AddArrayToObject(jc, "layers");
    for (int l = 0; l <= cfg.nlayers; l++)
        cJSON_AddItemToArray(jl, cJSON_CreateNumber(cfg.sizes[l]));
    cJSON_AddNumberToObject(jc, "batch", cfg.batch);
    cJSON_AddNumberToObject(jc, "lr", cfg.lr);
    cJSON_AddStringToObject(jc, "lr_decay", decay ? "linear" : "none");
    cJSON_AddNumberToObject(jc, "epochs", epochs);
    cJSON_AddNumberToObject(jc, "seed", (double)cfg.seed);
    cJSON_AddStringToObject(jc, "fusion", cfg.fused ? "fused" : "none");
    cJSON_AddBoolToObject(jc, "graph", cfg.graph);
    cJSON_AddStringToObject(jc, "gemm", cfg.cublas ? "cublas" : "sl");
    cJSON_AddNumberToObject(jc, "train_samples", (double)n);
    cJSON_AddNumberToObject(jc, "test_samples", (double)nt);
    cJSON_AddStringToObject(jc, "data", data);
    cJSON *je = cJSON_AddArrayToObject(root, "epochs");
    progress pr = {isatty(STDERR_FILENO), 0, epochs};
    double total = 0, best = 1e30, test_acc = 0;
    for (int e = 1; e <= epochs; e++) {
        double loss, acc, sec, tl, ta;
        pr.epoch = e;
        const float lr_e = decay ? cfg.lr * (float)(epochs - e + 1) / (float)epochs : cfg.lr;
        mlp_set_lr(m, lr_e);
        const int trc = sl_interrupted() ? 1 : mlp_train_epoch(m, e, &loss, &acc, &sec, on_progress, &pr, err, sizeof err);
        if (trc == 1) {
            fprintf(stderr, "%sstreamlab train: interrupted by %s in epoch %d; %d epoch%s finished%s%s\n",
                    pr.tty ? "\n" : "", sl_interrupt_cause(), e, e - 1, e == 2 ? "" : "s",
                    json ? ", recorded in " : "", json ? json : "");
            interrupted = true;
            rc = EXIT_INTERRUPTED;
            goto out;
        }
        if (trc != 0 || mlp_evaluate(m, &tl, &ta, err, sizeof err) != 0) {
            fprintf(stderr, "%sstreamlab train: epoch %d: %s\n", pr.tty ? "\n" : "", e, err);
            goto out;
        }
        if (pr.tty)
            fputc('\r', stderr);
        const size_t steps = (n + (size_t)cfg.batch - 1) / (size_t)cfg.batch;
        fprintf(stderr, "epoch %3d  loss %.4f  train acc %.4f  test loss %.4f  test acc %.4f  %.3f s (%.1f us/step)%s\n",
                e, loss, acc, tl, ta, sec, 1e6 * sec / (double)steps, pr.tty ? "          " : "");
        if (!(loss == loss) || loss > 1e30) {
            fprintf(stderr, "streamlab train: the loss is not finite at epoch %d (--lr %g too large?)\n", e,
                    (double)cfg.lr);
            goto out;
        }
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "epoch", e);
        cJSON_AddNumberToObject(o, "lr", lr_e);
        cJSON_AddNumberToObject(o, "loss", loss);
        cJSON_AddNumberToObject(o, "train_acc", acc);
        cJSON_AddNumberToObject(o, "test_loss", tl);
        cJSON_AddNumberToObject(o, "test_acc", ta);
        cJSON_AddNumberToObject(o, "seconds", sec);
        cJSON_AddNumberToObject(o, "us_per_step", 1e6 * sec / (double)steps);
        cJSON_AddItemToArray(je, o);
        total += sec;
        if (e > 1 || epochs == 1)
            best = sec < best ? sec : best;
        test_acc = ta;
    }
    cJSON *js = cJSON_AddObjectToObject(root, "summary");
    cJSON_AddNumberToObject(js, "test_acc", test_acc);
    cJSON_AddNumberToObject(js, "train_seconds", total);
    cJSON_AddNumberToObject(js, "best_epoch_seconds", best);
    cJSON_AddNumberToObject(js, "steps_per_epoch", (double)((n + (size_t)cfg.batch - 1) / (size_t)cfg.batch));
    cJSON_AddNumberToObject(js, "launches_per_step", mlp_launches_per_step(m));
    cJSON_AddNumberToObject(js, "parameters", (double)mlp_param_count(m));
    fprintf(stderr, "streamlab train: test accuracy %.4f after %d epochs; best epoch %.3f s; %d launches per step\n",
            test_acc, epochs, best, mlp_launches_per_step(m));
    if (breakdown) {
        mlp_phase ph[64];
        double graph_us = 0, sum = 0;
        const int np = mlp_breakdown(m, 200, ph, 64, &graph_us, err, sizeof err);
        if (np < 0) { /* the training record stands; the breakdown says why it is missing */
            fprintf(stderr, "streamlab train: --breakdown: %s\n", err);
            cJSON_AddStringToObject(js, "breakdown_error", err);
            rc = EXIT_RUN_FAILED;
        }
        cJSON *jb = cJSON_AddArrayToObject(root, "breakdown");
        fprintf(stderr, "one step, each launch timed inside a captured graph (mean of 200 replays):\n");
        for (int i = 0; i < (np > 0 ? np : 0); i++) {
            fprintf(stderr, "  %2d  %-32s %7.2f us\n", i + 1, ph[i].name, ph[i].us);
            cJSON *o = cJSON_CreateObject();
            cJSON_AddStringToObject(o, "launch", ph[i].name);
            cJSON_AddNumberToObject(o, "us", ph[i].us);
            cJSON_AddItemToArray(jb, o);
            sum += ph[i].us;
        }
        fprintf(stderr, "  sum %.1f us with the events; the same step captured without them: %.1f us per replay\n", sum,
                graph_us);
        cJSON_AddNumberToObject(js, "breakdown_sum_us", sum);
        cJSON_AddNumberToObject(js, "graph_step_us", graph_us);
    }
    if (!(breakdown && rc == EXIT_RUN_FAILED && cJSON_GetObjectItem(js, "breakdown_error")))
        rc = 0;
    complete = true;
out:
    if (json && root) {
        cJSON_AddBoolToObject(root, "complete", complete);
        cJSON_AddStringToObject(root, "status", complete ? "complete" : interrupted ? "interrupted" : "failed");
        if (interrupted)
            cJSON_AddStringToObject(root, "interrupted_by", sl_interrupt_cause());
        char *text = cJSON_Print(root);
        if (!text || sl_output_replace(&jout, text) != SL_OK) {
            fprintf(stderr, "streamlab train: %s\n", text ? sl_last_error() : "out of memory for the JSON record");
            rc = EXIT_RUN_FAILED;
        }
        free(text);
    }
    if (json)
        sl_output_close(&jout);
    cJSON_Delete(root);
    mlp_destroy(m);
    sl_ctx_destroy(ctx);
    idx_set_free(&tr);
    idx_set_free(&te);
    return rc;
}
