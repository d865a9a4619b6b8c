/* mcinit_kernels.h — Megatron's fused element-wise kernels (bias+GeLU,
 * bias+SwiGLU, bias+dropout+add) for fp32, fp16 and bf16: CPU references,
 * CUDA kernels, and the `kernels' phase of `mcinit run'.
 *
 * Plain C.  Tensors are row-major rows x cols; the bias has cols elements and
 * is added to every row (Megatron's broadcast over [s, b, h]).  Every function
 * computes in fp32 and rounds once to the tensor's type (round to nearest,
 * ties to even), as Megatron's jit-fused versions do.  The CPU reference and
 * the CUDA kernels share their arithmetic (kmath.h), so a GPU result equals
 * the reference bit for bit (fp16 NaN payloads aside).
 *
 * Ownership: the caller owns every buffer and structure passed in; nothing
 * here allocates memory that outlives a call, keeps a pointer, prints, or
 * exits.  Errors are returned as MCINIT_KERR_* codes (mcinit_kernels_strerror
 * names them); the phase also fills a message in its result.
 */
#ifndef MCINIT_KERNELS_H
#define MCINIT_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum mcinit_dtype { MCINIT_DTYPE_F32, MCINIT_DTYPE_F16, MCINIT_DTYPE_BF16 };

/* Bytes per element (4 or 2), and "fp32", "fp16", "bf16". */
size_t mcinit_dtype_size(enum mcinit_dtype dt);
const char *mcinit_dtype_name(enum mcinit_dtype dt);

/* Round-to-nearest-even conversions (NaN stays NaN, overflow gives inf). */
uint16_t mcinit_f32_to_bf16(float f);
float mcinit_bf16_to_f32(uint16_t h);
uint16_t mcinit_f32_to_f16(float f);
float mcinit_f16_to_f32(uint16_t h);

/* Element i of a dt tensor as float; store v (rounded) as element i. */
float mcinit_kload(enum mcinit_dtype dt, const void *p, size_t i);
void mcinit_kstore(enum mcinit_dtype dt, void *p, size_t i, float v);

/* Philox4x32-10: ctr[4] and key[2] in, out[4] out (Random123's layout). */
void mcinit_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* The dropout keep threshold for probability p (0 <= p <= 1): element i is
 * kept when word i of the (seed, offset) stream is below it.  2^32 keeps
 * everything (p = 0). */
uint64_t mcinit_dropout_threshold(float p);
/* Whether dropout with (seed, offset, p) keeps element i (1) or zeroes it (0):
 * the mask, reproducible anywhere from these four numbers. */
int mcinit_dropout_keep(uint64_t seed, uint64_t offset, uint64_t i, float p);

enum mcinit_kop {
	MCINIT_KOP_BIAS_GELU_FWD,    /* out = gelu(in + bias)                       */
	MCINIT_KOP_BIAS_GELU_BWD,    /* out = gelu'(in + bias) * grad               */
	MCINIT_KOP_BIAS_SWIGLU_FWD,  /* out[r, cols/2] = silu(y1) * y2, y = in+bias */
	MCINIT_KOP_BIAS_SWIGLU_BWD,  /* out[r, cols] = d/dy, grad is [r, cols/2]    */
	MCINIT_KOP_BIAS_DROPOUT_ADD, /* out = residual + dropout(in + bias, p)      */
};
#define MCINIT_KOP_COUNT 5
const char *mcinit_kop_name(enum mcinit_kop op);

/* Arguments of one operation.  Pointers are host memory for the reference,
 * device memory for the CUDA functions; any alignment of the element type
 * works (16-byte aligned tensors take the vector path). */
struct mcinit_kargs {
	enum mcinit_dtype dtype;
	size_t rows, cols;    /* of `in'; SwiGLU needs cols even           */
	const void *in;       /* rows x cols                               */
	const void *bias;     /* cols                                      */
	const void *grad;     /* backward: the shape of the forward output */
	const void *residual; /* dropout-add: rows x cols                  */
	void *out;            /* the forward output, or d/d(in) backward   */
	uint8_t *mask;        /* dropout-add: 1 = kept; NULL: not written  */
	float p;              /* dropout probability, 0 <= p <= 1          */
	uint64_t seed;        /* dropout: the rank's generator seed        */
	uint64_t offset;      /* dropout: advance per call (Philox offset) */
	int exact;            /* CUDA: 1 = the bit-exact kernels; 0 = the  */
	                      /* fast path, within mcinit_kfast_ulps       */
};

/* Elements of the output of op (rows*cols, or rows*cols/2 for SwiGLU fwd). */
size_t mcinit_kop_out_elems(enum mcinit_kop op, const struct mcinit_kargs *a);
/* Bytes one call reads and writes in memory (the bandwidth figure's numerator). */
size_t mcinit_kop_bytes(enum mcinit_kop op, const struct mcinit_kargs *a);

enum {
	MCINIT_KERR_OK = 0,
	MCINIT_KERR_INVAL = 1,  /* bad shape, dtype, p, or missing buffer   */
	MCINIT_KERR_NOMEM = 2,  /* host or device allocation failed         */
	MCINIT_KERR_NOGPU = 3,  /* no CUDA in this build, or no device      */
	MCINIT_KERR_CUDA = 4,   /* a CUDA call failed                       */
	MCINIT_KERR_NUMERIC = 5 /* a result differs from the CPU reference  */
};
const char *mcinit_kernels_strerror(int err);

/* Checks the arguments of op; MCINIT_KERR_OK or MCINIT_KERR_INVAL. */
int mcinit_kargs_check(enum mcinit_kop op, const struct mcinit_kargs *a);

/* The CPU reference (host pointers).  Synchronous. */
int mcinit_kref_run(enum mcinit_kop op, const struct mcinit_kargs *a);

/* The CUDA kernels (device pointers), enqueued on `stream' (a CUstream,
 * which is a cudaStream_t; NULL = the default stream) in the calling
 * thread's current context, through the driver API (gpu-backend.c); returns
 * after the launch, not the work.  MCINIT_KERR_NOGPU in a build without
 * CUDA or where no driver loads.  a->exact chooses the kernels:
 * the reference's bits, or (the default) the fast path — hardware
 * reciprocal and, in bf16 and fp16, hardware 2^x (kmath.h) — whose results
 * are within mcinit_kfast_ulps of the reference's. */
int mcinit_kgpu_run(enum mcinit_kop op, const struct mcinit_kargs *a, void *stream);

/* The fast path's bound against the reference: ulps of dt, at the scale
 * mcinit_kfast_scale gives (the result's magnitude for the forward
 * operations).  0 for dropout-add, whose fast path computes the reference's
 * bits.  kops.c derives each from the approximations' documented errors. */
double mcinit_kfast_ulps(enum mcinit_kop op, enum mcinit_dtype dt);
/* The scale of one output element: |result| for gelu, swiglu and
 * dropout-add; for the backward operations, whose formulas subtract, the
 * size of the terms (so that a result near a zero of the derivative is
 * judged by the error of what cancelled).  x: in + bias (SwiGLU: the first
 * half's), b: SwiGLU's second half's, g: the gradient; second: SwiGLU
 * backward's second half of the output. */
double mcinit_kfast_scale(enum mcinit_kop op, float x, float b, float g, int second);
/* |got - want| in ulps of dt at max(|want|, scale), or their distance on
 * dt's number line (mcinit_ulps) when that is less: 0 when equal (two NaNs
 * too), inf for a NaN against a number; an infinity is one ulp past the
 * largest finite number. */
double mcinit_ulps_at(enum mcinit_dtype dt, float got, float want, double scale);

/* Timing that tells the truth: op's calls and a device-to-device copy of as
 * many bytes (half read, half written), timed alike in the same run.  When
 * the bytes a call moves are at least 4x the GPU's L2, `calls' calls run
 * back to back between two events (each with its own dropout offset);
 * below, the L2 is flushed (2x its size written) before each call, which
 * has events of its own.  GB/s count the bytes a call must move
 * (mcinit_kop_bytes). */
struct mcinit_kbench {
	double best_s, mean_s;           /* per call of op                     */
	double copy_best_s, copy_mean_s; /* per copy                           */
	size_t l2_bytes;                 /* the GPU's L2 (0: unknown, the CPU) */
	int flushed;                     /* 1: flushed before each call         */
};

/* The largest error of got, op's output on a's inputs (host memory), against
 * a->out, the reference's output: mcinit_ulps_at at each element's scale. */
double mcinit_kfast_error(enum mcinit_kop op, const struct mcinit_kargs *a, const void *got);

/* ---- the `kernels' phase: Megatron's _warmup_jit_function, checked and timed ---- */

enum mcinit_kdevice {
	MCINIT_KDEV_AUTO, /* the GPU when one is usable, else the CPU references */
	MCINIT_KDEV_CPU,
	MCINIT_KDEV_GPU /* MCINIT_KERR_NOGPU without one */
};

struct mcinit_kernels_job {
	enum mcinit_dtype dtype; /* bf16 if bf16, fp16 if fp16, else fp32 */
	int swiglu;              /* bias_swiglu instead of bias_gelu      */
	int sequence_parallel;
	long seq_length, micro_batch_size, hidden_size, ffn_hidden_size;
	long tp, cp;   /* tensor and context parallel sizes           */
	uint64_t seed; /* this rank's generator seed (the seeds phase) */
	int rank;      /* for the report                              */
	int calls;     /* forward calls per case; Megatron: 5         */
	enum mcinit_kdevice device;
	int gpu;              /* CUDA device ordinal (the device phase's)   */
	size_t sample;        /* elements checked per case                  */
	size_t cpu_max_elems; /* CPU path: cases are cut to this many rows' worth */
	int exact;            /* GPU: the bit-exact kernels, not the fast path */
};

/* Fills job with the defaults: fp32, gelu, 5 calls, AUTO, device 0, sample
 * 4096, cpu_max_elems 1<<20 (the CPU reference does ~10-25 M elements/s), tp = cp = 1;
 * shapes 0 (the caller sets them). */
void mcinit_kernels_job_init(struct mcinit_kernels_job *job);

struct mcinit_kernels_case {
	enum mcinit_kop op;
	size_t rows, cols;     /* as run (rows may be cut on the CPU path) */
	size_t rows_megatron;  /* the warm-up shape's rows                 */
	size_t bytes_per_call; /* mcinit_kop_bytes                         */
	double best_s, mean_s; /* per call                                 */
	double gbps;           /* bytes_per_call / best_s / 1e9            */
	double copy_gbps;      /* a D2D copy of as many bytes, same timing */
	double of_copy;        /* gbps / copy_gbps                         */
	int flushed;           /* L2 flushed before each call (mcinit_kbench) */
	size_t checked;        /* sampled elements compared                */
	double max_ulps;       /* largest difference, in ulps of the dtype */
	double ulps_allowed;   /* the tolerance: the fast path's bound      */
	int ok;                /* max_ulps within the tolerance            */
};

struct mcinit_kernels_result {
	int rank;
	const char *backend;  /* "gpu" or "cpu" (static string)             */
	char device_name[96]; /* the GPU's name, or "cpu"                    */
	double peak_gbps;     /* memory clock x bus width; 0 when unknown    */
	size_t l2_bytes;      /* the GPU's L2; 0 on the CPU                  */
	enum mcinit_dtype dtype;
	int ncases;
	struct mcinit_kernels_case cases[2]; /* activation, dropout-add      */
	double max_ulps_allowed;             /* the cases' largest ulps_allowed         */
	int exact;                           /* the bit-exact kernels ran, not the fast path */
	int ok;                              /* every case ok                               */
	int error;                           /* MCINIT_KERR_*                               */
	char message[256];                   /* what went wrong, when error != 0            */
};

/* Runs the phase: allocates Megatron's warm-up tensors (input [s/CP, MBS,
 * ffn/TP] with bias [ffn/TP]; input and residual [s'/CP, MBS, hidden] with
 * s' = s/TP under sequence parallelism, bias [hidden], p = 0.1), fills them
 * with uniform values in [-2, 2) from Philox (seed-derived, reproducible on
 * the host), makes job->calls forward calls per case, checks job->sample
 * output elements of the last call against the CPU reference and measures
 * the memory bandwidth.  Frees everything before it returns.  Returns
 * res->error; numeric mismatches give MCINIT_KERR_NUMERIC with res filled. */
int mcinit_kernels_phase(const struct mcinit_kernels_job *job, struct mcinit_kernels_result *res);

/* One line for the run's report: each case's GB/s and its fraction of the
 * measured copy, the path and its bound, how it was timed.  The phase runs
 * on one rank and sees no peer's figures: which GPU is slower than its
 * peers is mcinit_kernels_slowest's, over results gathered elsewhere.
 * Returns snprintf's count. */
int mcinit_kernels_summary(const struct mcinit_kernels_result *r, char *buf, size_t cap);

/* Across the ranks' results: the index of the slowest (lowest activation-case
 * GB/s) in *slowest and of the fastest in *fastest; returns how many ranks
 * fall below min_frac of the fastest (0 when min_frac <= 0). */
size_t mcinit_kernels_slowest(const struct mcinit_kernels_result *r, size_t n, double min_frac,
                              size_t *slowest, size_t *fastest);

/* ---- for the phase's backends and tests ---- */

/* The test-input value of element i of tensor `tensor' for generator `seed'
 * (uniform in [-2, 2), rounded to dt), as float: the phase fills its device
 * tensors with exactly these. */
float mcinit_kernels_input(enum mcinit_dtype dt, uint64_t seed, uint32_t tensor, uint64_t i);

/* Difference between a and b in units in the last place of dt (both already
 * representable in dt); 0 when equal, also for two NaNs; inf for NaN vs number. */
double mcinit_ulps(enum mcinit_dtype dt, float a, float b);

#ifdef __cplusplus
}
#endif

#endif
