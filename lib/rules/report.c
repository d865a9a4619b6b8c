/*
 * report.c — how the checks of this module report: a finding at a field
 * (located where the user wrote it, or saying it is a default), at an
 * explicit place, or as a note of a repair or derived value; and the
 * environment as the job will see it.  Under rules.c, derive.c, repairs.c
 * and rules-mcheck.c, which all report through it.
 */
#include "rules/rules-impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/pyexpr.h"

struct mcinit_diag *
mcinit_rules_vemit(struct mcinit_rule_ctx *x, enum mcinit_severity sev, const char *code,
                   const struct mcinit_loc *loc, const char *key, const char *suffix,
                   const char *fmt, va_list ap)
{
	struct mcinit_diag *g;
	char *msg = NULL, k[128];
	const enum mcinit_field *r;

	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	g = mcinit_diag_add(x->d, sev, code, loc, "%s%s", msg ? msg : fmt, suffix);
	if (key != NULL)
		mcinit_diag_key(g, key);
	for (r = x->rule ? x->rule->reads : NULL; r && *r != MCINIT_F_COUNT; r++)
		mcinit_diag_key(g, mcinit_field_key(*r, k, sizeof k));
	free(msg);
	return g;
}

/*
 * A finding about field `at`, located where the user wrote it.  A value that
 * came from a default (or that mcinit derived) has no place to point at: the
 * message says so instead.
 */
struct mcinit_diag *
mcinit_rules_vreport(struct mcinit_rule_ctx *x, enum mcinit_severity sev, const char *code,
                     enum mcinit_field at, const char *fmt, va_list ap)
{
	const struct mcinit_loc *loc = &x->c->loc[at];
	char key[128], suffix[192] = "";

	mcinit_field_key(at, key, sizeof key);
	if (x->c->origin[at] == MCINIT_ORIG_DEFAULT) {
		snprintf(suffix, sizeof suffix, " (%s is the default)", key);
		loc = NULL;
	} else if (loc->source == NULL) {
		snprintf(suffix, sizeof suffix, " (%s was derived by mcinit)", key);
		loc = NULL;
	}
	return mcinit_rules_vemit(x, sev, code, loc, key, suffix, fmt, ap);
}

struct mcinit_diag *
mcinit_rules_note(struct mcinit_rule_ctx *x, const char *code, enum mcinit_severity sev,
                  enum mcinit_field at, const char *fmt, ...)
{
	struct mcinit_diag *g;
	va_list ap;

	va_start(ap, fmt);
	g = mcinit_rules_vreport(x, sev, code, at, fmt, ap);
	va_end(ap);
	return g;
}

const struct mcinit_loc mcinit_rules_env_loc = {"env", 0, 0, 1 << 30};

struct mcinit_pv
mcinit_rules_pv_keep(struct mcinit_pyexpr *outer, struct mcinit_pv v)
{
	struct mcinit_pv *items;
	size_t i;

	if (v.kind == MCINIT_PV_STR)
		v.s = mcinit_pyexpr_strdup(outer, v.s);
	if (v.kind != MCINIT_PV_LIST)
		return v;
	items = mcinit_pyexpr_alloc_list(outer, v.n);
	for (i = 0; i < v.n; i++) {
		items[i] = v.items[i];
		if (items[i].kind == MCINIT_PV_STR)
			items[i].s = mcinit_pyexpr_strdup(outer, items[i].s);
		else if (items[i].kind == MCINIT_PV_LIST)
			items[i] = (struct mcinit_pv){.kind = MCINIT_PV_ERR};
	}
	v.items = items;
	return v;
}

struct mcinit_pv
mcinit_rules_pv_of(struct mcinit_pyexpr *e, const struct mcinit_value *v,
                   struct mcinit_pv (*json)(struct mcinit_pyexpr *, json_t *))
{
	struct mcinit_pv *l;
	size_t i;

	switch (v->kind) {
	case MCINIT_V_BOOL:
		return (struct mcinit_pv){.kind = MCINIT_PV_BOOL, .i = v->i};
	case MCINIT_V_INT:
		return (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = v->i};
	case MCINIT_V_FLOAT:
		return (struct mcinit_pv){.kind = MCINIT_PV_FLOAT, .f = v->d};
	case MCINIT_V_STR:
		return (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = v->s};
	case MCINIT_V_JSON:
		return json(e, v->j);
	case MCINIT_V_LIST:
		l = mcinit_pyexpr_alloc_list(e, v->n);
		for (i = 0; i < v->n; i++)
			l[i] = mcinit_rules_pv_of(e, &v->items[i], json);
		return (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = l, .n = v->n};
	default:
		return (struct mcinit_pv){.kind = MCINIT_PV_NONE};
	}
}
