/* api.c — the public API's small parts: error records, codes, the version
 * and the diagnostics list as seen from outside.  See include/mcinit.h. */
#include "build.h" /* PACKAGE_VERSION */

#include <stdlib.h>
#include <string.h>

#include "mcinit.h"

#include "core/diag.h"
#include "core/util.h"

const char *
mcinit_version(void)
{
	return PACKAGE_VERSION;
}

const char *
mcinit_code_name(enum mcinit_code code)
{
	static const char *const names[MCINIT_E_COUNT] = {
	    [MCINIT_OK] = "ok",
	    [MCINIT_E_INVALID] = "invalid",
	    [MCINIT_E_USAGE] = "usage",
	    [MCINIT_E_PARSE] = "parse",
	    [MCINIT_E_NOINPUT] = "noinput",
	    [MCINIT_E_UNAVAILABLE] = "unavailable",
	    [MCINIT_E_INTERNAL] = "internal",
	    [MCINIT_E_OS] = "os",
	    [MCINIT_E_IO] = "io",
	    [MCINIT_E_NOMEM] = "nomem",
	    [MCINIT_E_TIMEOUT] = "timeout",
	};

	return (unsigned)code < MCINIT_E_COUNT ? names[code] : "unknown";
}

void
mcinit_err_export(const struct mcinit_err *in, mcinit_error_t *out)
{
	if (out == NULL)
		return;
	memset(out, 0, sizeof *out);
	out->code = in->code ? in->code : MCINIT_E_INTERNAL;
	out->argv_index = in->argi;
	out->line = in->line;
	out->column = in->col;
	snprintf(out->source, sizeof out->source, "%s", in->source);
	snprintf(out->text, sizeof out->text, "%s",
	         in->text_off < sizeof in->msg ? in->msg + in->text_off : in->msg);
}

/* ---- diagnostics ---- */

struct mcinit_diags *
mcinit_diags_new(void)
{
	struct mcinit_diags *d = mcx_xmalloc(sizeof *d);

	mcinit_diags_init(d);
	return d;
}

void
mcinit_diags_free(struct mcinit_diags *d)
{
	if (d == NULL)
		return;
	mcinit_diags_destroy(d);
	free(d);
}

size_t
mcinit_diags_length(const struct mcinit_diags *d)
{
	return d->n;
}

int
mcinit_diags_get(const struct mcinit_diags *d, size_t i, struct mcinit_diagnostic *out)
{
	const struct mcinit_diag *g;
	struct mcinit_diagnostic v = {0}, *out_ = out;

	if (i >= d->n)
		return -1;
	g = &d->v[i];
	out = &v;
	out->severity = g->sev;
	out->code = g->code;
	out->message = g->message;
	out->hint = g->hint;
	out->source = g->loc.source;
	out->argv_index = -1;
	if (mcinit_loc_is_argv(&g->loc))
		out->argv_index = g->loc.line;
	else {
		out->line = g->loc.line;
		out->column = g->loc.col;
	}
	out->nkeys = g->nkeys;
	out->keys = (const char *const *)g->keys;
	return mcinit_out_copy(out_, &v, sizeof v, MCINIT_OUT_END(struct mcinit_diagnostic, keys));
}

char *
mcinit_diags_json(const struct mcinit_diags *d)
{
	json_t *j = mcinit_diags_to_json(d);
	char *s =
	    j ? json_dumps(j, JSON_INDENT(2) | JSON_PRESERVE_ORDER | MCINIT_JSON_REALS) : NULL;

	json_decref(j);
	return s;
}
