/* sl_transpose: out[j, i] = in[i, j] for i in [0, rows), j in [0, cols):
 * out = in^T. A bit-for-bit move (no arithmetic, NaN payloads kept).
 *
 * dtype: SL_F32, SL_F16, SL_BF16 or SL_F64 (4-, 2-, 2- and 8-byte
 * elements; the dtype only sets the element size).
 * Shapes and layout: in is rows x cols, row-major and dense (element
 * (i, j) at in[i * cols + j]); out is cols x rows, row-major and dense
 * (element (j, i) at out[j * rows + i]). Any rows, cols >= 0 (0 is a no-op
 * that accepts NULL pointers); rows x cols x size must not overflow.
 * Alignment: each pointer aligned to its element size; 16-byte-aligned
 * pointers with rows and cols multiples of 16 / size take the 16-byte
 * path for 2- and 4-byte elements (otherwise the 32 x 33 tile rung, about
 * 0.6-0.7 x as fast on the H200).
 * Aliasing: in place is not supported: out must not overlap in at all
 * (SL_ERR_OVERLAP, also for out == in, even for a square matrix).
 * Stream, memory, errors: the contract in streamlab.h.
 * Kernel: on a CUDA context, for 4-byte elements at 2^26 elements and
 * more on sm_90, 64 x 64 tiles loaded and stored by the tensor memory
 * accelerator through a 128-byte-swizzled shared-memory tile, walked down
 * tile columns so that the output's rows are written in order (the
 * `tma_col` rung: 0.94-0.96 of the copy on an H200; docs/ladder.md, "TMA
 * tiles"); otherwise, for 2- and 4-byte elements 64 x 64 tiles
 * through an XOR-swizzled shared-memory tile with 16-byte loads and stores
 * (the `vec` rung), for 8-byte elements and wherever the 16-byte path does
 * not fit, 32 x 32 tiles through a 32 x 33 padded shared-memory tile (the
 * `pad33` rung; docs/ladder.md, "Transpose and bank conflicts"); on a CPU
 * context, 32 x 32 cache blocks over OpenMP threads.
 * Source: seed 004 (Volta optimisation slides), "Case Study: Matrix
 * Transpose"; issues 11 and 26. */
sl_status sl_transpose(sl_ctx *ctx, sl_dtype dtype, size_t rows, size_t cols, const void *in, void *out,
                       void *stream);
