/* dlfind.c — see dlfind.h.  The Python environments are searched because
 * that is where most GPU machines keep CUDA's runtime and NCCL today: the
 * nvidia-cuda-runtime and nvidia-nccl wheels (torch's dependencies) unpack
 * them into site-packages/nvidia/SUB/lib, which no loader path names. */
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/dlfind.h"
#include "core/util.h"

/* The file a handle came from (the loader resolves a bare soname). */
static void
origin(void *h, const char *fallback, char *path, size_t pcap)
{
	struct link_map *lm = NULL;

	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && lm->l_name[0])
		snprintf(path, pcap, "%s", lm->l_name);
	else
		snprintf(path, pcap, "%s", fallback);
}

static void *
try_open(const char *file, const char *soname, char *path, size_t pcap)
{
	void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);

	if (h)
		origin(h, file ? file : soname, path, pcap);
	return h;
}

/* PREFIX/lib/python3*\/site-packages/nvidia/SUB/lib/SONAME, first match. */
static void *
try_prefix(const char *prefix, const char *site, const char *soname, const char *const *subs,
           char *path, size_t pcap)
{
	void *h = NULL;
	size_t i, j;

	for (i = 0; subs && subs[i] && !h; i++) {
		char *pat =
		    mcinit_xasprintf("%s/%s/nvidia/%s/lib/%s", prefix, site, subs[i], soname);
		glob_t g;

		if (glob(pat, 0, NULL, &g) == 0)
			for (j = 0; j < g.gl_pathc && !h; j++)
				h = try_open(g.gl_pathv[j], soname, path, pcap);
		globfree(&g);
		free(pat);
	}
	return h;
}

/* The prefix of the python3 on PATH (…/bin/python3 -> …), into out. */
static int
python_prefix(char *out, size_t cap)
{
	const char *p = getenv("PATH");
	char buf[PATH_MAX], real[PATH_MAX], *s;

	while (p && *p) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof buf, "%.*s/python3", (int)n, p);
		p += n + (p[n] == ':');
		if (n == 0 || access(buf, X_OK) != 0)
			continue;
		/* a venv's python3 is a link to the base interpreter: the
		 * venv's own prefix is the folder above bin, not the target */
		snprintf(real, sizeof real, "%s", buf);
		if ((s = strrchr(real, '/')) != NULL)
			*s = '\0';
		if ((s = strrchr(real, '/')) != NULL)
			*s = '\0';
		snprintf(out, cap, "%s", real);
		return 0;
	}
	return -1;
}

static void *
try_pythons(const char *soname, const char *const *subs, char *path, size_t pcap)
{
	static const char *const envs[] = {"VIRTUAL_ENV", "CONDA_PREFIX"};
	char pre[PATH_MAX];
	const char *home = getenv("HOME");
	void *h = NULL;
	size_t i;

	for (i = 0; i < 2 && !h; i++)
		if (getenv(envs[i]) && *getenv(envs[i]))
			h = try_prefix(getenv(envs[i]), "lib/python3*/site-packages", soname, subs,
			               path, pcap);
	if (!h && python_prefix(pre, sizeof pre) == 0)
		h = try_prefix(pre, "lib/python3*/site-packages", soname, subs, path, pcap);
	if (!h && python_prefix(pre, sizeof pre) == 0)
		h = try_prefix(pre, "lib/python3*/dist-packages", soname, subs, path, pcap);
	if (!h && home && *home)
		h = try_prefix(home, ".local/lib/python3*/site-packages", soname, subs, path, pcap);
	return h;
}

void *
mcinit_dl_find(const char *soname, const char *envvar, const char *const *subs, const char *dir,
               char *path, size_t pcap, char *why, size_t cap)
{
	const char *e = envvar ? getenv(envvar) : NULL;
	char *f;
	void *h;

	if (e && *e) {
		/* a folder names the file inside it; a file is taken as it is */
		f = mcinit_xasprintf("%s/%s", e, soname);
		h = try_open(access(f, F_OK) == 0 ? f : e, soname, path, pcap);
		free(f);
		if (!h)
			snprintf(why, cap, "%s not loadable from %s=%s: %s", soname, envvar, e,
			         dlerror());
		return h;
	}
	if ((h = try_open(soname, soname, path, pcap)) != NULL)
		return h;
	snprintf(why, cap, "%s", dlerror());
	if ((h = try_pythons(soname, subs, path, pcap)) != NULL)
		return h;
	if (dir && *dir) {
		f = mcinit_xasprintf("%s/%s", dir, soname);
		h = try_open(f, soname, path, pcap);
		free(f);
		if (h)
			return h;
	}
	snprintf(why + strlen(why), cap - strlen(why),
	         "; not in a Python environment's nvidia/*/lib%s%s either (%s names one)",
	         dir && *dir ? " nor in " : "", dir && *dir ? dir : "", envvar ? envvar : "");
	return NULL;
}

int
mcinit_dl_resolve(void *h, const char *path, const char *const *names, size_t n, void **fns,
                  const char *hint, char *why, size_t cap)
{
	for (size_t i = 0; i < n; i++)
		if ((fns[i] = dlsym(h, names[i])) == NULL) {
			snprintf(why, cap, "%s has no %s%s", path, names[i], hint);
			return -1;
		}
	return 0;
}
