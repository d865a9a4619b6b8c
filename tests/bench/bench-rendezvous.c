/*
 * bench-rendezvous: N clients rendezvous on a store at HOST:PORT the way
 * ranks do: connect, VALIDATE and PING (waiting for the answer, as torch's
 * client does), set their own key, wait for all N keys, get key 0.  One
 * thread drives every client through non-blocking sockets, so the time
 * measured is the server's, not thread scheduling's; the same client runs
 * against any TCPStore-compatible server.  Prints "N SECONDS FAILURES".
 *
 * MODE "keys" (the default) waits for all N keys, N^2 keys for the server
 * in all; "count" is the barrier real launchers use: ADD a counter, the
 * client that completes it sets a "done" key, everyone waits for that one.
 *
 *   bench-rendezvous HOST PORT N [TIMEOUT_S] [keys|count]
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "store/store.h"
#include "core/util.h"

enum { S_CONNECT, S_PING, S_ADD, S_WAIT, S_GET, S_DONE };

struct cl {
	int fd, state;
	struct mcx_buf out;
	size_t off;
	unsigned char in[64];
	size_t inlen, want;
};

static struct sockaddr_in addr;
static int ep, n, count_mode;
static struct mcx_buf waitreq, getreq;

static void
add_str(struct mcx_buf *b, const char *s)
{
	uint64_t l = strlen(s);

	mcx_buf_add(b, &l, 8);
	mcx_buf_add(b, s, l);
}

static void
queue(struct cl *c, const void *p, size_t len, size_t want)
{
	c->out.len = 0;
	c->off = 0;
	mcx_buf_add(&c->out, p, len);
	c->inlen = 0;
	c->want = want;
}

static int
dial(struct cl *c)
{
	struct epoll_event ev = {.events = EPOLLOUT | EPOLLIN, .data.ptr = c};
	int one = 1;

	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(c->fd, (struct sockaddr *)&addr, sizeof addr) != 0 && errno != EINPROGRESS)
		return -1;
	c->state = S_CONNECT;
	return epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
}

static int
flush(struct cl *c)
{
	while (c->off < c->out.len) {
		ssize_t w = send(c->fd, c->out.data + c->off, c->out.len - c->off, MSG_NOSIGNAL);

		if (w < 0 && errno == EAGAIN)
			return 0;
		if (w <= 0)
			return -1;
		c->off += (size_t)w;
	}
	return 0;
}

/* Advances c; 1 when it is done, -1 on error. */
static int
step(struct cl *c, long i, uint32_t events)
{
	if (c->state == S_CONNECT) {
		int err = 0;
		socklen_t sl = sizeof err;
		unsigned char hello[10] = {0, 0xce, 0xf7, 0x85, 0x3c, 13};
		uint32_t nonce = (uint32_t)i;

		if (!(events & EPOLLOUT))
			return 0;
		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl);
		if (err)
			return -1;
		memcpy(hello + 6, &nonce, 4);
		queue(c, hello, sizeof hello, 4);
		c->state = S_PING;
	}
	if (flush(c) < 0)
		return -1;
	for (;;) {
		ssize_t r;

		if (c->inlen == c->want)
			break;
		r = recv(c->fd, c->in + c->inlen, c->want - c->inlen, 0);
		if (r < 0 && errno == EAGAIN)
			return 0;
		if (r <= 0)
			return -1;
		c->inlen += (size_t)r;
	}
	switch (c->state) {
	case S_PING: {
		struct mcx_buf b = {0};
		char key[32];

		snprintf(key, sizeof key, "/bench/%ld", i);
		mcx_buf_addc(&b, 1);
		add_str(&b, key);
		add_str(&b, "x");
		if (count_mode) {
			int64_t one = 1;

			mcx_buf_addc(&b, 4);
			add_str(&b, "/bench/count");
			mcx_buf_add(&b, &one, 8);
			queue(c, b.data, b.len, 8);
			c->state = S_ADD;
		} else {
			mcx_buf_add(&b, waitreq.data, waitreq.len);
			queue(c, b.data, b.len, 1);
			c->state = S_WAIT;
		}
		mcx_buf_free(&b);
		return flush(c);
	}
	case S_ADD: {
		int64_t v;
		struct mcx_buf b = {0};

		memcpy(&v, c->in, 8);
		if (v == n) { /* the last one in opens the barrier */
			mcx_buf_addc(&b, 1);
			add_str(&b, "/bench/done");
			add_str(&b, "1");
		}
		mcx_buf_add(&b, waitreq.data, waitreq.len);
		queue(c, b.data, b.len, 1);
		mcx_buf_free(&b);
		c->state = S_WAIT;
		return flush(c);
	}
	case S_WAIT:
		queue(c, getreq.data, getreq.len, 9);
		c->state = S_GET;
		return flush(c);
	case S_GET:
		c->state = S_DONE;
		close(c->fd);
		return 1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct cl *cs;
	struct rlimit rl;
	double t0, deadline;
	long i, done = 0, failures = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: bench-rendezvous HOST PORT N [TIMEOUT_S]\n");
		return 64;
	}
	addr.sin_family = AF_INET;
	addr.sin_port = htons((uint16_t)atoi(argv[2]));
	if (inet_pton(AF_INET, argv[1], &addr.sin_addr) != 1) {
		fprintf(stderr, "bench-rendezvous: HOST must be an IPv4 address\n");
		return 64;
	}
	n = atoi(argv[3]);
	count_mode = argc > 5 && strcmp(argv[5], "count") == 0;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
	mcx_buf_addc(&waitreq, 6);
	{
		uint64_t k = count_mode ? 1 : (uint64_t)n;

		mcx_buf_add(&waitreq, &k, 8);
	}
	if (count_mode)
		add_str(&waitreq, "/bench/done");
	for (i = 0; i < n && !count_mode; i++) {
		char key[32];

		snprintf(key, sizeof key, "/bench/%ld", i);
		add_str(&waitreq, key);
	}
	mcx_buf_addc(&getreq, 3);
	add_str(&getreq, "/bench/0");
	cs = calloc((size_t)n, sizeof *cs);
	ep = epoll_create1(0);
	t0 = mcinit_now();
	deadline = t0 + (argc > 4 ? atof(argv[4]) : 120);
	for (i = 0; i < n; i++)
		if (dial(&cs[i]) < 0)
			failures++;
	while (done + failures < n && mcinit_now() < deadline) {
		struct epoll_event evs[256];
		int k, m = epoll_wait(ep, evs, 256, 100);

		for (k = 0; k < m; k++) {
			struct cl *c = evs[k].data.ptr;
			int rc = step(c, c - cs, evs[k].events);

			if (rc > 0)
				done++;
			if (rc < 0) {
				/* refused (a backlog overflow, a server not up yet): again */
				epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
				close(c->fd);
				if (c->state != S_CONNECT || dial(c) < 0) {
					c->state = S_DONE;
					failures++;
				}
			}
		}
	}
	printf("%d %.4f %ld\n", n, mcinit_now() - t0, n - done);
	return done == n ? 0 : 1;
}
