/* fuzz-store-frame.c — libFuzzer target for the store's frame decoder
 * (mcinit_store_frame, the dry pass every request goes through before the
 * server acts on it).
 *
 * Besides "no crash, no read past the bytes given": a whole frame is
 * decoded to the same length from exactly its own bytes and needs more from
 * one byte fewer; an incomplete input stays incomplete when shortened; and
 * the frames of a buffer are decoded one after another to its end. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz-store-frame: " __VA_ARGS__);                         \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Frame rc of exactly p[0..n), in a buffer of its own (ASan sees any read
 * past n). */
static int
frame_of(const struct mcinit_store_server *s, const uint8_t *p, size_t n, size_t *len)
{
	uint8_t *copy = malloc(n ? n : 1);
	int rc;

	memcpy(copy, p, n);
	rc = mcinit_store_frame(s, copy, n, len);
	free(copy);
	return rc;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mcinit_store_server *srv;
	size_t off = 0;

	if (!srv) {
		/* small limits, so that inputs of a few KiB reach every one */
		struct mcinit_store_limits lim;

		mcinit_store_limits_default(&lim);
		lim.max_key = 256;
		lim.max_value = 4096;
		lim.max_keys = 64;
		lim.max_memory = 1 << 20;
		srv = mcinit_store_server_local(NULL, &lim);
	}
	while (off < size) {
		size_t len = 0, len2 = 0, left = size - off;
		int rc = frame_of(srv, data + off, left, &len);

		CHECK(rc >= -1 && rc <= 1, "rc %d", rc);
		if (rc == 0 && left > 1)
			CHECK(frame_of(srv, data + off, left - 1, &len2) == 0,
			      "a shorter incomplete frame is not incomplete");
		if (rc != 1)
			break;
		CHECK(len >= 1 && len <= left, "length %zu of %zu", len, left);
		CHECK(frame_of(srv, data + off, len, &len2) == 1 && len2 == len,
		      "the frame alone decodes to %zu, not %zu", len2, len);
		CHECK(frame_of(srv, data + off, len - 1, &len2) == 0,
		      "one byte fewer than a frame is not incomplete");
		off += len;
	}
	return 0;
}
