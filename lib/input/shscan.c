/* shscan.c — see shscan.h.
 *
 * One pass over the text.  Every word is lexed into a "pstr": its characters,
 * each with the position it was written at, the variable it came from and a
 * few flags, plus zero-width markers.  Expansions are performed while lexing
 * (the variables they read were all assigned earlier in the text), then the
 * word is split into fields the way bash would, or joined into one value for
 * an assignment.  Keeping positions per character is what lets a word split
 * out of `ARGS="--a 1 --b 2"` point at its own place inside that string.
 */
#include "input/shscan.h"

#include "input/launch-cmdline.h"
#include "input/shfollow.h"

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Characters all expansions together may produce: far above any real script
 * (a launch script's flags are kilobytes, expanded a few times), low enough
 * that `A="$A$A"` repeated cannot exhaust memory, and that a variable grown
 * in an endless loop stops soon: each character charged is copied several
 * times (splitting, grouping, saving), some 700 instructions natively, so
 * 2^21 of them took 1.4 G instructions (10 s under ASan: a fuzzing
 * timeout, tests/fuzz/corpus/shscan/timeout-growing-var-in-endless-loop). */
#define BUDGET_BASE ((size_t)1 << 19)
#define MAX_DEPTH   64 /* nesting of ${a:-${b:-...}}, $(( $((...)) )) */
/* Nesting of an arithmetic expression: parentheses, unary operators, the
 * right operand of `**` and `?:`.  Each level is a call of the recursive
 * evaluator; bash's own bound is 1024 ("expression recursion level
 * exceeded"), real expressions nest a few levels, and 256 small frames fit
 * any stack, sanitizers included. */
#define MAX_ARITH_DEPTH 256
/* Loops nested in one another (each level is a recursion of the reader). */
#define MAX_LOOP_DEPTH 256
/* What an element costs beyond its characters (its allocation): many
 * short elements ("$@ $@" doubled by recursion) are charged like text. */
#define EL_COST     16
#define SNIP_MAX    60 /* bytes of source quoted in a note */
#define IDENT_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"
#define MAX_CALLS   32 /* nesting of function calls and command substitutions */
/* Commands read in function bodies, substitutions and loops (run or
 * skipped), all together: bounds the work of a script that recurses or
 * loops without end. */
#define MAX_STEPS 10000
#define MAX_FILES 8 /* files read within one another (source, bash FILE) */
/* Launches remembered: a sweep launches tens of times; an endless loop
 * would make each later launch compared with every earlier one. */
#define MAX_CANDS 256

enum {
	PF_QUOTED = 1,   /* protected from field splitting */
	PF_OPAQUE = 2,   /* unexpandable text kept as written (never split) */
	PF_EMPTYQ = 4,   /* marker: quotes were here, so an empty field exists */
	PF_BREAK = 8,    /* marker: field boundary between "${a[@]}" elements */
	PF_SRCQ = 16,    /* in a variable's value: was quoted where assigned */
	PF_RESPLIT = 32, /* a field bash split out of such a quoted string */
	PF_UNREAD = 64,  /* opaque: a sourced file mcinit could not read may set it */
};
#define PF_MARK (PF_EMPTYQ | PF_BREAK)

struct pch {
	char c;
	unsigned char fl;
	int line, col;
	int var; /* index into sx.vars, -1 = written in the command */
	int ev;  /* index into sx.ev (a note to attach), -1 = none */
};

struct pstr {
	struct pch *v;
	size_t n, cap;
};

struct plist {
	struct pstr *v;
	size_t n, cap;
};

struct var {
	char *name;
	int defined;
	int exported;     /* export, declare -x, set -a */
	int was_unset;    /* unset by the script (and not assigned since) */
	int line, col;    /* its last assignment, export or unset */
	struct plist val; /* a string variable has exactly one element */
	int is_array;
	int maybe;         /* not assigned, and a sourced file mcinit could not read
	                    * may have set it (see var_maybe) */
	int inherited;     /* from the job's environment (Slurm's): a child sees it */
	unsigned long gen; /* x->gen when it was last changed (touch_var) */
	int cut;           /* its value lost elements or characters to a bound (the
	                    * expansion budget, MCINIT_MAX_SCRIPT_WORDS elements):
	                    * its length and count are known only at run time */
};

/* An assignment, kept for the fallback: an array's elements (f), or a
 * scalar's value (s), split into fields only if the fallback reads it (a
 * loop growing a variable assigns it thousands of times; splitting each
 * value there took half of such a script's instructions). */
struct group {
	struct plist f;
	struct pstr s;
	int scalar;
};

struct cand {
	struct plist w;           /* every word of the command */
	size_t py;                /* index of the .py word */
	struct mcinit_shenv *env; /* the job's environment when it runs */
	size_t nenv;
	uint64_t hash; /* of the words and environment: cand_same compares it first */
};

/* An `if` being read.  cond: 1 true, 0 false, -1 unknown (then every
 * branch is read, as before conditions were evaluated); awaiting: 1 the
 * condition is being read, 0 in a branch taken, -1 in one not taken. */
struct ifr {
	int parent_dead;
	int cond, negate, ncmds, awaiting;
	int taken, unknown;
	int op; /* between the condition's commands: 0, '|' (||) or '&' (&&) */
	int line, col;
	/* a `case` instead: its word (NULL when known only at run time), and
	 * awaiting 1 while a clause's patterns are read */
	int is_case, matched;
	char *subject;
};

struct hdoc {
	char *delim;
	int strip, line, col;
};

struct lc {
	int line, col;
};

struct fn { /* a function the script defined: its body's text */
	char *name;
	size_t start, end;
	int line, col;
	const char *s;        /* the text it is in (the script's, a file's) */
	const struct lc *map; /* that text's places, when a string (eval) */
};

/* A variable's state, saved across a prefix assignment (`V=1 cmd` sets V
 * for cmd only), a function's `local` or a subshell. */
struct saved {
	int vi;
	struct var v; /* name not owned */
	/* 1: v.val is not a copy (not owned): the value was appended to
	 * (V+=w, V+=(w)), and is put back by cutting it to its n0 elements and
	 * its element 0 to len0 characters (el0 its first, which an append to
	 * an empty value drops).  A copy made each time took time quadratic in
	 * the value (100,000 `A+=(--a 1)` lines ran for hours). */
	int trunc;
	size_t n0, len0;
	struct pch el0;
};

/* A function call (all = 0: restores its `local` variables and the
 * positional parameters) or a subshell (all = 1: restores every variable
 * it changes). */
struct frame {
	struct saved *sv;
	size_t n, cap;
	int all;
};

/* A command substitution being evaluated: what its commands print. */
struct capture {
	struct pstr out;
	char *why; /* set when the output cannot be known */
};

/* A block being skipped to find its end: `{` ... `}` or `do` ... `done`. */
struct block {
	int kind, depth; /* '{' or 'd' */
	long close_at;   /* offset of the closing keyword, -1 until read */
};

struct sx {
	const char *s;
	size_t len, i;
	int line, col;
	struct mcinit_err *err;
	int depth;
	size_t budget;
	int exhausted;
	size_t nat; /* count of quoted [@] expansions, to tell "" from "${empty[@]}" */
	struct var *vars;
	size_t nvars, capvars;
	int *hash; /* open addressing, var index + 1, 0 = free */
	size_t hcap;
	struct mcinit_shnote *ev; /* notes attached to characters */
	size_t nev, capev;
	struct mcinit_shnote *notes; /* notes about the script itself */
	size_t nnotes, capnotes;
	struct hdoc *hd;
	size_t nhd, caphd;
	struct group *groups;
	size_t ngroups, capgroups;
	struct cand *cands; /* commands that run a .py script */
	size_t ncands, capcands;
	int ncands_over; /* MAX_CANDS was reached (noted once) */
	int allexport;   /* set -a */
	struct ifr *ifs; /* open if ... fi, innermost last */
	size_t nifs, capifs;
	int dead;         /* inside a branch bash does not take: no effects */
	int last_op;      /* the command just read ended with || ('|') or && ('&'),
	                   * ;; (';'), ) or | (in a case clause's patterns) */
	int seen_cmd;     /* a command was read: #SBATCH lines end there */
	int prev_op;      /* last_op of the previous command */
	int status;       /* of the last command run: 0, 1, -1 unknown */
	int skipping;     /* > 0: reading text bash does not run here */
	size_t kw_at;     /* offset of the word on_keyword is given */
	struct block blk; /* the block skip_block is looking for the end of */
	struct fn *fns;   /* the functions defined, in text order */
	size_t nfns, capfns;
	struct frame *frames; /* open function calls and subshells */
	size_t nframes, capframes;
	struct capture *cap; /* innermost substitution being evaluated, or NULL */
	int at;              /* the positional parameters: the array variable "@" */
	int local_frame;     /* declare/local in a function: its frame + 1, else 0 */
	int calls;           /* nesting of function calls and substitutions */
	int deep;            /* calls were cut at MAX_CALLS (noted once) */
	size_t cut;          /* values cut at a bound so far (see var.cut) */
	unsigned long gen;   /* changes of variables so far (see var.gen) */
	int cut_noted;       /* an array was cut (noted once) */
	size_t group_words;  /* words in x->groups (see group_full) */
	int groups_cut;      /* an assignment was not kept for the fallback */
	int stopped_array;   /* an array was cut: words may be missing */
	/* A nesting bound was passed (MAX_ARITH_DEPTH, MAX_DEPTH, ...): what to
	 * say.  Sticky, because some readers try text and drop its errors
	 * (expand_text): the scan then fails at the first place that can name
	 * it. */
	const char *too_deep;
	size_t steps;                /* see MAX_STEPS */
	size_t max_steps;            /* MAX_STEPS, or the caller's bound */
	size_t budget_base;          /* BUDGET_BASE, or the caller's */
	size_t max_files;            /* MAX_FILES, or the caller's */
	int stopped;                 /* MAX_STEPS was reached (noted once) */
	const struct lc *map;        /* reading a string (eval): each byte's place */
	const struct plist *prefix;  /* `srun bash -c "..."`: the words before bash */
	int loops;                   /* loop bodies being read, around the command */
	int loop_depth;              /* the same, across substitutions: MAX_LOOP_DEPTH */
	int brk;                     /* 1 `break`, 2 `continue`: the loop body stops */
	struct mcinit_lword *sbatch; /* words of the #SBATCH directives (text owned) */
	size_t nsbatch;
	struct mcinit_shfiles files; /* the other files the script reads or runs */
	int *fstack;                 /* those being read, innermost last */
	size_t nfstack, capfstack;
	char *unread;    /* why a variable not assigned may be set: the first
	                  * sourced file mcinit could not read; NULL when none */
	size_t fn_floor; /* functions before it are the parent shell's */
	int args_set;    /* `set --` ran (bash then keeps what a sourced file set) */
	char *name0;     /* $0: the script's path, or a child's FILE; NULL unknown */
	void **owned;    /* eval strings and their maps a function is in */
	size_t nowned, capowned;
};

/* ---- small helpers ---- */

static void
note_add(struct mcinit_shnote **v, size_t *n, size_t *cap, int line, int col, char *msg)
{
	MCINIT_GROW(*v, *cap, *n + 1);
	(*v)[*n].msg = msg;
	(*v)[*n].line = line;
	(*v)[*n].col = col;
	(*v)[*n].file = (*v)[*n].warn = (*v)[*n].bound = 0;
	(*n)++;
}

static void __attribute__((format(printf, 4, 5)))
script_note(struct sx *x, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_add(&x->notes, &x->nnotes, &x->capnotes, line, col, mcinit_xvasprintf(fmt, ap));
	va_end(ap);
}

/* script_note for a bound of the reader that stopped it (see
 * mcinit_shnote.bound). */
static void __attribute__((format(printf, 4, 5)))
script_bound(struct sx *x, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_add(&x->notes, &x->nnotes, &x->capnotes, line, col, mcinit_xvasprintf(fmt, ap));
	va_end(ap);
	x->notes[x->nnotes - 1].bound = 1;
}

/* A note that says something was not checked (a warning), once per place. */
static void __attribute__((format(printf, 4, 5)))
script_warn(struct sx *x, int line, int col, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = mcinit_xvasprintf(fmt, ap);
	va_end(ap);
	for (size_t k = 0; k < x->nnotes; k++)
		if (x->notes[k].line == line && x->notes[k].col == col &&
		    strcmp(x->notes[k].msg, msg) == 0) {
			free(msg); /* a loop, a function called twice */
			return;
		}
	note_add(&x->notes, &x->nnotes, &x->capnotes, line, col, msg);
	x->notes[x->nnotes - 1].warn = 1;
}

static int __attribute__((format(printf, 4, 5)))
add_event(struct sx *x, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	note_add(&x->ev, &x->nev, &x->capev, line, col, mcinit_xvasprintf(fmt, ap));
	va_end(ap);
	return (int)x->nev - 1;
}

static int
fail(struct sx *x, int line, int col, const char *what)
{
	return mcinit_err_at(x->err, MCINIT_E_PARSE, NULL, line, col, "%s", what);
}

/* Source text [a, b) for a note, shortened. */
static char *
snip(struct sx *x, size_t a, size_t b)
{
	size_t n = b - a;

	if (n > SNIP_MAX)
		return mcinit_xasprintf("%.*s...", SNIP_MAX, x->s + a);
	return mcinit_xasprintf("%.*s", (int)n, x->s + a);
}

static int
peekc(const struct sx *x, size_t k)
{
	return x->i + k < x->len ? (unsigned char)x->s[x->i + k] : -1;
}

static void
adv(struct sx *x)
{
	unsigned char c = (unsigned char)x->s[x->i++];

	if (x->map != NULL) { /* a string read as commands: where it was written */
		x->line = x->map[x->i].line;
		x->col = x->map[x->i].col;
	} else if (c == '\n') {
		x->line++;
		x->col = 1;
	} else if ((c & 0xC0) != 0x80) {
		x->col++;
	}
}

static int
at_cont(const struct sx *x)
{
	return peekc(x, 0) == '\\' &&
	       (peekc(x, 1) == '\n' || (peekc(x, 1) == '\r' && peekc(x, 2) == '\n'));
}

static void
skip_cont(struct sx *x)
{
	while (at_cont(x)) {
		adv(x);
		if (peekc(x, 0) == '\r')
			adv(x);
		adv(x);
	}
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int
is_sep(int c)
{
	return c < 0 || is_blank(c) || c == '\n' || (c != 0 && strchr(";&|()<>", c) != NULL);
}

static int
is_ident(int c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static void
skip_blanks(struct sx *x)
{
	for (;;) {
		skip_cont(x);
		if (!is_blank(peekc(x, 0)))
			return;
		adv(x);
	}
}

static void
skip_comment(struct sx *x)
{
	while (peekc(x, 0) >= 0 && peekc(x, 0) != '\n')
		adv(x);
}

/* ---- pstr / plist ---- */

/* A command, an array or a for loop's list of more words than mcinit takes
 * from a launch script (MCINIT_MAX_SCRIPT_WORDS) is refused as it is read:
 * each word costs some 200 bytes, so 16 MiB of short words took 1.5 GB
 * before the count was checked on the launch found.  -1 with x->err (and
 * x->too_deep, for a caller that drops errors). */
#define WORDS_MSG(what)                                                                            \
	what " of more than 65536 words, more than mcinit reads from a launch script: not read"
static const char words_cmd_msg[] = WORDS_MSG("a command"), words_list_msg[] = WORDS_MSG("a list");

static int
too_many_words(struct sx *x, const struct plist *l, int line, int col, const char *msg)
{
	if (l->n <= MCINIT_MAX_SCRIPT_WORDS)
		return 0;
	x->too_deep = msg;
	return fail(x, line, col, msg);
}

static void
exhaust(struct sx *x)
{
	if (x->exhausted)
		return;
	x->exhausted = 1;
	script_bound(x, 0, 0,
	             "expansion stopped after %zu characters (a variable that grows "
	             "exponentially?); later words may be missing",
	             x->budget_base);
}

static void
put(struct pstr *p, struct pch ch)
{
	if (p == NULL)
		return;
	MCINIT_GROW(p->v, p->cap, p->n + 1);
	p->v[p->n++] = ch;
}

/* Copying a variable's value is the only way output can outgrow the input,
 * so only that is charged to the budget; once spent, expansions yield
 * nothing while text written in the script is still read. */
static int
charge(struct sx *x, size_t n)
{
	if (x->budget < n) {
		x->budget = 0;
		x->cut++;
		exhaust(x);
		return 0;
	}
	x->budget -= n;
	return 1;
}

static void
putc_at(struct pstr *p, int c, unsigned fl, int line, int col)
{
	put(p, (struct pch){(char)c, (unsigned char)fl, line, col, -1, -1});
}

static void
ps_free(struct pstr *p)
{
	free(p->v);
	memset(p, 0, sizeof *p);
}

static void
pl_free(struct plist *l)
{
	for (size_t k = 0; k < l->n; k++)
		ps_free(&l->v[k]);
	free(l->v);
	memset(l, 0, sizeof *l);
}

static void
pl_push(struct plist *l, struct pstr *p) /* takes ownership of *p */
{
	MCINIT_GROW(l->v, l->cap, l->n + 1);
	l->v[l->n++] = *p;
	memset(p, 0, sizeof *p);
}

static size_t
ps_nchars(const struct pstr *p)
{
	size_t n = 0;

	for (size_t k = 0; k < p->n; k++)
		n += !(p->v[k].fl & PF_MARK);
	return n;
}

static char *
ps_text(const struct pstr *p)
{
	char *t = mcinit_xmalloc(p->n + 1);
	size_t n = 0;

	for (size_t k = 0; k < p->n; k++)
		if (!(p->v[k].fl & PF_MARK))
			t[n++] = p->v[k].c;
	t[n] = '\0';
	return t;
}

static int
ps_opaque(const struct pstr *p)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].fl & PF_OPAQUE)
			return 1;
	return 0;
}

/* One growth and one copy: values are copied whole in loops (saving,
 * appending, grouping), so a per-character put showed in profiles. */
static void
ps_copy(struct pstr *dst, const struct pstr *src)
{
	if (src->n == 0)
		return;
	MCINIT_GROW(dst->v, dst->cap, dst->n + src->n);
	memcpy(dst->v + dst->n, src->v, src->n * sizeof *src->v);
	dst->n += src->n;
}

/* ---- variables ---- */

static uint32_t
hash_name(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int
var_find(const struct sx *x, const char *name, size_t n)
{
	if (x->hcap == 0)
		return -1;
	for (size_t h = hash_name(name, n) & (x->hcap - 1);; h = (h + 1) & (x->hcap - 1)) {
		int k = x->hash[h] - 1;

		if (k < 0)
			return -1;
		if (strlen(x->vars[k].name) == n && memcmp(x->vars[k].name, name, n) == 0)
			return k;
	}
}

static void
hash_insert(struct sx *x, int k)
{
	const char *name = x->vars[k].name;
	size_t h = hash_name(name, strlen(name)) & (x->hcap - 1);

	while (x->hash[h] != 0)
		h = (h + 1) & (x->hcap - 1);
	x->hash[h] = k + 1;
}

static int
var_get(struct sx *x, const char *name, size_t n)
{
	int k = var_find(x, name, n);

	if (k >= 0)
		return k;
	if (2 * (x->nvars + 1) > x->hcap) {
		x->hcap = x->hcap ? 2 * x->hcap : 64;
		free(x->hash);
		x->hash = mcinit_xcalloc(x->hcap, sizeof *x->hash);
		for (size_t j = 0; j < x->nvars; j++)
			hash_insert(x, (int)j);
	}
	MCINIT_GROW(x->vars, x->capvars, x->nvars + 1);
	memset(&x->vars[x->nvars], 0, sizeof x->vars[x->nvars]);
	x->vars[x->nvars].name = mcinit_xasprintf("%.*s", (int)n, name);
	hash_insert(x, (int)x->nvars);
	return (int)x->nvars++;
}

static void
var_save(const struct var *v, struct var *out)
{
	*out = *v;
	memset(&out->val, 0, sizeof out->val);
	for (size_t k = 0; k < v->val.n; k++) {
		struct pstr p = {0};

		ps_copy(&p, &v->val.v[k]);
		pl_push(&out->val, &p);
	}
}

/* Saves variable vi's state in frame f, once: the frame puts it back. */
static void
frame_save(struct sx *x, struct frame *f, int vi, const struct var *v)
{
	for (size_t k = 0; k < f->n; k++)
		if (f->sv[k].vi == vi)
			return;
	for (size_t k = 0; k < v->val.n; k++)
		charge(x, v->val.v[k].n + EL_COST); /* copied: counts as expanded */
	MCINIT_GROW(f->sv, f->cap, f->n + 1);
	f->sv[f->n].vi = vi;
	f->sv[f->n].trunc = 0;
	var_save(v, &f->sv[f->n].v);
	f->n++;
}

/* Before variable vi changes: the innermost subshell being read (a command
 * substitution) puts it back when it ends, as bash's subshell would. */
static void
touch_var(struct sx *x, int vi)
{
	x->vars[vi].gen = ++x->gen;
	for (size_t k = x->nframes; k-- > 0;)
		if (x->frames[k].all) {
			frame_save(x, &x->frames[k], vi, &x->vars[vi]);
			return;
		}
}

/* Whether variable vi (-1: never named) is not assigned but may have been
 * set by a sourced file mcinit could not read: then only the run knows it,
 * never taken as unset. */
static int
var_maybe(const struct sx *x, int vi)
{
	const struct var *v = vi >= 0 ? &x->vars[vi] : NULL;

	if (x->unread == NULL || vi == x->at)
		return 0;
	return v == NULL || (!v->defined && (v->maybe || !v->was_unset));
}

/* ---- $((...)) arithmetic, as bash evaluates it (64-bit, wrapping) ---- */

struct arith {
	struct sx *x;
	const char *s;
	size_t n, i;
	const char *why; /* set when the value cannot be known */
	int depth;
	int nest; /* recursion of arith_expr and arith_unary, see MAX_ARITH_DEPTH */
};

static long long arith_expr(struct arith *a, int prec);
static long long arith_deeper(struct arith *a, int prec, int unary);

static const char arith_deep_msg[] = "arithmetic nested too deeply (more than 256 levels)";

/* Enters one level of the evaluator: 0, or 1 (why set, and the scan told
 * so it fails at the expression's place) past MAX_ARITH_DEPTH. */
static int
arith_enter(struct arith *a)
{
	if (++a->nest <= MAX_ARITH_DEPTH)
		return 0;
	a->why = arith_deep_msg;
	a->x->too_deep = arith_deep_msg;
	return 1;
}

static void
arith_ws(struct arith *a)
{
	while (a->i < a->n && strchr(" \t\n\r", a->s[a->i]) != NULL)
		a->i++;
}

static int
arith_peek(struct arith *a, const char *op)
{
	size_t n = strlen(op);

	arith_ws(a);
	return a->n - a->i >= n && memcmp(a->s + a->i, op, n) == 0;
}

/* A number: decimal, 0x hex, 0 octal, BASE#digits. */
static long long
arith_number(struct arith *a)
{
	unsigned long long v = 0;
	int base = 10;
	size_t st = a->i;

	while (a->i < a->n && (is_ident((unsigned char)a->s[a->i], 0) || a->s[a->i] == '#'))
		a->i++;
	{
		char *t = mcinit_xasprintf("%.*s", (int)(a->i - st), a->s + st),
		     *hash = strchr(t, '#'), *d = t, *end;

		if (hash != NULL) {
			*hash = '\0';
			base = atoi(t);
			d = hash + 1;
		} else if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
			base = 16;
			d = t + 2;
		} else if (t[0] == '0' && t[1] != '\0') {
			base = 8;
			d = t + 1;
		}
		if (base < 2 || base > 36) {
			a->why = "invalid arithmetic base";
		} else {
			errno = 0;
			v = strtoull(d, &end, base);
			if (*end != '\0' || end == d)
				a->why = "invalid number in arithmetic";
		}
		free(t);
	}
	return (long long)v;
}

static long long
arith_var(struct arith *a, const char *name, size_t len)
{
	int vi = var_find(a->x, name, len);
	const struct var *v = vi >= 0 ? &a->x->vars[vi] : NULL;
	struct arith sub = {0};
	long long r;
	char *t;

	if (v == NULL || !v->defined) {
		a->why = "a variable not assigned in this script";
		return 0;
	}
	if (v->val.n == 0 || ps_opaque(&v->val.v[0])) {
		a->why = "a variable known only at run time";
		return 0;
	}
	if (a->depth > 16) {
		a->why = "arithmetic variables refer to each other too deeply";
		return 0;
	}
	t = ps_text(&v->val.v[0]);
	sub.x = a->x;
	sub.s = t;
	sub.n = strlen(t);
	sub.depth = a->depth + 1;
	sub.nest = a->nest;
	r = sub.n == 0 ? 0 : arith_expr(&sub, 0); /* bash: an empty value is 0 */
	arith_ws(&sub);
	if (sub.why == NULL && sub.i < sub.n)
		sub.why = "a variable whose value is not a number";
	if (sub.why != NULL)
		a->why = sub.why;
	free(t);
	return r;
}

static long long
arith_unary(struct arith *a)
{
	char c;

	arith_ws(a);
	if (a->i >= a->n) {
		a->why = "arithmetic syntax error";
		return 0;
	}
	c = a->s[a->i];
	if (arith_peek(a, "++") || arith_peek(a, "--")) {
		a->why = "++/-- in arithmetic";
		return 0;
	}
	if (strchr("+-!~", c)) {
		long long v;

		a->i++;
		v = arith_deeper(a, 0, 1);
		return c == '-'   ? (long long)(0 - (unsigned long long)v)
		       : c == '!' ? !v
		       : c == '~' ? ~v
		                  : v;
	}
	if (c == '(') {
		long long v;

		a->i++;
		v = arith_deeper(a, 0, 0);
		if (!arith_peek(a, ")"))
			a->why = "arithmetic syntax error";
		else
			a->i++;
		return v;
	}
	if (c == '$') { /* $V and ${V} inside $((...)) */
		size_t st;

		a->i++;
		if (a->i < a->n && a->s[a->i] == '{') {
			st = ++a->i;
			while (a->i < a->n && is_ident((unsigned char)a->s[a->i], a->i == st))
				a->i++;
			if (a->i >= a->n || a->s[a->i] != '}' || a->i == st) {
				a->why = "a parameter expansion mcinit does not evaluate";
				return 0;
			}
			a->i++;
			return arith_var(a, a->s + st, a->i - 1 - st);
		}
		st = a->i;
		while (a->i < a->n && is_ident((unsigned char)a->s[a->i], a->i == st))
			a->i++;
		if (a->i == st) {
			a->why = "a script argument or special parameter";
			return 0;
		}
		return arith_var(a, a->s + st, a->i - st);
	}
	if (is_digit(c))
		return arith_number(a);
	if (is_ident(c, 1)) {
		size_t st = a->i;

		while (a->i < a->n && is_ident((unsigned char)a->s[a->i], 0))
			a->i++;
		return arith_var(a, a->s + st, a->i - st);
	}
	a->why = "arithmetic mcinit does not evaluate";
	return 0;
}

/* Binary operators by bash's precedence, lowest first. */
static const struct {
	const char *op;
	int prec;
} arith_ops[] = {
    {"||", 1}, {"&&", 2},  {"|", 3},  {"^", 4},  {"&", 5},  {"==", 6}, {"!=", 6},
    {"<=", 7}, {">=", 7},  {"<<", 8}, {">>", 8}, {"<", 7},  {">", 7},  {"+", 9},
    {"-", 9},  {"**", 11}, {"*", 10}, {"/", 10}, {"%", 10},
};

static long long
arith_apply(struct arith *a, const char *op, long long l, long long r)
{
	unsigned long long ul = (unsigned long long)l, ur = (unsigned long long)r;

	if ((strcmp(op, "/") == 0 || strcmp(op, "%") == 0) && r == 0) {
		a->why = "division by 0 (bash stops the script there)";
		return 0;
	}
	switch (op[0]) {
	case '|':
		return op[1] ? (l || r) : (l | r);
	case '&':
		return op[1] ? (l && r) : (l & r);
	case '^':
		return l ^ r;
	case '=':
		return l == r;
	case '!':
		return l != r;
	case '<':
		return op[1] == '<' ? (long long)(ul << (ur & 63)) : op[1] ? l <= r : l < r;
	case '>':
		return op[1] == '>' ? l >> (r & 63) : op[1] ? l >= r : l > r;
	case '+':
		return (long long)(ul + ur);
	case '-':
		return (long long)(ul - ur);
	case '*':
		if (op[1] == '*') {
			unsigned long long p = 1;

			if (r < 0) {
				a->why = "negative exponent";
				return 0;
			}
			/* by squaring, as bash: one multiplication per unit of
			 * the exponent took minutes for 2 ** 9999999999 (a fuzzing
			 * timeout); the same product modulo 2^64 */
			for (; ur > 0; ur >>= 1, ul *= ul)
				if (ur & 1)
					p *= ul;
			return (long long)p;
		}
		return (long long)(ul * ur);
	case '/':
		return l == LLONG_MIN && r == -1 ? l : l / r;
	default:
		return l == LLONG_MIN && r == -1 ? 0 : l % r;
	}
}

/* arith_expr or arith_unary one level deeper: 0 past the bound. */
static long long
arith_deeper(struct arith *a, int prec, int unary)
{
	long long v = 0;

	if (!arith_enter(a))
		v = unary ? arith_unary(a) : arith_expr(a, prec);
	a->nest--;
	return v;
}

static long long
arith_expr(struct arith *a, int prec)
{
	long long l = arith_unary(a);

	while (a->why == NULL) {
		size_t k, nops = sizeof arith_ops / sizeof arith_ops[0];

		if (prec == 0 && arith_peek(a, "?")) {
			long long t, f;

			a->i++;
			t = arith_deeper(a, 0, 0);
			if (!arith_peek(a, ":")) {
				a->why = "arithmetic syntax error";
				return 0;
			}
			a->i++;
			f = arith_deeper(a, 0, 0);
			return l ? t : f;
		}
		for (k = 0; k < nops; k++)
			if (arith_peek(a, arith_ops[k].op))
				break;
		if (k == nops || arith_ops[k].prec <= prec - (arith_ops[k].prec == 11))
			break;
		if (arith_peek(a, "=") && !arith_peek(a, "==")) {
			a->why = "assignment in arithmetic";
			return 0;
		}
		a->i += strlen(arith_ops[k].op);
		if (a->i < a->n && a->s[a->i] == '=' && arith_ops[k].prec >= 8) {
			a->why = "assignment in arithmetic";
			return 0;
		}
		l = arith_apply(a, arith_ops[k].op, l, arith_deeper(a, arith_ops[k].prec, 0));
	}
	return l;
}

/* ---- lexing ---- */

static int lex_word(struct sx *x, struct pstr *out, int term, int inq);
static int lex_dollar(struct sx *x, struct pstr *out, int quoted);
static int lex_backquote(struct sx *x, struct pstr *out, int quoted);

/* Appends source bytes [a, x->i) as unexpandable text with a note. */
static void
opaque(struct sx *x, struct pstr *out, size_t a, int line, int col, int quoted, const char *why)
{
	char *raw;
	int ev;

	if (out == NULL)
		return;
	raw = snip(x, a, x->i);
	ev = add_event(x, line, col, "`%s`: %s; word kept as written", raw, why);
	free(raw);
	for (size_t k = a; k < x->i; k++) {
		unsigned char c = (unsigned char)x->s[k];

		put(out, (struct pch){(char)c,
		                      (unsigned char)(PF_OPAQUE | (quoted ? PF_QUOTED : 0) |
		                                      (why == x->unread ? PF_UNREAD : 0)),
		                      line, col, -1, ev});
		if (c == '\n') {
			line++;
			col = 1;
		} else if ((c & 0xC0) != 0x80) {
			col++;
		}
	}
}

/* Skips to the `close` matching an already consumed `open`, over quotes. */
static int
skip_nested(struct sx *x, int open, int close)
{
	int depth = 1, c;

	while (depth > 0) {
		c = peekc(x, 0);
		if (c < 0)
			return -1;
		if (c == '\\') {
			adv(x);
			if (peekc(x, 0) >= 0)
				adv(x);
			continue;
		}
		if (open < 0 && c == close) {
			depth--;
		} else if (c == '\'' || c == '"' || c == '`') {
			adv(x);
			while (peekc(x, 0) >= 0 && peekc(x, 0) != c) {
				if (c != '\'' && peekc(x, 0) == '\\')
					adv(x);
				if (peekc(x, 0) >= 0)
					adv(x);
			}
			if (peekc(x, 0) < 0)
				return -1;
		} else if (c == open) {
			depth++;
		} else if (c == close) {
			depth--;
		}
		adv(x);
	}
	return 0;
}

static int
lex_sq(struct sx *x, struct pstr *out)
{
	int line = x->line, col = x->col;
	size_t n0 = out ? out->n : 0;

	adv(x);
	for (;;) {
		int c = peekc(x, 0);

		if (c < 0)
			return fail(x, line, col, "unterminated single quote");
		if (c == '\'')
			break;
		putc_at(out, c, PF_QUOTED, x->line, x->col);
		adv(x);
	}
	adv(x);
	if (out && out->n == n0)
		putc_at(out, 0, PF_EMPTYQ, line, col);
	return 0;
}

static int
hexval(int c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One escape of $'...' after its backslash: the byte, or -2 when the
 * escape is unknown (the backslash stays, the character follows). */
static int
ansi_escape(struct sx *x)
{
	static const char from[] = "abefnrtv\\'\"?", to[] = "\a\b\033\f\n\r\t\v\\'\"?";
	int c = peekc(x, 0), v = 0, k;
	const char *p = c > 0 ? strchr(from, c) : NULL;

	if (p != NULL) {
		adv(x);
		return to[p - from];
	}
	if (c == 'x' && hexval(peekc(x, 1)) >= 0) {
		adv(x);
		for (k = 0; k < 2 && hexval(peekc(x, 0)) >= 0; k++, adv(x))
			v = v * 16 + hexval(peekc(x, 0));
		return v;
	}
	if (c >= '0' && c <= '7') {
		for (k = 0; k < 3 && peekc(x, 0) >= '0' && peekc(x, 0) <= '7'; k++, adv(x))
			v = v * 8 + peekc(x, 0) - '0';
		return v & 0xFF;
	}
	return -2; /* unknown: keep the backslash and the character */
}

/* $'...' (cursor at the quote). */
static int
lex_ansi(struct sx *x, struct pstr *out, int line, int col)
{
	size_t n0 = out ? out->n : 0;

	adv(x);
	for (;;) {
		int c = peekc(x, 0), l = x->line, cl = x->col;

		if (c < 0)
			return fail(x, line, col, "unterminated $'...' quote");
		if (c == '\'')
			break;
		adv(x);
		if (c == '\\' && peekc(x, 0) >= 0) {
			c = ansi_escape(x);
			if (c == -2) {
				putc_at(out, '\\', PF_QUOTED, l, cl);
				continue;
			}
		}
		if (c > 0) /* a NUL ends a C string: drop it, as bash does */
			putc_at(out, c, PF_QUOTED, l, cl);
	}
	adv(x);
	if (out && out->n == n0)
		putc_at(out, 0, PF_EMPTYQ, line, col);
	return 0;
}

static int
lex_dq(struct sx *x, struct pstr *out)
{
	int line = x->line, col = x->col;
	size_t n0 = out ? out->n : 0, at0 = x->nat;

	adv(x);
	for (;;) {
		int c;

		skip_cont(x);
		c = peekc(x, 0);
		if (c < 0)
			return fail(x, line, col, "unterminated double quote");
		if (c == '"')
			break;
		if (c == '\\' && peekc(x, 1) > 0 && strchr("$`\"\\", peekc(x, 1))) {
			int l = x->line, cl = x->col;

			adv(x);
			putc_at(out, peekc(x, 0), PF_QUOTED, l, cl);
			adv(x);
		} else if (c == '$') {
			if (lex_dollar(x, out, 1) < 0)
				return -1;
		} else if (c == '`') {
			if (lex_backquote(x, out, 1) < 0)
				return -1;
		} else {
			putc_at(out, c, PF_QUOTED, x->line, x->col);
			adv(x);
		}
	}
	adv(x);
	if (out && out->n == n0 && x->nat == at0)
		putc_at(out, 0, PF_EMPTYQ, line, col);
	return 0;
}

/* Where an element was written: its first character or empty-marker. */
static void
el_pos(const struct pstr *el, int *line, int *col, int *var)
{
	if (el->n > 0 && el->v[0].line > 0) {
		*line = el->v[0].line;
		*col = el->v[0].col;
		*var = el->v[0].var;
	}
}

/* Appends an element; a character written nowhere in the script (a script
 * argument) is placed where it is expanded. */
static void
append_el(struct sx *x, struct pstr *out, const struct pstr *el, int quoted, int line, int col)
{
	if (!charge(x, el->n + EL_COST))
		return;
	for (size_t k = 0; k < el->n; k++) {
		struct pch ch = el->v[k];

		if (ch.fl & PF_MARK)
			continue;
		if (ch.line == 0)
			ch.line = line, ch.col = col;
		ch.fl = (unsigned char)((ch.fl & (PF_OPAQUE | PF_UNREAD | PF_SRCQ)) |
		                        (quoted ? PF_QUOTED : 0));
		put(out, ch);
	}
}

enum sub { SUB_NONE, SUB_AT, SUB_STAR, SUB_INDEX };

static void
select_range(const struct var *v, enum sub sub, long idx, size_t *from, size_t *to)
{
	size_t n = v->val.n;

	*from = 0;
	*to = n;
	if (sub == SUB_NONE) {
		*to = n > 0;
	} else if (sub == SUB_INDEX) {
		long k = idx < 0 ? (long)n + idx : idx;

		if (k < 0 || (size_t)k >= n)
			*to = 0;
		else
			*from = (size_t)k, *to = (size_t)k + 1;
	}
}

static int
range_null(const struct var *v, size_t from, size_t to)
{
	for (size_t k = from; k < to; k++)
		if (ps_nchars(&v->val.v[k]) > 0)
			return 0;
	return 1;
}

/* Elements [from, to) of variable vi, as ${v[@]} (sub SUB_AT), ${v[*]} or
 * one element expands them. */
static void
expand_range(struct sx *x, struct pstr *out, int vi, enum sub sub, size_t from, size_t to,
             int quoted, int line, int col)
{
	const struct var *v = &x->vars[vi];
	size_t n0 = out ? out->n : 0;

	if (out == NULL)
		return;
	if (sub == SUB_AT && quoted) {
		/* "${a[@]}": one field per element, even empty ones */
		x->nat++;
		for (size_t k = from; k < to; k++) {
			const struct pstr *el = &v->val.v[k];
			int l = line, c = col, var = vi;

			el_pos(el, &l, &c, &var);
			if (k > from)
				put(out, (struct pch){0, PF_BREAK, l, c, var, -1});
			append_el(x, out, el, 1, line, col);
			if (ps_nchars(el) == 0)
				put(out, (struct pch){0, PF_EMPTYQ, l, c, var, -1});
		}
		return;
	}
	for (size_t k = from; k < to; k++) {
		if (k > from)
			putc_at(out, ' ', quoted ? PF_QUOTED : 0, line, col);
		append_el(x, out, &v->val.v[k], quoted, line, col);
	}
	if (quoted && out->n == n0) {
		int l = line, c = col, var = vi;

		if (from < to)
			el_pos(&v->val.v[from], &l, &c, &var);
		put(out, (struct pch){0, PF_EMPTYQ, l, c, var, -1});
	}
}

static void
expand_var(struct sx *x, struct pstr *out, int vi, enum sub sub, long idx, int quoted, int line,
           int col)
{
	size_t from, to;

	select_range(&x->vars[vi], sub, idx, &from, &to);
	expand_range(x, out, vi, sub, from, to, quoted, line, col);
}

static int local_frame(const struct sx *x);

/* $N of a script (or function) not given N arguments: bash expands it to
 * nothing, which may leave a flag without its value; said where it is. */
static void
missing_arg(struct sx *x, const struct pstr *out, long n, int line, int col)
{
	if (out == NULL || x->dead || (size_t)n <= x->vars[x->at].val.n)
		return;
	if (local_frame(x) > 0)
		script_note(x, line, col,
		            "`$%ld`: the function is called with %zu argument%s here, so bash "
		            "expands it to nothing",
		            n, x->vars[x->at].val.n, x->vars[x->at].val.n == 1 ? "" : "s");
	else
		script_note(
		    x, line, col,
		    "`$%ld`: the script is read as run with %zu argument%s, so bash expands "
		    "it to nothing (mcinit validate --script-args gives them)",
		    n, x->vars[x->at].val.n, x->vars[x->at].val.n == 1 ? "" : "s");
}

/* A number (a count, an index) as text at an expansion's place. */
static void
put_number(struct pstr *out, long long v, int quoted, int line, int col)
{
	char num[24];

	snprintf(num, sizeof num, "%lld", v);
	for (char *p = num; *p; p++)
		putc_at(out, *p, quoted ? PF_QUOTED : 0, line, col);
}

/* Gives every character of p that has no note the note ev. */
static void
attach_event(struct pstr *p, int ev)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].ev < 0)
			p->v[k].ev = ev;
}

static void assign_scalar(struct sx *x, int vi, struct pstr *val, int append, int line, int col,
                          int group);

struct bparam {
	size_t start; /* offset of the `$` */
	int line, col, quoted;
	int vi;    /* variable index (x->at: positional), -1 special or unknown */
	int known; /* assigned in the script */
	enum sub sub;
	long idx;
	int colon, op;      /* op: 0, '-', '=', '+', '?' */
	int slice, has_cnt; /* ${a[@]:off:cnt}, ${@:off} */
	long long off, cnt;
};

static void subst_expand(struct sx *x, struct pstr *out, const struct bparam *b, size_t from,
                         size_t to, int line, int col);

/* The word of ${v:-word} and friends, used: lex it, then append it. */
static int
use_word(struct sx *x, struct pstr *out, struct bparam *b)
{
	struct pstr w = {0};
	int ret = -1;

	if (lex_word(x, out ? &w : NULL, '}', b->quoted) < 0)
		goto out;
	if (peekc(x, 0) != '}') {
		ret = fail(x, b->line, b->col, "unterminated ${");
		goto out;
	}
	adv(x);
	ret = 0;
	if (out == NULL)
		goto out;
	if (!b->known) {
		char *raw = snip(x, b->start, x->i);

		attach_event(&w,
		             add_event(x, b->line, b->col,
		                       "`%s`: %s is not assigned in this script; assuming "
		                       "it is unset and using the default",
		                       raw, b->vi >= 0 ? x->vars[b->vi].name : "the parameter"));
		free(raw);
	}
	if (b->op == '=' && b->vi >= 0 && !x->dead) {
		struct pstr val = {0};

		ps_copy(&val, &w);
		assign_scalar(x, b->vi, &val, 0, b->line, b->col, 1);
		for (size_t k = 0; k < w.n; k++)
			if (w.v[k].var < 0)
				w.v[k].var = b->vi;
	}
	for (size_t k = 0; k < w.n; k++) {
		struct pch ch = w.v[k];

		if (b->quoted && !(ch.fl & PF_MARK))
			ch.fl |= PF_QUOTED;
		put(out, ch);
	}
	if (b->quoted && w.n == 0) /* "${v:-}" is still one (empty) word */
		putc_at(out, 0, PF_EMPTYQ, b->line, b->col);
out:
	ps_free(&w);
	return ret;
}

/* ${a[@]:off:cnt} / ${@:off:cnt}: narrows [from, to); -1 for what mcinit
 * leaves to bash ($0, a negative count). */
static int
slice_range(const struct sx *x, const struct bparam *b, size_t *from, size_t *to)
{
	long long n = (long long)*to, off = b->off;

	if (b->vi == x->at && off-- == 0)
		return -1; /* ${@:0} starts with $0 */
	if (off < 0)
		off += n;
	if (off < 0 || off > n)
		off = n; /* bash: nothing */
	if (b->has_cnt && b->cnt < 0)
		return -1;
	*from = (size_t)off;
	*to = (size_t)(b->has_cnt && off + b->cnt < n ? off + b->cnt : n);
	return 0;
}

/* Evaluates a parsed ${...} whose operator word (if any) is at the cursor. */
static int
eval_bparam(struct sx *x, struct pstr *out, struct bparam *b)
{
	enum { VALUE, EMPTY, OPAQUE } what = b->known ? VALUE : OPAQUE;
	const char *why = b->vi >= 0 ? "variable not assigned in this script"
	                             : "script argument or special parameter";
	size_t from = 0, to = 0;
	int null = 1, set, maybe = !b->known && b->vi >= 0 && var_maybe(x, b->vi);

	if (maybe)
		why = x->unread; /* not the default: the file may set it */
	if (b->known) {
		select_range(&x->vars[b->vi], b->sub, b->idx, &from, &to);
		if (b->slice && slice_range(x, b, &from, &to) < 0)
			what = OPAQUE, why = "a slice mcinit does not evaluate";
		/* an empty array, or a missing element, is unset as far as ${v-w} goes */
		null = range_null(&x->vars[b->vi], from, to);
	}
	set = what == VALUE && from < to && (!b->colon || !null);

	if ((b->op == '-' || b->op == '=') && !set && !maybe)
		return use_word(x, out, b);
	if (b->op == '+' && set)
		return use_word(x, out, b);
	if (b->op == '+' && b->known)
		what = EMPTY; /* assigned but null: ${v:+w} is empty */
	if (b->op == '?' && !set) {
		what = OPAQUE;
		if (b->known)
			why = "variable is empty, so the script would stop here";
	}
	if (b->op != 0) {
		if (lex_word(x, NULL, '}', b->quoted) < 0)
			return -1;
		if (peekc(x, 0) != '}')
			return fail(x, b->line, b->col, "unterminated ${");
	}
	adv(x); /* the closing brace */
	if (b->vi == x->at && b->sub == SUB_INDEX && b->op == 0)
		missing_arg(x, out, b->idx + 1, b->line, b->col);
	if (what == VALUE)
		expand_range(x, out, b->vi, b->sub, from, to, b->quoted, b->line, b->col);
	else if (what == EMPTY && b->quoted)
		putc_at(out, 0, PF_EMPTYQ, b->line, b->col);
	else if (what == OPAQUE)
		opaque(x, out, b->start, b->line, b->col, b->quoted, why);
	return 0;
}

/* Reads `[sub]` after a name; returns 0 ok, 1 unsupported subscript. */
static int
read_subscript(struct sx *x, struct bparam *b)
{
	size_t a;

	if (peekc(x, 0) != '[')
		return 0;
	adv(x);
	a = x->i;
	while (peekc(x, 0) >= 0 && peekc(x, 0) != ']' && peekc(x, 0) != '}')
		adv(x);
	if (peekc(x, 0) != ']')
		return 1;
	adv(x);
	if (x->i - a == 2 && (x->s[a] == '@' || x->s[a] == '*')) {
		b->sub = x->s[a] == '@' ? SUB_AT : SUB_STAR;
		return 0;
	}
	if (x->i - a > 1) { /* an indexed array's subscript is arithmetic: a[$i], a[i+1] */
		struct arith ar = {x, x->s + a, x->i - a - 1, 0, NULL, 0, 0};
		long long v = arith_expr(&ar, 0);

		arith_ws(&ar);
		if (ar.why == NULL && ar.i == ar.n && v >= LONG_MIN && v <= LONG_MAX) {
			b->sub = SUB_INDEX;
			b->idx = (long)v;
			return 0;
		}
	}
	return 1;
}

/* An arithmetic expression of a slice, [from, to) of the text. */
static int
slice_num(struct sx *x, size_t from, size_t to, long long *v)
{
	struct arith ar = {x, x->s + from, to - from, 0, NULL, 0, 0};

	*v = arith_expr(&ar, 0);
	arith_ws(&ar);
	return ar.why == NULL && ar.i == ar.n ? 0 : -1;
}

/* `:off}` or `:off:cnt}` after ${a[@] or ${@ (the cursor at the colon);
 * 0 read (the cursor at the brace), -1 not one mcinit evaluates. */
static int
read_slice(struct sx *x, struct bparam *b)
{
	size_t a = x->i + 1, e = a, colon = 0;

	if (peekc(x, 1) > 0 && strchr("-=+?", peekc(x, 1)))
		return -1; /* ${a[@]:-w} */
	while (e < x->len && x->s[e] != '}' && x->s[e] != '$' && x->s[e] != '\n') {
		if (x->s[e] == ':' && colon == 0)
			colon = e;
		e++;
	}
	if (e >= x->len || x->s[e] != '}' || slice_num(x, a, colon ? colon : e, &b->off) < 0 ||
	    (colon && slice_num(x, colon + 1, e, &b->cnt) < 0))
		return -1;
	b->slice = 1;
	b->has_cnt = colon != 0;
	while (x->i < e)
		adv(x);
	return 0;
}

/* Characters (UTF-8 code points) of an element, as ${#V} counts them. */
static long long
el_length(const struct pstr *p)
{
	long long n = 0;

	for (size_t k = 0; k < p->n; k++)
		n += !(p->v[k].fl & PF_MARK) && ((unsigned char)p->v[k].c & 0xC0) != 0x80;
	return n;
}

/* ${!a[@]}: the indices 0 ... n-1, one field each. */
static void
put_indices(struct sx *x, struct pstr *out, size_t n, const struct bparam *b)
{
	if (b->quoted)
		x->nat++;
	for (size_t k = 0; k < n; k++) {
		if (k > 0)
			put(out, (struct pch){b->quoted ? 0 : ' ',
			                      (unsigned char)(b->quoted ? PF_BREAK : 0), b->line,
			                      b->col, -1, -1});
		put_number(out, (long long)k, b->quoted, b->line, b->col);
	}
}

/* ${#}, ${#V}, ${#a[@]}, ${#@}, ${!a[@]}; the cursor is at the # or !. */
static int
lex_count(struct sx *x, struct pstr *out, struct bparam *b)
{
	int op = peekc(x, 0), vi = -1, c;
	const struct var *v;
	size_t a;

	adv(x);
	c = peekc(x, 0);
	a = x->i;
	if (c == '}' || c == '@' || c == '*') {
		vi = op == '#' ? x->at : -1; /* ${#}, ${#@}; ${!} is a process id */
		b->sub = SUB_AT;
		if (c != '}')
			adv(x);
	} else if (is_ident(c, 1)) {
		while (is_ident(peekc(x, 0), 0))
			adv(x);
		vi = var_find(x, x->s + a, x->i - a);
		if (read_subscript(x, b) != 0 ||
		    (op == '!' && b->sub != SUB_AT && b->sub != SUB_STAR))
			vi = -1; /* ${!V}: indirection */
	}
	v = vi >= 0 ? &x->vars[vi] : NULL;
	if (v == NULL || !v->defined || peekc(x, 0) != '}' || v->cut) {
		if (skip_nested(x, '{', '}') < 0)
			return fail(x, b->line, b->col, "unterminated ${");
		opaque(x, out, b->start, b->line, b->col, b->quoted,
		       v != NULL && !v->defined ? "variable not assigned in this script"
		       : v != NULL && v->cut
		           ? "a value mcinit cut at one of its bounds: its length is known only "
		             "at run time"
		           : "parameter expansion mcinit does not evaluate");
		return 0;
	}
	adv(x);
	if (out == NULL)
		return 0;
	if (op == '!') {
		put_indices(x, out, v->val.n, b);
	} else if (b->sub == SUB_AT || b->sub == SUB_STAR) {
		/* an element kept as written (`$(cmd)`, a variable from the
		 * environment) may be any number of words at run time */
		for (size_t k = 0; k < v->val.n; k++)
			if (ps_opaque(&v->val.v[k])) {
				opaque(x, out, b->start, b->line, b->col, b->quoted,
				       "an element known only at run time: the count is too");
				return 0;
			}
		put_number(out, (long long)v->val.n, b->quoted, b->line, b->col);
	} else {
		size_t from, to;

		select_range(v, b->sub, b->idx, &from, &to);
		if (from < to && ps_opaque(&v->val.v[from])) { /* not the source's length */
			opaque(x, out, b->start, b->line, b->col, b->quoted,
			       "a value known only at run time: its length is too");
			return 0;
		}
		put_number(out, from < to ? el_length(&v->val.v[from]) : 0, b->quoted, b->line,
		           b->col);
	}
	return 0;
}

/* ${...}; the cursor is at the `{`. */
static int
lex_brace(struct sx *x, struct pstr *out, struct bparam *b)
{
	int c, unsupported = 0;
	size_t a;

	adv(x);
	c = peekc(x, 0);
	a = x->i;
	if (is_ident(c, 1)) {
		while (is_ident(peekc(x, 0), 0))
			adv(x);
		b->vi = var_find(x, x->s + a, x->i - a);
		b->known = b->vi >= 0 && x->vars[b->vi].defined;
		if (b->vi < 0 && out != NULL)
			b->vi = var_get(x, x->s + a, x->i - a);
	} else if (is_digit(c)) {
		long n = 0;

		while (is_digit(peekc(x, 0))) {
			n = n < 100000 ? n * 10 + peekc(x, 0) - '0' : n;
			adv(x);
		}
		if (n > 0) /* ${1}, ${10}: the positional parameters are known */
			b->vi = x->at, b->known = 1, b->sub = SUB_INDEX, b->idx = n - 1;
	} else if (c == '@' || c == '*') {
		adv(x);
		b->vi = x->at, b->known = 1, b->sub = c == '@' ? SUB_AT : SUB_STAR;
	} else if (c == '#' || c == '!') {
		return lex_count(x, out, b);
	} else if (c > 0 && strchr("?$-", c) && peekc(x, 1) >= 0) {
		adv(x);
	} else {
		unsupported = 1; /* ${} ... */
	}
	if (!unsupported && b->vi != x->at)
		unsupported = read_subscript(x, b);
	c = peekc(x, 0);
	if (!unsupported && c == '}') {
		return eval_bparam(x, out, b);
	} else if (!unsupported && c == ':' && (b->sub == SUB_AT || b->sub == SUB_STAR) &&
	           read_slice(x, b) == 0) {
		return eval_bparam(x, out, b);
	} else if (!unsupported && c == ':' && peekc(x, 1) > 0 && strchr("-=+?", peekc(x, 1))) {
		b->colon = 1;
		b->op = peekc(x, 1);
		adv(x);
		adv(x);
		return eval_bparam(x, out, b);
	} else if (!unsupported && c > 0 && strchr("-=+?", c)) {
		b->op = c;
		adv(x);
		return eval_bparam(x, out, b);
	}
	if (skip_nested(x, '{', '}') < 0)
		return fail(x, b->line, b->col, "unterminated ${");
	opaque(x, out, b->start, b->line, b->col, b->quoted,
	       "parameter expansion mcinit does not evaluate");
	return 0;
}

/* The text [from, to) (from at line:col) with its `$` expansions done, as
 * bash does before it evaluates arithmetic; NULL where mcinit cannot. */
static char *
expand_text(struct sx *x, size_t from, size_t to, int line, int col)
{
	size_t i = x->i, len = x->len;
	int l = x->line, c = x->col, ok = 0;
	struct mcinit_err saved;
	struct pstr e = {0};
	char *t = NULL;

	if (x->err != NULL)
		saved = *x->err;
	x->i = from, x->len = to, x->line = line, x->col = col;
	while (x->i < x->len && ok == 0)
		if (peekc(x, 0) == '$')
			ok = lex_dollar(x, &e, 1);
		else
			putc_at(&e, peekc(x, 0), PF_QUOTED, x->line, x->col), adv(x);
	x->i = i, x->len = len, x->line = l, x->col = c;
	if (x->err != NULL)
		*x->err = saved;
	if (ok == 0)
		t = ps_text(&e);
	ps_free(&e);
	return t;
}

/* $((e)) / $[e] just read (source [b->start, x->i), e at [from, to) and
 * line:col): its value as text at the expansion's place, or unexpandable
 * text with the reason. */
static int
arith_expand(struct sx *x, struct pstr *out, const struct bparam *b, size_t from, size_t to,
             int line, int col)
{
	char *t = out != NULL && !x->dead ? expand_text(x, from, to, line, col) : NULL;
	struct arith a = {x, t, t ? strlen(t) : 0, 0, NULL, 0, 0};
	long long v;
	char num[24];

	if (x->too_deep != NULL) {
		free(t);
		return fail(x, b->line, b->col, x->too_deep);
	}
	if (t == NULL) {
		opaque(x, out, b->start, b->line, b->col, b->quoted, "arithmetic");
		return 0;
	}
	v = arith_expr(&a, 0);
	arith_ws(&a);
	if (a.why == NULL && a.i < a.n)
		a.why = arith_peek(&a, ",") || arith_peek(&a, "=") ? "assignment in arithmetic"
		                                                   : "arithmetic syntax error";
	free(t);
	if (x->too_deep != NULL)
		return fail(x, b->line, b->col, x->too_deep);
	if (a.why != NULL) {
		opaque(x, out, b->start, b->line, b->col, b->quoted, a.why);
		return 0;
	}
	snprintf(num, sizeof num, "%lld", v);
	for (char *p = num; *p; p++)
		putc_at(out, *p, b->quoted ? PF_QUOTED : 0, b->line, b->col);
	return 0;
}

static const char deep_msg[] = "expansions nested too deeply (more than 64 levels)";

/* A `$` at the cursor, outside single quotes. */
static int
lex_dollar(struct sx *x, struct pstr *out, int quoted)
{
	struct bparam b = {x->i, x->line, x->col, quoted, -1, 0, SUB_NONE, 0, 0, 0, 0, 0, 0, 0};
	int c = peekc(x, 1), ret;

	if (c == '{') {
		adv(x);
		if (++x->depth > MAX_DEPTH) {
			x->too_deep = deep_msg;
			return fail(x, b.line, b.col, deep_msg);
		}
		ret = lex_brace(x, out, &b);
		x->depth--;
		if (ret == 0 && x->too_deep != NULL) /* in a subscript, a slice */
			return fail(x, b.line, b.col, x->too_deep);
		return ret;
	}
	if (c == '(' || c == '[') {
		int arith = c == '[' || peekc(x, 2) == '(', l, cl;
		size_t from;

		adv(x);
		adv(x);
		from = x->i, l = x->line, cl = x->col;
		if (skip_nested(x, c, c == '(' ? ')' : ']') < 0)
			return fail(x, b.line, b.col,
			            c == '(' ? "unterminated $(" : "unterminated $[");
		if (arith) {
			/* $(( $(( ... )) )): each level is a recursion of
			 * expand_text, bounded as ${ is */
			if (++x->depth > MAX_DEPTH) {
				x->too_deep = deep_msg;
				return fail(x, b.line, b.col, deep_msg);
			}
			ret = arith_expand(x, out, &b, from + (c == '('), x->i - (c == '[' ? 1 : 2),
			                   l, cl + (c == '('));
			x->depth--;
			return ret;
		}
		subst_expand(x, out, &b, from, x->i - 1, l, cl);
		return 0;
	}
	if (!quoted && c == '\'') {
		adv(x);
		return lex_ansi(x, out, b.line, b.col);
	}
	if (!quoted && c == '"') {
		adv(x);
		return lex_dq(x, out); /* $"..." (locale translation) reads as "..." */
	}
	adv(x);
	if (is_ident(c, 1)) {
		size_t a = x->i;

		while (is_ident(peekc(x, 0), 0))
			adv(x);
		b.vi = var_find(x, x->s + a, x->i - a);
		if (b.vi >= 0 && x->vars[b.vi].defined)
			expand_var(x, out, b.vi, SUB_NONE, 0, quoted, b.line, b.col);
		else
			opaque(x, out, b.start, b.line, b.col, quoted,
			       var_maybe(x, b.vi) ? x->unread
			                          : "variable not assigned in this script");
		return 0;
	}
	if (c > 0 && (is_digit(c) || strchr("@*#?$!-", c))) {
		adv(x);
		if (c >= '1' && c <= '9') {
			missing_arg(x, out, c - '0', b.line, b.col);
			expand_var(x, out, x->at, SUB_INDEX, c - '1', quoted, b.line, b.col);
		} else if (c == '@' || c == '*')
			expand_var(x, out, x->at, c == '@' ? SUB_AT : SUB_STAR, 0, quoted, b.line,
			           b.col);
		else if (c == '#' && out != NULL)
			put_number(out, (long long)x->vars[x->at].val.n, quoted, b.line, b.col);
		else if (c == '0' && x->name0 != NULL) /* dirname "$0" */
			for (const char *p = x->name0; *p; p++)
				putc_at(out, *p, quoted ? PF_QUOTED : 0, b.line, b.col);
		else if (c != '#')
			opaque(x, out, b.start, b.line, b.col, quoted,
			       c == '0' ? "the script's name" : "special parameter");
		return 0;
	}
	putc_at(out, '$', quoted ? PF_QUOTED : 0, b.line, b.col);
	return 0;
}

/* `...` at the cursor: a command substitution (one whose text holds a
 * backslash, which bash reads twice, is left opaque). */
static int
lex_backquote(struct sx *x, struct pstr *out, int quoted)
{
	struct bparam b = {x->i, x->line, x->col, quoted, -1, 0, SUB_NONE, 0, 0, 0, 0, 0, 0, 0};
	size_t from;
	int l, cl;

	adv(x);
	from = x->i, l = x->line, cl = x->col;
	if (skip_nested(x, -1, '`') < 0)
		return fail(x, b.line, b.col, "unterminated backquote");
	if (memchr(x->s + from, '\\', x->i - 1 - from) != NULL)
		opaque(x, out, b.start, b.line, b.col, quoted, "command substitution");
	else
		subst_expand(x, out, &b, from, x->i - 1, l, cl);
	return 0;
}

/*
 * Lexes one word into out (NULL: skip it without side effects).  term is 0
 * for a shell word (ends at a blank or metacharacter) or '}' for the word of
 * ${v:-word}, which then inherits the double quotes around it when inq.
 */
static int
lex_word(struct sx *x, struct pstr *out, int term, int inq)
{
	unsigned qf = inq ? PF_QUOTED : 0;

	for (;;) {
		int c, line, col;

		skip_cont(x);
		c = peekc(x, 0);
		if (c < 0 || (term ? c == term : is_sep(c)))
			return 0;
		line = x->line;
		col = x->col;
		if (c == '\\') {
			adv(x);
			c = peekc(x, 0);
			if (c < 0 || (inq && !strchr("$`\"\\}", c))) {
				putc_at(out, '\\', qf, line, col);
				continue;
			}
			putc_at(out, c, PF_QUOTED, line, col);
			adv(x);
		} else if (c == '\'' && !inq) {
			if (lex_sq(x, out) < 0)
				return -1;
		} else if (c == '"') {
			if (lex_dq(x, out) < 0)
				return -1;
		} else if (c == '$') {
			if (lex_dollar(x, out, inq) < 0)
				return -1;
		} else if (c == '`') {
			if (lex_backquote(x, out, inq) < 0)
				return -1;
		} else {
			putc_at(out, c, qf, line, col);
			adv(x);
		}
	}
}

/* ---- fields ---- */

static int
is_ifs(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

struct splitter {
	struct pstr cur;
	int exists, have_mark;
	struct pch mark;
	int resplit; /* the next field continues a split quoted string */
};

/* A field split at a blank that was quoted where its variable was assigned:
 * bash splits it all the same (quotes in a value are not re-read). */
static void
mark_resplit(struct pstr *p)
{
	for (size_t k = 0; k < p->n; k++)
		p->v[k].fl |= PF_RESPLIT;
}

static void
emit_field(struct splitter *sp, struct plist *dst, int force)
{
	if (sp->cur.n == 0 && !sp->exists && !force)
		return;
	if (sp->cur.n == 0 && sp->have_mark) {
		sp->mark.fl = PF_EMPTYQ;
		put(&sp->cur, sp->mark);
	}
	pl_push(dst, &sp->cur);
	sp->exists = sp->have_mark = 0;
}

/* Splits a lexed word into fields as bash does after expansion; every field
 * is appended to dst, unquoted, an empty one holding one EMPTYQ marker. */
static void
split_word(const struct pstr *w, struct plist *dst)
{
	struct splitter sp = {{0}, 0, 0, {0}, 0};

	for (size_t k = 0; k < w->n; k++) {
		struct pch ch = w->v[k];

		if (ch.fl & PF_BREAK) {
			if (!sp.have_mark)
				sp.mark = ch, sp.have_mark = 1;
			emit_field(&sp, dst, 1);
		} else if (ch.fl & PF_EMPTYQ) {
			if (!sp.have_mark)
				sp.mark = ch, sp.have_mark = 1;
			sp.exists = 1;
		} else if (!(ch.fl & (PF_QUOTED | PF_OPAQUE)) && is_ifs((unsigned char)ch.c)) {
			if (ch.fl & PF_SRCQ)
				mark_resplit(&sp.cur);
			sp.resplit = (ch.fl & PF_SRCQ) != 0;
			emit_field(&sp, dst, 0);
		} else {
			sp.exists |= (ch.fl & PF_QUOTED) != 0;
			/* quoted here: remembered, for when it is stored in a variable */
			ch.fl = (unsigned char)((ch.fl &
			                         (PF_OPAQUE | PF_UNREAD | PF_SRCQ | PF_RESPLIT)) |
			                        ((ch.fl & PF_QUOTED) ? PF_SRCQ : 0) |
			                        (sp.resplit ? PF_RESPLIT : 0));
			put(&sp.cur, ch);
		}
	}
	emit_field(&sp, dst, 0);
	ps_free(&sp.cur);
}

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
	r->m = mcinit_xrealloc(r->m, r->cap * sizeof *r->m);
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
	if (strlen(t) == 1 && strlen(q) == 1 && is_ident((unsigned char)t[0], 1) &&
	    is_ident((unsigned char)q[0], 1)) {
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
 * result into dst (lex_word's term 0); 0, or -1 with x->err. */
static int
lex_words_braced(struct sx *x, struct plist *dst)
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
	rc = lex_word(x, NULL, 0, 0);
	e = x->i;
	x->i = a, x->line = line, x->col = col;
	if (x->err != NULL)
		*x->err = saved;
	if (rc < 0 || memchr(s + a, '{', e - a) == NULL) {
		struct pstr t = {0};

		rc = lex_word(x, &t, 0, 0);
		if (rc == 0)
			split_word(&t, dst);
		ps_free(&t);
		return rc;
	}
	{ /* each byte's place */
		int l = line, c = col;

		for (size_t k = a; k < e; k++) {
			struct lc m = map != NULL ? map[k] : (struct lc){l, c};
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
		return fail(x, line, col, brace_msg);
	}
	rs_free(&w);
	if (out.n == 1 && out.v[0].n == e - a && memcmp(out.v[0].c, s + a, e - a) == 0) {
		struct pstr t = {0}; /* no brace expansion: read in place */

		rl_free(&out);
		rc = lex_word(x, &t, 0, 0);
		if (rc == 0)
			split_word(&t, dst);
		ps_free(&t);
		return rc;
	}
	{
		int l = x->line, c = x->col;

		/* past the word in the text */
		while (x->i < e)
			adv(x);
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
			rc = lex_word(x, &t, 0, 0);
			if (rc == 0)
				split_word(&t, dst);
			ps_free(&t);
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

static void
set_owner(struct pstr *p, int vi)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].var < 0)
			p->v[k].var = vi;
}

/* The assignments kept for the fallback hold MCINIT_MAX_SCRIPT_WORDS
 * words at most (a value counted as one): more would be more than
 * mcinit reads from a script, and 16 MiB of `A+=(--a 1)` kept 2.2 GB.  1
 * when full (the fallback then says its words may be missing). */
static int
group_full(struct sx *x, size_t n)
{
	if (x->group_words + n > MCINIT_MAX_SCRIPT_WORDS) {
		x->groups_cut = 1;
		return 1;
	}
	x->group_words += n;
	return 0;
}

static void
add_group(struct sx *x, const struct plist *fields)
{
	struct group g = {{0}, {0}, 0};

	if (group_full(x, fields->n))
		return;
	for (size_t k = 0; k < fields->n; k++) {
		struct pstr p = {0};

		ps_copy(&p, &fields->v[k]);
		pl_push(&g.f, &p);
	}
	MCINIT_GROW(x->groups, x->capgroups, x->ngroups + 1);
	x->groups[x->ngroups++] = g;
}

static void
add_scalar_group(struct sx *x, const struct pstr *val)
{
	struct group g = {{0}, {0}, 1};

	if (group_full(x, 1))
		return;
	ps_copy(&g.s, val);
	MCINIT_GROW(x->groups, x->capgroups, x->ngroups + 1);
	x->groups[x->ngroups++] = g;
}

/* V=word / V+=word: val is the lexed word, consumed; group: the value
 * counts for the fallback (not a loop's variable). */
static void
assign_scalar(struct sx *x, int vi, struct pstr *val, int append, int line, int col, int group)
{
	struct var *v;
	struct pstr s = {0};

	touch_var(x, vi);
	v = &x->vars[vi];
	v->was_unset = 0;

	for (size_t k = 0; k < val->n; k++) {
		struct pch ch = val->v[k];

		if (ch.fl & PF_EMPTYQ)
			continue;
		if (ch.fl & PF_BREAK) /* "${a[@]}" in an assignment joins with spaces */
			ch.c = ' ';
		ch.fl = (unsigned char)((ch.fl & (PF_OPAQUE | PF_UNREAD | PF_SRCQ)) |
		                        ((ch.fl & PF_QUOTED) ? PF_SRCQ : 0));
		put(&s, ch);
	}
	ps_free(val);
	set_owner(&s, vi);
	if (group)
		add_scalar_group(x, &s);
	if (append && v->defined && v->val.n > 0) {
		struct pstr *el = &v->val.v[0];

		if (s.n > 0 && ps_nchars(el) == 0)
			el->n = 0; /* drop its empty marker */
		ps_copy(el, &s);
		ps_free(&s);
		return;
	}
	if (s.n == 0)
		put(&s, (struct pch){0, PF_EMPTYQ, line, col, vi, -1});
	if (v->defined && v->is_array && v->val.n > 0) {
		/* bash: V=word on an array sets only element 0 */
		ps_free(&v->val.v[0]);
		v->val.v[0] = s;
		return;
	}
	if (!append || !v->defined) {
		pl_free(&v->val);
		v->is_array = 0;
	}
	pl_push(&v->val, &s);
	v->defined = 1;
}

static void
assign_array(struct sx *x, int vi, struct plist *elems, int append)
{
	struct var *v;

	touch_var(x, vi);
	v = &x->vars[vi];
	v->was_unset = 0;
	for (size_t k = 0; k < elems->n; k++)
		set_owner(&elems->v[k], vi);
	add_group(x, elems);
	if (!append || !v->defined)
		pl_free(&v->val);
	if (v->val.n + elems->n > MCINIT_MAX_SCRIPT_WORDS) { /* A+=(...) without end */
		size_t keep =
		    v->val.n < MCINIT_MAX_SCRIPT_WORDS ? MCINIT_MAX_SCRIPT_WORDS - v->val.n : 0;

		while (elems->n > keep)
			ps_free(&elems->v[--elems->n]);
		if (!x->cut_noted++)
			script_bound(
			    x, 0, 0,
			    "an array of more than %d elements: mcinit keeps the first %d; "
			    "later words may be missing",
			    MCINIT_MAX_SCRIPT_WORDS, MCINIT_MAX_SCRIPT_WORDS);
		x->cut++;
		x->stopped_array = 1;
	}
	for (size_t k = 0; k < elems->n; k++)
		pl_push(&v->val, &elems->v[k]);
	elems->n = 0;
	pl_free(elems);
	v->defined = 1;
	v->is_array = 1;
}

/* ( ... ) of an array assignment; the cursor is at the `(`. */
static int
lex_array(struct sx *x, struct plist *elems)
{
	int line = x->line, col = x->col;

	adv(x);
	for (;;) {

		int c;

		skip_blanks(x);
		c = peekc(x, 0);
		if (c < 0)
			return fail(x, line, col, "unterminated array assignment");
		if (c == '#') {
			skip_comment(x);
			continue;
		}
		if (c == ')') {
			adv(x);
			return 0;
		}
		if (is_sep(c)) { /* newline, or a stray operator bash would reject */
			adv(x);
			continue;
		}
		if (lex_words_braced(x, elems) < 0)
			return -1;
		if (elems->n > MCINIT_MAX_SCRIPT_WORDS) { /* read on, keep no more */
			if (!x->cut_noted++)
				script_bound(x, line, col,
				             "an array of more than %d elements: mcinit keeps "
				             "the first %d; later words may be missing",
				             MCINIT_MAX_SCRIPT_WORDS, MCINIT_MAX_SCRIPT_WORDS);
			while (elems->n > MCINIT_MAX_SCRIPT_WORDS)
				ps_free(&elems->v[--elems->n]);
			x->cut++;
			x->stopped_array = 1;
		}
	}
}

static void make_local(struct sx *x, int vi, int unset);

/* NAME=... / NAME+=... at the cursor: 1 handled (*vi_out = NAME's index;
 * *save, when not NULL, receives NAME's state before), 0 not one, -1. */
static int
try_assignment(struct sx *x, int *vi_out, struct saved *save)
{
	size_t j = x->i, a = x->i, cut0;
	int append = 0, vi, line, col, nline = x->line, ncol = x->col, was_cut;

	if (!is_ident(peekc(x, 0), 1))
		return 0;
	while (j < x->len && is_ident((unsigned char)x->s[j], 0))
		j++;
	if (j + 1 < x->len && x->s[j] == '+' && x->s[j + 1] == '=')
		append = 1, j++;
	if (j >= x->len || x->s[j] != '=')
		return 0;
	vi = var_get(x, x->s + a, j - a - (size_t)append);
	*vi_out = vi;
	make_local(x, vi, 0);
	if (save != NULL && append && x->vars[vi].defined) {
		const struct var *v = &x->vars[vi];

		save->vi = vi;
		save->v = *v;
		save->trunc = 1;
		save->n0 = v->val.n;
		save->len0 = v->val.n > 0 ? v->val.v[0].n : 0;
		save->el0 = save->len0 > 0 ? v->val.v[0].v[0] : (struct pch){0};
	} else if (save != NULL) {
		save->vi = vi;
		save->trunc = 0;
		var_save(&x->vars[vi], &save->v);
	}
	while (x->i <= j)
		adv(x);
	line = x->line;
	col = x->col;
	cut0 = x->cut;
	was_cut = append && x->vars[vi].defined && x->vars[vi].cut;
	if (peekc(x, 0) == '(') {
		struct plist elems = {0};

		if (lex_array(x, &elems) < 0) {
			pl_free(&elems);
			return -1;
		}
		if (x->dead)
			pl_free(&elems);
		else
			assign_array(x, vi, &elems, append);
	} else {
		struct pstr w = {0};

		if (lex_word(x, &w, 0, 0) < 0) {
			ps_free(&w);
			return -1;
		}
		if (x->dead)
			ps_free(&w);
		else
			assign_scalar(x, vi, &w, append, line, col, 1);
	}
	if (x->dead)
		return 1; /* a branch bash does not take */
	x->vars[vi].cut = was_cut || x->cut != cut0;
	x->vars[vi].line = nline;
	x->vars[vi].col = ncol;
	if (x->allexport)
		x->vars[vi].exported = 1;
	return 1;
}

/* ---- redirections and here-documents ---- */

static void
read_delim(struct sx *x)
{
	struct mcinit_buf b = {0};
	int line = x->line, col = x->col, c;

	while (!is_sep(c = peekc(x, 0))) {
		if (c == '\'' || c == '"') {
			adv(x);
			while (peekc(x, 0) >= 0 && peekc(x, 0) != c) {
				if (c == '"' && peekc(x, 0) == '\\' && peekc(x, 1) >= 0)
					adv(x);
				mcinit_buf_addc(&b, (char)peekc(x, 0));
				adv(x);
			}
			if (peekc(x, 0) == c)
				adv(x);
			continue;
		}
		if (c == '\\') {
			adv(x);
			if (peekc(x, 0) < 0)
				break;
			c = peekc(x, 0);
		}
		mcinit_buf_addc(&b, (char)c);
		adv(x);
	}
	if (b.len == 0) {
		mcinit_buf_free(&b);
		return;
	}
	MCINIT_GROW(x->hd, x->caphd, x->nhd + 1);
	x->hd[x->nhd++] = (struct hdoc){mcinit_xstrdup(mcinit_buf_cstr(&b)), 0, line, col};
	mcinit_buf_free(&b);
}

/* Skips the bodies of here-documents opened on the line just ended. */
static void
read_heredocs(struct sx *x)
{
	for (size_t h = 0; h < x->nhd; h++) {
		const char *d = x->hd[h].delim;
		size_t dl = strlen(d);
		int found = 0;

		while (x->i < x->len && !found) {
			const char *p = x->s + x->i, *e = memchr(p, '\n', x->len - x->i);
			size_t n = e ? (size_t)(e - p) : x->len - x->i;

			if (n > 0 && p[n - 1] == '\r')
				n--;
			while (x->hd[h].strip && n > 0 && *p == '\t')
				p++, n--;
			found = n == dl && memcmp(p, d, dl) == 0;
			while (x->i < x->len && x->s[x->i] != '\n')
				adv(x);
			if (x->i < x->len)
				adv(x);
		}
		if (!found)
			script_note(x, x->hd[h].line, x->hd[h].col,
			            "here-document delimited by `%s` is not terminated", d);
		free(x->hd[h].delim);
	}
	x->nhd = 0;
}

/* A redirection at the cursor: 1 skipped (with its target), 0 none, -1. */
static int
try_redirect(struct sx *x)
{
	size_t j = x->i, oplen;
	int line = x->line, col = x->col, heredoc = 0;
	const char *s = x->s;

	while (j < x->len && is_digit((unsigned char)s[j]))
		j++;
	if (j == x->i && j + 1 < x->len && s[j] == '&' && s[j + 1] == '>') {
		oplen = j + 2 < x->len && s[j + 2] == '>' ? 3 : 2;
	} else if (j < x->len && (s[j] == '<' || s[j] == '>')) {
		char n1 = j + 1 < x->len ? s[j + 1] : 0, n2 = j + 2 < x->len ? s[j + 2] : 0;

		if (j == x->i && n1 == '(') { /* process substitution: dropped */
			adv(x);
			adv(x);
			if (skip_nested(x, '(', ')') < 0)
				return fail(x, line, col, "unterminated process substitution");
			return 1;
		}
		heredoc = s[j] == '<' && n1 == '<' && n2 != '<';
		if (s[j] == '<' && n1 == '<')
			oplen = n2 == '<' || n2 == '-' ? 3 : 2;
		else
			oplen = n1 && strchr(s[j] == '>' ? ">|&" : "&>", n1) ? 2 : 1;
	} else {
		return 0;
	}
	while (x->i < j + oplen)
		adv(x);
	skip_blanks(x);
	if (heredoc) {
		size_t nhd = x->nhd;

		read_delim(x);
		if (x->nhd > nhd)
			x->hd[nhd].strip = oplen == 3;
		return 1;
	}
	if ((peekc(x, 0) == '<' || peekc(x, 0) == '>') && peekc(x, 1) == '(')
		return try_redirect(x);
	return is_sep(peekc(x, 0)) ? 1 : lex_word(x, NULL, 0, 0) < 0 ? -1 : 1;
}

/* ---- commands ---- */

/* Whether t is one of the words of list, a string of words each with a
 * space on both sides (the lists below). */
static int
in_list(const char *t, const char *list)
{
	size_t n = strlen(t);

	if (n == 0 || strpbrk(t, " \t\r\n") != NULL)
		return 0;
	for (const char *p = strstr(list, t); p != NULL; p = strstr(p + 1, t))
		if (p[-1] == ' ' && p[n] == ' ')
			return 1;
	return 0;
}

/* Whether w, unquoted and unexpanded, is one of the words of list. */
static int
word_is(const struct pstr *w, const char *list)
{
	char t[64]; /* longer than any word of a list: none of them */

	if (w->n >= sizeof t)
		return 0;
	for (size_t k = 0; k < w->n; k++) {
		if (w->v[k].fl != 0)
			return 0; /* quoted or expanded: not a keyword */
		t[k] = w->v[k].c;
	}
	t[w->n] = '\0';
	/* on the stack: every command's first words are asked about */
	return in_list(t, list);
}

/* Word lists are spaced strings, searched with in_list(). */
static const char skip_kw[] = " ! { } do done elif else esac fi if then time until while ";
static const char header_kw[] = " for select case function coproc ";
static const char decl_cmd[] = " export declare typeset local readonly ";
/* Commands that mention a .py file without running it. */
static const char not_runner[] =
    " echo printf cat ls cp mv rm test [ [[ wget curl git head tail grep sed awk chmod mkdir "
    "touch ln tee find source . pip pip3 wc diff vim vi less more stat file realpath dirname "
    "basename readlink scp rsync tar unset export declare local readonly typeset cd pushd "
    "which type command hash ";

static const char *
base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* Ends in ".py" and holds no blank outside unexpandable text (which may be
 * `$(dirname $0)`): a quoted sentence mentioning a script is not one. */
static int
is_py_field(const struct pstr *f)
{
	char a = 0, b = 0, c = 0; /* the last three characters of its text */
	size_t n = 0;
	int py;

	/* read in place, not copied: every word of every command is asked */
	for (size_t k = 0; k < f->n; k++) {
		if (f->v[k].fl & PF_MARK)
			continue;
		if (f->v[k].c == '\0')
			break; /* where its text, a C string, ends */
		a = b, b = c, c = f->v[k].c, n++;
	}
	py = n > 3 && a == '.' && b == 'p' && c == 'y';
	for (size_t k = 0; k < f->n && py; k++)
		if (!(f->v[k].fl & (PF_OPAQUE | PF_MARK)) && is_ifs((unsigned char)f->v[k].c))
			py = 0;
	return py;
}

/* unset NAME...: the job will not have NAME either (-v/-f options skipped). */
static void
do_unset(struct sx *x, const struct plist *w)
{
	for (size_t k = 1; k < w->n; k++) {
		char *t = ps_text(&w->v[k]);
		int vi;

		if (t[0] != '-' && is_ident((unsigned char)t[0], 1)) {
			vi = var_get(x, t, strlen(t));
			touch_var(x, vi);
			x->vars[vi].defined = 0;
			x->vars[vi].exported = 0;
			x->vars[vi].was_unset = 1;
			x->vars[vi].maybe = 0;
			pl_free(&x->vars[vi].val);
			x->vars[vi].line = w->v[k].n ? w->v[k].v[0].line : 0;
			x->vars[vi].col = w->v[k].n ? w->v[k].v[0].col : 0;
		}
		free(t);
	}
}

/* export NAME / declare -x NAME: the variable goes to the job. */
static void
do_export(struct sx *x, const struct pstr *word)
{
	char *t = ps_text(word);
	size_t n = strlen(t);
	int vi;

	if (n > 0 && is_ident((unsigned char)t[0], 1) && strspn(t, IDENT_CHARS) == n) {
		vi = var_get(x, t, n);
		touch_var(x, vi);
		x->vars[vi].exported = 1;
		x->vars[vi].line = word->v[0].line;
		x->vars[vi].col = word->v[0].col;
	}
	free(t);
}

static void
env_push(struct cand *c, const char *name, char *value, int line, int col, int opaque)
{
	for (size_t k = 0; k < c->nenv; k++) {
		if (strcmp(c->env[k].name, name) == 0) { /* a later setting wins */
			free(c->env[k].value);
			c->env[k].value = value;
			c->env[k].remote = 0;
			c->env[k].line = line;
			c->env[k].col = col;
			c->env[k].opaque = opaque;
			return;
		}
	}
	c->env = mcinit_xrealloc(c->env, (c->nenv + 1) * sizeof *c->env);
	c->env[c->nenv++] =
	    (struct mcinit_shenv){mcinit_xstrdup(name), value, line, col, opaque, 0, 0};
}

/* The job's environment as it stands: exported variables (bash does not
 * export arrays) and those the script unset. */
static void
snapshot_env(struct sx *x, struct cand *c)
{
	for (size_t k = 0; k < x->nvars; k++) {
		const struct var *v = &x->vars[k];

		if (v->exported && v->defined && !v->is_array && v->val.n > 0)
			env_push(c, v->name, ps_text(&v->val.v[0]), v->line, v->col,
			         ps_opaque(&v->val.v[0]));
		else if (v->was_unset && !v->defined)
			env_push(c, v->name, NULL, v->line, v->col, 0);
	}
}

static uint64_t
hash_text(uint64_t h, const char *t)
{
	for (; t != NULL && *t; t++)
		h = (h ^ (unsigned char)*t) * 1099511628211ull;
	return (h ^ 0xff) * 1099511628211ull; /* a separator: "a b" is not "ab" */
}

/* What cand_same compares, hashed. */
static uint64_t
cand_hash(const struct cand *c)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t k = 0; k < c->w.n; k++) {
		char *t = ps_text(&c->w.v[k]);

		h = hash_text(h, t);
		free(t);
	}
	for (size_t k = 0; k < c->nenv; k++)
		h = hash_text(hash_text(h, c->env[k].name),
		              c->env[k].value != NULL ? c->env[k].value : "\x01unset");
	return h;
}

/* At the end of a simple command: remember it if it runs a .py script;
 * prefix[0..nprefix) are the variables assigned before its name (exported
 * to it alone). */
static void
check_python(struct sx *x, struct plist *w, const struct saved *prefix, size_t nprefix)
{
	struct cand *c;
	char *t;
	int skip;
	size_t k;

	if (w->n == 0)
		return;
	t = ps_text(&w->v[0]);
	skip = in_list(base_name(t), not_runner);
	free(t);
	if (skip)
		return;
	for (k = 0; k < w->n; k++)
		if (is_py_field(&w->v[k]))
			break;
	if (k == w->n)
		return;
	if (x->ncands == MAX_CANDS) {
		if (!x->ncands_over++)
			script_note(x, 0, 0,
			            "more than %d launches: the later ones are not checked (a loop "
			            "that does not end?)",
			            MAX_CANDS);
		return;
	}
	MCINIT_GROW(x->cands, x->capcands, x->ncands + 1);
	c = &x->cands[x->ncands++];
	memset(c, 0, sizeof *c);
	c->py = k + (x->prefix ? x->prefix->n : 0);
	snapshot_env(x, c);
	for (size_t p = 0; p < nprefix; p++) {
		const struct var *v = &x->vars[prefix[p].vi];

		if (v->defined && !v->is_array && v->val.n > 0)
			env_push(c, v->name, ps_text(&v->val.v[0]), v->line, v->col,
			         ps_opaque(&v->val.v[0]));
	}
	for (k = 0; x->prefix != NULL && k < x->prefix->n; k++) {
		struct pstr p = {0};

		ps_copy(&p, &x->prefix->v[k]);
		pl_push(&c->w, &p);
	}
	for (k = 0; k < w->n; k++)
		pl_push(&c->w, &w->v[k]);
	w->n = 0;
	c->hash = cand_hash(c);
}

/* At the end of a simple command: remember it if it runs a .py script. */

/* `#SBATCH --nodes=2 -n 16` before the first command (sbatch reads no
 * directive after it): its words, split at blanks. */
static void
read_sbatch(struct sx *x)
{
	size_t i = x->i;
	int line = x->line, col = x->col;

	if (x->len - i < 8 || memcmp(x->s + i, "#SBATCH", 7) != 0 || !is_blank(x->s[i + 7]))
		return;
	i += 7;
	col += 7;
	while (i < x->len && x->s[i] != '\n' && x->s[i] != '#') {
		size_t a;

		while (i < x->len && is_blank(x->s[i]))
			i++, col++;
		a = i;
		while (i < x->len && !is_blank(x->s[i]) && x->s[i] != '\n' && x->s[i] != '#')
			i++;
		if (i == a)
			break;
		x->sbatch = mcinit_xrealloc(x->sbatch, (x->nsbatch + 1) * sizeof *x->sbatch);
		x->sbatch[x->nsbatch++] = (struct mcinit_lword){
		    mcinit_xasprintf("%.*s", (int)(i - a), x->s + a), line, col, 0};
		for (size_t k = a; k < i; k++)
			col += ((unsigned char)x->s[k] & 0xC0) != 0x80;
	}
}

static void
restore(struct sx *x, struct saved *sv, size_t n)
{
	while (n-- > 0) {
		struct var *v = &x->vars[sv[n].vi];

		if (sv[n].trunc) { /* see struct saved */
			struct plist cur = v->val;

			while (cur.n > sv[n].n0)
				ps_free(&cur.v[--cur.n]);
			if (cur.n > 0) {
				cur.v[0].n = sv[n].len0;
				if (sv[n].len0 > 0)
					cur.v[0].v[0] = sv[n].el0;
			}
			sv[n].v.val = cur;
		} else {
			pl_free(&v->val);
		}
		sv[n].v.name = v->name;
		*v = sv[n].v;
	}
}

/* Frees what a saved state owns. */
static void
saved_free(struct saved *sv)
{
	if (!sv->trunc)
		pl_free(&sv->v.val);
}

static void set_positional(struct sx *x, const struct plist *w, size_t from);

/* `set -a` / `set -o allexport` (and their + forms); `set -- A B` and
 * `set A B` set the positional parameters. */
static void
do_set(struct sx *x, const struct plist *w)
{
	for (size_t k = 1; k < w->n; k++) {
		char *t = ps_text(&w->v[k]);

		if (strcmp(t, "--") == 0 || (t[0] != '-' && t[0] != '+')) {
			set_positional(x, w, k + (t[0] == '-'));
			x->args_set = 1;
			free(t);
			return;
		}
		if ((t[0] == '-' || t[0] == '+') && t[1] != '-' && t[1] != 'o' &&
		    strchr(t, 'a') != NULL)
			x->allexport = t[0] == '-';
		if ((strcmp(t, "-o") == 0 || strcmp(t, "+o") == 0) && k + 1 < w->n) {
			char *o = ps_text(&w->v[++k]);

			if (strcmp(o, "allexport") == 0)
				x->allexport = t[0] == '-';
			free(o);
		}
		free(t);
	}
}

/* ---- if ... fi with conditions bash's test decides from known words ---- */

static int
int_word(const char *t, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(t, &end, 10);
	return *t != '\0' && *end == '\0' && errno == 0;
}

/* A glob character the script wrote unquoted (a [[ == ]] pattern). */
static int
has_pattern(const struct pstr *p)
{
	for (size_t k = 0; k < p->n; k++)
		if (!(p->v[k].fl & (PF_SRCQ | PF_QUOTED | PF_MARK)) && p->v[k].c != 0 &&
		    strchr("*?[", p->v[k].c))
			return 1;
	return 0;
}

static int
compare_ints(const char *op, long long x, long long y)
{
	static const char *const ops[] = {"eq", "ne", "lt", "le", "gt", "ge"};
	const int res[] = {x == y, x != y, x<y, x <= y, x> y, x >= y};

	for (size_t k = 0; k < 6; k++)
		if (strcmp(op, ops[k]) == 0)
			return res[k];
	return -1;
}

/* The test a[0..n) (n <= 3) of `[`/`[[`/test; arg2 is a[2]'s word. */
static int
test_args(char *const *a, size_t n, int dbl, const struct pstr *arg2)
{
	long long x, y;

	if (n == 0)
		return 0;
	if (n == 1)
		return a[0][0] != '\0';
	if (n == 2)
		return strcmp(a[0], "-n") == 0   ? a[1][0] != '\0'
		       : strcmp(a[0], "-z") == 0 ? a[1][0] == '\0'
		                                 : -1;
	if (strcmp(a[1], "=") == 0 || strcmp(a[1], "==") == 0 || strcmp(a[1], "!=") == 0) {
		int eq = dbl && has_pattern(arg2) ? fnmatch(a[2], a[0], 0) == 0
		                                  : strcmp(a[0], a[2]) == 0;

		return a[1][0] == '!' ? !eq : eq;
	}
	if (a[1][0] == '-' && int_word(a[0], &x) && int_word(a[2], &y))
		return compare_ints(a[1] + 1, x, y);
	return -1;
}

/* `[ ... ]`, `[[ ... ]]` or `test ...` over words known here: 1 true, 0
 * false, -1 when only running it would tell (files, options, opaque words). */
/* A word that is one reference to a variable this script never assigns
 * (`$V`, `${V}`): taken as unset, as for ${V:-default}. */
static int
unset_ref(struct sx *x, const struct pstr *p)
{
	char *t = ps_text(p);
	size_t n = strlen(t), a = t[0] == '$' ? (t[1] == '{' ? 2 : 1) : 0, e = n;
	int vi, yes = 0;

	if (a > 0 && a == 2 && n > 3 && t[n - 1] == '}')
		e = n - 1;
	if (a > 0 && e > a && is_ident((unsigned char)t[a], 1)) {
		size_t k = a;

		while (k < e && is_ident((unsigned char)t[k], 0))
			k++;
		vi = k == e ? var_find(x, t + a, e - a) : -2;
		yes = (vi == -1 || (vi >= 0 && !x->vars[vi].defined)) && !var_maybe(x, vi);
	}
	free(t);
	return yes && ps_opaque(p);
}

static int
eval_test(struct sx *x, const struct plist *w)
{
	char *first = ps_text(&w->v[0]), *last = ps_text(&w->v[w->n - 1]), *a[3] = {0};
	size_t from = 1, to = w->n, n;
	int dbl = strcmp(first, "[[") == 0, r = -1, neg = 0;

	if (w->n == 1 && (strcmp(first, "true") == 0 || strcmp(first, ":") == 0 ||
	                  strcmp(first, "false") == 0)) {
		r = first[0] != 'f'; /* `if true`, `while :` */
		goto out;
	}
	if (strcmp(first, "[") == 0 || dbl)
		to = strcmp(last, dbl ? "]]" : "]") == 0 ? w->n - 1 : 0;
	else if (strcmp(first, "test") != 0)
		to = 0;
	for (size_t k = from; k < to && to > 0; k++)
		if (ps_opaque(&w->v[k]) && !unset_ref(x, &w->v[k]))
			to = 0;
	if (to > from + 1) {
		char *t = ps_text(&w->v[from]);

		if (strcmp(t, "!") == 0)
			neg = 1, from++;
		free(t);
	}
	n = to > from ? to - from : 0;
	for (size_t k = 0; k < n && k < 3; k++)
		a[k] =
		    unset_ref(x, &w->v[from + k]) ? mcinit_xstrdup("") : ps_text(&w->v[from + k]);
	if (to > 0 && n <= 3)
		r = test_args(a, n, dbl, n == 3 ? &w->v[from + 2] : NULL);
	for (size_t k = 0; k < 3; k++)
		free(a[k]);
out:
	free(first);
	free(last);
	return r >= 0 && neg ? !r : r;
}

/* One command of an if's condition, of value v (1 true, 0 false, -1
 * unknown), joined to the others by || and &&: short-circuits decide where
 * a side is unknown. */
static void
add_condition(struct sx *x, struct ifr *f, int v)
{
	if (v >= 0 && f->negate)
		v = !v;
	f->negate = 0;
	if (f->ncmds++ == 0)
		f->cond = v;
	else if (f->op == '|')
		f->cond = f->cond == 1 || v == 1 ? 1 : f->cond < 0 || v < 0 ? -1 : 0;
	else if (f->op == '&')
		f->cond = f->cond == 0 || v == 0 ? 0 : f->cond < 0 || v < 0 ? -1 : 1;
	else
		f->cond = -1; /* `if a; b; then`: the last one decides; not followed */
	f->op = x->last_op;
}

static void set_dead(struct sx *x);
static void block_keyword(struct sx *x, const char *t);
static void case_step(struct sx *x, struct ifr *f, const struct plist *w);

/* `case WORD in`: w holds WORD and `in`. */
static void
open_case(struct sx *x, const struct plist *w)
{
	struct ifr f = {x->dead, -1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, NULL};

	if (w->n > 0 && unset_ref(x, &w->v[0]))
		f.subject = mcinit_xstrdup(""); /* a variable the script never sets */
	else if (w->n > 0 && !ps_opaque(&w->v[0]))
		f.subject = ps_text(&w->v[0]);
	else if (w->n > 0)
		f.unknown = 1;
	if (w->n > 0) {
		f.line = w->v[0].n ? w->v[0].v[0].line : 0;
		f.col = w->v[0].n ? w->v[0].v[0].col : 0;
	}
	MCINIT_GROW(x->ifs, x->capifs, x->nifs + 1);
	x->ifs[x->nifs++] = f;
	if (f.unknown && !x->dead)
		script_note(x, f.line, f.col,
		            "a `case` whose word is known only when the script runs: every clause "
		            "of it is read");
	if (w->n > 2) { /* `case $K in x) ...` on one line: x is the first pattern */
		struct plist rest = {w->v + 2, w->n - 2, 0};

		case_step(x, &x->ifs[x->nifs - 1], &rest);
	}
}

/* A command inside a case: a clause's patterns (`800M)`, `a|b)`) or a
 * command of its body; `;;` ends the body. */
static void
case_step(struct sx *x, struct ifr *f, const struct plist *w)
{
	if (f->awaiting > 0 && w->n > 0) {
		const struct pstr *pat = &w->v[0];
		char *t = ps_text(pat);
		int hit = f->subject != NULL && (has_pattern(pat) ? fnmatch(t, f->subject, 0) == 0
		                                                  : strcmp(t, f->subject) == 0);

		free(t);
		f->cond = f->cond == 1 || hit;
		if (x->last_op == ')') {
			f->awaiting = f->unknown || (f->cond == 1 && !f->matched) ? 0 : -1;
			f->matched |= f->cond == 1;
			f->cond = -1;
		}
	} else if (f->awaiting <= 0 && x->last_op == ';') {
		f->awaiting = 1; /* the next clause's patterns */
		f->cond = -1;
	}
	set_dead(x);
	if (f->awaiting > 0)
		x->dead = f->parent_dead || x->skipping > 0;
}

static void
set_dead(struct sx *x)
{
	const struct ifr *f = x->nifs ? &x->ifs[x->nifs - 1] : NULL;

	x->dead = x->skipping > 0 || (f != NULL && (f->parent_dead || f->awaiting < 0));
}

/* if / then / elif / else / fi at a command's start; 1 when the words that
 * follow are a condition to evaluate. */
static int
on_keyword(struct sx *x, const struct pstr *kw)
{
	struct ifr *f = x->nifs ? &x->ifs[x->nifs - 1] : NULL;
	char *t = ps_text(kw);
	int cond = 0;

	block_keyword(x, t);
	if (strcmp(t, "if") == 0) {
		MCINIT_GROW(x->ifs, x->capifs, x->nifs + 1);
		x->ifs[x->nifs++] = (struct ifr){x->dead,
		                                 -1,
		                                 0,
		                                 0,
		                                 1,
		                                 0,
		                                 0,
		                                 0,
		                                 kw->n ? kw->v[0].line : 0,
		                                 kw->n ? kw->v[0].col : 0,
		                                 0,
		                                 0,
		                                 NULL};
		cond = 1;
	} else if (f != NULL && strcmp(t, "!") == 0 && f->awaiting > 0 && f->ncmds == 0) {
		f->negate ^= 1;
	} else if (f != NULL && strcmp(t, "then") == 0 && f->awaiting > 0) {
		int c = f->cond;

		if (c < 0 && !f->unknown && !x->dead)
			script_note(
			    x, f->line, f->col,
			    "an `if` whose condition is known only when the script runs: every "
			    "branch of it is read");
		f->unknown |= c < 0;
		f->awaiting = f->unknown || (c == 1 && !f->taken) ? 0 : -1;
		f->taken |= c == 1;
	} else if (f != NULL && strcmp(t, "elif") == 0) {
		f->awaiting = f->unknown || !f->taken ? 1 : -1;
		f->ncmds = f->negate = f->op = 0;
		f->cond = -1;
		cond = f->awaiting > 0;
	} else if (f != NULL && strcmp(t, "else") == 0) {
		f->awaiting = f->unknown || !f->taken ? 0 : -1;
	} else if (strcmp(t, "case") == 0) {
		cond = 2;
	} else if (f != NULL && (strcmp(t, "fi") == 0 || strcmp(t, "esac") == 0)) {
		free(x->ifs[--x->nifs].subject);
	}
	free(t);
	set_dead(x);
	return cond;
}

/* ---- regions: function bodies, loop bodies, command substitutions ---- */

static int parse_command(struct sx *x);

static void
frame_push(struct sx *x, int all)
{
	MCINIT_GROW(x->frames, x->capframes, x->nframes + 1);
	x->frames[x->nframes++] = (struct frame){NULL, 0, 0, all};
}

static void
frame_pop(struct sx *x)
{
	struct frame *f = &x->frames[--x->nframes];

	restore(x, f->sv, f->n);
	free(f->sv);
}

/* Whether the bound on commands is reached (noted once, at line:col: a
 * loop stopped by it without a later region to read was not noted). */
static int
out_of_steps(struct sx *x, int line, int col)
{
	if (x->steps < x->max_steps)
		return 0;
	if (!x->stopped++)
		script_bound(x, line, col,
		             "stopped following function calls and loops after %zu commands "
		             "(one that never ends?); later words may be missing",
		             x->max_steps);
	return 1;
}

/* Commands [start, end) of the text (start at line:col), read as if they
 * stood here: a function's body, a loop's body, a substitution.  They get
 * an if stack of their own (a call inside a `case` clause is not one of its
 * patterns).  -1 with x->err on text that cannot be a script. */
static int
run_region(struct sx *x, size_t start, size_t end, int line, int col)
{
	size_t i = x->i, len = x->len, nhd = x->nhd;
	int l = x->line, c = x->col, op = x->last_op, prev = x->prev_op, ret = 0;
	struct ifr *ifs = x->ifs;
	size_t nifs = x->nifs, capifs = x->capifs;
	struct block blk = x->blk;

	if (x->exhausted)
		return 0; /* expansions yield nothing more: neither would this */
	if (out_of_steps(x, line, col))
		return 0;
	x->ifs = NULL, x->nifs = x->capifs = 0;
	x->blk = (struct block){0, 0, -1};
	x->i = start, x->len = end, x->line = line, x->col = col;
	x->last_op = x->prev_op = 0;
	set_dead(x);
	while (ret == 0 && x->i < x->len && x->brk == 0 && x->steps < x->max_steps)
		ret = parse_command(x);
	while (x->nhd > nhd)
		free(x->hd[--x->nhd].delim);
	while (x->nifs > 0)
		free(x->ifs[--x->nifs].subject);
	free(x->ifs);
	x->ifs = ifs, x->nifs = nifs, x->capifs = capifs;
	x->blk = blk;
	x->i = i, x->len = len, x->line = l, x->col = c;
	x->last_op = op, x->prev_op = prev;
	set_dead(x);
	return ret;
}

/* Reads on without effects to the keyword that closes the block just
 * opened (`}` for kind '{', `done` for 'd'): its offset, the cursor then
 * past its command; the end of the text when it is missing; -1 on error. */
static long
skip_block(struct sx *x, int kind)
{
	struct block outer = x->blk;
	long at;
	int rc = 0;

	x->blk = (struct block){kind, 1, -1};
	x->skipping++;
	set_dead(x);
	while (rc == 0 && x->blk.close_at < 0 && x->i < x->len)
		rc = parse_command(x);
	at = x->blk.close_at < 0 ? (long)x->len : x->blk.close_at;
	x->blk = outer;
	x->skipping--;
	set_dead(x);
	return rc < 0 ? -1 : at;
}

/* on_keyword's part: the nesting of the block skip_block looks for. */
static void
block_keyword(struct sx *x, const char *t)
{
	struct block *b = &x->blk;
	const char *open = b->kind == '{' ? "{" : "do", *close = b->kind == '{' ? "}" : "done";

	if (b->kind == 0 || b->close_at >= 0)
		return;
	if (b->kind == 'w' && strcmp(t, "do") == 0) /* a while loop's test ends */
		b->close_at = (long)x->kw_at;
	else if (strcmp(t, open) == 0)
		b->depth++;
	else if (strcmp(t, close) == 0 && --b->depth == 0)
		b->close_at = (long)x->kw_at;
}

static const struct fn *
fn_find(const struct sx *x, const char *name)
{
	for (size_t k = x->nfns; k-- > x->fn_floor;) /* the latest definition */
		if (strcmp(x->fns[k].name, name) == 0)
			return &x->fns[k];
	return NULL;
}

/* Blanks, newlines and comments before a function's body or `do`. */
static void
skip_newlines(struct sx *x)
{
	for (;;) {
		skip_blanks(x);
		if (peekc(x, 0) == '#')
			skip_comment(x);
		else if (peekc(x, 0) == '\n')
			adv(x);
		else
			return;
	}
}

/* A name bash accepts for a function, written literally. */
static int
fn_name_ok(const struct pstr *w)
{
	if (w->n == 0)
		return 0;
	for (size_t k = 0; k < w->n; k++)
		if (w->v[k].fl != 0 || strchr("$`'\"=", w->v[k].c) != NULL)
			return 0;
	return 1;
}

/* `()` (blanks allowed inside) at the cursor: `if ((x))` is not one. */
static int
empty_parens(const struct sx *x)
{
	size_t k = 1;

	if (peekc(x, 0) != '(')
		return 0;
	while (peekc(x, k) == ' ' || peekc(x, k) == '\t')
		k++;
	return peekc(x, k) == ')';
}

/* `name () {` or `function name [()] {`, read as far as w (the first
 * word): 1 a definition, read to its closing brace and remembered; 0 not
 * one; -1 on error. */
static int
try_function(struct sx *x, const struct pstr *w)
{
	struct pstr nm = {0};
	int kw = word_is(w, " function "), line, col;
	long end;

	if (kw && (skip_blanks(x), lex_word(x, &nm, 0, 0) < 0)) {
		ps_free(&nm);
		return -1;
	}
	if (!kw)
		ps_copy(&nm, w);
	skip_blanks(x);
	if (!fn_name_ok(&nm) || word_is(&nm, skip_kw) || (!kw && !empty_parens(x))) {
		ps_free(&nm);
		return kw ? 1 : 0; /* `function` and junk: read on as before */
	}
	if (empty_parens(x)) {
		while (peekc(x, 0) != ')')
			adv(x);
		adv(x);
	}
	skip_newlines(x);
	if (peekc(x, 0) != '{' || !is_sep(peekc(x, 1)) || peekc(x, 1) == '(') {
		ps_free(&nm); /* a body in ( ), or no body: its commands are read in place */
		return 1;
	}
	adv(x);
	line = x->line, col = x->col;
	MCINIT_GROW(x->fns, x->capfns, x->nfns + 1);
	x->fns[x->nfns] = (struct fn){ps_text(&nm), x->i, 0, line, col, x->s, x->map};
	ps_free(&nm);
	end = skip_block(x, '{');
	if (end < 0) {
		free(x->fns[x->nfns].name);
		return -1;
	}
	x->fns[x->nfns++].end = (size_t)end;
	return 1;
}

/* Sets the positional parameters to w[from...] (copies). */
static void
set_positional(struct sx *x, const struct plist *w, size_t from)
{
	struct var *v;

	touch_var(x, x->at);
	v = &x->vars[x->at];
	pl_free(&v->val);
	for (size_t k = from; k < w->n && charge(x, w->v[k].n + EL_COST); k++) {
		struct pstr p = {0};

		ps_copy(&p, &w->v[k]);
		pl_push(&v->val, &p);
	}
}

/* `f a b`: f's body with a b as its positional parameters, its `local`
 * variables restored at its end. */
static void
call_function(struct sx *x, const struct fn *f, const struct plist *w)
{
	struct fn fn = *f; /* x->fns may move while the body defines more */
	const char *s = x->s;
	const struct lc *map = x->map;

	if (x->calls >= MAX_CALLS) {
		if (!x->deep++)
			script_bound(x, w->v[0].n ? w->v[0].v[0].line : 0,
			             w->v[0].n ? w->v[0].v[0].col : 0,
			             "function calls nested more than %d deep: `%s` not followed "
			             "further (here, and wherever else it happens)",
			             MAX_CALLS, fn.name);
		x->status = -1;
		return;
	}
	frame_push(x, 0);
	frame_save(x, &x->frames[x->nframes - 1], x->at, &x->vars[x->at]);
	set_positional(x, w, 1);
	x->calls++;
	x->status = 0;
	x->s = fn.s, x->map = fn.map; /* defined in a sourced file, or by eval */
	if (run_region(x, fn.start, fn.end, fn.line, fn.col) < 0)
		x->status = -1; /* already read once without error: not reached */
	x->s = s, x->map = map;
	x->calls--;
	frame_pop(x);
}

/* `shift [N]`. */
static void
do_shift(struct sx *x, const struct plist *w)
{
	struct var *v = &x->vars[x->at];
	long long n = 1;
	char *t = w->n > 1 ? ps_text(&w->v[1]) : NULL;

	if (t != NULL && (!int_word(t, &n) || ps_opaque(&w->v[1]) || n < 0)) {
		free(t);
		x->status = -1;
		return;
	}
	free(t);
	x->status = (size_t)n > v->val.n;
	if (x->status || n == 0)
		return;
	touch_var(x, x->at);
	v = &x->vars[x->at];
	for (size_t k = 0; k < (size_t)n; k++)
		ps_free(&v->val.v[k]);
	memmove(v->val.v, v->val.v + n, (v->val.n - (size_t)n) * sizeof *v->val.v);
	v->val.n -= (size_t)n;
}

/* ---- command substitutions: what echo and printf print ---- */

static void __attribute__((format(printf, 2, 3))) taint(struct sx *x, const char *fmt, ...)
{
	va_list ap;

	if (x->cap == NULL || x->cap->why != NULL)
		return;
	va_start(ap, fmt);
	x->cap->why = mcinit_xvasprintf(fmt, ap);
	va_end(ap);
}

static void
cap_put(struct sx *x, struct pch ch)
{
	if (!charge(x, 1))
		return;
	ch.fl &= PF_OPAQUE | PF_UNREAD;
	put(&x->cap->out, ch);
}

/* A word's characters, as printed. */
static void
cap_word(struct sx *x, const struct pstr *p)
{
	for (size_t k = 0; k < p->n; k++)
		if (!(p->v[k].fl & PF_MARK))
			cap_put(x, p->v[k]);
}

static struct pch
pch_at(const struct pstr *p, char c)
{
	struct pch ch = {c, 0, 0, 0, -1, -1};

	if (p->n > 0)
		ch.line = p->v[0].line, ch.col = p->v[0].col, ch.var = p->v[0].var;
	return ch;
}

/* Whether a word holds a backslash (echo -e would read it). */
static int
has_backslash(const struct pstr *p)
{
	for (size_t k = 0; k < p->n; k++)
		if (p->v[k].c == '\\' && !(p->v[k].fl & PF_MARK))
			return 1;
	return 0;
}

/* echo [-neE] WORD...: the words, blank-separated, and a newline. */
static void
cap_echo(struct sx *x, const struct plist *w)
{
	size_t k = 1;
	int nl = 1, esc = 0;

	for (; k < w->n; k++) {
		char *t = ps_text(&w->v[k]);
		int opt = t[0] == '-' && t[1] != '\0' && strspn(t + 1, "neE") == strlen(t + 1);

		if (opt) {
			nl &= strchr(t, 'n') == NULL;
			esc = strchr(t, 'e') != NULL || (esc && strchr(t, 'E') == NULL);
		}
		free(t);
		if (!opt)
			break;
	}
	for (size_t j = k; j < w->n; j++) {
		if (esc && has_backslash(&w->v[j]))
			taint(x, "`echo -e` with a backslash escape");
		if (j > k)
			cap_put(x, pch_at(&w->v[j], ' '));
		cap_word(x, &w->v[j]);
	}
	if (nl)
		cap_put(x, pch_at(&w->v[w->n - 1], '\n'));
}

/* dirname PATH...: each PATH without its last component, as coreutils
 * prints it ("." when there is none, "/" for the root), a line each. */
static void
cap_dirname(struct sx *x, const struct plist *w)
{
	if (w->n < 2)
		taint(x, "`dirname` without an operand");
	for (size_t k = 1; k < w->n; k++) {
		const struct pstr *p = &w->v[k];
		char *t = ps_text(p);
		size_t n = strlen(t), i = 0;

		if (t[0] == '-' || ps_opaque(p))
			taint(x, "it runs `dirname` on a value known only at run time");
		while (n > 1 && t[n - 1] == '/')
			n--;
		while (n > 0 && t[n - 1] != '/')
			n--;
		while (n > 1 && t[n - 1] == '/')
			n--;
		if (n == 0)
			cap_put(x, pch_at(p, '.'));
		for (size_t j = 0; j < p->n && i < n; j++)
			if (!(p->v[j].fl & PF_MARK))
				cap_put(x, p->v[j]), i++;
		cap_put(x, pch_at(p, '\n'));
		free(t);
	}
}

/* One conversion of printf's format (fmt[*k] is the `%`): the argument it
 * takes (*arg moves on), or -1 for one mcinit leaves to bash. */
static int
printf_conv(struct sx *x, const struct pstr *fmt, size_t *k, const struct plist *w, size_t *arg)
{
	char c = *k + 1 < fmt->n ? fmt->v[*k + 1].c : 0;
	const struct pstr *a = *arg < w->n ? &w->v[*arg] : NULL;
	long long v;
	char *t;

	(*k)++;
	if (c == '%') {
		cap_put(x, fmt->v[*k]);
		return 0;
	}
	if (c != 's' && c != 'd' && c != 'i')
		return -1;
	(*arg)++;
	if (a == NULL)
		return c == 's' ? 0 : (cap_put(x, pch_at(fmt, '0')), 0);
	t = ps_text(a);
	if (c != 's' && (!int_word(t, &v) || ps_opaque(a))) {
		free(t);
		return -1;
	}
	free(t);
	cap_word(x, a);
	return 0;
}

/* printf FORMAT ARG...: %s, %d, %i, %%, \n, \t and \\; the format is
 * reused while arguments remain, as bash does. */
static void
cap_printf(struct sx *x, const struct plist *w)
{
	static const char esc_from[] = "nt\\", esc_to[] = "\n\t\\";
	size_t f = 1 + (w->n > 2 && ps_nchars(&w->v[1]) == 2 && w->v[1].v[0].c == '-' &&
	                w->v[1].v[1].c == '-'), /* printf -- FORMAT */
	    arg = f + 1, first;
	const struct pstr *fmt = f < w->n ? &w->v[f] : NULL;

	if (fmt == NULL || ps_opaque(fmt) || (f == 1 && fmt->n > 0 && fmt->v[0].c == '-')) {
		taint(x, "`printf` with a format mcinit does not read");
		return;
	}
	do {
		first = arg;
		for (size_t k = 0; k < fmt->n && x->cap->why == NULL; k++) {
			struct pch ch = fmt->v[k];
			const char *e;

			if (ch.fl & PF_MARK)
				continue;
			if (ch.c == '%' && printf_conv(x, fmt, &k, w, &arg) < 0)
				taint(x, "`printf` with a conversion mcinit does not evaluate");
			else if (ch.c == '\\' && k + 1 < fmt->n &&
			         (e = strchr(esc_from, fmt->v[k + 1].c)) != NULL && *e != '\0')
				ch.c = esc_to[e - esc_from], k++, cap_put(x, ch);
			else if (ch.c == '\\')
				taint(x, "`printf` with an escape mcinit does not evaluate");
			else if (ch.c != '%')
				cap_put(x, ch);
		}
	} while (arg < w->n && arg > first && x->cap->why == NULL);
}

/* The substitution's output into the word: trailing newlines dropped,
 * split later unless quoted. */
static void
put_output(struct pstr *out, const struct pstr *o, const struct bparam *b)
{
	size_t n = o->n;

	while (n > 0 && o->v[n - 1].c == '\n' && !(o->v[n - 1].fl & PF_OPAQUE))
		n--;
	for (size_t k = 0; k < n; k++) {
		struct pch ch = o->v[k];

		ch.fl = (unsigned char)((ch.fl & (PF_OPAQUE | PF_UNREAD)) |
		                        (b->quoted ? PF_QUOTED : 0));
		put(out, ch);
	}
	if (b->quoted && n == 0)
		putc_at(out, 0, PF_EMPTYQ, b->line, b->col);
}

/* $(...) or `...` just read (b->start is its `$` or backquote), its
 * commands at [from, to) starting at line:col: their output when mcinit
 * can tell it without running a program (echo, printf, tests, the
 * script's functions), else the text as written, opaque, with why. */
static void
subst_expand(struct sx *x, struct pstr *out, const struct bparam *b, size_t from, size_t to,
             int line, int col)
{
	struct capture c = {{0}, NULL}, *outer = x->cap;
	struct mcinit_err saved;
	size_t nfns = x->nfns;
	int allexport = x->allexport, status = x->status, loops = x->loops;

	if (out == NULL || x->dead) {
		opaque(x, out, b->start, b->line, b->col, b->quoted, "command substitution");
		return;
	}
	if (x->calls >= MAX_CALLS)
		c.why = mcinit_xstrdup("substitutions and calls nested too deeply");
	if (x->err != NULL)
		saved = *x->err;
	frame_push(x, 1); /* a subshell: its assignments do not last */
	x->cap = &c;
	x->loops = 0; /* `break` inside does not end a loop outside */
	x->calls++;
	if (c.why == NULL && run_region(x, from, to, line, col) < 0)
		taint(x, "%s", x->err != NULL ? x->err->msg : "text mcinit cannot read");
	if (x->err != NULL)
		*x->err = saved;
	x->calls--;
	x->cap = outer;
	x->loops = loops;
	x->brk = 0;
	frame_pop(x);
	while (x->nfns > nfns)
		free(x->fns[--x->nfns].name);
	x->allexport = allexport;
	x->status = status;
	if (c.why != NULL) {
		char *why = mcinit_xasprintf("command substitution: %s, so flags from it were not "
		                             "checked",
		                             c.why);

		opaque(x, out, b->start, b->line, b->col, b->quoted, why);
		free(why);
	} else {
		put_output(out, &c.out, b);
	}
	free(c.why);
	ps_free(&c.out);
}

static int uncertain(const struct sx *x);

/* ---- loops ---- */

/* Every variable changed since x->gen was g0 gets a value only the run
 * knows, with the note "`NAME` is changed by WHY; word kept as written":
 * after a loop mcinit stopped at a bound (bash would go on; its counter is
 * not the one of the last pass read), or a sourced file it could not read
 * to its end. */
static void
vars_unknown(struct sx *x, unsigned long g0, int line, int col, const char *why)
{
	for (size_t vi = 0; vi < x->nvars; vi++) {
		struct var *v = &x->vars[vi];
		struct pstr p = {0};
		char *t;
		int ev;

		if (v->gen <= g0 || (int)vi == x->at || !v->defined)
			continue;
		ev = add_event(x, line, col, "`%s` is changed by %s; word kept as written", v->name,
		               why);
		t = mcinit_xasprintf("$%s", v->name);
		for (const char *c = t; *c; c++)
			put(&p, (struct pch){*c, PF_OPAQUE, line, col, (int)vi, ev});
		free(t);
		touch_var(x, (int)vi);
		pl_free(&v->val);
		pl_push(&v->val, &p);
		v->is_array = 0;
		v->cut = 1;
	}
}

static void
loop_cut(struct sx *x, unsigned long g0, int line, int col, int passes)
{
	char *why = mcinit_xasprintf("a loop mcinit stopped after %d passes", passes);

	vars_unknown(x, g0, line, col, why);
	free(why);
}

#define MAX_WHILE 100 /* iterations of a while loop whose test stays true */

struct body { /* a loop's condition or body: text [start, end) */
	size_t start, end;
	int line, col;
};

/* BODY done, the cursor after `do`: 1 read (the cursor past `done`), -1
 * on error. */
static int
body_to_done(struct sx *x, struct body *b)
{
	long end;

	b->start = x->i, b->line = x->line, b->col = x->col;
	if ((end = skip_block(x, 'd')) < 0)
		return -1;
	b->end = (size_t)end;
	return 1;
}

/* `do BODY done` after a loop's header: 1 read (the cursor past `done`),
 * 0 no `do` here (what follows is read in place), -1 on error. */
static int
read_body(struct sx *x, struct body *b)
{
	struct pstr w = {0};
	int isdo;

	for (;;) {
		skip_newlines(x);
		if (peekc(x, 0) != ';' || peekc(x, 1) == ';')
			break;
		adv(x);
	}
	if (lex_word(x, &w, 0, 0) < 0) {
		ps_free(&w);
		return -1;
	}
	isdo = word_is(&w, " do ");
	ps_free(&w);
	return isdo ? body_to_done(x, b) : 0;
}

static const char loop_deep_msg[] = "loops nested too deeply (more than 256 levels)";

/* The body once more: 1 go on, 0 `break`, -1 on error. */
static int
loop_pass(struct sx *x, const struct body *b)
{
	int r;

	if (x->loop_depth >= MAX_LOOP_DEPTH) {
		x->too_deep = loop_deep_msg;
		return fail(x, b->line, b->col, loop_deep_msg);
	}
	x->loops++;
	x->loop_depth++;
	r = run_region(x, b->start, b->end, b->line, b->col);
	x->loop_depth--;
	x->loops--;
	if (r < 0)
		return -1;
	r = x->brk != 1 && !x->exhausted && !out_of_steps(x, b->line, b->col);
	x->brk = 0;
	return r;
}

/* The words after `for NAME`: those after `in` up to `;` or a newline,
 * else the positional parameters. */
static int
for_items(struct sx *x, struct plist *items)
{
	struct pstr w = {0};
	int c;

	skip_blanks(x);
	c = peekc(x, 0);
	if (c < 0 || c == ';' || c == '\n') {
		for (size_t k = 0; k < x->vars[x->at].val.n; k++) {
			ps_copy(&w, &x->vars[x->at].val.v[k]);
			pl_push(items, &w);
		}
		return 0;
	}
	if (lex_word(x, &w, 0, 0) < 0 || !word_is(&w, " in ")) {
		ps_free(&w);
		return -1;
	}
	ps_free(&w);
	for (;;) {
		skip_blanks(x);
		c = peekc(x, 0);
		if (c == '#')
			skip_comment(x);
		if (is_sep(c) || c == '#')
			return 0;
		if (lex_words_braced(x, items) < 0)
			return -1;
		if (too_many_words(x, items, x->line, x->col, words_list_msg) < 0)
			return -1;
	}
}

/* `for NAME in WORD...; do BODY done`: the body once for each word. */
static int
for_each(struct sx *x, const struct pstr *nm, struct plist *items, const struct body *b)
{
	char *name = ps_text(nm);
	int vi = -1, r = 1, stopped = x->stopped;
	unsigned long g0 = x->gen;
	size_t k;

	if (is_ident((unsigned char)name[0], 1) && strspn(name, IDENT_CHARS) == strlen(name))
		vi = var_get(x, name, strlen(name));
	free(name);
	for (k = 0; k < items->n && r > 0; k++) {
		struct pstr v = {0};

		if (vi >= 0) {
			ps_copy(&v, &items->v[k]);
			assign_scalar(x, vi, &v, 0, b->line, b->col, 0);
		}
		r = loop_pass(x, b);
	}
	if (x->stopped != stopped) /* by the bound on commands */
		loop_cut(x, g0, b->line, b->col, (int)k);
	return r;
}

static int do_cfor(struct sx *x);

/* `for` at a command's start, the cursor after it: 1 read through its
 * `done` (or its header only, when no `do` follows), -1 on error. */
static int
do_for(struct sx *x)
{
	struct pstr nm = {0};
	struct plist items = {0};
	struct body b;
	int r;

	if (x->cap != NULL && uncertain(x))
		taint(x, "a loop runs only if a test mcinit cannot decide says so");
	skip_blanks(x);
	if (peekc(x, 0) == '(' && peekc(x, 1) == '(')
		return do_cfor(x);
	r = lex_word(x, &nm, 0, 0);
	if (r == 0 && for_items(x, &items) == 0 && (r = read_body(x, &b)) > 0)
		r = for_each(x, &nm, &items, &b);
	ps_free(&nm);
	pl_free(&items);
	return r < 0 ? -1 : 1;
}

/* `while COND; do BODY done` (until: `until`): the body while COND's
 * status says so; a status only the run knows reads the body once. */
static int
do_while(struct sx *x, int until)
{
	struct body c = {x->i, 0, x->line, x->col}, b;
	long at = skip_block(x, 'w');
	unsigned long g0 = x->gen;
	int n, r, stopped = x->stopped;

	if (at < 0 || (size_t)at >= x->len)
		return at < 0 ? -1 : 1; /* no `do`: nothing more to read */
	c.end = (size_t)at;
	if (body_to_done(x, &b) < 0)
		return -1;
	for (n = 0, r = 1; n < MAX_WHILE && r > 0; n++) {
		int st; /* 1 the body runs, 0 the loop ends, -1 only the run knows */

		x->status = 0;
		if (run_region(x, c.start, c.end, c.line, c.col) < 0)
			return -1;
		st = x->status < 0 ? -1 : (x->status == 0) != until;
		if (st == 0 || (st < 0 && n > 0))
			return 1;
		if (st < 0)
			taint(x, "a loop whose test mcinit cannot decide");
		r = loop_pass(x, &b);
		if (st < 0 && r > 0)
			r = 0; /* read once, as where the test is unknown */
	}
	if (n == MAX_WHILE && r > 0) {
		script_note(x, c.line, c.col,
		            "a loop still running after %d passes: mcinit reads no more of them",
		            MAX_WHILE);
		loop_cut(x, g0, c.line, c.col, MAX_WHILE);
	} else if (x->stopped != stopped) { /* by the bound on commands */
		loop_cut(x, g0, c.line, c.col, n);
	}
	return r < 0 ? -1 : 1;
}

/* The value of NAME for NAME++ and NAME+=E: unset is 0, as in bash. */
static long long
arith_name(struct sx *x, const char *name, size_t n, const char **why)
{
	struct arith a = {x, name, n, 0, NULL, 0, 0};
	int vi = var_find(x, name, n);
	long long v;

	if (var_maybe(x, vi)) {
		*why = x->unread;
		return 0;
	}
	if (vi < 0 || !x->vars[vi].defined)
		return 0;
	v = arith_expr(&a, 0);
	if (a.why != NULL)
		*why = a.why;
	return v;
}

static void
set_number(struct sx *x, const char *name, size_t n, long long v, int line, int col)
{
	struct pstr p = {0};

	put_number(&p, v, 0, line, col);
	assign_scalar(x, var_get(x, name, n), &p, 0, line, col, 0);
}

/* One statement of `for ((A; B; C))`, s[0..n): NAME=E (+= -= *= /= %=),
 * NAME++, NAME--, ++NAME, --NAME or E; an empty one is 1.  NULL, or why
 * its value is unknown. */
static const char *
arith_stmt(struct sx *x, const char *s, size_t n, long long *val, int line, int col)
{
	struct arith a = {x, s, n, 0, NULL, 0, 0};
	size_t k, j;
	int pre = 0;
	char op = 0;

	arith_ws(&a);
	if (a.i == n)
		return *val = 1, NULL;
	k = a.i;
	if (n - k > 2 && (memcmp(s + k, "++", 2) == 0 || memcmp(s + k, "--", 2) == 0))
		pre = s[k], k += 2;
	for (j = k; j < n && is_ident((unsigned char)s[j], j == k);)
		j++;
	a.i = j;
	arith_ws(&a);
	if (j > k && !pre && n - a.i >= 2 && s[a.i] == s[a.i + 1] && strchr("+-", s[a.i]))
		op = s[a.i] == '+' ? 'p' : 'm', a.i += 2; /* NAME++ */
	else if (j > k && !pre && a.i < n && strchr("+-*/%", s[a.i]) && a.i + 1 < n &&
	         s[a.i + 1] == '=')
		op = s[a.i], a.i += 2;
	else if (j > k && !pre && a.i < n && s[a.i] == '=' && (a.i + 1 == n || s[a.i + 1] != '='))
		op = '=', a.i++;
	if (pre || op == 'p' || op == 'm') {
		const char *why = NULL;
		long long v = arith_name(x, s + k, j - k, &why),
		          d = pre == '-' || op == 'm' ? -1 : 1;

		arith_ws(&a);
		if (why != NULL || a.i != n || j == k)
			return why ? why : "arithmetic mcinit does not evaluate";
		set_number(x, s + k, j - k, v + d, line, col);
		return *val = pre ? v + d : v, NULL;
	}
	if (op == 0)
		a.i = 0;
	*val = arith_expr(&a, 0);
	arith_ws(&a);
	if (a.why == NULL && a.i != n)
		a.why = "arithmetic mcinit does not evaluate";
	if (a.why != NULL || op == 0)
		return a.why;
	if (op != '=') {
		const char *why = NULL;
		long long l = arith_name(x, s + k, j - k, &why);

		if (why != NULL)
			return why;
		*val = arith_apply(&a, (char[]){op, 0}, l, *val);
		if (a.why != NULL)
			return a.why;
	}
	set_number(x, s + k, j - k, *val, line, col);
	return NULL;
}

/* The text of `((...))`, its expansions done (the cursor after `((`). */
static int
cfor_text(struct sx *x, struct pstr *e, int line, int col)
{
	int depth = 0, c;

	while ((c = peekc(x, 0)) != ')' || peekc(x, 1) != ')' || depth > 0) {
		if (c < 0)
			return fail(x, line, col, "unterminated for ((");
		if (c == '$' && lex_dollar(x, e, 1) < 0)
			return -1;
		if (c == '$')
			continue;
		depth += c == '(' ? 1 : c == ')' ? -1 : 0;
		putc_at(e, c, PF_QUOTED, x->line, x->col);
		adv(x);
	}
	adv(x);
	adv(x);
	return 0;
}

/* `for ((A; B; C)); do BODY done`: A, then the body and C while B is not
 * 0; a B only the run knows reads the body once. */
static int
do_cfor(struct sx *x)
{
	struct pstr e = {0};
	struct body b;
	int line = x->line, col = x->col, r, n = 0, stopped = x->stopped;
	unsigned long g0 = x->gen;
	char *t, *s1, *s2;
	long long v;

	adv(x);
	adv(x);
	r = cfor_text(x, &e, line, col);
	t = ps_text(&e);
	ps_free(&e);
	s1 = strchr(t, ';');
	s2 = s1 ? strchr(s1 + 1, ';') : NULL;
	if (r == 0 && (r = read_body(x, &b)) > 0 && s2 != NULL &&
	    arith_stmt(x, t, (size_t)(s1 - t), &v, line, col) == NULL) {
		for (n = 0; r > 0 && n < MAX_WHILE * 10; n++) {
			const char *why =
			    arith_stmt(x, s1 + 1, (size_t)(s2 - s1 - 1), &v, line, col);

			if (x->too_deep != NULL || (why == NULL && v == 0))
				break;
			r = loop_pass(x, &b);
			if (why != NULL || arith_stmt(x, s2 + 1, strlen(s2 + 1), &v, line, col))
				break; /* read once, as where the test is unknown */
		}
	} else if (r > 0 && x->too_deep == NULL) {
		r = loop_pass(x, &b);
	}
	free(t);
	if (r >= 0 && x->too_deep != NULL)
		return fail(x, line, col, x->too_deep);
	if (r > 0 && n == MAX_WHILE * 10) {
		script_note(x, line, col,
		            "a loop still running after %d passes: mcinit reads no more of them",
		            MAX_WHILE * 10);
		loop_cut(x, g0, line, col, MAX_WHILE * 10);
	} else if (x->stopped != stopped) {
		loop_cut(x, g0, line, col, n);
	}
	return r < 0 ? -1 : 1;
}

/* ---- simple commands ---- */

/* Inside a branch whose test only the run decides. */
static int
uncertain(const struct sx *x)
{
	for (size_t k = 0; k < x->nifs; k++)
		if (x->ifs[k].unknown)
			return 1;
	return 0;
}

/* Whether the command about to be read runs after the one before it (&&,
 * ||): 0 it runs, 1 bash skips it, -1 only the run can tell. */
static int
guard_of(const struct sx *x)
{
	const struct ifr *f = x->nifs ? &x->ifs[x->nifs - 1] : NULL;

	if (f != NULL && f->awaiting > 0 && !f->is_case)
		return 0; /* an if's condition: add_condition follows && and || */
	if (x->prev_op == '&')
		return x->status == 0 ? 0 : x->status > 0 ? 1 : -1;
	if (x->prev_op == '|')
		return x->status == 0 ? 1 : x->status > 0 ? 0 : -1;
	return 0;
}

/* `local V` / `declare V` inside a function (without -g): V is the
 * function's own until it returns. */
static void
make_local(struct sx *x, int vi, int unset)
{
	struct var *v;

	if (x->local_frame == 0 || x->dead)
		return;
	frame_save(x, &x->frames[x->local_frame - 1], vi, &x->vars[vi]);
	if (!unset)
		return;
	v = &x->vars[vi];
	pl_free(&v->val);
	v->defined = v->is_array = 0;
}

/* The frame `local` adds to: the innermost function call's. */
static int
local_frame(const struct sx *x)
{
	for (size_t k = x->nframes; k-- > 0;)
		if (!x->frames[k].all)
			return (int)k + 1;
	return 0;
}

/* The characters of p read as commands, as `eval` and `bash -c` do, each
 * still placed where it was written; the commands they run get the words
 * of prefix before their own (`srun -N 2 bash -c "python ..."`). */
static void
run_string(struct sx *x, const struct pstr *p, const struct plist *prefix)
{
	const char *s = x->s;
	const struct lc *map = x->map;
	const struct plist *pre = x->prefix;
	struct lc *m = mcinit_xcalloc(p->n + 1, sizeof *m);
	char *t = mcinit_xmalloc(p->n + 1);
	struct mcinit_err saved;
	size_t n = 0, nfns = x->nfns;

	if (x->calls >= MAX_CALLS)
		goto out;
	for (size_t k = 0; k < p->n; k++)
		if (!(p->v[k].fl & PF_MARK)) {
			t[n] = p->v[k].c;
			m[n++] = (struct lc){p->v[k].line, p->v[k].col};
		}
	m[n] = n > 0 ? m[n - 1] : (struct lc){0, 0};
	x->s = t, x->map = m, x->prefix = prefix;
	x->calls++;
	if (x->err != NULL)
		saved = *x->err;
	if (n > 0 && run_region(x, 0, n, m[0].line, m[0].col) < 0) {
		x->status = -1;
		script_note(x, m[0].line, m[0].col,
		            "a string read as commands (eval, bash -c) that mcinit cannot read: "
		            "%s",
		            x->err != NULL ? x->err->msg : "");
	}
	if (x->err != NULL)
		*x->err = saved;
	x->calls--;
	x->s = s, x->map = map, x->prefix = pre;
	if (x->nfns > nfns) { /* a function defined here is read from t when called */
		MCINIT_GROW(x->owned, x->capowned, x->nowned + 2);
		x->owned[x->nowned++] = t;
		x->owned[x->nowned++] = m;
		return;
	}
out:
	free(t);
	free(m);
}

/* `eval WORD...`: the words joined with blanks, read as commands. */
static void
do_eval(struct sx *x, const struct plist *w)
{
	struct pstr all = {0};

	for (size_t k = 1; k < w->n; k++) {
		if (k > 1)
			put(&all, pch_at(&w->v[k], ' '));
		ps_copy(&all, &w->v[k]);
	}
	run_string(x, &all, x->prefix);
	ps_free(&all);
}

/* `... bash -c STRING [ARG0 ARG...]` (sh; -lc, -ec): 1 with *at the index
 * of bash, 0 when the command is not one. */
static int
shell_c(const struct plist *w, size_t *at)
{
	for (size_t k = 0; k + 2 < w->n; k++) {
		char *t = ps_text(&w->v[k]), *o = ps_text(&w->v[k + 1]);
		int hit = in_list(base_name(t), " bash sh ") && o[0] == '-' && o[1] != '-' &&
		          strchr(o, 'c') != NULL;

		free(t);
		free(o);
		if (hit)
			*at = k;
		if (hit || is_py_field(&w->v[k]))
			return hit;
	}
	return 0;
}

/* The words the commands of another shell started by w[k] get before
 * their own: those of the shell w runs in (x->prefix), then w[0..k). */
static void
outer_prefix(const struct sx *x, const struct plist *w, size_t k, struct plist *prefix)
{
	for (size_t j = 0; x->prefix != NULL && j < x->prefix->n; j++) {
		struct pstr p = {0};

		ps_copy(&p, &x->prefix->v[j]);
		pl_push(prefix, &p);
	}
	for (size_t j = 0; j < k; j++) {
		struct pstr p = {0};

		ps_copy(&p, &w->v[j]);
		pl_push(prefix, &p);
	}
}

/* `srun ... bash -c STRING ARG0 ARG...` at w[k]: STRING read as commands
 * with ARG... as their positional parameters and w[0..k) before them. */
static void
do_shell_c(struct sx *x, const struct plist *w, size_t k)
{
	struct plist prefix = {0}, args = {w->v + k + 3, k + 3 < w->n ? w->n - k - 3 : 0, 0};

	outer_prefix(x, w, k, &prefix);
	frame_push(x, 1); /* another shell: nothing it sets comes back */
	set_positional(x, &args, args.n > 0 ? 1 : 0);
	run_string(x, &w->v[k + 2], &prefix);
	frame_pop(x);
	pl_free(&prefix);
}

/* ---- other files of the script: source FILE, bash FILE ---- */

/* A sourced file mcinit could not read: every variable not assigned by
 * now may be one it sets, so each is known only at run time from here on
 * (not unset: that would invent errors for flags it holds). */
static void
mark_unread(struct sx *x, const char *name)
{
	if (x->unread == NULL)
		x->unread = mcinit_xasprintf("variable not assigned in this script, which `%s` "
		                             "(not read) may set",
		                             name);
	for (size_t k = 0; k < x->nvars; k++)
		if ((int)k != x->at && !x->vars[k].defined && !x->vars[k].maybe) {
			touch_var(x, (int)k);
			x->vars[k].maybe = 1;
		}
}

/* "`a.sh` -> `b.sh` -> `a.sh`": the files being read from fi's reading on. */
static char *
cycle_text(const struct sx *x, int fi)
{
	struct mcinit_buf b = {0};
	size_t k = 0;

	while (x->fstack[k] != fi)
		k++;
	for (; k <= x->nfstack; k++) { /* appended, not printed: files read in
		                        * a cycle build this again and again */
		mcinit_buf_addc(&b, '`');
		mcinit_buf_adds(&b, x->files.v[k < x->nfstack ? x->fstack[k] : fi].path);
		mcinit_buf_adds(&b, k < x->nfstack ? "` -> " : "`");
	}
	mcinit_buf_cstr(&b);
	return b.data;
}

/* The file that word w names (what: "sourced file", "script"), read in:
 * its index in x->files; -1 when it cannot be (a warning at line:col says
 * why), -2 when it is being read already (a cycle: a warning too). */
static int
follow_open(struct sx *x, const struct pstr *w, const char *what, int line, int col)
{
	char *name = ps_text(w), *chain, deep[64];
	const char *why = NULL;
	int fi = -1;

	if (ps_opaque(w))
		why = "named by a value known only at run time";
	else if (x->nfstack >= x->max_files) {
		snprintf(deep, sizeof deep,
		         "not read (files are read within one another %zu deep at most)",
		         x->max_files);
		why = deep;
	} else if (x->calls >= MAX_CALLS)
		why = "not read (function calls and files nested too deeply)";
	else
		fi = mcinit_shfiles_open(&x->files, name, &why);
	for (size_t k = 0; fi >= 0 && k < x->nfstack; k++)
		if (x->fstack[k] == fi) {
			chain = cycle_text(x, fi);
			script_warn(x, line, col,
			            "%s `%s` is already being read (%s): not read again inside "
			            "itself",
			            what, x->files.v[fi].path, chain);
			free(chain);
			free(name);
			return -2;
		}
	if (fi < 0)
		script_warn(x, line, col, "%s `%s` %s: %s", what, name, why,
		            what[0] == 's' && what[1] == 'o'
		                ? "the variables it may set are known only at run time"
		                : "a launch in it is not checked");
	free(name);
	return fi;
}

/* File fi's commands read here, in the shell as it stands; the commands
 * they run get the words of prefix before their own.  0, or -1 after a
 * warning when the text cannot be a script. */
static int
read_file(struct sx *x, int fi, const struct plist *prefix, int line, int col, const char *what)
{
	const struct mcinit_shfile *f = &x->files.v[fi];
	const char *s = x->s;
	const struct lc *map = x->map;
	const struct plist *pre = x->prefix;
	struct mcinit_err saved, *e = x->err;
	int r, el = 0, ef;

	MCINIT_GROW(x->fstack, x->capfstack, x->nfstack + 1);
	x->fstack[x->nfstack++] = fi;
	x->s = f->text, x->map = NULL, x->prefix = prefix;
	x->calls++;
	if (e != NULL)
		saved = *e;
	r = run_region(x, 0, f->len, f->base + 1, 1); /* f may move: x->files grows */
	if (r < 0 && e != NULL)
		mcinit_shfiles_locate(&x->files, e->line, &ef, &el);
	if (r < 0)
		script_warn(x, line, col, "%s `%s` cannot be read as a shell script (line %d: %s)",
		            what, x->files.v[fi].path, el, e != NULL ? e->msg + e->text_off : "");
	if (e != NULL)
		*e = saved;
	x->calls--;
	x->s = s, x->map = map, x->prefix = pre;
	x->nfstack--;
	return r;
}

/* `source FILE [ARGS]` / `. FILE [ARGS]`: FILE read in this shell, ARGS
 * its positional parameters while it is read. */
static void
do_source(struct sx *x, const struct plist *w)
{
	size_t k = w->n > 2 && word_is(&w->v[1], " -- ") ? 2 : 1;
	int line = w->v[0].n ? w->v[0].v[0].line : 0, col = w->v[0].n ? w->v[0].v[0].col : 0;
	struct saved sv = {x->at, {0}, 0, 0, 0, {0, 0, 0, 0, 0, 0}};
	int fi, args_set = x->args_set;
	unsigned long g0 = x->gen;

	x->status = -1;
	if (k >= w->n)
		return;
	fi = follow_open(x, &w->v[k], "sourced file", line, col);
	if (fi == -1) {
		char *name = ps_text(&w->v[k]);

		mark_unread(x, name);
		free(name);
	}
	if (fi < 0)
		return;
	if (k + 1 < w->n) { /* bash puts the caller's back when the file ends */
		var_save(&x->vars[x->at], &sv.v);
		set_positional(x, w, k + 1);
		x->args_set = 0;
	}
	if (read_file(x, fi, x->prefix, line, col, "sourced file") < 0) {
		/* what it set before the place mcinit could not read is not
		 * all it sets */
		char *why = mcinit_xasprintf("sourced file `%s`, which mcinit could not read to "
		                             "its end",
		                             x->files.v[fi].path);

		vars_unknown(x, g0, line, col, why);
		free(why);
		mark_unread(x, x->files.v[fi].path);
	}
	if (k + 1 < w->n && !x->args_set) {
		touch_var(x, x->at);
		restore(x, &sv, 1);
	} else if (k + 1 < w->n) { /* unless it ran `set --` (a shift is undone) */
		pl_free(&sv.v.val);
	}
	x->args_set |= args_set;
	x->status = -1;
}

static const char run_wrappers[] = " srun exec nohup env time ";

/* `bash [OPTS] FILE ARGS` / `sh FILE` (anywhere before a .py word, as in
 * `srun ... bash FILE`), or a `*.sh` / `*.bash` path run as a program
 * (first, or after srun, exec, env ...): 1 with *at the index of bash (or
 * of the path) and *file that of FILE; 0 when the command is not one. */
static int
child_script(const struct plist *w, size_t *at, size_t *file)
{
	char *t0 = ps_text(&w->v[0]);
	int wrapped = in_list(base_name(t0), run_wrappers), hit = 0;

	if (in_list(base_name(t0), not_runner)) { /* echo bash x.sh, grep bash x.sh */
		free(t0);
		return 0;
	}
	free(t0);
	for (size_t k = 0; k < w->n && !hit && !is_py_field(&w->v[k]); k++) {
		char *t = ps_text(&w->v[k]);
		size_t n = strlen(t), j = k + 1;
		int script = (n > 3 && strcmp(t + n - 3, ".sh") == 0) ||
		             (n > 5 && strcmp(t + n - 5, ".bash") == 0);

		if (script && strchr(t, '/') != NULL && (k == 0 || wrapped))
			*at = *file = k, hit = 1;
		else if (in_list(base_name(t), " bash sh ")) {
			for (; j < w->n; j++) { /* its options: -x, -e, -o pipefail, -- */
				char *o = ps_text(&w->v[j]);
				int opt = (o[0] == '-' || o[0] == '+') && o[1] != '\0',
				    arg = opt &&
				          (strcmp(o + 1, "o") == 0 || strcmp(o + 1, "O") == 0 ||
				           strcmp(o, "--rcfile") == 0 ||
				           strcmp(o, "--init-file") == 0),
				    end = strcmp(o, "--") == 0,
				    cmd = opt && o[1] != '-' && strpbrk(o + 1, "cs") != NULL;

				free(o);
				if (cmd)
					j = w->n; /* bash -c, bash -s: not a file */
				if (!opt || cmd || end) {
					j += end;
					break;
				}
				j += arg;
			}
			if (j < w->n && !is_py_field(&w->v[j]))
				*at = k, *file = j, hit = 1;
		}
		free(t);
	}
	return hit;
}

/* Hides what a child shell does not get: variables not exported (arrays
 * are never), the functions; prefix assignments are exported to it. */
static void
child_env(struct sx *x, const struct saved *pre, size_t npre)
{
	for (size_t k = 0; k < x->nvars; k++) {
		struct var *v = &x->vars[k];
		int prefixed = 0;

		for (size_t p = 0; p < npre; p++)
			prefixed |= pre[p].vi == (int)k;
		if ((int)k == x->at || !v->defined || v->inherited ||
		    (v->exported && !v->is_array && !prefixed))
			continue;
		touch_var(x, (int)k);
		v = &x->vars[k];
		if (prefixed) {
			v->exported = 1;
			continue;
		}
		pl_free(&v->val);
		v->defined = v->is_array = v->exported = 0;
	}
	x->fn_floor = x->nfns;
}

/* `bash FILE ARGS` and the like at w[k] (FILE at w[f]): FILE read as a
 * child shell with ARGS as its positional parameters and w[0..k) before
 * the commands it runs; nothing it sets comes back. */
static void
do_child(struct sx *x, const struct plist *w, size_t k, size_t f, const struct saved *pre,
         size_t npre)
{
	int line = w->v[k].n ? w->v[k].v[0].line : 0, col = w->v[k].n ? w->v[k].v[0].col : 0;
	int fi = follow_open(x, &w->v[f], "script", line, col), allexport = x->allexport;
	size_t floor = x->fn_floor, nfns = x->nfns;
	struct plist prefix = {0};
	char *name0;

	x->status = -1;
	if (fi < 0)
		return;
	outer_prefix(x, w, k, &prefix);
	frame_push(x, 1);
	child_env(x, pre, npre);
	set_positional(x, w, f + 1);
	x->allexport = 0;
	name0 = x->name0;
	x->name0 = ps_text(&w->v[f]);
	read_file(x, fi, &prefix, line, col, "script");
	free(x->name0);
	x->name0 = name0;
	x->allexport = allexport;
	frame_pop(x);
	while (x->nfns > nfns)
		free(x->fns[--x->nfns].name);
	x->fn_floor = floor;
	x->status = -1;
	pl_free(&prefix);
}

/* A simple command bash runs (w its words after expansion, pre its prefix
 * assignments, guard from guard_of): what the scanner follows of it. */
static void
run_simple(struct sx *x, struct plist *w, const struct saved *pre, size_t npre, int guard)
{
	char *name = ps_text(&w->v[0]);
	const struct fn *f = ps_opaque(&w->v[0]) ? NULL : fn_find(x, name);
	int unsure = x->cap != NULL && (guard < 0 || uncertain(x)), v;
	size_t at, file;

	if (unsure && (f != NULL || in_list(name, " echo printf ")))
		taint(x, "what it prints depends on a test mcinit cannot decide");
	else if (f != NULL)
		call_function(x, f, w);
	else if (in_list(name, " eval "))
		do_eval(x, w);
	else if (x->cap == NULL && shell_c(w, &at))
		do_shell_c(x, w, at);
	else if (in_list(name, " source . ") && w->n > 1)
		do_source(x, w);
	else if (x->cap == NULL && child_script(w, &at, &file))
		do_child(x, w, at, file, pre, npre);
	else if (in_list(name, " unset "))
		do_unset(x, w), x->status = 0;
	else if (in_list(name, " set "))
		do_set(x, w), x->status = 0;
	else if (in_list(name, " shift "))
		do_shift(x, w);
	else if (in_list(name, " echo printf ")) {
		if (x->cap != NULL && name[0] == 'e')
			cap_echo(x, w);
		else if (x->cap != NULL)
			cap_printf(x, w);
		x->status = 0;
	} else if (x->cap != NULL && in_list(name, " dirname ")) {
		cap_dirname(x, w);
		x->status = 0;
	} else if (in_list(name, " [ [[ test ")) {
		v = eval_test(x, w);
		x->status = v < 0 ? -1 : !v;
	} else if (in_list(name, " true : false ")) {
		x->status = name[0] == 'f';
	} else if (in_list(name, " break continue ")) {
		if (x->loops > 0 && guard == 0 && !uncertain(x))
			x->brk = name[0] == 'b' ? 1 : 2;
		x->status = 0;
	} else if (in_list(name, " local export declare typeset readonly return ")) {
		x->status = 0;
	} else if (x->cap != NULL) {
		taint(x, "it runs `%s`, a program mcinit does not run", name);
	} else {
		check_python(x, w, pre, npre);
		x->status = -1;
	}
	free(name);
}

/* `(( E ))` at the cursor, a command of its own: *v 1 (E is not 0), 0, or
 * -1 when only the run knows; E's assignment (NAME=E, NAME++ ...) is made. */
static int
arith_command(struct sx *x, int *v)
{
	struct pstr e = {0};
	int line = x->line, col = x->col, r;
	long long val = 0;
	char *t;

	adv(x);
	adv(x);
	r = cfor_text(x, &e, line, col);
	t = ps_text(&e);
	ps_free(&e);
	*v = -1;
	if (r == 0 && !x->dead && t[strspn(t, " \t")] != '\0' &&
	    arith_stmt(x, t, strlen(t), &val, line, col) == NULL)
		*v = val != 0;
	free(t);
	if (r == 0 && x->too_deep != NULL)
		return fail(x, line, col, x->too_deep);
	return r;
}

/* A word after export / declare / local: an option, or a name exported or
 * made local (`local V`). */
static void
decl_word(struct sx *x, const struct pstr *p, int *exp)
{
	char *t = ps_text(p);

	if (t[0] == '-' && strchr(t, 'x') != NULL)
		*exp = 1; /* declare -x, typeset -x */
	if (t[0] == '-' && strchr(t, 'g') != NULL)
		x->local_frame = 0; /* declare -g: global */
	if (t[0] != '-' && *exp && !x->dead)
		do_export(x, p);
	else if (t[0] != '-' && is_ident((unsigned char)t[0], 1) &&
	         strspn(t, IDENT_CHARS) == strlen(t))
		make_local(x, var_get(x, t, strlen(t)), 1);
	free(t);
}

/* A variable Slurm sets from the #SBATCH directives, known to the script
 * from its first command on, located at the directive. */
static void
slurm_set(void *ctx, const char *name, const char *value, int line, int col)
{
	struct sx *x = ctx;
	struct pstr p = {0};
	int vi = var_get(x, name, strlen(name));

	if (x->vars[vi].defined)
		return;
	for (const char *c = value; *c; c++)
		putc_at(&p, *c, 0, line, col++);
	assign_scalar(x, vi, &p, 0, line, col, 0);
	x->vars[vi].inherited = 1;
}

/* What starts with the command's first word w and runs to a closing
 * keyword: a function's definition, a `for` loop, a `{ ... }` group that
 * && or || skips.  1 read through its end, 0 not one, -1 on error. */
static int
compound(struct sx *x, const struct pstr *w, int guard)
{
	if (guard == 1 && word_is(w, " { "))
		return skip_block(x, '{') < 0 ? -1 : 1;
	if (x->dead)
		return 0;
	if (word_is(w, " for "))
		return do_for(x);
	if (word_is(w, " while until "))
		return do_while(x, word_is(w, " until "));
	return try_function(x, w);
}

static int
parse_command(struct sx *x)
{
	struct plist w = {0};
	struct saved *pre = NULL;
	size_t npre = 0;
	int cmdpos = 1, decl = 0, exp = 0, ignore = 0, had_cmd = 0, cond = 0, r, vi, ret = -1;
	int guard = guard_of(x), dead, arith = -2; /* (( E )): 1, 0, -1 unknown */
	int line0 = x->line, col0 = x->col;

	x->steps += x->calls > 0 || x->loops > 0;
	if (guard == 1) { /* after `false &&`: bash does not run it */
		x->skipping++;
		set_dead(x);
	}
	x->local_frame = 0;
	for (;;) {
		struct pstr tmp = {0};
		int c;

		skip_blanks(x);
		c = peekc(x, 0);
		if (c < 0)
			break;
		if (c == '#') {
			if (!x->seen_cmd && w.n == 0 && npre == 0)
				read_sbatch(x);
			skip_comment(x);
			continue;
		}
		if (c == '\n') {
			adv(x);
			read_heredocs(x);
			break;
		}
		if (!x->seen_cmd) { /* sbatch reads no directive after this */
			x->seen_cmd = 1;
			mcinit_sbatch_env(x->sbatch, x->nsbatch, slurm_set, x);
		}
		if ((r = try_redirect(x)) != 0) {
			if (r < 0)
				goto out;
			continue;
		}
		if (cmdpos && w.n == 0 && c == '(' && peekc(x, 1) == '(') {
			if (arith_command(x, &arith) < 0)
				goto out;
			cmdpos = 0;
			continue;
		}
		if (strchr(";&|()", c)) {
			if ((c == '|' || c == '&' || c == ';') && peekc(x, 1) == c) {
				x->last_op = c;
				adv(x);
			} else if (c == ')' || c == '|') {
				x->last_op =
				    c == ')' ? ')' : '!'; /* a case pattern's end, or `|` */
			}
			adv(x);
			break;
		}
		if (cmdpos || decl) {
			if (cmdpos)
				pre = mcinit_xrealloc(pre, (npre + 1) * sizeof *pre);
			r = try_assignment(x, &vi, cmdpos ? &pre[npre] : NULL);
			if (r < 0) {
				if (cmdpos)
					saved_free(&pre[npre]);
				goto out;
			}
			if (r > 0) {
				npre += cmdpos;
				if (exp)
					x->vars[vi].exported = 1;
				continue;
			}
		}
		x->kw_at = x->i;
		if (!cmdpos) { /* an argument: brace-expanded first, as bash does */
			size_t n0 = w.n;

			if (lex_words_braced(x, &w) < 0)
				goto out;
			if (too_many_words(x, &w, line0, col0, words_cmd_msg) < 0)
				goto out;
			if (w.n > n0 && decl)
				decl_word(x, &w.v[w.n - 1], &exp);
			continue;
		}
		if (lex_word(x, &tmp, 0, 0) < 0) {
			ps_free(&tmp);
			goto out;
		}
		if (cmdpos && w.n == 0 && (r = compound(x, &tmp, guard)) != 0) {
			ps_free(&tmp);
			ret = r < 0 ? -1 : 0;
			goto out; /* its end's command set last_op and prev_op */
		}
		if (cmdpos && (word_is(&tmp, skip_kw) || word_is(&tmp, header_kw))) {
			ignore |= word_is(&tmp, header_kw);
			cond |= on_keyword(x, &tmp);
			ps_free(&tmp);
			if (x->blk.kind == 'w' && x->blk.close_at >= 0)
				break; /* the `do` after a while loop's test: stop at it */
			continue;
		}
		cmdpos = 0;
		split_word(&tmp, &w);
		ps_free(&tmp);
		if (too_many_words(x, &w, line0, col0, words_cmd_msg) < 0)
			goto out;
		if (w.n == 1 && !decl) {
			decl = word_is(&w.v[0], decl_cmd);
			exp = word_is(&w.v[0], " export ");
			if (word_is(&w.v[0], " local declare typeset "))
				x->local_frame = local_frame(x);
		} else if (w.n > 1 && decl) {
			decl_word(x, &w.v[w.n - 1], &exp);
		}
	}
	ret = 0;
	had_cmd = w.n > 0 && !ignore;
	dead = x->dead; /* `x) cmd ;;`: the `;;` opens the next clause, not this one */
	if (cond == 2)
		open_case(x, &w);
	else if (x->nifs > 0 && x->ifs[x->nifs - 1].is_case)
		case_step(x, &x->ifs[x->nifs - 1], &w);
	else if (x->nifs > 0 && x->ifs[x->nifs - 1].awaiting > 0 && (w.n > 0 || arith >= -1))
		add_condition(x, &x->ifs[x->nifs - 1], w.n > 0 ? eval_test(x, &w) : arith);
	/* `a &&` then a newline, a comment or a keyword: a still guards */
	if (w.n > 0 || npre > 0 || x->last_op != 0)
		x->prev_op = x->last_op;
	x->last_op = 0;
	if (!had_cmd && npre > 0 && !dead)
		x->status = 0;
	if (arith >= -1 && !dead)
		x->status = arith < 0 ? -1 : !arith;
	if (!had_cmd || dead)
		goto out;
	run_simple(x, &w, pre, npre, guard);
out:
	if (guard == 1) {
		x->skipping--;
		set_dead(x);
	}
	x->local_frame = 0;
	if (had_cmd) {
		restore(x, pre, npre); /* V=1 cmd: V is back once cmd has run */
	} else {
		for (size_t k = 0; k < npre; k++)
			saved_free(&pre[k]);
	}
	free(pre);
	pl_free(&w);
	if (ret == 0 && x->too_deep != NULL) /* a bound passed where no error could be said */
		ret = fail(x, line0, col0, x->too_deep);
	return ret;
}

/* ---- result ---- */

struct posset { /* source positions already emitted, for the fallback */
	uint64_t *v;
	size_t cap, n;
};

static int
posset_add(struct posset *s, int line, int col)
{
	uint64_t key = ((uint64_t)(uint32_t)line << 32 | (uint32_t)col) + 1;
	size_t h;

	if (2 * (s->n + 1) > s->cap) {
		struct posset t = {mcinit_xcalloc(s->cap ? 2 * s->cap : 64, sizeof(uint64_t)),
		                   s->cap ? 2 * s->cap : 64, 0};

		for (size_t k = 0; k < s->cap; k++)
			if (s->v[k])
				posset_add(&t, (int)((s->v[k] - 1) >> 32),
				           (int)(uint32_t)(s->v[k] - 1));
		free(s->v);
		*s = t;
	}
	for (h = (key * 0x9E3779B97F4A7C15u) >> 20 & (s->cap - 1); s->v[h];
	     h = (h + 1) & (s->cap - 1))
		if (s->v[h] == key)
			return 0;
	s->v[h] = key;
	s->n++;
	return 1;
}

struct result {
	struct mcinit_shword *w;
	size_t nw, capw;
	struct mcinit_shnote *notes;
	size_t nn, capn;
	unsigned char *ev_used;
};

static void
emit_word(struct sx *x, struct result *r, const struct pstr *f)
{
	struct mcinit_shword w = {ps_text(f), 0, 0, NULL, 0, 0, 0, 0, 0};

	if (f->n > 0) {
		w.line = f->v[0].line;
		w.col = f->v[0].col;
		if (f->v[0].var >= 0)
			w.var = mcinit_xstrdup(x->vars[f->v[0].var].name);
	}
	if (f->n >= 2) {
		const struct pch *a = &f->v[0], *z = &f->v[f->n - 1];

		/* '99,1,0' whose quotes are characters of a variable's value */
		w.quotes = (a->c == '\'' || a->c == '"') && z->c == a->c && a->var >= 0 &&
		           (a->fl & PF_SRCQ) && (z->fl & PF_SRCQ);
	}
	for (size_t k = 0; k < f->n; k++) {
		int ev = f->v[k].ev;

		w.resplit |= (f->v[k].fl & PF_RESPLIT) != 0;
		w.opaque |= (f->v[k].fl & PF_OPAQUE) != 0;
		w.unread |= (f->v[k].fl & PF_UNREAD) != 0;
		if (ev >= 0 && !r->ev_used[ev]) {
			r->ev_used[ev] = 1;
			note_add(&r->notes, &r->nn, &r->capn, x->ev[ev].line, x->ev[ev].col,
			         mcinit_xstrdup(x->ev[ev].msg));
		}
	}
	MCINIT_GROW(r->w, r->capw, r->nw + 1);
	r->w[r->nw++] = w;
}

/* Options of torchrun / torch.distributed.launch / deepspeed: an array of
 * these is the launcher's, not Megatron's. */
static const char launcher_flags[] =
    " nproc_per_node nproc-per-node nnodes node_rank node-rank master_addr master-addr "
    "master_port master-port rdzv_backend rdzv-backend rdzv_endpoint rdzv-endpoint rdzv_id "
    "rdzv-id rdzv_conf rdzv-conf standalone max_restarts max-restarts monitor_interval "
    "monitor-interval start_method start-method role tee redirects log_dir log-dir local_addr "
    "local-addr use_env use-env no_python no-python run_path run-path num_gpus num_nodes "
    "hostfile include exclude ";

static int
is_flag_word(const char *t)
{
	return t[0] == '-' && t[1] == '-' && is_ident((unsigned char)t[2], 1);
}

static int
is_launcher_flag(const char *t)
{
	char *name = mcinit_xasprintf("%.*s", (int)strcspn(t + 2, "="), t + 2);
	int hit = in_list(name, launcher_flags);

	free(name);
	return hit;
}

/* One assignment's fields for the fallback: those from its first flag on,
 * unless that flag is a launcher's. */
static void
fallback_group(struct sx *x, struct result *r, const struct plist *f, struct posset *seen)
{
	size_t k;
	int launcher = 0;

	for (k = 0; k < f->n; k++) {
		char *t = ps_text(&f->v[k]);
		int flag = is_flag_word(t);

		launcher = flag && is_launcher_flag(t);
		free(t);
		if (flag)
			break;
	}
	if (launcher)
		return;
	for (; k < f->n; k++) {
		const struct pstr *p = &f->v[k];

		if (p->n > 0 && !posset_add(seen, p->v[0].line, p->v[0].col))
			continue;
		emit_word(x, r, p);
	}
}

static void
fallback(struct sx *x, struct result *r)
{
	struct posset seen = {0};

	if (x->groups_cut) {
		script_bound(x, 0, 0,
		             "the assignments hold more than %d words: the fallback reads the "
		             "first ones; later words may be missing",
		             MCINIT_MAX_SCRIPT_WORDS);
		x->stopped_array = 1;
	}
	for (size_t g = 0; g < x->ngroups; g++) {
		struct plist fields = {0};

		if (x->groups[g].scalar)
			split_word(&x->groups[g].s, &fields);
		fallback_group(x, r, x->groups[g].scalar ? &fields : &x->groups[g].f, &seen);
		pl_free(&fields);
	}
	free(seen.v);
}

static int is_train(const struct cand *c);

static size_t
choose_candidate(struct sx *x)
{
	for (size_t c = 0; c < x->ncands; c++)
		if (is_train(&x->cands[c]))
			return c;
	return 0;
}

struct lsink {
	struct sx *x;
	struct result *r;
	struct cand *cd;
};

static void
lsink_note(void *ctx, int line, int col, char *msg)
{
	struct lsink *k = ctx;

	note_add(&k->r->notes, &k->r->nn, &k->r->capn, line, col, msg);
}

static void
lsink_env(void *ctx, const char *name, const char *value, int line, int col, int remote)
{
	struct lsink *k = ctx;

	env_push(k->cd, name, mcinit_xstrdup(value), line, col, 0);
	k->cd->env[k->cd->nenv - 1].remote = remote;
}

/* The chosen command's argv, launcher and environment. */
static void
read_launcher(struct sx *x, struct cand *cd, struct result *r, struct mcinit_shscan *out)
{
	struct mcinit_lword *lw = mcinit_xcalloc(cd->py + 1, sizeof *lw);
	struct lsink k = {x, r, cd};
	struct mcinit_launch_sink sink = {&k, lsink_note, lsink_env};

	out->argc = cd->w.n;
	out->argv = mcinit_xcalloc(cd->w.n + 1, sizeof *out->argv);
	for (size_t i = 0; i < cd->w.n; i++)
		out->argv[i] = ps_text(&cd->w.v[i]);
	for (size_t i = 0; i < cd->py; i++) {
		const struct pstr *p = &cd->w.v[i];

		lw[i].text = out->argv[i];
		lw[i].line = p->n ? p->v[0].line : 0;
		lw[i].col = p->n ? p->v[0].col : 0;
		lw[i].opaque = ps_opaque(p);
	}
	mcinit_launch_parse(lw, cd->py, x->sbatch, x->nsbatch, &sink, &out->launch);
	free(lw);
	out->env = mcinit_xcalloc(cd->nenv + 1, sizeof *out->env);
	out->nenv = cd->nenv;
	for (size_t i = 0; i < cd->nenv; i++) {
		out->env[i] = cd->env[i];
		out->env[i].name = mcinit_xstrdup(cd->env[i].name);
		out->env[i].value = cd->env[i].value ? mcinit_xstrdup(cd->env[i].value) : NULL;
	}
}

/* The command cd: its script, its flags, its launcher and environment. */
static void
fill_launch(struct sx *x, struct cand *cd, struct result *r, struct mcinit_shscan *out)
{
	const struct plist *p = &cd->w;
	const struct pstr *py = &p->v[cd->py];

	out->script = ps_text(py);
	out->script_line = py->n ? py->v[0].line : 0;
	out->script_col = py->n ? py->v[0].col : 0;
	for (size_t k = cd->py + 1; k < p->n; k++)
		emit_word(x, r, &p->v[k]);
	read_launcher(x, cd, r, out);
}

static int
is_train(const struct cand *c)
{
	char *t = ps_text(&c->w.v[c->py]);
	int train = strcasestr(base_name(t), "train") != NULL;

	free(t);
	return train;
}

/* The same words and environment: a loop that launches the same job. */
static int
cand_same(const struct cand *a, const struct cand *b)
{
	int same = a->hash == b->hash && a->w.n == b->w.n && a->nenv == b->nenv;

	for (size_t k = 0; k < a->w.n && same; k++) {
		char *s = ps_text(&a->w.v[k]), *t = ps_text(&b->w.v[k]);

		same = strcmp(s, t) == 0;
		free(s);
		free(t);
	}
	for (size_t k = 0; k < a->nenv && same; k++)
		same = strcmp(a->env[k].name, b->env[k].name) == 0 &&
		       (a->env[k].value == NULL) == (b->env[k].value == NULL) &&
		       (a->env[k].value == NULL || strcmp(a->env[k].value, b->env[k].value) == 0);
	return same;
}

/* The launches judged one by one: every command that runs a training
 * script (as choose_candidate tells one), identical ones once; idx gets
 * their indices. */
static size_t
pick_launches(const struct sx *x, size_t *idx)
{
	size_t n = 0, j;

	for (size_t c = 0; c < x->ncands; c++) {
		if (!is_train(&x->cands[c]))
			continue;
		for (j = 0; j < n && !cand_same(&x->cands[idx[j]], &x->cands[c]); j++)
			;
		if (j == n)
			idx[n++] = c;
	}
	return n;
}

/* Each launch as a scan of its own, with the notes about its words. */
static void
fill_launches(struct sx *x, const size_t *idx, size_t n, struct mcinit_shscan *out)
{
	out->launches = mcinit_xcalloc(n, sizeof *out->launches);
	out->nlaunches = n;
	for (size_t k = 0; k < n; k++) {
		struct result r = {0};
		struct mcinit_shscan *l = &out->launches[k];

		r.ev_used = mcinit_xcalloc(x->nev + 1, 1);
		fill_launch(x, &x->cands[idx[k]], &r, l);
		free(r.ev_used);
		l->words = r.w, l->nwords = r.nw;
		l->notes = r.notes, l->nnotes = r.nn;
	}
}

static void
build_result(struct sx *x, struct mcinit_shscan *out)
{
	struct result r = {0};

	r.ev_used = mcinit_xcalloc(x->nev + 1, 1);
	if (x->ncands > 0) {
		size_t *idx = mcinit_xcalloc(x->ncands, sizeof *idx), n = pick_launches(x, idx);
		struct cand *cd = &x->cands[n >= 2 ? idx[0] : choose_candidate(x)];

		fill_launch(x, cd, &r, out);
		if (n >= 2)
			fill_launches(x, idx, n, out);
		else if (x->ncands > 1)
			note_add(&r.notes, &r.nn, &r.capn, out->script_line, out->script_col,
			         mcinit_xasprintf("%zu commands run Python scripts; the flags are "
			                          "taken from the one running `%s`",
			                          x->ncands, out->script));
		free(idx);
	} else {
		note_add(&r.notes, &r.nn, &r.capn, 0, 0,
		         mcinit_xstrdup("no command in the script runs a *.py file; the flags are "
		                        "every --flag word of its arrays and strings, in order"));
		fallback(x, &r);
	}
	for (size_t k = 0; k < x->nnotes; k++) {
		for (size_t j = 0; j < out->nlaunches; j++) { /* notes about the script */
			struct mcinit_shscan *l = &out->launches[j];

			note_add(&l->notes, &l->nnotes, &(size_t){0}, x->notes[k].line,
			         x->notes[k].col, mcinit_xstrdup(x->notes[k].msg));
			l->notes[l->nnotes - 1].warn = x->notes[k].warn;
			l->notes[l->nnotes - 1].bound = x->notes[k].bound;
		}
		note_add(&r.notes, &r.nn, &r.capn, x->notes[k].line, x->notes[k].col,
		         x->notes[k].msg);
		r.notes[r.nn - 1].warn = x->notes[k].warn;
		r.notes[r.nn - 1].bound = x->notes[k].bound;
		x->notes[k].msg = NULL;
	}
	free(r.ev_used);
	out->words = r.w;
	out->nwords = r.nw;
	out->notes = r.notes;
	out->nnotes = r.nn;
	out->partial = x->exhausted || x->stopped || x->deep || x->stopped_array;
	for (size_t j = 0; j < out->nlaunches; j++)
		out->launches[j].partial = out->partial;
}

static void
cand_free(struct cand *c)
{
	pl_free(&c->w);
	for (size_t k = 0; k < c->nenv; k++) {
		free(c->env[k].name);
		free(c->env[k].value);
	}
	free(c->env);
}

static void
sx_free(struct sx *x)
{
	for (size_t k = 0; k < x->nvars; k++) {
		free(x->vars[k].name);
		pl_free(&x->vars[k].val);
	}
	free(x->vars);
	free(x->hash);
	for (size_t k = 0; k < x->nev; k++)
		free(x->ev[k].msg);
	free(x->ev);
	for (size_t k = 0; k < x->nnotes; k++)
		free(x->notes[k].msg);
	free(x->notes);
	for (size_t k = 0; k < x->nhd; k++)
		free(x->hd[k].delim);
	free(x->hd);
	for (size_t k = 0; k < x->ngroups; k++) {
		pl_free(&x->groups[k].f);
		ps_free(&x->groups[k].s);
	}
	free(x->groups);
	for (size_t k = 0; k < x->ncands; k++)
		cand_free(&x->cands[k]);
	free(x->cands);
	for (size_t k = 0; k < x->nifs; k++)
		free(x->ifs[k].subject);
	free(x->ifs);
	for (size_t k = 0; k < x->nsbatch; k++)
		free((char *)x->sbatch[k].text);
	free(x->sbatch);
	for (size_t k = 0; k < x->nfns; k++)
		free(x->fns[k].name);
	free(x->fns);
	while (x->nframes > 0)
		frame_pop(x);
	free(x->frames);
	mcinit_shfiles_free(&x->files);
	free(x->fstack);
	free(x->unread);
	free(x->name0);
	for (size_t k = 0; k < x->nowned; k++)
		free(x->owned[k]);
	free(x->owned);
}

static int
check_nul(const char *text, size_t len, struct mcinit_err *err)
{
	int line, col;

	if (!mcinit_find_nul(text, len, &line, &col))
		return 0;
	return mcinit_err_at(err, MCINIT_E_PARSE, NULL, line, col, "NUL byte: not a shell script");
}

static void
sx_init(struct sx *x, const char *text, size_t len, struct mcinit_err *err)
{
	memset(x, 0, sizeof *x);
	x->s = text;
	x->len = len;
	x->line = x->col = 1;
	x->err = err;
	x->budget = x->budget_base = BUDGET_BASE;
	x->max_steps = MAX_STEPS;
	x->max_files = MAX_FILES;
	x->at = var_get(x, "@", 1);
	x->vars[x->at].defined = x->vars[x->at].is_array = 1;
}

/* The script's arguments, split as bash splits a command line (quotes,
 * escapes; a `$` is kept as the run would see it): the positional
 * parameters, each character placed where it is expanded (line 0). */
static int
read_args(struct sx *x, const char *args, struct mcinit_err *err)
{
	struct sx a;
	struct plist *dst = &x->vars[x->at].val;
	int ret = 0;

	sx_init(&a, args, strlen(args), err);
	while (ret == 0 && a.i < a.len) {
		struct pstr w = {0};

		if (is_sep(peekc(&a, 0))) {
			adv(&a);
			continue;
		}
		ret = lex_word(&a, &w, 0, 0);
		split_word(&w, dst);
		ps_free(&w);
	}
	for (size_t k = 0; k < dst->n; k++)
		for (size_t j = 0; j < dst->v[k].n; j++) {
			dst->v[k].v[j].line = dst->v[k].v[j].col = 0;
			dst->v[k].v[j].var = dst->v[k].v[j].ev = -1;
		}
	if (ret < 0 && err != NULL) {
		char msg[sizeof err->msg];

		memcpy(msg, err->msg, sizeof msg);
		mcinit_err_set(err, MCINIT_E_USAGE, "script arguments: %s", msg);
	}
	sx_free(&a);
	return ret;
}

int
mcinit_shscan_parse(const char *text, size_t len, struct mcinit_shscan *out, struct mcinit_err *err)
{
	return mcinit_shscan_parse_args(text, len, NULL, out, err);
}

int
mcinit_shscan_parse_args(const char *text, size_t len, const char *args, struct mcinit_shscan *out,
                         struct mcinit_err *err)
{
	return mcinit_shscan_parse_file(text, len, NULL, args, out, err);
}

/* Line numbers of the whole sequence (shfollow.h) back to their files. */
static void
locate(const struct sx *x, int *file, int *line)
{
	mcinit_shfiles_locate(&x->files, *line, file, line);
}

static void
locate_scan(const struct sx *x, struct mcinit_shscan *s)
{
	struct mcinit_shlaunch *l = &s->launch;

	for (size_t k = 0; k < s->nwords; k++)
		locate(x, &s->words[k].file, &s->words[k].line);
	for (size_t k = 0; k < s->nnotes; k++)
		locate(x, &s->notes[k].file, &s->notes[k].line);
	for (size_t k = 0; k < s->nenv; k++)
		locate(x, &s->env[k].file, &s->env[k].line);
	locate(x, &l->file, &l->line);
	locate(x, &l->nnodes_file, &l->nnodes_line);
	locate(x, &l->nproc_file, &l->nproc_line);
	locate(x, &l->addr_file, &l->addr_line);
	locate(x, &l->port_file, &l->port_line);
	locate(x, &s->script_file, &s->script_line);
	s->nfiles = x->files.n;
	s->files = mcinit_xcalloc(s->nfiles + 1, sizeof *s->files);
	for (size_t k = 0; k < s->nfiles; k++)
		s->files[k] = mcinit_xstrdup(x->files.v[k].path);
	for (size_t k = 0; k < s->nlaunches; k++)
		locate_scan(x, &s->launches[k]);
}

int
mcinit_shscan_parse_file(const char *text, size_t len, const char *path, const char *args,
                         struct mcinit_shscan *out, struct mcinit_err *err)
{
	return mcinit_shscan_parse_with(text, len, path ? mcinit_shfollow_read_fs : NULL,
	                                (void *)path, path, args, out, err);
}

int
mcinit_shscan_parse_with(const char *text, size_t len, mcinit_shread_fn *read, void *ctx,
                         const char *name0, const char *args, struct mcinit_shscan *out,
                         struct mcinit_err *err)
{
	return mcinit_shscan_parse_limited(text, len, read, ctx, name0, args, NULL, out, err);
}

/* The caller's bounds, where given and below the tool's. */
static void
set_limits(struct sx *x, const struct mcinit_shlimits *lim)
{
	if (lim == NULL)
		return;
	if (lim->steps > 0 && lim->steps < x->max_steps)
		x->max_steps = lim->steps;
	if (lim->budget > 0 && lim->budget < x->budget_base)
		x->budget = x->budget_base = lim->budget;
	if (lim->depth > 0 && (size_t)lim->depth < x->max_files)
		x->max_files = (size_t)lim->depth;
}

int
mcinit_shscan_parse_limited(const char *text, size_t len, mcinit_shread_fn *read, void *ctx,
                            const char *name0, const char *args, const struct mcinit_shlimits *lim,
                            struct mcinit_shscan *out, struct mcinit_err *err)
{
	struct sx x;
	int ret = -1;

	memset(out, 0, sizeof *out);
	if (len > 0 && check_nul(text, len, err) < 0)
		return -1;
	sx_init(&x, text, len, err);
	set_limits(&x, lim);
	mcinit_shfiles_init(&x.files, read, ctx, text, len);
	x.name0 = name0 != NULL ? mcinit_xstrdup(name0) : NULL;
	if (args != NULL && read_args(&x, args, err) < 0)
		goto out;
	while (x.i < x.len)
		if (parse_command(&x) < 0)
			goto out;
	read_heredocs(&x);
	build_result(&x, out);
	locate_scan(&x, out);
	ret = 0;
out:
	sx_free(&x);
	return ret;
}

void
mcinit_shscan_destroy(struct mcinit_shscan *s)
{
	if (s == NULL)
		return;
	for (size_t k = 0; k < s->nwords; k++) {
		free(s->words[k].text);
		free(s->words[k].var);
	}
	free(s->words);
	for (size_t k = 0; k < s->nnotes; k++)
		free(s->notes[k].msg);
	free(s->notes);
	free(s->script);
	for (size_t k = 0; k < s->argc; k++)
		free(s->argv[k]);
	free(s->argv);
	for (size_t k = 0; k < s->nenv; k++) {
		free(s->env[k].name);
		free(s->env[k].value);
	}
	free(s->env);
	mcinit_launch_clear(&s->launch);
	for (size_t k = 0; k < s->nfiles; k++)
		free(s->files[k]);
	free(s->files);
	for (size_t k = 0; k < s->nlaunches; k++)
		mcinit_shscan_destroy(&s->launches[k]);
	free(s->launches);
	memset(s, 0, sizeof *s);
}
