/* gpu-nvml.c — what only NVML (the driver's management library,
 * libnvidia-ml.so.1) knows of a device: its MIG mode and its active
 * NVLinks, for `mcinit doctor` (issue 40).  NVML comes with the driver, not
 * with CUDA's runtime or a wheel, so it is opened as the loader finds it
 * (or from $MCINIT_NVML_LIBRARY: a file, or a folder holding it), at the
 * first call, and never linked: every build has this file, CUDA or not.
 *
 * The few NVML types and calls used are declared here from NVML's
 * documented interface (nvml.h's values), so that no NVML header is
 * needed to build. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "core/dlfind.h"
#include "gpu/gpu.h"

typedef int nvml_return;              /* nvmlReturn_t: 0 NVML_SUCCESS */
typedef struct nvml_dev *nvml_device; /* nvmlDevice_t */
#define NVML_SUCCESS         0
#define NVML_MAX_NVLINKS     18 /* NVML_NVLINK_MAX_LINKS */
#define NVML_FEATURE_ENABLED 1  /* nvmlEnableState_t */
#define NVML_MIG_ENABLE      1  /* NVML_DEVICE_MIG_ENABLE */

static struct {
	nvml_return (*init)(void);
	nvml_return (*by_busid)(const char *busid, nvml_device *d);
	nvml_return (*mig_mode)(nvml_device d, unsigned *current, unsigned *pending);
	nvml_return (*nvlink_state)(nvml_device d, unsigned link, int *active);
	const char *(*error_string)(nvml_return r);
} nvml;
static const char *const nvml_names[] = {"nvmlInit_v2", "nvmlDeviceGetHandleByPciBusId_v2",
                                         "nvmlDeviceGetMigMode", "nvmlDeviceGetNvLinkState",
                                         "nvmlErrorString"};
static pthread_once_t nvml_once = PTHREAD_ONCE_INIT;
static char nvml_why[1024] = "not loaded"; /* empty once loaded */
static char nvml_path[512];

/* Opens and initializes NVML once for the process (NVML is reference
 * counted and meant to stay initialized; it is not shut down). */
static void
nvml_load(void)
{
	char why[768];
	void *h = mcinit_dl_find("libnvidia-ml.so.1", "MCINIT_NVML_LIBRARY", NULL, NULL, nvml_path,
	                         sizeof nvml_path, why, sizeof why);
	nvml_return r;

	if (h == NULL) {
		snprintf(nvml_why, sizeof nvml_why, "no NVML (libnvidia-ml.so.1, the driver's): %s",
		         why);
		return;
	}
	if (mcinit_dl_resolve(h, nvml_path, nvml_names, sizeof nvml_names / sizeof nvml_names[0],
	                      (void **)&nvml, " (an NVML older than R450?)", nvml_why,
	                      sizeof nvml_why) != 0) {
		dlclose(h);
		return;
	}
	if ((r = nvml.init()) != NVML_SUCCESS) {
		snprintf(nvml_why, sizeof nvml_why, "%s: nvmlInit: %s", nvml_path,
		         nvml.error_string(r));
		return;
	}
	nvml_why[0] = '\0';
}

int
mcinit_nvml_props(const char *busid, struct mcinit_nvml_props *p, char *why, size_t cap)
{
	nvml_device d;
	unsigned cur, pend, link;
	nvml_return r;

	p->mig = p->mig_pending = p->nvlinks = -1;
	pthread_once(&nvml_once, nvml_load);
	if (nvml_why[0] != '\0') {
		snprintf(why, cap, "%s", nvml_why);
		return -1;
	}
	if ((r = nvml.by_busid(busid, &d)) != NVML_SUCCESS) {
		snprintf(why, cap, "NVML does not know the device %s: %s", busid,
		         nvml.error_string(r));
		return -1;
	}
	/* A GPU without MIG answers NVML_ERROR_NOT_SUPPORTED: MIG is off. */
	if (nvml.mig_mode(d, &cur, &pend) == NVML_SUCCESS) {
		p->mig = cur == NVML_MIG_ENABLE;
		p->mig_pending = pend == NVML_MIG_ENABLE;
	} else {
		p->mig = p->mig_pending = 0;
	}
	/* The links are numbered from 0; the first link NVML refuses ends them
	 * (NVML_ERROR_INVALID_ARGUMENT past the last, NOT_SUPPORTED on a GPU
	 * without NVLink: 0 links). */
	p->nvlinks = 0;
	for (link = 0; link < NVML_MAX_NVLINKS; link++) {
		int active = 0;

		if (nvml.nvlink_state(d, link, &active) != NVML_SUCCESS)
			break;
		p->nvlinks += active == NVML_FEATURE_ENABLED;
	}
	return 0;
}

const char *
mcinit_nvml_library(void)
{
	pthread_once(&nvml_once, nvml_load);
	return nvml_why[0] == '\0' ? nvml_path : NULL;
}
