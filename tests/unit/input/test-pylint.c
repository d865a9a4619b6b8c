/* test-pylint.c — argparse `type=bool` finder (src/pylint.c). */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/pylint.h"

static struct mcinit_pybool *V;
static size_t N;

static void
lint(const char *text)
{
	struct mcinit_err err = {0};

	mcinit_pybool_free(V, N);
	V = NULL;
	N = 0;
	cr_assert_eq(mcinit_pylint_type_bool(text, strlen(text), &V, &N, &err), 0, "%s", err.msg);
}

static void
teardown(void)
{
	mcinit_pybool_free(V, N);
	V = NULL;
	N = 0;
}

TestSuite(pylint, .fini = teardown);

static void
finding_is(size_t k, const char *flag, int line, int col, int call_line, int call_col,
           const char *deflt)
{
	cr_assert_lt(k, N, "finding %zu missing (only %zu)", k, N);
	cr_assert_str_eq(V[k].flag, flag, "finding %zu", k);
	cr_assert_eq(V[k].line, line, "finding %zu (%s) line %d", k, flag, V[k].line);
	cr_assert_eq(V[k].col, col, "finding %zu (%s) col %d", k, flag, V[k].col);
	cr_assert_eq(V[k].call_line, call_line, "finding %zu (%s) call line %d", k, flag,
	             V[k].call_line);
	cr_assert_eq(V[k].call_col, call_col, "finding %zu (%s) call col %d", k, flag,
	             V[k].call_col);
	if (deflt == NULL)
		cr_assert_null(V[k].default_text, "finding %zu default %s", k, V[k].default_text);
	else
		cr_assert(V[k].default_text && strcmp(V[k].default_text, deflt) == 0,
		          "finding %zu default [%s], want [%s]", k,
		          V[k].default_text ? V[k].default_text : "NULL", deflt);
}

Test(pylint, keyword_on_the_next_line)
{
	lint("parser.add_argument(\"--x\",\n    type=bool)\n");
	cr_assert_eq(N, 1);
	finding_is(0, "--x", 2, 5, 1, 8, NULL);
}

Test(pylint, inside_strings_and_comments_does_not_count)
{
	lint("parser.add_argument('--a', help='type=bool')  # type=bool\n"
	     "parser.add_argument('--b', type=str)  # , type=bool)\n"
	     "s = \"parser.add_argument('--c', type=bool)\"\n"
	     "# parser.add_argument('--d', type=bool)\n"
	     "doc = '''\n"
	     "parser.add_argument('--e', type=bool)\n"
	     "'''\n"
	     "b = b\"add_argument('--f', type=bool)\"\n"
	     "r = r'add_argument(\\'--g\\', type=bool)'\n");
	cr_assert_eq(N, 0);
}

Test(pylint, megatron_declarations)
{
	static const char src[] =
	    "def _add_initialization_args(parser):\n"
	    "    group = parser.add_argument_group(title='initialization')\n"
	    "\n"
	    "    group.add_argument('--seed', type=int, default=1234,\n"
	    "                       help='Random seed used for python, numpy, '\n"
	    "                       'pytorch, and cuda.')\n"
	    "    group.add_argument('--lazy-mpu-init', type=bool, required=False,\n"
	    "                       help='If set to True, initialize_megatron() '\n"
	    "                       'skips DDP initialization and returns function to '\n"
	    "                       'complete it instead. Also turns on '\n"
	    "                       '--use-cpu-initialization flag. This is for '\n"
	    "                       'external DDP manager.' )\n"
	    "    group.add_argument('--onnx-safe', type=bool, required=False,\n"
	    "                       help='Use workarounds for known problems with '\n"
	    "                       'Torch ONNX exporter')\n"
	    "    return parser\n";

	lint(src);
	cr_assert_eq(N, 2);
	finding_is(0, "--lazy-mpu-init", 7, 43, 7, 11, NULL);
	finding_is(1, "--onnx-safe", 13, 39, 13, 11, NULL);
}

Test(pylint, similar_types_are_not_bool)
{
	lint("p.add_argument('--a', type=bool_fn)\n"
	     "p.add_argument('--b', type=str2bool)\n"
	     "p.add_argument('--c', type='bool')\n"
	     "p.add_argument('--d', type=lambda s: bool(s))\n"
	     "p.add_argument('--e', type=bool(1))\n"
	     "p.add_argument('--f', type=np.bool)\n"
	     "p.add_argument('--g', xtype=bool)\n"
	     "p.add_argument('--h', action='store_true', default=bool)\n"
	     "p.add_argument('--i', type == bool)\n"
	     "p.add_argument('--j', mytype=bool, type=int)\n");
	cr_assert_eq(N, 0);
}

Test(pylint, spellings_of_bool_that_count)
{
	lint("p.add_argument('--a', type = bool)\n"
	     "p.add_argument('--b', type=builtins.bool)\n"
	     "p.add_argument('--c', type=(bool))\n"
	     "p.add_argument('--d', type=  # why\n"
	     "    bool)\n"
	     "p.add_argument('--e', type\\\n"
	     "=bool)\n"
	     "p.add_argument('--f', type=builtins . bool, )\n");
	cr_assert_eq(N, 6);
	finding_is(0, "--a", 1, 23, 1, 3, NULL);
	finding_is(3, "--d", 4, 23, 4, 3, NULL);
	finding_is(4, "--e", 6, 23, 6, 3, NULL);
	finding_is(5, "--f", 8, 23, 8, 3, NULL);
}

Test(pylint, nested_brackets_and_strings_in_other_arguments)
{
	lint("parser.add_argument(\n"
	     "    '--w',  # comment with ) and , and type=bool\n"
	     "    choices=[(1, 2), {'a': (3, ')')}],\n"
	     "    help=\"\"\"multi\n"
	     "line ) , type=bool \"\"\" ,\n"
	     "    default=dict(a=1, b=[2, 3]),\n"
	     "    type=bool,\n"
	     ")\n"
	     "parser.add_argument('--next', type=bool)\n");
	cr_assert_eq(N, 2);
	finding_is(0, "--w", 7, 5, 1, 8, "dict(a=1, b=[2, 3])");
	finding_is(1, "--next", 9, 31, 9, 8, NULL);
}

Test(pylint, default_text_is_trimmed_source)
{
	lint("p.add_argument('--a', default=False, type=bool)\n"
	     "p.add_argument('--b', type=bool, default  =  None  # c\n"
	     "  )\n"
	     "p.add_argument('--c', type=bool, default='False')\n"
	     "p.add_argument('--d', type=bool, default=os.environ.get('X', \"0\") == '1')\n");
	cr_assert_eq(N, 4);
	cr_assert_str_eq(V[0].default_text, "False");
	cr_assert_str_eq(V[1].default_text, "None");
	cr_assert_str_eq(V[2].default_text, "'False'");
	cr_assert_str_eq(V[3].default_text, "os.environ.get('X', \"0\") == '1'");
}

Test(pylint, flag_names)
{
	lint("p.add_argument('-l', '--lazy', type=bool)\n"
	     "p.add_argument('positional', type=bool)\n"
	     "p.add_argument(dest='d', type=bool)\n"
	     "p.add_argument(*NAMES, type=bool)\n"
	     "p.add_argument(type=bool)\n"
	     "p.add_argument(\"--con\" \"cat\", type=bool)\n"
	     "p.add_argument('--esc\\x41\\u00e9\\N{DASH}', type=bool)\n"
	     "p.add_argument(r'--raw\\x41', type=bool)\n"
	     "p.add_argument(f'--{name}', type=bool)\n"
	     "p.add_argument(\"\"\"--tri\"\"\", type=bool)\n"
	     "p.add_argument(PREFIX + 'x', type=bool)\n");
	cr_assert_eq(N, 11);
	cr_assert_str_eq(V[0].flag, "-l");
	cr_assert_str_eq(V[1].flag, "positional");
	cr_assert_str_eq(V[2].flag, "d");
	cr_assert_str_eq(V[3].flag, "*NAMES");
	cr_assert_str_eq(V[4].flag, "");
	cr_assert_str_eq(V[5].flag, "--concat");
	cr_assert_str_eq(V[6].flag, "--escA\xc3\xa9\\N{DASH}");
	cr_assert_str_eq(V[7].flag, "--raw\\x41");
	cr_assert_str_eq(V[8].flag, "f'--{name}'");
	cr_assert_str_eq(V[9].flag, "--tri");
	cr_assert_str_eq(V[10].flag, "PREFIX + 'x'");
}

Test(pylint, fstrings_with_nested_quotes)
{
	lint("x = f\"{d[\"k\"]}) add_argument('--no', type=bool)\"\n"
	     "y = f'{a!r:>{w}} {{type=bool}} {\"}\"}'\n"
	     "z = rf\"\"\"{\n"
	     "  f'{1}' # )\n"
	     "}\"\"\"\n"
	     "p.add_argument('--yes', type=bool)\n");
	cr_assert_eq(N, 1);
	finding_is(0, "--yes", 6, 25, 6, 3, NULL);
}

Test(pylint, receivers_and_definitions)
{
	lint("def add_argument(self, name, type=bool):\n"
	     "    pass\n"
	     "async def add_argument(type=bool): pass\n"
	     "self.add_arguments('--a', type=bool)\n"
	     "my_add_argument('--b', type=bool)\n"
	     "add_argument('--c', type=bool)\n"
	     "parser . add_argument ('--d', type=bool)\n"
	     "parsers[0].add_argument('--e', type=bool)\n"
	     "get().add_argument(\n"
	     "  '--f', type=bool)\n"
	     "x = p.add_argument\n"
	     "x('--g', type=bool)\n");
	cr_assert_eq(N, 4);
	cr_assert_str_eq(V[0].flag, "--c");
	cr_assert_str_eq(V[1].flag, "--d");
	cr_assert_eq(V[1].call_col, 10);
	cr_assert_str_eq(V[2].flag, "--e");
	cr_assert_str_eq(V[3].flag, "--f");
	cr_assert_eq(V[3].line, 10);
}

Test(pylint, columns_count_characters_tabs_and_crlf)
{
	lint("s = 'é€😀'; p.add_argument('--u', type=bool)\r\n"
	     "\tp.add_argument('--t', type=bool)\r\n"
	     "\rp.add_argument('--cr', type=bool)\n");
	cr_assert_eq(N, 3);
	finding_is(0, "--u", 1, 34, 1, 14, NULL);
	finding_is(1, "--t", 2, 24, 2, 4, NULL);
	finding_is(2, "--cr", 4, 24, 4, 3, NULL);
}

Test(pylint, unterminated_input_is_scanned_to_the_end)
{
	lint("p.add_argument('--a', type=bool,\n  help='x'\n");
	cr_assert_eq(N, 1);
	/* a string left open ends with its line, as in Python's tokenizer */
	lint("s = 'unterminated\np.add_argument('--b', type=bool)\n");
	cr_assert_eq(N, 1);
	finding_is(0, "--b", 2, 23, 2, 3, NULL);
	/* a call left open takes in what follows: the next call is nested */
	lint("p.add_argument('--a', help='x'\np.add_argument('--b', type=bool)\n");
	cr_assert_eq(N, 0);
	lint("p.add_argument('--a', help='''never closed, type=bool)\n");
	cr_assert_eq(N, 0);
	lint("p.add_argument(");
	cr_assert_eq(N, 0);
	lint("add_argument");
	cr_assert_eq(N, 0);
	lint("");
	cr_assert_eq(N, 0);
	cr_assert_null(V);
}

Test(pylint, only_one_finding_per_call_and_source_order)
{
	lint("a.add_argument('--1', type=bool, type=bool)\n"
	     "b.add_argument('--2', type=int)\n"
	     "c.add_argument('--3', type=bool)\n");
	cr_assert_eq(N, 2);
	cr_assert_str_eq(V[0].flag, "--1");
	cr_assert_str_eq(V[1].flag, "--3");
	cr_assert_lt(V[0].line, V[1].line);
}

Test(pylint, nul_byte_is_a_data_error)
{
	struct mcinit_err err = {0};
	struct mcinit_pybool *v = (void *)1;
	size_t n = 7;

	cr_assert_eq(mcinit_pylint_type_bool("x = 1\nab\0", 9, &v, &n, &err), -1);
	cr_assert_eq(err.code, MCINIT_E_PARSE);
	cr_assert_str_eq(err.msg, "2:3: NUL byte: not Python source");
	cr_assert_null(v);
	cr_assert_eq(n, 0);
}

Test(pylint, positions_point_at_type_keyword)
{
	/* property: each finding's line:col holds "type" and its call's holds
	 * "add_argument" */
	static const char src[] = "import argparse\n"
	                          "p = argparse.ArgumentParser()\n"
	                          "p.add_argument('--a',\n"
	                          "               default=None, type=bool)\n"
	                          "if True:\n"
	                          "    g = p.add_argument_group('x')\n"
	                          "    g.add_argument('--b', nargs='?', const=True,\n"
	                          "        type=bool, default=False)\n"
	                          "    g.add_argument(\n"
	                          "        '--c',\n"
	                          "        type=bool)\n";

	lint(src);
	cr_assert_eq(N, 3);
	for (size_t k = 0; k < N; k++) {
		const char *p = src, *q = src;
		int line = 1;

		while (line < V[k].line)
			line += *p++ == '\n';
		cr_assert(strncmp(p + V[k].col - 1, "type", 4) == 0, "finding %zu", k);
		for (line = 1; line < V[k].call_line;)
			line += *q++ == '\n';
		cr_assert(strncmp(q + V[k].call_col - 1, "add_argument", 12) == 0, "call %zu", k);
	}
	cr_assert_str_eq(V[1].default_text, "False");
}

/* Deterministic random inputs from Python-ish fragments: no crash, no hang,
 * and every finding's position lies within the input. */
Test(pylint, random_inputs_never_crash, .timeout = 120)
{
	static const char *const frag[] = {
	    "add_argument", "(",  ")",   "[",       "]",      "{", "}",  ",",  "type", "=",
	    "bool",         "'",  "\"",  "'''",     "\"\"\"", "f", "rb", "\\", "#",    "\n",
	    "\r\n",         " ",  "--x", "default", "def ",   ".", "é",  "{{", ":",    "!r",
	    "builtins",     "==", "\t",  "t\"",     "dest",
	};
	const size_t nfrag = sizeof frag / sizeof frag[0];
	uint64_t seed = 0xb001ULL;
	char buf[512];

	for (int it = 0; it < 4000; it++) {
		size_t len = 0, nf, n = 0;
		struct mcinit_err err = {0};
		struct mcinit_pybool *v = NULL;
		int lines = 1;

		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		nf = (size_t)(seed >> 33) % 60;
		for (size_t k = 0; k < nf; k++) {
			const char *f;

			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			f = frag[(seed >> 33) % nfrag];
			if (len + strlen(f) >= sizeof buf)
				break;
			memcpy(buf + len, f, strlen(f));
			len += strlen(f);
		}
		for (size_t k = 0; k < len; k++)
			lines += buf[k] == '\n' ||
			         (buf[k] == '\r' && (k + 1 == len || buf[k + 1] != '\n'));
		cr_assert_eq(mcinit_pylint_type_bool(buf, len, &v, &n, &err), 0);
		for (size_t k = 0; k < n; k++) {
			cr_assert_not_null(v[k].flag);
			cr_assert(v[k].line >= 1 && v[k].line <= lines);
			cr_assert(v[k].call_line >= 1 && v[k].call_line <= v[k].line);
			cr_assert_geq(v[k].col, 1);
		}
		mcinit_pybool_free(v, n);
	}
}
