/*
 * mcheck-locals.c — the locals of validate_args that Megatron-LM's checks
 * read (data/megatron-checks.tsv), computed from the config the way
 * validate_args computes them, so that the rows reading them are ported as
 * table rows (their guard and condition unchanged, or a `when` of
 * data/megatron-checks-port.tsv in the same terms) and not as C rules.
 *
 * Two families need more than an expression over args:
 *  - the hybrid layer pattern after validate_args' rewrites (the deprecated
 *    --hybrid-override-pattern moved over, a legacy MTP pattern appended),
 *    and what hybrid_layer_allocation.py reads from it: pipe segments of the
 *    main pattern, MTP depths;
 *  - the CUDA graph settings after _normalize_cuda_graph_modules_args and
 *    _normalize_inference_cuda_graph_scope_arg: the deprecated flags mapped
 *    onto cuda_graph_impl, the modules list without `full` and the
 *    deprecated scopes, the impl-derived inference scope.
 * A local that does not apply is None (Python would not reach the check).
 */
#include "rules/rules-impl.h"

#include <string.h>

#include "input/pyexpr.h"

static int
pv_none(struct mcinit_pv *out)
{
	*out = (struct mcinit_pv){.kind = MCINIT_PV_NONE};
	return 0;
}

static int
pv_bool(struct mcinit_pv *out, bool b)
{
	*out = (struct mcinit_pv){.kind = MCINIT_PV_BOOL, .i = b};
	return 0;
}

static int
pv_int(struct mcinit_pv *out, long long i)
{
	*out = (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = i};
	return 0;
}

static int
pv_str(struct mcinit_pv *out, struct mcinit_pyexpr *e, const char *s)
{
	if (s == NULL)
		return pv_none(out);
	*out = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = mcinit_pyexpr_strdup(e, s)};
	return 0;
}

/* ---- the hybrid layer pattern ---- */

/* args.hybrid_layer_pattern once validate_args has moved the deprecated
 * override over and converted a legacy mtp_hybrid_override_pattern into
 * the unified "main/mtp/mtp" form; NULL when there is none.  The result
 * lives in b. */
static const char *
hybrid_pattern(struct mcinit_rule_ctx *x, struct mcx_buf *b)
{
	const char *p = !NUL(hybrid_layer_pattern) ? mcinit_cfg_str(x->c, F(hybrid_layer_pattern))
	                : !NUL(hybrid_override_pattern)
	                    ? mcinit_cfg_str(x->c, F(hybrid_override_pattern))
	                    : NULL;
	long long i, n;

	if (BAD(hybrid_layer_pattern) || BAD(hybrid_override_pattern) ||
	    BAD(mtp_hybrid_override_pattern) || BAD(mtp_num_layers))
		return NULL;
	b->len = 0;
	mcx_buf_adds(b, p ? p : "");
	n = NUL(mtp_num_layers) ? 0 : I(mtp_num_layers);
	if (!NUL(mtp_hybrid_override_pattern) && n > 0 && (p == NULL || strchr(p, '/') == NULL))
		for (i = 0; i < n; i++) {
			mcx_buf_addc(b, '/');
			mcx_buf_adds(b, mcinit_cfg_str(x->c, F(mtp_hybrid_override_pattern)));
		}
	else if (p == NULL)
		return NULL;
	return mcx_buf_cstr(b);
}

/* The pipe count + 1 of the main pattern (before the first '/'). */
static long long
pipeline_segments(const char *p)
{
	long long n = 1;

	for (; *p && *p != '/'; p++)
		n += *p == '|';
	return n;
}

/* parse_hybrid_pattern(p).mtp_num_depths, or 0 without an MTP pattern (or
 * with MTP parts that differ, which Megatron refuses with its own error). */
static long long
mtp_depths(const char *p)
{
	const char *first = strchr(p, '/'), *q;
	size_t len;
	long long n = 0;
	bool any = false;

	if (first == NULL)
		return 0;
	first++;
	len = strcspn(first, "/");
	for (q = first; q != NULL; q = strchr(q, '/') ? strchr(q, '/') + 1 : NULL) {
		size_t l = strcspn(q, "/");

		if (l != len || strncmp(q, first, len) != 0)
			return 0;
		any |= l > 0;
		n++;
	}
	return any ? n : 0;
}

/* ---- the CUDA graph settings ---- */

/* The text of field f: a string, or a JSON string (a field of type any). */
static const char *
text_of(struct mcinit_rule_ctx *x, enum mcinit_field f)
{
	const struct mcinit_value *v = mcinit_cfg_val(x->c, f);

	if (x->c->invalid[f])
		return NULL;
	if (v->kind == MCINIT_V_STR)
		return v->s;
	if (v->kind == MCINIT_V_JSON && json_is_string(v->j))
		return json_string_value(v->j);
	return NULL;
}

struct cuda_graph {
	const char *given;      /* cuda_graph_impl as given */
	const char *impl;       /* cuda_graph_impl after the deprecated flags */
	const char *deprecated; /* the deprecated module value given, or NULL */
	bool full;              /* `full` was given */
	const char *scope;      /* inference_cuda_graph_scope, normalized */
	const char *migration_attr, *migration_value;
};

/* The module words as given, into w (at most max); their count, or -1 when
 * a word is not a string.  --cuda-graph-scope wins: validate_args copies it
 * over cuda_graph_modules.  The field is a list, or JSON (type any). */
static int
module_words(struct mcinit_rule_ctx *x, const char **w, size_t max)
{
	enum mcinit_field f = F(cuda_graph_modules);
	const struct mcinit_value *v;
	size_t i, n;

	if (mcinit_mflag_by_dest("cuda_graph_scope_deprecated", x->c->mversion) != NULL &&
	    !NUL(cuda_graph_scope_deprecated))
		f = F(cuda_graph_scope_deprecated);
	if (x->c->invalid[f] || mcinit_cfg_null(x->c, f))
		return 0;
	v = mcinit_cfg_val(x->c, f);
	if (v->kind == MCINIT_V_LIST) {
		for (i = n = 0; i < v->n && n < max; i++, n++)
			if ((w[n] = v->items[i].kind == MCINIT_V_STR ? v->items[i].s : NULL) ==
			    NULL)
				return -1;
		return (int)n;
	}
	if (v->kind == MCINIT_V_JSON && json_is_array(v->j)) {
		for (i = n = 0; i < json_array_size(v->j) && n < max; i++, n++)
			if ((w[n] = json_string_value(json_array_get(v->j, i))) == NULL)
				return -1;
		return (int)n;
	}
	/* one name: Union[str, ...] (a Bridge dump's `cuda_graph_modules: full`,
	 * JSON in a field of type any) */
	if (v->kind == MCINIT_V_JSON && json_is_string(v->j) && max > 0) {
		w[0] = json_string_value(v->j);
		return 1;
	}
	return v->kind == MCINIT_V_STR && (w[0] = v->s) != NULL ? 1 : -1;
}

#define MAX_MODULES 32

static int
cuda_graph(struct mcinit_rule_ctx *x, struct cuda_graph *g)
{
	const char *w[MAX_MODULES], *given;
	int i, n = module_words(x, w, MAX_MODULES);

	given = text_of(x, F(cuda_graph_impl));
	/* None (a Bridge config's null, which its dataclass takes unchecked)
	 * is a value: given and impl NULL, compared as Python compares None */
	if (n < 0 || x->c->invalid[F(cuda_graph_impl)] ||
	    (given == NULL && !mcinit_cfg_null(x->c, F(cuda_graph_impl))) ||
	    BAD(inference_cuda_graph_scope))
		return -1;
	*g = (struct cuda_graph){.given = given, .impl = given};
	if (B(enable_cuda_graph))
		g->impl = "local";
	else if (B(external_cuda_graph))
		g->impl = "transformer_engine";
	for (i = 0; i < n; i++) {
		const char *s = w[i];

		if (strcmp(s, "full") == 0)
			g->full = true;
		else if (strcmp(s, "full_iteration") == 0 ||
		         strcmp(s, "full_iteration_inference") == 0)
			g->deprecated = g->deprecated ? g->deprecated : s;
	}
	if (g->full)
		g->deprecated = NULL; /* normalize_cuda_graph_modules returns before */
	if (g->deprecated != NULL && strcmp(g->deprecated, "full_iteration") == 0) {
		g->migration_attr = "cuda_graph_impl";
		g->migration_value = g->impl = "full_iteration";
	} else if (g->deprecated != NULL && (g->impl == NULL || strcmp(g->impl, "none") != 0)) {
		g->migration_attr = "inference_cuda_graph_scope";
		g->migration_value = "block";
	}
	g->scope =
	    g->migration_value && strcmp(g->migration_attr, "inference_cuda_graph_scope") == 0
	        ? g->migration_value
	    : !NUL(inference_cuda_graph_scope) ? text_of(x, F(inference_cuda_graph_scope))
	    : g->impl != NULL && strcmp(g->impl, "local") == 0 ? "layer"
	                                                       : "none";
	return 0;
}

/* args.cuda_graph_modules once normalized: the module names, without
 * `full` (which empties it) and the deprecated values. */
static int
modules_list(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, struct mcinit_pv *out)
{
	const char *w[MAX_MODULES];
	int i, k = module_words(x, w, MAX_MODULES);
	struct mcinit_pv *l;
	size_t n = 0;

	if (k < 0)
		return -1;
	l = mcinit_pyexpr_alloc_list(e, (size_t)k);
	for (i = 0; i < k; i++) {
		const char *s = w[i];

		if (strcmp(s, "full") == 0) {
			n = 0;
			break;
		}
		if (strcmp(s, "full_iteration") != 0 && strcmp(s, "full_iteration_inference") != 0)
			l[n++] = (struct mcinit_pv){.kind = MCINIT_PV_STR,
			                            .s = mcinit_pyexpr_strdup(e, s)};
	}
	*out = (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = n};
	return 0;
}

static const char *const names[] = {
    "%hybrid_pattern",           "%has_pipes",
    "%hybrid_pipeline_segments", "%mtp_num_depths",
    "%cuda_graph_impl",          "%inference_cuda_graph_scope",
    "%used_full_scope",          "%deprecated_scope",
    "%migration_attr",           "%migration_value",
    "%migration_flag",           "%cuda_graph_modules",
    "%cuda_graph_impl_given",    NULL,
};

bool
mcinit_mcheck_local_known(const char *name)
{
	const char *const *n;

	for (n = names; *n; n++)
		if (strcmp(*n, name) == 0)
			return true;
	return false;
}

static int
hybrid_local(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, const char *name,
             struct mcinit_pv *out)
{
	struct mcx_buf b = {0};
	const char *p = hybrid_pattern(x, &b);
	int r = 0;

	if (strcmp(name, "hybrid_pattern") == 0)
		r = pv_str(out, e, p);
	else if (p == NULL)
		r = pv_none(out);
	else if (strcmp(name, "has_pipes") == 0)
		r = pv_bool(out, strcspn(p, "|") < strcspn(p, "/"));
	else if (strcmp(name, "hybrid_pipeline_segments") == 0)
		r = pv_int(out, pipeline_segments(p));
	else
		r = pv_int(out, mtp_depths(p));
	mcx_buf_free(&b);
	return r;
}

static int
cuda_graph_local(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, const char *name,
                 struct mcinit_pv *out)
{
	struct cuda_graph g;

	if (cuda_graph(x, &g) < 0)
		return -1;
	if (strcmp(name, "cuda_graph_impl") == 0)
		return pv_str(out, e, g.impl);
	if (strcmp(name, "cuda_graph_impl_given") == 0)
		return pv_str(out, e, g.given);
	if (strcmp(name, "inference_cuda_graph_scope") == 0)
		return pv_str(out, e, g.scope);
	if (strcmp(name, "used_full_scope") == 0)
		return pv_bool(out, g.full);
	if (strcmp(name, "deprecated_scope") == 0)
		return pv_str(out, e, g.deprecated);
	if (strcmp(name, "migration_attr") == 0)
		return pv_str(out, e, g.migration_attr);
	if (strcmp(name, "migration_flag") == 0)
		return pv_str(out, e,
		              g.migration_attr == NULL ? NULL
		              : strcmp(g.migration_attr, "cuda_graph_impl") == 0
		                  ? "cuda-graph-impl"
		                  : "inference-cuda-graph-scope");
	if (strcmp(name, "cuda_graph_modules") == 0)
		return modules_list(x, e, out);
	return pv_str(out, e, g.migration_value);
}

/* Whether a local (without its '%') is read from the hybrid pattern. */
static bool
hybrid_name(const char *name)
{
	return strstr(name, "hybrid") != NULL || strcmp(name, "has_pipes") == 0 ||
	       strcmp(name, "mtp_num_depths") == 0;
}

size_t
mcinit_mcheck_local_fields(const char *name, enum mcinit_field *f, size_t max)
{
	static const enum mcinit_field hybrid[] = {
	    F(hybrid_layer_pattern), F(hybrid_override_pattern), F(mtp_hybrid_override_pattern),
	    F(mtp_num_layers)};
	static const enum mcinit_field graph[] = {
	    F(cuda_graph_modules), F(cuda_graph_scope_deprecated), F(inference_cuda_graph_scope),
	    F(cuda_graph_impl),    F(enable_cuda_graph),           F(external_cuda_graph)};
	const enum mcinit_field *from;
	size_t i, n;

	if (!mcinit_mcheck_local_known(name))
		return 0;
	if (hybrid_name(name + 1))
		from = hybrid, n = sizeof hybrid / sizeof hybrid[0];
	else
		from = graph, n = sizeof graph / sizeof graph[0];
	for (i = 0; i < n && i < max; i++)
		f[i] = from[i];
	return i;
}

int
mcinit_mcheck_local(struct mcinit_rule_ctx *x, struct mcinit_pyexpr *e, const char *name,
                    struct mcinit_pv *out)
{
	if (!mcinit_mcheck_local_known(name))
		return -1;
	name++;
	if (hybrid_name(name))
		return hybrid_local(x, e, name, out);
	return cuda_graph_local(x, e, name, out);
}
