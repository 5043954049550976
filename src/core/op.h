/*
 * op.h - what an op is: the descriptor every op folder (src/ops/<op>/)
 * fills in once, and the rungs (kernel variants) it lists.
 *
 * The harness, the verifier, the model, the result writers, the CLI and the
 * public API all read these descriptors; none of them branches on an op's
 * name. An op is registered by one line in src/ops/ops.def, which generates
 * the sl_op enum below, the table in ops.c and the descriptors'
 * declarations. docs/architecture.md walks through adding one.
 *
 * Included from C11 and from CUDA C (.cu) files.
 */
#ifndef SL_OP_H
#define SL_OP_H

#include "streamlab.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ops, in ops.def order: SL_OP_ADD, SL_OP_AXPY, ... */
typedef enum sl_op {
#define SL_OP(ID, name) SL_OP_##ID,
#include "../ops/ops.def"
#undef SL_OP
    SL_OP_COUNT
} sl_op;

#define SL_MAX_BUFS 8    /* buffers of one op (layernorm's backward has 8; cross-entropy 5) */
#define SL_MAX_SCALARS 2 /* scalar parameters of one op */

/* ---- shapes ----------------------------------------------------------------
 * A 1-D op of n elements has rows = 1, cols = n, ld = n. A 2-D op is
 * rows x cols, row-major, with ld >= cols elements between the starts of
 * consecutive rows (the buffer spans (rows - 1) x ld + cols elements).
 * k is a third extent for the ops that have one (matmul's inner dimension
 * K: C is rows x cols, A rows x k, B k x cols); 0 where unused. */
typedef struct sl_shape {
    uint64_t rows;
    uint64_t cols;
    uint64_t ld;
    uint64_t k;
} sl_shape;

static inline sl_shape sl_shape_1d(uint64_t n)
{
    sl_shape s = {1, n, n, 0};
    return s;
}

static inline sl_shape sl_shape_2d(uint64_t rows, uint64_t cols)
{
    sl_shape s = {rows, cols, cols, 0};
    return s;
}

/* Elements of the shape: rows x cols. */
static inline uint64_t sl_shape_elems(const sl_shape *s)
{
    return s->rows * s->cols;
}

/* Elements a buffer of this shape spans, padding between rows included. */
static inline uint64_t sl_shape_span(const sl_shape *s)
{
    return s->rows ? (s->rows - 1) * s->ld + s->cols : 0;
}

/* ---- buffers and scalars ---------------------------------------------------- */

typedef enum sl_role {
    SL_ROLE_IN = 0, /* read only */
    SL_ROLE_OUT,    /* written only: the harness poisons it, so an unwritten element fails */
    SL_ROLE_INOUT   /* read, then written in place (axpy's y, nstream's a) */
} sl_role;

/* What a buffer's elements are. DATA: the op's dtype (an OUT buffer the
 * variant's output dtype). F32: f32 whatever the op's dtype (a loss, a
 * per-row logsumexp). INDEX: 32-bit signed integers (class indices),
 * filled by the op's fill_index; stored 4 bytes, sl_op_buf_dtype reports
 * them as SL_F32 (the size), and only IN buffers may be INDEX. */
typedef enum sl_buf_kind { SL_BUF_DATA = 0, SL_BUF_F32, SL_BUF_INDEX } sl_buf_kind;

typedef struct sl_buf_desc {
    const char *name; /* "a", "x", "y": as the op's formula and its C function name them */
    sl_role role;
    bool scalar;      /* one element (a reduction's result), not the shape */
    sl_buf_kind kind; /* 0: the op's dtype */
    /* An input the lab fills: its random values (rng.h: magnitudes in
     * [2^-8, 2^8)) times 2^scale_log2, so that they sit where real data
     * does: softmax_bwd's probabilities below 1, a norm's rstd near
     * 1 / rms(x). Without it the f16 references overflow (dx up to 2^24).
     * Exact: a power of two, applied on the device by sl_scale and on the
     * host in fp32, both rounding once to the buffer's dtype. 0: as made. */
    int scale_log2;
} sl_buf_desc;

typedef struct sl_scalar_desc {
    const char *name; /* "alpha", "s" */
    double dflt;      /* what `streamlab run` uses unless told otherwise */
} sl_scalar_desc;

/* ---- numerics: how a result is checked --------------------------------------
 *   SL_TOL_EXACT      bit for bit (an elementwise op computed and rounded
 *                     exactly as the reference does)
 *   SL_TOL_ULP        within `ulps` units in the last place of the output
 *                     dtype (a peer whose rounding order we do not control)
 *   SL_TOL_REDUCTION  |got - ref| <= ulps x ulp(ref) + L x u_acc x sum|terms|,
 *                     where ref is the reference (computed in twice the
 *                     working precision), sum|terms| the sum of the
 *                     magnitudes of the reduced terms, u_acc the unit
 *                     roundoff of the variant's accumulator (2^-24 for f32,
 *                     2^-53 for f64) and L = ceil(n / P) + ceil(log2 P) + 1
 *                     (+ the variant's chain_extra) the longest chain of
 *                     additions any term goes through when n terms are
 *                     reduced as P sequential partial sums combined by a
 *                     tree. Source: Higham,
 *                     "Accuracy and Stability of Numerical Algorithms", 2nd
 *                     ed., 2002, section 4.2 (the bound (n-1)u sum|x_i| of
 *                     recursive summation, applied along each term's path).
 *   SL_TOL_REL        |got - want| <= ulps x 2^-24 x |want| + h ulp(want)
 *                     + 2^-126, where want is the fp64 reference rounded
 *                     into the output dtype, h = 0 for f32 and 1 for the
 *                     16-bit dtypes (an f32 result within the relative
 *                     bound can still round to the neighbour of want), and
 *                     2^-126 (f32's smallest normal) covers results that
 *                     underflow. A relative bound per element for ops
 *                     computed in f32 whose error does not grow with the
 *                     reduction's length in practice (softmax: expf, a
 *                     sum of positive terms, one division); ulps = 16
 *                     gives 16 x 2^-24 = 9.5e-7, within issue 18's 1e-6.
 *                     With log_terms (softmax), ulps x 2^-24 becomes
 *                     (ulps + ln(1 / |want|) + ln(n)) x 2^-24, n the row's
 *                     length: the rounding of x - m before exp, which
 *                     grows with x's distance below the row maximum.
 *                     Two NaNs match (a NaN row must stay NaN).
 */
typedef enum sl_tol_kind { SL_TOL_EXACT = 0, SL_TOL_ULP, SL_TOL_REDUCTION, SL_TOL_REL } sl_tol_kind;

typedef struct sl_tol {
    sl_tol_kind kind;
    int ulps;
    /* SL_TOL_REL only: the bound grows with how far an element lies below
     * its row's maximum, ulps becoming ulps + ln(1 / |want|) + ln(n) (n:
     * the row's length); softmax, whose x - m is rounded before exp
     * (softmax/api.h derives it; issue 25). */
    bool log_terms;
} sl_tol;

/* ---- traffic ----------------------------------------------------------------
 * The bytes a launch must move through DRAM (each input read once, each
 * output written once) and in how many separate streams (arrays): what
 * GB/s, `explain` and the model all use (sl_variant_traffic). */
typedef struct sl_traffic {
    double rd_bytes, wr_bytes;
    int rd_streams, wr_streams; /* arrays read and written, for bytes in flight */
} sl_traffic;

/* ---- one launch -------------------------------------------------------------
 * What a launcher gets. Pointers are backend memory (device memory for
 * CUDA, host memory for the CPU); buf[] follows the descriptor's buffer
 * order (IN buffers are not written through). */
typedef struct sl_args {
    const struct sl_op_desc *op;
    sl_shape shape;
    size_t n;                      /* rows x cols: the elements of a 1-D op */
    void *buf[SL_MAX_BUFS];
    double scalar[SL_MAX_SCALARS]; /* in the descriptor's order; f32-computing kernels round them to float */
    sl_dtype dtype;                /* storage type of the inputs */
    sl_dtype out_dtype;            /* storage type of OUT buffers (dtype, except an fp8-output variant) */
    void *stream;                  /* cudaStream_t, or NULL; ignored on the CPU */
    void *workspace;               /* scratch the variant asked for (sl_variant.workspace), zeroed */
    size_t workspace_bytes;        /* before the first launch that uses it */
    unsigned f32_bufs;             /* (1u << k): buffer k is f32 beyond the descriptor's f32 buffers (a
                                    * public function's f32 weights); the harness leaves it 0 */
} sl_args;

typedef sl_status (*sl_launch_fn)(const sl_args *args);

/* What the compiler and the occupancy API say about a CUDA kernel
 * (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor). */
typedef struct sl_kernel_attrs {
    int regs;          /* registers per thread */
    int local_bytes;   /* local memory (spills, stack) per thread */
    int static_smem;   /* static shared memory per block, bytes */
    int block;         /* threads per block the launcher uses */
    int blocks_per_sm; /* resident blocks per SM at that block size */
} sl_kernel_attrs;

typedef sl_status (*sl_attrs_fn)(sl_dtype dt, sl_kernel_attrs *out);

/* ---- rungs ------------------------------------------------------------------ */

typedef enum sl_kind {
    SL_KIND_CEILING = 0, /* a copy of the same bytes (cudaMemcpy, memcpy): the measured ceiling */
    SL_KIND_PEER,        /* a library doing the same op (CUB, cuBLAS): the bar to beat */
    SL_KIND_RUNG,        /* one of ours */
    SL_KIND_API          /* the public entry point (sl_add, ...): dispatch + the best rung */
} sl_kind;

typedef struct sl_variant {
    const char *name;      /* CLI name, unique per op and backend */
    sl_backend backend;
    sl_kind kind;
    const char *technique; /* one line, field-standard terms */
    const char *source;    /* where it comes from: seed file and section, issue, paper */
    sl_launch_fn launch;   /* NULL in a build without this backend (the row stays for `explain`) */
    sl_attrs_fn attrs;     /* NULL where not a CUDA kernel of ours */
    unsigned dtypes;       /* mask of (1u << sl_dtype) it runs; 0: every dtype of the op */
    /* Ceilings: out = the op's first input, moving one read and one write
     * stream of the same bytes (sl_variant_traffic). */
    bool copy;
    /* An output stored in another dtype than the inputs (seed 000's FP8
     * experiment: f32 in, e4m3 out). */
    bool fixed_out;
    sl_dtype out_dtype;
    /* Extra tolerance for a peer whose rounding order we do not control:
     * ulps of the output dtype (elementwise), partial sums P (reduction), or
     * multiples of 2^-24 of relative error (SL_TOL_REL). */
    int ulps;
    /* Reductions: accumulator dtype (u_acc) and the fewest parallel partial
     * sums P the variant forms (SL_TOL_REDUCTION). */
    sl_dtype acc;
    uint32_t partials;
    /* Roundings on the longest path beyond ceil(n / P) + ceil(log2 P) + 1,
     * where a variant's tree is deeper than log2 P for short rows (softmax
     * backward's rungs: a thread's one vector, then a warp and a block tree;
     * docs/ladder.md, "Tolerances" under softmax backward). Usually 0. */
    uint32_t chain_extra;
    /* SL_TOL_REDUCTION, continued (matmul): the accumulator truncates
     * instead of rounding (tensor cores: u_acc doubles; Fasi et al., PeerJ
     * CS 7:e330, 2021), and each product's inputs are first rounded with
     * unit roundoff in_round (TF32: 2^-10; 0: exact products), adding
     * 2 in_round x scale. */
    bool acc_truncates;
    float in_round;
    /* Scratch the variant needs per launch, bytes (NULL: none). The caller
     * hands it over zeroed the first time (sl_args.workspace). */
    size_t (*workspace)(sl_dtype dt, uint64_t n);
    /* The same for a workspace that depends on the shape, not only on its
     * elements (a norm's dw partials: a row of cols per block); used
     * instead of `workspace` when set (sl_variant_workspace). */
    size_t (*workspace_shape)(sl_dtype dt, const sl_shape *s);
    /* For the bottleneck model (docs/model.md): */
    unsigned char loads_in_flight;    /* independent loads per thread per input before first use */
    unsigned char access_bytes;       /* bytes per thread per global load/store instruction (f32) */
    unsigned char elems_per_thread;   /* elements a thread handles per step: sizes the grid for small n */
    unsigned char smem_bytes_per_elem; /* shared-memory bytes written + read per element */
    /* Bank conflicts of the shared accesses (seed 004, "Shared Memory Bank
     * Conflicts", lines 598-707): smem_conflict_bytes_per_elem of the bytes
     * above are moved by warp accesses with an smem_conflict_ways-way
     * conflict (each costs that many wavefronts instead of one); 0 or 1
     * ways: conflict-free. For 4-byte elements (a 32x32 f32 tile read down
     * a column: 4 bytes, 32 ways); the model applies it to every dtype. */
    unsigned char smem_conflict_ways;
    unsigned char smem_conflict_bytes_per_elem;
    /* The bytes this rung really moves through DRAM when it differs from
     * the op's useful traffic (a second read pass, halo re-reads, the
     * traffic a tiling implies); NULL: the op's traffic. GB/s always
     * counts the op's useful bytes (sl_variant_traffic); the model counts
     * these (sl_variant_moved). */
    sl_traffic (*moved)(const sl_shape *s, sl_dtype dt);
    /* `moved` is traffic between L2 and the SMs (a tiling's re-reads, which
     * L2 serves), not DRAM: the model charges it to L2 and DRAM only the
     * op's compulsory bytes (matmul's tiled rungs). */
    bool moved_in_l2;
    bool async_reads;                 /* inputs arrive by bulk copy, not through the load/store units */
    bool demoted_loads;               /* loads with an eviction hint (ld.global.lu, .nc), stores without:
                                       * DRAM mixes them worse (model: demoted_load_factor) */
    bool static_partition;            /* a persistent grid-stride loop: each SM's share is fixed at launch,
                                       * so the slowest SM sets the end (model: static_partition_factor) */
    float insts_per_elem;             /* SASS instructions per element per thread (f32): an estimate
                                       * from the disassembly; `run --counters` measures it */
} sl_variant;

/* ---- the op descriptor -------------------------------------------------------- */

/* The CPU reference, over one chunk: work items [lo, hi) (elements of a
 * 1-D op, rows of a 2-D op). in[k] and out[k] point at the chunk's first
 * item of buffer k (host memory, the descriptor's order; a scalar buffer's
 * pointer is its one element, in out[] only). acc[] carries a reduction's
 * state from chunk to chunk (zeroed before the first); `last` marks the
 * final chunk, on which a reduction writes its result and, in *scale,
 * sum|terms| for SL_TOL_REDUCTION. Independent code: never a rung. */
typedef struct sl_ref_args {
    sl_shape shape;
    uint64_t lo, hi;
    sl_dtype dtype, out_dtype;
    const double *scalar; /* the op's nscalars values, descriptor order: a reference reads no
                           * more (an op without scalars may get NULL) */
    const void *in[SL_MAX_BUFS];
    void *out[SL_MAX_BUFS];
    double acc[4];
    bool last;
    double scale;
    /* SL_TOL_REL: an absolute allowance per written buffer k, in the
     * buffer's units, added to the relative bound (a backward whose
     * outputs are differences or sums of signed terms: the reference
     * derives it from the terms' magnitudes, as SL_TOL_REDUCTION's scale).
     * 0: the relative bound alone. */
    double buf_abs[SL_MAX_BUFS];
} sl_ref_args;

/* The device `streamlab explain` describes (the lab's sl_hw: queried, a
 * --hw file, or the bundled description), as an op's own explain section
 * sees it; 0 where unknown. */
typedef struct sl_op_hw {
    const char *name;
    int cc;                          /* compute capability x 10 */
    double sm_count, sm_clock_ghz;
    double fp32_lanes_per_sm;
    double dram_gbs;                 /* theoretical DRAM bandwidth */
    double l2_gbs;
    double smem_bytes_per_clk_per_sm; /* banks x bytes per bank */
    const char *source;              /* where the numbers come from, one phrase */
} sl_op_hw;

typedef struct sl_op_desc {
    sl_op id;
    const char *name;    /* "add" */
    const char *api;     /* the public C function in messages, where it is not "sl_<name>" */
    const char *formula; /* "c = a + b" */
    const char *source;  /* seed file and section */
    const char *numerics; /* one line: how it computes and rounds */
    int rank;            /* 1 (n) or 2 (rows x cols) */
    int nbufs;
    sl_buf_desc bufs[SL_MAX_BUFS];
    int nscalars;
    sl_scalar_desc scalars[SL_MAX_SCALARS];
    unsigned dtypes;     /* mask of (1u << sl_dtype) the op offers */
    /* Floating-point operations per element; fma: they are fused
     * multiply-adds (2 flops per lane per clock in the compute bound). */
    double flops_per_elem;
    bool fma;
    /* Traffic of one launch; NULL: each IN and INOUT buffer read once and
     * each OUT and INOUT buffer written once (sl_op_traffic). An op with
     * reuse, halos or re-reads gives its own. */
    sl_traffic (*traffic)(const sl_shape *s, sl_dtype in, sl_dtype out);
    sl_tol tol;
    void (*reference)(sl_ref_args *a);
    const sl_variant *variants;
    int nvariants;
    /* ---- 2-D ops (rank 2); every field may stay 0 / NULL ---- */
    /* The --shape list `streamlab run` uses when none is given, in
     * sl_parse_shape_list's syntax ("128x2^10,128x2^17"). */
    const char *default_shapes;
    /* Elements buffer k spans for a shape, when not the shape's span
     * (matmul's A is rows x k); NULL: sl_shape_span (1 for a scalar). */
    uint64_t (*buf_elems)(const sl_shape *s, int k);
    /* The reference needs whole inputs (an output row depends on other
     * input rows: transpose, stencil halos, matmul): the harness fills
     * every input whole and calls it once, lo = 0, hi = rows. Otherwise a
     * rank-2 reference gets row chunks [lo, hi) with in[k] and out[k] at
     * row lo. */
    bool ref_whole;
    /* The public API refuses an output equal to an input (transpose):
     * SL_ERR_OVERLAP, "in place is not supported". */
    bool no_inplace;
    /* Floating-point operations of one launch; NULL: flops_per_elem x
     * rows x cols (sl_op_flops). */
    double (*flops)(const sl_shape *s);
    /* An op's own section of `streamlab explain`, printed after the
     * generic model (matmul: its roofline with the tensor-core peaks,
     * which the generic FP32 model does not know), for the device hw
     * describes: every number it prints comes from hw; NULL: none. */
    void (*explain)(FILE *f, const sl_shape *s, sl_dtype dt, const struct sl_op_hw *hw);
    /* The rate variant v's flops run at in dtype dt on a GPU of compute
     * capability cc (x 10), as a multiple of the FP32 FMA rate the generic
     * model's compute term uses (lanes x SMs x clock x 2): matmul's
     * tensor-core rungs and peers (sm_90: TF32 7.4x, bf16 / f16 14.8x).
     * NULL or a return <= 0: the FP32 pipe (also for an architecture the
     * op has no figures for). */
    double (*math_rate_x)(const sl_variant *v, sl_dtype dt, int cc);
    /* Whether a shape is one the op accepts beyond rows x cols (the
     * stencil's radius k in 1..16); false fills why. The CLI turns false
     * into a usage error (exit 2). NULL: every shape. */
    bool (*shape_ok)(const sl_shape *s, char *why, size_t len);
    /* What a shape's third side means, for an op that takes one (matmul's
     * MxNxK: "K, the inner dimension"; the stencil's RxCxRADIUS); NULL:
     * ROWSxCOLS only, and a shape with a third side is refused (exit 2)
     * rather than the side dropped. */
    const char *third_side;
    /* ---- ops with INDEX or F32 buffers (cross-entropy); NULL where unused ---- */
    /* Elements [first, first + n) of INDEX buffer `k` for a shape and the
     * run's scalars, a pure function of seed and element index (the harness
     * fills the device buffer and the reference's copy from it). */
    void (*fill_index)(int k, int32_t *dst, uint64_t n, uint64_t first, uint64_t seed, const sl_shape *s,
                       const double *scalars);
    /* SL_TOL_REL per buffer: adjust written buffer k's relative bound
     * (*ulps, multiples of 2^-24) and absolute allowance (*abs_extra) for
     * the shape, the scalars and the reference's scale (sl_ref_args.scale). */
    void (*tol_buf)(int k, const sl_shape *s, const double *scalars, double scale, double *ulps, double *abs_extra);
} sl_op_desc;

/* The descriptors, one per ops.def line, each defined in its op folder. */
#define SL_OP(ID, name) extern const sl_op_desc sl_op_##name;
#include "../ops/ops.def"
#undef SL_OP

/* ---- the table (ops.c) ------------------------------------------------------- */

int sl_op_count(void);
const sl_op_desc *sl_op_at(int i);        /* ops.def order; NULL out of range */
const sl_op_desc *sl_op_find(const char *name); /* NULL if unknown */
/* "add, axpy, copy, ..." into buf. */
void sl_op_names(char *buf, size_t len);

/* The op's dtypes as a list ("f32, f64, f16, bf16") into buf. */
void sl_op_dtype_list(const sl_op_desc *op, char *buf, size_t len);

bool sl_op_supports(const sl_op_desc *op, sl_dtype dt);
bool sl_variant_supports(const sl_op_desc *op, const sl_variant *v, sl_dtype dt);

/* Variant by name for a backend, or NULL. */
const sl_variant *sl_variant_find(const sl_op_desc *op, sl_backend b, const char *name);
/* The SL_KIND_API variant for a backend: what the public function calls. */
const sl_variant *sl_variant_api(const sl_op_desc *op, sl_backend b);

const char *sl_kind_name(sl_kind k);

/* Index of the first buffer with this role, or -1. Written buffers are
 * OUT and INOUT. */
int sl_op_first(const sl_op_desc *op, sl_role role);
int sl_op_first_written(const sl_op_desc *op);
static inline bool sl_role_read(sl_role r)
{
    return r != SL_ROLE_OUT;
}
static inline bool sl_role_written(sl_role r)
{
    return r != SL_ROLE_IN;
}

/* Whether a 2-D op takes shape s: a third side only where the op has one
 * (third_side), then the op's own shape_ok. false fills why. */
bool sl_op_shape_ok(const sl_op_desc *op, const sl_shape *s, char *why, size_t len);

/* The buffer a copy ceiling writes: the first written DATA buffer that
 * holds the copied elements (rows x cols, at most the first input's span),
 * or -1 when there is none (a read-only op: cross-entropy's forward, whose
 * ceiling copies into its workspace; the harness then checks the
 * workspace, or the first written buffer where there is no workspace). */
int sl_ceiling_dst(const sl_op_desc *op, const sl_shape *s);

/* Elements buffer k holds for a shape (the span, or 1 for a scalar). */
uint64_t sl_op_buf_elems(const sl_op_desc *op, int k, const sl_shape *s);
/* Storage dtype of buffer k: f32 for an f32 buffer, out for OUT buffers,
 * else in. */
sl_dtype sl_op_buf_dtype(const sl_op_desc *op, int k, sl_dtype in, sl_dtype out);

/* Workspace bytes variant v needs at shape s (its workspace_shape, else
 * its workspace of the elements; 0 without either). */
size_t sl_variant_workspace(const sl_variant *v, sl_dtype dt, const sl_shape *s);

/* The output dtype variant v stores for inputs of dt. */
sl_dtype sl_variant_out_dtype(const sl_variant *v, sl_dtype dt);

/* The one function that counts bytes: the op's traffic (its own function,
 * or the roles rule) for v (a copy ceiling moves one input's bytes in and
 * out). Used for GB/s, by the model and by `explain`. */
sl_traffic sl_op_traffic(const sl_op_desc *op, const sl_shape *s, sl_dtype in, sl_dtype out);
sl_traffic sl_variant_traffic(const sl_op_desc *op, const sl_variant *v, const sl_shape *s, sl_dtype dt);

/* The bytes variant v really moves (its `moved`, else sl_variant_traffic):
 * what the model counts. */
sl_traffic sl_variant_moved(const sl_op_desc *op, const sl_variant *v, const sl_shape *s, sl_dtype dt);

/* Floating-point operations of one launch of the op (0 for a copy ceiling
 * through sl_variant_flops). */
double sl_op_flops(const sl_op_desc *op, const sl_shape *s);
double sl_variant_flops(const sl_op_desc *op, const sl_variant *v, const sl_shape *s);

/* Bytes per element of a 1-D op (rd + wr) / n, for tables. */
double sl_variant_bytes_per_elem(const sl_op_desc *op, const sl_variant *v, sl_dtype dt);

#ifdef __cplusplus
}
#endif

#endif /* SL_OP_H */
