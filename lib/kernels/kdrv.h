/* kdrv.h — the CUDA driver API as the kernels module uses it: libcuda.so.1
 * opened at run time (gpu-driver.c), never linked, and its calls bound by
 * the exact symbols every driver from R450 exports (the _v2 ones where
 * cuda.h maps a name to one), so that one module runs on any driver that
 * knows the GPU.  Not a public header. */
#ifndef MCINIT_KDRV_H
#define MCINIT_KDRV_H

#include <cuda.h>
#include <stddef.h>

struct mcinit_kdrv {
	CUresult (*Init)(unsigned);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*GetErrorName)(CUresult, const char **);
	CUresult (*GetErrorString)(CUresult, const char **);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, CUdevice_attribute, CUdevice);
	CUresult (*DevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*DevicePrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxGetCurrent)(CUcontext *);
	CUresult (*CtxGetDevice)(CUdevice *);
	CUresult (*ModuleLoadData)(CUmodule *, const void *);
	CUresult (*ModuleUnload)(CUmodule);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*OccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
	                         unsigned, unsigned, CUstream, void **, void **);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemcpyHtoDAsync)(CUdeviceptr, const void *, size_t, CUstream);
	CUresult (*MemcpyDtoHAsync)(void *, CUdeviceptr, size_t, CUstream);
	CUresult (*MemcpyDtoDAsync)(CUdeviceptr, CUdeviceptr, size_t, CUstream);
	CUresult (*MemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
	CUresult (*StreamCreate)(CUstream *, unsigned);
	CUresult (*StreamDestroy)(CUstream);
	CUresult (*StreamSynchronize)(CUstream);
	CUresult (*EventCreate)(CUevent *, unsigned);
	CUresult (*EventDestroy)(CUevent);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	char path[512]; /* the file opened, or the loader's name for it */
	int version;    /* cuDriverGetVersion's: 12020 for CUDA 12.2 */
};

/* The driver, opened and initialised (cuInit) once per process:
 * $MCINIT_CUDA_DRIVER_LIBRARY (a file, or a folder holding libcuda.so.1)
 * when set, else libcuda.so.1 as the dynamic loader finds it.  NULL when
 * that fails, every reason in why[cap] (each place tried, a missing
 * symbol, cuInit's error). */
const struct mcinit_kdrv *mcinit_kdrv(char *why, size_t cap);

/* "CUDA_ERROR_NAME (N): description" of e into buf[cap]; buf. */
const char *mcinit_kdrv_error(const struct mcinit_kdrv *d, CUresult e, char *buf, size_t cap);

#endif
