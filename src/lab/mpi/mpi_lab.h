/*
 * mpi_lab.h - what `mpirun -np K streamlab run` adds to the lab (issue 15):
 * the ranks' layout (node-local rank from MPI_Comm_split_type), collectives
 * that never wait forever (each is non-blocking and polled against a
 * deadline; past it the rank calls MPI_Abort with a message), the
 * harness's step (sl_sync_fn) as an all-reduce, one row of every rank
 * gathered on rank 0, the aggregate of a row, and the distributed dot.
 *
 * Compiled only in MPI builds (SL_HAVE_MPI); the harness knows nothing of
 * MPI, only of sl_sync_fn.
 *
 * Sources: HPCC's EP-STREAM (every process runs STREAM at once; per-process
 * minimum/average and the system total; Luszczek et al., "The HPC
 * Challenge (HPCC) benchmark suite", SC06); STREAM's MPI version
 * (stream_mpi.c, McCalpin), which starts every kernel after an
 * MPI_Barrier and times with the slowest rank.
 */
#ifndef SL_MPI_LAB_H
#define SL_MPI_LAB_H

#include "harness.h"

#include <mpi.h>
#include <stdbool.h>

#define SL_MPI_KEEP 1024    /* trial times a row carries (--trials is capped at this under MPI) */
#define SL_MPI_HOST 64      /* bytes of a host name */

typedef struct sl_mpi {
    int rank, size;            /* in MPI_COMM_WORLD */
    int local_rank, local_size;/* in the rank's node (MPI_COMM_TYPE_SHARED) */
    int nnodes;
    char host[SL_MPI_HOST];    /* MPI_Get_processor_name */
    char (*hosts)[SL_MPI_HOST];/* every rank's host, on every rank */
    double timeout_s;          /* the longest one collective waits before MPI_Abort */
    MPI_Comm rows;             /* row exchange and agreement (a duplicate of the world) */
    MPI_Comm steps;            /* the harness's steps (another duplicate: never mixed up with rows) */
    MPI_Comm node;             /* the ranks of this node */
    const char *doing;         /* what runs now, for the timeout message */
    void (*on_abort)(void *user); /* called before MPI_Abort (rank 0 marks its files failed) */
    void *abort_user;
} sl_mpi;

/* MPI_Init_thread (funneled), the node communicator, the host names.
 * Returns SL_OK or SL_ERR_INTERNAL with the MPI error's text. */
sl_status sl_mpi_init(int *argc, char ***argv, sl_mpi *m);
void sl_mpi_finalize(sl_mpi *m);

/* CUDA devices this process sees (cudaGetDeviceCount; 0 in a CPU-only
 * build or without a driver). */
int sl_mpi_gpu_count(void);

/* A name for the device of ctx that is the same for two processes using
 * the same device: "cuda:<PCI bus id>" or "cpu". */
void sl_mpi_device_key(const sl_ctx *ctx, char *buf, size_t len);

/* CPU ranks that share a node share its cores: unless OMP_NUM_THREADS is
 * set, give each of the node's local_size ranks cores / local_size OpenMP
 * threads. Returns the thread count in use. */
int sl_mpi_split_cpu_threads(const sl_mpi *m);

/* Wait for a non-blocking request; spins for the first 10 ms (so a
 * trial's start is not delayed by a sleep), then polls every 20 us. Past
 * m->timeout_s: a message naming this rank, its host and m->doing on
 * stderr, on_abort, MPI_Abort(3). Never returns without completion. */
void sl_mpi_wait(sl_mpi *m, MPI_Request *req);

/* The least (max_ = the greatest) of every rank's v, bounded by the
 * timeout (MPI_Iallreduce on m->rows). */
int sl_mpi_all_min(sl_mpi *m, int v);
int sl_mpi_all_max(sl_mpi *m, int v);

/* A barrier that waits at most `factor` x timeout (MPI_Ibarrier). */
void sl_mpi_barrier(sl_mpi *m, double factor);

/* The harness's step (sl_sync_fn, user = sl_mpi *): MPI_Iallreduce(MIN) of
 * one int on m->steps. Completes only when every rank has arrived, so it
 * is the barrier every timed trial starts after, carrying the status. */
int sl_mpi_step(void *user, int mine);

/* One row of one rank, as it travels to rank 0. */
typedef struct sl_mpi_row {
    int status;            /* sl_status of the row on that rank */
    int trials, kept;      /* trials timed; times carried (min(trials, SL_MPI_KEEP)) */
    int check_before_ok, check_after_ok;
    double bytes;          /* per launch on that rank */
    double gbs, gbs_best;  /* bytes / median, bytes / min */
    double min_ms, median_ms, max_ms;
    double times_ms[SL_MPI_KEEP];
    char variant[48];
    char message[512];
} sl_mpi_row;

void sl_mpi_row_pack(const sl_result *r, sl_mpi_row *out);

/* Gather every rank's row on rank 0 (all: size entries there, unused
 * elsewhere) and agree on whether any rank's row failed. Returns the
 * lowest rank whose row failed (one that only stopped because another
 * failed counts after every real failure), or -1. */
int sl_mpi_gather_rows(sl_mpi *m, const sl_mpi_row *mine, sl_mpi_row *all);

/* A row's figures across ranks. The aggregate of trial t is the bytes of
 * all ranks over the slowest rank's time of that trial (EP-STREAM's
 * system figure); agg_gbs is its median over the trials, agg_best its
 * maximum. Per-rank GB/s are each rank's bytes / its median time. */
typedef struct sl_mpi_agg {
    int ranks;                       /* ranks whose row ran (status SL_OK) */
    double min_gbs, med_gbs, max_gbs; /* across ranks */
    double spread;                   /* (max - min) / median across ranks */
    double agg_gbs, agg_best;        /* 1e9 B/s */
    double agg_time_ms;              /* median over trials of the slowest rank's time */
    int slowest_rank;                /* the rank slowest most often */
    int trials;                      /* trials every rank timed */
} sl_mpi_agg;

/* Fill a from the K rows of one row; false when any row did not run. */
bool sl_mpi_aggregate(const sl_mpi_row *rows, int k, sl_mpi_agg *a);

/* ---- the distributed dot ----------------------------------------------------- */

/* How the partials travel to MPI_Allreduce. */
typedef enum sl_mpi_transport {
    SL_MPI_HOST_MEM = 0, /* CPU ranks: the partial is in host memory already */
    SL_MPI_CUDA_AWARE,   /* the device pointer goes to MPI (MPIX_Query_cuda_support() == 1) */
    SL_MPI_STAGED        /* copied to pinned host memory (cudaMallocHost), reduced there */
} sl_mpi_transport;

const char *sl_mpi_transport_name(sl_mpi_transport t);

/* What this build's MPI says about CUDA: the transport a CUDA rank uses,
 * and why in *why (MPIX_Query_cuda_support's answer, or that the library
 * has no such query). STREAMLAB_MPI_STAGED=1 forces staging. */
sl_mpi_transport sl_mpi_cuda_transport(char *why, size_t len);

typedef struct sl_mpi_dot_result {
    uint64_t n_per_rank;
    int ranks, trials;
    sl_mpi_transport transport;
    char transport_why[160];       /* what decided it (MPIX_Query_cuda_support's answer, ...) */
    double bytes_per_rank;         /* the local dot's: 2 n x element size */
    double local_ms, allreduce_ms, total_ms; /* medians over trials, slowest rank's per trial */
    double local_ms_min, total_ms_min;
    double got, ref, err, tol;     /* the global result, the reference, |got - ref|, the bound */
    double sum_abs;                /* sum |a_i b_i| over every rank's elements */
    double sum_abs_partials;       /* sum over ranks of |rank r's exact partial| */
    bool ok;                       /* err <= tol, and every rank ran */
    char message[512];             /* why not ok */
} sl_mpi_dot_result;

/* The dot of two vectors of K x n elements, n on each rank (rank r's
 * elements are streams (seed, r, a|b) of rng.h): each rank's partial from
 * sl_dot on ctx, summed by MPI_Allreduce (in the dtype of the partial).
 * Verified once before and once after timing against a reference rank 0
 * computes from every rank's streams in fp64 with a compensated sum
 * (Neumaier; products split exactly with fma). The bound: each partial is
 * within 1 ulp of dtype plus L x 2^-53 x sum|ab| (src/ops/dot/api.h), and
 * the K - 1 additions of the all-reduce add at most (K - 1) u sum|p_r|;
 * u = 2^-24 (f32) or 2^-53
 * (f64); precisely tol = 2 ((K + 1) u sum|p_r| + (n + 2) 2^-53 sum|ab|),
 * p_r the ranks' exact partials (the first-order bound, doubled). Each trial: step (all ranks), local dot + sync (wall clock), then
 * the all-reduce (with the staging copy when staged); per trial the
 * slowest rank's times count. dt: SL_F32 or SL_F64. Collective. */
sl_status sl_mpi_dist_dot(sl_mpi *m, sl_ctx *ctx, sl_dtype dt, uint64_t n, uint64_t seed, int warmup, int trials,
                          sl_mpi_dot_result *out);

#endif /* SL_MPI_LAB_H */
