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

/* Looks names[0..n) up in the handle h (opened from path) into fns[]: 0, or
 * -1 with why[cap] naming the first symbol missing and `hint` after it
 * (e.g. " (too old?)").  The libraries opened at run time (hwloc, libyaml)
 * share it so that a missing symbol reads the same everywhere. */
int mcinit_dl_resolve(void *h, const char *path, const char *const *names, size_t n, void **fns,
                      const char *hint, char *why, size_t cap);

#endif
