/*
 * wire.h — TCPStore's wire format (store.h describes it): a cursor over a
 * received frame whose reads say whether the frame is complete yet, and the
 * writers of lengths and strings.  Shared by the server's request parser
 * (server-cmds.c), the client (client.c) and the store's load generator
 * (tests/bench); written in proto.c.
 */
#ifndef MCINIT_STORE_WIRE_H
#define MCINIT_STORE_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/util.h"

/* A cursor over n bytes at p, at off. */
struct rd {
	const char *p;
	size_t n, off;
};

/* What a read gives: the frame is short (more bytes must come), the read
 * succeeded, or the frame is malformed or over a limit. */
enum { P_MORE = 0, P_OK = 1, P_BAD = -1 };

/* TRY(read): return its result unless it succeeded. */
#define TRY(x)                                                                                     \
	do {                                                                                       \
		int rc_ = (x);                                                                     \
		if (rc_ != P_OK)                                                                   \
			return rc_;                                                                \
	} while (0)

/* n raw bytes into dst. */
int mcinit_store_rd_raw(struct rd *r, void *dst, size_t n);
/* A length-prefixed string of at most max bytes, pointed into the frame. */
int mcinit_store_rd_str(struct rd *r, size_t max, const char **p, size_t *len);
/* ADD's counter as torch parses it (stoll); false if it is no number. */
bool mcinit_store_parse_ll(const char *p, size_t n, int64_t *out);

/* A little-endian uint64 (a length, a count, ADD's delta) onto b. */
void mcinit_store_wr_u64(struct mcx_buf *b, uint64_t v);
/* A length-prefixed byte string onto b. */
void mcinit_store_wr_vec(struct mcx_buf *b, const void *p, size_t n);

#endif
