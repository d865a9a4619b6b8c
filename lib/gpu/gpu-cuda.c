/* gpu-cuda.c — the CUDA runtime half of the GPU backend (gpu.h): devices
 * and versions, and the runtime's table (gpu-cudart.h), filled from the
 * libcudart found at the first call.  Nothing links libcudart or libcuda:
 * a machine without CUDA still runs every command but the GPU phases, and
 * hears what is missing from mcinit_cuda_count. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "build.h" /* MCINIT_BUILD_CUDA_DIR */
#include "core/dlfind.h"
#include "gpu/gpu-cuda.h"
#include "gpu/gpu-cudart.h"
#include "gpu/gpu.h"

struct mcinit_cudart mcinit_cudart;
static pthread_once_t cudart_once = PTHREAD_ONCE_INIT;
static char cudart_why[2048] = "not loaded"; /* empty once loaded */
static struct mcinit_dl_found cudart_found;
static int cudart_major; /* of the runtime loaded: 12 or 13 */
/* cudaGetDeviceProperties as the runtime loaded names it: in CUDA 12 the
 * plain symbol fills CUDA 11's struct, cudaGetDeviceProperties_v2 (what
 * 12's headers call) 12's; in 13 the plain one is 13's.  Every layout
 * opens with name[256], the one field read; the buffer is larger than any
 * of them. */
static cudaError_t (*props_fn)(void *prop, int device);

/* The wheels that carry libcudart: nvidia-cuda-runtime (CUDA 13:
 * nvidia/cu13/lib; CUDA 12: nvidia/cuda_runtime/lib). */
static const char *const cudart_subs[] = {"cu13", "cuda_runtime", NULL};

/* The CUDA version a libcudart says it is (cudaRuntimeGetVersion), 0. */
static int
runtime_of(void *h)
{
	cudaError_t (*fn)(int *);
	int v = 0;

	*(void **)&fn = dlsym(h, "cudaRuntimeGetVersion");
	return fn && fn(&v) == cudaSuccess ? v : 0;
}

/* The CUDA version the driver supports (cudaDriverGetVersion), 0. */
static int
driver_of(void *h)
{
	cudaError_t (*fn)(int *);
	int v = 0;

	*(void **)&fn = dlsym(h, "cudaDriverGetVersion");
	return fn && fn(&v) == cudaSuccess ? v : 0;
}

/* libcudart.so.13 and libcudart.so.12 are both bound (issue 40): PyTorch's
 * CUDA 12 wheels bring 12, and drivers before R580 run only 12.  Each is
 * looked for where the trainer's Python would find it; the one found
 * earlier in that order is the trainer's.  Found at the same step, the
 * newer one the driver runs. */
static void
cudart_open(void)
{
	static const int majors[] = {13, 12};
	struct mcinit_dl_found f[2];
	char soname[32], why[2][sizeof cudart_why / 2];
	void *h[2];
	int i, pick = -1;

	for (i = 0; i < 2; i++) {
		snprintf(soname, sizeof soname, "libcudart.so.%d", majors[i]);
		h[i] = mcinit_dl_find_py(soname, "MCINIT_CUDA_LIBRARY", cudart_subs,
		                         MCINIT_BUILD_CUDA_DIR[0] ? MCINIT_BUILD_CUDA_DIR "/lib64"
		                                                  : NULL,
		                         &f[i], why[i], sizeof why[i]);
	}
	if (h[0] && h[1]) {
		int drv = driver_of(h[0]);

		if (f[0].used.tier != f[1].used.tier)
			pick = f[0].used.tier < f[1].used.tier ? 0 : 1;
		else
			pick = drv && drv < 13000 ? 1 : 0;
	} else if (h[0] || h[1]) {
		pick = h[0] ? 0 : 1;
	}
	for (i = 0; i < 2; i++)
		if (h[i] && i != pick && h[i] != h[pick])
			dlclose(h[i]);
	if (pick < 0) {
		snprintf(cudart_why, sizeof cudart_why, "%.1000s; %.1000s", why[0], why[1]);
		memset(&cudart_found, 0, sizeof cudart_found);
		return;
	}
	cudart_found = f[pick];
	cudart_major = runtime_of(h[pick]) / 1000;
	cudart_why[0] = '\0';
	if (cudart_major != 12 && cudart_major != 13) {
		snprintf(cudart_why, sizeof cudart_why,
		         "%.300s is CUDA runtime %d; mcinit binds 12 and 13",
		         cudart_found.used.file, cudart_major);
		return;
	}
#define CUDART_FIND(f)                                                                             \
	if ((*(void **)&mcinit_cudart.dl_##f = dlsym(h[pick], #f)) == NULL &&                      \
	    cudart_why[0] == '\0')                                                                 \
		snprintf(cudart_why, sizeof cudart_why, "%.300s: no %s", cudart_found.used.file,   \
		         #f);
	MCINIT_CUDART_CALLS(CUDART_FIND)
#undef CUDART_FIND
	*(void **)&props_fn = dlsym(h[pick], cudart_major == 12 ? "cudaGetDeviceProperties_v2"
	                                                        : "cudaGetDeviceProperties");
	if (!props_fn && cudart_why[0] == '\0')
		snprintf(cudart_why, sizeof cudart_why, "%.300s: no %s", cudart_found.used.file,
		         cudart_major == 12 ? "cudaGetDeviceProperties_v2"
		                            : "cudaGetDeviceProperties");
}

int
mcinit_cudart_load(char *why, size_t cap)
{
	pthread_once(&cudart_once, cudart_open);
	if (cudart_why[0] == '\0')
		return 0;
	if (why)
		snprintf(why, cap, "%s", cudart_why);
	return -1;
}

const char *
mcinit_cudart_path(void)
{
	return mcinit_cudart_load(NULL, 0) == 0 ? cudart_found.used.file : "";
}

const struct mcinit_dl_found *
mcinit_cudart_found(void)
{
	pthread_once(&cudart_once, cudart_open);
	return &cudart_found;
}

int
mcinit_cuda_count(char *why, size_t cap)
{
	char w[sizeof cudart_why];
	cudaError_t rc;
	int n = 0;

	if (mcinit_cudart_load(w, sizeof w) != 0) {
		snprintf(why, cap, "no CUDA runtime: %s", w);
		return 0;
	}
	rc = cudaGetDeviceCount(&n);
	/* cudaErrorInsufficientDriver is both "no driver at all" and "a driver
	 * too old for this runtime": cudaDriverGetVersion tells them apart */
	if (rc == cudaErrorInsufficientDriver) {
		int drv = 0, rt = 0;

		if (cudaDriverGetVersion(&drv) == cudaSuccess && drv > 0 &&
		    cudaRuntimeGetVersion(&rt) == cudaSuccess)
			snprintf(why, cap,
			         "the NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d "
			         "runtime loaded (%s): cudaGetDeviceCount gave %s; use a CUDA %d "
			         "runtime (MCINIT_CUDA_LIBRARY) or update the driver",
			         drv / 1000, drv % 1000 / 10, rt / 1000, rt % 1000 / 10,
			         cudart_found.used.file, cudaGetErrorName(rc), drv / 1000);
		else
			snprintf(why, cap, "no NVIDIA driver: cudaGetDeviceCount gave %s",
			         cudaGetErrorName(rc));
	} else if (rc == cudaErrorNoDevice)
		snprintf(why, cap, "no device: cudaGetDeviceCount gave %s", cudaGetErrorName(rc));
	else if (rc != cudaSuccess)
		snprintf(why, cap, "cudaGetDeviceCount: %s: %s", cudaGetErrorName(rc),
		         cudaGetErrorString(rc));
	else if (n == 0)
		snprintf(why, cap, "cudaGetDeviceCount found none");
	if (rc != cudaSuccess)
		(void)cudaGetLastError(); /* clear the sticky-free error for later calls */
	return rc == cudaSuccess ? n : 0;
}

void
mcinit_cuda_versions(struct mcinit_gpu_versions *v)
{
	int x = 0;

	memset(v, 0, sizeof *v);
	/* libcudart first, as mcinit run opens them: a libnccl that needs
	 * libcudart.so.N by soname then finds the one chosen here */
	(void)mcinit_cudart_load(NULL, 0);
	v->nccl_header = NCCL_VERSION_CODE;
	v->cuda_header = CUDART_VERSION;
	v->nccl_runtime = mcinit_nccl_runtime_version();
	v->nccl_library = mcinit_nccl_path();
	v->nccl_missing = mcinit_nccl_missing();
	v->cuda_library = mcinit_cudart_path();
	/* why those files, and a different libnccl the trainer may load */
	v->nccl_how = mcinit_nccl_found()->used.how;
	v->cuda_how = mcinit_cudart_found()->used.how;
	v->nccl_other = mcinit_nccl_found()->other.file;
	v->nccl_other_how = mcinit_nccl_found()->other.how;
	if (mcinit_cudart_load(NULL, 0) == 0) {
		if (cudaRuntimeGetVersion(&x) == cudaSuccess)
			v->cuda_runtime = x;
		/* 0 without a driver: the report then says null */
		if (cudaDriverGetVersion(&x) == cudaSuccess)
			v->cuda_driver = x;
	}
	/* a GPU node: its driver answers, or its kernel module is loaded (the
	 * runtime itself may be what is missing) */
	v->gpu_node = v->cuda_driver > 0 || access("/proc/driver/nvidia/version", F_OK) == 0 ||
	              access("/dev/nvidiactl", F_OK) == 0;
}

int
mcinit_cuda_busid(int device, char *busid, size_t cap)
{
	if (cap == 0)
		return -1;
	busid[0] = '\0';
	if (mcinit_cudart_load(NULL, 0) != 0)
		return -1;
	if (cap > (size_t)INT32_MAX ||
	    cudaDeviceGetPCIBusId(busid, (int)cap, device) != cudaSuccess) {
		(void)cudaGetLastError();
		busid[0] = '\0';
		return -1;
	}
	return 0;
}

int
mcinit_cuda_props(int device, struct mcinit_gpu_props *p)
{
	union {
		char name[256];
		unsigned char any[8192]; /* any runtime's cudaDeviceProp: see select */
	} u;
	int v = 0;

	if (mcinit_cudart_load(NULL, 0) != 0 || props_fn(&u, device) != cudaSuccess) {
		(void)cudaGetLastError();
		return -1;
	}
	u.name[sizeof u.name - 1] = '\0';
	snprintf(p->name, sizeof p->name, "%s", u.name);
	mcinit_cuda_busid(device, p->busid, sizeof p->busid);
	if (cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, device) == cudaSuccess)
		p->compute_mode = v;
	if (cudaDeviceGetAttribute(&v, cudaDevAttrEccEnabled, device) == cudaSuccess)
		p->ecc = v != 0;
	(void)cudaGetLastError();
	return 0;
}

int
mcinit_cuda_select(int device, char *busid, size_t cap, char *name, size_t ncap,
                   struct mcinit_err *err)
{
	/* larger than any runtime's struct cudaDeviceProp (12's is 1,032
	 * bytes, 13's less): name[256] first in each */
	union {
		struct cudaDeviceProp p;
		char name[256];
		unsigned char any[8192];
	} u;
	char why[sizeof cudart_why];
	cudaError_t rc;

	if (mcinit_cudart_load(why, sizeof why) != 0)
		return mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "no CUDA runtime: %s", why);
	rc = cudaSetDevice(device);
	if (rc == cudaSuccess)
		rc = props_fn(&u, device);
	if (rc != cudaSuccess)
		return mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "cudaSetDevice(%d): %s: %s",
		                      device, cudaGetErrorName(rc), cudaGetErrorString(rc));
	u.name[sizeof u.name - 1] = '\0';
	snprintf(name, ncap, "%s", u.name);
	mcinit_cuda_busid(device, busid, cap);
	return 0;
}
