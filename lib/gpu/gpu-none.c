/* gpu-none.c — the GPU backend of a build without CUDA and NCCL: no
 * device, and every GPU call says why (the phase engine never reaches them:
 * mcinit_gpu_count is 0, so the CPU path runs or run stops with 69). */
#include <stdio.h>
#include <string.h>

#include "gpu/gpu.h"

static const char nogpu[] = "this mcinit was built without CUDA";

static int
none_count(char *why, size_t cap)
{
	snprintf(why, cap, "%s", nogpu);
	return 0;
}

static void
none_versions(struct mcinit_gpu_versions *v)
{
	memset(v, 0, sizeof *v);
}

static int
none(struct mcinit_err *err)
{
	return mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "%s", nogpu);
}

static int
none_select(int device, char *busid, size_t cap, char *name, size_t ncap, struct mcinit_err *err)
{
	(void)device, (void)busid, (void)cap, (void)name, (void)ncap;
	return none(err);
}

static int
none_busid(int device, char *busid, size_t cap)
{
	(void)device;
	if (cap)
		busid[0] = '\0';
	return -1;
}

static int
none_unique_id(unsigned char id[MCINIT_NCCL_ID_BYTES], struct mcinit_err *err)
{
	(void)id;
	return none(err);
}

static int
none_init_start(void **comm, int nranks, int rank, int nid, const unsigned char *ids,
                const struct mcinit_nccl_opts *o, struct mcinit_err *err)
{
	(void)nranks, (void)rank, (void)nid, (void)ids, (void)o;
	*comm = NULL;
	return none(err);
}

static int
none_split_start(void *parent, int color, int key, const struct mcinit_nccl_opts *o, void **child,
                 struct mcinit_err *err)
{
	(void)parent, (void)color, (void)key, (void)o;
	*child = NULL;
	return none(err);
}

static int
none_wait(void *comm, double deadline, struct mcinit_err *err)
{
	(void)comm, (void)deadline;
	return none(err);
}

static void *
none_handle(void *comm)
{
	return comm;
}

static int
none_info(void *comm, int *size, int *rank, struct mcinit_err *err)
{
	(void)comm;
	*size = *rank = 0;
	return none(err);
}

static int
none_allreduce(void *comm, long long value, long long *sum, double deadline, struct mcinit_err *err)
{
	(void)comm, (void)value, (void)deadline;
	*sum = 0;
	return none(err);
}

static int
none_time(void *comm, enum mcinit_coll c, size_t bytes, int iters, double deadline, double *seconds,
          struct mcinit_err *err)
{
	(void)comm, (void)c, (void)bytes, (void)iters, (void)deadline;
	*seconds = 0;
	return none(err);
}

static int
none_buffers(void *comm, size_t bytes, double deadline, struct mcinit_err *err)
{
	(void)comm, (void)deadline, (void)bytes;
	return none(err);
}

static int
none_destroy(void *comm, double deadline, int hard, void *ctx)
{
	(void)comm, (void)deadline, (void)hard, (void)ctx;
	return 0;
}

/* The backend (gpu.h). */
const struct mcinit_gpu_ops mcinit_gpu_builtin = {
    .count = none_count,
    .versions = none_versions,
    .select = none_select,
    .busid = none_busid,
    .unique_id = none_unique_id,
    .init_start = none_init_start,
    .split_start = none_split_start,
    .wait = none_wait,
    .handle = none_handle,
    .info = none_info,
    .allreduce = none_allreduce,
    .time = none_time,
    .buffers = none_buffers,
    .destroy = none_destroy,
};
