/* settings.c — mcinit.toml and pyproject.toml's [tool.mcinit] (settings.h).
 *
 * A subset of TOML, read in one pass over the text: a key = value pair per
 * line, table headers, comments, and as values integers, booleans, the four
 * kinds of strings and arrays of strings.  Outside mcinit's table the
 * values are only skipped (strings, arrays and inline tables over several
 * lines included), so a pyproject.toml of any shape is read without being
 * understood.  Errors carry file:line:col. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "core/settings.h"

/* The scanner's state over one file. */
struct scan {
	const char *name, *p, *end, *bol; /* bol: the current line's start */
	int line;
	struct mcinit_err *err;
};

static int
col(const struct scan *s, const char *at)
{
	return (int)(at - s->bol) + 1;
}

static int
fail(struct scan *s, const char *at, const char *what)
{
	return mcinit_err_at(s->err, MCINIT_E_PARSE, s->name, s->line, col(s, at), "%s", what);
}

static void
blank(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t'))
		s->p++;
}

/* Blanks and a comment, up to the end of the line (not past it). */
static void
rest(struct scan *s)
{
	blank(s);
	if (s->p < s->end && *s->p == '#')
		while (s->p < s->end && *s->p != '\n')
			s->p++;
}

static void
newline(struct scan *s)
{
	s->p++;
	s->line++;
	s->bol = s->p;
}

/* A string at s->p (its quote), into *out (NULL: skipped).  Basic strings
 * take the escapes \\ \" \n \t \r and \b \f; multi-line ones may span lines. */
static int
string(struct scan *s, char **out)
{
	char q = *s->p;
	bool multi = s->end - s->p >= 3 && s->p[1] == q && s->p[2] == q;
	const char *start = s->p;
	size_t cap = 16, n = 0;
	char *b = out ? mcx_xmalloc(cap) : NULL;

	s->p += multi ? 3 : 1;
	if (multi && s->p < s->end && *s->p == '\n')
		newline(s); /* a newline right after the quotes is not part of it */
	for (;;) {
		char c;

		if (s->p >= s->end || (!multi && *s->p == '\n')) {
			free(b);
			return fail(s, start, "unterminated string");
		}
		c = *s->p;
		if (c == q && (!multi || (s->end - s->p >= 3 && s->p[1] == q && s->p[2] == q))) {
			s->p += multi ? 3 : 1;
			break;
		}
		if (c == '\n') {
			newline(s);
		} else if (c == '\\' && q == '"') {
			if (s->p + 1 >= s->end) {
				free(b);
				return fail(s, s->p, "unterminated string");
			}
			switch (s->p[1]) {
			case '\\':
				c = '\\';
				break;
			case '"':
				c = '"';
				break;
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			default:
				if (out) {
					free(b);
					return fail(s, s->p,
					            "an escape mcinit does not read (\\\\ \\\" \\n "
					            "\\t \\r \\b \\f)");
				}
				c = s->p[1]; /* skipped anyway: any escape is one character here */
				if (c == '\n') {
					/* a line-ending backslash in a multi-line string */
					s->p++;
					newline(s);
					continue;
				}
			}
			s->p += 2;
		} else {
			s->p++;
		}
		if (b) {
			if (c == '\0') {
				free(b);
				return fail(s, s->p - 1, "a NUL byte in a string");
			}
			if (n + 2 > cap)
				b = mcx_xrealloc(b, cap *= 2);
			b[n++] = c;
		}
	}
	if (b) {
		b[n] = '\0';
		*out = b;
	}
	return 0;
}

/* Skips a value of another table: anything up to the end of the line at
 * bracket depth 0, strings and nested brackets included. */
static int
skip_value(struct scan *s)
{
	int depth = 0;
	const char *open = s->p;

	while (s->p < s->end) {
		char c = *s->p;

		if (c == '"' || c == '\'') {
			if (string(s, NULL) < 0)
				return -1;
			continue;
		}
		if (c == '#') {
			rest(s);
			continue;
		}
		if (c == '\n') {
			if (depth == 0)
				return 0;
			newline(s);
			continue;
		}
		if (c == '[' || c == '{') {
			if (++depth > MCINIT_SETTINGS_NEST)
				return fail(s, s->p, "brackets nested too deeply");
			open = s->p;
		} else if (c == ']' || c == '}') {
			if (--depth < 0)
				return fail(s, s->p, "a closing bracket that nothing opened");
		}
		s->p++;
	}
	return depth == 0 ? 0 : fail(s, open, "a bracket not closed by the end of the file");
}

/* A bare or dotted key ("world-size", "tool.mcinit") into buf; quoted keys
 * are read as their text. */
static int
key(struct scan *s, char *buf, size_t len, char stop)
{
	size_t n = 0;
	const char *start = s->p;

	for (;;) {
		blank(s);
		if (s->p < s->end && (*s->p == '"' || *s->p == '\'')) {
			char *q = NULL;

			if (string(s, &q) < 0)
				return -1;
			for (const char *c = q; *c && n + 1 < len; c++)
				buf[n++] = *c;
			free(q);
		} else {
			const char *k = s->p;

			while (s->p < s->end &&
			       (((*s->p | 32) >= 'a' && (*s->p | 32) <= 'z') ||
			        (*s->p >= '0' && *s->p <= '9') || *s->p == '_' || *s->p == '-'))
				s->p++;
			if (s->p == k)
				return fail(s, s->p, "a key was expected");
			for (; k < s->p && n + 1 < len; k++)
				buf[n++] = *k;
		}
		blank(s);
		if (s->p < s->end && *s->p == '.' && n + 1 < len) {
			buf[n++] = '.';
			s->p++;
			continue;
		}
		break;
	}
	buf[n] = '\0';
	if (s->p >= s->end || *s->p != stop)
		return fail(s, s->p >= s->end ? s->end : s->p,
		            stop == '=' ? "'=' was expected after the key" : "']' was expected");
	(void)start;
	return 0;
}

/* The keys of mcinit's table; '-' and '_' are the same. */
enum skey { K_WORLD, K_NNODES, K_NPROC, K_MVER, K_BVER, K_ENTRY, K_OVERRIDES, K_WERROR, K_N };
static const char *const skeys[K_N] = {
    "world_size",     "nnodes",      "nproc_per_node", "megatron_version",
    "bridge_version", "entry_point", "overrides",      "werror",
};

static int
lookup(const char *k)
{
	char norm[64];
	size_t i;

	for (i = 0; k[i] && i + 1 < sizeof norm; i++)
		norm[i] = k[i] == '-' ? '_' : k[i];
	norm[i] = '\0';
	for (int j = 0; j < K_N; j++)
		if (strcmp(norm, skeys[j]) == 0)
			return j;
	return -1;
}

/* A positive integer (TOML: digits, single underscores between them). */
static int
integer(struct scan *s, long long *out)
{
	const char *start = s->p;
	long long v = 0;
	bool digit = false;

	if (s->p < s->end && *s->p == '+')
		s->p++;
	while (s->p < s->end && ((*s->p >= '0' && *s->p <= '9') || *s->p == '_')) {
		if (*s->p == '_') {
			if (!digit || s->p + 1 >= s->end || s->p[1] < '0' || s->p[1] > '9')
				return fail(s, s->p, "a misplaced '_' in a number");
		} else {
			if (v > (LLONG_MAX - 9) / 10)
				return fail(s, start, "a number too large");
			v = v * 10 + (*s->p - '0');
			digit = true;
		}
		s->p++;
	}
	if (!digit || v <= 0)
		return fail(s, start, "a positive integer was expected");
	*out = v;
	return 0;
}

/* One value of mcinit's table, by its key. */
static int
value(struct scan *s, int k, struct mcinit_settings *st)
{
	const char *at = s->p;

	switch (k) {
	case K_WORLD:
		return integer(s, &st->world_size);
	case K_NNODES:
		return integer(s, &st->nnodes);
	case K_NPROC:
		return integer(s, &st->nproc_per_node);
	case K_MVER:
	case K_BVER:
	case K_ENTRY: {
		char **dst = k == K_MVER   ? &st->megatron_version
		             : k == K_BVER ? &st->bridge_version
		                           : &st->entry_point;

		if (s->p >= s->end || (*s->p != '"' && *s->p != '\''))
			return fail(s, at, "a string was expected");
		return string(s, dst);
	}
	case K_WERROR:
		if (s->end - s->p >= 4 && memcmp(s->p, "true", 4) == 0) {
			st->werror = 1;
			s->p += 4;
		} else if (s->end - s->p >= 5 && memcmp(s->p, "false", 5) == 0) {
			st->werror = 0;
			s->p += 5;
		} else {
			return fail(s, at, "true or false was expected");
		}
		return 0;
	default: /* K_OVERRIDES: an array of strings, over several lines if need be */
		if (s->p >= s->end || *s->p != '[')
			return fail(s, at,
			            "an array of \"section.field=value\" strings was expected");
		s->p++;
		for (;;) {
			char *v = NULL;

			for (;;) {
				rest(s);
				if (s->p < s->end && *s->p == '\n')
					newline(s);
				else
					break;
			}
			if (s->p < s->end && *s->p == ']') {
				s->p++;
				return 0;
			}
			if (s->p >= s->end || (*s->p != '"' && *s->p != '\''))
				return fail(s, s->p >= s->end ? s->end : s->p,
				            "a \"section.field=value\" string was expected");
			at = s->p;
			if (string(s, &v) < 0)
				return -1;
			if (strchr(v, '=') == NULL) {
				free(v);
				return fail(s, at, "an override is \"section.field=value\"");
			}
			st->overrides = mcx_xrealloc(st->overrides,
			                             (st->noverrides + 1) * sizeof *st->overrides);
			st->overrides[st->noverrides++] = v;
			for (;;) {
				rest(s);
				if (s->p < s->end && *s->p == '\n')
					newline(s);
				else
					break;
			}
			if (s->p < s->end && *s->p == ',')
				s->p++;
			else if (s->p >= s->end || *s->p != ']')
				return fail(s, s->p >= s->end ? s->end : s->p,
				            "',' or ']' was expected");
		}
	}
}

int
mcinit_settings_parse(const char *name, const char *text, size_t len, const char *table,
                      struct mcinit_settings *st, struct mcinit_err *err)
{
	struct scan s = {name, text, text + len, text, 1, err};
	bool in = table == NULL, found = table == NULL;
	bool seen[K_N] = {false};
	char k[256];

	st->werror = -1;
	if (memchr(text, '\0', len))
		return mcinit_err_at(err, MCINIT_E_PARSE, name, 0, 0,
		                     "a NUL byte: not a TOML file");
	while (s.p < s.end) {
		rest(&s);
		if (s.p >= s.end)
			break;
		if (*s.p == '\n' || *s.p == '\r') {
			if (*s.p == '\r')
				s.p++;
			else
				newline(&s);
			continue;
		}
		if (*s.p == '[') {
			bool array = s.end - s.p >= 2 && s.p[1] == '[';

			s.p += array ? 2 : 1;
			if (key(&s, k, sizeof k, ']') < 0)
				return -1;
			s.p++;
			if (array && (s.p >= s.end || *s.p++ != ']'))
				return fail(&s, s.p - 1, "']]' was expected");
			in = table != NULL && !array && strcmp(k, table) == 0;
			if (in && found)
				return fail(&s, s.bol, "the table appears twice");
			found = found || in;
			if (table == NULL)
				return fail(&s, s.bol,
				            "mcinit.toml has no tables: its keys are at the top");
		} else {
			const char *at = s.p;
			int which;

			if (key(&s, k, sizeof k, '=') < 0)
				return -1;
			s.p++;
			blank(&s);
			if (!in) {
				if (skip_value(&s) < 0)
					return -1;
				continue;
			}
			which = lookup(k);
			if (which < 0) {
				char msg[512];

				snprintf(msg, sizeof msg,
				         "unknown key '%.200s' (mcinit reads world-size, nnodes, "
				         "nproc-per-node, megatron-version, bridge-version, "
				         "entry-point, "
				         "overrides, werror)",
				         k);
				return fail(&s, at, msg);
			}
			if (seen[which])
				return fail(&s, at, "a key given twice");
			seen[which] = true;
			if (value(&s, which, st) < 0)
				return -1;
		}
		rest(&s);
		if (s.p < s.end && *s.p == '\r')
			s.p++;
		if (s.p < s.end && *s.p != '\n')
			return fail(&s, s.p, "the end of the line was expected");
	}
	return found ? 1 : 0;
}

void
mcinit_settings_free(struct mcinit_settings *s)
{
	free(s->file);
	free(s->megatron_version);
	free(s->bridge_version);
	free(s->entry_point);
	for (size_t i = 0; i < s->noverrides; i++)
		free(s->overrides[i]);
	free(s->overrides);
	memset(s, 0, sizeof *s);
	s->werror = -1;
}

/* Reads dir/base as settings (table: pyproject's); 1, 0 (absent, or no
 * such table), -1. */
static int
try_file(const char *dir, const char *base, const char *table, struct mcinit_settings *s,
         struct mcinit_err *err)
{
	char *path = mcx_xasprintf("%s/%s", strcmp(dir, "/") == 0 ? "" : dir, base);
	struct stat sb;
	size_t len;
	char *text;
	int rc;

	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		free(path);
		return 0;
	}
	text = mcinit_read_file(path, &len, err);
	if (text == NULL) {
		free(path);
		return -1;
	}
	rc = mcinit_settings_parse(path, text, len, table, s, err);
	free(text);
	if (rc == 1)
		s->file = path;
	else
		free(path);
	if (rc == 0) { /* a pyproject.toml without the table: nothing of it kept */
		mcinit_settings_free(s);
	}
	return rc;
}

int
mcinit_settings_find(const char *path, struct mcinit_settings *s, struct mcinit_err *err)
{
	char *dir;
	struct stat sb;
	int rc = 0;

	memset(s, 0, sizeof *s);
	s->werror = -1;
	/* the input's directory, absolute: the search climbs real parents */
	if (path && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		dir = realpath(path, NULL);
	} else {
		char *copy = mcx_xstrdup(path && *path ? path : ".");
		char *slash = strrchr(copy, '/');

		if (slash == NULL)
			strcpy(copy, ".");
		else if (slash == copy)
			copy[1] = '\0';
		else
			*slash = '\0';
		dir = realpath(copy, NULL);
		free(copy);
	}
	if (dir == NULL)
		return 0; /* no such directory: the input's own error says so */
	for (int up = 0; up < MCINIT_SETTINGS_UP; up++) {
		char *slash;

		rc = try_file(dir, "mcinit.toml", NULL, s, err);
		if (rc == 0)
			rc = try_file(dir, "pyproject.toml", "tool.mcinit", s, err);
		if (rc != 0 || strcmp(dir, "/") == 0)
			break;
		slash = strrchr(dir, '/');
		if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
	}
	free(dir);
	return rc;
}

/* The public form (mcinit.h): s as a JSON object, unset members null. */
static json_t *
settings_json(const struct mcinit_settings *s)
{
	json_t *o = json_object(), *ov = json_array();

#define NUM(v) ((v) > 0 ? json_integer(v) : json_null())
#define STR(v) ((v) ? json_string(v) : json_null())
	json_object_set_new(o, "file", STR(s->file));
	json_object_set_new(o, "world_size", NUM(s->world_size));
	json_object_set_new(o, "nnodes", NUM(s->nnodes));
	json_object_set_new(o, "nproc_per_node", NUM(s->nproc_per_node));
	json_object_set_new(o, "megatron_version", STR(s->megatron_version));
	json_object_set_new(o, "bridge_version", STR(s->bridge_version));
	json_object_set_new(o, "entry_point", STR(s->entry_point));
	for (size_t i = 0; i < s->noverrides; i++)
		json_array_append_new(ov, json_string(s->overrides[i]));
	json_object_set_new(o, "overrides", ov);
	json_object_set_new(o, "werror", s->werror < 0 ? json_null() : json_boolean(s->werror));
#undef NUM
#undef STR
	return o;
}

char *
mcinit_settings_json(const char *path, mcinit_error_t *err)
{
	struct mcinit_settings s;
	struct mcinit_err e = {0};
	json_t *o;
	char *text;

	if (mcinit_settings_find(path, &s, &e) < 0) {
		mcinit_settings_free(&s);
		mcinit_err_export(&e, err);
		return NULL;
	}
	o = settings_json(&s);
	mcinit_settings_free(&s);
	/* strings of a TOML file may hold any UTF-8; invalid bytes are refused by jansson */
	text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
	json_decref(o);
	if (text == NULL) {
		mcinit_err_set(&e, MCINIT_E_PARSE, "settings that are not valid UTF-8");
		mcinit_err_export(&e, err);
	}
	return text;
}
