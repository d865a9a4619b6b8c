/* nvml.c — the CPU double of NVML (libnvidia-ml.so.1), for `mcinit doctor`
 * over the double (tests/double/doctor.sh): the devices of the double's
 * libcudart (MCDOUBLE_DEVICES, bus ids 0000:10:00.0, 0000:11:00.0, ...),
 * each with MIG off and no NVLink unless the environment says:
 *   MCDOUBLE_MIG=on|pending  MIG on now, or after the next reset (every GPU)
 *   MCDOUBLE_NVLINKS=N       N active links of NVML's 18 (H100 SXM: 18)
 *   MCDOUBLE_NVML_INIT=fail  nvmlInit fails (NVML_ERROR_DRIVER_NOT_LOADED)
 * Only the calls mcinit makes, with NVML's documented return codes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define API __attribute__((visibility("default")))

enum {
	OK = 0,
	ERR_INVALID_ARGUMENT = 2,
	ERR_NOT_SUPPORTED = 3,
	ERR_NOT_FOUND = 6,
	ERR_DRIVER_NOT_LOADED = 9,
};
#define MAX_LINKS 18

struct dev {
	int index;
};
static struct dev devs[64];

static int
ndevices(void)
{
	const char *n = getenv("MCDOUBLE_DEVICES");
	int v = n && *n ? atoi(n) : 8;

	return v < 0 ? 0 : v > 64 ? 64 : v;
}

API int
nvmlInit_v2(void)
{
	const char *f = getenv("MCDOUBLE_NVML_INIT");

	return f && strcmp(f, "fail") == 0 ? ERR_DRIVER_NOT_LOADED : OK;
}

API int
nvmlShutdown(void)
{
	return OK;
}

API int
nvmlDeviceGetHandleByPciBusId_v2(const char *busid, struct dev **d)
{
	unsigned dom, bus, slot, fn;

	if (busid == NULL || d == NULL)
		return ERR_INVALID_ARGUMENT;
	if (sscanf(busid, "%x:%x:%x.%x", &dom, &bus, &slot, &fn) != 4 || dom != 0 || slot != 0 ||
	    fn != 0 || bus < 0x10 || (int)(bus - 0x10) >= ndevices())
		return ERR_NOT_FOUND;
	devs[bus - 0x10].index = (int)(bus - 0x10);
	*d = &devs[bus - 0x10];
	return OK;
}

API int
nvmlDeviceGetMigMode(struct dev *d, unsigned *current, unsigned *pending)
{
	const char *m = getenv("MCDOUBLE_MIG");

	if (d == NULL || current == NULL || pending == NULL)
		return ERR_INVALID_ARGUMENT;
	if (m == NULL || *m == '\0')
		return ERR_NOT_SUPPORTED; /* a GPU without MIG */
	*current = strcmp(m, "on") == 0;
	*pending = strcmp(m, "on") == 0 || strcmp(m, "pending") == 0;
	return OK;
}

API int
nvmlDeviceGetNvLinkState(struct dev *d, unsigned link, int *active)
{
	const char *n = getenv("MCDOUBLE_NVLINKS");
	int links = n && *n ? atoi(n) : 0;

	if (d == NULL || active == NULL || link >= MAX_LINKS)
		return ERR_INVALID_ARGUMENT;
	if (links <= 0)
		return ERR_NOT_SUPPORTED;
	*active = (int)link < links;
	return OK;
}

API const char *
nvmlErrorString(int r)
{
	switch (r) {
	case OK:
		return "Success";
	case ERR_INVALID_ARGUMENT:
		return "Invalid Argument";
	case ERR_NOT_SUPPORTED:
		return "Not Supported";
	case ERR_NOT_FOUND:
		return "Not Found";
	case ERR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	default:
		return "Unknown Error";
	}
}
