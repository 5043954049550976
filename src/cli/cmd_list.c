/*
 * cmd_list.c - `streamlab list`: every op's variants, as the seed's "Kernels
 * Implemented" table, with what the compiler and occupancy API report.
 */
#include "cli.h"

#include "internal.h"
#include "table.h"

#include <stdio.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f, "usage: streamlab list [-d|--device N|cpu]\n"
               "\n"
               "Print every op (formula, dtypes, numerics, source) and every variant of its\n"
               "ladder: backend, name, kind, technique, bytes moved per f32 element (the op's\n"
               "descriptor), loads in flight per thread, the dtypes it runs, the source, and for\n"
               "CUDA kernels the registers per thread, local memory (spills) and resident blocks\n"
               "per SM of the f32 kernel (cudaFuncGetAttributes and the occupancy API; needs a GPU).\n"
               "The 'api' rows are what the public functions (sl_add, sl_triad, ...) call.\n"
               "\n"
               "options:\n"
               "  -d, --device N|cpu  CUDA device index, cpu or auto (default: GPU 0 if present)\n"
               "  -h, --help          this help\n"
               "\n"
               "exit codes: 0 ok, 1 the device could not be opened, 2 usage error (bad flag or device)\n");
}

int cmd_list(int argc, char **argv)
{
    int device = SL_DEVICE_AUTO;
    int rc = cli_device_only("list", argc, argv, help, &device);
    if (rc >= 0)
        return rc;
    sl_ctx *ctx = NULL;
    rc = cli_open_ctx("list", device, &ctx);
    if (rc)
        return rc;
    const int on_gpu = ctx->info.backend == SL_BACKEND_CUDA;
    /* dtypes as initials, in sl_dtype order: 3 f32, h f16, b bf16, 4 e4m3, 5 e5m2, d f64 */
    static const char tag[SL_DTYPE_COUNT + 1] = "3hb45d";

    printf("ops (src/ops/ops.def):\n");
    static const sl_col ocols[] = {{"op", 8, 'l'},      {"formula", 16, 'l'}, {"dtypes", 38, 'l'},
                                   {"source", 50, 'l'}, {"numerics", 0, 'l'}};
    sl_table ot;
    sl_table_open(&ot, ocols, 5, stdout, NULL);
    for (int i = 0; i < sl_op_count(); i++) {
        const sl_op_desc *op = sl_op_at(i);
        char dts[96];
        sl_op_dtype_list(op, dts, sizeof dts);
        const char *cells[] = {op->name, op->formula, dts, op->source, op->numerics};
        sl_table_row(&ot, cells);
        if (op->rank == 2 && op->default_shapes) {
            char note[256];
            snprintf(note, sizeof note, "2-D: --shape ROWSxCOLS; default shapes %s", op->default_shapes);
            sl_table_note(&ot, note);
        }
    }
    printf("\nvariants:\n");
    static const sl_col cols[] = {{"back", 4, 'l'},      {"op", 7, 'l'},      {"name", 13, 'l'},
                                  {"kind", 7, 'l'},      {"technique", 70, 'l'}, {"B/el", 4, 'r'},
                                  {"in flight", 9, 'r'}, {"regs", 4, 'r'},    {"local", 5, 'r'},
                                  {"blk/SM", 7, 'r'},    {"dtypes", 6, 'l'},  {"source", 0, 'l'}};
    sl_table t;
    sl_table_open(&t, cols, (int)(sizeof cols / sizeof cols[0]), stdout, NULL);
    for (int i = 0; i < sl_op_count(); i++) {
        const sl_op_desc *op = sl_op_at(i);
        for (int k = 0; k < op->nvariants; k++) {
            const sl_variant *v = &op->variants[k];
            char regs[16] = "-", local[16] = "-", occ[16] = "-", flight[24] = "-", bpe[16], dts[8] = "",
                 src[160];
            sl_kernel_attrs a;
            if (v->attrs && on_gpu && v->attrs(SL_F32, &a) == SL_OK) {
                snprintf(regs, sizeof regs, "%d", a.regs);
                snprintf(local, sizeof local, "%d", a.local_bytes);
                snprintf(occ, sizeof occ, "%dx%d", a.blocks_per_sm, a.block);
            }
            sl_shape one = sl_shape_1d(1);
            sl_traffic tr = sl_variant_traffic(op, v, &one, SL_F32);
            if (v->loads_in_flight && v->access_bytes)
                snprintf(flight, sizeof flight, "%dx%dB", v->loads_in_flight * tr.rd_streams, v->access_bytes);
            snprintf(bpe, sizeof bpe, "%.0f", sl_variant_bytes_per_elem(op, v, SL_F32));
            for (int d = 0; d < SL_DTYPE_COUNT; d++)
                dts[d] = sl_variant_supports(op, v, (sl_dtype)d) ? tag[d] : '.';
            dts[SL_DTYPE_COUNT] = 0;
            if (v->ulps)
                snprintf(src, sizeof src, "%s (checked to %d ulp)", v->source, v->ulps);
            else
                snprintf(src, sizeof src, "%s", v->source);
            const char *cells[] = {v->backend == SL_BACKEND_CUDA ? "cuda" : "cpu",
                                   op->name, v->name, sl_kind_name(v->kind), v->technique, bpe, flight, regs, local,
                                   occ, dts, src};
            sl_table_row(&t, cells);
        }
    }
    if (!on_gpu)
        printf("\nregisters, local memory and blocks per SM need a GPU: none is in use here.\n");
    printf("\n'in flight' = independent loads per thread (all inputs) x bytes per load, before the first use.\n"
           "dtypes: 3 f32, h f16, b bf16, 4 fp8e4m3, 5 fp8e5m2, d f64 (. = no kernel).\n");
    sl_ctx_destroy(ctx);
    return 0;
}
