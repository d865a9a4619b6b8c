/*
 * hwxml.c — a scan of an hwloc XML text's <object> start tags for the sets
 * hwloc's importer assumes come together (hwxml.h).  Only attribute names
 * are looked at; comments, CDATA and other markup are skipped.
 */
#include "topo/hwxml.h"

#include <stdbool.h>
#include <string.h>

struct scan {
	const char *p, *end;
	int line;
};

static void
advance(struct scan *s, size_t n)
{
	for (; n > 0 && s->p < s->end; n--, s->p++)
		s->line += *s->p == '\n';
}

static bool
at(const struct scan *s, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(s->end - s->p) >= n && memcmp(s->p, lit, n) == 0;
}

/* Moves past the next occurrence of lit; false when there is none. */
static bool
skip_past(struct scan *s, const char *lit)
{
	while (s->p < s->end && !at(s, lit))
		advance(s, 1);
	if (s->p >= s->end)
		return false;
	advance(s, strlen(lit));
	return true;
}

static bool
space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void
skip_space(struct scan *s)
{
	while (s->p < s->end && space(*s->p))
		advance(s, 1);
}

enum { CPUSET = 1, COMPLETE_CPUSET = 2, NODESET = 4, COMPLETE_NODESET = 8 };

static unsigned
set_bit(const char *name, size_t n)
{
	static const struct {
		const char *name;
		unsigned bit;
	} sets[] = {{"cpuset", CPUSET},
	            {"complete_cpuset", COMPLETE_CPUSET},
	            {"nodeset", NODESET},
	            {"complete_nodeset", COMPLETE_NODESET}};

	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
		if (strlen(sets[i].name) == n && memcmp(sets[i].name, name, n) == 0)
			return sets[i].bit;
	return 0;
}

/* The attributes of a start tag, s just past its name: the set bits seen,
 * or -1 when the tag cannot be scanned (hwloc will say why). */
static int
tag_sets(struct scan *s)
{
	unsigned seen = 0;

	for (;;) {
		const char *name;
		char q;

		skip_space(s);
		if (s->p >= s->end)
			return -1;
		if (*s->p == '>' || at(s, "/>"))
			return (int)seen;
		name = s->p;
		while (s->p < s->end && !space(*s->p) && *s->p != '=' && *s->p != '>')
			advance(s, 1);
		seen |= set_bit(name, (size_t)(s->p - name));
		skip_space(s);
		if (s->p >= s->end || *s->p != '=')
			return -1;
		advance(s, 1);
		skip_space(s);
		if (s->p >= s->end || (*s->p != '"' && *s->p != '\''))
			return -1;
		q = *s->p;
		advance(s, 1);
		while (s->p < s->end && *s->p != q)
			advance(s, 1);
		if (s->p >= s->end)
			return -1;
		advance(s, 1);
	}
}

int
mcinit_hwxml_check_sets(const char *text, size_t len, const char *source, struct mcinit_err *err)
{
	struct scan s = {text, text + len, 1};

	while (skip_past(&s, "<")) {
		int line = s.line, seen;

		if (at(&s, "!--")) {
			if (!skip_past(&s, "-->"))
				return 0;
			continue;
		}
		if (at(&s, "![CDATA[")) {
			if (!skip_past(&s, "]]>"))
				return 0;
			continue;
		}
		if (!at(&s, "object") || s.end - s.p < 7 || !space(s.p[6]))
			continue;
		advance(&s, 6);
		seen = tag_sets(&s);
		if (seen < 0)
			return 0;
		if ((seen & CPUSET) && !(seen & COMPLETE_CPUSET))
			return mcinit_err_at(
			    err, MCINIT_E_PARSE, source, line, 0,
			    "an object with a cpuset but no complete_cpuset (lstopo "
			    "writes both; hwloc would crash loading it)");
		if ((seen & NODESET) && !(seen & COMPLETE_NODESET))
			return mcinit_err_at(
			    err, MCINIT_E_PARSE, source, line, 0,
			    "an object with a nodeset but no complete_nodeset (lstopo "
			    "writes both; hwloc would crash loading it)");
	}
	return 0;
}
