/* dlfind.h — opening a shared library at run time where a machine keeps it:
 * CUDA's runtime and NCCL are not linked (a login node without CUDA still
 * runs validate and topology); they are found here when a command needs
 * them.  Part of core: the kernels and the GPU backend both use it. */
#ifndef MCINIT_DLFIND_H
#define MCINIT_DLFIND_H

#include <stddef.h>

/* Opens `soname` (RTLD_NOW | RTLD_LOCAL), trying in order:
 *   1. $envvar when set: a file, or a folder holding soname (only it:
 *      whoever sets it wants that one);
 *   2. the loader's own path (LD_LIBRARY_PATH, RUNPATH, ld.so.cache);
 *   3. the Python environments' wheels: nvidia/SUB/lib under the
 *      site-packages of $VIRTUAL_ENV, $CONDA_PREFIX, the python3 on PATH
 *      and the user's ~/.local, for each SUB in subs (NULL-terminated);
 *   4. dir (configure's CUDA toolkit), when not NULL or empty.
 * The handle, with the file it came from in path[pcap]; NULL with what was
 * tried in why[cap].  Each call opens anew (dlopen counts references). */
void *mcinit_dl_find(const char *soname, const char *envvar, const char *const *subs,
                     const char *dir, char *path, size_t pcap, char *why, size_t cap);

/* ---- CUDA's runtime and NCCL: where the trainer's Python finds them ----
 *
 * mcinit checks the libraries the training job will load, so it looks
 * where that job's Python would: PyTorch's wheels bring their own NCCL and
 * CUDA runtime (site-packages/nvidia/{nccl,cu13,cuda_runtime}/lib), conda
 * puts them in $CONDA_PREFIX/lib, NGC containers in the system's folders. */

/* One place a library may be, and why it is looked at there. */
struct mcinit_dl_place {
	char file[512]; /* a path; the bare soname for the dynamic loader */
	char how[256];  /* e.g. "VIRTUAL_ENV=/v: its nvidia/nccl/lib" */
	int tier;       /* the step of the order below (1-6): lower comes first */
};

/* The places, in order:
 *   1. $envvar when set: a file, or a folder holding soname (only it);
 *   2. the active $VIRTUAL_ENV, then $CONDA_PREFIX: site-packages/nvidia/
 *      SUB/lib for each SUB in subs, and $CONDA_PREFIX/lib;
 *   3. the python3 on PATH: its prefix's site-packages (a venv's only;
 *      else also ~/.local's, and dist-packages, /usr/local/lib/python3*
 *      /dist-packages included, as Debian's Python reads them);
 *   4. $CUDA_HOME/lib64 and lib;
 *   5. the folders of LD_LIBRARY_PATH, then the dynamic loader itself
 *      (the bare soname: RUNPATH, ld.so.cache);
 *   6. dir (configure's CUDA toolkit), when not NULL or empty: the last
 *      resort, as before.
 * Only files that exist are listed (but for 1 and the bare soname).  Reads the
 * environment and the file system; opens nothing.  The number of places
 * put in v[0..max). */
size_t mcinit_dl_places(const char *soname, const char *envvar, const char *const *subs,
                        const char *dir, struct mcinit_dl_place *v, size_t max);

/* What mcinit_dl_find_py opened, and a different copy also visible. */
struct mcinit_dl_found {
	struct mcinit_dl_place used;  /* file: as the loader resolved it */
	struct mcinit_dl_place other; /* file "" when there is none */
};

/* Opens the first of mcinit_dl_places that loads (RTLD_NOW | RTLD_LOCAL).
 * Another existing file among the places that is not the same file
 * (realpath) goes into f->other: two different libraries visible, of which
 * the trainer may load the other.  The handle, or NULL with every place
 * tried and its reason in why[cap]. */
void *mcinit_dl_find_py(const char *soname, const char *envvar, const char *const *subs,
                        const char *dir, struct mcinit_dl_found *f, char *why, size_t cap);

/* Looks names[0..n) up in the handle h (opened from path) into fns[]: 0, or
 * -1 with why[cap] naming the first symbol missing and `hint` after it
 * (e.g. " (too old?)").  The libraries opened at run time (hwloc, libyaml)
 * share it so that a missing symbol reads the same everywhere. */
int mcinit_dl_resolve(void *h, const char *path, const char *const *names, size_t n, void **fns,
                      const char *hint, char *why, size_t cap);

#endif
