/*
 * launch.c — the environment contracts and Slurm's hostlists (see launch.h).
 * The launcher itself is in lib/run/supervisor.c (mcx_launch).
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "launch/contract.h"

extern char **environ;

const char *
mcinit_contract_name(enum mcinit_contract c)
{
	switch (c) {
	case MCINIT_CONTRACT_TORCHRUN:
		return "torchrun";
	case MCINIT_CONTRACT_SLURM:
		return "slurm";
	case MCINIT_CONTRACT_MPI:
		return "openmpi";
	default:
		return "none";
	}
}

/* NAME as an integer in [lo, hi]: 1 found, 0 absent, -1 malformed (err). */
static int
env_long(const char *const *envp, const char *name, long lo, long hi, long *out,
         struct mcinit_err *err)
{
	const char *v = mcinit_env_get(envp, name);
	char *end;
	long x;

	if (!v)
		return 0;
	errno = 0;
	x = strtol(v, &end, 10);
	if (*v == '\0' || *end != '\0' || errno != 0 || x < lo || x > hi)
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "%s='%s' is not an integer in [%ld, %ld]", name, v, lo, hi);
	*out = x;
	return 1;
}

static void
copy(char *dst, size_t cap, const char *src)
{
	snprintf(dst, cap, "%s", src ? src : "");
}

#define BIG 1000000000L

static int
detect_torchrun(struct mcinit_env *e, const char *const *envp, struct mcinit_err *err)
{
	int hr, hw, hl, hlw, hg, hgw;
	const char *v;

	if ((hr = env_long(envp, "RANK", 0, BIG, &e->rank, err)) < 0 ||
	    (hw = env_long(envp, "WORLD_SIZE", 1, BIG, &e->world, err)) < 0 ||
	    (hl = env_long(envp, "LOCAL_RANK", 0, BIG, &e->local_rank, err)) < 0 ||
	    (hlw = env_long(envp, "LOCAL_WORLD_SIZE", 1, BIG, &e->local_world, err)) < 0 ||
	    (hg = env_long(envp, "GROUP_RANK", 0, BIG, &e->node_rank, err)) < 0 ||
	    (hgw = env_long(envp, "GROUP_WORLD_SIZE", 1, BIG, &e->nnodes, err)) < 0 ||
	    env_long(envp, "TORCHELASTIC_RESTART_COUNT", 0, BIG, &e->restart_count, err) < 0)
		return -1;
	if (hr != hw)
		return mcinit_err_set(err, MCINIT_E_USAGE,
		                      "%s is set but %s is not: the torchrun "
		                      "contract needs both",
		                      hr ? "RANK" : "WORLD_SIZE", hr ? "WORLD_SIZE" : "RANK");
	if (!hlw)
		e->local_world = hl ? e->world : e->world; /* one node unless told */
	if (!hl)
		e->local_rank = e->rank % e->local_world;
	if (!hg)
		e->node_rank = e->rank / e->local_world;
	if (!hgw)
		e->nnodes = (e->world + e->local_world - 1) / e->local_world;
	v = mcinit_env_get(envp, "TORCHELASTIC_USE_AGENT_STORE");
	e->agent_store = v && strcmp(v, "True") == 0; /* torch compares with "True" */
	copy(e->run_id, sizeof e->run_id, mcinit_env_get(envp, "TORCHELASTIC_RUN_ID"));
	copy(e->error_file, sizeof e->error_file, mcinit_env_get(envp, "TORCHELASTIC_ERROR_FILE"));
	v = mcinit_env_get(envp, "MCINIT_LAUNCHED");
	e->mcinit_launched = v && strcmp(v, "1") == 0;
	if (e->agent_store)
		snprintf(e->key_prefix, sizeof e->key_prefix, "//worker/attempt_%ld/",
		         e->restart_count);
	return 0;
}

static const char *
slurm_nodelist(const char *const *envp)
{
	const char *v = mcinit_env_get(envp, "SLURM_STEP_NODELIST");

	if (!v || !*v)
		v = mcinit_env_get(envp, "SLURM_JOB_NODELIST");
	if (!v || !*v)
		v = mcinit_env_get(envp, "SLURM_NODELIST");
	return v && *v ? v : NULL;
}

static int
slurm_local_world(struct mcinit_env *e, const char *const *envp, struct mcinit_err *err)
{
	const char *tpn = mcinit_env_get(envp, "SLURM_TASKS_PER_NODE");
	long *counts = NULL, sum = 0;
	size_t n = 0, i;
	int h = env_long(envp, "SLURM_NTASKS_PER_NODE", 1, BIG, &e->local_world, err);

	if (h < 0)
		return -1;
	if (h || !tpn)
		return 0;
	if (mcinit_tasks_per_node(tpn, 1u << 20, &counts, &n, err) < 0)
		return -1;
	for (i = 0; i < n; i++)
		sum += counts[i];
	if ((size_t)e->node_rank >= n) {
		free(counts);
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "SLURM_NODEID=%ld but SLURM_TASKS_PER_NODE='%s' lists %zu "
		                      "node(s)",
		                      e->node_rank, tpn, n);
	}
	e->local_world = counts[e->node_rank];
	free(counts);
	if (sum != e->world)
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "SLURM_TASKS_PER_NODE='%s' adds up to %ld tasks but "
		                      "SLURM_NTASKS=%ld",
		                      tpn, sum, e->world);
	return 0;
}

static int
detect_slurm(struct mcinit_env *e, const char *const *envp, struct mcinit_err *err)
{
	const char *list = slurm_nodelist(envp);
	char **hosts = NULL;
	size_t nh = 0;
	long job = 0;
	int hj;

	if (env_long(envp, "SLURM_PROCID", 0, BIG, &e->rank, err) < 0 ||
	    env_long(envp, "SLURM_NTASKS", 1, BIG, &e->world, err) <= 0 ||
	    env_long(envp, "SLURM_LOCALID", 0, BIG, &e->local_rank, err) < 0 ||
	    env_long(envp, "SLURM_NODEID", 0, BIG, &e->node_rank, err) < 0)
		return err && err->msg[0] ? -1
		                          : mcinit_err_set(err, MCINIT_E_USAGE,
		                                           "SLURM_PROCID is set but SLURM_NTASKS "
		                                           "is not");
	e->local_world = e->world;
	if (list) {
		if (mcinit_hostlist_expand(list, 1u << 20, &hosts, &nh, err) < 0)
			return -1;
		copy(e->master_addr, sizeof e->master_addr, hosts[0]);
		e->nnodes = (long)nh;
		mcinit_hostlist_free(hosts, nh);
	}
	if (slurm_local_world(e, envp, err) < 0)
		return -1;
	if (!list)
		e->nnodes = (e->world + e->local_world - 1) / e->local_world;
	if (e->node_rank >= e->nnodes)
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "SLURM_NODEID=%ld but the node list has %ld node(s)",
		                      e->node_rank, e->nnodes);
	hj = env_long(envp, "SLURM_JOB_ID", 0, 0x7fffffffffffL, &job, err);
	if (hj < 0)
		return -1;
	if (hj) {
		/* Megatron-Bridge's convention: 15000 + the last four digits */
		e->master_port = 15000 + (int)(job % 10000);
		e->port_source = "SLURM_JOB_ID";
	}
	return 0;
}

static int
detect_mpi(struct mcinit_env *e, const char *const *envp, struct mcinit_err *err)
{
	int hl, hlw;

	if (env_long(envp, "OMPI_COMM_WORLD_RANK", 0, BIG, &e->rank, err) < 0)
		return -1;
	if (env_long(envp, "OMPI_COMM_WORLD_SIZE", 1, BIG, &e->world, err) <= 0)
		return err && err->msg[0] ? -1
		                          : mcinit_err_set(err, MCINIT_E_USAGE,
		                                           "OMPI_COMM_WORLD_RANK is set but "
		                                           "OMPI_COMM_WORLD_SIZE is not");
	if ((hl = env_long(envp, "OMPI_COMM_WORLD_LOCAL_RANK", 0, BIG, &e->local_rank, err)) < 0 ||
	    (hlw = env_long(envp, "OMPI_COMM_WORLD_LOCAL_SIZE", 1, BIG, &e->local_world, err)) < 0)
		return -1;
	if (!hlw)
		e->local_world = e->world;
	if (!hl)
		e->local_rank = e->rank % e->local_world;
	e->node_rank = e->rank / e->local_world;
	e->nnodes = (e->world + e->local_world - 1) / e->local_world;
	return 0;
}

static int
env_master(struct mcinit_env *e, const char *const *envp, const struct mcinit_env_opts *o,
           struct mcinit_err *err)
{
	const char *a = mcinit_env_get(envp, "MASTER_ADDR");
	long port = 0;
	int hp;

	if (o && o->master_addr && *o->master_addr)
		copy(e->master_addr, sizeof e->master_addr, o->master_addr);
	else if (a && *a)
		copy(e->master_addr, sizeof e->master_addr, a);
	if ((hp = env_long(envp, "MASTER_PORT", 1, 65535, &port, err)) < 0)
		return -1;
	if (o && o->master_port > 0) {
		e->master_port = o->master_port;
		e->port_source = "--master-port";
	} else if (hp) {
		e->master_port = (int)port;
		e->port_source = "MASTER_PORT";
	} else if (!e->master_port) {
		e->master_port = 29500;
		e->port_source = "default";
	}
	if (e->master_addr[0] == '\0') {
		if (e->world > 1 && e->contract == MCINIT_CONTRACT_MPI)
			return mcinit_err_set(
			    err, MCINIT_E_USAGE,
			    "Open MPI gives no master address: set MASTER_ADDR or "
			    "pass --master-addr (the host of rank 0)");
		if (e->world > 1 && e->contract != MCINIT_CONTRACT_NONE)
			return mcinit_err_set(
			    err, MCINIT_E_USAGE,
			    "%s contract without a master address: set MASTER_ADDR "
			    "or pass --master-addr",
			    mcinit_contract_name(e->contract));
		copy(e->master_addr, sizeof e->master_addr, "127.0.0.1");
	}
	return 0;
}

int
mcinit_env_detect(struct mcinit_env *e, const char *const *envp, const struct mcinit_env_opts *o,
                  struct mcinit_err *err)
{
	int rc = 0;
	const char *tok;

	memset(e, 0, sizeof *e);
	copy(e->key_prefix, sizeof e->key_prefix, "/");
	if (err)
		err->msg[0] = '\0';
	if (mcinit_env_get(envp, "RANK") || mcinit_env_get(envp, "WORLD_SIZE")) {
		e->contract = MCINIT_CONTRACT_TORCHRUN;
		rc = detect_torchrun(e, envp, err);
	} else if (mcinit_env_get(envp, "SLURM_PROCID")) {
		e->contract = MCINIT_CONTRACT_SLURM;
		rc = detect_slurm(e, envp, err);
	} else if (mcinit_env_get(envp, "OMPI_COMM_WORLD_RANK")) {
		e->contract = MCINIT_CONTRACT_MPI;
		rc = detect_mpi(e, envp, err);
	} else {
		e->world = e->local_world = e->nnodes = 1;
	}
	if (rc < 0)
		return -1;
	if (e->rank >= e->world)
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "rank %ld is outside a world of %ld rank(s)", e->rank,
		                      e->world);
	if (e->local_rank >= e->local_world)
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "local rank %ld is not below the local world size %ld",
		                      e->local_rank, e->local_world);
	if (e->local_world > e->world)
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "local world size %ld is larger than the world (%ld)",
		                      e->local_world, e->world);
	tok = mcinit_env_get(envp, "MCINIT_STORE_TOKEN");
	/* a token cut to the buffer would be refused at rendezvous, far from
	 * here: refused now, with its length */
	if (tok && strlen(tok) > MCINIT_STORE_TOKEN_MAX)
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "MCINIT_STORE_TOKEN is %zu bytes long: at most %d are taken",
		                      strlen(tok), MCINIT_STORE_TOKEN_MAX);
	copy(e->token, sizeof e->token, tok);
	return env_master(e, envp, o, err);
}

/* ---- Slurm hostlists ---- */

struct strv {
	char **v;
	size_t n, cap;
};

static void
strv_push(struct strv *s, char *x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = mcx_xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n++] = x;
}

void
mcinit_hostlist_free(char **hosts, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(hosts[i]);
	free(hosts);
}

/* The numbers of a bracket's body ("001-004,7"), as padded strings. */
static int
bracket_items(const char *p, size_t len, size_t max, struct strv *out, struct mcinit_err *err)
{
	size_t i = 0;

	while (i < len) {
		size_t a = i, alen, b, blen = 0, width;
		unsigned long lo, hi, k;

		while (i < len && isdigit((unsigned char)p[i]))
			i++;
		alen = i - a;
		if (alen == 0 || alen > 18)
			goto bad;
		b = i;
		if (i < len && p[i] == '-') {
			b = ++i;
			while (i < len && isdigit((unsigned char)p[i]))
				i++;
			blen = i - b;
			if (blen == 0 || blen > 18)
				goto bad;
		}
		if (i < len && p[i] != ',')
			goto bad;
		if (i < len)
			i++;
		lo = strtoul(p + a, NULL, 10);
		hi = blen ? strtoul(p + b, NULL, 10) : lo;
		if (hi < lo)
			return mcinit_err_set(err, MCINIT_E_PARSE,
			                      "hostlist: range [%.*s] runs backwards",
			                      (int)(alen + blen + 1), p + a);
		if (hi - lo >= max || out->n + (hi - lo) >= max)
			return mcinit_err_set(err, MCINIT_E_PARSE, "hostlist: more than %zu hosts",
			                      max);
		width = alen; /* Slurm pads to the width of the lower bound */
		for (k = lo; k <= hi; k++)
			strv_push(out, mcx_xasprintf("%0*lu", (int)width, k));
		if (i == len && p[len - 1] == ',')
			goto bad;
	}
	return 0;
bad:
	return mcinit_err_set(err, MCINIT_E_PARSE,
	                      "hostlist: '[%.*s]' is not a list of numbers and "
	                      "ranges",
	                      (int)len, p);
}

/* Appends every expansion of the name `p[0..len)` to out. */
static int
expand_name(const char *p, size_t len, size_t max, struct strv *out, struct mcinit_err *err)
{
	struct strv cur = {0}, next = {0}, items = {0};
	size_t i = 0, j, k;
	int rc = 0;

	strv_push(&cur, mcx_xstrdup(""));
	while (i < len) {
		if (p[i] == '[') {
			const char *close = memchr(p + i, ']', len - i);

			if (!close) {
				rc = mcinit_err_set(err, MCINIT_E_PARSE,
				                    "hostlist: '[' without ']' in "
				                    "'%.*s'",
				                    (int)len, p);
				goto out;
			}
			items.n = 0;
			if (bracket_items(p + i + 1, (size_t)(close - p - i - 1), max, &items,
			                  err) < 0) {
				rc = -1;
				goto out;
			}
			if (cur.n * items.n > max) {
				rc = mcinit_err_set(err, MCINIT_E_PARSE,
				                    "hostlist: more than %zu hosts", max);
				goto out;
			}
			for (j = 0; j < cur.n; j++)
				for (k = 0; k < items.n; k++)
					strv_push(&next,
					          mcx_xasprintf("%s%s", cur.v[j], items.v[k]));
			mcinit_hostlist_free(cur.v, cur.n);
			for (k = 0; k < items.n; k++)
				free(items.v[k]);
			cur = next;
			next = (struct strv){0};
			i = (size_t)(close - p) + 1;
		} else {
			size_t a = i;

			while (i < len && p[i] != '[') {
				if (p[i] == ']' || isspace((unsigned char)p[i])) {
					rc = mcinit_err_set(err, MCINIT_E_PARSE,
					                    "hostlist: unexpected '%c' in '%.*s'",
					                    p[i], (int)len, p);
					goto out;
				}
				i++;
			}
			for (j = 0; j < cur.n; j++) {
				char *s = mcx_xasprintf("%s%.*s", cur.v[j], (int)(i - a), p + a);

				free(cur.v[j]);
				cur.v[j] = s;
			}
		}
	}
	if (out->n + cur.n > max) {
		rc = mcinit_err_set(err, MCINIT_E_PARSE, "hostlist: more than %zu hosts", max);
		goto out;
	}
	for (j = 0; j < cur.n; j++)
		strv_push(out, cur.v[j]);
	cur.n = 0;
out:
	mcinit_hostlist_free(cur.v, cur.n);
	mcinit_hostlist_free(items.v, 0);
	mcinit_hostlist_free(next.v, next.n);
	return rc;
}

int
mcinit_hostlist_expand(const char *list, size_t max, char ***hosts, size_t *n,
                       struct mcinit_err *err)
{
	struct strv out = {0};
	const char *p = list;

	while (*p) {
		const char *q = p;
		int depth = 0;

		while (*q && (depth > 0 || *q != ',')) {
			depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
			q++;
		}
		if (q == p) {
			mcinit_hostlist_free(out.v, out.n);
			return mcinit_err_set(err, MCINIT_E_PARSE, "hostlist: empty name in '%s'",
			                      list);
		}
		if (expand_name(p, (size_t)(q - p), max, &out, err) < 0) {
			mcinit_hostlist_free(out.v, out.n);
			return -1;
		}
		p = *q ? q + 1 : q;
		if (*q && !*p) {
			mcinit_hostlist_free(out.v, out.n);
			return mcinit_err_set(err, MCINIT_E_PARSE, "hostlist: trailing ',' in '%s'",
			                      list);
		}
	}
	if (out.n == 0)
		return mcinit_err_set(err, MCINIT_E_PARSE, "hostlist: no host in '%s'", list);
	*hosts = out.v;
	*n = out.n;
	return 0;
}

int
mcinit_tasks_per_node(const char *spec, size_t max, long **counts, size_t *n,
                      struct mcinit_err *err)
{
	long *v = NULL;
	size_t nv = 0, cap = 0;
	const char *p = spec;

	while (*p) {
		char *end;
		long c, rep = 1;

		errno = 0;
		c = strtol(p, &end, 10);
		if (end == p || errno || c < 1 || !isdigit((unsigned char)*p))
			goto bad;
		p = end;
		if (*p == '(') {
			if (p[1] != 'x')
				goto bad;
			rep = strtol(p + 2, &end, 10);
			if (end == p + 2 || *end != ')' || rep < 1 || (size_t)rep > max)
				goto bad;
			p = end + 1;
		}
		if (nv + (size_t)rep > max)
			goto bad;
		while (rep-- > 0) {
			if (nv == cap) {
				cap = cap ? 2 * cap : 8;
				v = mcx_xrealloc(v, cap * sizeof *v);
			}
			v[nv++] = c;
		}
		if (*p == ',' && p[1])
			p++;
		else if (*p)
			goto bad;
	}
	if (nv == 0)
		goto bad;
	*counts = v;
	*n = nv;
	return 0;
bad:
	free(v);
	return mcinit_err_set(err, MCINIT_E_PARSE,
	                      "SLURM_TASKS_PER_NODE='%s' is not of the form 4(x2),2", spec);
}

/* ---- torchelastic's error file ---- */

int
mcinit_write_error_file(const char *path, const char *msg, const char *where)
{
	json_t *root, *inner;
	char ts[32], *stack;
	int rc;

	if (!path || !*path)
		return -1;
	snprintf(ts, sizeof ts, "%lld", (long long)time(NULL));
	/* torchrun's summary shows py_callstack when there is one, the message
	 * only when there is none: so the message leads the "call stack" */
	stack = mcx_xasprintf("%s%s%s", msg, where ? "\n" : "", where ? where : "");
	inner = json_pack("{s:s, s:{s:s, s:s}}", "message", msg, "extraInfo", "py_callstack", stack,
	                  "timestamp", ts);
	free(stack);
	root = json_pack("{s:o}", "message", inner);
	if (!root)
		return -1;
	rc = json_dump_file(root, path, JSON_INDENT(2)) == 0 ? 0 : -1;
	json_decref(root);
	return rc;
}

char *
mcinit_read_error_file(const char *path)
{
	json_t *root = json_load_file(path, 0, NULL), *m;
	char *out = NULL;

	if (!root)
		return NULL;
	m = json_object_get(root, "message");
	if (json_is_object(m))
		m = json_object_get(m, "message");
	if (json_is_string(m))
		out = mcx_xstrdup(json_string_value(m));
	json_decref(root);
	return out;
}
