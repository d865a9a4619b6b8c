/* nogpu.c — a build without CUDA: no GPU backend, and the CUDA entry point
 * says so.  (configure chooses this file or gpu-backend.c.) */
#include "kbackend.h"

const struct mcinit_kb *
mcinit_kb_gpu(void)
{
	return NULL;
}

const char *
mcinit_kb_gpu_why(void)
{
	return "kernels: built without CUDA";
}

int
mcinit_kgpu_run(enum mcinit_kop op, const struct mcinit_kargs *a, void *stream)
{
	(void)op;
	(void)a;
	(void)stream;
	return MCINIT_KERR_NOGPU;
}
