/*
 * roff.c — escaping and the handful of man macros mcinit's pages use
 * (mcx_roff_*, declared in the tool header: the program's command pages
 * use them too).
 */
#include "doc.h"

#include <ctype.h>
#include <string.h>

/* The code point of the n-byte well-formed UTF-8 sequence at p. */
static unsigned long
utf8_decode(const unsigned char *p, size_t n)
{
	unsigned long c = n == 2 ? p[0] & 0x1f : n == 3 ? p[0] & 0x0f : p[0] & 0x07;
	size_t i;

	for (i = 1; i < n; i++)
		c = c << 6 | (p[i] & 0x3f);
	return c;
}

void
mcx_roff_inline(FILE *out, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + n;

	while (p < end && *p) {
		size_t k = *p < 0x80 ? 1 : mcx_utf8_len(p, (size_t)(end - p));

		if (k == 0) { /* not UTF-8: show the replacement character */
			fputs("\\[uFFFD]", out);
			k = 1;
		} else if (k > 1) {
			fprintf(out, "\\[u%04lX]", utf8_decode(p, k));
		} else if (*p == '\\') {
			fputs("\\e", out);
		} else if (*p == '-') {
			fputs("\\-", out);
		} else if (*p == '"') { /* also safe inside a quoted macro argument */
			fputs("\\(dq", out);
		} else if (*p == '\t') {
			fputc(' ', out);
		} else {
			fputc(*p, out);
		}
		p += k;
	}
}

static size_t
count_char(const char *s, char c)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == c;
	return n;
}

/* One line of running text; *bold tracks backquote state across lines. */
static void
text_line(FILE *out, const char *s, size_t n, int quotes, int *bold)
{
	const char *q;

	if (*s == '.' || *s == '\'')
		fputs("\\&", out);
	while (quotes && (q = memchr(s, '`', n)) != NULL) {
		mcx_roff_inline(out, s, (size_t)(q - s));
		fputs(*bold ? "\\fR" : "\\fB", out);
		*bold = !*bold;
		n -= (size_t)(q - s) + 1;
		s = q + 1;
	}
	mcx_roff_inline(out, s, n);
	fputc('\n', out);
}

void
mcx_roff_text(FILE *out, const char *s)
{
	int quotes = count_char(s, '`') % 2 == 0, bold = 0, broke = 0;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t n = nl ? (size_t)(nl - s) : strlen(s);
		size_t lead = 0;

		while (lead < n && isspace((unsigned char)s[lead]))
			lead++;
		if (lead == n) { /* a blank line: one paragraph break */
			if (!broke)
				fputs(".PP\n", out);
			broke = 1;
		} else {
			text_line(out, s + lead, n - lead, quotes, &bold);
			broke = 0;
		}
		s += n + (nl != NULL);
	}
}

void
mcx_roff_th(FILE *out, const char *name, int section, const char *package)
{
	const char *p;

	fputs(".TH \"", out);
	for (p = name; *p; p++) {
		if (*p == '-')
			fputs("\\-", out);
		else
			fputc(toupper((unsigned char)*p), out);
	}
	fprintf(out, "\" \"%d\" \"\" \"", section);
	mcx_roff_inline(out, package, strlen(package));
	fputs("\" \"mcinit manual\"\n", out);
}

static void
heading(FILE *out, const char *req, const char *text)
{
	fprintf(out, "%s \"", req);
	mcx_roff_inline(out, text, strlen(text));
	fputs("\"\n", out);
}

void
mcx_roff_sh(FILE *out, const char *text)
{
	heading(out, ".SH", text);
}

void
mcx_roff_ss(FILE *out, const char *text)
{
	heading(out, ".SS", text);
}
