/* gpu-none.c — the GPU backend of a build without CUDA and NCCL: no
 * device, and every GPU call says why (the phase engine never reaches them:
 * mcinit_gpu_count is 0, so the CPU path runs or run stops with 69). */
#include <stdio.h>
#include <string.h>

#include "gpu.h"

static const char nogpu[] = "this mcinit was built without CUDA";

int
mcinit_gpu_count(char *why, size_t cap)
{
	snprintf(why, cap, "%s", nogpu);
	return 0;
}

void
mcinit_gpu_versions(struct mcinit_gpu_versions *v)
{
	memset(v, 0, sizeof *v);
}

static int
none(struct mcinit_err *err)
{
	return mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "%s", nogpu);
}

int
mcinit_gpu_select(int device, char *busid, size_t cap, char *name, size_t ncap,
                  struct mcinit_err *err)
{
	(void)device, (void)busid, (void)cap, (void)name, (void)ncap;
	return none(err);
}

int
mcinit_gpu_busid(int device, char *busid, size_t cap)
{
	(void)device;
	if (cap)
		busid[0] = '\0';
	return -1;
}

int
mcinit_nccl_unique_id(unsigned char id[MCINIT_NCCL_ID_BYTES], struct mcinit_err *err)
{
	(void)id;
	return none(err);
}

int
mcinit_nccl_init_start(void **comm, int nranks, int rank, int nid, const unsigned char *ids,
                       const struct mcinit_nccl_opts *o, struct mcinit_err *err)
{
	(void)nranks, (void)rank, (void)nid, (void)ids, (void)o;
	*comm = NULL;
	return none(err);
}

int
mcinit_nccl_split_start(void *parent, int color, int key, const struct mcinit_nccl_opts *o,
                        void **child, struct mcinit_err *err)
{
	(void)parent, (void)color, (void)key, (void)o;
	*child = NULL;
	return none(err);
}

int
mcinit_nccl_wait(void *comm, double deadline, struct mcinit_err *err)
{
	(void)comm, (void)deadline;
	return none(err);
}

void *
mcinit_nccl_handle(void *comm)
{
	return comm;
}

int
mcinit_nccl_info(void *comm, int *size, int *rank, struct mcinit_err *err)
{
	(void)comm;
	*size = *rank = 0;
	return none(err);
}

int
mcinit_nccl_allreduce(void *comm, long long value, long long *sum, double deadline,
                      struct mcinit_err *err)
{
	(void)comm, (void)value, (void)deadline;
	*sum = 0;
	return none(err);
}

int
mcinit_nccl_time(void *comm, enum mcinit_coll c, size_t bytes, int iters, double deadline,
                 double *seconds, struct mcinit_err *err)
{
	(void)comm, (void)c, (void)bytes, (void)iters, (void)deadline;
	*seconds = 0;
	return none(err);
}

int
mcinit_nccl_buffers(void *comm, size_t bytes, struct mcinit_err *err)
{
	(void)comm, (void)bytes;
	return none(err);
}

int
mcinit_nccl_destroy(void *comm, double deadline, int abort, void *ctx)
{
	(void)comm, (void)deadline, (void)abort, (void)ctx;
	return 0;
}
