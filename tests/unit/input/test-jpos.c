/* test-jpos.c — unit, property and mutation tests for src/jpos.c. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input/jpos.h"

static struct mcinit_jpos *
load(const char *text)
{
	struct mcinit_err err = {0};
	struct mcinit_jpos *jp = mcinit_jpos_new(text, strlen(text), &err);

	cr_assert_not_null(jp, "unexpected scan error: %s", err.msg);
	return jp;
}

static void
expect_at(const struct mcinit_jpos *jp, const char *ptr, int kl, int kc, int vl, int vc)
{
	struct mcinit_pos k, v;

	cr_assert_eq(mcinit_jpos_lookup(jp, ptr, &k, &v), 0, "pointer \"%s\" not found", ptr);
	cr_expect_eq(k.line, kl, "%s: key line %d, want %d", ptr, k.line, kl);
	cr_expect_eq(k.col, kc, "%s: key col %d, want %d", ptr, k.col, kc);
	cr_expect_eq(v.line, vl, "%s: value line %d, want %d", ptr, v.line, vl);
	cr_expect_eq(v.col, vc, "%s: value col %d, want %d", ptr, v.col, vc);
}

static long
value_offset(const struct mcinit_jpos *jp, const char *ptr)
{
	struct mcinit_pos v;

	cr_assert_eq(mcinit_jpos_lookup(jp, ptr, NULL, &v), 0, "pointer \"%s\" not found", ptr);
	return v.offset;
}

/* Independent reference for line/col: walks the text from the start. */
static struct mcinit_pos
naive_pos(const char *text, long off)
{
	struct mcinit_pos p = {1, 1, off};
	long i = 0;

	if (strncmp(text, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	for (; i < off; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n' || (c == '\r' && text[i + 1] != '\n')) {
			p.line++;
			p.col = 1;
		} else if (c != '\r' && (c & 0xC0) != 0x80) {
			p.col++;
		}
	}
	return p;
}

static void
expect_error(const char *text, size_t len, const char *prefix)
{
	struct mcinit_err err = {0};
	struct mcinit_jpos *jp = mcinit_jpos_new(text, len, &err);

	cr_assert_null(jp, "accepted malformed input \"%s\"", text);
	cr_expect_eq(err.code, MCINIT_E_PARSE, "\"%s\": code %d", text, err.code);
	if (prefix != NULL)
		cr_expect_eq(strncmp(err.msg, prefix, strlen(prefix)), 0,
		             "\"%s\": message \"%s\" should start with \"%s\"", text, err.msg,
		             prefix);
}

Test(jpos, config_like_document)
{
	const char *text = "{\n"
	                   "  \"dist\": {\"lazy_mpu_init\": \"False\"},\n"
	                   "  \"model\": {\n"
	                   "    \"cp_comm_type\": [\"p2p\", \"a2a\", \"allgather\"]\n"
	                   "  }\n"
	                   "}\n";
	struct mcinit_jpos *jp = load(text);

	expect_at(jp, "", 1, 1, 1, 1);
	expect_at(jp, "/dist", 2, 3, 2, 11);
	expect_at(jp, "/dist/lazy_mpu_init", 2, 12, 2, 29);
	expect_at(jp, "/model", 3, 3, 3, 12);
	expect_at(jp, "/model/cp_comm_type", 4, 5, 4, 21);
	expect_at(jp, "/model/cp_comm_type/0", 4, 22, 4, 22);
	expect_at(jp, "/model/cp_comm_type/2", 4, 36, 4, 36);
	cr_expect_eq(value_offset(jp, "/model/cp_comm_type/2"), strstr(text, "\"allg") - text);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/model/cp_comm_type/3", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/model/cp_comm_type/02", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/model/tensor_model_parallel_size", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/dist/lazy_mpu_init/x", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_first_duplicate(jp, NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_count(jp), 8);
	mcinit_jpos_free(jp);
}

Test(jpos, escaped_keys_are_decoded)
{
	const char *text = "{\"a\\\"b\": 1, \"c\\\\d\": 2, \"e\\/f\": 3, \"\\b\\f\\n\\r\\t\": 4,"
	                   " \"\\u00e9t\\u00E9\": 5, \"\\ud83d\\ude00\": 6, \"x/y\": 7, \"m~n\": 8,"
	                   " \"\\u002f\\u007e\": 9, \"\": 10, \"\\u20ac\": 11}";
	struct mcinit_jpos *jp = load(text);
	static const struct {
		const char *ptr, *val;
	} cases[] = {
	    {"/a\"b", "1"},
	    {"/c\\d", "2"},
	    {"/e~1f", "3"},
	    {"/\b\f\n\r\t", "4"},
	    {"/\xC3\xA9t\xC3\xA9", "5"},
	    {"/\xF0\x9F\x98\x80", "6"},
	    {"/x~1y", "7"},
	    {"/m~0n", "8"},
	    {"/~1~0", "9"},
	    {"/", "10"},
	    {"/\xE2\x82\xAC", "11"},
	};
	size_t k;

	for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		long off = value_offset(jp, cases[k].ptr);

		cr_expect_eq(strncmp(text + off, cases[k].val, strlen(cases[k].val)), 0,
		             "%s points at \"%.4s\"", cases[k].ptr, text + off);
	}
	/* The raw (undecoded) spelling of a key is not its pointer. */
	cr_expect_eq(mcinit_jpos_lookup(jp, "/e\\~1f", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/\\u00e9t\\u00E9", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/x/y", NULL, NULL), -1);
	mcinit_jpos_free(jp);
}

Test(jpos, columns_count_code_points)
{
	/* é is 2 bytes, 😀 4, ñ 2: "k" is byte 17 but column 13. */
	const char *text =
	    "{\"\xC3\xA9\xF0\x9F\x98\x80\": \"\xC3\xB1\", \"k\": 1,\n\t\"t\":\ttrue}";
	struct mcinit_jpos *jp = load(text);
	struct mcinit_pos k, v;

	cr_assert_eq(mcinit_jpos_lookup(jp, "/k", &k, &v), 0);
	cr_expect_eq(k.offset, 17);
	cr_expect_eq(k.col, 13);
	cr_expect_eq(v.offset, 22);
	cr_expect_eq(v.col, 18);
	expect_at(jp, "/\xC3\xA9\xF0\x9F\x98\x80", 1, 2, 1, 8);
	expect_at(jp, "/t", 2, 2, 2, 7); /* a tab is one column */
	mcinit_jpos_free(jp);
}

Test(jpos, line_endings)
{
	const char *text = "{\r\n\"a\": 1,\r\"b\": 2,\n\"c\":\r\n\r3, \"d\"\r\r:\n\r\n[\r]}";
	struct mcinit_jpos *jp = load(text);

	expect_at(jp, "/a", 2, 1, 2, 6);
	expect_at(jp, "/b", 3, 1, 3, 6);
	expect_at(jp, "/c", 4, 1, 6, 1);
	expect_at(jp, "/d", 6, 4, 10, 1);
	mcinit_jpos_free(jp);
}

Test(jpos, bom_is_skipped)
{
	const char *text = "\xEF\xBB\xBF{\"a\": [true]}";
	struct mcinit_jpos *jp = load(text);
	struct mcinit_pos v;

	expect_at(jp, "", 1, 1, 1, 1);
	expect_at(jp, "/a", 1, 2, 1, 7);
	cr_assert_eq(mcinit_jpos_lookup(jp, "/a/0", NULL, &v), 0);
	cr_expect_eq(v.offset, 10);
	cr_expect_eq(v.col, 8);
	mcinit_jpos_free(jp);
	/* Only a leading BOM; elsewhere it is just bad syntax. */
	expect_error(" \xEF\xBB\xBF{}", 6, "1:2:");
}

Test(jpos, nested_and_empty_containers)
{
	const char *text = "[[1,[2,{\"x\":[3]}]],[],{},{\"e\":{},\"f\":[]}]";
	struct mcinit_jpos *jp = load(text);

	cr_expect_eq(text[value_offset(jp, "/0/1/1/x/0")], '3');
	cr_expect_eq(text[value_offset(jp, "/0/1/1/x")], '[');
	cr_expect_eq(text[value_offset(jp, "/0/1/1")], '{');
	cr_expect_eq(text[value_offset(jp, "/0/1/0")], '2');
	cr_expect_eq(text[value_offset(jp, "/1")], '[');
	cr_expect_eq(text[value_offset(jp, "/2")], '{');
	cr_expect_eq(text[value_offset(jp, "/3/e")], '{');
	cr_expect_eq(text[value_offset(jp, "/3/f")], '[');
	cr_expect_eq(mcinit_jpos_lookup(jp, "/1/0", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/3/e/", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/4", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_count(jp), 13);
	mcinit_jpos_free(jp);
}

Test(jpos, values_of_every_type)
{
	const char *text = "{\"s\":\"x\",\"i\":-12,\"z\":0,\"r\":1.5e3,\"q\":-0.25E-2,\"t\":true,"
	                   "\"f\":false,\"n\":null,\"o\":{},\"a\":[],\"u\":\"\\u0000\"}";
	struct mcinit_jpos *jp = load(text);
	static const char *const ptrs[] = {"/s", "/i", "/z", "/r", "/q", "/t",
	                                   "/f", "/n", "/o", "/a", "/u"};
	static const char first[] = "\"-01-tfn{[\"";
	size_t k;

	for (k = 0; k < sizeof ptrs / sizeof ptrs[0]; k++)
		cr_expect_eq(text[value_offset(jp, ptrs[k])], first[k], "%s", ptrs[k]);
	mcinit_jpos_free(jp);
}

Test(jpos, scalar_roots)
{
	static const char *const docs[] = {"  42 ", "\n\"s\"", "\r\nnull\r\n", "-1e5", "[]"};
	size_t k;

	for (k = 0; k < sizeof docs / sizeof docs[0]; k++) {
		struct mcinit_jpos *jp = load(docs[k]);
		struct mcinit_pos key, v;

		cr_assert_eq(mcinit_jpos_lookup(jp, "", &key, &v), 0);
		cr_expect_eq(v.offset, (long)strspn(docs[k], " \r\n"));
		cr_expect_eq(key.offset, v.offset);
		cr_expect_eq(mcinit_jpos_count(jp), 1);
		mcinit_jpos_free(jp);
	}
}

Test(jpos, deep_nesting)
{
	enum { N = 100000 };
	struct mcx_buf doc = {0}, ptr = {0};
	struct mcinit_jpos *jp;
	struct mcinit_pos v;
	size_t k;

	for (k = 0; k < N; k++) {
		mcx_buf_adds(&doc, k % 2 ? "{\"a/b\":" : "[");
		mcinit_jpos_append_token(&ptr, k % 2 ? "a/b" : "0");
	}
	mcx_buf_adds(&doc, "7");
	for (k = N; k-- > 0;)
		mcx_buf_adds(&doc, k % 2 ? "}" : "]");
	mcx_buf_cstr(&ptr);
	jp = load(mcx_buf_cstr(&doc));
	cr_assert_eq(mcinit_jpos_lookup(jp, ptr.data, NULL, &v), 0);
	cr_expect_eq(doc.data[v.offset], '7');
	cr_expect_eq(mcinit_jpos_count(jp), N + 1);
	mcinit_jpos_free(jp);
	/* Unclosed deep nesting is an error, not a crash. */
	doc.data[doc.len - 1] = ' ';
	expect_error(doc.data, doc.len, "1:");
	mcx_buf_free(&doc);
	mcx_buf_free(&ptr);
}

Test(jpos, duplicate_keys)
{
	const char *text = "{\"a\": {\"x\": 1, \"y\": 2},\n"
	                   " \"b\": [{\"k\": 1, \"k\": 2, \"k\": 3}],\n"
	                   " \"a\": {\"x\": 3}}";
	struct mcinit_jpos *jp = load(text);
	const char *ptr;
	struct mcinit_pos key;

	cr_assert_eq(mcinit_jpos_first_duplicate(jp, &ptr, &key), 0);
	cr_expect_str_eq(ptr, "/b/0/k");
	cr_expect_eq(key.line, 2);
	cr_expect_eq(key.col, 17);
	cr_expect_eq(text[key.offset], '"');
	/* The last occurrence wins, as in jansson without REJECT_DUPLICATES. */
	cr_expect_eq(text[value_offset(jp, "/b/0/k")], '3');
	cr_expect_eq(text[value_offset(jp, "/a/x")], '3');
	expect_at(jp, "/a", 3, 2, 3, 7);
	mcinit_jpos_free(jp);

	/* A duplicated object also repeats its members' pointers; the key
	 * reported is the outer one, as jansson reports it. */
	jp = load("{\"o\":{\"p\":1},\"\\u006f\":{\"p\":2}}");
	cr_assert_eq(mcinit_jpos_first_duplicate(jp, &ptr, &key), 0);
	cr_expect_str_eq(ptr, "/o");
	cr_expect_eq(key.col, 14);
	mcinit_jpos_free(jp);

	/* Equal keys in different objects are not duplicates. */
	jp = load("[{\"a\":1},{\"a\":2},{\"b\":{\"a\":3}}]");
	cr_expect_eq(mcinit_jpos_first_duplicate(jp, &ptr, &key), -1);
	mcinit_jpos_free(jp);

	/* Escapes in the pointer returned. */
	jp = load("{\"s/t~\":0,\"s\\/t~\":1}");
	cr_assert_eq(mcinit_jpos_first_duplicate(jp, &ptr, NULL), 0);
	cr_expect_str_eq(ptr, "/s~1t~0");
	mcinit_jpos_free(jp);
}

Test(jpos, malformed_inputs)
{
	static const struct {
		const char *text, *prefix;
	} cases[] = {
	    {"", "1:1:"},
	    {"   \n ", "2:2:"},
	    {"{", "1:2:"},
	    {"{\"a\"}", "1:5:"},
	    {"{\"a\":}", "1:6:"},
	    {"{\"a\":1,}", "1:8:"},
	    {"{,}", "1:2:"},
	    {"[1,]", "1:4:"},
	    {"[1 2]", "1:4:"},
	    {"[1]]", "1:4:"},
	    {"{\"a\":1]", "1:7:"},
	    {"{1:2}", "1:2:"},
	    {"01", "1:2:"},
	    {"-", "1:1:"},
	    {"1.", "1:1:"},
	    {".5", "1:1:"},
	    {"1e+", "1:1:"},
	    {"+1", "1:1:"},
	    {"tru", "1:1:"},
	    {"truex", "1:5:"},
	    {"nul", "1:1:"},
	    {"\"abc", "1:5:"},
	    {"\"a\tb\"", "1:3:"},
	    {"\"a\nb\"", "1:3:"},
	    {"\"\\x\"", "1:2:"},
	    {"\"\\u12\"", "1:2:"},
	    {"\"\\ud800\"", "1:2:"},
	    {"\"\\ud800\\u0041\"", "1:2:"},
	    {"\"\\udc00\"", "1:2:"},
	    {"{\"a\\u0000\":1}", "1:4:"},
	    {"\"\xC3\"", "1:2:"},
	    {"\"\xC0\x80\"", "1:2:"},
	    {"\"\xED\xA0\x80\"", "1:2:"},
	    {"\"\xE0\x9F\xBF\"", "1:2:"},
	    {"\"\xF0\x8F\xBF\xBF\"", "1:2:"},
	    {"\"\xF4\x90\x80\x80\"", "1:2:"},
	    {"\"\xE2\x82\"", "1:2:"},
	    {"\"\xFF\"", "1:2:"},
	    {"\xC3\xA9", "1:1:"},
	    {"[\"\xC3\xA9\" x]", "1:6:"},
	    {"\r\n\r\n  }", "3:3:"},
	    {"'a'", "1:1:"},
	    {"[1] //", "1:5:"},
	};
	size_t k;

	for (k = 0; k < sizeof cases / sizeof cases[0]; k++)
		expect_error(cases[k].text, strlen(cases[k].text), cases[k].prefix);
	expect_error("[1,\0 2]", 7, "1:4:"); /* NUL is not an end marker */
	expect_error("1\0\0", 3, "1:3:");
	expect_error("[1]\0", 4, "1:4:");
	expect_error("\"x\"\0", 4, "1:4:");
	expect_error(NULL, 0, "1:1:");
}

/* jansson loads these (its lexer drops one NUL after a number or literal),
 * so they must be indexed as well. */
Test(jpos, nul_after_scalar_like_jansson)
{
	static const char text[] = "{\"a\":[1\0,true\0],\"b\":null\0}";
	struct mcinit_err err = {0};
	struct mcinit_jpos *jp = mcinit_jpos_new(text, sizeof text - 1, &err);

	cr_assert_not_null(jp, "%s", err.msg);
	cr_expect_eq(text[value_offset(jp, "/a/1")], 't');
	cr_expect_eq(text[value_offset(jp, "/b")], 'n');
	mcinit_jpos_free(jp);
}

Test(jpos, invalid_pointers)
{
	struct mcinit_jpos *jp = load("{\"a\":{\"~\":1,\"~2\":2}}");

	cr_expect_eq(mcinit_jpos_lookup(jp, "a", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/a/~", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/a/~2", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/a/~02", NULL, NULL), 0);
	cr_expect_eq(mcinit_jpos_lookup(jp, "/a/~0", NULL, NULL), 0);
	cr_expect_eq(mcinit_jpos_lookup(jp, NULL, NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(NULL, "", NULL, NULL), -1);
	cr_expect_eq(mcinit_jpos_lookup(jp, "//a", NULL, NULL), -1);
	mcinit_jpos_free(jp);
	mcinit_jpos_free(NULL);
}

Test(jpos, append_token_escapes)
{
	struct mcx_buf b = {0};

	mcinit_jpos_append_token(&b, "dist");
	mcinit_jpos_append_token(&b, "a/b~c~1");
	mcinit_jpos_append_token(&b, "");
	mcinit_jpos_append_token(&b, "2");
	cr_expect_str_eq(mcx_buf_cstr(&b), "/dist/a~1b~0c~01//2");
	mcx_buf_free(&b);
}

/* ---- property tests against jansson ---- */

static uint64_t rng_state;

static uint64_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static const char *
pick(const char *const *v, size_t n)
{
	return v[rng() % n];
}

#define PICK(v) pick(v, sizeof v / sizeof v[0])

static void
gen_ws(struct mcx_buf *b)
{
	static const char *const ws[] = {"", "", "", " ", "\t", "\n", "\r\n", "\r", "  \r\n\t"};

	mcx_buf_adds(b, PICK(ws));
}

static void
gen_value(struct mcx_buf *b, int depth)
{
	static const char *const keys[] = {
	    "\"a\"",
	    "\"dist\"",
	    "\"\"",
	    "\"x/y\"",
	    "\"m~n\"",
	    "\"~1\"",
	    "\"e\\/f\"",
	    "\"\\u00e9t\\u00e9\"",
	    "\"\\ud83d\\ude00\"",
	    "\"\xC3\xA9\xF0\x9F\x98\x80\"",
	    "\"q\\\"\\\\\"",
	    "\"\\t\\n\\r\"",
	    "\"\\u002F\\u007E\"",
	    "\"0\"",
	    "\"b\"",
	};
	static const char *const scalars[] = {
	    "0",
	    "-1",
	    "42",
	    "3.25",
	    "-0.5e-3",
	    "1E+2",
	    "true",
	    "false",
	    "null",
	    "\"\"",
	    "\"str\"",
	    "\"\\u00e9\\n\"",
	    "\"\xE2\x82\xAC\"",
	    "\"\\ud83d\\ude00\"",
	    "9007199254740993",
	};
	int kind = depth >= 5 ? 2 : (int)(rng() % 3), n, k;

	gen_ws(b);
	if (kind == 2) {
		mcx_buf_adds(b, PICK(scalars));
	} else {
		n = (int)(rng() % 5);
		mcx_buf_addc(b, kind ? '[' : '{');
		for (k = 0; k < n; k++) {
			if (k > 0)
				mcx_buf_addc(b, ',');
			if (!kind) {
				gen_ws(b);
				mcx_buf_adds(b, PICK(keys));
				gen_ws(b);
				mcx_buf_addc(b, ':');
			}
			gen_value(b, depth + 1);
		}
		gen_ws(b);
		mcx_buf_addc(b, kind ? ']' : '}');
	}
	gen_ws(b);
}

static size_t nodes_seen;

static void
check_node(const struct mcinit_jpos *jp, const char *text, json_t *node, struct mcx_buf *ptr,
           int member)
{
	static const char first_of[] = {'{', '[', '"', '0', '0', 't', 'f', 'n'};
	struct mcinit_pos k, v, want;
	size_t len = ptr->len, idx;
	const char *key;
	char c, expect;
	json_t *child;

	nodes_seen++;
	mcx_buf_cstr(ptr);
	cr_assert_eq(mcinit_jpos_lookup(jp, ptr->data, &k, &v), 0, "jansson's \"%s\" not found",
	             ptr->data);
	c = text[v.offset];
	expect = first_of[json_typeof(node)];
	if (expect == '0')
		cr_assert(c == '-' || (c >= '0' && c <= '9'), "%s: number at '%c'", ptr->data, c);
	else
		cr_assert_eq(c, expect, "%s: value at '%c', want '%c'", ptr->data, c, expect);
	want = naive_pos(text, v.offset);
	cr_assert(v.line == want.line && v.col == want.col, "%s: value at %d:%d, want %d:%d",
	          ptr->data, v.line, v.col, want.line, want.col);
	if (member) {
		cr_assert_eq(text[k.offset], '"', "%s: key not at a quote", ptr->data);
		cr_assert_lt(k.offset, v.offset);
		want = naive_pos(text, k.offset);
		cr_assert(k.line == want.line && k.col == want.col, "%s: key at %d:%d, want %d:%d",
		          ptr->data, k.line, k.col, want.line, want.col);
	} else {
		cr_assert(k.offset == v.offset && k.line == v.line && k.col == v.col);
	}
	if (json_is_object(node)) {
		json_object_foreach(node, key, child)
		{
			mcinit_jpos_append_token(ptr, key);
			check_node(jp, text, child, ptr, 1);
			ptr->len = len;
		}
	} else if (json_is_array(node)) {
		json_array_foreach(node, idx, child)
		{
			char num[24];

			snprintf(num, sizeof num, "%zu", idx);
			mcinit_jpos_append_token(ptr, num);
			check_node(jp, text, child, ptr, 0);
			ptr->len = len;
		}
	}
}

/* Everything jansson finds in text must be indexed at the right place. */
static void
check_against_jansson(const char *text, const struct mcinit_jpos *jp, json_t *root)
{
	struct mcx_buf ptr = {0};

	nodes_seen = 0;
	check_node(jp, text, root, &ptr, 0);
	mcx_buf_free(&ptr);
}

Test(jpos, random_documents_match_jansson)
{
	struct mcx_buf doc = {0};
	int round, dups = 0;

	rng_state = 0x9E3779B97F4A7C15ULL;
	for (round = 0; round < 1500; round++) {
		struct mcinit_err err = {0};
		struct mcinit_jpos *jp;
		json_error_t jerr;
		json_t *root, *strict;

		doc.len = 0;
		if (round % 7 == 0)
			mcx_buf_adds(&doc, "\xEF\xBB\xBF");
		gen_value(&doc, 0);
		mcx_buf_cstr(&doc);
		jp = mcinit_jpos_new(doc.data, doc.len, &err);
		cr_assert_not_null(jp, "round %d: %s\n%s", round, err.msg, doc.data);
		/* jansson does not skip a BOM; hand it the rest. */
		{
			size_t skip = round % 7 == 0 ? 3 : 0;

			root = json_loadb(doc.data + skip, doc.len - skip, JSON_DECODE_ANY, &jerr);
			cr_assert_not_null(root, "round %d: jansson: %s", round, jerr.text);
			strict = json_loadb(doc.data + skip, doc.len - skip,
			                    JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &jerr);
		}
		check_against_jansson(doc.data, jp, root);
		cr_assert_eq(strict == NULL, mcinit_jpos_first_duplicate(jp, NULL, NULL) == 0,
		             "round %d: duplicate detection disagrees with jansson", round);
		if (strict != NULL)
			cr_assert_eq(nodes_seen, mcinit_jpos_count(jp));
		else
			dups++;
		json_decref(root);
		json_decref(strict);
		mcinit_jpos_free(jp);
	}
	cr_expect_gt(dups, 10, "generator should produce some duplicates");
	mcx_buf_free(&doc);
}

static void
mutate(struct mcx_buf *b)
{
	static const char bytes[] = "{}[]\":,\\u0123456789eE.-+ \t\r\ntfnl/~\xC3\xA9\xED\xF0\xFF";
	size_t at = b->len ? rng() % b->len : 0, n;

	switch (rng() % 5) {
	case 0: /* replace */
		if (b->len)
			b->data[at] = bytes[rng() % (sizeof bytes - 1)];
		break;
	case 1: /* delete */
		if (b->len) {
			memmove(b->data + at, b->data + at + 1, b->len - at - 1);
			b->len--;
		}
		break;
	case 2: /* insert */
		mcx_buf_addc(b, 0);
		memmove(b->data + at + 1, b->data + at, b->len - at - 1);
		b->data[at] = bytes[rng() % (sizeof bytes - 1)];
		break;
	case 3: /* duplicate a slice */
		n = b->len - at < 8 ? b->len - at : 8;
		mcx_buf_reserve(b, n);
		memmove(b->data + at + n, b->data + at, b->len - at);
		b->len += n;
		break;
	default: /* truncate */
		b->len = at;
		break;
	}
}

/* Mutated documents: never a crash; whatever jansson accepts is indexed
 * correctly; and jpos rejects what jansson rejects, except where jpos is
 * documented to be more lenient (numeric range, depth, leading BOM). */
Test(jpos, mutated_documents)
{
	struct mcx_buf doc = {0};
	regex_t re;
	int round, m, accepted = 0, rejected = 0;

	cr_assert_eq(regcomp(&re, "^[0-9]+:[0-9]+: ", REG_EXTENDED | REG_NOSUB), 0);
	rng_state = 0xD1B54A32D192ED03ULL;
	for (round = 0; round < 4000; round++) {
		struct mcinit_err err = {0};
		struct mcinit_jpos *jp;
		json_error_t jerr;
		json_t *root;

		doc.len = 0;
		gen_value(&doc, 1);
		for (m = 1 + (int)(rng() % 3); m > 0; m--)
			mutate(&doc);
		mcx_buf_cstr(&doc);
		jp = mcinit_jpos_new(doc.data, doc.len, &err);
		root = json_loadb(doc.data, doc.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
		if (root != NULL) {
			cr_assert_not_null(jp, "round %d: jansson accepts, jpos: %s", round,
			                   err.msg);
			check_against_jansson(doc.data, jp, root);
		} else if (jp != NULL) {
			enum json_error_code code = json_error_code(&jerr);

			cr_assert(code == json_error_numeric_overflow ||
			              code == json_error_stack_overflow,
			          "round %d: jpos accepts what jansson rejects (%s)", round,
			          jerr.text);
		}
		if (jp == NULL) {
			cr_assert_eq(err.code, MCINIT_E_PARSE);
			cr_assert_eq(regexec(&re, err.msg, 0, NULL, 0), 0, "message \"%s\"",
			             err.msg);
			rejected++;
		} else {
			accepted++;
		}
		json_decref(root);
		mcinit_jpos_free(jp);
	}
	cr_expect_gt(accepted, 200);
	cr_expect_gt(rejected, 1000);
	regfree(&re);
	mcx_buf_free(&doc);
}

/* A Python float JSON has no number for (inf, -inf, nan) is a tagged string
 * that no input spells, told apart from the string a user quoted. */
Test(jpos, python_floats_are_tagged)
{
	static const double vals[] = {__builtin_inf(), -__builtin_inf(), __builtin_nan("")};
	size_t i;
	double d;
	json_t *j, *quoted, *parsed;

	for (i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		j = mcinit_json_pyfloat(vals[i]);
		cr_assert(json_is_string(j));
		cr_assert(mcinit_json_pyfloat_value(j, &d));
		if (vals[i] != vals[i])
			cr_expect(d != d, "nan stays nan");
		else
			cr_expect(d == vals[i]);
		json_decref(j);
	}
	/* a finite one is the JSON number */
	j = mcinit_json_pyfloat(1.5);
	cr_expect(json_is_real(j) && json_real_value(j) == 1.5);
	cr_expect(!mcinit_json_pyfloat_value(j, NULL));
	json_decref(j);
	/* the strings 'inf' and 'nan' are strings */
	quoted = json_string("inf");
	cr_expect(!mcinit_json_pyfloat_value(quoted, NULL));
	json_decref(quoted);
	/* and JSON input cannot spell the tag: jansson refuses \u0000 */
	parsed = json_loads("\"\\u0000inf\"", JSON_DECODE_ANY, NULL);
	cr_expect_null(parsed);
	json_decref(parsed);
}
