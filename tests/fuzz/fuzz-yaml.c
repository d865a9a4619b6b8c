/* fuzz-yaml.c — libFuzzer target for the YAML loader (yamltree.c); built by
 * configure --enable-fuzzing, its corpus replayed by make check.
 *
 * Besides "no crash, no hang, no leak": a failure is a located data error
 * and leaves nothing behind; on success every value of the tree (when no
 * interpolation replaced one) is in the position index at a line and column
 * inside the text (or just past its end, where libyaml puts an empty
 * value), and every note likewise. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input/yamltree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int lines;

static void
check_indexed(const struct mcinit_jpos *jp, json_t *node, struct mcx_buf *ptr)
{
	struct mcinit_pos k, v;
	size_t plen = ptr->len, i;
	const char *key;
	json_t *kid;
	char idx[24];

	if (mcinit_jpos_lookup(jp, ptr->len ? mcx_buf_cstr(ptr) : "", &k, &v) != 0)
		abort();
	if (v.line < 1 || v.line > lines + 1 || v.col < 1 || k.line < 1 || k.line > lines + 1)
		abort();
	if (json_is_object(node)) {
		json_object_foreach(node, key, kid)
		{
			mcinit_jpos_append_token(ptr, key);
			check_indexed(jp, kid, ptr);
			ptr->len = plen;
		}
	} else if (json_is_array(node)) {
		json_array_foreach(node, i, kid)
		{
			snprintf(idx, sizeof idx, "%zu", i);
			mcinit_jpos_append_token(ptr, idx);
			check_indexed(jp, kid, ptr);
			ptr->len = plen;
		}
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcinit_yaml y;
	struct mcinit_err err = {0};
	struct mcx_buf ptr = {0};

	lines = 1;
	/* libyaml also breaks lines at NEL, LS and PS (counted by lead byte) */
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n' || data[i] == '\r' || data[i] == 0xC2 || data[i] == 0xE2;
	if (mcinit_yaml_parse((const char *)data, size, NULL, NULL, &y, &err) < 0) {
		if (err.code != MCINIT_E_PARSE || err.line < 1 || err.msg[0] < '0' ||
		    err.msg[0] > '9')
			abort();
		if (y.root != NULL || y.jp != NULL || y.nnotes != 0)
			abort();
		return 0;
	}
	if (y.root == NULL || y.jp == NULL)
		abort();
	for (size_t k = 0; k < y.nnotes; k++)
		if (y.notes[k].msg == NULL || y.notes[k].line < 1 || y.notes[k].line > lines + 1)
			abort();
	if (memmem(data, size, "${", 2) == NULL)
		check_indexed(y.jp, y.root, &ptr);
	mcx_buf_free(&ptr);
	mcinit_yaml_destroy(&y);
	return 0;
}
