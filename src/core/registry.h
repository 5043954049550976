/*
 * registry.h - the one table of kernel variants.
 *
 * Every kernel streamlab runs (ladder rungs, library peers, the copy
 * ceiling) is one sl_variant in src/core/registry.c. The CLI, the harness,
 * the tests and the benchmark scripts loop over that table; nothing else
 * keeps a list or a count of variants. Byte counts come from the entry and
 * sizeof(element), never from a constant typed elsewhere.
 */
#ifndef SL_REGISTRY_H
#define SL_REGISTRY_H

#include "streamlab.h"

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ladders. A run benchmarks one op; its rows are that op's entries.
 *   add:  c[i] = a[i] + b[i]               (seed 000)
 *   axpy: y[i] = alpha * x[i] + y[i], in place (seed 001); in sl_args, a = x
 *         and b = c = y.
 * Both compute in fp32 (axpy as one fmaf) and round to nearest-even into
 * the storage dtype on the store (saturating for fp8). */
typedef enum sl_op { SL_OP_ADD = 0, SL_OP_AXPY, SL_OP_COUNT } sl_op;

typedef enum sl_kind {
    SL_KIND_CEILING = 0,  /* a copy (cudaMemcpy, memcpy): the measured bandwidth ceiling */
    SL_KIND_PEER,         /* a library doing the same op (CUB): the bar to beat */
    SL_KIND_RUNG,         /* one of ours */
    SL_KIND_API           /* the public entry point (sl_add): dispatch + the best rung */
} sl_kind;

/* Arguments of one launch. The pointers belong to the backend (device
 * memory for CUDA). For a ceiling entry, c receives a copy of a and b is
 * unused. For axpy, b == c (y, updated in place). */
typedef struct sl_args {
    size_t n;
    const void *a;
    const void *b;
    void *c;
    void *stream;      /* cudaStream_t, or NULL */
    sl_dtype dtype;    /* storage type of a, b and c (of c too unless the variant has out_fp8) */
    sl_op op;
    float alpha;       /* axpy's scalar; unused by add */
} sl_args;

typedef sl_status (*sl_launch_fn)(const sl_args *args);

/* What the compiler and the occupancy API say about a CUDA kernel
 * (cudaFuncGetAttributes, cudaOccupancyMaxActiveBlocksPerMultiprocessor). */
typedef struct sl_kernel_attrs {
    int regs;           /* registers per thread */
    int local_bytes;    /* local memory (spills, stack) per thread */
    int static_smem;    /* static shared memory per block, bytes */
    int block;          /* threads per block the launcher uses */
    int blocks_per_sm;  /* resident blocks per SM at that block size */
} sl_kernel_attrs;

/* The resources of v's kernel for storage type dt. */
typedef sl_status (*sl_attrs_fn)(sl_dtype dt, sl_kernel_attrs *out);

typedef struct sl_variant {
    const char *name;          /* CLI name, unique per backend and op */
    sl_op op;
    sl_backend backend;
    sl_kind kind;
    const char *technique;     /* one line, field-standard terms */
    unsigned char reads;       /* arrays read per element */
    unsigned char writes;      /* arrays written per element */
    unsigned char flops;       /* floating-point operations per element */
    unsigned char fma;         /* 1 if those flops are fused multiply-adds */
    unsigned char loads_in_flight; /* independent loads per thread per input before first use */
    unsigned char access_bytes;    /* bytes per thread per global load/store instruction (f32) */
    unsigned char elems_per_thread; /* elements a thread handles per step: sizes the grid for small n */
    unsigned char smem_bytes_per_elem; /* shared-memory bytes written + read per element */
    bool async_reads;              /* inputs arrive by bulk copy, not through the load/store units */
    float insts_per_elem;          /* SASS instructions per element per thread (f32): an estimate from
                                    * the disassembly; `run --counters` measures it */
    unsigned char dtypes;          /* bit mask of the sl_dtype values it runs (1u << SL_F32, ...);
                                    * 0 means f32 only */
    unsigned char ulp_tolerance;   /* 0: checked bit for bit; k: within k ulps of the output dtype
                                    * (a library peer whose rounding order we do not control) */
    bool out_fp8;                  /* output stored as fp8 e4m3 whatever the input dtype (seed 000's
                                    * FP8 experiment: 9 bytes per element instead of 12) */
    const char *seed;          /* where it comes from: seed file and section */
    sl_launch_fn launch;
    sl_attrs_fn attrs;         /* NULL where not a CUDA kernel of ours */
} sl_variant;

size_t sl_registry_count(void);
const sl_variant *sl_registry_at(size_t i);
/* Entry by name for a backend and op, or NULL. */
const sl_variant *sl_registry_find(sl_backend b, sl_op op, const char *name);
/* The SL_KIND_API entry for (op, backend): what sl_add calls. NULL if none. */
const sl_variant *sl_registry_api(sl_op op, sl_backend b);

const char *sl_op_name(sl_op op);
const char *sl_kind_name(sl_kind k);
/* Bytes moved per element: reads * sizeof(dtype) + writes * sizeof(output
 * dtype) (1 for an out_fp8 entry). */
size_t sl_variant_bytes_per_elem(const sl_variant *v, sl_dtype dt);
/* The dtype v writes for input dtype dt (SL_FP8_E4M3 for out_fp8 entries). */
sl_dtype sl_variant_out_dtype(const sl_variant *v, sl_dtype dt);
/* True if v runs with storage type dt. */
bool sl_variant_supports(const sl_variant *v, sl_dtype dt);
/* Parse "add" / "axpy"; returns -1 for anything else. */
int sl_op_parse(const char *s);

#ifdef __cplusplus
}
#endif

#endif /* SL_REGISTRY_H */
