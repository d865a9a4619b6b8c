/* gpu-driver.c — libcuda.so.1 opened at run time and bound (kdrv.h).
 *
 * Never linked: a binary that needs libcuda.so.1 does not start on a
 * machine without a driver, and the module is opened on those too (it
 * then says why it has no GPU).  The symbols are the ones a driver of
 * CUDA 11 already exports, by their exact names: cuda.h maps cuMemAlloc
 * to cuMemAlloc_v2 and, from CUDA 12.8, cuEventElapsedTime to
 * cuEventElapsedTime_v2, which older drivers lack; the plain
 * cuEventElapsedTime is in every driver. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kdrv.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct mcinit_kdrv drv;
static int ok;
static char why[1536];

/* Appends a reason to why, "; " between: every reason is kept, since the
 * one that matters is seldom the last. */
static void __attribute__((format(printf, 1, 2))) note(const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	if (n && n + 2 < sizeof why)
		memcpy(why + n, "; ", 3), n += 2;
	va_start(ap, fmt);
	if (n < sizeof why)
		vsnprintf(why + n, sizeof why - n, fmt, ap);
	va_end(ap);
}

/* dlopen of f; `from' says who named it ("" for the loader). */
static void *
try_open(const char *f, const char *from)
{
	void *h = dlopen(f, RTLD_NOW | RTLD_LOCAL);
	const char *e;

	if (h) {
		snprintf(drv.path, sizeof drv.path, "%s", f);
		return h;
	}
	e = dlerror();
	/* dlerror names the file in most cases; say it when it does not */
	if (e && strstr(e, f))
		note("%s%s", from, e);
	else
		note("%s%s: %s", from, f, e ? e : "not loadable");
	return NULL;
}

static void *
open_driver(void)
{
	const char *e = getenv("MCINIT_CUDA_DRIVER_LIBRARY");
	char f[sizeof drv.path];
	struct stat st;

	if (e && *e) {
		if (stat(e, &st) == 0 && S_ISDIR(st.st_mode)) {
			snprintf(f, sizeof f, "%s/libcuda.so.1", e);
			e = f;
		}
		return try_open(e, "MCINIT_CUDA_DRIVER_LIBRARY: ");
	}
	return try_open("libcuda.so.1", "");
}

#define BIND(field, sym)                                                                           \
	do {                                                                                       \
		if (!(*(void **)&drv.field = dlsym(h, sym))) {                                     \
			note("%s has no %s", drv.path, sym);                                       \
			return;                                                                    \
		}                                                                                  \
	} while (0)

static void
load(void)
{
	void *h = open_driver();
	char buf[160];
	CUresult e;

	if (!h)
		return;
	why[0] = '\0';
	BIND(Init, "cuInit");
	BIND(DriverGetVersion, "cuDriverGetVersion");
	BIND(GetErrorName, "cuGetErrorName");
	BIND(GetErrorString, "cuGetErrorString");
	BIND(DeviceGet, "cuDeviceGet");
	BIND(DeviceGetCount, "cuDeviceGetCount");
	BIND(DeviceGetName, "cuDeviceGetName");
	BIND(DeviceGetAttribute, "cuDeviceGetAttribute");
	BIND(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
	BIND(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
	BIND(CtxSetCurrent, "cuCtxSetCurrent");
	BIND(CtxGetCurrent, "cuCtxGetCurrent");
	BIND(CtxGetDevice, "cuCtxGetDevice");
	BIND(ModuleLoadData, "cuModuleLoadData");
	BIND(ModuleUnload, "cuModuleUnload");
	BIND(ModuleGetFunction, "cuModuleGetFunction");
	BIND(OccupancyMaxActiveBlocksPerMultiprocessor,
	     "cuOccupancyMaxActiveBlocksPerMultiprocessor");
	BIND(LaunchKernel, "cuLaunchKernel");
	BIND(MemAlloc, "cuMemAlloc_v2");
	BIND(MemFree, "cuMemFree_v2");
	BIND(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2");
	BIND(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2");
	BIND(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2");
	BIND(MemsetD8Async, "cuMemsetD8Async");
	BIND(StreamCreate, "cuStreamCreate");
	BIND(StreamDestroy, "cuStreamDestroy_v2");
	BIND(StreamSynchronize, "cuStreamSynchronize");
	BIND(EventCreate, "cuEventCreate");
	BIND(EventDestroy, "cuEventDestroy_v2");
	BIND(EventRecord, "cuEventRecord");
	BIND(EventSynchronize, "cuEventSynchronize");
	BIND(EventElapsedTime, "cuEventElapsedTime");
	if ((e = drv.Init(0)) != CUDA_SUCCESS) {
		note("%s: cuInit: %s", drv.path, mcinit_kdrv_error(&drv, e, buf, sizeof buf));
		return;
	}
	if (drv.DriverGetVersion(&drv.version) != CUDA_SUCCESS)
		drv.version = 0;
	ok = 1;
}

const struct mcinit_kdrv *
mcinit_kdrv(char *w, size_t cap)
{
	pthread_once(&once, load);
	if (!ok && w)
		snprintf(w, cap, "no CUDA driver: %s", why);
	return ok ? &drv : NULL;
}

const char *
mcinit_kdrv_error(const struct mcinit_kdrv *d, CUresult e, char *buf, size_t cap)
{
	const char *name = NULL, *text = NULL;

	if (d->GetErrorName && d->GetErrorName(e, &name) != CUDA_SUCCESS)
		name = NULL;
	if (d->GetErrorString && d->GetErrorString(e, &text) != CUDA_SUCCESS)
		text = NULL;
	snprintf(buf, cap, "%s (%d)%s%s", name ? name : "CUDA error", (int)e, text ? ": " : "",
	         text ? text : "");
	return buf;
}
