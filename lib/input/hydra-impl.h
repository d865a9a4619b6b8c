/*
 * hydra-impl.h — what the files of Hydra's override grammar share: the
 * tokens, the parser's state, the value helpers (hydra.c) and the
 * functions and their arguments (hydra-funcs.c).  Only lib/input/hydra*.c
 * include it; everyone else uses hydra.h.
 */
#ifndef MCINIT_HYDRA_IMPL_H
#define MCINIT_HYDRA_IMPL_H

#include <stddef.h>

#include "input/hydra.h"

/* Token types: the lexer's rules, in each mode in the order the grammar
 * lists them (a tie in length goes to the earlier one). */
enum tt {
	T_EOF,
	T_ERR, /* no rule matches here */
	/* key mode */
	T_EQUAL,
	T_TILDE,
	T_PLUS,
	T_AT,
	T_COLON,
	T_SLASH,
	T_ID,
	T_KEY_SPECIAL,
	T_DOT_PATH,
	/* value mode (COLON, EQUAL and ID shared) */
	T_POPEN,
	T_COMMA,
	T_PCLOSE,
	T_BOPEN,
	T_BCLOSE,
	T_COPEN,
	T_CCLOSE,
	T_FLOAT,
	T_INT,
	T_BOOL,
	T_NULL,
	T_UCHAR,
	T_ESC,
	T_WS,
	T_QUOTED,
	T_INTERP,
};

struct tok {
	enum tt type;
	size_t off, len;
};

struct px {
	const char *s;
	size_t len;
	struct tok *t;
	size_t nt, cap, i;
	int depth;
	struct mcinit_hy_error *e;
	int failed;
};

typedef struct mcinit_hy_value val;

/* What a value is, as a bit, for the type checks of the functions' signatures
 * (Hydra's is_type_matching: a Union is isinstance, so a bool is an int). */
enum {
	K_NONE = 1,
	K_BOOL = 2,
	K_INT = 4,
	K_FLOAT = 8,
	K_STR = 16,
	K_LIST = 32,
	K_DICT = 64,
	K_CHOICE = 128,
	K_RANGE = 256,
	K_INTERVAL = 512,
	K_GLOB = 1024,
	K_PRIM = K_BOOL | K_INT | K_FLOAT | K_STR,
	K_ELEM = K_PRIM | K_LIST | K_DICT,
	K_NUM = K_BOOL | K_INT | K_FLOAT,
	K_SWEEP = K_CHOICE | K_RANGE | K_INTERVAL,
};

struct args {
	val *pos;
	size_t npos, cappos;
	char **names;
	val *kw;
	size_t nkw, capkw, capnames;
};

/* hydra.c: an error at byte off of the word (the first one wins); -1. */
int mcinit_hy_fail_at(struct px *p, size_t off, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* hydra.c: the end of DIGIT (('_')? DIGIT)* from i, or i. */
size_t mcinit_hy_m_digits(const char *s, size_t n, size_t i);
/* hydra.c: Python's float() of a FLOAT token's text. */
double mcinit_hy_py_float(const char *s, size_t n);
/* hydra.c: the values (hydra.h's mcinit_hy_value) made and copied. */
val *mcinit_hy_vnew_list(val *v, enum mcinit_hy_type type);
void mcinit_hy_vstr(val *v, const char *s, size_t n, int quoted);
void mcinit_hy_vcopy(val *dst, const val *src);
void mcinit_hy_vappend(val *v, val *item, size_t *cap);
void mcinit_hy_vint(val *v, const char *s, size_t n);
void mcinit_hy_vfloat(val *v, double f);
void mcinit_hy_vbool(val *v, int b);

/* hydra-funcs.c: a value's K_* bit. */
int mcinit_hy_kind(const val *v);
void mcinit_hy_args_free(struct args *a);
/* hydra-funcs.c: the function name[0..nlen) applied to its arguments, as
 * Hydra's grammar functions are (casts, choice, range, interval, tag,
 * sort, shuffle, glob): 0 with *out, -1 after mcinit_hy_fail_at. */
int mcinit_hy_call(struct px *p, size_t off, const char *name, size_t nlen, struct args *a,
                   val *out);

#endif
