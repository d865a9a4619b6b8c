/*
 * capacity.c — whether this machine lets a store hold a world of ranks
 * (store.h): the open-file limit, one descriptor a rank, and the listen
 * backlog, net.core.somaxconn.  Checked before the store listens, so that
 * the numbers and what to set reach the user before a rendezvous at scale
 * fails with EMFILE or stalls on dropped SYNs.
 */
#include <stdio.h>
#include <sys/resource.h>

#include "store/store.h"

/* Descriptors a store needs besides one a rank: the listening socket,
 * epoll, the eventfd, the standard streams, a launcher's pipes and logs. */
#define SPARE_FDS 64

static long
read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f == NULL)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static unsigned long long
limit_value(rlim_t v)
{
	return v == RLIM_INFINITY ? ~0ULL : (unsigned long long)v;
}

static void
judge(struct mcinit_store_capacity *cap)
{
	long want = cap->world < MCINIT_STORE_BACKLOG ? cap->world : MCINIT_STORE_BACKLOG;

	cap->short_fds = cap->nofile < cap->need_fds;
	cap->short_backlog = cap->somaxconn >= 0 && cap->somaxconn < want;
}

int
mcinit_store_capacity(long world, const char *somaxconn_path, struct mcinit_store_capacity *cap)
{
	struct rlimit rl = {0, 0};

	getrlimit(RLIMIT_NOFILE, &rl);
	cap->world = world;
	cap->need_fds = (unsigned long long)world + SPARE_FDS;
	cap->nofile = limit_value(rl.rlim_cur);
	cap->nofile_max = limit_value(rl.rlim_max);
	cap->somaxconn =
	    read_long(somaxconn_path ? somaxconn_path : "/proc/sys/net/core/somaxconn");
	judge(cap);
	return cap->short_fds || cap->short_backlog;
}

int
mcinit_store_capacity_raise(struct mcinit_store_capacity *cap)
{
	struct rlimit rl;

	if (!cap->short_fds || getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return cap->short_fds || cap->short_backlog;
	rl.rlim_cur = cap->need_fds < cap->nofile_max ? (rlim_t)cap->need_fds : rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
		cap->nofile = limit_value(rl.rlim_cur);
	judge(cap);
	return cap->short_fds || cap->short_backlog;
}

void
mcinit_store_capacity_text(const struct mcinit_store_capacity *cap, const char *prefix,
                           struct mcx_buf *b)
{
	if (cap->short_fds)
		mcx_buf_printf(b,
		               "%sthe open-file limit is %llu (hard limit %llu), but a store "
		               "for %ld ranks needs %llu descriptors: raise it before the job "
		               "(ulimit -n %llu, systemd's LimitNOFILE=, nofile in "
		               "/etc/security/limits.conf)\n",
		               prefix, cap->nofile, cap->nofile_max, cap->world, cap->need_fds,
		               cap->need_fds);
	if (cap->short_backlog)
		mcx_buf_printf(b,
		               "%snet.core.somaxconn is %ld, but %ld ranks may connect at once: "
		               "a connection beyond the backlog waits a second or more for its "
		               "retry (sysctl -w net.core.somaxconn=%ld)\n",
		               prefix, cap->somaxconn, cap->world,
		               cap->world < MCINIT_STORE_BACKLOG ? cap->world
		                                                 : (long)MCINIT_STORE_BACKLOG);
}

int
mcinit_store_capacity_prepare(long world, const char *prefix, struct mcx_buf *b)
{
	struct mcinit_store_capacity cap;

	mcinit_store_capacity(world, NULL, &cap);
	if (!mcinit_store_capacity_raise(&cap))
		return 0;
	mcinit_store_capacity_text(&cap, prefix, b);
	return 1;
}

int
mcinit_store_capacity_check(long world, const char *prefix, FILE *out)
{
	struct mcx_buf b = {0};
	int rc = mcinit_store_capacity_prepare(world, prefix, &b);

	if (rc && out)
		fputs(mcx_buf_cstr(&b), out);
	mcx_buf_free(&b);
	return rc;
}
