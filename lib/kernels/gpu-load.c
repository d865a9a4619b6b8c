/* gpu-load.c — the CUDA kernels as a loadable module, opened at their
 * first use.  The module (mcinit-cuda-kernels.so: the kernels as a fatbin
 * blob, and gpu-backend.c, which loads and launches them through the
 * driver API) needs no CUDA library to load: it opens libcuda.so.1 itself
 * when a backend is opened (gpu-driver.c), so it works over CUDA runtime
 * 12 or 13, or none.  It stays a module rather than part of libmcinit for
 * its size (the blob is ~4.6 MB; Makefile.am).
 *
 * The module is looked for in $MCINIT_KERNELS_MODULE (a file), beside the
 * running program (a carried bundle), in the build tree (lib/.libs beside
 * src/), and in pkglibdir (installed).  A program that links the module's
 * objects itself (gpu-kernels-check) uses them. */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kbackend.h"

#define MODULE "mcinit-cuda-kernels.so"

/* Defined where the module's objects are linked in (gpu-backend.c). */
#pragma weak mcinit_kb_gpu_module

static pthread_once_t once = PTHREAD_ONCE_INIT;
static const struct mcinit_kb *kb;
static char why[2048] = "the CUDA kernels module was not looked for";

/* dlopen of f, or NULL with its reason appended to tried[cap] ("; "
 * between): every place's reason is kept, since the one that matters (the
 * build tree's module missing a symbol) is seldom the last (issue 40,
 * defect 5). */
static void *
try_open(const char *f, char *tried, size_t cap)
{
	void *h = dlopen(f, RTLD_NOW | RTLD_LOCAL);
	const char *e;
	size_t n = strlen(tried);

	if (h)
		return h;
	e = dlerror();
	/* dlerror names the file in most cases; say it when it does not */
	if (n < cap)
		snprintf(tried + n, cap - n, "%s%s%s%s", n ? "; " : "", e && strstr(e, f) ? "" : f,
		         e && strstr(e, f) ? "" : ": ", e ? e : "not loadable");
	return NULL;
}

static void *
open_module(char *tried, size_t cap)
{
	char exe[PATH_MAX], f[PATH_MAX + 64], *s;
	const char *e = getenv("MCINIT_KERNELS_MODULE");
	ssize_t n;
	void *h;

	tried[0] = '\0';
	if (e && *e)
		return try_open(e, tried, cap);
	n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((s = strrchr(exe, '/')) != NULL)
			*s = '\0';
		snprintf(f, sizeof f, "%s/" MODULE, exe);
		if ((h = try_open(f, tried, cap)) != NULL)
			return h;
		snprintf(f, sizeof f, "%s/../lib/.libs/" MODULE, exe);
		if ((h = try_open(f, tried, cap)) != NULL)
			return h;
	}
	return try_open(MCINIT_PKGLIBDIR "/" MODULE, tried, cap);
}

static void
load(void)
{
	char tried[sizeof why - 16];
	const struct mcinit_kb *(*entry)(void);
	const char *(*driver)(void), *w;
	void *h;

	if ((h = open_module(tried, sizeof tried)) == NULL) {
		snprintf(why, sizeof why, "kernels: %s", tried);
		return;
	}
	*(void **)&entry = dlsym(h, "mcinit_kb_gpu_module");
	*(void **)&driver = dlsym(h, "mcinit_kb_gpu_module_why");
	if (!entry || !driver) {
		snprintf(why, sizeof why, "kernels: %s has no mcinit_kb_gpu_module%s", MODULE,
		         entry ? "_why" : "");
		return;
	}
	/* no driver (libcuda.so.1, cuInit): no device kernels, as when the
	 * module itself is missing */
	if (*(w = driver())) {
		snprintf(why, sizeof why, "kernels: %s", w);
		return;
	}
	kb = entry();
	why[0] = '\0';
}

const struct mcinit_kb *
mcinit_kb_gpu(void)
{
	if (mcinit_kb_gpu_module)
		return mcinit_kb_gpu_module();
	pthread_once(&once, load);
	return kb;
}

const char *
mcinit_kb_gpu_why(void)
{
	if (mcinit_kb_gpu_module)
		return "";
	pthread_once(&once, load);
	return why;
}
