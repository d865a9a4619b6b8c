/* shell-impl.h — what the files of the shell module share (shell.h is what
 * other modules see): the scanner's state, its structures, and the functions
 * one file calls in another, named mcinit_sh_*.
 *
 * One pass over the text.  Every word is lexed into a "pstr": its characters,
 * each with the position it was written at, the variable it came from and a
 * few flags, plus zero-width markers.  Expansions are performed while lexing
 * (the variables they read were all assigned earlier in the text), then the
 * word is split into fields the way bash would, or joined into one value for
 * an assignment.  Keeping positions per character is what lets a word split
 * out of `ARGS="--a 1 --b 2"` point at its own place inside that string.
 */
#ifndef MCINIT_SHELL_IMPL_H
#define MCINIT_SHELL_IMPL_H

#include "shell/launch-cmdline.h"
#include "shell/shell.h"

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
	PF_ARGS = 128,   /* opaque: the script's arguments, known only at run time */
	/* the default of ${SLURM_X:-w} in a script with no #SBATCH: Slurm sets
	 * SLURM_X when the job runs (launch-cmdline.c's assumed_world) */
	PF_ASSUMED = 256,
};
#define PF_MARK (PF_EMPTYQ | PF_BREAK)

struct pch {
	char c;
	unsigned short fl; /* PF_* (nine flags) */
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
	int runtime;       /* "@" only: the script's own arguments, not given to
	                    * mcinit (--script-args): their count and values are
	                    * known only at run time (see mcinit_sh_args_opaque) */
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

/* A byte's place; in a string read as commands (eval, bash -c), also the
 * flags of the text the outer shell kept as written (PF_OPAQUE and why),
 * and its note + 1 (0: none). */
struct lc {
	int line, col;
	unsigned short fl;
	int ev1;
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
	int nobrace;     /* set +B: no brace expansion */
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
	int cwd_known;   /* the script is read from this machine's files: PWD
	                  * starts as the directory validate runs in */
	char *cwd0;      /* that directory; NULL when not known */
	char *dirs[16];  /* pushd's directory stack (NULL: known only at run
	                  * time), innermost last; the oldest drop out */
	size_t ndirs;
	int args_ev;  /* the one note on the script's arguments known only at
	               * run time: its index in x->ev + 1, 0 until one is used */
	void **owned; /* eval strings and their maps a function is in */
	size_t nowned, capowned;
};

struct arith {
	struct sx *x;
	const char *s;
	size_t n, i;
	const char *why; /* set when the value cannot be known */
	int depth;
	int nest; /* recursion of mcinit_sh_arith_expr and arith_unary, see MAX_ARITH_DEPTH */
};

enum sub { SUB_NONE, SUB_AT, SUB_STAR, SUB_INDEX };

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

/* Small helpers called everywhere, inline: as calls across files they cost
 * some 2% of a scan's instructions. */
static inline int
mcinit_sh_peekc(const struct sx *x, size_t k)
{
	return x->i + k < x->len ? (unsigned char)x->s[x->i + k] : -1;
}

/* Whether the byte at x->i is text an outer shell kept as written (a
 * value only the run knows) in a string read as commands: it stays that
 * unknown value here, not this shell's own `$1` or `$(...)` read again. */
static inline int
mcinit_sh_kept_at(const struct sx *x)
{
	return x->map != NULL && x->i < x->len && (x->map[x->i].fl & PF_OPAQUE);
}

static inline int
mcinit_sh_is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static inline int
mcinit_sh_is_sep(int c)
{
	return c < 0 || mcinit_sh_is_blank(c) || c == '\n' ||
	       (c != 0 && strchr(";&|()<>", c) != NULL);
}

static inline int
mcinit_sh_is_ident(int c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

static inline int
mcinit_sh_is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static inline void
mcinit_sh_put(struct pstr *p, struct pch ch)
{
	if (p == NULL)
		return;
	MCINIT_GROW(p->v, p->cap, p->n + 1);
	p->v[p->n++] = ch;
}

static inline void
mcinit_sh_putc_at(struct pstr *p, int c, unsigned fl, int line, int col)
{
	mcinit_sh_put(p, (struct pch){(char)c, (unsigned short)fl, line, col, -1, -1});
}

/* shell-util.c */
void mcinit_sh_note_add(struct mcinit_shnote **v, size_t *n, size_t *cap, int line, int col,
                        char *msg);
void __attribute__((format(printf, 4, 5)))
mcinit_sh_script_note(struct sx *x, int line, int col, const char *fmt, ...);
void __attribute__((format(printf, 4, 5)))
mcinit_sh_script_bound(struct sx *x, int line, int col, const char *fmt, ...);
void __attribute__((format(printf, 4, 5)))
mcinit_sh_script_warn(struct sx *x, int line, int col, const char *fmt, ...);
int __attribute__((format(printf, 4, 5)))
mcinit_sh_add_event(struct sx *x, int line, int col, const char *fmt, ...);
int mcinit_sh_fail(struct sx *x, int line, int col, const char *what);
char *mcinit_sh_snip(struct sx *x, size_t a, size_t b);
void mcinit_sh_adv(struct sx *x);
void mcinit_sh_skip_cont(struct sx *x);
void mcinit_sh_skip_blanks(struct sx *x);
void mcinit_sh_skip_comment(struct sx *x);
extern const char mcinit_sh_words_cmd_msg[];
extern const char mcinit_sh_words_list_msg[];
int mcinit_sh_too_many_words(struct sx *x, const struct plist *l, int line, int col,
                             const char *msg);
int mcinit_sh_charge(struct sx *x, size_t n);
void mcinit_sh_ps_free(struct pstr *p);
void mcinit_sh_pl_free(struct plist *l);
void mcinit_sh_pl_push(struct plist *l, struct pstr *p); /* takes ownership of *p */
size_t mcinit_sh_ps_nchars(const struct pstr *p);
char *mcinit_sh_ps_text(const struct pstr *p);
int mcinit_sh_ps_opaque(const struct pstr *p);
void mcinit_sh_ps_copy(struct pstr *dst, const struct pstr *src);

/* shell-vars.c */
int mcinit_sh_var_find(const struct sx *x, const char *name, size_t n);
int mcinit_sh_var_get(struct sx *x, const char *name, size_t n);
void mcinit_sh_var_save(const struct var *v, struct var *out);
void mcinit_sh_frame_save(struct sx *x, struct frame *f, int vi, const struct var *v);
void mcinit_sh_touch_var(struct sx *x, int vi);
int mcinit_sh_var_maybe(const struct sx *x, int vi);
void mcinit_sh_assign_scalar(struct sx *x, int vi, struct pstr *val, int append, int line, int col,
                             int group);
int mcinit_sh_try_assignment(struct sx *x, int *vi_out, struct saved *save);

/* shell-arith.c */
void mcinit_sh_arith_ws(struct arith *a);
int mcinit_sh_arith_peek(struct arith *a, const char *op);
long long mcinit_sh_arith_apply(struct arith *a, const char *op, long long l, long long r);
long long mcinit_sh_arith_expr(struct arith *a, int prec);

/* shell-lex.c */
void mcinit_sh_opaque(struct sx *x, struct pstr *out, size_t a, int line, int col, int quoted,
                      const char *why);
int mcinit_sh_skip_nested(struct sx *x, int open, int close);
void mcinit_sh_put_number(struct pstr *out, long long v, int quoted, int line, int col);
int mcinit_sh_lex_dollar(struct sx *x, struct pstr *out, int quoted);
int mcinit_sh_args_runtime(const struct sx *x);
int mcinit_sh_args_note(struct sx *x, int line, int col);
void mcinit_sh_args_opaque(struct sx *x, struct pstr *out, size_t a, int line, int col, int quoted);
int mcinit_sh_lex_word(struct sx *x, struct pstr *out, int term, int inq);

/* shell-words.c */
int mcinit_sh_is_ifs(int c);
void mcinit_sh_split_word(const struct pstr *w, struct plist *dst);
void mcinit_sh_read_heredocs(struct sx *x);
int mcinit_sh_try_redirect(struct sx *x);

/* shell-brace.c */
int mcinit_sh_lex_words_braced(struct sx *x, struct plist *dst);

/* shell-cmd.c */
int mcinit_sh_in_list(const char *t, const char *list);
int mcinit_sh_word_is(const struct pstr *w, const char *list);
extern const char mcinit_sh_skip_kw[];
extern const char mcinit_sh_header_kw[];
extern const char mcinit_sh_decl_cmd[];
extern const char mcinit_sh_not_runner[];
const char *mcinit_sh_base_name(const char *p);
int mcinit_sh_is_py_field(const struct pstr *f);
void mcinit_sh_do_unset(struct sx *x, const struct plist *w);
void mcinit_sh_do_export(struct sx *x, const struct pstr *word);
void mcinit_sh_env_push(struct cand *c, const char *name, char *value, int line, int col,
                        int mcinit_sh_opaque);
void mcinit_sh_check_python(struct sx *x, struct plist *w, const struct saved *prefix,
                            size_t nprefix);
void mcinit_sh_read_sbatch(struct sx *x);
void mcinit_sh_restore(struct sx *x, struct saved *sv, size_t n);
void mcinit_sh_saved_free(struct saved *sv);
void mcinit_sh_do_set(struct sx *x, const struct plist *w);
int mcinit_sh_uncertain(const struct sx *x);
int mcinit_sh_guard_of(const struct sx *x);
void mcinit_sh_make_local(struct sx *x, int vi, int unset);
int mcinit_sh_local_frame(const struct sx *x);
void mcinit_sh_do_eval(struct sx *x, const struct plist *w);
int mcinit_sh_shell_c(const struct plist *w, size_t *at);
void mcinit_sh_outer_prefix(const struct sx *x, const struct plist *w, size_t k,
                            struct plist *prefix);
void mcinit_sh_do_shell_c(struct sx *x, const struct plist *w, size_t k);

/* shell-cond.c */
int mcinit_sh_int_word(const char *t, long long *v);
int mcinit_sh_eval_test(struct sx *x, const struct plist *w);
void mcinit_sh_add_condition(struct sx *x, struct ifr *f, int v);
void mcinit_sh_open_case(struct sx *x, const struct plist *w);
void mcinit_sh_case_step(struct sx *x, struct ifr *f, const struct plist *w);
void mcinit_sh_set_dead(struct sx *x);
int mcinit_sh_on_keyword(struct sx *x, const struct pstr *kw);

/* shell-region.c */
void mcinit_sh_frame_push(struct sx *x, int all);
void mcinit_sh_frame_pop(struct sx *x);
int mcinit_sh_out_of_steps(struct sx *x, int line, int col);
int mcinit_sh_run_region(struct sx *x, size_t start, size_t end, int line, int col);
long mcinit_sh_skip_block(struct sx *x, int kind);
void mcinit_sh_block_keyword(struct sx *x, const char *t);
const struct fn *mcinit_sh_fn_find(const struct sx *x, const char *name);
void mcinit_sh_skip_newlines(struct sx *x);
int mcinit_sh_try_function(struct sx *x, const struct pstr *w);
void mcinit_sh_set_positional(struct sx *x, const struct plist *w, size_t from);
void mcinit_sh_call_function(struct sx *x, const struct fn *f, const struct plist *w);
void mcinit_sh_do_shift(struct sx *x, const struct plist *w);
void __attribute__((format(printf, 2, 3))) mcinit_sh_taint(struct sx *x, const char *fmt, ...);
struct pch mcinit_sh_pch_at(const struct pstr *p, char c);
void mcinit_sh_cap_echo(struct sx *x, const struct plist *w);
void mcinit_sh_cap_dirname(struct sx *x, const struct plist *w);
void mcinit_sh_cap_printf(struct sx *x, const struct plist *w);
void mcinit_sh_subst_expand(struct sx *x, struct pstr *out, const struct bparam *b, size_t from,
                            size_t to, int line, int col);

/* shell-loops.c */
void mcinit_sh_vars_unknown(struct sx *x, unsigned long g0, int line, int col, const char *why);
int mcinit_sh_do_for(struct sx *x);
int mcinit_sh_do_while(struct sx *x, int until);
const char *mcinit_sh_arith_stmt(struct sx *x, const char *s, size_t n, long long *val, int line,
                                 int col);
int mcinit_sh_cfor_text(struct sx *x, struct pstr *e, int line, int col);

/* shell-source.c */
int mcinit_sh_parse_command(struct sx *x);

/* shell-dirs.c */
void mcinit_sh_dirs_init(struct sx *x, const char *cwd);
void mcinit_sh_submit_dir(struct sx *x);
int mcinit_sh_do_dirs(struct sx *x, const struct plist *w);
char *mcinit_sh_dirs_name(struct sx *x, const char *name);
void mcinit_sh_source_begin(struct sx *x, const struct pstr *name, struct var *saved);
void mcinit_sh_source_end(struct sx *x, struct var *saved);
void mcinit_sh_child_source(struct sx *x, const struct pstr *name);
void mcinit_sh_dirs_free(struct sx *x);

#endif
