/* sl_stencil2d: the 2-D star stencil of radius `radius` on a rows x cols
 * f32 grid:
 *     out[i][j] = c_0 in[i][j]
 *               + sum_{k=1..radius} c_k (in[i][j-k] + in[i][j+k] + in[i-k][j] + in[i+k][j])
 * with c_0 = 1/2 and c_k = 1 / (8 (k + 1)^2), each rounded to float.
 *
 * Numerics: fp32 throughout, in one fixed order: acc = c_0 x (rounded),
 * then for k = 1..radius acc = fmaf(c_k, ((W + E) + N) + S, acc), the three
 * additions left to right; the same bits on every device and on the CPU.
 * Boundary rule: neighbours outside the grid read as +0.0f; every point,
 * the edges included, is written.
 * Shapes and units: row-major, `ld` elements (>= cols) between the starts
 * of consecutive rows, the same for in and out; each spans
 * (rows - 1) x ld + cols floats. rows, cols >= 1; radius in 1..16.
 * Padding elements (columns cols..ld-1) are neither read nor written.
 * Alignment: 4 bytes (the float's).
 * Aliasing: in place is not supported: out == in, or any overlap of the two
 * spans, is refused with SL_ERR_OVERLAP.
 * Memory, stream, errors: the contract above; a radius outside 1..16 or a
 * bad shape gives SL_ERR_INVALID_ARG.
 * Source: seed 004 ("2D Stencil Experiment", the Volta L1 vs shared-memory
 * study); the CUDA context runs a register sliding-window rung chosen by
 * radius: two outputs a thread at R = 3 and 4 (`regwin2`), four with 8
 * rows loaded ahead at R = 2 (`regwin4_d8`), four at R = 1 and above 4
 * (`regwin4`), each falling back to one output a thread for rows it
 * cannot vectorize; at R = 1 from 2^26 points on sm_90, the bulk-copied
 * tile with its halo (`tma`: 16-byte-aligned in and out, ld a multiple of
 * 4; regwin4 where it refuses) (docs/ladder.md, "The 2-D stencil"; issue
 * 26). */
sl_status sl_stencil2d(sl_ctx *ctx, size_t rows, size_t cols, size_t ld, int radius, const float *in, float *out,
                       void *stream);
