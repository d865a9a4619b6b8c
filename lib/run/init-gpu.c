/*
 * init-gpu.c — the CUDA/NCCL phases of `mcinit run` (run.md phases 4-10
 * with a device): device and CPU binding, the world communicator, one split
 * per group family, the verification all-reduce and the bandwidth sweep,
 * the device generator, tp-comm's buffers, and the teardown.
 *
 * Built in every configuration: the calls go to the backend (gpu.h), which
 * in a build without CUDA (gpu-none.c) reports no device, so none of this
 * runs there.  The decisions themselves are gpu-plan.c's (unit-tested).
 *
 * While a communicator is being created, each rank records its progress in
 * the store (mcinit/nccl-LABEL-start/RANK, then mcinit/nccl-LABEL/RANK), so
 * that a rank whose deadline passes can name the ranks that did not finish
 * — NCCL itself only says "in progress".
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu.h"
#include "run/init-impl.h"
#include "kernels/kbackend.h"
#include "store/store.h"

/* ---- device ---- */

/* Parses a CPU list ("0-3,8") into s; -1 when malformed. */
static int
cpulist(const char *list, cpu_set_t *s)
{
	const char *p = list;

	CPU_ZERO(s);
	while (*p) {
		char *e;
		long a = strtol(p, &e, 10), b = a;

		if (e == p || a < 0)
			return -1;
		if (*e == '-') {
			p = e + 1;
			b = strtol(p, &e, 10);
			if (e == p || b < a)
				return -1;
		}
		for (; a <= b && a < CPU_SETSIZE; a++)
			CPU_SET((int)a, s);
		p = *e == ',' ? e + 1 : e;
		if (*e && *e != ',')
			return -1;
	}
	return 0;
}

/* Binds this process to its GPU's CPUs (those it is allowed), from the job
 * plan's view of this machine.  Text for the phase's detail into out. */
static void
bind_cpus(struct mcinit_init *I, char *out, size_t cap)
{
	struct mcinit_local_rank lr = {.size = sizeof lr};
	mcinit_error_t pe;
	cpu_set_t want, have;

	snprintf(out, cap, "not bound");
	if (I->o->no_bind) {
		snprintf(out, cap, "not bound (--no-bind)");
		return;
	}
	if (I->job->hwloc_xml || mcinit_job_plan_node(I->job, &pe) != 0 ||
	    mcinit_job_local_rank(I->job, I->env.local_rank, &lr) != 0 || !lr.cpuset)
		return; /* an XML node is another machine: its CPU numbers mean nothing here */
	if (cpulist(lr.cpuset, &want) != 0 || sched_getaffinity(0, sizeof have, &have) != 0)
		return;
	CPU_AND(&want, &want, &have);
	if (CPU_COUNT(&want) == 0) {
		snprintf(out, cap, "not bound (GPU's CPUs %s are not allowed here)", lr.cpuset);
		return;
	}
	if (sched_setaffinity(0, sizeof want, &want) == 0)
		snprintf(out, cap, "bound to the GPU's CPUs %s", lr.cpuset);
}

static void
version_texts(const struct mcinit_gpu_versions *v, char *out, size_t cap)
{
	char n[16], nh[16], r[16], d[16];

	mcinit_nccl_version_text(v->nccl_runtime, n, sizeof n);
	mcinit_nccl_version_text(v->nccl_header, nh, sizeof nh);
	mcinit_cuda_version_text(v->cuda_runtime, r, sizeof r);
	mcinit_cuda_version_text(v->cuda_driver, d, sizeof d);
	snprintf(out, cap, "NCCL %s (headers %s), CUDA runtime %s, driver %s", n, nh, r, d);
}

int
mcinit_gpu_phase_device(struct mcinit_init *I, int n, struct mcinit_err *err)
{
	struct mcinit_gpu_versions v;
	struct mcinit_err e = {0};
	char why[400], vers[128], bind[160];
	bool ext = mcinit_cfg_bool(&I->job->c, MCINIT_F_external_gpu_device_mapping);
	int dev = ext ? 0 : (int)I->env.local_rank;

	mcinit_gpu_versions(&v);
	if (v.nccl_missing)
		return mcinit_ph_fail(I, MCINIT_PH_DEVICE, err, MCINIT_E_UNAVAILABLE,
		                      "no NCCL library: %s", v.nccl_missing);
	switch (mcinit_gpu_version_check(v.nccl_runtime, v.nccl_header, v.cuda_runtime,
	                                 v.cuda_header, v.cuda_driver, why, sizeof why)) {
	case -1:
		return mcinit_ph_fail(I, MCINIT_PH_DEVICE, err, MCINIT_E_UNAVAILABLE, "%s", why);
	case 1: {
		char *t = mcx_xasprintf("warning: %s", why);

		mcinit_ph_note(I, t);
		free(t);
		break;
	}
	default:
		break;
	}
	/* the trainer may load the other one: say which is checked, and why */
	if (v.nccl_other && *v.nccl_other) {
		char *t = mcx_xasprintf(
		    "warning: two different NCCL libraries are visible: %s (%s) is the one "
		    "checked, %s (%s) is there too; MCINIT_NCCL_LIBRARY names the trainer's",
		    v.nccl_library, v.nccl_how ? v.nccl_how : "", v.nccl_other,
		    v.nccl_other_how ? v.nccl_other_how : "");

		mcinit_ph_note(I, t);
		free(t);
	}
	/* (a local rank beyond the devices was refused by init.c already) */
	if (mcinit_gpu_select(dev, I->busid, sizeof I->busid, I->gpu_name, sizeof I->gpu_name,
	                      &e) != 0)
		return mcinit_ph_fail(I, MCINIT_PH_DEVICE, err, e.code, "%s", e.msg);
	I->device = dev;
	I->gpu = true;
	bind_cpus(I, bind, sizeof bind);
	version_texts(&v, vers, sizeof vers);
	mcinit_ph_end(I, MCINIT_PH_DEVICE, MCINIT_PS_OK, "GPU %d of %d (%s, %s%s); %s; %s", dev, n,
	              I->gpu_name, I->busid, ext ? ", external device mapping" : "", bind, vers);
	return 0;
}

/* ---- waiting for a communicator, naming the ranks that did not finish ---- */

static void
mark(struct mcinit_init *I, const char *label, const char *suffix)
{
	char key[128];
	struct mcinit_err e;

	snprintf(key, sizeof key, "mcinit/nccl-%s%s/%ld", label, suffix, I->env.rank);
	mcinit_store_client_set_deadline(I->cl, mcinit_now() + 5);
	mcinit_store_set(I->cl, key, "1", 1, &e);
}

/* Waits for comm; on a timeout names the ranks that never started and
 * those that did not finish.  0, or fails phase p. */
static int
wait_named(struct mcinit_init *I, enum mcinit_phase p, void *comm, const char *label,
           struct mcinit_err *err)
{
	struct mcinit_err e = {0};
	struct mcx_buf a = {0}, b = {0};
	char r1[96], r2[96];
	long na, nb;
	int rc;

	if (mcinit_nccl_wait(comm, mcinit_now() + I->timeout, &e) == 0) {
		mark(I, label, "");
		return 0;
	}
	if (e.code != MCINIT_E_TIMEOUT)
		return mcinit_ph_fail(I, p, err, e.code, "NCCL %s communicator: %s", label, e.msg);
	snprintf(r1, sizeof r1, "nccl-%s", label);
	snprintf(r2, sizeof r2, "nccl-%s-start", label);
	na = mcinit_ph_missing(I, r1, &a);
	nb = mcinit_ph_missing(I, r2, &b);
	rc = mcinit_ph_fail(
	    I, p, err, MCINIT_E_TIMEOUT,
	    "NCCL %s communicator not created within %.0f s (ncclCommAbort): %s %s did "
	    "not finish%s%s",
	    label, I->timeout, na == 1 ? "rank" : "ranks",
	    na > 0 ? mcx_buf_cstr(&a) : "(unknown: the store is gone)",
	    nb > 0 ? "; never started: " : "", nb > 0 ? mcx_buf_cstr(&b) : "");
	mcx_buf_free(&a);
	mcx_buf_free(&b);
	return rc;
}

static const char *
env_of(struct mcinit_init *I, const char *name)
{
	return mcinit_env_get(I->o->envp, name);
}

static void
note_warnings(struct mcinit_init *I, struct mcx_buf *w)
{
	char *p = w->data, *nl;

	while (p && (nl = strchr(p, '\n'))) {
		*nl = '\0';
		{
			char *t = mcx_xasprintf("warning: %s", p);

			mcinit_ph_note(I, t);
			free(t);
		}
		p = nl + 1;
	}
	mcx_buf_free(w);
}

/* ---- nccl_communicator_config_path (read in the config phase, so that a
 * bad file fails before any GPU is touched, on the CPU path too) ---- */

int
mcinit_gpu_load_cfgs(struct mcinit_init *I, struct mcinit_err *err)
{
	const struct mcinit_value *v =
	    mcinit_cfg_val(&I->job->c, MCINIT_F_nccl_communicator_config_path);
	struct mcx_buf w = {0};

	const struct mcinit_value *hp =
	    mcinit_cfg_val(&I->job->c, MCINIT_F_high_priority_stream_groups);
	size_t i;

	mcinit_nccl_cfgs_destroy(&I->ncfg);
	if (v && v->kind == MCINIT_V_STR && v->s[0] &&
	    mcinit_nccl_cfgs_load(v->s, &I->ncfg, &w, err) != 0) {
		mcx_buf_free(&w);
		return -1;
	}
	for (i = 0; hp && hp->kind == MCINIT_V_LIST && i < hp->n; i++)
		if (hp->items[i].kind == MCINIT_V_STR)
			mcinit_nccl_cfgs_high_priority(&I->ncfg, hp->items[i].s, &w);
	note_warnings(I, &w);
	return 0;
}

/* ---- world ---- */

/* The options of a communicator: the group's (NULL: NCCL's defaults), and
 * blocking as the caller chose. */
static const struct mcinit_nccl_opts *
opts_for(struct mcinit_init *I, const struct mcinit_nccl_opts *o, struct mcinit_nccl_opts *buf)
{
	if (!I->o->nccl_blocking)
		return o;
	if (o)
		*buf = *o;
	else
		mcinit_nccl_opts_default(buf);
	buf->blocking = 1;
	return buf;
}

/* The unique ids: the roots create and publish them, everyone reads them.
 * With NCCL_COMM_ID, NCCL builds the one id from that address itself. */
static int
world_ids(struct mcinit_init *I, long nid, unsigned char *ids, struct mcinit_err *err)
{
	long W = I->env.world, n = nid > 1 ? nid : 1, i, led;
	size_t len;

	if (env_of(I, "NCCL_COMM_ID"))
		return mcinit_nccl_unique_id(ids, err);
	led = nid > 1 ? mcinit_nccl_root_led(I->env.rank, W, nid) : (I->env.rank == 0 ? 0 : -1);
	mcinit_store_client_set_deadline(I->cl, mcinit_now() + I->timeout);
	for (i = 0; i < n; i++) {
		char key[64];
		char *v;

		snprintf(key, sizeof key, "mcinit/ncclid/%ld", i);
		if (i == led) {
			if (mcinit_nccl_unique_id(ids + i * MCINIT_NCCL_ID_BYTES, err) != 0 ||
			    mcinit_store_set(I->cl, key, ids + i * MCINIT_NCCL_ID_BYTES,
			                     MCINIT_NCCL_ID_BYTES, err) != 0)
				return -1;
			continue;
		}
		v = mcinit_store_get(I->cl, key, &len, err);
		if (!v)
			return -1;
		if (len != MCINIT_NCCL_ID_BYTES) {
			free(v);
			return mcinit_err_set(err, MCINIT_E_INTERNAL,
			                      "%s holds %zu bytes, not an NCCL id", key, len);
		}
		memcpy(ids + i * MCINIT_NCCL_ID_BYTES, v, MCINIT_NCCL_ID_BYTES);
		free(v);
	}
	return 0;
}

static int
phase_world(struct mcinit_init *I, struct mcinit_err *err)
{
	struct mcinit_gpu_versions v;
	struct mcinit_nccl_opts ob;
	struct mcinit_err e = {0};
	struct mcx_buf w = {0};
	struct mcinit_comm *c;
	long W = I->env.world, nid;
	unsigned char *ids;
	void *comm = NULL;

	mcinit_ph_begin(I, MCINIT_PH_WORLD);
	mcinit_gpu_versions(&v);
	nid = env_of(I, "NCCL_COMM_ID") ? 0 : mcinit_nccl_nids(W, v.nccl_runtime);
	mcinit_nccl_env_overrides(I->o->envp, NULL, &w);
	note_warnings(I, &w);
	ids = mcx_xcalloc((size_t)(nid > 1 ? nid : 1), MCINIT_NCCL_ID_BYTES);
	if (world_ids(I, nid, ids, &e) != 0) {
		free(ids);
		return mcinit_ph_fail(I, MCINIT_PH_WORLD, err, e.code, "NCCL unique id: %s", e.msg);
	}
	mark(I, "world", "-start");
	if (mcinit_nccl_init_start(&comm, (int)W, (int)I->env.rank, (int)nid, ids,
	                           opts_for(I, NULL, &ob), &e) != 0) {
		free(ids);
		return mcinit_ph_fail(I, MCINIT_PH_WORLD, err, e.code, "%s", e.msg);
	}
	free(ids);
	c = mcinit_comms_add(&I->comms);
	c->name = "world";
	c->color = 0;
	c->key = (int)I->env.rank;
	c->handle = comm; /* the teardown's from here on */
	c->state = MCINIT_CS_PENDING;
	if (wait_named(I, MCINIT_PH_WORLD, comm, "world", err) != 0) {
		c->state = MCINIT_CS_FAILED;
		c->stuck = 1;
		return -1;
	}
	c->size = (int)W;
	c->state = MCINIT_CS_READY;
	if (nid > 1)
		mcinit_ph_end(I, MCINIT_PH_WORLD, MCINIT_PS_OK,
		              "%ld rank(s): %s ncclCommInitRankScalable, %ld roots", W,
		              I->o->nccl_blocking ? "blocking" : "non-blocking", nid);
	else
		mcinit_ph_end(I, MCINIT_PH_WORLD, MCINIT_PS_OK,
		              "%ld rank(s): %s ncclCommInitRankConfig, id %s", W,
		              I->o->nccl_blocking ? "blocking" : "non-blocking",
		              env_of(I, "NCCL_COMM_ID") ? "from NCCL_COMM_ID"
		                                        : "through the store");
	return 0;
}

/* ---- groups ---- */

/* One split: every rank of the world issues it, in the same order. */
static int
split_one(struct mcinit_init *I, const struct mcinit_split *sp, struct mcinit_err *err)
{
	const char *name = mcinit_group_kind_name(sp->kind);
	struct mcinit_nccl_opts ob;
	const struct mcinit_nccl_opts *o = mcinit_nccl_cfgs_find(&I->ncfg, name);
	struct mcinit_err e = {0};
	struct mcx_buf w = {0};
	struct mcinit_comm *c = mcinit_comms_add(&I->comms);
	char label[64];
	void *child = NULL;
	int color, key, size = 0, r;

	if (mcinit_split_color_key(&I->t, sp->fam, I->env.rank, &color, &key) != 0)
		return mcinit_ph_fail(I, MCINIT_PH_GROUPS, err, MCINIT_E_INTERNAL,
		                      "no color for rank %ld in the %s groups", I->env.rank, name);
	c->name = name;
	c->fam = sp->fam;
	c->level = sp->level;
	c->color = color;
	c->key = key;
	c->coll = mcinit_kind_coll(sp->kind);
	snprintf(label, sizeof label, sp->level ? "%s-%d" : "%s", name, sp->level);
	if (o && mcinit_nccl_env_overrides(I->o->envp, o, &w) > 0)
		note_warnings(I, &w);
	mark(I, label, "-start");
	if (mcinit_nccl_split_start(I->comms.v[0].handle, color, key, opts_for(I, o, &ob), &child,
	                            &e) != 0)
		return mcinit_ph_fail(I, MCINIT_PH_GROUPS, err, e.code, "%s groups: %s", name,
		                      e.msg);
	c->handle = child;
	c->state = MCINIT_CS_FAILED; /* until it is made */
	/* non-blocking parent: the child exists once the parent is done.  On a
	 * failure the parent's split job may still write the child into
	 * c->handle's struct: the teardown ends the parent first, then the
	 * child, and frees only after (defect 3 of issue 40) */
	if (wait_named(I, MCINIT_PH_GROUPS, I->comms.v[0].handle, label, err) != 0) {
		I->comms.v[0].stuck = 1;
		return -1;
	}
	if (color == MCINIT_NCCL_NOCOLOR) {
		mcinit_nccl_destroy(child, 0, 1, NULL);
		c->handle = NULL;
		c->state = MCINIT_CS_NONE;
		return 0;
	}
	if (!mcinit_nccl_handle(child) || wait_named(I, MCINIT_PH_GROUPS, child, label, err) != 0) {
		c->stuck = 1;
		return I->failed == MCINIT_PH_COUNT
		           ? mcinit_ph_fail(I, MCINIT_PH_GROUPS, err, MCINIT_E_INTERNAL,
		                            "%s groups: ncclCommSplit gave no communicator", name)
		           : -1;
	}
	if (mcinit_nccl_info(child, &size, &r, &e) != 0)
		return mcinit_ph_fail(I, MCINIT_PH_GROUPS, err, e.code, "%s: %s", name, e.msg);
	c->size = size;
	if (size != I->t.fam[sp->fam].size || r != key)
		return mcinit_ph_fail(I, MCINIT_PH_GROUPS, err, MCINIT_E_INTERNAL,
		                      "%s group %d: NCCL made %d rank(s) with this rank at %d, the "
		                      "topology has %ld with it at %d",
		                      name, color, size, r, I->t.fam[sp->fam].size, key);
	c->state = MCINIT_CS_READY;
	return 0;
}

static int
phase_groups_gpu(struct mcinit_init *I, struct mcinit_err *err)
{
	struct mcinit_split sp[MCINIT_FAM_MAX];
	int n = mcinit_split_plan(&I->t, sp), i, mine = 0;

	mcinit_ph_begin(I, MCINIT_PH_GROUPS);
	for (i = 0; i < n; i++)
		if (split_one(I, &sp[i], err) != 0)
			return -1;
	for (i = 1; i < (int)I->comms.n; i++)
		mine += I->comms.v[i].handle != NULL;
	mcinit_ph_end(I, MCINIT_PH_GROUPS, MCINIT_PS_OK,
	              "%d ncclCommSplit(s) in creation order, non-blocking; this rank is in %d "
	              "communicator(s)%s",
	              n, mine, I->ncfg.n ? " (options from nccl_communicator_config_path)" : "");
	return 0;
}

/* ---- verify ---- */

/* Sum of the global ranks of c's group (what its all-reduce must give) and
 * its members as text, for messages. */
static long long
expected_sum(struct mcinit_init *I, const struct mcinit_comm *c, struct mcx_buf *members)
{
	long n = c->fam < 0 ? I->env.world : I->t.fam[c->fam].size, i;
	long *m = mcx_xcalloc((size_t)n, sizeof *m);
	long long s = 0;

	if (c->fam < 0)
		for (i = 0; i < n; i++)
			m[i] = i;
	else
		mcinit_topo_fam_group(&I->t, c->fam, c->color, m);
	for (i = 0; i < n; i++) {
		s += m[i];
		if (i < 8)
			mcx_buf_printf(members, "%s%ld", i ? ", " : "", m[i]);
	}
	if (n > 8)
		mcx_buf_printf(members, ", ... (%ld)", n);
	free(m);
	return s;
}

static int
verify_one(struct mcinit_init *I, struct mcinit_comm *c, struct mcx_buf *bad)
{
	struct mcx_buf mem = {0};
	struct mcinit_err e = {0};
	long long want = expected_sum(I, c, &mem), got = 0;
	int rc = 0;

	if (mcinit_nccl_allreduce(c->handle, I->env.rank, &got, mcinit_now() + I->timeout, &e) !=
	    0) {
		snprintf(c->detail, sizeof c->detail, "%.150s", e.msg);
		rc = e.code;
	} else if (got != want) {
		snprintf(c->detail, sizeof c->detail, "all-reduce gave %lld, expected %lld", got,
		         want);
		rc = MCINIT_E_UNAVAILABLE;
	}
	c->state = rc ? MCINIT_CS_FAILED : MCINIT_CS_VERIFIED;
	c->stuck = rc == MCINIT_E_TIMEOUT;
	if (rc)
		mcx_buf_printf(bad, "%s%s group %d (ranks %s): %s", bad->len ? "; " : "", c->name,
		               c->color, mcx_buf_cstr(&mem), c->detail);
	mcx_buf_free(&mem);
	return rc;
}

/* --bandwidth: nccl-tests' way, one line per communicator and size, every
 * size kept for the report (defect 6 of issue 40): sizes up to 1 GiB, each
 * after a barrier (a one-word all-reduce, so that no rank's timing starts
 * while another is still on the previous size), 20 runs up to 64 MiB and 5
 * above.  The best busbw is the communicator's.  0, or the error's code
 * (the detail says it). */
static int
sweep_one(struct mcinit_init *I, struct mcinit_comm *c)
{
	static const size_t sizes[MCINIT_BW_SIZES] = {1u << 20, 1u << 23, 1u << 26, 1u << 28,
	                                              1u << 30};
	size_t i;

	c->nbw = 0;
	for (i = 0; i < MCINIT_BW_SIZES; i++) {
		struct mcinit_err e = {0};
		struct mcinit_bw *b = &c->bw[c->nbw];
		int iters = sizes[i] > (1u << 26) ? 5 : 20;
		long long sum = 0;
		double sec = 0;
		char line[256];

		if (mcinit_nccl_allreduce(c->handle, 0, &sum, mcinit_now() + I->timeout, &e) != 0 ||
		    mcinit_nccl_time(c->handle, c->coll, sizes[i], iters, mcinit_now() + I->timeout,
		                     &sec, &e) != 0) {
			snprintf(c->detail, sizeof c->detail, "bandwidth at %zu MiB: %.120s",
			         sizes[i] >> 20, e.msg);
			c->stuck = e.code == MCINIT_E_TIMEOUT;
			return e.code;
		}
		b->bytes = (double)sizes[i];
		b->seconds = sec;
		mcinit_bandwidth(c->coll, c->size, b->bytes, sec, &b->algbw, &b->busbw);
		if (c->nbw == 0 || b->busbw > c->busbw || (c->busbw == 0 && b->algbw > c->algbw)) {
			c->algbw = b->algbw;
			c->busbw = b->busbw;
		}
		c->nbw++;
		snprintf(
		    line, sizeof line,
		    "bandwidth %-10s %-14s %8zu KiB  %8.2f us  algbw %7.2f GB/s  busbw %7.2f GB/s",
		    c->name, mcinit_coll_name(c->coll), sizes[i] >> 10, sec * 1e6, b->algbw,
		    b->busbw);
		mcinit_ph_note(I, line);
	}
	/* one communicator's buffers at a time: 2 GiB each at the top size */
	mcinit_nccl_time_done(c->handle);
	return 0;
}

static int
phase_verify_gpu(struct mcinit_init *I, struct mcinit_err *err)
{
	struct mcx_buf bad = {0};
	size_t i;
	int code = 0, n = 0, rc;

	mcinit_ph_begin(I, MCINIT_PH_VERIFY);
	for (i = 0; i < I->comms.n; i++) {
		struct mcinit_comm *c = &I->comms.v[i];

		if (!c->handle)
			continue;
		rc = verify_one(I, c, &bad);
		code = code ? code : rc;
		n++;
		/* a collective stuck on the device: nothing more is issued (the
		 * next would queue behind it, a cudaFree wait for it); the
		 * caller ends every communicator with ncclCommAbort */
		if (rc == MCINIT_E_TIMEOUT) {
			mcx_buf_printf(&bad, "; stopped at the first timeout");
			break;
		}
	}
	if (code) {
		rc = mcinit_ph_fail(I, MCINIT_PH_VERIFY, err, code, "%s", mcx_buf_cstr(&bad));
		mcx_buf_free(&bad);
		return rc;
	}
	for (i = 0; I->o->bandwidth && i < I->comms.n; i++)
		if (I->comms.v[i].handle && sweep_one(I, &I->comms.v[i]) == MCINIT_E_TIMEOUT)
			return mcinit_ph_fail(
			    I, MCINIT_PH_VERIFY, err, MCINIT_E_TIMEOUT,
			    "bandwidth of the %s communicator: %s; stopped at the "
			    "first timeout",
			    I->comms.v[i].name, I->comms.v[i].detail);
	mcinit_ph_end(I, MCINIT_PH_VERIFY, MCINIT_PS_OK,
	              "%d communicator(s): every all-reduce of the global ranks gave its group's "
	              "sum%s",
	              n,
	              I->o->bandwidth ? "; bandwidth measured as nccl-tests does (1 MiB to 1 GiB, "
	                                "each size after a barrier, one warm-up, then 20 runs "
	                                "(5 above 64 MiB) in one ncclGroupStart/End "
	                                "between two CUDA events on the stream; every size in "
	                                "the report)"
	                              : "");
	return 0;
}

int
mcinit_gpu_phase_comms(struct mcinit_init *I, struct mcinit_err *err)
{
	if (phase_world(I, err) != 0 || phase_groups_gpu(I, err) != 0 ||
	    phase_verify_gpu(I, err) != 0) {
		mcinit_gpu_teardown(I, true); /* peers may be blocked: no finalize */
		return -1;
	}
	return 0;
}

/* ---- seeds: the device generator ---- */

int
mcinit_gpu_seed_device(struct mcinit_init *I, char *detail, size_t cap, struct mcinit_err *err)
{
	const struct mcinit_kb *kb = mcinit_kb_gpu();
	enum { N = 4096, K = 16 };
	uint64_t idx[K];
	float got[K];
	void *ctx = NULL, *p = NULL;
	char name[128], msg[512];
	double peak;
	int i, rc = -1;

	/* Megatron's torch.cuda.manual_seed(seed): the default generator gets the
	 * base seed; the kernels draw from Philox(seed, offset) */
	I->gen_seed = (unsigned long long)I->seeds.base;
	if (!kb) {
		snprintf(detail, cap, "; device generator seed %llu (no device kernels: %s)",
		         I->gen_seed, mcinit_kb_gpu_why());
		return 0;
	}
	if (kb->open(&ctx, I->device, name, sizeof name, &peak, msg, sizeof msg) != 0)
		return mcinit_ph_fail(I, MCINIT_PH_SEEDS, err, MCINIT_E_UNAVAILABLE,
		                      "device generator: %s", msg);
	for (i = 0; i < K; i++)
		idx[i] = (uint64_t)i * (N / K) + (uint64_t)i;
	if (kb->alloc(ctx, &p, N * sizeof(float)) == 0 &&
	    kb->fill(ctx, MCINIT_DTYPE_F32, p, N, I->gen_seed, 0) == 0 &&
	    kb->gather(ctx, MCINIT_DTYPE_F32, p, idx, K, got) == 0)
		rc = 0;
	for (i = 0; rc == 0 && i < K; i++)
		if (memcmp(&got[i],
		           &(float){mcinit_kernels_input(MCINIT_DTYPE_F32, I->gen_seed, 0, idx[i])},
		           sizeof(float)) != 0)
			rc = 1;
	if (p)
		kb->free(ctx, p);
	kb->close(ctx);
	if (rc != 0)
		return mcinit_ph_fail(I, MCINIT_PH_SEEDS, err, MCINIT_E_UNAVAILABLE,
		                      rc < 0 ? "device generator: the GPU could not draw numbers"
		                             : "device generator: the GPU's Philox draws differ "
		                               "from the CPU's for seed %llu",
		                      I->gen_seed);
	snprintf(detail, cap,
	         "; device generator seeded with %llu (Philox, %d draws agree with the CPU)",
	         I->gen_seed, K);
	return 0;
}

/* ---- kernels ---- */

int
mcinit_gpu_phase_kernels(struct mcinit_init *I, struct mcinit_err *err)
{
	const struct mcinit_config *c = &I->job->c;
	struct mcinit_kernels_job j;
	struct mcinit_kernels_result r;
	char line[512];

	mcinit_kernels_job_init(&j);
	/* Megatron's _warmup_jit_function: bf16 if bf16, fp16 if fp16, else fp32 */
	j.dtype = mcinit_cfg_bool(c, MCINIT_F_bf16)   ? MCINIT_DTYPE_BF16
	          : mcinit_cfg_bool(c, MCINIT_F_fp16) ? MCINIT_DTYPE_F16
	                                              : MCINIT_DTYPE_F32;
	j.swiglu = mcinit_cfg_bool(c, MCINIT_F_swiglu);
	j.sequence_parallel = mcinit_cfg_bool(c, MCINIT_F_sequence_parallel);
	j.seq_length = (long)mcinit_cfg_int(c, MCINIT_F_seq_length);
	j.micro_batch_size = (long)mcinit_cfg_int(c, MCINIT_F_micro_batch_size);
	j.hidden_size = (long)mcinit_cfg_int(c, MCINIT_F_hidden_size);
	j.ffn_hidden_size = (long)I->job->dv.ffn_hidden_size;
	j.tp = I->t.s.tp;
	j.cp = I->t.s.cp;
	j.seed = I->gen_seed;
	j.rank = (int)I->env.rank;
	j.device = MCINIT_KDEV_GPU;
	j.gpu = I->device;
	if (mcinit_kernels_phase(&j, &r) != 0)
		return mcinit_ph_fail(I, MCINIT_PH_KERNELS, err, MCINIT_E_UNAVAILABLE,
		                      "fused kernels on GPU %d: %s", I->device, r.message);
	mcinit_kernels_summary(&r, line, sizeof line);
	mcinit_ph_end(I, MCINIT_PH_KERNELS, MCINIT_PS_OK, "%s", line);
	return 0;
}

/* ---- tp-comm ---- */

int
mcinit_gpu_tp_buffers(struct mcinit_init *I, size_t bytes, char *detail, size_t cap,
                      struct mcinit_err *err)
{
	struct mcinit_err e = {0};
	size_t i;

	for (i = 1; i < I->comms.n; i++) {
		struct mcinit_comm *c = &I->comms.v[i];

		if (c->fam < 0 || I->t.fam[c->fam].kind != MCINIT_GROUP_TP || !c->handle)
			continue;
		if (mcinit_nccl_buffers(c->handle, bytes, mcinit_now() + I->timeout, &e) != 0)
			return mcinit_ph_fail(I, MCINIT_PH_TP_COMM, err, e.code,
			                      "userbuffers (%.1f MiB) on the TP communicator: %s",
			                      (double)bytes / 1048576.0, e.msg);
		snprintf(detail, cap,
		         "%.1f MiB of userbuffers (%d x [seq x mbs / cp, hidden] bf16) allocated "
		         "with ncclMemAlloc, registered with the TP communicator, released",
		         (double)bytes / 1048576.0, MCINIT_TP_COMM_BUFFERS);
		return 0;
	}
	return mcinit_ph_fail(I, MCINIT_PH_TP_COMM, err, MCINIT_E_INTERNAL,
	                      "no TP communicator to register the userbuffers with");
}

/* ---- teardown and report ---- */

void
mcinit_gpu_teardown(struct mcinit_init *I, bool hard)
{
	if (I->comms.n == 0)
		return;
	/* the configured timeout (--timeout, dist.distributed_timeout_minutes)
	 * bounds the finalize; past it, ncclCommAbort */
	mcinit_comms_teardown(&I->comms, mcinit_nccl_destroy, mcinit_now() + I->timeout, hard,
	                      NULL);
}

json_t *
mcinit_gpu_comms_json(const struct mcinit_init *I)
{
	static const char *const st[] = {"none", "pending", "ready", "verified", "failed"};
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < I->comms.n; i++) {
		const struct mcinit_comm *c = &I->comms.v[i];
		json_t *o = json_pack("{s:s, s:i, s:i, s:i, s:i, s:s, s:s, s:s}", "key", c->name,
		                      "level", c->level, "color", c->color, "rank", c->key, "size",
		                      c->size, "state", st[c->state], "collective",
		                      mcinit_coll_name(c->coll), "detail", c->detail);

		json_object_set_new(o, "algbw", c->algbw > 0 ? json_real(c->algbw) : json_null());
		json_object_set_new(o, "busbw", c->algbw > 0 ? json_real(c->busbw) : json_null());
		if (c->nbw > 0) {
			json_t *sz = json_array();
			int k;

			for (k = 0; k < c->nbw; k++)
				json_array_append_new(sz, json_pack("{s:I, s:f, s:f, s:f}", "bytes",
				                                    (json_int_t)c->bw[k].bytes,
				                                    "seconds", c->bw[k].seconds,
				                                    "algbw", c->bw[k].algbw,
				                                    "busbw", c->bw[k].busbw));
			json_object_set_new(o, "bandwidth", sz);
		}
		json_array_append_new(a, o);
	}
	return a;
}
