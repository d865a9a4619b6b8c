/*
 * rules-kit.c — what every rule file uses to say a finding and to suggest a
 * fix: the current rule's findings (at a field, at a place, with another
 * severity, or as Megatron-LM's validate_args alone has them), the nearest
 * valid values and divisors for a hint, and an environment variable as the
 * job will see it.  Declared in rules-table.h.
 */
#include "rules/rules-table.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- findings ---- */

/* The current rule's finding, with the rule's severity. */
struct mcinit_diag *
mcinit_rule_report(struct mcinit_rule_ctx *x, enum mcinit_field at, const char *fmt, ...)
{
	struct mcinit_diag *g;
	va_list ap;

	va_start(ap, fmt);
	g = mcinit_rules_vreport(x, x->rule->sev, x->rule->code, at, fmt, ap);
	va_end(ap);
	return g;
}

/* The current rule's finding with another severity (a rule that is a
 * warning in one case and an error in another). */
struct mcinit_diag *
mcinit_rule_report_sev(struct mcinit_rule_ctx *x, enum mcinit_severity sev, enum mcinit_field at,
                       const char *fmt, ...)
{
	struct mcinit_diag *g;
	va_list ap;

	va_start(ap, fmt);
	g = mcinit_rules_vreport(x, sev, x->rule->code, at, fmt, ap);
	va_end(ap);
	return g;
}

/* A finding of a check that only Megatron-LM's validate_args makes (its
 * rows in the ledger are all megatron/training/arguments.py): an error for
 * Megatron-LM's flags; for a Megatron-Bridge ConfigContainer a warning that
 * says so, since Bridge's own validation accepts it (judged by Bridge 0.6.2
 * on its recipes: tests/bridge/0.6.2/mutations.tsv, lm_* rows). */
struct mcinit_diag *
mcinit_rule_report_lm(struct mcinit_rule_ctx *x, enum mcinit_field at, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	if (!x->c->bridge)
		return mcinit_rule_report(x, at, "%s", msg);
	return mcinit_rule_report_sev(
	    x, MCINIT_WARNING, at,
	    "%s (Megatron-LM's validate_args refuses this; Megatron-Bridge does "
	    "not check it)",
	    msg);
}

/* A finding at an explicit place (NULL: none) rather than at a field. */
struct mcinit_diag *
mcinit_rule_report_loc(struct mcinit_rule_ctx *x, const struct mcinit_loc *loc, const char *fmt,
                       ...)
{
	struct mcinit_diag *g;
	va_list ap;

	va_start(ap, fmt);
	g = mcinit_rules_vemit(x, x->rule->sev, x->rule->code, loc && loc->source ? loc : NULL,
	                       NULL, "", fmt, ap);
	va_end(ap);
	return g;
}

/* The field the user most plausibly has to edit: the first of `cands` that
 * was written somewhere, else the first. */
enum mcinit_field
mcinit_rule_written_in(struct mcinit_rule_ctx *x, const enum mcinit_field *cands, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (user_wrote(x->c, cands[i]))
			return cands[i];
	return cands[0];
}

/*
 * The valid values next to `near` among v = k*step - off (k >= 1): "96 or
 * 112", or just the upper one when the lower is not positive.  `near` itself
 * must not be valid.
 */
const char *
mcinit_rule_near_values(struct mcx_buf *b, long long near, long long step, long long off)
{
	long long base = near + off, lo = base / step * step - off, hi = lo + step;

	b->len = 0;
	if (lo > 0)
		mcx_buf_printf(b, "%lld or %lld", lo, hi);
	else
		mcx_buf_printf(b, "%lld", hi);
	return mcx_buf_cstr(b);
}

/* The divisors of n next to `near` (excluding near) that also divide `fit`
 * when fit > 0: "4 or 8". */
const char *
mcinit_rule_near_divisors_fit(struct mcx_buf *b, long long n, long long near, long long fit)
{
	long long lo = 0, hi = 0, k;

	b->len = 0;
	for (k = near - 1; k >= 1; k--)
		if (n % k == 0 && (fit <= 0 || fit % k == 0)) {
			lo = k;
			break;
		}
	for (k = near + 1; k <= n; k++)
		if (n % k == 0 && (fit <= 0 || fit % k == 0)) {
			hi = k;
			break;
		}
	if (lo > 0 && hi > 0)
		mcx_buf_printf(b, "%lld or %lld", lo, hi);
	else
		mcx_buf_printf(b, "%lld", lo > 0 ? lo : hi > 0 ? hi : 1);
	return mcx_buf_cstr(b);
}

const char *
mcinit_rule_near_divisors(struct mcx_buf *b, long long n, long long near)
{
	return mcinit_rule_near_divisors_fit(b, n, near, 0);
}

/* ---- environment ---- */

/*
 * An environment variable as the job will see it: the process environment
 * wins over env_vars (which `run` applies with setdefault semantics, as
 * Megatron-Bridge does).  env_vars values are turned into text the way
 * Python's str() does.  *from_config tells where it came from.
 */
bool
mcinit_rule_job_env(const struct mcinit_rule_ctx *x, const char *name, char *buf, size_t len,
                    bool *from_config)
{
	const char *s;
	json_t *j;

	*from_config = false;
	/* the launch script's export / unset: what the job really gets */
	if (mcinit_config_job_env(x->c, name, &s, NULL)) {
		if (s == NULL)
			return false;
		snprintf(buf, len, "%s", s);
		return true;
	}
	s = mcinit_rules_env_get(x->o, name);
	if (s != NULL) {
		snprintf(buf, len, "%s", s);
		return true;
	}
	j = json_object_get(x->c->env_vars, name);
	if (j == NULL)
		return false;
	*from_config = true;
	if (json_is_string(j))
		snprintf(buf, len, "%s", json_string_value(j));
	else if (json_is_integer(j))
		snprintf(buf, len, "%lld", (long long)json_integer_value(j));
	else if (json_is_real(j) && json_real_value(j) == (double)(long long)json_real_value(j))
		snprintf(buf, len, "%.1f", json_real_value(j));
	else if (json_is_real(j))
		snprintf(buf, len, "%.17g", json_real_value(j));
	else if (json_is_boolean(j))
		snprintf(buf, len, "%s", json_is_true(j) ? "True" : "False");
	else
		snprintf(buf, len, "None");
	return true;
}
