/* cuda.c — the test double of CUDA's driver, libcuda.so.1: the driver
 * calls the kernels module makes (lib/kernels/kdrv.h), on the CPU.  Its
 * cuModuleLoadData reads the module's fatbin and takes an image as a
 * driver would: the cubin for the "GPU" (sm_90 unless MCDOUBLE_SM says
 * otherwise) when the driver (MCDOUBLE_DRIVER_VERSION, default 13.0)
 * knows its ELF format (cubin_release), else the PTX when the driver can
 * JIT its ISA, else CUDA_ERROR_UNSUPPORTED_PTX_VERSION or
 * CUDA_ERROR_NO_BINARY_FOR_GPU.  cuLaunchKernel runs the named kernel on
 * the host: a table from kernel name (knames.h) to a host build of the
 * same bodies (kbody.h, kwalk.h through khost.h), every thread of the
 * grid in turn.  Test-only: tests/double/README.md.
 *
 * Not faithful: work runs at the call, not later on a stream (the
 * runtime double, cudart.c, models streams; the kernels module
 * synchronises before it reads); the fast path's kernels with 32-bit
 * indices run the 64-bit walk (same elements); events time the host. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/khost.h"
#include "kernels/knames.h"

#define API __attribute__((visibility("default")))

/* The driver API's types as the ABI has them (not cuda.h's: its macros
 * rename the calls this file defines by their exported names). */
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_IMAGE = 200,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
	CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
	CUDA_ERROR_INVALID_HANDLE = 400,
	CUDA_ERROR_NOT_FOUND = 500,
};
/* cuDeviceGetAttribute's, as cuda.h numbers them */
enum {
	ATTR_MULTIPROCESSOR_COUNT = 16,
	ATTR_MEMORY_CLOCK_RATE = 36,
	ATTR_GLOBAL_MEMORY_BUS_WIDTH = 37,
	ATTR_L2_CACHE_SIZE = 38,
	ATTR_COMPUTE_CAPABILITY_MAJOR = 75,
	ATTR_COMPUTE_CAPABILITY_MINOR = 76,
};

struct mcd_ctx {
	CUdevice dev;
	int retained;
};

/* A kernel of the table: what the name runs on the host. */
enum { K_OP, K_FILL, K_GATHER };
struct mcd_kernel {
	const char *name;
	int kind, op, dt, fast;
};

struct mcd_module {
	const char *image; /* the image taken: its kernels' names are in it */
	size_t len;
};

struct mcd_event {
	double t;
};

static int inited;
static struct mcd_ctx ctxs[64];
static __thread struct mcd_ctx *cur;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : dflt;
}

/* The CUDA release the driver is of (12020: R535's 12.2). */
static int
driver_version(void)
{
	return env_int("MCDOUBLE_DRIVER_VERSION", 13000);
}

/* The GPU's SM (90: H100). */
static int
device_sm(void)
{
	return env_int("MCDOUBLE_SM", 90);
}

/* Devices as the runtime double counts them: MCDOUBLE_DEVICES (8), fewer
 * by CUDA_VISIBLE_DEVICES, none when it is empty. */
static int
visible(void)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	int all = env_int("MCDOUBLE_DEVICES", 8), k = 0;

	if (all > 64)
		all = 64;
	if (!v)
		return all;
	for (; *v; v++)
		k += *v == ',';
	return getenv("CUDA_VISIBLE_DEVICES")[0] ? (k + 1 < all ? k + 1 : all) : 0;
}

/* ---- initialisation, errors, devices, contexts ---- */

API CUresult
cuInit(unsigned flags)
{
	if (flags)
		return CUDA_ERROR_INVALID_VALUE;
	if (visible() == 0)
		return CUDA_ERROR_NO_DEVICE;
	inited = 1;
	return CUDA_SUCCESS;
}

API CUresult
cuDriverGetVersion(int *v)
{
	*v = driver_version();
	return CUDA_SUCCESS;
}

static const struct cu_error {
	CUresult e;
	const char *name, *text;
} errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_NO_BINARY_FOR_GPU, "CUDA_ERROR_NO_BINARY_FOR_GPU",
     "no kernel image is available for execution on the device"},
    {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
     "the provided PTX was compiled with an unsupported toolchain."},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
};

/* The row of errors[] for e, or NULL. */
static const struct cu_error *
error_row(CUresult e)
{
	size_t i;

	for (i = 0; i < sizeof errors / sizeof errors[0]; i++)
		if (errors[i].e == e)
			return &errors[i];
	return NULL;
}

API CUresult
cuGetErrorName(CUresult e, const char **s)
{
	const struct cu_error *r = error_row(e);

	*s = r ? r->name : NULL;
	return r ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

API CUresult
cuGetErrorString(CUresult e, const char **s)
{
	const struct cu_error *r = error_row(e);

	*s = r ? r->text : NULL;
	return r ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

API CUresult
cuDeviceGetCount(int *n)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	*n = visible();
	return CUDA_SUCCESS;
}

API CUresult
cuDeviceGet(CUdevice *d, int ordinal)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (ordinal < 0 || ordinal >= visible())
		return CUDA_ERROR_INVALID_DEVICE;
	*d = ordinal;
	return CUDA_SUCCESS;
}

API CUresult
cuDeviceGetName(char *name, int len, CUdevice d)
{
	if (d < 0 || d >= visible() || len <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	snprintf(name, (size_t)len, "mcdouble GPU %d (sm_%d)", d, device_sm());
	return CUDA_SUCCESS;
}

API CUresult
cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
	if (d < 0 || d >= visible())
		return CUDA_ERROR_INVALID_DEVICE;
	switch (attr) {
	case ATTR_MULTIPROCESSOR_COUNT:
		*v = 4;
		return CUDA_SUCCESS;
	case ATTR_MEMORY_CLOCK_RATE:
		*v = 2619000;
		return CUDA_SUCCESS;
	case ATTR_GLOBAL_MEMORY_BUS_WIDTH:
		*v = 5120;
		return CUDA_SUCCESS;
	case ATTR_L2_CACHE_SIZE:
		*v = 1 << 20; /* small: the timing's flushes are host memsets */
		return CUDA_SUCCESS;
	case ATTR_COMPUTE_CAPABILITY_MAJOR:
		*v = device_sm() / 10;
		return CUDA_SUCCESS;
	case ATTR_COMPUTE_CAPABILITY_MINOR:
		*v = device_sm() % 10;
		return CUDA_SUCCESS;
	}
	return CUDA_ERROR_INVALID_VALUE;
}

API CUresult
cuDevicePrimaryCtxRetain(struct mcd_ctx **c, CUdevice d)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (d < 0 || d >= visible())
		return CUDA_ERROR_INVALID_DEVICE;
	ctxs[d].dev = d;
	__atomic_add_fetch(&ctxs[d].retained, 1, __ATOMIC_SEQ_CST);
	*c = &ctxs[d];
	return CUDA_SUCCESS;
}

API CUresult
cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	if (d < 0 || d >= visible() || ctxs[d].retained <= 0)
		return CUDA_ERROR_INVALID_DEVICE;
	__atomic_sub_fetch(&ctxs[d].retained, 1, __ATOMIC_SEQ_CST);
	return CUDA_SUCCESS;
}

API CUresult
cuCtxSetCurrent(struct mcd_ctx *c)
{
	if (c && (c < ctxs || c >= ctxs + 64 || c->retained <= 0))
		return CUDA_ERROR_INVALID_CONTEXT;
	cur = c;
	return CUDA_SUCCESS;
}

API CUresult
cuCtxGetCurrent(struct mcd_ctx **c)
{
	if (!inited)
		return CUDA_ERROR_NOT_INITIALIZED;
	*c = cur;
	return CUDA_SUCCESS;
}

API CUresult
cuCtxGetDevice(CUdevice *d)
{
	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	*d = cur->dev;
	return CUDA_SUCCESS;
}

/* ---- modules: the fatbin, and which image a driver takes ---- */

/* The highest PTX ISA a driver of CUDA release v JITs (x10: 78 = 7.8),
 * from the PTX ISA's release notes: 7.x for CUDA 11.x, 8.0-8.5 for 12.0
 * to 12.5, 8.5 for 12.6, 8.7 for 12.8, 8.8 for 12.9, 9.0 for 13.0. */
static int
max_isa(int v)
{
	int major = v / 1000, minor = v % 1000 / 10;

	if (major < 11)
		return 0;
	if (major == 11)
		return 70 + (minor > 8 ? 8 : minor);
	if (major == 12)
		return minor <= 5   ? 80 + minor
		       : minor == 6 ? 85
		       : minor == 7 ? 86
		       : minor == 8 ? 87
		                    : 88;
	return 90 + (major - 13) * 10 + (minor > 9 ? 9 : minor);
}

/* The oldest driver (CUDA release) that loads a cubin for sm_<arch>, from
 * its ELF header: the old format (e_ident[8], the ABI version, 7; OS/ABI
 * 0x33) is what a CUDA 12.x ptxas writes for sm_80 and sm_90, loadable from
 * 12.0's driver (R525: minor-version compatibility); the new one (ABI 8,
 * OS/ABI 0x41) is what 13.x's writes for every GPU, R580's, and 12.8's for
 * sm_100, which drivers know from 12.8 (R570).  -1: not an ELF image. */
static int
cubin_release(const unsigned char *elf, size_t len, unsigned arch)
{
	if (len < 16 || memcmp(elf, "\177ELF", 4) != 0)
		return -1;
	if (elf[8] < 8)
		return 12000;
	return arch >= 100 ? 12080 : 13000;
}

/* The ".version X.Y" of PTX text, x10; -1 when absent. */
static int
ptx_isa(const char *ptx, size_t len)
{
	const char *v = memmem(ptx, len, ".version ", 9);
	int major = 0, minor = 0;

	if (!v || sscanf(v + 9, "%d.%d", &major, &minor) != 2)
		return -1;
	return major * 10 + minor;
}

#define FATBIN_MAGIC 0xBA55ED50u

API CUresult
cuModuleLoadData(struct mcd_module **m, const void *image)
{
	const unsigned char *p = image;
	uint32_t magic;
	uint16_t hsize;
	uint64_t fsize, pos;
	int sm = device_sm(), drv = driver_version(), saw_ptx = 0, isa;
	const unsigned char *elf = NULL, *ptx = NULL;
	size_t elf_len = 0, ptx_len = 0;
	unsigned elf_arch = 0;

	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	memcpy(&magic, p, 4);
	if (magic != FATBIN_MAGIC)
		return CUDA_ERROR_INVALID_IMAGE;
	/* the container: magic, version, header size, size of the entries;
	 * each entry: kind (1 PTX, 2 ELF) at 0, its header's size at 4, its
	 * payload's at 8, SM at 28.  A compressed payload (the build makes
	 * none) is neither ELF nor PTX text here, so it is not taken. */
	memcpy(&hsize, p + 6, 2);
	memcpy(&fsize, p + 8, 8);
	for (pos = hsize; pos + 32 <= (uint64_t)hsize + fsize;) {
		uint16_t kind;
		uint32_t ehsize, arch;
		uint64_t psize;

		memcpy(&kind, p + pos, 2);
		memcpy(&ehsize, p + pos + 4, 4);
		memcpy(&psize, p + pos + 8, 8);
		memcpy(&arch, p + pos + 28, 4);
		/* an sm_80 cubin runs on sm_86 and sm_89: same major, not newer */
		if (kind == 2 && (int)arch / 10 == sm / 10 && (int)arch <= sm &&
		    (!elf || arch == (uint32_t)sm) &&
		    cubin_release(p + pos + ehsize, psize, arch) > 0) {
			elf = p + pos + ehsize;
			elf_len = psize;
			elf_arch = arch;
		}
		if (kind == 1 && (int)arch <= sm) {
			saw_ptx = 1;
			isa = ptx_isa((const char *)p + pos + ehsize, psize);
			if (isa >= 0 && isa <= max_isa(drv)) {
				ptx = p + pos + ehsize;
				ptx_len = psize;
			}
		}
		pos += ehsize + psize;
	}
	if (elf && cubin_release(elf, elf_len, elf_arch) > drv)
		elf = NULL; /* too new for this driver: JIT the PTX instead */
	if (!elf && !ptx)
		return saw_ptx ? CUDA_ERROR_UNSUPPORTED_PTX_VERSION : CUDA_ERROR_NO_BINARY_FOR_GPU;
	if (!(*m = calloc(1, sizeof **m)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*m)->image = (const char *)(elf ? elf : ptx);
	(*m)->len = elf ? elf_len : ptx_len;
	return CUDA_SUCCESS;
}

API CUresult
cuModuleUnload(struct mcd_module *m)
{
	free(m);
	return CUDA_SUCCESS;
}

#define KT_OP(op, OP, dt, DT)                                                                      \
	{KM_KNAME(op, dt, exact), K_OP, OP, DT, 0}, {KM_KNAME(op, dt, fast32), K_OP, OP, DT, 1},   \
	    {KM_KNAME(op, dt, fast64), K_OP, OP, DT, 1},
#define KT_FILL(dt, DT)   {KM_FILLNAME(dt), K_FILL, 0, DT, 0},
#define KT_GATHER(dt, DT) {KM_GATHERNAME(dt), K_GATHER, 0, DT, 0},
static const struct mcd_kernel kernels[] = {KM_FOR_OP_DT(KT_OP) KM_FOR_DTYPE(KT_FILL)
                                                KM_FOR_DTYPE(KT_GATHER)};

/* Whether the image defines the kernel: ".entry NAME(" in PTX, the name
 * between NULs in a cubin's string table. */
static int
image_has(const struct mcd_module *m, const char *name)
{
	char pat[128];
	int n;

	if (m->len >= 4 && memcmp(m->image, "\177ELF", 4) == 0)
		n = snprintf(pat, sizeof pat, "%c%s%c", 0, name, 0);
	else
		n = snprintf(pat, sizeof pat, ".entry %s(", name);
	return n > 0 && (size_t)n < sizeof pat && memmem(m->image, m->len, pat, (size_t)n);
}

API CUresult
cuModuleGetFunction(const struct mcd_kernel **f, struct mcd_module *m, const char *name)
{
	size_t i;

	if (!m)
		return CUDA_ERROR_INVALID_HANDLE;
	if (image_has(m, name))
		for (i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
			if (strcmp(kernels[i].name, name) == 0) {
				*f = &kernels[i];
				return CUDA_SUCCESS;
			}
	return CUDA_ERROR_NOT_FOUND;
}

API CUresult
cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const struct mcd_kernel *f, int threads,
                                            size_t shmem)
{
	(void)shmem;
	if (!f || threads <= 0)
		return CUDA_ERROR_INVALID_VALUE;
	*n = 2048 / threads; /* registers allowing, as the kernels' launch bounds ask */
	return CUDA_SUCCESS;
}

/* ---- launches: the kernels' bodies on the host ---- */

API CUresult
cuLaunchKernel(const struct mcd_kernel *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
               unsigned by, unsigned bz, unsigned shmem, void *stream, void **params, void **extra)
{
	uint64_t nth = (uint64_t)gx * bx, t, i;

	(void)stream;
	(void)shmem;
	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!f || !params || extra || gy != 1 || gz != 1 || by != 1 || bz != 1 || gx == 0 ||
	    bx == 0 || bx > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	if (f->kind == K_OP) {
		const struct km_plan *p = params[0];

		for (t = 0; t < nth; t++)
			km_body(f->op, f->dt, f->fast, p, t, nth);
	} else if (f->kind == K_FILL) {
		char *dst = *(char **)params[0];
		uint64_t n = *(uint64_t *)params[1], seed = *(uint64_t *)params[2];
		uint32_t tensor = *(uint32_t *)params[3];

		for (t = 0; t < nth; t++)
			for (i = t; i < n; i += nth)
				km_st(f->dt, dst, i, km_input(f->dt, seed, tensor, i));
	} else {
		const char *src = *(const char **)params[0];
		const uint64_t *idx = *(const uint64_t **)params[1];
		uint64_t k = *(uint64_t *)params[2];
		float *dst = *(float **)params[3];

		for (t = 0; t < nth && t < k; t++)
			dst[t] = km_ld(f->dt, src, idx[t]);
	}
	return CUDA_SUCCESS;
}

/* ---- memory, streams, events (work at the call) ---- */

API CUresult
cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	void *m = NULL;

	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	/* cudaMalloc's alignment: the kernels' vector path needs 16 */
	if (n == 0 || posix_memalign(&m, 256, n) != 0)
		return n ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
	*p = (CUdeviceptr)(uintptr_t)m;
	return CUDA_SUCCESS;
}

API CUresult
cuMemFree_v2(CUdeviceptr p)
{
	free((void *)(uintptr_t)p);
	return CUDA_SUCCESS;
}

API CUresult
cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *s)
{
	(void)s;
	memcpy((void *)(uintptr_t)dst, src, n);
	return CUDA_SUCCESS;
}

API CUresult
cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *s)
{
	(void)s;
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

API CUresult
cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s)
{
	(void)s;
	memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

API CUresult
cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, void *s)
{
	(void)s;
	memset((void *)(uintptr_t)dst, v, n);
	return CUDA_SUCCESS;
}

API CUresult
cuStreamCreate(void **s, unsigned flags)
{
	(void)flags;
	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	*s = malloc(1);
	return *s ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

API CUresult
cuStreamDestroy_v2(void *s)
{
	free(s);
	return CUDA_SUCCESS;
}

API CUresult
cuStreamSynchronize(void *s)
{
	(void)s;
	return cur ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

API CUresult
cuEventCreate(struct mcd_event **e, unsigned flags)
{
	(void)flags;
	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	*e = calloc(1, sizeof **e);
	return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

API CUresult
cuEventDestroy_v2(struct mcd_event *e)
{
	free(e);
	return CUDA_SUCCESS;
}

API CUresult
cuEventRecord(struct mcd_event *e, void *s)
{
	(void)s;
	if (!e)
		return CUDA_ERROR_INVALID_HANDLE;
	e->t = now();
	return CUDA_SUCCESS;
}

API CUresult
cuEventSynchronize(struct mcd_event *e)
{
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

API CUresult
cuEventElapsedTime(float *ms, struct mcd_event *a, struct mcd_event *b)
{
	if (!a || !b)
		return CUDA_ERROR_INVALID_HANDLE;
	*ms = (float)((b->t - a->t) * 1e3);
	return CUDA_SUCCESS;
}
