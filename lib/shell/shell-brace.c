/* shell-brace.c — brace expansion: {a,b} and {1..9}, as bash expands them. */
#include "shell/shell-impl.h"

/* ---- brace expansion ---- */

/* Raw text with each byte's place, for brace expansion: bash expands
 * braces on the word as written, before any other expansion, and each
 * result is then read as a word of its own. */
struct rstr {
	char *c;
	struct lc *m;
	size_t n, cap;
};

struct rlist {
	struct rstr *v;
	size_t n, cap;
	size_t bytes; /* all results together, bounded */
};

#define MAX_BRACE_DEPTH 64

static void
rs_put(struct rstr *r, char c, struct lc m)
{
	MCINIT_GROW(r->c, r->cap, r->n + 2);
	r->m = mcx_xrealloc(r->m, r->cap * sizeof *r->m);
	r->c[r->n] = c;
	r->m[r->n++] = m;
}

static void
rs_cat(struct rstr *r, const struct rstr *a, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++)
		rs_put(r, a->c[k], a->m[k]);
}

static void
rs_free(struct rstr *r)
{
	free(r->c);
	free(r->m);
	*r = (struct rstr){0};
}

static void
rl_free(struct rlist *l)
{
	for (size_t k = 0; k < l->n; k++)
		rs_free(&l->v[k]);
	free(l->v);
	*l = (struct rlist){0};
}

/* Past the quoted or nested construct at s[i] (a quote, a backslash, `$(`,
 * `${`, `$((`, a backquote), or i + 1. */
static size_t
raw_skip(const char *s, size_t n, size_t i)
{
	char c = s[i];

	if (c == '\\')
		return i + 2 <= n ? i + 2 : n;
	if (c == '\'' || c == '`' || c == '"') {
		for (i++; i < n && s[i] != c; i++)
			if (c != '\'' && s[i] == '\\')
				i++;
		return i < n ? i + 1 : n;
	}
	if (c == '$' && i + 1 < n && s[i + 1] == '\'') {
		for (i += 2; i < n && s[i] != '\''; i++)
			if (s[i] == '\\')
				i++;
		return i < n ? i + 1 : n;
	}
	if (c == '$' && i + 1 < n && (s[i + 1] == '{' || s[i + 1] == '(')) {
		char open = s[i + 1], close = open == '{' ? '}' : ')';
		int depth = 1;

		for (i += 2; i < n && depth > 0;) {
			if (s[i] == open)
				depth++, i++;
			else if (s[i] == close)
				depth--, i++;
			else
				i = raw_skip(s, n, i);
		}
		return i;
	}
	return i + 1;
}

/* The `}` that closes the `{` at s[i] (unquoted, nested ones counted), and
 * where its top-level commas are; 0 when none. */
static size_t
brace_close(const char *s, size_t n, size_t i, size_t *commas, size_t *ncommas, size_t maxc)
{
	int depth = 0;

	*ncommas = 0;
	while (i < n) {
		char c = s[i];

		if (c == '{') {
			depth++, i++;
		} else if (c == '}') {
			if (--depth == 0)
				return i;
			i++;
		} else if (c == ',' && depth == 1) {
			if (*ncommas < maxc)
				commas[*ncommas] = i;
			++*ncommas;
			i++;
		} else {
			i = raw_skip(s, n, i);
		}
	}
	return 0;
}

/* {x..y[..incr]} in s[a, b): 1 with its words appended to out. */
static int
brace_seq(const char *s, size_t a, size_t b, struct lc at, struct rlist *out, size_t max)
{
	char t[64], *p, *q, *r = NULL;
	long long x, y, inc = 1;
	int letters = 0, width = 0;

	if (b - a >= sizeof t)
		return 0;
	memcpy(t, s + a, b - a);
	t[b - a] = '\0';
	if ((p = strstr(t, "..")) == NULL)
		return 0;
	*p = '\0';
	q = p + 2;
	if ((r = strstr(q, "..")) != NULL) {
		*r = '\0';
		r += 2;
	}
	if (strlen(t) == 1 && strlen(q) == 1 && mcinit_sh_is_ident((unsigned char)t[0], 1) &&
	    mcinit_sh_is_ident((unsigned char)q[0], 1)) {
		letters = 1;
		x = (unsigned char)t[0], y = (unsigned char)q[0];
	} else {
		char *e1, *e2;

		if (t[0] == '\0' || q[0] == '\0')
			return 0;
		errno = 0;
		x = strtoll(t, &e1, 10);
		y = strtoll(q, &e2, 10);
		if (*e1 || *e2 || errno)
			return 0;
		/* zero padding: either end written with a leading 0 */
		if ((t[t[0] == '-'] == '0' && t[(t[0] == '-') + 1]) ||
		    (q[q[0] == '-'] == '0' && q[(q[0] == '-') + 1]))
			width = (int)(strlen(t) > strlen(q) ? strlen(t) : strlen(q));
	}
	if (r != NULL) {
		char *e;

		errno = 0;
		inc = strtoll(r, &e, 10);
		if (*r == '\0' || *e || errno)
			return 0;
	}
	if (inc == 0)
		inc = 1;
	if (inc < 0)
		inc = inc == LLONG_MIN ? LLONG_MAX : -inc;
	{
		unsigned long long span = x <= y ? (unsigned long long)y - (unsigned long long)x
		                                 : (unsigned long long)x - (unsigned long long)y;

		if (span / (unsigned long long)inc + out->n >= max)
			return -1;
		for (unsigned long long k = 0; k <= span / (unsigned long long)inc; k++) {
			long long v =
			    x <= y
			        ? (long long)((unsigned long long)x + k * (unsigned long long)inc)
			        : (long long)((unsigned long long)x - k * (unsigned long long)inc);
			struct rstr w = {0};
			char num[80];

			if (letters) { /* {Z..a} holds [ \ ] ^ _ `: read literally */
				num[0] = (char)v, num[1] = '\0';
				if (v == '\\' || v == '`')
					rs_put(&w, '\\', at);
			} else if (width > 0 && v < 0) {
				snprintf(num, sizeof num, "-%0*llu", (width - 1) & 63,
				         (unsigned long long)0 - (unsigned long long)v);
			} else {
				snprintf(num, sizeof num, "%0*lld", width & 63, v);
			}
			for (char *c = num; *c; c++)
				rs_put(&w, *c, at);
			MCINIT_GROW(out->v, out->cap, out->n + 1);
			out->v[out->n++] = w;
		}
	}
	return 1;
}

static int brace_expand(const struct rstr *w, struct rlist *out, int depth, size_t max);

/* Appends pre + each of alts + each of the expansions of post to out. */
static int
brace_join(const struct rstr *w, size_t i, size_t j, struct rlist *alts, struct rlist *out,
           int depth, size_t max)
{
	struct rstr post = {0};
	struct rlist posts = {0};
	int rc;

	rs_cat(&post, w, j + 1, w->n);
	rc = brace_expand(&post, &posts, depth + 1, max);
	rs_free(&post);
	if (rc < 0) {
		rl_free(&posts);
		return -1;
	}
	for (size_t a = 0; a < alts->n; a++)
		for (size_t p = 0; p < posts.n; p++) {
			struct rstr r = {0};

			if (out->n >= max || out->bytes > MCINIT_MAX_INPUT) {
				rl_free(&posts);
				return -1;
			}
			rs_cat(&r, w, 0, i);
			rs_cat(&r, &alts->v[a], 0, alts->v[a].n);
			rs_cat(&r, &posts.v[p], 0, posts.v[p].n);
			out->bytes += r.n;
			MCINIT_GROW(out->v, out->cap, out->n + 1);
			out->v[out->n++] = r;
		}
	rl_free(&posts);
	return 0;
}

/* The words bash's brace expansion makes of w, appended to out; -1 past
 * the bounds (max words, MCINIT_MAX_INPUT bytes, MAX_BRACE_DEPTH). */
static int
brace_expand(const struct rstr *w, struct rlist *out, int depth, size_t max)
{
	const char *s = w->c;
	size_t n = w->n;

	if (depth > MAX_BRACE_DEPTH)
		return -1;
	for (size_t i = 0; i < n;) {
		size_t commas[1024], nc, j;

		if (s[i] != '{' || (i > 0 && s[i - 1] == '$')) {
			i = s[i] == '{' ? i + 1 : raw_skip(s, n, i);
			continue;
		}
		j = brace_close(s, n, i, commas, &nc, sizeof commas / sizeof commas[0]);
		if (j == 0)
			break; /* unmatched: literal */
		if (nc > sizeof commas / sizeof commas[0])
			return -1;
		if (nc > 0) {
			struct rlist alts = {0};
			size_t from = i + 1;
			int rc = 0;

			for (size_t k = 0; k <= nc && rc == 0; k++) {
				size_t to = k < nc ? commas[k] : j;
				struct rstr a = {0};

				rs_cat(&a, w, from, to);
				rc = brace_expand(&a, &alts, depth + 1, max);
				rs_free(&a);
				from = to + 1;
			}
			if (rc == 0)
				rc = brace_join(w, i, j, &alts, out, depth, max);
			rl_free(&alts);
			return rc;
		}
		{
			struct rlist alts = {0};
			int rc = brace_seq(s, i + 1, j, w->m[i], &alts, max);

			if (rc != 0) {
				if (rc > 0)
					rc = brace_join(w, i, j, &alts, out, depth, max);
				rl_free(&alts);
				return rc;
			}
		}
		i++; /* `{a}`: literal, braces inside it may still expand */
	}
	{
		struct rstr r = {0};

		if (out->n >= max)
			return -1;
		rs_cat(&r, w, 0, n);
		out->bytes += n;
		MCINIT_GROW(out->v, out->cap, out->n + 1);
		out->v[out->n++] = r;
	}
	return 0;
}

static const char brace_msg[] = "brace expansion of more than 65536 words, or nested more "
                                "than 64 deep: not read";

/* Lexes the word at the cursor, brace-expanded as bash does, splitting each
 * result into dst (mcinit_sh_lex_word's term 0); 0, or -1 with x->err. */
int
mcinit_sh_lex_words_braced(struct sx *x, struct plist *dst)
{
	size_t a = x->i, e;
	int line = x->line, col = x->col, rc = 0;
	struct mcinit_err saved;
	struct rstr w = {0};
	struct rlist out = {0};
	const char *s = x->s;
	const struct lc *map = x->map;
	size_t len = x->len, nfns = x->nfns;

	/* where the word ends, read without effects */
	if (x->err != NULL)
		saved = *x->err;
	rc = mcinit_sh_lex_word(x, NULL, 0, 0);
	e = x->i;
	x->i = a, x->line = line, x->col = col;
	if (x->err != NULL)
		*x->err = saved;
	if (rc < 0 || x->nobrace || memchr(s + a, '{', e - a) == NULL) {
		struct pstr t = {0};

		rc = mcinit_sh_lex_word(x, &t, 0, 0);
		if (rc == 0)
			mcinit_sh_split_word(&t, dst);
		mcinit_sh_ps_free(&t);
		return rc;
	}
	{ /* each byte's place */
		int l = line, c = col;

		for (size_t k = a; k < e; k++) {
			struct lc m = map != NULL ? map[k] : (struct lc){l, c, 0, 0};
			unsigned char ch = (unsigned char)s[k];

			rs_put(&w, (char)ch, m);
			if (ch == '\n')
				l++, c = 1;
			else if ((ch & 0xC0) != 0x80)
				c++;
		}
	}
	if (brace_expand(&w, &out, 0, (size_t)MCINIT_MAX_SCRIPT_WORDS) < 0) {
		rs_free(&w);
		rl_free(&out);
		x->too_deep = brace_msg;
		return mcinit_sh_fail(x, line, col, brace_msg);
	}
	rs_free(&w);
	if (out.n == 1 && out.v[0].n == e - a && memcmp(out.v[0].c, s + a, e - a) == 0) {
		struct pstr t = {0}; /* no brace expansion: read in place */

		rl_free(&out);
		rc = mcinit_sh_lex_word(x, &t, 0, 0);
		if (rc == 0)
			mcinit_sh_split_word(&t, dst);
		mcinit_sh_ps_free(&t);
		return rc;
	}
	{
		int l = x->line, c = x->col;

		/* past the word in the text */
		while (x->i < e)
			mcinit_sh_adv(x);
		l = x->line, c = x->col;
		for (size_t k = 0; k < out.n && rc == 0; k++) {
			struct rstr *r = &out.v[k];
			struct pstr t = {0};

			if (r->n == 0)
				continue;
			rs_put(r, '\0', r->m[r->n - 1]); /* map[len]: the place after */
			r->n--;
			x->s = r->c, x->map = r->m, x->len = r->n;
			x->i = 0, x->line = r->m[0].line, x->col = r->m[0].col;
			rc = mcinit_sh_lex_word(x, &t, 0, 0);
			if (rc == 0)
				mcinit_sh_split_word(&t, dst);
			mcinit_sh_ps_free(&t);
			if (x->nfns > nfns) { /* a function defined in it is read from it */
				MCINIT_GROW(x->owned, x->capowned, x->nowned + 2);
				x->owned[x->nowned++] = r->c;
				x->owned[x->nowned++] = r->m;
				*r = (struct rstr){0};
				nfns = x->nfns;
			}
		}
		x->s = s, x->map = map, x->len = len;
		x->i = e, x->line = l, x->col = c;
	}
	rl_free(&out);
	return rc;
}
