/*
 * version.h — `mcinit --version`: the version and the build configuration
 * (CUDA, NCCL and the libraries, as compiled and, where a library can tell,
 * as running), so a bug report says what was built.
 */
#ifndef MCINIT_VERSION_H
#define MCINIT_VERSION_H

#include <stdio.h>

/* The report to out; 0, or -1 on a write error. */
int mcinit_print_version(FILE *out);

#endif
