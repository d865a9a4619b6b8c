/*
 * client.c — the TCPStore-compatible client (see store.h): blocking calls
 * with deadlines, against mcinit's server, torchrun's agent store or any
 * torch TCPStore server.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "store/wire.h"

struct mcinit_store_client {
	int fd;
	bool lost; /* the connection broke: no later call can succeed */
	char *prefix;
	double deadline;
	struct mcx_buf req;
};

static int
ms_left(double deadline)
{
	double left = deadline - mcinit_now();

	if (left <= 0)
		return 0;
	return left > 1e6 ? 1000000000 : (int)(left * 1000.0) + 1;
}

static int
cl_send(struct mcinit_store_client *c, const void *p, size_t n, struct mcinit_err *err)
{
	const char *q = p;

	while (n > 0) {
		struct pollfd pf = {.fd = c->fd, .events = POLLOUT};
		ssize_t w;
		int ms = ms_left(c->deadline);

		if (ms == 0)
			return mcinit_err_set(err, MCINIT_E_TIMEOUT, "store: timed out sending");
		if (poll(&pf, 1, ms) < 0 && errno != EINTR)
			return mcinit_err_set(err, MCINIT_E_OS, "store: %s", strerror(errno));
		w = send(c->fd, q, n, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (w <= 0) {
			c->lost = true;
			return mcinit_err_set(err, MCINIT_E_UNAVAILABLE,
			                      "store: connection lost: %s",
			                      w < 0 ? strerror(errno) : "closed");
		}
		q += w;
		n -= (size_t)w;
	}
	return 0;
}

static int
cl_recv_until(struct mcinit_store_client *c, void *p, size_t n, double deadline,
              struct mcinit_err *err)
{
	char *q = p;

	while (n > 0) {
		struct pollfd pf = {.fd = c->fd, .events = POLLIN};
		ssize_t r;
		int ms = ms_left(deadline), pr;

		if (ms == 0)
			return mcinit_err_set(err, MCINIT_E_TIMEOUT,
			                      "store: timed out waiting for a reply");
		pr = poll(&pf, 1, ms);
		if (pr < 0 && errno != EINTR)
			return mcinit_err_set(err, MCINIT_E_OS, "store: %s", strerror(errno));
		if (pr <= 0)
			continue;
		r = recv(c->fd, q, n, MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r <= 0) {
			c->lost = true;
			return mcinit_err_set(err, MCINIT_E_TIMEOUT,
			                      "store: the server closed the connection%s%s",
			                      r < 0 ? ": " : "", r < 0 ? strerror(errno) : "");
		}
		q += r;
		n -= (size_t)r;
	}
	return 0;
}

static int
cl_recv(struct mcinit_store_client *c, void *p, size_t n, struct mcinit_err *err)
{
	return cl_recv_until(c, p, n, c->deadline, err);
}

static char *
cl_recv_vec(struct mcinit_store_client *c, size_t *len, struct mcinit_err *err)
{
	uint64_t l;
	char *v;

	if (cl_recv(c, &l, sizeof l, err) != 0)
		return NULL;
	if (l > ((uint64_t)1 << 32)) {
		mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "store: implausible value length %llu",
		               (unsigned long long)l);
		return NULL;
	}
	v = mcx_xmalloc((size_t)l + 1);
	if (cl_recv(c, v, (size_t)l, err) != 0) {
		free(v);
		return NULL;
	}
	v[l] = '\0';
	if (len)
		*len = (size_t)l;
	return v;
}

static void
rq_begin(struct mcinit_store_client *c, unsigned cmd)
{
	c->req.len = 0;
	mcx_buf_addc(&c->req, (char)cmd);
}

static void
rq_u64(struct mcinit_store_client *c, uint64_t v)
{
	mcinit_store_wr_u64(&c->req, v);
}

static void
rq_bytes(struct mcinit_store_client *c, const void *p, size_t n)
{
	mcinit_store_wr_vec(&c->req, p, n);
}

static void
rq_key(struct mcinit_store_client *c, const char *key)
{
	size_t pl = strlen(c->prefix), kl = strlen(key);

	rq_u64(c, pl + kl);
	mcx_buf_add(&c->req, c->prefix, pl);
	mcx_buf_add(&c->req, key, kl);
}

static int
rq_send(struct mcinit_store_client *c, struct mcinit_err *err)
{
	return cl_send(c, c->req.data, c->req.len, err);
}

static int
connect_once(const char *host, int port, double deadline, int *fdp, struct mcinit_err *err)
{
	struct addrinfo hints = {0}, *res = NULL, *ai;
	char portstr[16];
	int rc, lasterr = ECONNREFUSED;

	hints.ai_socktype = SOCK_STREAM;
	snprintf(portstr, sizeof portstr, "%d", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0)
		return mcinit_err_set(err,
		                      rc == EAI_AGAIN ? MCINIT_E_TIMEOUT : MCINIT_E_UNAVAILABLE,
		                      "store: cannot resolve '%s': %s", host, gai_strerror(rc));
	for (ai = res; ai; ai = ai->ai_next) {
		int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		int one = 1, soerr = 0;
		socklen_t sl = sizeof soerr;
		struct pollfd pf;

		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) {
			lasterr = errno;
			close(fd);
			continue;
		}
		pf.fd = fd;
		pf.events = POLLOUT;
		if (poll(&pf, 1, ms_left(deadline)) <= 0 ||
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) != 0 || soerr != 0) {
			lasterr = soerr ? soerr : ETIMEDOUT;
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		*fdp = fd;
		freeaddrinfo(res);
		return 0;
	}
	freeaddrinfo(res);
	return mcinit_err_set(err, MCINIT_E_TIMEOUT, "store: cannot connect to %s:%d: %s", host,
	                      port, strerror(lasterr));
}

/* VALIDATE, then PING with our pid as the nonce (torch's handshake). */
static int
handshake(struct mcinit_store_client *c, struct mcinit_err *err)
{
	uint32_t magic = MCINIT_STORE_MAGIC;

	rq_begin(c, MCINIT_STORE_VALIDATE);
	mcx_buf_add(&c->req, &magic, sizeof magic);
	if (rq_send(c, err) != 0)
		return -1;
	return mcinit_store_ping(c, (uint32_t)getpid(), err);
}

struct mcinit_store_client *
mcinit_store_client_new(const char *host, int port, double deadline, struct mcinit_err *err)
{
	struct mcinit_store_client *c = mcx_xcalloc(1, sizeof *c);
	double backoff = 0.01;

	c->fd = -1;
	c->prefix = mcx_xstrdup("/");
	c->deadline = deadline;
	for (;;) {
		struct mcinit_err e = {0};

		if (connect_once(host, port, deadline, &c->fd, &e) == 0 && handshake(c, &e) == 0)
			return c;
		if (c->fd >= 0) {
			close(c->fd);
			c->fd = -1;
		}
		if (e.code == MCINIT_E_UNAVAILABLE || mcinit_now() + backoff >= deadline) {
			if (err)
				*err = e;
			if (e.code != MCINIT_E_UNAVAILABLE)
				mcinit_err_set(err, MCINIT_E_TIMEOUT,
				               "store: no store at %s:%d before the deadline (%s)",
				               host, port, e.msg);
			mcinit_store_client_free(c);
			return NULL;
		}
		usleep((useconds_t)(backoff * 1e6));
		backoff = backoff * 2 > 0.5 ? 0.5 : backoff * 2;
	}
}

void
mcinit_store_client_free(struct mcinit_store_client *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->prefix);
	mcx_buf_free(&c->req);
	free(c);
}

void
mcinit_store_client_set_prefix(struct mcinit_store_client *c, const char *prefix)
{
	free(c->prefix);
	c->prefix = mcx_xstrdup(prefix ? prefix : "");
}

void
mcinit_store_client_set_deadline(struct mcinit_store_client *c, double deadline)
{
	c->deadline = deadline;
}

bool
mcinit_store_client_lost(const struct mcinit_store_client *c)
{
	return c->lost;
}

int
mcinit_store_ping(struct mcinit_store_client *c, uint32_t nonce, struct mcinit_err *err)
{
	uint32_t back;

	rq_begin(c, MCINIT_STORE_PING);
	mcx_buf_add(&c->req, &nonce, sizeof nonce);
	if (rq_send(c, err) != 0 || cl_recv(c, &back, sizeof back, err) != 0)
		return -1;
	if (back != nonce)
		return mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "store: PING answered %u, sent %u",
		                      back, nonce);
	return 0;
}

static int
set_raw(struct mcinit_store_client *c, const char *wirekey, const void *val, size_t len,
        struct mcinit_err *err)
{
	rq_begin(c, MCINIT_STORE_SET);
	rq_bytes(c, wirekey, strlen(wirekey));
	rq_bytes(c, val, len);
	return rq_send(c, err);
}

int
mcinit_store_auth(struct mcinit_store_client *c, const char *token, struct mcinit_err *err)
{
	/* Answered by nothing on success and by a closed connection on a wrong
	 * token; the PING after it tells the two apart now rather than later. */
	if (set_raw(c, MCINIT_STORE_AUTH_KEY, token, strlen(token), err) != 0)
		return -1;
	if (mcinit_store_ping(c, 0x6d63696e, err) != 0)
		return mcinit_err_set(err, MCINIT_E_UNAVAILABLE,
		                      "store: the job token was refused");
	return 0;
}

int
mcinit_store_set(struct mcinit_store_client *c, const char *key, const void *val, size_t len,
                 struct mcinit_err *err)
{
	rq_begin(c, MCINIT_STORE_SET);
	rq_key(c, key);
	rq_bytes(c, val, len);
	return rq_send(c, err);
}

char *
mcinit_store_get(struct mcinit_store_client *c, const char *key, size_t *len,
                 struct mcinit_err *err)
{
	if (mcinit_store_wait(c, &key, 1, err) != 0)
		return NULL;
	rq_begin(c, MCINIT_STORE_GET);
	rq_key(c, key);
	if (rq_send(c, err) != 0)
		return NULL;
	return cl_recv_vec(c, len, err);
}

static int
add_wire(struct mcinit_store_client *c, const char *key, bool raw, int64_t d, int64_t *out,
         struct mcinit_err *err)
{
	int64_t v;

	rq_begin(c, MCINIT_STORE_ADD);
	if (raw)
		rq_bytes(c, key, strlen(key));
	else
		rq_key(c, key);
	mcx_buf_add(&c->req, &d, sizeof d);
	if (rq_send(c, err) != 0 || cl_recv(c, &v, sizeof v, err) != 0)
		return -1;
	if (out)
		*out = v;
	return 0;
}

int
mcinit_store_add(struct mcinit_store_client *c, const char *key, int64_t delta, int64_t *out,
                 struct mcinit_err *err)
{
	return add_wire(c, key, false, delta, out, err);
}

int
mcinit_store_add_raw(struct mcinit_store_client *c, const char *key, int64_t delta, int64_t *out,
                     struct mcinit_err *err)
{
	return add_wire(c, key, true, delta, out, err);
}

static void
rq_keys(struct mcinit_store_client *c, const char *const *keys, size_t n)
{
	size_t i;

	rq_u64(c, n);
	for (i = 0; i < n; i++)
		rq_key(c, keys[i]);
}

int
mcinit_store_check(struct mcinit_store_client *c, const char *const *keys, size_t n,
                   struct mcinit_err *err)
{
	uint8_t r;

	rq_begin(c, MCINIT_STORE_CHECK);
	rq_keys(c, keys, n);
	if (rq_send(c, err) != 0 || cl_recv(c, &r, 1, err) != 0)
		return -1;
	return r == MCINIT_STORE_READY;
}

int
mcinit_store_wait(struct mcinit_store_client *c, const char *const *keys, size_t n,
                  struct mcinit_err *err)
{
	uint8_t r;
	struct mcinit_err e = {0};

	rq_begin(c, MCINIT_STORE_WAIT);
	rq_keys(c, keys, n);
	if (rq_send(c, err) != 0)
		return -1;
	if (cl_recv(c, &r, 1, &e) == 0) {
		if (r != MCINIT_STORE_STOP_WAIT)
			return mcinit_err_set(err, MCINIT_E_UNAVAILABLE, "store: WAIT answered %u",
			                      r);
		return 0;
	}
	if (e.code != MCINIT_E_TIMEOUT || c->lost) {
		/* a closed connection is no timeout: nothing to cancel */
		if (err)
			*err = e;
		return -1;
	}
	/* Timed out: cancel, as torch does; a STOP_WAITING that crossed the
	 * cancel on the wire may come first. */
	rq_begin(c, MCINIT_STORE_CANCEL_WAIT);
	if (cl_send(c, c->req.data, c->req.len, err) != 0 ||
	    cl_recv_until(c, &r, 1, mcinit_now() + 5, err) != 0)
		return -1;
	if (r == MCINIT_STORE_STOP_WAIT && cl_recv_until(c, &r, 1, mcinit_now() + 5, err) != 0)
		return -1;
	return mcinit_err_set(err, MCINIT_E_TIMEOUT, "store: timed out waiting for %s%s%s",
	                      n ? keys[0] : "", n > 1 ? " and " : "", n > 1 ? "other keys" : "");
}

char *
mcinit_store_compare_set(struct mcinit_store_client *c, const char *key, const void *expect,
                         size_t elen, const void *desire, size_t dlen, size_t *len,
                         struct mcinit_err *err)
{
	rq_begin(c, MCINIT_STORE_COMPARE_SET);
	rq_key(c, key);
	rq_bytes(c, expect, elen);
	rq_bytes(c, desire, dlen);
	if (rq_send(c, err) != 0)
		return NULL;
	return cl_recv_vec(c, len, err);
}

int
mcinit_store_num_keys(struct mcinit_store_client *c, int64_t *out, struct mcinit_err *err)
{
	rq_begin(c, MCINIT_STORE_GETNUMKEYS);
	if (rq_send(c, err) != 0)
		return -1;
	return cl_recv(c, out, sizeof *out, err);
}

int
mcinit_store_delete(struct mcinit_store_client *c, const char *key, int64_t *out,
                    struct mcinit_err *err)
{
	int64_t v;

	rq_begin(c, MCINIT_STORE_DELETE_KEY);
	rq_key(c, key);
	if (rq_send(c, err) != 0 || cl_recv(c, &v, sizeof v, err) != 0)
		return -1;
	if (out)
		*out = v;
	return 0;
}

int
mcinit_store_append(struct mcinit_store_client *c, const char *key, const void *val, size_t len,
                    struct mcinit_err *err)
{
	rq_begin(c, MCINIT_STORE_APPEND);
	rq_key(c, key);
	rq_bytes(c, val, len);
	return rq_send(c, err);
}

void
mcinit_store_values_free(char **vals, size_t *lens, size_t n)
{
	size_t i;

	if (vals)
		for (i = 0; i < n; i++)
			free(vals[i]);
	free(vals);
	free(lens);
}

int
mcinit_store_multi_get(struct mcinit_store_client *c, const char *const *keys, size_t n,
                       char ***vals, size_t **lens, struct mcinit_err *err)
{
	size_t i;
	char **v;
	size_t *l;

	rq_begin(c, MCINIT_STORE_MULTI_GET);
	rq_keys(c, keys, n);
	if (rq_send(c, err) != 0)
		return -1;
	v = mcx_xcalloc(n ? n : 1, sizeof *v);
	l = mcx_xcalloc(n ? n : 1, sizeof *l);
	for (i = 0; i < n; i++) {
		v[i] = cl_recv_vec(c, &l[i], err);
		if (!v[i]) {
			mcinit_store_values_free(v, l, i);
			return -1;
		}
	}
	*vals = v;
	*lens = l;
	return 0;
}

int
mcinit_store_multi_set(struct mcinit_store_client *c, const char *const *keys,
                       const char *const *vals, const size_t *lens, size_t n,
                       struct mcinit_err *err)
{
	size_t i;

	rq_begin(c, MCINIT_STORE_MULTI_SET);
	rq_u64(c, n);
	for (i = 0; i < n; i++) {
		rq_key(c, keys[i]);
		rq_bytes(c, vals[i], lens[i]);
	}
	return rq_send(c, err);
}
