/* yamltree.c — see yamltree.h.
 *
 * Three passes.  (1) libyaml's events build a graph of nodes (an alias is a
 * second edge to its anchor's node), each scalar typed as it is read.
 * (2) A walk from the root expands aliases and merge keys into a jansson
 * tree, adding one position entry per value in document order.  (3) String
 * values holding `${` are resolved.  Keeping the graph (not jansson values)
 * until pass 2 is what lets an expanded alias point at its anchor's text.
 * Typing a scalar's text is yamlscalar.c's. */
#include "input/yamltree.h"
#include "input/yamldl.h" /* yaml.h; libyaml is opened at first use */
#include "input/yamlscalar.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/types.h>

/* OmegaConf (>= 2.4) refuses documents whose aliases expand beyond this. */
#define MAX_EXPANDED     10000
#define MAX_INTERP_DEPTH 32
/* The deepest nesting read.  PyYAML's safe_load (under Megatron-Bridge's
 * OmegaConf) stops below 500 levels (RecursionError), and libyaml's scanner
 * costs time in proportion to the flow nesting for every token it reads:
 * refused as the collection that passes it starts, libyaml never reads on
 * (200 KB of `[` took 60 s when the depth was checked after parsing). */
#define MAX_DEPTH 256

enum ykind { Y_SCALAR, Y_SEQ, Y_MAP };

struct ynode {
	enum ykind kind;
	struct mcinit_pos pos;
	json_t *val; /* Y_SCALAR: the typed value */
	char *text;  /* Y_SCALAR: as written (keys use it) */
	size_t tlen;
	bool merge;          /* Y_SCALAR: a plain `<<` */
	bool done;           /* its end event was seen (an alias to it is legal) */
	bool checked;        /* duplicate keys already reported */
	bool strkey;         /* Y_SCALAR as a key: typed as a string */
	struct ynode **kids; /* Y_SEQ: items; Y_MAP: key, value, key, value ... */
	size_t n, cap;
};

struct anchor {
	char *name;
	struct ynode *node;
	uint64_t hash;
};

/* An open-addressed index of positions (i + 1; 0 is empty) by a key's
 * hash: finding a duplicate key or an anchor by a scan made a mapping of
 * 160,000 keys take 35 s. */
struct kindex {
	size_t *slot;
	size_t cap; /* a power of two, at least twice the entries */
};

static uint64_t
key_hash(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

struct ytree {
	struct ynode **all; /* every node, for freeing */
	size_t nall, capall;
	struct anchor *anchors;
	size_t nanchors, capanchors;
	struct kindex anchor_ix;
	bool aliased;
	size_t expanded;
	struct mcinit_ytyper ty; /* the result (ty.out), its notes, the loader read as */
	struct mcinit_err *err;
	mcinit_yaml_lookup lookup;
	void *ctx;
};

static struct mcinit_pos
mark_pos(yaml_mark_t m)
{
	struct mcinit_pos p;

	p.line = m.line < INT_MAX ? (int)m.line + 1 : INT_MAX;
	p.col = m.column < INT_MAX ? (int)m.column + 1 : INT_MAX;
	p.offset = -1;
	return p;
}

/* ---- pass 1: events to a node graph ---- */

static struct ynode *
new_node(struct ytree *t, enum ykind k, yaml_mark_t m)
{
	struct ynode *n = mcx_xcalloc(1, sizeof *n);

	n->kind = k;
	n->pos = mark_pos(m);
	MCINIT_GROW(t->all, t->capall, t->nall + 1);
	t->all[t->nall++] = n;
	return n;
}

static void
add_kid(struct ynode *parent, struct ynode *kid)
{
	MCINIT_GROW(parent->kids, parent->cap, parent->n + 1);
	parent->kids[parent->n++] = kid;
}

static struct ynode *find_anchor(const struct ytree *t, const char *name);

/* Puts position pos at its hash's first free slot (the index has room). */
static void
ix_put(struct kindex *ix, uint64_t h, size_t pos)
{
	size_t mask = ix->cap - 1, i;

	for (i = (size_t)h & mask; ix->slot[i] != 0; i = (i + 1) & mask)
		;
	ix->slot[i] = pos + 1;
}

/* PyYAML's composer refuses an anchor defined twice (YAML allows it). */
static int
set_anchor(struct ytree *t, const yaml_char_t *name, struct ynode *n)
{
	struct ynode *old;

	if (name == NULL)
		return 0;
	old = find_anchor(t, (const char *)name);
	if (old != NULL) {
		char what[300];

		snprintf(what, sizeof what,
		         "anchor &%.200s is defined twice (first at line %d): Megatron-Bridge's "
		         "loader (PyYAML) refuses that",
		         (const char *)name, old->pos.line);
		return mcinit_err_at(t->err, MCINIT_E_PARSE, NULL, n->pos.line, n->pos.col, "%s",
		                     what);
	}
	MCINIT_GROW(t->anchors, t->capanchors, t->nanchors + 1);
	t->anchors[t->nanchors].name = mcx_xstrdup((const char *)name);
	t->anchors[t->nanchors].hash = key_hash((const char *)name, strlen((const char *)name));
	t->anchors[t->nanchors++].node = n;
	if (2 * t->nanchors > t->anchor_ix.cap) {
		free(t->anchor_ix.slot);
		t->anchor_ix.cap = t->anchor_ix.cap ? 2 * t->anchor_ix.cap : 64;
		t->anchor_ix.slot = mcx_xcalloc(t->anchor_ix.cap, sizeof *t->anchor_ix.slot);
		for (size_t k = 0; k < t->nanchors; k++)
			ix_put(&t->anchor_ix, t->anchors[k].hash, k);
	} else {
		ix_put(&t->anchor_ix, t->anchors[t->nanchors - 1].hash, t->nanchors - 1);
	}
	return 0;
}

static struct ynode *
find_anchor(const struct ytree *t, const char *name)
{
	uint64_t h = key_hash(name, strlen(name));
	size_t mask = t->anchor_ix.cap - 1, i;

	if (t->anchor_ix.cap == 0)
		return NULL;
	for (i = (size_t)h & mask; t->anchor_ix.slot[i] != 0; i = (i + 1) & mask) {
		const struct anchor *a = &t->anchors[t->anchor_ix.slot[i] - 1];

		if (a->hash == h && strcmp(a->name, name) == 0)
			return a->node;
	}
	return NULL;
}

static int
fail_at(struct ytree *t, struct mcinit_pos p, const char *what)
{
	return mcinit_err_at(t->err, MCINIT_E_PARSE, NULL, p.line, p.col, "%s", what);
}

static bool py_str(const json_t *j, struct mcx_buf *b);

/* A plain mapping key as OmegaConf keys it: `on` is the boolean True, `1`
 * the int 1 (str() of the typed key is what a reference must name).  Only
 * string keys are checked for duplicates, as OmegaConf checks them. */
static void
type_key(struct ytree *t, struct ynode *n)
{
	json_t *j = mcinit_ytype_plain(&t->ty, n->text, n->pos, true);
	struct mcx_buf b = {0};

	n->strkey = json_is_string(j);
	if (!n->strkey && py_str(j, &b)) {
		if (json_is_boolean(j))
			mcinit_ynote(
			    &t->ty, MCINIT_WARNING, "MC001", n->pos, "quote the key",
			    "key `%s` is the boolean %s to Megatron-Bridge's loader (YAML 1.1), "
			    "not "
			    "the string \"%s\"",
			    n->text, json_is_true(j) ? "True" : "False", n->text);
		free(n->text);
		n->tlen = b.len;
		n->text = mcx_xstrdup(mcx_buf_cstr(&b));
	}
	mcx_buf_free(&b);
	json_decref(j);
}

/* is_key: a mapping key, read by its text alone (typed by type_key). */
static struct ynode *
scalar_node(struct ytree *t, const yaml_event_t *ev, bool is_key)
{
	struct ynode *n = new_node(t, Y_SCALAR, ev->start_mark);
	const char *tag = (const char *)ev->data.scalar.tag;
	size_t len = ev->data.scalar.length;
	bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;

	n->text = mcx_xmalloc(len + 1);
	memcpy(n->text, ev->data.scalar.value, len);
	n->text[len] = '\0';
	n->tlen = len;
	n->strkey = true;
	if (is_key && plain && tag == NULL && strcmp(n->text, "<<") != 0)
		type_key(t, n);
	if (is_key || strlen(n->text) != len) /* or "\0" in a double-quoted scalar */
		n->val = json_stringn(n->text, n->tlen);
	else if (tag != NULL)
		n->val = mcinit_ytype_tagged(&t->ty, tag, n->text, n->pos);
	else if (plain && ev->data.scalar.plain_implicit)
		n->val = mcinit_ytype_plain(&t->ty, n->text, n->pos, false);
	else
		n->val = json_string(n->text);
	n->merge = plain && tag == NULL && strcmp(n->text, "<<") == 0;
	if (n->val == NULL) /* not UTF-8: libyaml checks its input, so unreachable */
		n->val = json_null();
	n->done = true;
	return n;
}

static void
check_collection_tag(struct ytree *t, const yaml_char_t *tag, enum ykind k, struct mcinit_pos p)
{
	const char *want = k == Y_MAP ? MCINIT_YAML_TAG "map" : MCINIT_YAML_TAG "seq";

	if (tag == NULL || strcmp((const char *)tag, want) == 0 ||
	    strcmp((const char *)tag, "!") == 0)
		return;
	mcinit_ynote(&t->ty, MCINIT_ERROR, "MC004", p, "drop the tag",
	             "tag %s: Megatron-Bridge's loader (OmegaConf on PyYAML's SafeLoader) cannot "
	             "construct it; read as a plain %s",
	             (const char *)tag, k == Y_MAP ? "mapping" : "sequence");
}

struct stack {
	struct ynode **v;
	size_t n, cap;
};

/* Attaches n to the open container (or makes it the root). */
static void
attach(struct stack *st, struct ynode **root, struct ynode *n)
{
	if (st->n == 0)
		*root = n;
	else
		add_kid(st->v[st->n - 1], n);
}

static int
libyaml_error(struct ytree *t, const yaml_parser_t *ps)
{
	struct mcinit_pos p = mark_pos(ps->problem_mark);
	char what[400];

	if (ps->error == YAML_MEMORY_ERROR)
		mcinit_oom(0); /* as mcx_xmalloc would */
	if (ps->context != NULL)
		snprintf(what, sizeof what, "malformed YAML: %s %s (from line %d)", ps->problem,
		         ps->context, mark_pos(ps->context_mark).line);
	else
		snprintf(what, sizeof what, "malformed YAML: %s",
		         ps->problem ? ps->problem : "cannot read the input");
	return fail_at(t, p, what);
}

/* One event; sets *end at the end of the stream. */
static int
on_event(struct ytree *t, const yaml_event_t *ev, struct stack *st, struct ynode **root, int *ndocs,
         bool *end)
{
	struct ynode *n;

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (++*ndocs > 1)
			return fail_at(
			    t, mark_pos(ev->start_mark),
			    "a second YAML document starts here: Megatron-Bridge's loader "
			    "(OmegaConf.load) reads one document per file");
		break;
	case YAML_STREAM_END_EVENT:
		*end = true;
		break;
	case YAML_SCALAR_EVENT:
		n = scalar_node(t, ev,
		                st->n > 0 && st->v[st->n - 1]->kind == Y_MAP &&
		                    st->v[st->n - 1]->n % 2 == 0);
		attach(st, root, n);
		if (set_anchor(t, ev->data.scalar.anchor, n) < 0)
			return -1;
		break;
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT: {
		bool map = ev->type == YAML_MAPPING_START_EVENT;

		n = new_node(t, map ? Y_MAP : Y_SEQ, ev->start_mark);
		check_collection_tag(t,
		                     map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag,
		                     n->kind, n->pos);
		attach(st, root, n);
		if (st->n >= MAX_DEPTH) {
			char what[120];

			snprintf(what, sizeof what,
			         "YAML nested more than %d levels deep (Megatron-Bridge's loader, "
			         "PyYAML, stops sooner)",
			         MAX_DEPTH);
			return fail_at(t, n->pos, what);
		}
		MCINIT_GROW(st->v, st->cap, st->n + 1);
		st->v[st->n++] = n;
		if (set_anchor(t,
		               map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor,
		               n) < 0)
			return -1;
		break;
	}
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		st->v[--st->n]->done = true;
		break;
	case YAML_ALIAS_EVENT:
		n = find_anchor(t, (const char *)ev->data.alias.anchor);
		if (n == NULL || !n->done)
			return fail_at(t, mark_pos(ev->start_mark),
			               n == NULL ? "alias to an undefined anchor"
			                         : "an alias inside its own anchor (recursive "
			                           "aliases are not supported by OmegaConf)");
		t->aliased = true;
		attach(st, root, n);
		break;
	default:
		break;
	}
	return 0;
}

static int
build_graph(struct ytree *t, const char *text, size_t len, struct ynode **root)
{
	yaml_parser_t ps;
	struct stack st = {0};
	int ndocs = 0, rc = 0;
	bool end = false;

	if (mcinit_yaml_open(t->err) < 0)
		return -1;
	if (!yaml_parser_initialize(&ps))
		mcinit_oom(sizeof ps);
	yaml_parser_set_input_string(&ps, (const unsigned char *)text, len);
	while (!end && rc == 0) {
		yaml_event_t ev;

		if (!yaml_parser_parse(&ps, &ev)) {
			rc = libyaml_error(t, &ps);
			break;
		}
		rc = on_event(t, &ev, &st, root, &ndocs, &end);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&ps);
	free(st.v);
	return rc;
}

/* ---- pass 2: expansion into jansson values and positions ---- */

struct pair {
	struct ynode *k, *v;
};

struct pairs {
	struct pair *v;
	size_t n, cap;
	struct kindex ix; /* by key text, once there are more than a few */
};

#define PAIRS_SCAN 8 /* up to this many pairs a scan is cheaper */

static void
pairs_free(struct pairs *ps)
{
	free(ps->v);
	free(ps->ix.slot);
}

static bool
same_key(const struct ynode *a, const struct ynode *b)
{
	return a->tlen == b->tlen && memcmp(a->text, b->text, a->tlen) == 0;
}

static ssize_t
find_pair(const struct pairs *ps, const struct ynode *k)
{
	uint64_t h;
	size_t mask = ps->ix.cap - 1, i;

	if (ps->ix.cap == 0) {
		for (i = 0; i < ps->n; i++)
			if (same_key(ps->v[i].k, k))
				return (ssize_t)i;
		return -1;
	}
	h = key_hash(k->text, k->tlen);
	for (i = (size_t)h & mask; ps->ix.slot[i] != 0; i = (i + 1) & mask)
		if (same_key(ps->v[ps->ix.slot[i] - 1].k, k))
			return (ssize_t)ps->ix.slot[i] - 1;
	return -1;
}

/* Adds a pair whose key is not there yet (a key replaced in place keeps
 * its text, so the index stays right). */
static void
put_pair(struct pairs *ps, struct ynode *k, struct ynode *v)
{
	MCINIT_GROW(ps->v, ps->cap, ps->n + 1);
	ps->v[ps->n].k = k;
	ps->v[ps->n++].v = v;
	if (ps->n <= PAIRS_SCAN)
		return;
	if (2 * ps->n > ps->ix.cap) {
		free(ps->ix.slot);
		ps->ix.cap = ps->ix.cap ? 2 * ps->ix.cap : 4 * PAIRS_SCAN;
		ps->ix.slot = mcx_xcalloc(ps->ix.cap, sizeof *ps->ix.slot);
		for (size_t i = 0; i < ps->n; i++)
			ix_put(&ps->ix, key_hash(ps->v[i].k->text, ps->v[i].k->tlen), i);
	} else {
		ix_put(&ps->ix, key_hash(k->text, k->tlen), ps->n - 1);
	}
}

static int flatten(struct ytree *t, struct ynode *map, struct pairs *out, int depth);

/* The mappings a `<<` value names, merged into *merged (earlier wins). */
static int
merge_from(struct ytree *t, struct ynode *v, struct pairs *merged, int depth)
{
	size_t nmaps = v->kind == Y_MAP ? 1 : v->kind == Y_SEQ ? v->n : 0;

	if (nmaps == 0 && v->kind != Y_SEQ)
		return fail_at(t, v->pos, "a merge key (<<) takes a mapping or a list of mappings");
	for (size_t m = 0; m < nmaps; m++) {
		struct ynode *src = v->kind == Y_MAP ? v : v->kids[m];
		struct pairs sub = {0};

		if (src->kind != Y_MAP) {
			pairs_free(&sub);
			return fail_at(t, src->pos, "a merge key (<<) list may hold only mappings");
		}
		if (flatten(t, src, &sub, depth + 1) < 0) {
			pairs_free(&sub);
			return -1;
		}
		for (size_t i = 0; i < sub.n; i++)
			if (find_pair(merged, sub.v[i].k) < 0)
				put_pair(merged, sub.v[i].k, sub.v[i].v);
		pairs_free(&sub);
	}
	return 0;
}

/* A mapping's effective key/value pairs: merged keys first, explicit keys
 * overriding them (PyYAML's flatten_mapping); duplicates reported once. */
static int
flatten(struct ytree *t, struct ynode *map, struct pairs *out, int depth)
{
	struct pairs merged = {0};
	int rc = 0;

	if (depth > 64)
		return fail_at(t, map->pos, "merge keys nested too deeply");
	for (size_t i = 0; i + 1 < map->n && rc == 0; i += 2) {
		struct ynode *k = map->kids[i], *v = map->kids[i + 1];
		ssize_t at;

		if (k->kind != Y_SCALAR) {
			if (!map->checked)
				mcinit_ynote(&t->ty, MCINIT_ERROR, "MC004", k->pos, NULL,
				             "a mapping key must be a scalar; this key is skipped");
			continue;
		}
		if (k->merge) {
			rc = merge_from(t, v, &merged, depth);
			continue;
		}
		at = find_pair(out, k);
		if (at < 0) {
			put_pair(out, k, v);
			continue;
		}
		if (!map->checked && k->strkey)
			mcinit_ynote(
			    &t->ty, MCINIT_ERROR, "MC006", k->pos,
			    "keep one copy (plain yaml.safe_load would keep the last)",
			    "duplicate key '%s' (first at line %d): Megatron-Bridge's loader "
			    "(OmegaConf) refuses the file",
			    k->text, out->v[at].k->pos.line);
		out->v[at].k = k; /* the last copy is read on, as PyYAML would */
		out->v[at].v = v;
	}
	map->checked = true;
	if (rc == 0 && merged.n > 0) {
		struct pairs all = {0};

		for (size_t i = 0; i < merged.n; i++)
			if (find_pair(out, merged.v[i].k) < 0)
				put_pair(&all, merged.v[i].k, merged.v[i].v);
		for (size_t i = 0; i < out->n; i++)
			put_pair(&all, out->v[i].k, out->v[i].v);
		pairs_free(out);
		*out = all;
	}
	pairs_free(&merged);
	return rc;
}

static json_t *emit(struct ytree *t, struct ynode *n, size_t parent, const char *tok, size_t toklen,
                    struct mcinit_pos key, int depth);

static json_t *
emit_map(struct ytree *t, struct ynode *n, size_t ent, int depth)
{
	struct pairs ps = {0};
	json_t *obj = json_object();

	if (flatten(t, n, &ps, 0) < 0)
		goto fail;
	for (size_t i = 0; i < ps.n; i++) {
		struct ynode *k = ps.v[i].k;
		json_t *v;

		if (strlen(k->text) != k->tlen) {
			mcinit_ynote(&t->ty, MCINIT_ERROR, "MC004", k->pos, NULL,
			             "a key with a NUL character is not supported; skipped");
			continue;
		}
		v = emit(t, ps.v[i].v, ent, k->text, k->tlen, k->pos, depth + 1);
		if (v == NULL)
			goto fail;
		json_object_setn_new_nocheck(obj, k->text, k->tlen, v);
	}
	pairs_free(&ps);
	return obj;
fail:
	pairs_free(&ps);
	json_decref(obj);
	return NULL;
}

static json_t *
emit(struct ytree *t, struct ynode *n, size_t parent, const char *tok, size_t toklen,
     struct mcinit_pos key, int depth)
{
	size_t ent;
	json_t *arr;
	char idx[24];

	if (++t->expanded > MAX_EXPANDED && t->aliased) {
		fail_at(t, n->pos,
		        "aliases expand this document beyond 10000 nodes, the limit of "
		        "OmegaConf (Megatron-Bridge's loader)");
		return NULL;
	}
	if (depth > MAX_DEPTH) { /* an alias can take a node deeper than it was read */
		char what[120];

		snprintf(what, sizeof what,
		         "YAML nested more than %d levels deep (Megatron-Bridge's loader, PyYAML, "
		         "stops sooner)",
		         MAX_DEPTH);
		fail_at(t, n->pos, what);
		return NULL;
	}
	ent = mcinit_jpos_add(t->ty.out->jp, parent, tok, toklen, key, n->pos);
	if (n->kind == Y_SCALAR)
		return json_incref(n->val);
	if (n->kind == Y_MAP)
		return emit_map(t, n, ent, depth);
	arr = json_array();
	for (size_t i = 0; i < n->n; i++) {
		int len = snprintf(idx, sizeof idx, "%zu", i);
		json_t *v = emit(t, n->kids[i], ent, idx, (size_t)len, n->kids[i]->pos, depth + 1);

		if (v == NULL) {
			json_decref(arr);
			return NULL;
		}
		json_array_append_new(arr, v);
	}
	return arr;
}

/* ---- pass 3: interpolations ---- */

struct interp {
	struct ytree *t;
	struct mcx_buf path; /* JSON pointer of the string being resolved */
	int depth;
};

static struct mcinit_pos
pos_of(struct ytree *t, const char *pointer)
{
	struct mcinit_pos k = {0, 0, -1}, v = {0, 0, -1};

	mcinit_jpos_lookup(t->ty.out->jp, pointer, &k, &v);
	return v;
}

/* Python's str() of a scalar, for a string with text around `${...}`. */
static bool
py_str(const json_t *j, struct mcx_buf *b)
{
	if (json_is_string(j)) {
		mcx_buf_add(b, json_string_value(j), json_string_length(j));
	} else if (json_is_integer(j)) {
		mcx_buf_printf(b, "%lld", (long long)json_integer_value(j));
	} else if (json_is_real(j)) {
		char tmp[40];
		double v = json_real_value(j);
		int prec;

		/* the shortest text that reads back the same, as repr() */
		for (prec = 1; prec < 17; prec++) {
			snprintf(tmp, sizeof tmp, "%.*g", prec, v);
			if (strtod(tmp, NULL) == v)
				break;
		}
		snprintf(tmp, sizeof tmp, "%.*g", prec, v);
		if (strchr(tmp, 'e') != NULL && fabs(v) >= 1e-4 && fabs(v) < 1e16)
			snprintf(tmp, sizeof tmp, "%.1f", v);
		mcx_buf_adds(b, tmp);
		if (strpbrk(tmp, ".e") == NULL)
			mcx_buf_adds(b, ".0");
	} else if (json_is_boolean(j)) {
		mcx_buf_adds(b, json_is_true(j) ? "True" : "False");
	} else if (json_is_null(j)) {
		mcx_buf_adds(b, "None");
	} else {
		return false;
	}
	return true;
}

/* Walks a dotted reference ("a.b", "a[0].b") from node; NULL if absent. */
static json_t *
walk_ref(json_t *node, const char *ref)
{
	char *copy = mcx_xstrdup(ref), *p = copy;

	while (node != NULL && *p != '\0') {
		size_t n = strcspn(p, ".[");
		char save = p[n];

		p[n] = '\0';
		if (n > 0) {
			if (json_is_object(node))
				node = json_object_get(node, p);
			else if (json_is_array(node) && strspn(p, "0123456789") == n)
				node = json_array_get(node, strtoul(p, NULL, 10));
			else
				node = NULL;
		}
		p[n] = save;
		p += n;
		if (*p == '[') {
			char *close = strchr(p, ']');

			if (close == NULL || !json_is_array(node)) {
				node = NULL;
				break;
			}
			node = json_array_get(node, strtoul(p + 1, NULL, 10));
			p = close + 1;
		}
		if (*p == '.')
			p++;
	}
	free(copy);
	return node;
}

/* The container `dots` levels above the string at pointer (1 = the
 * mapping holding it). */
static json_t *
ancestor(json_t *root, const char *pointer, int dots)
{
	char *copy = mcx_xstrdup(pointer);
	json_t *node;

	for (int d = 0; d < dots; d++) {
		char *slash = strrchr(copy, '/');

		if (slash == NULL) {
			free(copy);
			return NULL;
		}
		*slash = '\0';
	}
	node = root;
	for (char *p = copy; node != NULL && *p == '/';) {
		char *next = strchr(p + 1, '/'), *tok;
		struct mcx_buf b = {0};

		for (tok = p + 1; *tok && tok != next; tok++) {
			if (*tok == '~' && (tok[1] == '0' || tok[1] == '1'))
				mcx_buf_addc(&b, *++tok == '0' ? '~' : '/');
			else
				mcx_buf_addc(&b, *tok);
		}
		if (json_is_object(node))
			node = json_object_get(node, mcx_buf_cstr(&b));
		else if (json_is_array(node))
			node = json_array_get(node, strtoul(mcx_buf_cstr(&b), NULL, 10));
		else
			node = NULL;
		mcx_buf_free(&b);
		p = next ? next : tok;
	}
	free(copy);
	return node;
}

enum ires { I_OK, I_UNEVALUATED, I_MISSING, I_FAIL };

static enum ires resolve_string(struct interp *ip, const char *s, json_t **out, char **why);

/* The value of `${ref}` (ref without the braces). */
static enum ires
lookup_ref(struct interp *ip, const char *ref, json_t **out, char **why)
{
	int dots = (int)strspn(ref, ".");
	json_t *base = dots ? ancestor(ip->t->ty.out->root, mcx_buf_cstr(&ip->path), dots)
	                    : ip->t->ty.out->root;
	json_t *hit = base ? walk_ref(base, ref + dots) : NULL;
	const char *what = NULL;

	if (hit != NULL && json_is_string(hit) && strstr(json_string_value(hit), "${") != NULL) {
		if (++ip->depth > MAX_INTERP_DEPTH) {
			*why = mcx_xasprintf("interpolations refer to each other in a cycle");
			return I_FAIL;
		}
		enum ires r = resolve_string(ip, json_string_value(hit), out, why);

		ip->depth--;
		return r;
	}
	if (hit != NULL) {
		*out = json_deep_copy(hit);
		return I_OK;
	}
	if (dots == 0 && ip->t->lookup != NULL &&
	    (*out = ip->t->lookup(ip->t->ctx, ref, &what)) != NULL) {
		struct mcx_buf b = {0};

		py_str(*out, &b);
		mcinit_ynote(
		    &ip->t->ty, MCINIT_NOTE, "MC009", pos_of(ip->t, mcx_buf_cstr(&ip->path)), NULL,
		    "`${%s}`: this file does not set %s; resolved to %s (%s), as OmegaConf "
		    "resolves it against the config the file is merged onto",
		    ref, ref,
		    json_is_object(*out) || json_is_array(*out) ? "a container" : mcx_buf_cstr(&b),
		    what ? what : "mcinit's value");
		mcx_buf_free(&b);
		return I_OK;
	}
	*why = mcx_xasprintf("`${%s}`: no key %s in this file or the config (OmegaConf "
	                     "stops with InterpolationKeyError)",
	                     ref, ref);
	return I_MISSING;
}

/* Finds the `}` closing the `${` at s; NULL when unbalanced. */
static const char *
close_of(const char *s)
{
	int depth = 0;

	for (const char *p = s; *p; p++) {
		if (p[0] == '$' && p[1] == '{') {
			depth++;
			p++;
		} else if (*p == '}' && --depth == 0) {
			return p;
		}
	}
	return NULL;
}

static bool
plain_ref(const char *r, size_t n)
{
	size_t i = strspn(r, ".");

	if (i == n)
		return false;
	for (; i < n; i++)
		if (!(r[i] == '_' || r[i] == '-' || r[i] == '.' || r[i] == '[' || r[i] == ']' ||
		      (r[i] >= '0' && r[i] <= '9') || (r[i] >= 'a' && r[i] <= 'z') ||
		      (r[i] >= 'A' && r[i] <= 'Z')))
			return false;
	return true;
}

static enum ires
resolve_string(struct interp *ip, const char *s, json_t **out, char **why)
{
	struct mcx_buf b = {0};
	const char *p = s;
	enum ires r = I_OK;
	size_t pieces = 0;
	json_t *whole = NULL;

	while (*p && r == I_OK) {
		const char *end;
		char *ref;
		json_t *v = NULL;

		if (p[0] == '\\' && p[1] == '$' && p[2] == '{') { /* \${ is literal */
			mcx_buf_adds(&b, "${");
			p += 3;
			pieces += 2;
			continue;
		}
		if (!(p[0] == '$' && p[1] == '{')) {
			mcx_buf_addc(&b, *p++);
			pieces += 2;
			continue;
		}
		end = close_of(p);
		if (end == NULL || !plain_ref(p + 2, (size_t)(end - p - 2))) {
			*why = mcx_xasprintf("`%s`: %s", s,
			                     end == NULL ? "unbalanced ${"
			                                 : "an OmegaConf resolver or nested "
			                                   "interpolation, evaluated when Bridge "
			                                   "runs");
			r = I_UNEVALUATED;
			break;
		}
		ref = mcx_xasprintf("%.*s", (int)(end - p - 2), p + 2);
		r = lookup_ref(ip, ref, &v, why);
		free(ref);
		p = end + 1;
		if (r != I_OK)
			break;
		pieces++;
		if (pieces == 1 && *p == '\0') {
			whole = v;
			break;
		}
		if (!py_str(v, &b)) {
			*why = mcx_xasprintf("`%s`: a mapping or list inside a string", s);
			r = I_UNEVALUATED;
		}
		json_decref(v);
	}
	if (r == I_OK)
		*out = whole ? whole : json_stringn(b.data ? b.data : "", b.len);
	mcx_buf_free(&b);
	return r;
}

static void resolve_tree(struct interp *ip, json_t *node);

static void
resolve_member(struct interp *ip, json_t *parent, const char *key, size_t index, json_t *v)
{
	size_t plen = ip->path.len;
	char idx[24];

	if (json_is_object(parent)) {
		mcinit_jpos_append_token(&ip->path, key);
	} else {
		snprintf(idx, sizeof idx, "%zu", index);
		mcinit_jpos_append_token(&ip->path, idx);
	}
	if (json_is_string(v) && strstr(json_string_value(v), "${") != NULL) {
		json_t *res = NULL;
		char *why = NULL;
		struct mcinit_pos p = pos_of(ip->t, mcx_buf_cstr(&ip->path));
		enum ires r = resolve_string(ip, json_string_value(v), &res, &why);

		if (r == I_OK && json_is_object(parent))
			json_object_set_new(parent, key, res);
		else if (r == I_OK)
			json_array_set_new(parent, index, res);
		else if (r == I_UNEVALUATED)
			mcinit_ynote(&ip->t->ty, MCINIT_NOTE, "MC009", p, NULL, "%s; not checked",
			             why);
		else
			mcinit_ynote(&ip->t->ty, MCINIT_ERROR, "MC003", p, NULL, "%s", why);
		/* an unknown value is not checked against the literal text */
		if (r != I_OK && json_is_object(parent))
			json_object_del(parent, key);
		free(why);
	} else {
		resolve_tree(ip, v);
	}
	ip->path.len = plen;
}

static void
resolve_tree(struct interp *ip, json_t *node)
{
	const char *k;
	json_t *v;
	void *tmp;

	if (json_is_object(node)) {
		json_object_foreach_safe(node, tmp, k, v) resolve_member(ip, node, k, 0, v);
	} else if (json_is_array(node)) {
		for (size_t i = 0; i < json_array_size(node); i++)
			resolve_member(ip, node, NULL, i, json_array_get(node, i));
	}
}

/* ---- entry points ---- */

static void
free_tree(struct ytree *t)
{
	for (size_t i = 0; i < t->nall; i++) {
		json_decref(t->all[i]->val);
		free(t->all[i]->text);
		free(t->all[i]->kids);
		free(t->all[i]);
	}
	free(t->all);
	for (size_t i = 0; i < t->nanchors; i++)
		free(t->anchors[i].name);
	free(t->anchors);
	free(t->anchor_ix.slot);
}

int
mcinit_yaml_parse(const char *text, size_t len, mcinit_yaml_lookup lookup, void *ctx,
                  struct mcinit_yaml *out, struct mcinit_err *err)
{
	return mcinit_yaml_parse_as(text, len, false, lookup, ctx, out, err);
}

int
mcinit_yaml_parse_as(const char *text, size_t len, bool pyyaml, mcinit_yaml_lookup lookup,
                     void *ctx, struct mcinit_yaml *out, struct mcinit_err *err)
{
	struct ytree t = {0};
	struct ynode *root = NULL;
	struct mcinit_pos top = {1, 1, 0};
	int rc = -1;

	memset(out, 0, sizeof *out);
	t.ty.pyyaml = pyyaml;
	t.ty.out = out;
	t.err = err;
	t.lookup = lookup;
	t.ctx = ctx;
	out->jp = mcinit_jpos_builder_new();
	if (build_graph(&t, text ? text : "", text ? len : 0, &root) < 0)
		goto out;
	if (root == NULL || (root->kind == Y_SCALAR && json_is_null(root->val))) {
		/* no document, only comments, or an empty one: OmegaConf gives {} */
		mcinit_jpos_add(out->jp, MCINIT_JPOS_ROOT, NULL, 0, top, top);
		out->root = json_object();
	} else {
		out->root = emit(&t, root, MCINIT_JPOS_ROOT, NULL, 0, root->pos, 0);
		if (out->root == NULL)
			goto out;
	}
	mcinit_jpos_seal(out->jp);
	{
		struct interp ip = {&t, {0}, 0};

		resolve_tree(&ip, out->root);
		mcx_buf_free(&ip.path);
	}
	rc = 0;
out:
	free_tree(&t);
	if (rc < 0)
		mcinit_yaml_destroy(out);
	return rc;
}

int
mcinit_yaml_interpolate(const char *s, mcinit_yaml_lookup lookup, void *ctx, json_t **out,
                        char **why)
{
	struct mcinit_yaml y = {0};
	struct ytree t = {0};
	struct interp ip = {&t, {0}, 0};
	enum ires r;

	t.ty.out = &y;
	t.lookup = lookup;
	t.ctx = ctx;
	y.root = json_object(); /* no file: every reference goes to lookup */
	*out = NULL;
	*why = NULL;
	r = resolve_string(&ip, s, out, why);
	mcx_buf_free(&ip.path);
	mcinit_yaml_destroy(&y); /* its notes speak of a file */
	return r == I_OK ? 1 : r == I_UNEVALUATED ? 0 : -1;
}

void
mcinit_yaml_destroy(struct mcinit_yaml *y)
{
	if (y == NULL)
		return;
	json_decref(y->root);
	mcinit_jpos_free(y->jp);
	for (size_t i = 0; i < y->nnotes; i++) {
		free(y->notes[i].msg);
		free(y->notes[i].hint);
	}
	free(y->notes);
	memset(y, 0, sizeof *y);
}
