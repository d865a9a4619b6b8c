/* fuzz-jpos.c — libFuzzer target for src/jpos.c, with jansson as oracle.
 *
 * Build and run (clang with libFuzzer):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -D_GNU_SOURCE -Isrc \
 *     src/jpos.c src/util.c tests/fuzz/fuzz-jpos.c -ljansson -o fuzz-jpos
 *   ./fuzz-jpos -max_total_time=60 CORPUS_DIR
 *
 * Besides "no crash, no hang, no leak" it checks that everything jansson
 * accepts is indexed at the right character and line:col, that duplicate
 * detection agrees with JSON_REJECT_DUPLICATES, and that jpos rejects what
 * jansson rejects except where it is documented to be more lenient. */
#include <jansson.h>
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/jpos.h"

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz-jpos: " __VA_ARGS__);                                \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

static struct mcinit_pos
naive_pos(const char *text, size_t len, long off)
{
	struct mcinit_pos p = {1, 1, off};
	long i = 0;

	if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
		i = 3;
	for (; i < off; i++) {
		unsigned char c = (unsigned char)text[i];

		if (c == '\n' || (c == '\r' && ((size_t)i + 1 >= len || text[i + 1] != '\n'))) {
			p.line++;
			p.col = 1;
		} else if (c != '\r' && (c & 0xC0) != 0x80) {
			p.col++;
		}
	}
	return p;
}

static size_t nodes;

static void
check_node(const struct mcinit_jpos *jp, const char *text, size_t len, json_t *node,
           struct mcx_buf *ptr, int member)
{
	static const char first_of[] = {'{', '[', '"', '0', '0', 't', 'f', 'n'};
	struct mcinit_pos k, v, want;
	size_t plen = ptr->len, idx;
	const char *key;
	json_t *child;
	char c;

	nodes++;
	mcx_buf_cstr(ptr);
	CHECK(mcinit_jpos_lookup(jp, ptr->data, &k, &v) == 0, "\"%s\" not found", ptr->data);
	CHECK(v.offset >= 0 && (size_t)v.offset < len, "offset out of range");
	c = text[v.offset];
	if (first_of[json_typeof(node)] == '0')
		CHECK(c == '-' || (c >= '0' && c <= '9'), "%s: number at '%c'", ptr->data, c);
	else
		CHECK(c == first_of[json_typeof(node)], "%s: value at '%c'", ptr->data, c);
	want = naive_pos(text, len, v.offset);
	CHECK(v.line == want.line && v.col == want.col, "%s: value line/col", ptr->data);
	if (member) {
		CHECK(k.offset < v.offset && text[k.offset] == '"', "%s: key", ptr->data);
		want = naive_pos(text, len, k.offset);
		CHECK(k.line == want.line && k.col == want.col, "%s: key line/col", ptr->data);
	} else {
		CHECK(k.offset == v.offset, "%s: element key", ptr->data);
	}
	if (json_is_object(node)) {
		json_object_foreach(node, key, child)
		{
			mcinit_jpos_append_token(ptr, key);
			check_node(jp, text, len, child, ptr, 1);
			ptr->len = plen;
		}
	} else if (json_is_array(node)) {
		json_array_foreach(node, idx, child)
		{
			char num[24];

			snprintf(num, sizeof num, "%zu", idx);
			mcinit_jpos_append_token(ptr, num);
			check_node(jp, text, len, child, ptr, 0);
			ptr->len = plen;
		}
	}
}

static void
check_error(const struct mcinit_err *err)
{
	static regex_t re;
	static int ready;

	if (!ready) {
		CHECK(regcomp(&re, "^[0-9]+:[0-9]+: ", REG_EXTENDED | REG_NOSUB) == 0, "regcomp");
		ready = 1;
	}
	CHECK(err->code == MCINIT_E_PARSE, "error code %d", err->code);
	CHECK(regexec(&re, err->msg, 0, NULL, 0) == 0, "error message \"%s\"", err->msg);
}

static void
check_with_jansson(const struct mcinit_jpos *jp, const char *text, size_t len,
                   const struct mcinit_err *err)
{
	size_t skip = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
	struct mcx_buf ptr = {0};
	json_error_t jerr;
	json_t *root, *strict;

	root = json_loadb(text + skip, len - skip, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
	if (root == NULL) {
		enum json_error_code code = json_error_code(&jerr);

		CHECK(jp == NULL || code == json_error_numeric_overflow ||
		          code == json_error_stack_overflow,
		      "jpos accepts what jansson rejects: %s", jerr.text);
		return;
	}
	CHECK(jp != NULL, "jansson accepts what jpos rejects: %s", err->msg);
	nodes = 0;
	check_node(jp, text, len, root, &ptr, 0);
	mcx_buf_free(&ptr);
	strict = json_loadb(text + skip, len - skip,
	                    JSON_DECODE_ANY | JSON_ALLOW_NUL | JSON_REJECT_DUPLICATES, &jerr);
	CHECK((strict == NULL) == (mcinit_jpos_first_duplicate(jp, NULL, NULL) == 0),
	      "duplicate detection disagrees with jansson");
	if (strict != NULL)
		CHECK(nodes == mcinit_jpos_count(jp), "count %zu, jansson %zu",
		      mcinit_jpos_count(jp), nodes);
	json_decref(strict);
	json_decref(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcinit_err err = {0};
	const char *text = (const char *)data;
	struct mcinit_jpos *jp = mcinit_jpos_new(text, size, &err);
	char *asptr;

	if (jp == NULL)
		check_error(&err);
	check_with_jansson(jp, text, size, &err);
	/* The input as a pointer exercises query parsing on arbitrary bytes. */
	asptr = strndup(text, size);
	if (asptr != NULL) {
		(void)mcinit_jpos_lookup(jp, asptr, NULL, NULL);
		free(asptr);
	}
	mcinit_jpos_free(jp);
	return 0;
}
