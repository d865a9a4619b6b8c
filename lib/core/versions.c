/*
 * versions.c — see versions.h.  The package versions are the part of
 * PEP 440 Megatron's gates use; the release names are Megatron-LM's and
 * Megatron-Bridge's, whose tables (config/) call the readers below.
 */
#include "core/versions.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *
mcinit_version_skip_v(const char *s, const char *tag)
{
	size_t n = tag != NULL ? strlen(tag) : 0;

	if (tag != NULL && strncmp(s, tag, n) == 0 && s[n] == 'v')
		return s + n + 1;
	return s[0] == 'v' ? s + 1 : s;
}

int
mcinit_version_major_minor(const char *s, int *major, int *minor)
{
	int n = 0;

	if (sscanf(s, "%d.%d%n", major, minor, &n) == 2 &&
	    (s[n] == '\0' || (s[n] == '.' && strspn(s + n + 1, "0123456789") == strlen(s + n + 1) &&
	                      s[n + 1] != '\0')))
		return 0;
	return -1;
}

bool
mcinit_version_under(const char *s, const char *release)
{
	size_t n = strlen(release);

	return strncmp(s, release, n) == 0 && (s[n] == '\0' || s[n] == '.');
}

/* ---- package versions (PEP 440) ---- */

struct version {
	long rel[8];
	int nrel;
	int pre; /* -2: a dev release with no pre, 0 a, 1 b, 2 rc, 3 none */
	long pre_n;
	long post; /* -1: none */
	long dev;  /* LONG_MAX: none */
};

static bool
number(const char **p, long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return false;
	*out = strtol(*p, &end, 10);
	*p = end;
	return true;
}

/* What follows the release numbers: [.-_]?(a|b|rc|post|dev)N, in order. */
static bool
version_suffix(const char *p, struct version *v)
{
	static const char *const pre[] = {"a", "b", "rc"};
	size_t i, n;

	while (*p != '\0' && *p != '+') {
		if (*p == '.' || *p == '-' || *p == '_')
			p++;
		for (i = 0; i < 3; i++) {
			n = strlen(pre[i]);
			if (v->pre == 3 && v->post < 0 && v->dev == LONG_MAX &&
			    strncmp(p, pre[i], n) == 0 && isdigit((unsigned char)p[n]))
				break;
		}
		if (i < 3) {
			p += strlen(pre[i]);
			v->pre = (int)i;
			number(&p, &v->pre_n);
		} else if (strncmp(p, "post", 4) == 0 && v->post < 0 && v->dev == LONG_MAX) {
			p += 4;
			if (!number(&p, &v->post))
				v->post = 0;
		} else if (strncmp(p, "dev", 3) == 0 && v->dev == LONG_MAX) {
			p += 3;
			if (!number(&p, &v->dev))
				v->dev = 0;
		} else {
			return false;
		}
	}
	return true;
}

static bool
version_parse(const char *s, struct version *v)
{
	const char *p = s;

	*v = (struct version){.pre = 3, .post = -1, .dev = LONG_MAX};
	p = mcinit_version_skip_v(p, NULL);
	do {
		if (v->nrel == (int)(sizeof v->rel / sizeof v->rel[0]) ||
		    !number(&p, &v->rel[v->nrel]))
			return false;
		v->nrel++;
	} while (*p == '.' && isdigit((unsigned char)p[1]) && p++);
	if (!version_suffix(p, v))
		return false;
	if (v->pre == 3 && v->post < 0 && v->dev != LONG_MAX)
		v->pre = -2; /* 2.7.0.dev0 comes before 2.7.0a0 */
	return true;
}

static int
cmp_long(long a, long b)
{
	return (a > b) - (a < b);
}

int
mcinit_version_cmp(const char *a, const char *b, int *cmp)
{
	struct version x, y;
	int i, c = 0;

	if (!version_parse(a, &x) || !version_parse(b, &y))
		return -1;
	for (i = 0; c == 0 && (i < x.nrel || i < y.nrel); i++)
		c = cmp_long(i < x.nrel ? x.rel[i] : 0, i < y.nrel ? y.rel[i] : 0);
	if (c == 0)
		c = cmp_long(x.pre, y.pre);
	if (c == 0 && x.pre >= 0 && x.pre < 3)
		c = cmp_long(x.pre_n, y.pre_n);
	if (c == 0)
		c = cmp_long(x.post, y.post);
	if (c == 0)
		c = cmp_long(x.dev, y.dev);
	*cmp = c;
	return 0;
}
