/*
 * cmd_list.c - `streamlab list`: the registry, as the seed's "Kernels
 * Implemented" table, with what the compiler and occupancy API report.
 */
#include "cli.h"

#include "../core/internal.h"
#include "../core/registry.h"

#include <stdio.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f, "usage: streamlab list [--device N|cpu]\n"
               "\n"
               "Print every kernel variant in the registry: backend, op, name, kind, technique,\n"
               "bytes moved per f32 element, loads in flight per thread, the dtypes it runs, the\n"
               "seed reference, and for CUDA kernels the registers per thread, local memory\n"
               "(spills) and resident blocks per SM of the f32 kernel (cudaFuncGetAttributes and\n"
               "the occupancy API; needs a GPU).\n"
               "The 'api' rows are what sl_add() and sl_axpy() call.\n");
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
    int on_gpu = ctx->info.backend == SL_BACKEND_CUDA;

    printf("%-5s %-5s %-14s %-8s %-70s %4s %9s %5s %6s %8s %-10s %s\n", "back", "op", "name", "kind", "technique",
           "B/el", "in flight", "regs", "local", "blk/SM", "dtypes", "source");
    for (size_t i = 0; i < sl_registry_count(); i++) {
        const sl_variant *v = sl_registry_at(i);
        char regs[16] = "-", local[16] = "-", occ[16] = "-", flight[24] = "-";
        sl_kernel_attrs a;
        if (v->attrs && on_gpu && v->attrs(SL_F32, &a) == SL_OK) {
            snprintf(regs, sizeof regs, "%d", a.regs);
            snprintf(local, sizeof local, "%d", a.local_bytes);
            snprintf(occ, sizeof occ, "%dx%d", a.blocks_per_sm, a.block);
        }
        if (v->loads_in_flight && v->access_bytes)
            snprintf(flight, sizeof flight, "%dx%dB", v->loads_in_flight * v->reads, v->access_bytes);
        /* dtypes as initials: 3 = f32, h = f16, b = bf16, 4 = e4m3, 5 = e5m2 */
        char dts[8] = "";
        const char *tag = "3hb45";
        for (int d = 0, k = 0; d < SL_DTYPE_COUNT; d++)
            dts[k] = sl_variant_supports(v, (sl_dtype)d) ? tag[d] : '.', dts[++k] = 0;
        char tol[24] = "";
        if (v->ulp_tolerance)
            snprintf(tol, sizeof tol, " (checked to %d ulp)", v->ulp_tolerance);
        printf("%-5s %-5s %-14s %-8s %-70s %4zu %9s %5s %6s %8s %-10s %s%s\n",
               v->backend == SL_BACKEND_CUDA ? "cuda" : "cpu", sl_op_name(v->op), v->name, sl_kind_name(v->kind),
               v->technique, sl_variant_bytes_per_elem(v, SL_F32), flight, regs, local, occ, dts, v->seed, tol);
    }
    if (!on_gpu)
        printf("\nregisters, local memory and blocks per SM need a GPU: none is in use here.\n");
    printf("\n'in flight' = independent loads per thread (all inputs) x bytes per load, before the first add.\n"
           "dtypes: 3 f32, h f16, b bf16, 4 fp8e4m3, 5 fp8e5m2 (. = no kernel).\n");
    sl_ctx_destroy(ctx);
    return 0;
}
