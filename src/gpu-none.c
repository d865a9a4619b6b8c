/* gpu-none.c — the GPU backend of a build without CUDA: no device. */
#include <stdio.h>
#include <string.h>

#include "gpu.h"

int
mcinit_gpu_count(char *why, size_t cap)
{
	snprintf(why, cap, "this mcinit was built without CUDA");
	return 0;
}

void
mcinit_gpu_versions(struct mcinit_gpu_versions *v)
{
	memset(v, 0, sizeof *v);
}
