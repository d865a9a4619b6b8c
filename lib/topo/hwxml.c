/*
 * hwxml.c — a scan of an hwloc XML text before hwloc reads it (hwxml.h):
 * its start and declared encoding, then its <object> start tags for the
 * sets hwloc's importer assumes come together.  Only attribute names (and
 * the encoding's value) are looked at; comments, CDATA and other markup are
 * skipped.
 */
#include "topo/hwxml.h"

#include <ctype.h>
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

enum {
	CPUSET = 1,
	COMPLETE_CPUSET = 2,
	NODESET = 4,
	COMPLETE_NODESET = 8,
	ALLOWED_SET = 16, /* allowed_cpuset, allowed_nodeset */
	BAD_SET = 32      /* a set whose value is no bitmap */
};

static unsigned
set_bit(const char *name, size_t n)
{
	static const struct {
		const char *name;
		unsigned bit;
	} sets[] = {{"cpuset", CPUSET},
	            {"complete_cpuset", COMPLETE_CPUSET},
	            {"nodeset", NODESET},
	            {"complete_nodeset", COMPLETE_NODESET},
	            {"allowed_cpuset", ALLOWED_SET},
	            {"allowed_nodeset", ALLOWED_SET}};

	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
		if (strlen(sets[i].name) == n && memcmp(sets[i].name, name, n) == 0)
			return sets[i].bit;
	return 0;
}

/* The next attribute of a start tag or declaration, s inside it: 1 with
 * its name and value (pointed into the text), 0 at the tag's end (">",
 * "/>" or "?>", not consumed), -1 when it cannot be scanned (hwloc will
 * say why). */
static int
next_attr(struct scan *s, const char **name, size_t *nlen, const char **val, size_t *vlen)
{
	char q;

	skip_space(s);
	if (s->p >= s->end)
		return -1;
	if (*s->p == '>' || at(s, "/>") || at(s, "?>"))
		return 0;
	*name = s->p;
	while (s->p < s->end && !space(*s->p) && *s->p != '=' && *s->p != '>')
		advance(s, 1);
	*nlen = (size_t)(s->p - *name);
	skip_space(s);
	if (s->p >= s->end || *s->p != '=')
		return -1;
	advance(s, 1);
	skip_space(s);
	if (s->p >= s->end || (*s->p != '"' && *s->p != '\''))
		return -1;
	q = *s->p;
	advance(s, 1);
	*val = s->p;
	while (s->p < s->end && *s->p != q)
		advance(s, 1);
	if (s->p >= s->end)
		return -1;
	*vlen = (size_t)(s->p - *val);
	advance(s, 1);
	return 1;
}

/* hwloc_bitmap_snprintf's form, which lstopo writes: words of one to eight
 * hex digits after "0x", separated by commas, the first "0xf...f" for an
 * infinite set. */
static bool
bitmap_ok(const char *p, size_t n)
{
	size_t i = 0;

	for (;;) {
		size_t d = 0;

		if (n - i < 2 || p[i] != '0' || p[i + 1] != 'x')
			return false;
		i += 2;
		if (i == 2 && n - i >= 5 && memcmp(p + i, "f...f", 5) == 0)
			i += 5, d = 1;
		for (; i < n && d < 8 && isxdigit((unsigned char)p[i]); i++)
			d++;
		if (d == 0)
			return false;
		if (i == n)
			return true;
		if (p[i++] != ',')
			return false;
	}
}

/* The attributes of a start tag, s just past its name: the set bits seen
 * (BAD_SET for a value hwloc_bitmap_sscanf would half-read), or -1 when the
 * tag cannot be scanned. */
static int
tag_sets(struct scan *s)
{
	unsigned seen = 0;
	const char *name, *val;
	size_t nlen, vlen;
	int rc;

	while ((rc = next_attr(s, &name, &nlen, &val, &vlen)) > 0) {
		unsigned bit = set_bit(name, nlen);

		seen |= bit;
		if (bit && !bitmap_ok(val, vlen))
			seen |= BAD_SET;
	}
	return rc < 0 ? -1 : (int)seen;
}

/* hwloc 2.9's libxml2 importer compares the DOCTYPE's system identifier
 * with "hwloc2.dtd" without asking whether there is one, so
 * `<!DOCTYPE topology>` crashes it; lstopo writes
 * `<!DOCTYPE topology SYSTEM "hwloc2.dtd">`.  s at "!DOCTYPE". */
static bool
doctype_ok(const struct scan *s)
{
	struct scan t = *s;

	for (; t.p < t.end && *t.p != '>' && *t.p != '['; t.p++)
		if (at(&t, "SYSTEM") || at(&t, "PUBLIC"))
			return true;
	return false;
}

/* The name of a start tag, s just past its '<' (moved past the name). */
static size_t
tag_name(struct scan *s, const char **name)
{
	*name = s->p;
	while (s->p < s->end && !space(*s->p) && *s->p != '>' && *s->p != '/')
		advance(s, 1);
	return (size_t)(s->p - *name);
}

/* An <object> start tag, s just past its name.  0, or -1 with err. */
static int
check_object(struct scan *s, int line, const char *source, struct mcinit_err *err)
{
	int seen = tag_sets(s);

	if (seen < 0)
		return 0;
	if (seen & BAD_SET)
		return mcinit_err_at(err, MCINIT_E_PARSE, source, line, 0,
		                     "an object with a set that is no hwloc bitmap (lstopo "
		                     "writes 0x-prefixed hex words; hwloc would misread it)");
	if ((seen & CPUSET) && !(seen & COMPLETE_CPUSET))
		return mcinit_err_at(err, MCINIT_E_PARSE, source, line, 0,
		                     "an object with a cpuset but no complete_cpuset (lstopo "
		                     "writes both; hwloc would crash loading it)");
	if ((seen & NODESET) && !(seen & COMPLETE_NODESET))
		return mcinit_err_at(err, MCINIT_E_PARSE, source, line, 0,
		                     "an object with a nodeset but no complete_nodeset (lstopo "
		                     "writes both; hwloc would crash loading it)");
	return 0;
}

static bool
same_ci(const char *p, size_t n, const char *lit)
{
	if (strlen(lit) != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)p[i]) != lit[i])
			return false;
	return true;
}

/* The encodings libxml2 reads itself (lstopo writes UTF-8). */
static bool
known_encoding(const char *p, size_t n)
{
	static const char *const known[] = {"utf-8", "utf8", "us-ascii", "ascii", "iso-8859-1"};

	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (same_ci(p, n, known[i]))
			return true;
	return false;
}

/* libxml2 (hwloc's XML plugin) hands an encoding it neither carries nor
 * finds in iconv to ICU, and so does its guess from the first bytes of a
 * text that does not start with '<' (EBCDIC): ICU then loads converter
 * tables that it keeps until u_cleanup, which nobody calls, and when hwloc
 * closes its plugin libicuuc is unloaded with it and the tables leak (3 KB
 * a process; LeakSanitizer fails the fuzzer on it).  lstopo writes
 * `<?xml version="1.0" encoding="UTF-8"?>`, so anything else is refused
 * here.  0, 1 when the text is no XML at all, or -1 with err. */
static int
check_encoding(struct scan *s, const char *source, struct mcinit_err *err)
{
	const char *name, *val;
	size_t nlen, vlen;
	int rc;

	if (at(s, "\xef\xbb\xbf")) /* a UTF-8 byte-order mark */
		advance(s, 3);
	skip_space(s);
	if (s->p < s->end && *s->p != '<')
		return 1;
	if (!at(s, "<?xml") || s->end - s->p < 6 || !space(s->p[5]))
		return 0;
	advance(s, 5);
	while ((rc = next_attr(s, &name, &nlen, &val, &vlen)) > 0)
		if (same_ci(name, nlen, "encoding") && !known_encoding(val, vlen))
			return mcinit_err_at(err, MCINIT_E_PARSE, source, s->line, 0,
			                     "encoding \"%.*s\": an hwloc XML topology is "
			                     "UTF-8 (lstopo writes encoding=\"UTF-8\")",
			                     (int)(vlen > 40 ? 40 : vlen), val);
	return 0;
}

int
mcinit_hwxml_check(const char *text, size_t len, const char *source, struct mcinit_err *err)
{
	struct scan s = {text, text + len, 1};
	int rc = check_encoding(&s, source, err), root = 0;

	if (rc != 0)
		return rc;
	while (skip_past(&s, "<")) {
		int line = s.line;
		const char *name;
		size_t n;

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
		if (at(&s, "!DOCTYPE") && !doctype_ok(&s))
			return mcinit_err_at(err, MCINIT_E_PARSE, source, line, 0,
			                     "a DOCTYPE without a system identifier (lstopo "
			                     "writes SYSTEM \"hwloc2.dtd\"; hwloc would crash "
			                     "loading it)");
		if (at(&s, "!") || at(&s, "?") || at(&s, "/"))
			continue;
		n = tag_name(&s, &name);
		if (!root++ && !(n == 8 && memcmp(name, "topology", 8) == 0))
			return 1; /* some other XML */
		if (n == 6 && memcmp(name, "object", 6) == 0 &&
		    check_object(&s, line, source, err) < 0)
			return -1;
	}
	return 0;
}
