/* Unit tests: the Python-subset evaluator of Megatron's check expressions
 * (pyexpr.h), against what CPython prints for the same expressions. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "input/pyexpr.h"

/* tp = 4, cp_comm_type = "a2a+p2p", x = None, layers = [1, 2], $ALGO = "Ring";
 * model.tp = 2; the dataset is a GPTDatasetConfig, not an EnergonDatasetConfig;
 * the local cfg is a Base; Transformer Engine is 2.5.0, torch unknown */
static int
resolve(void *ctx, struct mcinit_pyexpr *e, const char *name, struct mcinit_pv *out)
{
	static const struct mcinit_pv items[] = {{.kind = MCINIT_PV_INT, .i = 1},
	                                         {.kind = MCINIT_PV_INT, .i = 2}};

	(void)ctx;
	(void)e;
	if (strcmp(name, "tp") == 0)
		*out = (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = 4};
	else if (strcmp(name, "cp_comm_type") == 0)
		*out = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = "a2a+p2p"};
	else if (strcmp(name, "x") == 0)
		*out = (struct mcinit_pv){.kind = MCINIT_PV_NONE};
	else if (strcmp(name, "layers") == 0)
		*out = (struct mcinit_pv){.kind = MCINIT_PV_LIST, .items = items, .n = 2};
	else if (strcmp(name, "s") == 0) /* a str a Bridge field keeps (issue 38) */
		*out = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = "512x"};
	else if (strcmp(name, "nan") == 0)
		*out = (struct mcinit_pv){.kind = MCINIT_PV_FLOAT, .f = __builtin_nan("")};
	else if (strcmp(name, "model.tp") == 0)
		*out = (struct mcinit_pv){.kind = MCINIT_PV_INT, .i = 2};
	else if (strcmp(name, "dataset:GPTDatasetConfig") == 0 || strcmp(name, "%cfg:Base") == 0)
		*out = (struct mcinit_pv){.kind = MCINIT_PV_BOOL, .i = 1};
	else if (strcmp(name, "dataset:EnergonDatasetConfig") == 0)
		*out = (struct mcinit_pv){.kind = MCINIT_PV_BOOL, .i = 0};
	else if (strcmp(name, "$ALGO") == 0)
		*out = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = "Ring"};
	else if (strcmp(name, "get_te_version()") == 0)
		*out = (struct mcinit_pv){.kind = MCINIT_PV_STR, .s = "2.5.0"};
	else
		return -1; /* get_torch_version(): not declared */
	return 0;
}

/* str() of the value of src, "ERR" when it does not evaluate, "SYNTAX" when
 * it does not parse. */
static char *
run(const char *src)
{
	char *why = NULL, *r;
	struct mcinit_pyexpr *e = mcinit_pyexpr_parse(src, &why);
	struct mcx_buf b = {0};
	struct mcinit_pv v;

	if (e == NULL) {
		free(why);
		return strdup("SYNTAX");
	}
	v = mcinit_pyexpr_eval(e, resolve, NULL);
	if (v.kind == MCINIT_PV_ERR)
		mcx_buf_adds(&b, "ERR");
	else
		mcinit_pv_str(&b, &v);
	r = strdup(mcx_buf_cstr(&b));
	mcx_buf_free(&b);
	mcinit_pyexpr_free(e);
	return r;
}

static const struct {
	const char *src, *want;
} cases[] = {
    {"args.tp % 3 == 1", "True"},
    {"\"a2a+p2p\" in args.cp_comm_type", "True"},
    {"args.x is not None and args.x > 1", "False"},
    {"args.x > 1", "ERR"}, /* Python: TypeError */
    /* a value of another type than a field's, which Bridge keeps (issue 38) */
    {"args.s * 2", "512x512x"},
    {"2 * args.s", "512x512x"},
    {"args.s * 0", ""},
    {"args.s <= 0", "ERR"},  /* TypeError: '<=' not supported ... */
    {"args.s % 16", "ERR"},  /* TypeError: not all arguments converted ... */
    {"args.s * 2.0", "ERR"}, /* TypeError: can't multiply sequence ... */
    {"args.s == 512", "False"},
    {"args.nan <= 0", "False"}, /* nan is unordered */
    {"args.nan > 0", "False"},
    {"args.nan >= args.nan", "False"},
    {"args.nan != args.nan", "True"},
    {"args.x or 5", "5"},
    {"0 and 1", "0"},
    {"-7 // 2", "-4"},
    {"-7 % 3", "2"},
    {"7 / 2", "3.5"},
    {"2 ** 10", "1024"},
    {"1e-3 * 2", "0.002"},
    {"1 < args.tp <= 4", "True"},
    {"args.tp in (1, 2)", "False"},
    {"args.tp not in [1, 2]", "True"},
    {"not (args.tp in [1, 2]) && args.tp > 3", "True"},
    {"len(args.layers) == 2 and max(args.layers) == 2", "True"},
    {"args.layers[-1]", "2"},
    {"f\"tp={args.tp} {args.tp=} {{}}\"", "tp=4 args.tp=4 {}"},
    {"'a' \"b\"", "ab"},
    {"args.tp if args.x else 5", "5"},
    {"getattr(args, 'missing', 3) + 1", "4"},
    {"getattr(self.model, 'tp', 1) * 10 + getattr(self.model, 'missing', 1)", "21"},
    {"getattr(self.model, 'missing')", "ERR"},
    {"math.lcm(4, 6, 1) + math.gcd(12, 18) + math.lcm(3, 0)", "18"},
    {"math.lcm(2.0, 3)", "ERR"},
    {"isinstance(self.dataset, GPTDatasetConfig)", "True"},
    {"isinstance(self.dataset, (EnergonDatasetConfig, GPTDatasetConfig))", "True"},
    {"isinstance(self.dataset, EnergonDatasetConfig)", "False"},
    {"isinstance(cfg, Base) and not isinstance(args.layers, Unknown)", "True"},
    {"[isinstance(x, Base) for x in args.layers]", "[False, False]"},
    {"isinstance(args.tp, int) and not isinstance(args.layers, str)", "True"},
    {"os.getenv('ALGO', '') == 'Ring'", "True"},
    {"os.environ.get('UNSET') is None", "True"},
    {"'x,y'.split(',')", "['x', 'y']"},
    {"[1] + [2]", "[1, 2]"},
    /* list repetition, as Megatron-LM's --moe-layer-freq patterns use it */
    {"([1]*3+[0])*2", "[1, 1, 1, 0, 1, 1, 1, 0]"},
    {"2 * [0]", "[0, 0]"},
    {"[1] * -1", "[]"},
    {"[1] * 2000000", "ERR"},
    {"True + 1", "2"},
    {"1 == 1.0", "True"},
    {"undefined_local", "ERR"},
    {"all(x for x in y)", "ERR"}, /* y is unknown */
    {"any(x > 1 for x in args.layers)", "True"},
    {"all(x > 1 for x in args.layers)", "False"},
    {"[m for m in args.layers if m != 1]", "[2]"},
    {"[m * args.tp for m in [1, 2, 3]]", "[4, 8, 12]"},
    {"[[x for x in args.layers]]", "[[1, 2]]"},
    {"not [m for m in args.layers if m not in [1, 2]]", "True"},
    {"[c for c in 'ab']", "['a', 'b']"},
    {"[x for x in args.x]", "ERR"},       /* TypeError: NoneType is not iterable */
    {"[x for x in [1, 2]] + [x]", "ERR"}, /* x is unbound after the loop */
    {"len(set([1, 1, 2])) == 2 and list((3, 4)) == [3, 4]", "True"},
    {"math.isfinite(2.5) and not math.isfinite(1e999)", "True"},
    {"math.isfinite(args.x)", "ERR"},
    {"[x for x in [1] for z in [2]]", "SYNTAX"},
    {"[x for x, z in [1]]", "SYNTAX"},
    {"', '.join([c for c in 'ab'] + ['cd'])", "a, b, cd"},
    {"', '.join([1])", "ERR"},
    {"'all_gather'.replace('_', '').lower() == 'allgather'", "True"},
    {"not '  '.strip()", "True"},
    {"' \\tx y\\n'.strip() == 'x y'", "True"},
    {"'xxaxx'.strip('x') == 'a'", "True"},
    {"not str('').strip()", "True"},
    {"args.cp_comm_type is not None and not args.cp_comm_type.strip()", "False"},
    {"args.cp_comm_type.upper()", "A2A+P2P"},
    {"'a_b_c'.replace('_', '--')", "a--b--c"},
    {"f\"bad: {[m for m in args.layers if m > 1]}\"", "bad: [2]"},
    {"(1, 2", "SYNTAX"},
    {"is_te_min_version(\"2.3.0\") and not is_te_min_version(\"2.6.0dev0\")", "True"},
    {"is_te_min_version(\"2.5.0.dev0\") and is_te_min_version(\"2.5\")", "True"},
    {"is_te_min_version( \"2.5.0rc1\" ) and not is_te_min_version(\"2.5.0.post1\")", "True"},
    {"is_torch_min_version(\"2.4.0\")", "ERR"}, /* undeclared: undecided */
    {"args.x and is_torch_min_version(\"2.4.0\")", "None"},
    {"get_te_version() == PkgVersion(\"2.5.0\")", "True"},
    {"f\"your version is {get_te_version()}.\"", "your version is 2.5.0."},
    /* every operator of two characters, and whitespace of each class the
     * tokenizer skips (pyexpr-parse.c's long_op and c_space) */
    {"7 // 2 == 3 and -7//2 == -4 and 2 ** 10 == 1024 and 2**-1 == 0.5", "True"},
    {"1 <= 2 >= 2 != 3 == 3 and not 3 <= 2 and 1 < 2 > 1", "True"},
    {"(\t1 +\f2\n* 3\r\n)", "7"},
    {"args.tp//2*2**2", "8"},
    {"1 /", "SYNTAX"},
    {"1 =< 2", "SYNTAX"},
};

Test(pyexpr, matches_cpython)
{
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *got = run(cases[i].src);

		cr_expect_str_eq(got, cases[i].want, "%s", cases[i].src);
		free(got);
	}
}

static void
collect(void *ctx, const char *name)
{
	struct mcx_buf *b = ctx;

	mcx_buf_printf(b, "%s;", name);
}

/* What Python raises as TypeError whatever the values is marked so (.i 1,
 * with Python's message): the ported checks then know that Bridge fails
 * there; what this evaluator merely cannot do is not. */
Test(pyexpr, type_errors_are_marked)
{
	static const struct {
		const char *src, *msg; /* msg NULL: an error, not a TypeError */
	} errs[] = {
	    {"args.s <= 0", "'<=' not supported between instances of 'str' and 'int'"},
	    {"1.5 > args.s", "'>' not supported between instances of 'float' and 'str'"},
	    {"args.s % 16", "not all arguments converted during string formatting"},
	    {"args.s * 2.0", "can't multiply sequence by non-int of type 'float'"},
	    {"args.s - 1", "unsupported operand type(s) for -: 'str' and 'int'"},
	    {"args.s + 1", "can only concatenate str (not \"int\") to str"},
	    {"'%d' % 5", NULL}, /* Python formats it: not decided here */
	    {"args.x > 1", NULL},
	    {"args.unknown > 1", NULL},
	};
	size_t i;

	for (i = 0; i < sizeof errs / sizeof errs[0]; i++) {
		char *why = NULL;
		struct mcinit_pyexpr *e = mcinit_pyexpr_parse(errs[i].src, &why);
		struct mcinit_pv v;

		cr_assert_not_null(e, "%s: %s", errs[i].src, why);
		v = mcinit_pyexpr_eval(e, resolve, NULL);
		cr_assert_eq(v.kind, MCINIT_PV_ERR, "%s", errs[i].src);
		if (errs[i].msg != NULL) {
			cr_expect_eq(v.i, 1, "%s: a TypeError", errs[i].src);
			cr_expect_str_eq(v.s, errs[i].msg, "%s", errs[i].src);
		} else {
			cr_expect_eq(v.i, 0, "%s: not a TypeError (%s)", errs[i].src, v.s);
		}
		mcinit_pyexpr_free(e);
	}
}

Test(pyexpr, names_read)
{
	char *why = NULL;
	struct mcinit_pyexpr *e =
	    mcinit_pyexpr_parse("args.a and self.b > n && E.m == get_arch() and f(1)", &why);
	struct mcx_buf b = {0};

	cr_assert_not_null(e);
	mcinit_pyexpr_names(e, collect, &b);
	cr_expect_str_eq(mcx_buf_cstr(&b), "a;b;%n;E.m;get_arch();f(...);");
	mcx_buf_free(&b);
	mcinit_pyexpr_free(e);
}

Test(pyexpr, names_read_skip_loop_variables)
{
	char *why = NULL;
	struct mcinit_pyexpr *e =
	    mcinit_pyexpr_parse("any(m not in allowed for m in self.mods if m != k) or m", &why);
	struct mcx_buf b = {0};

	cr_assert_not_null(e, "%s", why);
	mcinit_pyexpr_names(e, collect, &b);
	cr_expect_str_eq(mcx_buf_cstr(&b), "mods;%allowed;%k;%m;");
	mcx_buf_free(&b);
	mcinit_pyexpr_free(e);
}

/* str() of v, "ERR" for an error. */
static char *
shown(const struct mcinit_pv *v)
{
	struct mcx_buf b = {0};
	char *r;

	if (v->kind == MCINIT_PV_ERR)
		mcx_buf_adds(&b, "ERR");
	else
		mcinit_pv_str(&b, v);
	r = strdup(mcx_buf_cstr(&b));
	mcx_buf_free(&b);
	return r;
}

/* A tree parsed once, evaluated through two expressions that share it
 * (alive at once, freed in either order) and then itself, gives every case
 * its value each time. */
Test(pyexpr, shared_trees_evaluate_like_their_own)
{
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *why = NULL, *a, *b, *c;
		struct mcinit_pyexpr *tree = mcinit_pyexpr_parse(cases[i].src, &why);
		struct mcinit_pyexpr *s1, *s2;
		struct mcinit_pv v1, v2, v3;

		if (tree == NULL) {
			cr_expect_str_eq("SYNTAX", cases[i].want, "%s", cases[i].src);
			free(why);
			continue;
		}
		s1 = mcinit_pyexpr_share(tree);
		s2 = mcinit_pyexpr_share(tree);
		v1 = mcinit_pyexpr_eval(s1, resolve, NULL);
		v2 = mcinit_pyexpr_eval(s2, resolve, NULL);
		a = shown(&v1);
		b = shown(&v2);
		mcinit_pyexpr_free(s1);
		v3 = mcinit_pyexpr_eval(tree, resolve, NULL);
		c = shown(&v3);
		mcinit_pyexpr_free(s2);
		cr_expect_str_eq(a, cases[i].want, "%s", cases[i].src);
		cr_expect_str_eq(b, cases[i].want, "%s", cases[i].src);
		cr_expect_str_eq(c, cases[i].want, "%s", cases[i].src);
		free(a);
		free(b);
		free(c);
		mcinit_pyexpr_free(tree);
	}
}

/* One expression reshared from tree to tree evaluates each as its own
 * would, including after an evaluation that needed more than its first
 * block (a long list), whose blocks it releases. */
Test(pyexpr, reshared_expression_evaluates_each_tree)
{
	struct mcinit_pyexpr *scratch = NULL;
	struct mcx_buf big = {0};
	struct mcinit_pyexpr *long_tree;
	char *why = NULL, *got;
	size_t i;

	mcx_buf_adds(&big, "len([");
	for (i = 0; i < 3000; i++)
		mcx_buf_printf(&big, "%s'x%zu'", i ? ", " : "", i);
	mcx_buf_adds(&big, "])");
	long_tree = mcinit_pyexpr_parse(mcx_buf_cstr(&big), &why);
	cr_assert_not_null(long_tree, "%s", why);
	for (int round = 0; round < 2; round++)
		for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			struct mcinit_pyexpr *tree = mcinit_pyexpr_parse(cases[i].src, &why);
			struct mcinit_pv v;

			if (tree == NULL) {
				free(why);
				continue;
			}
			if (scratch == NULL)
				scratch = mcinit_pyexpr_share(tree);
			else
				mcinit_pyexpr_reshare(scratch, tree);
			v = mcinit_pyexpr_eval(scratch, resolve, NULL);
			got = shown(&v);
			cr_expect_str_eq(got, cases[i].want, "%s", cases[i].src);
			free(got);
			/* in between, a tree whose evaluation takes many blocks */
			mcinit_pyexpr_reshare(scratch, long_tree);
			v = mcinit_pyexpr_eval(scratch, resolve, NULL);
			cr_expect_eq(v.kind, MCINIT_PV_INT);
			cr_expect_eq(v.i, 3000);
			mcinit_pyexpr_free(tree);
		}
	mcinit_pyexpr_free(scratch);
	mcinit_pyexpr_free(long_tree);
	mcx_buf_free(&big);
}

/* The arena: many small allocations (a long list), and single ones larger
 * than any block (a long string literal). */
Test(pyexpr, arena_takes_many_and_large_allocations)
{
	struct mcx_buf src = {0};
	char *got;
	int i;

	mcx_buf_adds(&src, "len([");
	for (i = 0; i < 5000; i++)
		mcx_buf_printf(&src, "%s%d", i ? ", " : "", i);
	mcx_buf_adds(&src, "]) + len('");
	for (i = 0; i < 40000; i++)
		mcx_buf_addc(&src, "abc"[i % 3]);
	mcx_buf_adds(&src, "' + 'xyz') + len('q')");
	got = run(mcx_buf_cstr(&src));
	cr_expect_str_eq(got, "45004");
	free(got);
	mcx_buf_free(&src);
}

/* 100,000 levels of each recursive form: a parse error naming the depth,
 * never a stack overflow; 150 levels still parse. */
Test(pyexpr, deep_nesting_is_refused)
{
	static const char *const open[] = {"(", "[", "-", "not ", "2**", "1 if 1 else "};
	static const char *const close[] = {")", "]", "", "", "", ""};
	size_t k;
	int i;

	for (k = 0; k < sizeof open / sizeof open[0]; k++) {
		struct mcx_buf src = {0};
		struct mcinit_pyexpr *e;
		char *why = NULL;

		for (i = 0; i < 100000; i++)
			mcx_buf_adds(&src, open[k]);
		mcx_buf_adds(&src, "1");
		for (i = 0; i < 100000; i++)
			mcx_buf_adds(&src, close[k]);
		e = mcinit_pyexpr_parse(mcx_buf_cstr(&src), &why);
		cr_expect_null(e, "%s: parsed", open[k]);
		cr_expect(why != NULL && strstr(why, "nested more than 400 levels deep") != NULL,
		          "%s: %s", open[k], why ? why : "(no reason)");
		free(why);
		mcx_buf_free(&src);

		for (i = 0; i < 150; i++)
			mcx_buf_adds(&src, open[k]);
		mcx_buf_adds(&src, "1");
		for (i = 0; i < 150; i++)
			mcx_buf_adds(&src, close[k]);
		why = NULL;
		e = mcinit_pyexpr_parse(mcx_buf_cstr(&src), &why);
		cr_expect_not_null(e, "%s x 150: %s", open[k], why ? why : "");
		mcinit_pyexpr_free(e);
		free(why);
		mcx_buf_free(&src);
	}
}
