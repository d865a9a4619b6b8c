/* gpu-plan.c — the GPU phases' decisions that need no GPU (see gpu-plan.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "gpu/gpu-plan.h"
#include "input/jpos.h"
#include "launch/contract.h"
#include "input/yamltree.h"

/* ---- per-group options ---- */

void
mcinit_nccl_opts_default(struct mcinit_nccl_opts *o)
{
	memset(o, 0, sizeof *o);
	o->cga_cluster_size = o->min_ctas = o->max_ctas = MCINIT_NCCL_UNSET;
}

void
mcinit_nccl_cfgs_destroy(struct mcinit_nccl_cfgs *c)
{
	size_t i;

	for (i = 0; i < c->n; i++)
		free(c->v[i].group);
	free(c->v);
	c->v = NULL;
	c->n = 0;
}

const struct mcinit_nccl_opts *
mcinit_nccl_cfgs_find(const struct mcinit_nccl_cfgs *c, const char *name)
{
	size_t i;

	for (i = 0; c && i < c->n; i++)
		if (strcmp(c->v[i].group, name) == 0)
			return &c->v[i].o;
	return NULL;
}

/* Where /group[/key] was written, for messages. */
struct where {
	const char *source;
	const struct mcinit_jpos *jp;
};

static struct mcinit_pos
pos_of(const struct where *w, const char *group, const char *key)
{
	struct mcx_buf p = {0};
	struct mcinit_pos k = {0, 0, 0}, v;

	mcinit_jpos_append_token(&p, group);
	if (key)
		mcinit_jpos_append_token(&p, key);
	if (mcinit_jpos_lookup(w->jp, mcx_buf_cstr(&p), &k, &v) != 0)
		k.line = k.col = 0;
	mcx_buf_free(&p);
	return k;
}

/* "SOURCE:LINE:COL: text" about /group[/key]: an error into err when err
 * is given (returns -1), else a warning line appended to warn (if any). */
static int __attribute__((format(printf, 6, 7)))
located(struct mcx_buf *warn, struct mcinit_err *err, const struct where *w, const char *group,
        const char *key, const char *fmt, ...)
{
	struct mcinit_pos p = pos_of(w, group, key);
	char s[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	if (err)
		return mcinit_err_set(err, MCINIT_E_PARSE, "%s:%d:%d: %s", w->source, p.line, p.col,
		                      s);
	if (warn)
		mcx_buf_printf(warn, "%s:%d:%d: %s\n", w->source, p.line, p.col, s);
	return 0;
}
#define err_at(err, ...)   located(NULL, err, __VA_ARGS__)
#define warn_at(warn, ...) located(warn, NULL, __VA_ARGS__)

/* An integer option: YAML ints only (a bool is not a count). */
static int
int_opt(const struct where *w, const char *g, const char *k, json_t *v, int min, int *out,
        struct mcinit_err *err)
{
	json_int_t i;

	if (!json_is_integer(v))
		return err_at(err, w, g, k, "%s.%s must be an integer", g, k);
	i = json_integer_value(v);
	if (i < min || i > INT_MAX)
		return err_at(err, w, g, k, "%s.%s is %lld; NCCL takes %d or more", g, k,
		              (long long)i, min);
	*out = (int)i;
	return 0;
}

/* NCCL names its network plugins "IB" and "Socket"; Megatron accepts
 * either in any case and refuses the rest. */
static int
net_opt(const struct where *w, const char *g, json_t *v, struct mcinit_nccl_opts *o,
        struct mcinit_err *err)
{
	const char *s = json_string_value(v);

	if (s && strcasecmp(s, "ib") == 0)
		snprintf(o->net_name, sizeof o->net_name, "IB");
	else if (s && strcasecmp(s, "socket") == 0)
		snprintf(o->net_name, sizeof o->net_name, "Socket");
	else
		return err_at(err, w, g, "net_name",
		              "%s.net_name must be IB or socket (as Megatron accepts)", g);
	return 0;
}

static int
group_opts(const struct where *w, const char *g, json_t *obj, struct mcinit_nccl_opts *o,
           struct mcx_buf *warn, struct mcinit_err *err)
{
	const char *k;
	json_t *v;

	mcinit_nccl_opts_default(o);
	if (!json_is_object(obj))
		return err_at(err, w, g, NULL, "group %s: expected a mapping of NCCL options", g);
	json_object_foreach(obj, k, v)
	{
		int rc = 0;

		if (strcmp(k, "cga_cluster_size") == 0)
			rc = int_opt(w, g, k, v, 0, &o->cga_cluster_size, err);
		else if (strcmp(k, "min_ctas") == 0)
			rc = int_opt(w, g, k, v, 1, &o->min_ctas, err);
		else if (strcmp(k, "max_ctas") == 0)
			rc = int_opt(w, g, k, v, 1, &o->max_ctas, err);
		else if (strcmp(k, "net_name") == 0)
			rc = net_opt(w, g, v, o, err);
		else if (strcmp(k, "is_high_priority_stream") == 0) {
			if (!json_is_boolean(v))
				return err_at(err, w, g, k, "%s.%s must be true or false", g, k);
			o->high_priority = json_is_true(v);
		} else
			warn_at(warn, w, g, k, "%s.%s: not an option Megatron reads; ignored", g,
			        k);
		if (rc)
			return rc;
	}
	if (o->min_ctas != MCINIT_NCCL_UNSET && o->max_ctas != MCINIT_NCCL_UNSET &&
	    o->min_ctas > o->max_ctas)
		return err_at(err, w, g, "min_ctas", "%s: min_ctas %d is above max_ctas %d", g,
		              o->min_ctas, o->max_ctas);
	/* NCCL caps these itself, with a warning in its log only */
	if (o->cga_cluster_size != MCINIT_NCCL_UNSET && o->cga_cluster_size > 8)
		warn_at(warn, w, g, "cga_cluster_size", "%s.cga_cluster_size %d: NCCL caps it at 8",
		        g, o->cga_cluster_size);
	if (o->max_ctas != MCINIT_NCCL_UNSET && o->max_ctas > 64)
		warn_at(warn, w, g, "max_ctas", "%s.max_ctas %d: NCCL caps it at 64 channels", g,
		        o->max_ctas);
	return 0;
}

static int
cfgs_from_tree(const struct where *w, json_t *root, struct mcinit_nccl_cfgs *out,
               struct mcx_buf *warn, struct mcinit_err *err)
{
	const char *g;
	json_t *v;

	if (json_is_null(root) || (json_is_object(root) && json_object_size(root) == 0))
		return 0;
	if (!json_is_object(root))
		return mcinit_err_set(err, MCINIT_E_PARSE,
		                      "%s: expected a mapping of group names to NCCL options",
		                      w->source);
	out->v = mcx_xcalloc(json_object_size(root), sizeof *out->v);
	json_object_foreach(root, g, v)
	{
		struct mcinit_nccl_group_cfg *c = &out->v[out->n];

		if (mcinit_group_kind_from_name(g) < 0)
			warn_at(warn, w, g, NULL,
			        "%s: not a group name of Megatron's; its options apply to nothing",
			        g);
		if (group_opts(w, g, v, &c->o, warn, err) != 0) {
			mcinit_nccl_cfgs_destroy(out);
			return -1;
		}
		c->group = mcx_xstrdup(g);
		out->n++;
	}
	return 0;
}

int
mcinit_nccl_cfgs_parse(const char *text, size_t len, const char *source,
                       struct mcinit_nccl_cfgs *out, struct mcx_buf *warn, struct mcinit_err *err)
{
	struct mcinit_yaml y = {0};
	struct mcinit_err e = {0};
	struct where w = {source, NULL};
	int rc;

	memset(out, 0, sizeof *out);
	if (mcinit_yaml_parse(text, len, NULL, NULL, &y, &e) != 0)
		return mcinit_err_set(err, MCINIT_E_PARSE, "%s:%s", source, e.msg);
	w.jp = y.jp;
	rc = cfgs_from_tree(&w, y.root, out, warn, err);
	mcinit_yaml_destroy(&y);
	return rc;
}

int
mcinit_nccl_cfgs_load(const char *path, struct mcinit_nccl_cfgs *out, struct mcx_buf *warn,
                      struct mcinit_err *err)
{
	struct mcinit_err e = {0};
	size_t len;
	char *text = mcinit_read_file(path, &len, &e);
	int rc;

	memset(out, 0, sizeof *out);
	if (!text)
		return mcinit_err_set(err, MCINIT_E_NOINPUT, "nccl_communicator_config_path: %s",
		                      e.msg);
	rc = mcinit_nccl_cfgs_parse(text, len, path, out, warn, err);
	free(text);
	return rc;
}

void
mcinit_nccl_cfgs_high_priority(struct mcinit_nccl_cfgs *c, const char *group, struct mcx_buf *warn)
{
	struct mcinit_nccl_group_cfg *g;
	size_t i;

	if (mcinit_group_kind_from_name(group) < 0 && warn)
		mcx_buf_printf(warn,
		               "high_priority_stream_groups: %s is not a group name of "
		               "Megatron's\n",
		               group);
	for (i = 0; i < c->n; i++)
		if (strcmp(c->v[i].group, group) == 0) {
			c->v[i].o.high_priority = 1;
			return;
		}
	c->v = mcx_xrealloc(c->v, (c->n + 1) * sizeof *c->v);
	g = &c->v[c->n++];
	g->group = mcx_xstrdup(group);
	mcinit_nccl_opts_default(&g->o);
	g->o.high_priority = 1;
}

int
mcinit_nccl_env_overrides(const char *const *envp, const struct mcinit_nccl_opts *o,
                          struct mcx_buf *warn)
{
	/* what NCCL's envConfigOverride lets win over ncclConfig_t, and
	 * whether mcinit sets that field */
	const struct {
		const char *var, *field;
		int set;
	} t[] = {
	    {"NCCL_COMM_BLOCKING", "blocking = 0 (mcinit's deadline)", 1},
	    {"NCCL_CGA_CLUSTER_SIZE", "cga_cluster_size",
	     o && o->cga_cluster_size != MCINIT_NCCL_UNSET},
	    {"NCCL_MIN_CTAS", "min_ctas", o && o->min_ctas != MCINIT_NCCL_UNSET},
	    {"NCCL_MAX_CTAS", "max_ctas", o && o->max_ctas != MCINIT_NCCL_UNSET},
	    {"NCCL_NET", "net_name", o && o->net_name[0]},
	};
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof t / sizeof *t; i++) {
		const char *v = mcinit_env_get(envp, t[i].var);

		if (!v || !t[i].set)
			continue;
		if (i == 0 && strcmp(v, "0") == 0)
			continue; /* agrees with mcinit */
		mcx_buf_printf(warn, "%s=%s overrides the config's %s%s\n", t[i].var, v, t[i].field,
		               i == 0 ? ": communicator creation blocks and cannot time out" : "");
		n++;
	}
	return n;
}

/* ---- splits ---- */

int
mcinit_split_plan(const struct mcinit_topo *t, struct mcinit_split out[MCINIT_FAM_MAX])
{
	struct mcinit_topo_iter it;
	unsigned char seen[MCINIT_FAM_MAX] = {0};
	int fam, n = 0;
	long g;

	mcinit_topo_iter_init(&it, t);
	while (mcinit_topo_iter_next(&it, &fam, &g) && n < MCINIT_FAM_MAX) {
		if (fam < 0 || fam >= t->nfam || seen[fam])
			continue;
		seen[fam] = 1;
		out[n].fam = fam;
		out[n].kind = t->fam[fam].kind;
		out[n].level = t->fam[fam].level;
		n++;
	}
	return n;
}

int
mcinit_split_color_key(const struct mcinit_topo *t, int fam, long rank, int *color, int *key)
{
	long c, k;
	int rc = mcinit_topo_fam_group_of(t, fam, rank, &c, &k);

	if (rc < 0)
		return -1;
	if (rc == 1) {
		*color = *key = MCINIT_NCCL_NOCOLOR;
		return 0;
	}
	if (c > INT_MAX || k > INT_MAX)
		return -1;
	*color = (int)c;
	*key = (int)k;
	return 0;
}

/* ---- scalable init ---- */

long
mcinit_nccl_nids(long n, int nccl)
{
	if (n <= MCINIT_NCCL_RANKS_PER_ROOT || nccl < MCINIT_NCCL_SCALABLE_VERSION)
		return 0;
	return (n + MCINIT_NCCL_RANKS_PER_ROOT - 1) / MCINIT_NCCL_RANKS_PER_ROOT;
}

long
mcinit_nccl_root_first(long i, long n, long nid)
{
	long rem = n % nid;

	return i * (n / nid) + (i < rem ? i : rem);
}

long
mcinit_nccl_root_of(long rank, long n, long nid)
{
	long per = n / nid, rem = n % nid, big = rem * (per + 1);

	return rank < big ? rank / (per + 1) : (rank - big) / per + rem;
}

long
mcinit_nccl_root_led(long rank, long n, long nid)
{
	long i = mcinit_nccl_root_of(rank, n, nid);

	return mcinit_nccl_root_first(i, n, nid) == rank ? i : -1;
}

/* ---- bandwidth ---- */

const char *
mcinit_coll_name(enum mcinit_coll c)
{
	static const char *const n[MCINIT_COLL_COUNT] = {
	    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "send_recv", "broadcast"};

	return (unsigned)c < MCINIT_COLL_COUNT ? n[c] : "?";
}

double
mcinit_busbw_factor(enum mcinit_coll c, long n)
{
	if (n <= 0)
		return 0;
	switch (c) {
	case MCINIT_COLL_ALL_REDUCE:
		return 2.0 * (double)(n - 1) / (double)n;
	case MCINIT_COLL_ALL_GATHER:
	case MCINIT_COLL_REDUCE_SCATTER:
	case MCINIT_COLL_ALL_TO_ALL:
		return (double)(n - 1) / (double)n;
	default:
		return 1.0;
	}
}

void
mcinit_bandwidth(enum mcinit_coll c, long n, double bytes, double seconds, double *algbw,
                 double *busbw)
{
	double a = seconds > 0 ? bytes / seconds / 1e9 : 0;

	*algbw = a;
	*busbw = a * mcinit_busbw_factor(c, n);
}

enum mcinit_coll
mcinit_kind_coll(enum mcinit_group_kind k)
{
	switch (k) {
	case MCINIT_GROUP_PP:
		return MCINIT_COLL_SEND_RECV;
	case MCINIT_GROUP_EP:
		return MCINIT_COLL_ALL_TO_ALL;
	default:
		return MCINIT_COLL_ALL_REDUCE;
	}
}

/* ---- tp-comm ---- */

size_t
mcinit_tp_comm_bytes(long long seq_length, long long micro_batch_size, long cp,
                     long long hidden_size, int fp8)
{
	if (seq_length <= 0 || micro_batch_size <= 0 || cp <= 0 || hidden_size <= 0)
		return 0;
	return (size_t)MCINIT_TP_COMM_BUFFERS * (size_t)(seq_length * micro_batch_size / cp) *
	       (size_t)hidden_size * (fp8 ? 1u : 2u);
}

/* ---- versions ---- */

void
mcinit_nccl_version_text(int code, char *out, size_t cap)
{
	/* NCCL_VERSION(X,Y,Z): X*1000 + Y*100 + Z up to 2.8, X*10000 + Y*100 + Z after */
	if (code >= 10000)
		snprintf(out, cap, "%d.%d.%d", code / 10000, code / 100 % 100, code % 100);
	else
		snprintf(out, cap, "%d.%d.%d", code / 1000, code / 100 % 10, code % 100);
}

void
mcinit_cuda_version_text(int code, char *out, size_t cap)
{
	snprintf(out, cap, "%d.%d", code / 1000, code % 1000 / 10);
}

int
mcinit_gpu_version_check(int nccl_runtime, int nccl_header, int cuda_runtime, int cuda_header,
                         int cuda_driver, char *why, size_t cap)
{
	char a[32], b[32];

	int warn = 0;

	why[0] = '\0';
	if (nccl_runtime && nccl_runtime < MCINIT_NCCL_MIN) {
		mcinit_nccl_version_text(nccl_runtime, a, sizeof a);
		mcinit_nccl_version_text(MCINIT_NCCL_MIN, b, sizeof b);
		snprintf(why, cap,
		         "the NCCL library loaded is %s; mcinit run needs %s or newer "
		         "(ncclMemAlloc, ncclCommRegister), as Megatron does: name a newer "
		         "libnccl.so.2 in MCINIT_NCCL_LIBRARY (a wheel's: pip install "
		         "nvidia-nccl-cu12)",
		         a, b);
		return -1;
	}
	if (nccl_runtime && nccl_header && nccl_runtime != nccl_header) {
		mcinit_nccl_version_text(nccl_runtime, a, sizeof a);
		mcinit_nccl_version_text(nccl_header, b, sizeof b);
		snprintf(why, cap,
		         "the NCCL library loaded is %s, mcinit was built with the %s headers", a,
		         b);
		warn = 1;
	}
	(void)cuda_header; /* 12 and 13 are bound whatever the headers */
	if (cuda_runtime && cuda_runtime < MCINIT_CUDART_MIN) {
		mcinit_cuda_version_text(cuda_runtime, a, sizeof a);
		mcinit_cuda_version_text(MCINIT_CUDART_MIN, b, sizeof b);
		snprintf(why, cap,
		         "the CUDA runtime loaded is %s; mcinit run needs %s or newer: name one in "
		         "MCINIT_CUDA_LIBRARY",
		         a, b);
		return -1;
	}
	if (cuda_driver && cuda_runtime && cuda_driver / 1000 < cuda_runtime / 1000) {
		mcinit_cuda_version_text(cuda_driver, a, sizeof a);
		mcinit_cuda_version_text(cuda_runtime, b, sizeof b);
		snprintf(why, cap,
		         "the NVIDIA driver supports CUDA %s, older than the CUDA %s runtime "
		         "loaded (cudaErrorInsufficientDriver): use a CUDA %d runtime (the "
		         "nvidia-cuda-runtime-cu%d wheel, or MCINIT_CUDA_LIBRARY), or update the "
		         "driver",
		         a, b, cuda_driver / 1000, cuda_driver / 1000);
		return -1;
	}
	return warn;
}

/* ---- communicators ---- */

struct mcinit_comm *
mcinit_comms_add(struct mcinit_comms *l)
{
	struct mcinit_comm *c;

	l->v = mcx_xrealloc(l->v, (l->n + 1) * sizeof *l->v);
	c = &l->v[l->n++];
	memset(c, 0, sizeof *c);
	c->fam = -1;
	c->color = c->key = MCINIT_NCCL_NOCOLOR;
	return c;
}

int
mcinit_comms_teardown(struct mcinit_comms *l, mcinit_comm_destroy_fn destroy, double deadline,
                      int hard, void *ctx)
{
	size_t i;
	int bad = 0, pass;

	/* ncclCommAbort on every one before anything is freed: the stuck
	 * first (their kernels end), then parents before children */
	for (pass = 0; hard && pass < 2; pass++)
		for (i = 0; i < l->n; i++)
			if (l->v[i].handle && (pass == 1 || l->v[i].stuck))
				destroy(l->v[i].handle, deadline, MCINIT_END_ABORT, ctx);
	/* children before their parent: the world is l->v[0] */
	for (i = l->n; i-- > 0;) {
		struct mcinit_comm *c = &l->v[i];

		if (!c->handle)
			continue;
		if (destroy(c->handle, deadline, hard, ctx) != 0)
			bad++;
		c->handle = NULL;
	}
	return bad;
}

void
mcinit_comms_destroy(struct mcinit_comms *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
