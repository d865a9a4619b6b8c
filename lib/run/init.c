/*
 * init.c — the phase engine (see init.h).
 *
 * Agreement goes through "rounds" on the store: every rank publishes a value
 * under mcinit/<round>/<rank>; rank 0 waits for all of them, checks them
 * and publishes a verdict under mcinit/<round>/verdict; every other rank
 * waits for that verdict only.  So a round costs O(W) messages, and rank 0
 * alone compares (it names the ranks that differ).  Rank 0 gives its
 * verdict a little before the deadline, so that when a rank is missing every
 * rank that did arrive hears which one, rather than timing out blind; a
 * rank that hears nothing finds the missing ranks itself (CHECK per key).
 */
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "gpu/gpu.h"
#include "run/init-impl.h"
#include "run/init.h"
#include "plan/plan.h"
#include "rules/rules.h"
#include "store/store.h"
#include "topo/topology.h"

/* ---- digests (FNV-1a, 64 bits: agreement, not security) ---- */

static uint64_t
fnv(const void *p, size_t n, uint64_t h)
{
	const unsigned char *q = p;

	while (n--) {
		h ^= *q++;
		h *= 1099511628211ull;
	}
	return h;
}
#define FNV0 1469598103934665603ull

static void
hex64(uint64_t v, char out[17])
{
	snprintf(out, 17, "%016llx", (unsigned long long)v);
}

/* A store call failed in phase p.  A broken connection names the store
 * and who serves it (a rank 0 that died took it along: the error is that,
 * whatever call noticed); anything else fails with e as it is. */
static int
store_fail(struct mcinit_init *I, enum mcinit_phase p, struct mcinit_err *err,
           const struct mcinit_err *e)
{
	const struct mcinit_env *v = &I->env;

	if (I->cl && mcinit_store_client_lost(I->cl))
		return mcinit_ph_fail(I, p, err, MCINIT_E_UNAVAILABLE,
		                      "lost the store at %s:%d, served by %s (%s)", v->master_addr,
		                      I->srv ? mcinit_store_server_port(I->srv) : v->master_port,
		                      I->srv               ? "this rank"
		                      : v->mcinit_launched ? "the mcinit launcher"
		                      : v->agent_store     ? "torchrun's agent"
		                                           : "rank 0",
		                      e->msg);
	return mcinit_ph_fail(I, p, err, e->code ? e->code : MCINIT_E_INTERNAL, "%s", e->msg);
}

/* ---- life cycle ---- */

struct mcinit_init *
mcinit_init_new(const struct mcinit_init_opts *o)
{
	struct mcinit_init *I = mcx_xcalloc(1, sizeof *I);

	I->o = o;
	I->failed = MCINIT_PH_COUNT;
	mcinit_diags_init(&I->d);
	if (gethostname(I->host, sizeof I->host) != 0)
		snprintf(I->host, sizeof I->host, "localhost");
	I->env_ok = mcinit_env_detect(&I->env, o->envp, &o->env, &I->env_err) == 0;
	if (!I->env_ok) {
		memset(&I->env, 0, sizeof I->env);
		I->env.world = I->env.local_world = I->env.nnodes = 1;
	}
	{
		const char *spec = mcinit_env_get(o->envp, "MCINIT_FAULT");

		I->fault_ok =
		    !spec || !*spec || mcinit_fault_parse(spec, &I->fault, &I->fault_err) == 0;
		if (I->fault_ok && !o->on_fault &&
		    (I->fault.kind == MCINIT_FAULT_CRASH || I->fault.kind == MCINIT_FAULT_EXIT))
			I->fault_ok =
			    mcinit_err_set(&I->fault_err, MCINIT_E_USAGE,
			                   "MCINIT_FAULT='%s': this program carries out no "
			                   "'%s' fault",
			                   spec, mcinit_fault_kinds[I->fault.kind]) == 0;
	}
	return I;
}

void
mcinit_init_free(struct mcinit_init *I)
{
	if (!I)
		return;
	/* NCCL first, while the store is still up (a failed run ends the
	 * communicators with ncclCommAbort: its peers may be blocked) */
	mcinit_gpu_teardown(I, I->failed != MCINIT_PH_COUNT);
	mcinit_comms_destroy(&I->comms);
	mcinit_nccl_cfgs_destroy(&I->ncfg);
	mcinit_store_client_free(I->cl);
	if (I->srv)
		mcinit_store_server_free(I->srv);
	json_decref(I->world);
	mcinit_job_free(I->job); /* before the diagnostics it borrows */
	mcinit_diags_destroy(&I->d);
	free(I);
}

struct mcinit_diags *
mcinit_init_diags(struct mcinit_init *I)
{
	return &I->d;
}

const struct mcinit_env *
mcinit_init_env(const struct mcinit_init *I)
{
	return &I->env;
}

int
mcinit_init_failed_phase(const struct mcinit_init *I)
{
	return (int)I->failed;
}

/* ---- phase config ---- */

static int
make_topo(struct mcinit_init *I, struct mcinit_err *err)
{
	struct mcinit_topo_sizes s;

	mcinit_job_topo_sizes(I->job, &s);
	return mcinit_topo_init(&I->t, &s, err);
}

static void
config_digest(struct mcinit_init *I)
{
	json_t *j = mcinit_config_to_json(&I->job->c);
	char *s = json_dumps(j, JSON_SORT_KEYS | JSON_COMPACT);

	hex64(fnv(s, strlen(s), FNV0), I->cfg_digest);
	free(s);
	json_decref(j);
}

/* d's overrides and, last, dist.lazy_mpu_init=true, in *ov and *ovi
 * (freed by the caller; the strings are static or d's). */
static void
lazy_override(struct mcinit_job_desc *d, const char ***ov, int **ovi)
{
	size_t n = d->noverrides;

	*ov = mcx_xcalloc(n + 1, sizeof **ov);
	*ovi = mcx_xcalloc(n + 1, sizeof **ovi);
	if (n > 0)
		memcpy(*ov, d->overrides, n * sizeof **ov);
	if (n > 0 && d->override_argv_index)
		memcpy(*ovi, d->override_argv_index, n * sizeof **ovi);
	(*ov)[n] = "dist.lazy_mpu_init=true";
	d->overrides = *ov;
	d->override_argv_index = *ovi;
	d->noverrides = n + 1;
}

int
mcinit_init_config(struct mcinit_init *I, const struct mcinit_job_desc *desc,
                   struct mcinit_err *err)
{
	struct mcinit_job_desc d = *desc;
	struct mcinit_err e = {0};
	const char **ov = NULL;
	int *ovi = NULL;
	size_t nerr;

	/* A launcher's environment that does not parse is the same failure
	 * whichever variable is wrong (WORLD_SIZE, RANK, SLURM_NTASKS, ...):
	 * the env phase's, said before the config would read the world size
	 * on its own and call it an invalid job. */
	if (!I->env_ok && I->env_err.code == MCINIT_E_PARSE) {
		mcinit_ph_begin(I, MCINIT_PH_ENV);
		return mcinit_ph_fail(I, MCINIT_PH_ENV, err, I->env_err.code, "%s", I->env_err.msg);
	}
	mcinit_ph_begin(I, MCINIT_PH_CONFIG);
	if (!I->fault_ok)
		return mcinit_ph_fail(I, MCINIT_PH_CONFIG, err, I->fault_err.code, "%s",
		                      I->fault_err.msg);
	/* the world is the launcher's, whatever the config's defaults say;
	 * messages name the launcher, not a --world-size nobody gave */
	if (I->env_ok && I->env.contract != MCINIT_CONTRACT_NONE && d.world_size == 0) {
		d.world_size = I->env.world;
		snprintf(I->world_src, sizeof I->world_src, "the %s environment",
		         mcinit_contract_name(I->env.contract));
	}
	/* --lazy-mpu-init (mcinit_init_options.lazy_mpu_init) is the config's
	 * dist.lazy_mpu_init, one switch: what it implies (use_cpu_initialization,
	 * repairs.c R4) and the deferral (mcinit_init_run) read the same field. */
	if (I->o->lazy)
		lazy_override(&d, &ov, &ovi);
	mcinit_job_free(I->job);
	I->job = mcinit_job_load_desc(&d, I->world_src[0] ? I->world_src : I->o->world_source,
	                              &I->d, &e);
	free(ov);
	free(ovi);
	if (!I->job) {
		*err = e;
		return mcinit_ph_fail(I, MCINIT_PH_CONFIG, err, e.code ? e.code : MCINIT_E_INTERNAL,
		                      "%s", e.msg);
	}
	mcinit_diags_sort(&I->d);
	nerr = mcinit_diags_count(&I->d, MCINIT_ERROR);
	if (nerr == 0 && make_topo(I, &e) < 0)
		return mcinit_ph_fail(I, MCINIT_PH_CONFIG, err, 1, "%s", e.msg);
	if (nerr > 0) {
		mcinit_ph_fail(I, MCINIT_PH_CONFIG, err, 1, "the job is invalid: %zu error(s)",
		               nerr);
		return 1;
	}
	config_digest(I);
	if (mcinit_gpu_load_cfgs(I, &e) != 0)
		return mcinit_ph_fail(I, MCINIT_PH_CONFIG, err, e.code, "%s", e.msg);
	I->config_ok = true;
	I->timeout =
	    I->o->timeout > 0
	        ? I->o->timeout
	        : 60.0 * (double)mcinit_cfg_int(&I->job->c, MCINIT_F_distributed_timeout_minutes);
	mcinit_ph_end(I, MCINIT_PH_CONFIG, MCINIT_PS_OK,
	              "valid; world %lld, tp %ld pp %ld cp %ld ep %ld dp %ld; config digest %s",
	              I->job->dv.world_size, I->t.s.tp, I->t.s.pp, I->t.s.cp, I->t.s.ep, I->t.dp,
	              I->cfg_digest);
	return 0;
}

/* ---- phase env ---- */

static void
put_env(struct mcinit_init *I, const char *name, const char *value, int overwrite)
{
	if (I->o->set_env != NULL)
		I->o->set_env(name, value, overwrite);
}

static void
apply_env_vars(struct mcinit_init *I)
{
	const char *k;
	json_t *v;

	json_object_foreach(I->job->c.env_vars, k, v)
	{
		if (json_is_string(v))
			put_env(I, k, json_string_value(v), 0); /* setdefault */
	}
}

static int
phase_env(struct mcinit_init *I, struct mcinit_err *err)
{
	const struct mcinit_env *e = &I->env;
	const struct mcinit_value *ws = mcinit_cfg_val(&I->job->c, MCINIT_F_world_size);

	mcinit_ph_begin(I, MCINIT_PH_ENV);
	(void)ws;
	if (!I->env_ok)
		return mcinit_ph_fail(I, MCINIT_PH_ENV, err,
		                      I->env_err.code ? I->env_err.code : MCINIT_E_USAGE, "%s",
		                      I->env_err.msg);
	if ((long long)e->world != I->job->dv.world_size) {
		if (e->contract == MCINIT_CONTRACT_NONE)
			return mcinit_ph_fail(
			    I, MCINIT_PH_ENV, err, MCINIT_E_USAGE,
			    "no launcher environment (a single process) but the job has a "
			    "world of %lld (from %s): start it with --nproc-per-node, "
			    "torchrun or srun",
			    I->job->dv.world_size,
			    I->job->dv.world_size_source ? I->job->dv.world_size_source
			                                 : "the config");
		return mcinit_ph_fail(
		    I, MCINIT_PH_ENV, err, MCINIT_E_PARSE,
		    "the %s environment has a world of %ld rank(s) but the job says %lld "
		    "(from %s)",
		    mcinit_contract_name(e->contract), e->world, I->job->dv.world_size,
		    I->job->dv.world_size_source ? I->job->dv.world_size_source : "the config");
	}
	apply_env_vars(I);
	if (e->contract == MCINIT_CONTRACT_NONE) {
		mcinit_ph_end(I, MCINIT_PH_ENV, MCINIT_PS_OK,
		              "no launcher: a single process (rank 0 of 1)");
		return 0;
	}
	mcinit_ph_end(I, MCINIT_PH_ENV, MCINIT_PS_OK,
	              "%s: rank %ld of %ld, local %ld of %ld, node %ld of %ld, store %s:%d%s",
	              e->mcinit_launched ? "mcinit launcher" : mcinit_contract_name(e->contract),
	              e->rank, e->world, e->local_rank, e->local_world, e->node_rank, e->nnodes,
	              e->master_addr, e->master_port, e->agent_store ? " (the launcher's)" : "");
	return 0;
}

/* ---- rounds ---- */

typedef int (*verify_fn)(struct mcinit_init *I, char **vals, size_t *lens, struct mcx_buf *why);

/* Rank 0, when it serves the store and fails a round, waits (2 s at most)
 * until the ranks that arrived have read the verdict: were it to stop at
 * once, they would find the store gone instead of the reason. */
static void
linger(struct mcinit_init *I, const char *name, long expect)
{
	char key[96];
	double until = mcinit_now() + 2;
	struct mcinit_err e;
	int64_t n = 0;

	if (!I->srv || expect <= 0)
		return;
	snprintf(key, sizeof key, "mcinit/%s/heard", name);
	mcinit_store_client_set_deadline(I->cl, until);
	while (mcinit_now() < until && mcinit_store_add(I->cl, key, 0, &n, &e) == 0 && n < expect)
		usleep(10000);
}

static int
publish_verdict(struct mcinit_init *I, const char *name, int code, const char *msg)
{
	char key[96];
	char *v = mcx_xasprintf("%d:%s", code, msg);
	struct mcinit_err e;
	int rc;

	snprintf(key, sizeof key, "mcinit/%s/verdict", name);
	rc = mcinit_store_set(I->cl, key, v, strlen(v), &e);
	free(v);
	return rc;
}

/* Every rank's value of the round, in chunks the server accepts. */
static int
gather(struct mcinit_init *I, const char *name, char ***vals, size_t **lens, struct mcinit_err *err)
{
	long W = I->env.world, r;
	char **keys = mcx_xcalloc((size_t)W, sizeof *keys);
	char **v = mcx_xcalloc((size_t)W, sizeof *v);
	size_t *l = mcx_xcalloc((size_t)W, sizeof *l);
	const long chunk = 8192;
	int rc = 0;

	for (r = 0; r < W; r++)
		keys[r] = mcx_xasprintf("mcinit/%s/%ld", name, r);
	for (r = 0; r < W && rc == 0; r += chunk) {
		size_t n = (size_t)(W - r < chunk ? W - r : chunk), i;
		char **cv;
		size_t *cl;

		rc = mcinit_store_multi_get(I->cl, (const char *const *)keys + r, n, &cv, &cl, err);
		if (rc != 0)
			break;
		for (i = 0; i < n; i++) {
			v[r + (long)i] = cv[i];
			l[r + (long)i] = cl[i];
		}
		free(cv);
		free(cl);
	}
	for (r = 0; r < W; r++)
		free(keys[r]);
	free(keys);
	if (rc != 0) {
		mcinit_store_values_free(v, l, (size_t)W);
		return -1;
	}
	*vals = v;
	*lens = l;
	return 0;
}

static int
wait_all(struct mcinit_init *I, const char *name, double deadline, struct mcinit_err *err)
{
	long W = I->env.world, r;
	char **keys = mcx_xcalloc((size_t)W, sizeof *keys);
	int rc;

	for (r = 0; r < W; r++)
		keys[r] = mcx_xasprintf("mcinit/%s/%ld", name, r);
	mcinit_store_client_set_deadline(I->cl, deadline);
	rc = mcinit_store_wait(I->cl, (const char *const *)keys, (size_t)W, err);
	for (r = 0; r < W; r++)
		free(keys[r]);
	free(keys);
	return rc;
}

/* One round (see the top of this file).  0, or fails phase p. */
static int
round_run(struct mcinit_init *I, enum mcinit_phase p, const char *name, const char *payload,
          verify_fn verify, double timeout, struct mcinit_err *err)
{
	double start = mcinit_now(), deadline = start + timeout;
	double margin = timeout * 0.1 < 1.0 ? timeout * 0.1 : 1.0;
	char key[96], *v;
	struct mcinit_err e = {0};
	struct mcx_buf b = {0};
	int code;

	snprintf(key, sizeof key, "mcinit/%s/%ld", name, I->env.rank);
	mcinit_store_client_set_deadline(I->cl, deadline);
	if (mcinit_store_set(I->cl, key, payload, strlen(payload), &e) != 0)
		return store_fail(I, p, err, &e);
	if (I->env.rank == 0) {
		char **vals;
		size_t *lens;
		int rc;

		if (wait_all(I, name, deadline - margin, &e) != 0) {
			long n;

			if (e.code != MCINIT_E_TIMEOUT || mcinit_store_client_lost(I->cl))
				return store_fail(I, p, err, &e);
			n = mcinit_ph_missing(I, name, &b);
			v = mcx_xasprintf("%s %s never arrived (%ld of %ld missing after %.0f s)",
			                  n == 1 ? "rank" : "ranks", mcx_buf_cstr(&b), n,
			                  I->env.world, timeout);
			mcinit_store_client_set_deadline(I->cl, mcinit_now() + 2);
			publish_verdict(I, name, MCINIT_E_TIMEOUT, v);
			linger(I, name, I->env.world - n - 1);
			rc = mcinit_ph_fail(I, p, err, MCINIT_E_TIMEOUT, "%s", v);
			free(v);
			mcx_buf_free(&b);
			return rc;
		}
		mcinit_store_client_set_deadline(I->cl, mcinit_now() + timeout);
		if (gather(I, name, &vals, &lens, &e) != 0)
			return store_fail(I, p, err, &e);
		code = verify ? verify(I, vals, lens, &b) : 0;
		mcinit_store_values_free(vals, lens, (size_t)I->env.world);
		publish_verdict(I, name, code, code ? mcx_buf_cstr(&b) : "ok");
		if (code) {
			linger(I, name, I->env.world - 1);
			rc = mcinit_ph_fail(I, p, err, code, "%s", mcx_buf_cstr(&b));
			mcx_buf_free(&b);
			return rc;
		}
		mcx_buf_free(&b);
		return 0;
	}
	snprintf(key, sizeof key, "mcinit/%s/verdict", name);
	v = mcinit_store_get(I->cl, key, NULL, &e);
	if (!v) {
		long n;
		int rc;

		if (e.code != MCINIT_E_TIMEOUT || mcinit_store_client_lost(I->cl))
			return store_fail(I, p, err, &e);
		n = mcinit_ph_missing(I, name, &b);
		if (n < 0 && mcinit_store_client_lost(I->cl))
			rc = store_fail(I, p, err, &e);
		else if (n < 0)
			rc = mcinit_ph_fail(
			    I, p, err, MCINIT_E_TIMEOUT,
			    "lost the store at %s:%d while waiting for rank 0's verdict (%s)",
			    I->env.master_addr, I->env.master_port, e.msg);
		else if (n > 0)
			rc = mcinit_ph_fail(I, p, err, MCINIT_E_TIMEOUT,
			                    "%s %s never arrived (%ld of %ld missing after %.0f s)",
			                    n == 1 ? "rank" : "ranks", mcx_buf_cstr(&b), n,
			                    I->env.world, timeout);
		else
			rc = mcinit_ph_fail(
			    I, p, err, MCINIT_E_TIMEOUT,
			    "every rank arrived but rank 0 gave no verdict within %.0f s", timeout);
		mcx_buf_free(&b);
		return rc;
	}
	code = atoi(v);
	if (code != 0) {
		struct mcinit_err ig;

		snprintf(key, sizeof key, "mcinit/%s/heard", name);
		mcinit_store_add(I->cl, key, 1, NULL, &ig);
		const char *msg = strchr(v, ':');
		int rc = mcinit_ph_fail(I, p, err, code, "%s", msg ? msg + 1 : v);

		free(v);
		return rc;
	}
	free(v);
	return 0;
}

/* ---- phase rendezvous ---- */

static void
cpuset_text(struct mcx_buf *b)
{
	cpu_set_t s;
	int i, first = -1, n = 0;

	if (sched_getaffinity(0, sizeof s, &s) != 0)
		return;
	for (i = 0; i <= CPU_SETSIZE; i++) {
		bool in = i < CPU_SETSIZE && CPU_ISSET(i, &s);

		if (in && first < 0)
			first = i;
		if (!in && first >= 0) {
			mcx_buf_printf(b, n++ ? ",%d" : "%d", first);
			if (i - 1 > first)
				mcx_buf_printf(b, "-%d", i - 1);
			first = -1;
		}
	}
}

static char *
rank_info(struct mcinit_init *I)
{
	struct mcx_buf cs = {0};
	json_t *j;
	char *s;

	cpuset_text(&cs);
	if (!I->busid[0]) /* the device phase's choice: see mcinit_gpu_phase_device */
		mcinit_gpu_busid(mcinit_cfg_bool(&I->job->c, MCINIT_F_external_gpu_device_mapping)
		                     ? 0
		                     : (int)I->env.local_rank,
		                 I->busid, sizeof I->busid);
	j = json_pack("{s:I, s:s, s:I, s:I, s:I, s:I, s:s, s:s, s:s}", "rank",
	              (json_int_t)I->env.rank, "host", I->host, "pid", (json_int_t)getpid(),
	              "local_rank", (json_int_t)I->env.local_rank, "node_rank",
	              (json_int_t)I->env.node_rank, "world_size", (json_int_t)I->env.world, "gpu",
	              I->busid, "cpuset", mcx_buf_cstr(&cs), "config_digest", I->cfg_digest);
	s = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	mcx_buf_free(&cs);
	return s;
}

struct seen {
	const char *host;
	const char *gpu; /* PCI bus id, "" without one */
	long node_rank, local_rank;
	long rank;
};

static int
cmp_seen(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	if (c)
		return c;
	/* with GPUs, (host, GPU) must be unique: two ranks on one device */
	if ((c = (*x->gpu != 0) - (*y->gpu != 0)) != 0 || (*x->gpu && (c = strcmp(x->gpu, y->gpu))))
		return c;
	if (*x->gpu)
		return 0;
	if (x->node_rank != y->node_rank)
		return (x->node_rank > y->node_rank) - (x->node_rank < y->node_rank);
	return (x->local_rank > y->local_rank) - (x->local_rank < y->local_rank);
}

static int
verify_rendezvous(struct mcinit_init *I, char **vals, size_t *lens, struct mcx_buf *why)
{
	long W = I->env.world, r, nbad = 0;
	json_t **js = mcx_xcalloc((size_t)W, sizeof *js);
	struct seen *seen = mcx_xcalloc((size_t)W, sizeof *seen);
	int code = 0;

	(void)lens;
	for (r = 0; r < W; r++) {
		json_t *j = json_loads(vals[r], 0, NULL);
		const char *dg = json_string_value(json_object_get(j, "config_digest"));
		json_int_t ws = json_integer_value(json_object_get(j, "world_size"));

		js[r] = j;
		if (!j) {
			mcx_buf_printf(why, "rank %ld published no readable rank record; ", r);
			code = MCINIT_E_UNAVAILABLE;
			continue;
		}
		if (ws != W) {
			if (nbad++ < 8)
				mcx_buf_printf(why,
				               "rank %ld has a world of %lld ranks, rank 0 has "
				               "%ld; ",
				               r, (long long)ws, W);
			code = code ? code : 1;
		} else if (!dg || strcmp(dg, I->cfg_digest) != 0) {
			if (nbad++ < 8)
				mcx_buf_printf(why,
				               "rank %ld was started with a different config "
				               "(digest %s, rank 0 has %s); ",
				               r, dg ? dg : "none", I->cfg_digest);
			code = code ? code : 1;
		}
		seen[r].host = json_string_value(json_object_get(j, "host"));
		seen[r].host = seen[r].host ? seen[r].host : "";
		seen[r].gpu = json_string_value(json_object_get(j, "gpu"));
		seen[r].gpu = seen[r].gpu ? seen[r].gpu : "";
		seen[r].local_rank = (long)json_integer_value(json_object_get(j, "local_rank"));
		seen[r].node_rank = (long)json_integer_value(json_object_get(j, "node_rank"));
		seen[r].rank = r;
	}
	/* no GPU on the CPU path: (host, node rank, local rank) stands for
	 * (host, GPU) — the node rank too, so that two launchers on one host
	 * can play two nodes */
	qsort(seen, (size_t)W, sizeof *seen, cmp_seen);
	for (r = 1; r < W; r++)
		if (cmp_seen(&seen[r - 1], &seen[r]) == 0) {
			if (nbad++ < 8 && *seen[r].gpu)
				mcx_buf_printf(why, "ranks %ld and %ld both use GPU %s on %s; ",
				               seen[r - 1].rank, seen[r].rank, seen[r].gpu,
				               seen[r].host);
			else if (nbad <= 8)
				mcx_buf_printf(why,
				               "ranks %ld and %ld both run on %s as node %ld's "
				               "local rank %ld; ",
				               seen[r - 1].rank, seen[r].rank, seen[r].host,
				               seen[r].node_rank, seen[r].local_rank);
			code = code ? code : MCINIT_E_PARSE;
		}
	if (nbad > 8)
		mcx_buf_printf(why, "%ld more; ", nbad - 8);
	if (why->len >= 2)
		why->len -= 2, why->data[why->len] = '\0';
	for (r = 0; r < W; r++)
		json_decref(js[r]);
	free(js);
	free(seen);
	return code;
}

/* Rank 0 serves the store: room for the world's connections, or a note
 * with the numbers and what to set (on the progress stream). */
static void
check_store_capacity(struct mcinit_init *I)
{
	struct mcx_buf b = {0};

	if (mcinit_store_capacity_prepare(I->env.world, "warning: ", &b)) {
		b.data[--b.len] = '\0'; /* mcinit_ph_note ends the line */
		mcinit_ph_note(I, mcx_buf_cstr(&b));
	}
	mcx_buf_free(&b);
}

static int
connect_store(struct mcinit_init *I, double deadline, struct mcinit_err *err)
{
	const struct mcinit_env *e = &I->env;
	bool serve = e->rank == 0 && !e->agent_store && !e->mcinit_launched;

	const char *addr = e->master_addr;
	int port = e->master_port;

	if (serve && e->contract == MCINIT_CONTRACT_NONE) {
		/* a single process meets only itself: no well-known port */
		addr = "127.0.0.1";
		port = 0;
	}
	if (serve) {
		check_store_capacity(I);
		I->srv =
		    mcinit_store_server_new(addr, port, e->token[0] ? e->token : NULL, NULL, err);
		if (!I->srv || mcinit_store_server_start(I->srv, err) != 0)
			return -1;
		port = mcinit_store_server_port(I->srv);
	}
	I->cl = mcinit_store_client_new(addr, port, deadline, err);
	if (!I->cl)
		return -1;
	mcinit_store_client_set_prefix(I->cl, e->key_prefix);
	if (e->token[0] && mcinit_store_auth(I->cl, e->token, err) != 0)
		return -1;
	return 0;
}

static int
phase_rendezvous(struct mcinit_init *I, struct mcinit_err *err)
{
	struct mcinit_err e = {0};
	double t = mcinit_now();
	char *info;
	int rc;

	mcinit_ph_begin(I, MCINIT_PH_RENDEZVOUS);
	if (connect_store(I, t + I->timeout, &e) != 0) {
		if (e.code == MCINIT_E_TIMEOUT && I->env.rank != 0)
			return mcinit_ph_fail(
			    I, MCINIT_PH_RENDEZVOUS, err, MCINIT_E_TIMEOUT,
			    "rank 0 never arrived: no store at %s:%d within %.0f s (%s)",
			    I->env.master_addr, I->env.master_port, I->timeout, e.msg);
		return mcinit_ph_fail(I, MCINIT_PH_RENDEZVOUS, err,
		                      e.code ? e.code : MCINIT_E_UNAVAILABLE, "%s", e.msg);
	}
	mcinit_ph_begin(I, MCINIT_PH_RENDEZVOUS); /* now the launcher can see the phase */
	I->t0[MCINIT_PH_RENDEZVOUS] = t;
	info = rank_info(I);
	rc = round_run(I, MCINIT_PH_RENDEZVOUS, "rdzv", info, verify_rendezvous,
	               I->timeout - (mcinit_now() - t), err);
	free(info);
	if (rc != 0)
		return -1;
	mcinit_ph_end(I, MCINIT_PH_RENDEZVOUS, MCINIT_PS_OK,
	              "%ld rank(s) met at %s:%d%s; config digests "
	              "agree",
	              I->env.world,
	              I->env.contract == MCINIT_CONTRACT_NONE ? "127.0.0.1" : I->env.master_addr,
	              I->srv ? mcinit_store_server_port(I->srv) : I->env.master_port,
	              I->srv ? " (served by rank 0)" : "");
	return 0;
}

/* ---- phase device (and the GPU phases of the CPU path) ---- */

/* No CUDA device: on a GPU node (a driver is there) what is wrong is the
 * runtime or the driver, and why says which; --allow-no-cuda is the advice
 * only where there is no GPU at all. */
static int
no_device(struct mcinit_init *I, const char *why, struct mcinit_err *err)
{
	struct mcinit_gpu_versions v;

	mcinit_gpu_versions(&v);
	if (v.gpu_node)
		return mcinit_ph_fail(I, MCINIT_PH_DEVICE, err, MCINIT_E_UNAVAILABLE,
		                      "no CUDA device usable on this GPU node: %s", why);
	return mcinit_ph_fail(I, MCINIT_PH_DEVICE, err, MCINIT_E_UNAVAILABLE,
	                      "no CUDA device (%s): pass --allow-no-cuda to run the CPU path", why);
}

static int
phase_device(struct mcinit_init *I, struct mcinit_err *err)
{
	char why[1024] = "";
	int n;

	mcinit_ph_begin(I, MCINIT_PH_DEVICE);
	n = mcinit_gpu_count(why, sizeof why);
	if (n > 0 && I->env.local_rank >= n &&
	    !mcinit_cfg_bool(&I->job->c, MCINIT_F_external_gpu_device_mapping))
		return mcinit_ph_fail(I, MCINIT_PH_DEVICE, err, MCINIT_E_UNAVAILABLE,
		                      "local rank %ld but this node has %d CUDA device(s)",
		                      I->env.local_rank, n);
	if (n > 0)
		return mcinit_gpu_phase_device(I, n, err);
	if (!I->o->allow_no_cuda)
		return no_device(I, why, err);
	mcinit_ph_end(I, MCINIT_PH_DEVICE, MCINIT_PS_SKIPPED, "no CUDA device (%s): CPU path", why);
	return 0;
}

/* ---- phase groups: the CPU path's proof of agreement ---- */

/* Hashes each member as a long, as before members were 32-bit, so that
 * ranks running either build agree on the digests. */
static uint64_t
group_digest(const int32_t *m, long n, int kind)
{
	uint64_t h = fnv(&kind, sizeof kind, FNV0);
	long i, v;

	for (i = 0; i < n; i++) {
		v = m[i];
		h = fnv(&v, sizeof v, h);
	}
	return h;
}

/* This rank's group of every kind, as "kind:digest,..." */
static char *
own_groups(struct mcinit_init *I, struct mcinit_err *err)
{
	struct mcx_buf b = {0};
	int k;

	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		struct mcinit_groups g = {0};
		long color, key;
		char hx[17] = "-";
		int rc = mcinit_topo_group_of(&I->t, k, I->env.rank, &color, &key);

		if (rc < 0 || mcinit_topo_groups(&I->t, k, &g, err) < 0) {
			mcx_buf_free(&b);
			return NULL;
		}
		if (rc == 0)
			hex64(group_digest(g.members + color * g.size, g.size, k), hx);
		mcx_buf_printf(&b, "%s%s", k ? "," : "", hx);
		mcinit_groups_destroy(&g);
	}
	return b.data ? b.data : mcx_xstrdup("");
}

static int
verify_groups(struct mcinit_init *I, char **vals, size_t *lens, struct mcx_buf *why)
{
	long W = I->env.world, r, nbad = 0;
	char(*want)[MCINIT_GROUP_COUNT][17] = mcx_xcalloc((size_t)W, sizeof *want);
	struct mcinit_err e;
	int k, code = 0;

	(void)lens;
	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		struct mcinit_groups g = {0};
		long gi, i;

		for (r = 0; r < W; r++)
			snprintf(want[r][k], 17, "-");
		if (mcinit_topo_groups(&I->t, k, &g, &e) < 0)
			continue;
		for (gi = 0; gi < g.ngroups; gi++) {
			char hx[17];

			hex64(group_digest(g.members + gi * g.size, g.size, k), hx);
			for (i = 0; i < g.size; i++)
				memcpy(want[g.members[gi * g.size + i]][k], hx, 17);
		}
		mcinit_groups_destroy(&g);
	}
	for (r = 0; r < W; r++) {
		const char *p = vals[r];

		for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
			size_t n = strcspn(p, ",");

			if (n != strlen(want[r][k]) || strncmp(p, want[r][k], n) != 0) {
				if (nbad++ < 8)
					mcx_buf_printf(why, "rank %ld disagrees on its %s group; ",
					               r, mcinit_group_kind_name(k));
				code = 1;
				break;
			}
			p += n + (p[n] == ',');
		}
	}
	if (nbad > 8)
		mcx_buf_printf(why, "%ld more; ", nbad - 8);
	if (why->len >= 2)
		why->len -= 2, why->data[why->len] = '\0';
	free(want);
	return code;
}

static int
phase_groups(struct mcinit_init *I, struct mcinit_err *err)
{
	struct mcinit_err e = {0};
	char *mine;
	long ngroups = 0;
	int k;

	if (I->gpu)
		return mcinit_gpu_phase_comms(I, err);
	mcinit_ph_begin(I, MCINIT_PH_WORLD);
	mcinit_ph_end(I, MCINIT_PH_WORLD, MCINIT_PS_SKIPPED,
	              "CPU path: no NCCL world communicator");
	mcinit_ph_begin(I, MCINIT_PH_GROUPS);
	mine = own_groups(I, &e);
	if (!mine)
		return mcinit_ph_fail(I, MCINIT_PH_GROUPS, err, e.code ? e.code : MCINIT_E_INTERNAL,
		                      "%s", e.msg);
	if (round_run(I, MCINIT_PH_GROUPS, "groups", mine, verify_groups, I->timeout, err) != 0) {
		free(mine);
		return -1;
	}
	free(mine);
	for (k = 0; k < MCINIT_GROUP_COUNT; k++) {
		long n, s;

		if (mcinit_topo_group_shape(&I->t, k, &n, &s) == 0)
			ngroups += n;
	}
	mcinit_ph_end(I, MCINIT_PH_GROUPS, MCINIT_PS_OK,
	              "%d kinds, %ld groups: every rank's own groups "
	              "agree by digest (CPU path: no NCCL communicators)",
	              MCINIT_GROUP_COUNT, ngroups);
	mcinit_ph_begin(I, MCINIT_PH_VERIFY);
	mcinit_ph_end(I, MCINIT_PH_VERIFY, MCINIT_PS_SKIPPED,
	              "CPU path: no communicator to verify");
	return 0;
}

/* ---- phase seeds ---- */

static int
phase_seeds(struct mcinit_init *I, struct mcinit_err *err)
{
	long long seed = mcinit_cfg_int(&I->job->c, MCINIT_F_seed);
	int dpri = mcinit_cfg_bool(&I->job->c, MCINIT_F_data_parallel_random_init);
	struct mcinit_seeds *s = &I->seeds;
	char dev[256] = " (CPU path: no device generator)";

	mcinit_ph_begin(I, MCINIT_PH_SEEDS);
	mcinit_topo_seeds(&I->t, I->env.rank, seed, dpri, s);
	if (s->base <= 0)
		return mcinit_ph_fail(I, MCINIT_PH_SEEDS, err, 1,
		                      "seed %lld gives rank %ld the seed %lld: "
		                      "seeds must be positive",
		                      seed, I->env.rank, s->base);
	if (s->model_parallel == s->expert_parallel)
		return mcinit_ph_fail(
		    I, MCINIT_PH_SEEDS, err, 1,
		    "rank %ld: the model-parallel and expert-parallel tracker seeds are "
		    "both %lld (Megatron rejects duplicate tracker seeds)",
		    I->env.rank, s->base);
	if (I->gpu && mcinit_gpu_seed_device(I, dev, sizeof dev, err) != 0)
		return -1;
	mcinit_ph_end(I, MCINIT_PH_SEEDS, MCINIT_PS_OK,
	              "seed %lld, model-parallel %lld, expert-parallel "
	              "%lld%s",
	              s->base, s->model_parallel, s->expert_parallel, dev);
	return 0;
}

/* ---- phases kernels, tp-comm ---- */

static int
phase_kernels(struct mcinit_init *I, struct mcinit_err *err)
{
	mcinit_ph_begin(I, MCINIT_PH_KERNELS);
	if (I->o->no_warmup) {
		mcinit_ph_end(I, MCINIT_PH_KERNELS, MCINIT_PS_SKIPPED, "--no-warmup");
		return 0;
	}
	if (I->gpu)
		return mcinit_gpu_phase_kernels(I, err);
	mcinit_ph_end(I, MCINIT_PH_KERNELS, MCINIT_PS_SKIPPED,
	              "CPU path: no fused kernels in this build");
	return 0;
}

/* Transformer Engine's userbuffers assume every TP group is a contiguous
 * block of ranks on one node: decidable without a GPU. */
static int
phase_tp_comm(struct mcinit_init *I, struct mcinit_err *err)
{
	struct mcinit_groups g = {0};
	struct mcinit_err e = {0};
	long color, key, i, lw = I->env.local_world;
	const int32_t *m;

	mcinit_ph_begin(I, MCINIT_PH_TP_COMM);
	if (!mcinit_cfg_bool(&I->job->c, MCINIT_F_tp_comm_overlap)) {
		mcinit_ph_end(I, MCINIT_PH_TP_COMM, MCINIT_PS_SKIPPED, "tp_comm_overlap is off");
		return 0;
	}
	if (mcinit_topo_group_of(&I->t, MCINIT_GROUP_TP, I->env.rank, &color, &key) != 0 ||
	    mcinit_topo_groups(&I->t, MCINIT_GROUP_TP, &g, &e) < 0)
		return mcinit_ph_fail(I, MCINIT_PH_TP_COMM, err, MCINIT_E_INTERNAL,
		                      "no TP group: %s", e.msg);
	m = g.members + color * g.size;
	for (i = 1; i < g.size; i++)
		if (m[i] != m[0] + i || m[i] / lw != m[0] / lw) {
			long a = m[0], b = m[g.size - 1];

			mcinit_groups_destroy(&g);
			return mcinit_ph_fail(
			    I, MCINIT_PH_TP_COMM, err, 1,
			    "tp_comm_overlap needs each TP group on one node as a contiguous "
			    "block; rank %ld's group [%ld..%ld] is not (%ld ranks per node)",
			    I->env.rank, a, b, lw);
		}
	mcinit_groups_destroy(&g);
	if (I->gpu) {
		char detail[256];
		size_t bytes = mcinit_tp_comm_bytes(
		    mcinit_cfg_int(&I->job->c, MCINIT_F_seq_length),
		    mcinit_cfg_int(&I->job->c, MCINIT_F_micro_batch_size), I->t.s.cp,
		    mcinit_cfg_int(&I->job->c, MCINIT_F_hidden_size), 0);

		if (mcinit_gpu_tp_buffers(I, bytes, detail, sizeof detail, err) != 0)
			return -1;
		mcinit_ph_end(I, MCINIT_PH_TP_COMM, MCINIT_PS_OK,
		              "TP groups are node-local blocks; %s", detail);
		return 0;
	}
	mcinit_ph_end(I, MCINIT_PH_TP_COMM, MCINIT_PS_SKIPPED,
	              "TP groups are node-local blocks; CPU path: "
	              "no userbuffers to register");
	return 0;
}

/* ---- phase ready ---- */

static json_t *
rank_report(const struct mcinit_init *I)
{
	json_t *ph = json_array();
	int p;

	for (p = 0; p < MCINIT_PH_COUNT; p++) {
		const struct mcinit_phase_rec *r = &I->ph[p];

		json_array_append_new(
		    ph, json_pack("{s:s, s:s, s:f, s:f, s:f, s:s}", "name", mcinit_phase_names[p],
		                  "status", mcinit_phase_status_name(r->status), "start", r->start,
		                  "end", r->end, "seconds", r->seconds, "detail", r->detail));
	}
	return json_pack("{s:I, s:s, s:I, s:I, s:I, s:o}", "rank", (json_int_t)I->env.rank, "host",
	                 I->host, "pid", (json_int_t)getpid(), "local_rank",
	                 (json_int_t)I->env.local_rank, "node_rank", (json_int_t)I->env.node_rank,
	                 "phases", ph);
}

static int
verify_ready(struct mcinit_init *I, char **vals, size_t *lens, struct mcx_buf *why)
{
	long r;

	(void)lens;
	(void)why;
	json_decref(I->world);
	I->world = json_array();
	for (r = 0; r < I->env.world; r++) {
		json_t *j = json_loads(vals[r], 0, NULL);

		json_array_append_new(I->world, j ? j : json_null());
	}
	return 0;
}

/* Whoever serves the store keeps it up until every rank has heard the
 * ready verdict (else a slow rank, or another node's, would find it gone):
 * each rank counts itself out on mcinit/depart.  Rank 0, when it serves the
 * store itself, waits for the last one's mcinit/departed; a launcher that
 * serves it reads the count (supervisor.c). */
static int
depart(struct mcinit_init *I, struct mcinit_err *err)
{
	bool rank0_serves = !I->env.agent_store && !I->env.mcinit_launched;
	const char *k = "mcinit/departed";
	int64_t n = 0;

	mcinit_store_client_set_deadline(I->cl, mcinit_now() + I->timeout);
	if (I->srv)
		return I->env.world == 1 ? 0 : mcinit_store_wait(I->cl, &k, 1, err);
	if (mcinit_store_add(I->cl, "mcinit/depart", 1, &n, err) != 0)
		return -1;
	if (rank0_serves && n == I->env.world - 1)
		return mcinit_store_set(I->cl, k, "1", 1, err);
	return 0;
}

static int
phase_ready(struct mcinit_init *I, struct mcinit_err *err)
{
	json_t *me;
	char *s;
	int rc;

	mcinit_ph_begin(I, MCINIT_PH_READY);
	/* the ready phase's own line cannot be in the report it carries: its
	 * status is filled in below, for everyone, once the barrier passes */
	I->ph[MCINIT_PH_READY].status = MCINIT_PS_OK;
	me = rank_report(I);
	s = json_dumps(me, JSON_COMPACT);
	json_decref(me);
	rc = round_run(I, MCINIT_PH_READY, "ready", s, verify_ready, I->timeout, err);
	free(s);
	if (rc != 0)
		return -1;
	mcinit_ph_end(I, MCINIT_PH_READY, MCINIT_PS_OK, "all %ld rank(s) ready", I->env.world);
	{
		struct mcinit_err e = {0};

		/* the barrier passed, but a rank that cannot count itself out
		 * did not finish: its ready phase failed after all */
		if (depart(I, &e) != 0)
			return store_fail(I, MCINIT_PH_READY, err, &e);
	}
	return 0;
}

/* ---- the sequence ---- */

static int
finish_lazy(struct mcinit_init *I, struct mcinit_err *err)
{
	if (phase_rendezvous(I, err) != 0 || phase_device(I, err) != 0 ||
	    phase_groups(I, err) != 0 || phase_seeds(I, err) != 0)
		return -1;
	mcinit_ph_begin(I, MCINIT_PH_KERNELS);
	mcinit_ph_end(I, MCINIT_PH_KERNELS, MCINIT_PS_SKIPPED,
	              "lazy MPU init: Megatron compiles no "
	              "dependencies on this path");
	mcinit_ph_begin(I, MCINIT_PH_TP_COMM);
	mcinit_ph_end(I, MCINIT_PH_TP_COMM, MCINIT_PS_SKIPPED,
	              "lazy MPU init: not done on this path");
	return phase_ready(I, err);
}

static void
defer(struct mcinit_init *I, enum mcinit_phase p, const char *why)
{
	I->deferring = true; /* a fault fires when the phase runs, in the finish */
	mcinit_ph_begin(I, p);
	I->deferring = false;
	mcinit_ph_end(I, p, MCINIT_PS_DEFERRED, "%s", why);
}

int
mcinit_init_run(struct mcinit_init *I, mcinit_finish_fn *finish, struct mcinit_err *err)
{
	bool lazy;
	int p;

	*finish = NULL;
	if (!I->config_ok)
		return mcinit_err_set(err, MCINIT_E_INTERNAL,
		                      "mcinit_init_run before a valid config");
	lazy = mcinit_cfg_bool(&I->job->c, MCINIT_F_lazy_mpu_init); /* --lazy-mpu-init set it */
	if (phase_env(I, err) != 0)
		return -1;
	if (I->o->skip_mpu) {
		I->deferring = true; /* nothing runs: no fault fires */
		for (p = MCINIT_PH_RENDEZVOUS; p < MCINIT_PH_COUNT; p++) {
			mcinit_ph_begin(I, p);
			mcinit_ph_end(I, p, MCINIT_PS_SKIPPED, "skip_mpu_initialization");
		}
		I->deferring = false;
		return 0;
	}
	if (!lazy && !I->o->allow_no_cuda) {
		/* no GPU and no CPU path asked for: say so before any network */
		char why[1024] = "";

		if (mcinit_gpu_count(why, sizeof why) == 0) {
			mcinit_ph_begin(I, MCINIT_PH_DEVICE);
			return no_device(I, why, err);
		}
	}
	if (lazy) {
		/* Megatron records TP size and rank (= global rank) and sets
		 * use_cpu_initialization (the config has it already: repairs.c
		 * R4, the rule's one place); all the rest waits for the finish */
		for (p = MCINIT_PH_RENDEZVOUS; p <= MCINIT_PH_SEEDS; p++)
			defer(I, p, "lazy MPU init: deferred to the finish");
		defer(I, MCINIT_PH_KERNELS, "lazy MPU init: deferred to the finish");
		defer(I, MCINIT_PH_TP_COMM, "lazy MPU init: not done on this path");
		defer(I, MCINIT_PH_READY, "lazy MPU init: deferred to the finish");
		for (p = MCINIT_PH_RENDEZVOUS; p < MCINIT_PH_COUNT; p++)
			I->ph[p].start = 0;
		*finish = finish_lazy;
		return 0;
	}
	if (phase_rendezvous(I, err) != 0 || phase_device(I, err) != 0 ||
	    phase_groups(I, err) != 0 || phase_seeds(I, err) != 0 || phase_kernels(I, err) != 0 ||
	    phase_tp_comm(I, err) != 0)
		return -1;
	return phase_ready(I, err);
}

/* ---- hand-over ---- */

int
mcinit_init_handover(struct mcinit_init *I, mcinit_error_t *err)
{
	const struct mcinit_env *e = &I->env;
	char buf[32];

	(void)err;
	if (I->o->on_phase)
		I->o->on_phase(I->o->on_phase_arg, "command");
	mcinit_gpu_teardown(I, false); /* the command builds its own communicators */
	if (I->cl) {
		/* what the launcher names if the command dies */
		char key[64];
		struct mcinit_err ig;

		snprintf(key, sizeof key, "mcinit/phase/%ld", e->rank);
		mcinit_store_set(I->cl, key, "command", 7, &ig);
	}
	if (I->cl && e->token[0] && (e->agent_store || e->mcinit_launched)) {
		/* the training program knows no token: the store opens up now */
		struct mcinit_err ig;

		mcinit_store_set(I->cl, "mcinit/open", "1", 1, &ig);
		mcinit_store_ping(I->cl, 1, &ig);
	}
	mcinit_store_client_free(I->cl);
	I->cl = NULL;
	if (I->srv) {
		mcinit_store_server_free(I->srv); /* the program's rank 0 binds the port again */
		I->srv = NULL;
	}
#define SETL(name, v)                                                                              \
	do {                                                                                       \
		snprintf(buf, sizeof buf, "%ld", (long)(v));                                       \
		put_env(I, name, buf, 1);                                                          \
	} while (0)
	SETL("RANK", e->rank);
	SETL("WORLD_SIZE", e->world);
	SETL("LOCAL_RANK", e->local_rank);
	SETL("LOCAL_WORLD_SIZE", e->local_world);
	SETL("GROUP_RANK", e->node_rank);
	SETL("MASTER_PORT", e->master_port);
	put_env(I, "MASTER_ADDR", e->master_addr, 1);
	if (e->agent_store || e->mcinit_launched) {
		put_env(I, "TORCHELASTIC_USE_AGENT_STORE", "True", 1);
		SETL("TORCHELASTIC_RESTART_COUNT", e->restart_count);
	} else {
		put_env(I, "TORCHELASTIC_USE_AGENT_STORE", NULL, 1);
	}
#undef SETL
	return 0;
}

/* ---- the job's Megatron-LM flags (--append-megatron-args) ---- */

static void
argv_push(char ***v, size_t *n, char *w)
{
	*v = mcx_xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = w;
	(*v)[*n] = NULL;
}

static void
value_words(char ***v, size_t *n, const struct mcinit_value *x)
{
	size_t i;

	if (x->kind == MCINIT_V_INT)
		argv_push(v, n, mcx_xasprintf("%lld", x->i));
	else if (x->kind == MCINIT_V_STR)
		argv_push(v, n, mcx_xstrdup(x->s));
	else if (x->kind == MCINIT_V_BOOL)
		argv_push(v, n, mcx_xstrdup(x->i ? "True" : "False"));
	else if (x->kind == MCINIT_V_LIST)
		for (i = 0; i < x->n; i++)
			value_words(v, n, &x->items[i]);
}

/* One field as Megatron-LM words, in the form its argparse kind reads. */
static void
field_words(char ***v, size_t *n, const struct mcinit_config *c, enum mcinit_field f)
{
	const struct mcinit_value *x = mcinit_cfg_val(c, f);
	const char *spell = mcinit_field_s(f, flags);
	char flag[128];
	const struct mcinit_mflag *mf;
	int neg = 0;

	if (!spell || x->kind == MCINIT_V_NULL)
		return;
	snprintf(flag, sizeof flag, "%.*s", (int)strcspn(spell, "|"), spell);
	mf = mcinit_mflag_find(
	    flag, MCINIT_MPARSER(c->mversion ? c->mversion : MCINIT_MV_MAIN, c->mentry), &neg);
	if (!mf)
		return; /* not a flag of this Megatron version */
	switch (mf->kind) {
	case MCINIT_MK_STORE_TRUE:
	case MCINIT_MK_STORE_FALSE:
		/* the flag sets the value its kind stores: true, or false for
		 * a --no-/--disable- spelling */
		if (((x->i != 0) == (mf->kind == MCINIT_MK_STORE_TRUE)) != neg)
			argv_push(v, n, mcx_xstrdup(flag));
		break;
	case MCINIT_MK_BOOLEAN_OPTIONAL:
		argv_push(v, n,
		          x->i ? mcx_xstrdup(mcinit_mstr(mf->flag))
		               : mcx_xasprintf("--no-%s", mcinit_mstr(mf->flag) + 2));
		break;
	case MCINIT_MK_LEGACY_TYPE_BOOL:
		/* type=bool: bool(word) is True for any word but ""; leave false out */
		if (x->i) {
			argv_push(v, n, mcx_xstrdup(flag));
			argv_push(v, n, mcx_xstrdup("True"));
		}
		break;
	default:
		argv_push(v, n, mcx_xstrdup(flag));
		value_words(v, n, x);
	}
}

char **
mcinit_init_megatron_args(const struct mcinit_init *I, size_t *n)
{
	char **v = NULL;
	int f;

	*n = 0;
	argv_push(&v, n, NULL);
	*n = 0;
	if (!I->job)
		return v;
	for (f = 0; f < MCINIT_F_COUNT; f++)
		if (I->job->c.origin[f] != MCINIT_ORIG_DEFAULT)
			field_words(&v, n, &I->job->c, f);
	return v;
}

/* ---- reports ---- */

static json_t *
phase_summary(const struct mcinit_init *I)
{
	json_t *out = json_array();
	int p;

	for (p = 0; p < MCINIT_PH_COUNT; p++) {
		size_t i;
		json_t *r;
		long slow = I->env.rank;
		double max = I->ph[p].seconds;

		json_array_foreach(I->world, i, r)
		{
			json_t *ph = json_array_get(json_object_get(r, "phases"), (size_t)p);
			double s = json_real_value(json_object_get(ph, "seconds"));

			if (i == 0 || s > max) {
				max = s;
				slow = (long)json_integer_value(json_object_get(r, "rank"));
			}
		}
		json_array_append_new(
		    out, json_pack("{s:s, s:s, s:I, s:f}", "name", mcinit_phase_names[p], "status",
		                   mcinit_phase_status_name(I->ph[p].status), "slowest_rank",
		                   (json_int_t)slow, "seconds", max));
	}
	return out;
}

/* Why each library was taken from where it was, and another libnccl also
 * visible (the trainer may load that one), beside the versions. */
static void
library_reasons(json_t *versions, const struct mcinit_gpu_versions *v)
{
#define LIB(x) ((x) && *(x) ? json_string(x) : json_null())
	json_object_set_new(versions, "nccl_library_why", LIB(v->nccl_how));
	json_object_set_new(versions, "cuda_library_why", LIB(v->cuda_how));
	json_object_set_new(versions, "nccl_other_library", LIB(v->nccl_other));
	json_object_set_new(versions, "nccl_other_library_why", LIB(v->nccl_other_how));
#undef LIB
}

json_t *
mcinit_init_report(const struct mcinit_init *I)
{
	struct mcinit_gpu_versions v;
	json_t *ranks = I->world ? json_incref(I->world) : json_pack("[o]", rank_report(I));
	json_t *err = json_null();
	bool ok = I->failed == MCINIT_PH_COUNT;

	mcinit_gpu_versions(&v);
	if (!ok)
		err = json_pack("{s:I, s:s, s:s}", "rank", (json_int_t)I->env.rank, "phase",
		                mcinit_phase_names[I->failed], "message", I->ph[I->failed].detail);
#define VER(x) ((x) ? json_integer(x) : json_null())
#define LIB(x) ((x) && *(x) ? json_string(x) : json_null())
	json_t *r = json_pack(
	    "{s:b, s:I, s:s, s:s, s:I, s:s, s:o, s:o, s:o, s:{s:o, s:o, s:o, s:o, s:o, "
	    "s:o}, s:o}",
	    "ok", ok, "world_size", (json_int_t)I->env.world, "contract",
	    mcinit_contract_name(I->env.contract), "master_addr", I->env.master_addr, "master_port",
	    (json_int_t)I->env.master_port, "config_digest", I->cfg_digest, "error", err, "phases",
	    phase_summary(I), "ranks", ranks, "versions", "nccl", VER(v.nccl_runtime),
	    "nccl_header", VER(v.nccl_header), "cuda_runtime", VER(v.cuda_runtime), "cuda_driver",
	    VER(v.cuda_driver), "nccl_library", LIB(v.nccl_library), "cuda_library",
	    LIB(v.cuda_library), "communicators", mcinit_gpu_comms_json(I));
#undef VER
#undef LIB
	if (r)
		library_reasons(json_object_get(r, "versions"), &v);
	return r;
}

void
mcinit_init_summary(const struct mcinit_init *I, FILE *out)
{
	json_t *s = phase_summary(I);
	size_t i;
	json_t *p;

	fprintf(out, "mcinit run: %s, world %ld (%s)\n",
	        I->failed == MCINIT_PH_COUNT ? "ready" : "failed", I->env.world,
	        mcinit_contract_name(I->env.contract));
	if (I->world)
		json_array_foreach(s, i, p)
		{
			const char *st = json_string_value(json_object_get(p, "status"));

			if (strcmp(st, "ok") != 0)
				continue;
			fprintf(out, "  %-10s slowest rank %lld (%.3f s)\n",
			        json_string_value(json_object_get(p, "name")),
			        (long long)json_integer_value(json_object_get(p, "slowest_rank")),
			        json_real_value(json_object_get(p, "seconds")));
		}
	json_decref(s);
}
