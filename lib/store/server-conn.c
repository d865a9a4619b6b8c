/*
 * server-conn.c — a connection of the store's server (server-impl.h): its
 * replies and the memory they and its requests count against, the gate
 * before authentication, the loop that hands each complete request to its
 * command, the connection's life, and in-process sessions (store.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "store/server-impl.h"

/* ---- connections: output ---- */

/* Room for n more bytes of replies in c->out, counted in the store's
 * memory: replies are what a client can make the store hold by asking
 * (a MULTI_GET naming a large value a thousand times, GETs it never
 * reads), so they count against max_memory like keys and values. */
static void
out_reserve(struct conn *c, size_t n)
{
	size_t cap;

	if (c->outlen + n <= c->outcap)
		return;
	if (c->outoff > 0) { /* what the client took makes room first */
		memmove(c->out, c->out + c->outoff, c->outlen - c->outoff);
		c->outlen -= c->outoff;
		c->outoff = 0;
		if (c->outlen + n <= c->outcap)
			return;
	}
	/* doubling while small; beyond 1 MiB, what is needed and 1 MiB more,
	 * so that a large reply does not hold twice its size */
	cap = c->outcap ? c->outcap : 256;
	while (cap < c->outlen + n && cap < ((size_t)1 << 20))
		cap *= 2;
	if (cap < c->outlen + n)
		cap = c->outlen + n + ((size_t)1 << 20);
	c->out = mcx_xrealloc(c->out, cap);
	c->srv->mem += cap - c->outcap;
	c->outcap = cap;
}

void
mcinit_srv_out_add(struct conn *c, const void *p, size_t n)
{
	out_reserve(c, n);
	memcpy(c->out + c->outlen, p, n);
	c->outlen += n;
}

/* Replies sent to c and not yet taken by its client. */
static size_t
unsent(const struct conn *c)
{
	return c->outlen - c->outoff;
}

/* A connection whose unsent replies pass this is not read from until its
 * client takes them: the largest request a connection may send, so that
 * a client that never reads holds a bounded part of the store. */
static size_t
out_bound(const struct mcinit_store_server *s)
{
	return 4 * (s->lim.max_value + s->lim.max_key) + 4096;
}

static void
out_release(struct conn *c)
{
	c->srv->mem -= c->outcap;
	free(c->out); /* an idle client holds no buffer: 65,536 of them wait at once */
	c->out = NULL;
	c->outoff = c->outlen = c->outcap = 0;
}

void
mcinit_srv_out_u8(struct conn *c, uint8_t v)
{
	mcinit_srv_out_add(c, &v, 1);
}

void
mcinit_srv_out_i64(struct conn *c, int64_t v)
{
	mcinit_srv_out_add(c, &v, sizeof v); /* little-endian hosts only, as torch */
}

void
mcinit_srv_out_vec(struct conn *c, const char *p, size_t n)
{
	uint64_t l = n;

	mcinit_srv_out_add(c, &l, sizeof l);
	if (n)
		mcinit_srv_out_add(c, p, n);
}

/* Watches c for input unless it is paused, and for room to write while
 * replies wait. */
static void
conn_epoll(struct mcinit_store_server *s, struct conn *c)
{
	struct epoll_event ev = {.events = (c->paused ? 0u : (uint32_t)(EPOLLIN | EPOLLRDHUP)) |
	                                   (unsent(c) > 0 ? (uint32_t)EPOLLOUT : 0u),
	                         .data.ptr = c};

	if (c->fd < 0 || ev.events == c->events)
		return;
	c->events = ev.events;
	epoll_ctl(s->epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

/* Writes what it can; false when the connection broke.  A session keeps
 * its replies until mcinit_store_session_feed hands them out. */
bool
mcinit_srv_conn_flush(struct mcinit_store_server *s, struct conn *c)
{
	if (c->fd < 0)
		return true;
	while (c->outoff < c->outlen) {
		ssize_t w = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			conn_epoll(s, c);
			return true;
		}
		if (w <= 0)
			return false;
		c->outoff += (size_t)w;
	}
	out_release(c);
	conn_epoll(s, c);
	return true;
}

/* ---- memory: what requests and replies may hold ---- */

bool
mcinit_srv_mem_ok(const struct mcinit_store_server *s, size_t more)
{
	return s->mem + more <= s->lim.max_memory;
}

/* Room for a request that may add `bytes` and `keys` new keys.  Refused
 * beyond the bounds (the protocol has no error reply: the connection is
 * dropped), with the reason kept for whoever serves to report. */
bool
mcinit_srv_room(struct mcinit_store_server *s, size_t bytes, uint64_t keys)
{
	if (!mcinit_srv_mem_ok(s, bytes)) {
		snprintf(s->why, sizeof s->why,
		         "the store is full: %zu bytes held, a request for %zu more, bound %zu",
		         s->mem, bytes, s->lim.max_memory);
	} else if (keys > s->lim.max_entries || s->nentries + keys > s->lim.max_entries) {
		snprintf(s->why, sizeof s->why,
		         "the store is full: %zu keys held, a request for %llu more, bound %zu",
		         s->nentries, (unsigned long long)keys, s->lim.max_entries);
	} else {
		return true;
	}
	s->refused++;
	return false;
}

/* Room for a reply of `need` bytes on c, counted in the store's memory
 * (out_reserve): refused beyond max_memory, as a request that would store
 * too much is (the connection dropped, the reason kept). */
static bool
reply_room(struct mcinit_store_server *s, struct conn *c, size_t need)
{
	size_t have = c->outcap - c->outlen + c->outoff;

	if (need <= have || mcinit_srv_mem_ok(s, need - have)) {
		out_reserve(c, need);
		return true;
	}
	snprintf(s->why, sizeof s->why,
	         "the store is full: %zu bytes held, a reply of %zu bytes, bound %zu", s->mem, need,
	         s->lim.max_memory);
	s->refused++;
	return false;
}

/* ---- requests: the gate before authentication, the loop ---- */

/* Before authentication a client may send VALIDATE, PING, ADD on torch's
 * `init/` and the SET of the auth key, and nothing else.  P_OK only when
 * the request is proved to be one of those: its key read whole and equal
 * to the one allowed (the rest of the frame is then parsed by the
 * handler's dry pass before anything runs).  P_MORE while the bytes that
 * decide are not all in and what is in still fits an allowed request; P_BAD
 * for everything else: another command, a key of another length (however
 * long: it is never read into a buffer), another key. */
static int
auth_gate(unsigned cmd, const struct rd *r)
{
	struct rd t = *r;
	const char *want;
	size_t wl;
	uint64_t l;
	int rc;

	if (cmd == MCINIT_STORE_VALIDATE || cmd == MCINIT_STORE_PING)
		return P_OK; /* fixed-size arguments, no key: the dry pass reads them */
	if (cmd == MCINIT_STORE_ADD)
		want = MCINIT_STORE_INIT_KEY;
	else if (cmd == MCINIT_STORE_SET)
		want = MCINIT_STORE_AUTH_KEY;
	else
		return P_BAD;
	wl = strlen(want);
	rc = mcinit_store_rd_raw(&t, &l, sizeof l);
	if (rc != P_OK)
		return rc;
	if (l != wl)
		return P_BAD;
	if (t.n - t.off < wl) /* a prefix of the key that is allowed, or not */
		return memcmp(t.p + t.off, want, t.n - t.off) == 0 ? P_MORE : P_BAD;
	return memcmp(t.p + t.off, want, wl) == 0 ? P_OK : P_BAD;
}

/* A command code the protocol lacks: a torch newer than this store, or
 * garbage.  The connection goes (torch's protocol has no error reply);
 * the code is kept for whoever serves to log. */
static void
note_unknown(struct mcinit_store_server *s, unsigned cmd)
{
	s->unknown++;
	snprintf(s->unknown_why, sizeof s->unknown_why,
	         "unknown command %u (TCPStore's commands are 0 to %d, as torch 2.15 sends them): "
	         "its connection dropped",
	         cmd, MCINIT_STORE_LAST_CMD);
}

/* Handles every complete request in c->in; P_BAD drops the connection. */
static int
conn_process(struct mcinit_store_server *s, struct conn *c)
{
	size_t off = 0;
	int rc = P_OK;

	while (off < c->inlen && !c->dead) {
		struct rd r = {c->in, c->inlen, off + 1};
		unsigned cmd = (unsigned char)c->in[off];
		handler_fn h = mcinit_srv_handler_of(cmd);

		if (!h) {
			note_unknown(s, cmd);
			rc = P_BAD;
			break;
		}
		if (c->fd >= 0 && unsent(c) > out_bound(s)) {
			/* the client is not reading its replies: wait for it (the
			 * rest of the buffer stays, and nothing more is read) */
			c->paused = true;
			break;
		}
		if (s->token && !c->authed) {
			rc = auth_gate(cmd, &r);
			if (rc != P_OK)
				break;
		}
		s->reply_need = 0;
		rc = h(s, c, &r, false);
		if (rc != P_OK)
			break;
		if (!reply_room(s, c, s->reply_need)) {
			rc = P_BAD;
			break;
		}
		r.off = off + 1;
		rc = h(s, c, &r, true);
		if (rc != P_OK)
			break;
		s->requests++;
		off = r.off;
	}
	if (off > 0) {
		memmove(c->in, c->in + off, c->inlen - off);
		c->inlen -= off;
	}
	return rc == P_BAD ? P_BAD : P_OK;
}

/* ---- connections: lifecycle ---- */

static void
silent_unlink(struct mcinit_store_server *s, struct conn *c)
{
	if (c->sprev)
		c->sprev->snext = c->snext;
	else if (s->shead == c)
		s->shead = c->snext;
	if (c->snext)
		c->snext->sprev = c->sprev;
	else if (s->stail == c)
		s->stail = c->sprev;
	c->sprev = c->snext = NULL;
}

/* Starts c's clock: at the tail, so the list stays sorted by it. */
void
mcinit_srv_silent_append(struct mcinit_store_server *s, struct conn *c)
{
	c->since = mcinit_now();
	c->sprev = s->stail;
	if (s->stail)
		s->stail->snext = c;
	else
		s->shead = c;
	s->stail = c;
}

void
mcinit_srv_conn_close(struct mcinit_store_server *s, struct conn *c)
{
	if (c->dead)
		return;
	c->dead = true;
	silent_unlink(s, c); /* a no-op when it is not on the list */
	mcinit_srv_wait_clear(s, c);
	if (c->fd >= 0) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	s->mem -= c->incap + c->outcap;
	if (c->aprev)
		c->aprev->anext = c->anext;
	else
		s->all = c->anext;
	if (c->anext)
		c->anext->aprev = c->aprev;
	c->aprev = c->anext = NULL;
	if (c->fd >= 0) { /* a session is freed by its owner */
		c->dnext = s->dead;
		s->dead = c;
	}
	s->nconns--;
}

static size_t
max_request(const struct mcinit_store_server *s)
{
	return 4 * (s->lim.max_value + s->lim.max_key) + 4096;
}

/* Room for 4 KiB more in c->in.  A full buffer is processed before it may
 * grow, and it grows only up to the largest valid request. */
static int
in_reserve(struct mcinit_store_server *s, struct conn *c)
{
	size_t cap = c->incap ? c->incap * 2 : 8192;

	if (c->incap - c->inlen >= 4096)
		return P_OK;
	if (c->inlen > 0 && conn_process(s, c) != P_OK)
		return P_BAD;
	if (c->incap - c->inlen >= 4096 || c->paused)
		return P_OK; /* paused: nothing more is read (the caller stops) */
	if (cap > max_request(s) || !mcinit_srv_room(s, cap - c->incap, 0))
		return P_BAD;
	c->in = mcx_xrealloc(c->in, cap);
	s->mem += cap - c->incap;
	c->incap = cap;
	return P_OK;
}

/* Gives back an input buffer that holds nothing: a rendezvous keeps every
 * client connected and idle while it waits, and 8 KiB each would be half a
 * gigabyte at 65,536 ranks. */
static void
in_release_idle(struct mcinit_store_server *s, struct conn *c)
{
	if (c->dead || c->inlen > 0 || c->incap == 0)
		return;
	free(c->in);
	c->in = NULL;
	s->mem -= c->incap;
	c->incap = 0;
}

/* A connection that stops in the middle of a request holds its buffer and
 * a slot: it goes on the clock's list (at the tail: the list stays sorted
 * by the time of each one's last byte), and off it once its requests are
 * whole. */
static void
clock_half_request(struct mcinit_store_server *s, struct conn *c)
{
	silent_unlink(s, c);
	if (!c->dead && c->inlen > 0)
		mcinit_srv_silent_append(s, c);
}

/* Handles c's buffered requests and writes their replies, again as long as
 * the client takes enough of them to lift a pause; then watches c for what
 * it waits for.  P_OK, P_BAD (a request to drop it for), or P_MORE: the
 * connection broke while writing. */
static int
conn_pump(struct mcinit_store_server *s, struct conn *c)
{
	while (!c->dead) {
		if (c->inlen > 0 && conn_process(s, c) != P_OK)
			return P_BAD;
		if (!mcinit_srv_conn_flush(s, c))
			return P_MORE;
		if (!c->paused || unsent(c) > out_bound(s))
			break;
		c->paused = false; /* the client took its replies: go on */
	}
	conn_epoll(s, c);
	return P_OK;
}

/* A connection dropped for its request: over the bounds (mcinit_srv_room() counted
 * it) or malformed. */
static void
drop_bad(struct mcinit_store_server *s, struct conn *c, unsigned long long refused_before)
{
	s->dropped++;
	s->malformed += s->refused == refused_before;
	mcinit_srv_conn_close(s, c);
}

/* Reads what the socket has, then handles every complete request: one
 * parse of a large request that arrives in pieces, not one per piece. */
void
mcinit_srv_conn_readable(struct mcinit_store_server *s, struct conn *c)
{
	unsigned long long refused = s->refused;
	bool eof = false, got = false;

	for (;;) {
		ssize_t n;
		size_t want;

		if (c->paused)
			break;
		if (in_reserve(s, c) != P_OK)
			goto bad;
		if (c->paused)
			break;
		want = c->incap - c->inlen;
		n = recv(c->fd, c->in + c->inlen, want, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			eof = true;
			break;
		}
		c->spoke = true;
		got = true;
		c->inlen += (size_t)n;
		if ((size_t)n < want)
			break; /* drained: a recv that would say EAGAIN costs a syscall a request */
	}
	switch (conn_pump(s, c)) {
	case P_BAD:
		goto bad;
	case P_MORE:
		eof = true;
		break;
	}
	if (eof && c->inlen > 0)
		s->truncated++; /* gone in the middle of a request */
	if (eof)
		mcinit_srv_conn_close(s, c);
	else if (got)
		clock_half_request(s, c);
	in_release_idle(s, c);
	return;
bad:
	drop_bad(s, c, refused);
}

/* The client took some of its replies: a paused connection goes on with
 * the requests it has buffered once it is under the bound again. */
void
mcinit_srv_conn_writable(struct mcinit_store_server *s, struct conn *c)
{
	unsigned long long refused = s->refused;
	bool was = c->paused;

	if (!mcinit_srv_conn_flush(s, c)) {
		mcinit_srv_conn_close(s, c);
		return;
	}
	if (!c->paused || unsent(c) > out_bound(s))
		return;
	c->paused = false;
	switch (conn_pump(s, c)) {
	case P_BAD:
		drop_bad(s, c, refused);
		return;
	case P_MORE:
		mcinit_srv_conn_close(s, c);
		return;
	}
	if (was && !c->dead)
		clock_half_request(s, c); /* its clock ran while the store held it */
	in_release_idle(s, c);
}

/* ---- in-process sessions (store.h) ---- */

struct mcinit_store_session {
	struct mcinit_store_server *s;
	struct conn *c;
};

struct mcinit_store_session *
mcinit_store_session_new(struct mcinit_store_server *s)
{
	struct mcinit_store_session *ss = mcx_xcalloc(1, sizeof *ss);
	struct conn *c = mcx_xcalloc(1, sizeof *c);

	c->fd = -1;
	c->srv = s;
	c->spoke = true; /* never on the silent list: no clock runs here */
	c->since = mcinit_now();
	c->anext = s->all;
	if (s->all)
		s->all->aprev = c;
	s->all = c;
	s->nconns++;
	s->accepted++;
	ss->s = s;
	ss->c = c;
	return ss;
}

int
mcinit_store_session_feed(struct mcinit_store_session *ss, const void *p, size_t n,
                          struct mcx_buf *out)
{
	struct mcinit_store_server *s = ss->s;
	struct conn *c = ss->c;
	const char *q = p;
	int rc = P_OK;
	unsigned long long refused = s->refused;

	/* as mcinit_srv_conn_readable does with what recv returns */
	while (!c->dead && n > 0 && rc == P_OK) {
		size_t room;

		rc = in_reserve(s, c);
		if (rc != P_OK)
			break;
		room = c->incap - c->inlen < n ? c->incap - c->inlen : n;
		memcpy(c->in + c->inlen, q, room);
		c->inlen += room;
		q += room;
		n -= room;
	}
	if (!c->dead && rc == P_OK && c->inlen > 0)
		rc = conn_process(s, c);
	if (!c->dead && rc != P_OK)
		drop_bad(s, c, refused);
	in_release_idle(s, c);
	mcinit_srv_flush_pending(s); /* sessions keep theirs: nothing is freed here */
	if (out && c->outlen > c->outoff)
		mcx_buf_add(out, c->out + c->outoff, c->outlen - c->outoff);
	c->outoff = c->outlen = 0;
	return c->dead ? -1 : 0;
}

void
mcinit_store_session_free(struct mcinit_store_session *ss)
{
	if (!ss)
		return;
	if (!ss->c->dead)
		mcinit_srv_conn_close(ss->s, ss->c);
	free(ss->c->in);
	free(ss->c->out);
	free(ss->c->wkeys);
	free(ss->c);
	free(ss);
}
