/* dlfind.c — see dlfind.h.  The Python environments are searched because
 * that is where most GPU machines keep CUDA's runtime and NCCL today: the
 * nvidia-cuda-runtime and nvidia-nccl wheels (torch's dependencies) unpack
 * them into site-packages/nvidia/SUB/lib, which no loader path names. */
#include <dlfcn.h>
#include <glob.h>
#include <limits.h>
#include <link.h>
#include <stdarg.h>
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
		char *pat = mcx_xasprintf("%s/%s/nvidia/%s/lib/%s", prefix, site, subs[i], soname);
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
		f = mcx_xasprintf("%s/%s", e, soname);
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
		f = mcx_xasprintf("%s/%s", dir, soname);
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

/* ---- the places of a GPU library ---- */

struct places {
	struct mcinit_dl_place *v;
	size_t n, max;
	const char *soname;
	int tier; /* of the places added now */
};

static void place(struct places *p, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
place(struct places *p, const char *file, const char *fmt, ...)
{
	va_list ap;
	size_t i;

	if (p->n >= p->max)
		return;
	for (i = 0; i < p->n; i++) /* the same path twice: the first reason */
		if (strcmp(p->v[i].file, file) == 0)
			return;
	snprintf(p->v[p->n].file, sizeof p->v[p->n].file, "%s", file);
	p->v[p->n].tier = p->tier;
	va_start(ap, fmt);
	vsnprintf(p->v[p->n].how, sizeof p->v[p->n].how, fmt, ap);
	va_end(ap);
	p->n++;
}

/* Every existing file matching pattern (glob(3), sorted), with reason
 * "<who>: <what>". */
static void
place_glob(struct places *p, const char *pattern, const char *who, const char *what)
{
	glob_t g;
	size_t j;

	if (glob(pattern, 0, NULL, &g) == 0)
		for (j = 0; j < g.gl_pathc; j++)
			if (access(g.gl_pathv[j], F_OK) == 0)
				place(p, g.gl_pathv[j], "%s: %s", who, what);
	globfree(&g);
}

/* PREFIX/SITE/nvidia/SUB/lib/SONAME for each SUB. */
static void
place_site(struct places *p, const char *prefix, const char *site, const char *const *subs,
           const char *who)
{
	size_t i;

	for (i = 0; subs && subs[i]; i++) {
		char *pat =
		    mcx_xasprintf("%s/%s/nvidia/%s/lib/%s", prefix, site, subs[i], p->soname);
		char *what = mcx_xasprintf("a wheel's nvidia/%s/lib", subs[i]);

		place_glob(p, pat, who, what);
		free(what);
		free(pat);
	}
}

/* The python3 on PATH, found as a shell finds it; its prefix (the folder
 * above bin, not the link's target: a venv's python3 links to the base
 * interpreter) into pre[cap] and the file into exe[ecap]. */
static int
python_on_path(char *pre, size_t cap, char *exe, size_t ecap)
{
	const char *p = getenv("PATH");
	char buf[PATH_MAX], *s;

	while (p && *p) {
		size_t n = strcspn(p, ":");

		snprintf(buf, sizeof buf, "%.*s/python3", (int)n, p);
		p += n + (p[n] == ':');
		if (n == 0 || access(buf, X_OK) != 0)
			continue;
		snprintf(exe, ecap, "%s", buf);
		if ((s = strrchr(buf, '/')) != NULL)
			*s = '\0';
		if ((s = strrchr(buf, '/')) != NULL)
			*s = '\0';
		snprintf(pre, cap, "%s", buf);
		return 0;
	}
	return -1;
}

size_t
mcinit_dl_places(const char *soname, const char *envvar, const char *const *subs, const char *dir,
                 struct mcinit_dl_place *v, size_t max)
{
	struct places p = {v, 0, max, soname, 1};
	const char *e = envvar ? getenv(envvar) : NULL, *ve = getenv("VIRTUAL_ENV"),
	           *co = getenv("CONDA_PREFIX"), *ch = getenv("CUDA_HOME"), *home = getenv("HOME"),
	           *ld = getenv("LD_LIBRARY_PATH");
	char pre[PATH_MAX], exe[PATH_MAX], *f, *who;

	if (e && *e) {
		/* a folder names the file inside it; a file is taken as it is */
		f = mcx_xasprintf("%s/%s", e, soname);
		place(&p, access(f, F_OK) == 0 ? f : e, "%s=%s", envvar, e);
		free(f);
		return p.n;
	}
	p.tier = 2;
	if (ve && *ve) {
		who = mcx_xasprintf("VIRTUAL_ENV=%s", ve);
		place_site(&p, ve, "lib/python3*/site-packages", subs, who);
		free(who);
	}
	if (co && *co) {
		who = mcx_xasprintf("CONDA_PREFIX=%s", co);
		place_site(&p, co, "lib/python3*/site-packages", subs, who);
		f = mcx_xasprintf("%s/lib/%s", co, soname);
		place_glob(&p, f, who, "lib (a conda package)");
		free(f);
		free(who);
	}
	p.tier = 3;
	if (python_on_path(pre, sizeof pre, exe, sizeof exe) == 0 &&
	    !(ve && strcmp(pre, ve) == 0) && !(co && strcmp(pre, co) == 0)) {
		who = mcx_xasprintf("the python3 on PATH (%s)", exe);
		f = mcx_xasprintf("%s/pyvenv.cfg", pre);
		if (access(f, F_OK) != 0 && home && *home) {
			/* not a venv: Python reads the user's site first */
			char *u = mcx_xasprintf("%s/.local", home);

			place_site(&p, u, "lib/python3*/site-packages", subs, who);
			free(u);
		}
		place_site(&p, pre, "lib/python3*/site-packages", subs, who);
		if (access(f, F_OK) != 0) {
			char *loc = mcx_xasprintf("%s/local", pre);

			place_site(&p, loc, "lib/python3*/dist-packages", subs, who);
			place_site(&p, pre, "lib/python3*/dist-packages", subs, who);
			place_site(&p, pre, "lib/python3/dist-packages", subs, who);
			free(loc);
		}
		free(f);
		free(who);
	}
	/* Debian's pip, as root, installs there whichever python3 is first */
	place_site(&p, "/usr/local", "lib/python3*/dist-packages", subs,
	           "the system's Python (/usr/local)");
	p.tier = 4;
	if (ch && *ch) {
		who = mcx_xasprintf("CUDA_HOME=%s", ch);
		f = mcx_xasprintf("%s/lib64/%s", ch, soname);
		place_glob(&p, f, who, "lib64");
		free(f);
		f = mcx_xasprintf("%s/lib/%s", ch, soname);
		place_glob(&p, f, who, "lib");
		free(f);
		free(who);
	}
	p.tier = 5;
	while (ld && *ld) {
		size_t n = strcspn(ld, ":");

		f = mcx_xasprintf("%.*s/%s", (int)n, ld, soname);
		if (n && access(f, F_OK) == 0)
			place(&p, f, "LD_LIBRARY_PATH");
		free(f);
		ld += n + (ld[n] == ':');
	}
	place(&p, soname, "the dynamic loader (ld.so.cache)");
	/* the last resort, as the loader may not know the toolkit's folder */
	p.tier = 6;
	if (dir && *dir) {
		f = mcx_xasprintf("%s/%s", dir, soname);
		if (access(f, F_OK) == 0)
			place(&p, f, "the CUDA toolkit mcinit was built with");
		free(f);
	}
	return p.n;
}

/* Whether a and b are one file. */
static int
same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

void *
mcinit_dl_find_py(const char *soname, const char *envvar, const char *const *subs, const char *dir,
                  struct mcinit_dl_found *f, char *why, size_t cap)
{
	enum { MAX = 48 };
	struct mcinit_dl_place *v = mcx_xcalloc(MAX, sizeof *v);
	size_t n = mcinit_dl_places(soname, envvar, subs, dir, v, MAX), i, j, len = 0;
	void *h = NULL;

	memset(f, 0, sizeof *f);
	if (cap)
		why[0] = '\0';
	if (envvar && getenv(envvar) && *getenv(envvar) && n == 1) {
		/* only the file named: say so, as mcinit_dl_find does */
		if ((h = dlopen(v[0].file, RTLD_NOW | RTLD_LOCAL)) != NULL) {
			f->used = v[0];
			origin(h, v[0].file, f->used.file, sizeof f->used.file);
		} else {
			snprintf(why, cap, "%s not loadable from %s: %s", soname, v[0].how,
			         dlerror());
		}
		free(v);
		return h;
	}
	for (i = 0; i < n && !h; i++) {
		if ((h = dlopen(v[i].file, RTLD_NOW | RTLD_LOCAL)) != NULL) {
			f->used = v[i];
			origin(h, v[i].file, f->used.file, sizeof f->used.file);
			break;
		}
		/* every place's reason: the first is seldom the last */
		if (len < cap) {
			const char *e = dlerror();

			snprintf(why + len, cap - len, "%s%s (%s): %s", len ? "; " : "", v[i].file,
			         v[i].how, e ? e : "not loadable");
			len += strlen(why + len);
		}
	}
	for (j = i + 1; h && j < n; j++)
		if (strchr(v[j].file, '/') && !same_file(v[j].file, f->used.file)) {
			f->other = v[j];
			break;
		}
	if (!h && envvar && !(getenv(envvar) && *getenv(envvar)) && len < cap)
		snprintf(why + len, cap - len, " (%s names the file to use)", envvar);
	free(v);
	return h;
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
