/* diag.c — see diag.h. */
#include "core/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/util.h"

static const char *const sev_names[] = {"note", "warning", "error"};
static const char *const sev_colors[] = {"\033[1;36m", "\033[1;35m", "\033[1;31m"};

void
mcinit_diags_init(struct mcinit_diags *d)
{
	memset(d, 0, sizeof *d);
}

void
mcinit_diags_destroy(struct mcinit_diags *d)
{
	size_t i, k;

	for (i = 0; i < d->n; i++) {
		struct mcinit_diag *g = &d->v[i];

		free(g->message);
		free(g->hint);
		free((char *)g->loc.source);
		for (k = 0; k < g->nkeys; k++)
			free(g->keys[k]);
		free(g->keys);
	}
	free(d->v);
	memset(d, 0, sizeof *d);
}

struct mcinit_diag *
mcinit_diag_add(struct mcinit_diags *d, enum mcinit_severity sev, const char *code,
                const struct mcinit_loc *loc, const char *fmt, ...)
{
	struct mcinit_diag *g;
	va_list ap;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 16;
		d->v = mcx_xrealloc(d->v, d->cap * sizeof *d->v);
	}
	g = &d->v[d->n];
	memset(g, 0, sizeof *g);
	g->sev = sev;
	snprintf(g->code, sizeof g->code, "%s", code);
	va_start(ap, fmt);
	if (vasprintf(&g->message, fmt, ap) < 0)
		g->message = mcx_xstrdup(fmt);
	va_end(ap);
	if (loc != NULL) {
		g->loc = *loc;
		if (loc->source != NULL)
			g->loc.source = mcx_xstrdup(loc->source);
	}
	g->seq = d->n++;
	return g;
}

void
mcinit_diag_hint(struct mcinit_diag *g, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	free(g->hint);
	g->hint = s;
}

void
mcinit_diag_key(struct mcinit_diag *g, const char *key)
{
	size_t k;

	for (k = 0; k < g->nkeys; k++)
		if (strcmp(g->keys[k], key) == 0)
			return;
	g->keys = mcx_xrealloc(g->keys, (g->nkeys + 1) * sizeof *g->keys);
	g->keys[g->nkeys++] = mcx_xstrdup(key);
}

int
mcinit_loc_is_argv(const struct mcinit_loc *l)
{
	return l->source != NULL &&
	       (strcmp(l->source, "argv") == 0 || strcmp(l->source, "override") == 0);
}

size_t
mcinit_diags_count(const struct mcinit_diags *d, enum mcinit_severity sev)
{
	size_t i, n = 0;

	for (i = 0; i < d->n; i++)
		n += d->v[i].sev == sev;
	return n;
}

int
mcinit_diags_has(const struct mcinit_diags *d, const char *code)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		if (strcmp(d->v[i].code, code) == 0)
			return 1;
	return 0;
}

/* Located diagnostics first (in the order the user gave the sources), then
 * those with no location (defaults, derived facts). */
static int
cmp_diag(const void *pa, const void *pb)
{
	const struct mcinit_diag *a = pa, *b = pb;
	int ha = a->loc.source != NULL, hb = b->loc.source != NULL;

	if (ha != hb)
		return hb - ha;
	if (a->loc.order != b->loc.order)
		return a->loc.order < b->loc.order ? -1 : 1;
	if (a->loc.line != b->loc.line)
		return a->loc.line < b->loc.line ? -1 : 1;
	if (a->loc.col != b->loc.col)
		return a->loc.col < b->loc.col ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

void
mcinit_diags_sort(struct mcinit_diags *d)
{
	if (d->n > 1)
		qsort(d->v, d->n, sizeof *d->v, cmp_diag);
}

void
mcx_fputs_text(const char *s, FILE *out)
{
	const unsigned char *p = (const unsigned char *)s, *run = p, *end = p + strlen(s);

	while (p < end) {
		size_t n = 1;

		if (*p >= 0x20 && *p < 0x7f) { /* the common case: a run of ASCII */
			p++;
			continue;
		}
		if (*p >= 0x80) {
			n = mcx_utf8_len(p, (size_t)(end - p));
			if (n > 0 && !(p[0] == 0xC2 && p[1] < 0xA0)) {
				p += n;
				continue;
			}
		}
		fwrite(run, 1, (size_t)(p - run), out);
		if (*p == '\n')
			fputs("\\n", out);
		else if (*p == '\t')
			fputs("\\t", out);
		else if (*p == '\r')
			fputs("\\r", out);
		else if (*p == 0x1b)
			fputs("\\e", out);
		else if (n == 2) /* a C1 control */
			fprintf(out, "\\u%04x", p[1]);
		else {
			fprintf(out, "\\x%02X", *p);
			n = 1;
		}
		p += n;
		run = p;
	}
	fwrite(run, 1, (size_t)(p - run), out);
}

static void
print_loc(const struct mcinit_loc *l, FILE *out)
{
	if (l->source == NULL) {
		fputs("mcinit: ", out);
		return;
	}
	mcx_fputs_text(l->source, out);
	if (l->line > 0)
		fprintf(out, ":%d", l->line);
	if (l->line > 0 && l->col > 0)
		fprintf(out, ":%d", l->col);
	fputs(": ", out);
}

void
mcinit_diags_print(const struct mcinit_diags *d, FILE *out, int color)
{
	size_t i;

	for (i = 0; i < d->n; i++) {
		const struct mcinit_diag *g = &d->v[i];

		if (color)
			fputs("\033[1m", out);
		print_loc(&g->loc, out);
		if (color)
			fprintf(out, "%s%s[%s]:\033[0m ", sev_colors[g->sev], sev_names[g->sev],
			        g->code);
		else
			fprintf(out, "%s[%s]: ", sev_names[g->sev], g->code);
		mcx_fputs_text(g->message, out);
		fputc('\n', out);
		if (g->hint != NULL) {
			fprintf(out, "    %shint:%s ", color ? "\033[1;32m" : "",
			        color ? "\033[0m" : "");
			mcx_fputs_text(g->hint, out);
			fputc('\n', out);
		}
	}
}

/* A JSON string of user-provided text, whatever its bytes. */
static json_t *
text_json(const char *s)
{
	json_t *j;
	char *clean;

	if (s == NULL)
		return json_null();
	j = json_string(s);
	if (j != NULL)
		return j;
	clean = mcx_utf8_sanitize(s);
	j = json_string(clean);
	free(clean);
	return j;
}

json_t *
mcinit_diags_to_json(const struct mcinit_diags *d)
{
	json_t *arr = json_array();
	size_t i, k;

	for (i = 0; i < d->n; i++) {
		const struct mcinit_diag *g = &d->v[i];
		json_t *o = json_object(), *keys = json_array();

		json_object_set_new(o, "severity", json_string(sev_names[g->sev]));
		json_object_set_new(o, "code", json_string(g->code));
		json_object_set_new(o, "message", text_json(g->message));
		json_object_set_new(o, "hint", text_json(g->hint));
		json_object_set_new(o, "source", text_json(g->loc.source));
		/* A command-line word has an index, not a line. */
		int argv = mcinit_loc_is_argv(&g->loc);

		json_object_set_new(o, "line",
		                    !argv && g->loc.line ? json_integer(g->loc.line) : json_null());
		json_object_set_new(o, "column",
		                    !argv && g->loc.col ? json_integer(g->loc.col) : json_null());
		json_object_set_new(o, "argv_index",
		                    argv ? json_integer(g->loc.line) : json_null());
		for (k = 0; k < g->nkeys; k++)
			json_array_append_new(keys, text_json(g->keys[k]));
		json_object_set_new(o, "keys", keys);
		json_array_append_new(arr, o);
	}
	return arr;
}

bool
mcx_want_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR");

	return isatty(fileno(f)) && (nc == NULL || *nc == '\0');
}
