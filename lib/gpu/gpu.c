/* gpu.c — gpu.h's calls, dispatched to the backend (the built-in one, or a
 * test's). */
#include <string.h>

#include "gpu/gpu.h"

static const struct mcinit_gpu_ops *cur = &mcinit_gpu_builtin;

void
mcinit_gpu_use(const struct mcinit_gpu_ops *ops)
{
	cur = ops ? ops : &mcinit_gpu_builtin;
}

int
mcinit_gpu_count(char *why, size_t cap)
{
	return cur->count(why, cap);
}

void
mcinit_gpu_versions(struct mcinit_gpu_versions *v)
{
	memset(v, 0, sizeof *v);
	cur->versions(v);
}

int
mcinit_gpu_select(int device, char *busid, size_t cap, char *name, size_t ncap,
                  struct mcinit_err *err)
{
	return cur->select(device, busid, cap, name, ncap, err);
}

int
mcinit_gpu_busid(int device, char *busid, size_t cap)
{
	return cur->busid(device, busid, cap);
}

int
mcinit_gpu_props(int device, struct mcinit_gpu_props *p)
{
	memset(p, 0, sizeof *p);
	p->compute_mode = p->ecc = -1;
	return cur->props ? cur->props(device, p) : -1;
}

int
mcinit_nccl_unique_id(unsigned char id[MCINIT_NCCL_ID_BYTES], struct mcinit_err *err)
{
	return cur->unique_id(id, err);
}

int
mcinit_nccl_init_start(void **comm, int nranks, int rank, int nid, const unsigned char *ids,
                       const struct mcinit_nccl_opts *o, struct mcinit_err *err)
{
	return cur->init_start(comm, nranks, rank, nid, ids, o, err);
}

int
mcinit_nccl_split_start(void *parent, int color, int key, const struct mcinit_nccl_opts *o,
                        void **child, struct mcinit_err *err)
{
	return cur->split_start(parent, color, key, o, child, err);
}

int
mcinit_nccl_wait(void *comm, double deadline, struct mcinit_err *err)
{
	return cur->wait(comm, deadline, err);
}

void *
mcinit_nccl_handle(void *comm)
{
	return cur->handle(comm);
}

int
mcinit_nccl_info(void *comm, int *size, int *rank, struct mcinit_err *err)
{
	return cur->info(comm, size, rank, err);
}

int
mcinit_nccl_allreduce(void *comm, long long value, long long *sum, double deadline,
                      struct mcinit_err *err)
{
	return cur->allreduce(comm, value, sum, deadline, err);
}

int
mcinit_nccl_time(void *comm, enum mcinit_coll c, size_t bytes, int iters, double deadline,
                 double *seconds, struct mcinit_err *err)
{
	return cur->time(comm, c, bytes, iters, deadline, seconds, err);
}

void
mcinit_nccl_time_done(void *comm)
{
	if (cur->time_done)
		cur->time_done(comm);
}

int
mcinit_nccl_buffers(void *comm, size_t bytes, double deadline, struct mcinit_err *err)
{
	return cur->buffers(comm, bytes, deadline, err);
}

int
mcinit_nccl_destroy(void *comm, double deadline, int hard, void *ctx)
{
	return cur->destroy(comm, deadline, hard, ctx);
}
