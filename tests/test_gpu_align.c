/*
 * test_gpu_align: every elementwise op (copy, scale, add, triad, nstream,
 * axpy) in every dtype it offers, at every pair of buffer offsets modulo
 * 16 bytes (issue 17): for each two buffers j < k of the op, buffer j at
 * element offset oj and buffer k at ok, for all oj, ok in [0, 16 / size),
 * the others at 0; for the 4- and 8-byte dtypes every offset triple. Each
 * case runs the public entry point (sl_op_call, which dispatches through
 * the one table of src/ops/common/ew_cuda.cu) and the rungs that table can
 * pick (bulk, vec / vec4 / v5_vec, tile4: the realigned layout of
 * sl_ew_split in each), and is checked bit for bit against the op's CPU
 * reference (sl_verify_launch), with the bytes around the output checked
 * for stray writes (gpu_common.h). Sizes: 5003 elements (head, body, tail
 * in every layout), 37 (edges only), and 2^20 + 5 for the public entry at
 * a subset of pairs (the DRAM-sized row of the table: bulk on sm_90). Also
 * in place: the output aliased to each input while the other input is
 * shifted. Quick mode (STREAMLAB_TEST_QUICK, under compute-sanitizer):
 * pairs only, the public entry and bulk, n = 5003 and 2^20 + 5.
 * Skips (exit 77) without a GPU.
 */
#include "gpu_common.h"

#define BIG ((size_t)(1u << 20) + 5)
#define LEN (BIG + 64)

static int is_elementwise(const sl_op_desc *op)
{
    if (op->rank != 1)
        return 0;
    for (int k = 0; k < op->nbufs; k++)
        if (op->bufs[k].scalar)
            return 0; /* dot: a reduction */
    return 1;
}

/* Run the offset sets of one variant (NULL: public) at size n; returns 0
 * after the first failing case (one report per variant and size). */
static int offsets_sweep(sl_ctx *ctx, const sl_op_desc *op, const sl_variant *v, sl_dtype dt, gpu_bufs *g, size_t n,
                         int triples, int stride)
{
    const int per = 16 / (int)sl_dtype_size(dt);
    int none[SL_MAX_BUFS], off[SL_MAX_BUFS];
    for (int k = 0; k < SL_MAX_BUFS; k++)
        none[k] = -1;
    int cases = 0;
    if (triples && op->nbufs <= 3) {
        const int nb = op->nbufs;
        int total = 1;
        for (int k = 0; k < nb; k++)
            total *= per;
        for (int c = 0; c < total; c += stride) {
            int r = c;
            memset(off, 0, sizeof off);
            for (int k = 0; k < nb; k++) {
                off[k] = r % per;
                r /= per;
            }
            cases++;
            if (!run_case(ctx, op, v, dt, g, n, off, none, NULL))
                return 0;
        }
    } else {
        for (int j = 0; j < op->nbufs; j++)
            for (int k = j + 1; k < op->nbufs; k++)
                for (int c = 0; c < per * per; c += stride) {
                    memset(off, 0, sizeof off);
                    off[j] = c % per;
                    off[k] = c / per;
                    cases++;
                    if (!run_case(ctx, op, v, dt, g, n, off, none, NULL))
                        return 0;
                }
    }
    /* in place: output w = input r (same offset), every other buffer at
     * each shift against it */
    if (v && v->copy)
        return 1;
    for (int w = 0; w < op->nbufs; w++) {
        if (op->bufs[w].role != SL_ROLE_OUT)
            continue;
        for (int r = 0; r < op->nbufs; r++) {
            if (op->bufs[r].role == SL_ROLE_OUT)
                continue;
            int al[SL_MAX_BUFS];
            memcpy(al, none, sizeof al);
            al[w] = r;
            for (int s = 1; s < per; s += stride) {
                memset(off, 0, sizeof off);
                for (int k = 0; k < op->nbufs; k++)
                    off[k] = k == r ? 1 % per : (1 + s) % per;
                cases++;
                if (!run_case(ctx, op, v, dt, g, n, off, al, NULL))
                    return 0;
            }
        }
    }
    return cases > 0;
}

int main(void)
{
    sl_ctx *ctx = gpu_open_or_skip("test_gpu_align");
    if (!ctx)
        return 77;
    const int quick = getenv("STREAMLAB_TEST_QUICK") != NULL;
    gpu_bufs g;
    CHECK(gpu_bufs_alloc(ctx, &g, LEN), "alloc: %s", sl_last_error());
    static const char *const api_rungs[] = {"bulk", "vec", "vec4", "v5_vec", "tile4"};
    int ops_done = 0;
    for (int i = 0; i < sl_op_count() && check_failures == 0; i++) {
        const sl_op_desc *op = sl_op_at(i);
        if (!is_elementwise(op))
            continue;
        ops_done++;
        for (int d = 0; d < SL_DTYPE_COUNT && check_failures == 0; d++) {
            const sl_dtype dt = (sl_dtype)d;
            if (!sl_op_supports(op, dt))
                continue;
            const int triples = !quick && sl_dtype_size(dt) >= 4;
            gpu_bufs_fill(ctx, op, &g, dt);
            /* the public entry: small (l2 row) and DRAM-sized (bulk row) */
            const int per = 16 / (int)sl_dtype_size(dt);
            /* quick: about 8 offset pairs per buffer pair, a stride that
             * walks through both offsets */
            const int qs = per * per > 8 ? per * per / 8 + 1 : 1;
            if (!quick)
                offsets_sweep(ctx, op, NULL, dt, &g, 37, triples, 1);
            offsets_sweep(ctx, op, NULL, dt, &g, 5003, triples, quick ? qs : 1);
            offsets_sweep(ctx, op, NULL, dt, &g, BIG, 0, quick ? per * per / 2 + 1 : 3);
            for (size_t r = 0; r < sizeof api_rungs / sizeof api_rungs[0]; r++) {
                const sl_variant *v = sl_variant_find(op, SL_BACKEND_CUDA, api_rungs[r]);
                if (!v || !sl_variant_supports(op, v, dt) || (quick && strcmp(api_rungs[r], "bulk") != 0))
                    continue;
                offsets_sweep(ctx, op, v, dt, &g, 5003, triples, quick ? qs : 1);
            }
        }
    }
    CHECK(ops_done >= 6, "expected the six elementwise ops, found %d", ops_done);
    gpu_bufs_free(ctx, &g);
    sl_ctx_destroy(ctx);
    if (check_failures) {
        printf("test_gpu_align: %d failure(s)\n", check_failures);
        return 1;
    }
    printf("test_gpu_align: all offset pairs passed%s\n", quick ? " (quick)" : "");
    return 0;
}
