/* fuzz-store-session.c — libFuzzer target for the store's server: a
 * sequence of frames from three connections against one in-process server
 * (mcinit_store_session_*, no socket), so that a WAIT on one is woken by a
 * SET on another, a connection dropped while waiting is forgotten by the
 * keys it waited on, and the job token gates each.
 *
 * Input: a first byte (bit 0: the server wants the token "tok"), then
 * chunks of [selector][length][bytes]: selector bits 0-1 pick the
 * connection (3 = the first), bit 7 closes it and opens a fresh one before
 * the bytes go in.  The limits are small, so that the memory bound is hit
 * within a few KiB; it must hold (with one WAIT's key entries of slack),
 * and every connection closed must give back what it held.  Without the
 * token anywhere in the input, nothing but torch's init/ counter may be
 * stored (the token bypass of issue 36). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "fuzz-store-session: " __VA_ARGS__);                       \
			fputc('\n', stderr);                                                       \
			abort();                                                                   \
		}                                                                                  \
	} while (0)

#define NSESS 3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcinit_store_limits lim;
	struct mcinit_store_server *srv;
	struct mcinit_store_session *ss[NSESS];
	struct mcinit_store_stats st;
	struct mcx_buf out = {0};
	size_t off = 1, i, slack;

	if (size < 1)
		return 0;
	mcinit_store_limits_default(&lim);
	lim.max_key = 256;
	lim.max_value = 4096;
	lim.max_keys = 64;
	lim.max_memory = 256 * 1024;
	slack = (size_t)lim.max_keys * (lim.max_key + 256);
	srv = mcinit_store_server_local(data[0] & 1 ? "tok" : NULL, &lim);
	for (i = 0; i < NSESS; i++)
		ss[i] = mcinit_store_session_new(srv);
	while (off + 2 <= size) {
		unsigned sel = data[off], k = (sel & 3) % NSESS;
		size_t n = data[off + 1];

		off += 2;
		if (n > size - off)
			n = size - off;
		if (sel & 0x80) {
			mcinit_store_session_free(ss[k]);
			ss[k] = mcinit_store_session_new(srv);
		}
		out.len = 0;
		mcinit_store_session_feed(ss[k], data + off, n, &out);
		off += n;
		mcinit_store_server_stats(srv, &st);
		CHECK(st.memory <= lim.max_memory + slack, "memory %zu over the bound %zu",
		      st.memory, lim.max_memory);
		CHECK(st.conns <= NSESS, "%zu connections", st.conns);
	}
	/* the token holds: when no byte sequence of the input is the token, no
	 * connection authenticated, and nothing but torch's init/ counter (open
	 * to all) may have been stored */
	if ((data[0] & 1) && !memmem(data + 1, size - 1, "tok", 3)) {
		char *init = mcinit_store_server_lookup(srv, MCINIT_STORE_INIT_KEY, NULL);

		mcinit_store_server_stats(srv, &st);
		CHECK(st.keys == (init ? 1u : 0u), "%zu keys stored without the token", st.keys);
		free(init);
	}
	for (i = 0; i < NSESS; i++)
		mcinit_store_session_free(ss[i]);
	mcinit_store_server_stats(srv, &st);
	CHECK(st.conns == 0, "%zu connections after closing all", st.conns);
	CHECK(st.memory <= lim.max_memory + slack, "memory %zu after closing all (underflow?)",
	      st.memory);
	mcx_buf_free(&out);
	mcinit_store_server_free(srv);
	return 0;
}
