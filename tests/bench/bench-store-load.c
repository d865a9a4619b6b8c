/*
 * bench-store-load: N clients of one TCPStore-compatible store, all driven
 * by one thread, replaying a whole rendezvous so that what is timed is the
 * store.  PATTERN is
 *
 *   run    mcinit run's own (lib/run/init.c): VALIDATE and PING, then the
 *          rounds rdzv, groups and ready, each led by the rank's phase keys
 *          (mcinit/phase/R): every rank sets mcinit/ROUND/R; rank 0 waits
 *          for all N keys, reads them in MULTI_GETs of 8,192 (gather) and
 *          sets mcinit/ROUND/verdict; every other rank waits for the verdict
 *          and reads it; then depart: every rank but 0 ADDs mcinit/depart,
 *          the last sets mcinit/departed, which rank 0 waits for;
 *   torch  init_process_group's: VALIDATE and PING, ADD on torch's init/
 *          counter (TCPStore's wait-for-workers), the store-based barrier
 *          (ADD 1, ADD 0 to read the count, the last in sets
 *          KEY:last_worker, everyone waits for it), then rank 0 sets its
 *          NCCL unique id (128 bytes) and every other rank waits for it and
 *          reads it.
 *
 * Both are O(N) requests at the store.  TRANSPORT is HOST PORT (loopback
 * sockets under epoll; each client binds its own 127.x source address, so
 * that the ephemeral ports of earlier runs in TIME_WAIT do not run out), or
 * "local": an in-process server fed through sessions (store.h), no socket,
 * for a world larger than the descriptors a machine lets one process open.
 *
 * Prints "PATTERN N SECONDS FAILED STORE_BYTES": STORE_BYTES is the local
 * server's peak count of what it holds (keys, values, buffers); "-" over
 * sockets, where the caller reads the server process's VmHWM.
 *
 * FAULT_PCT (sockets only) makes that share of the N clients misbehave, in
 * turn: close in the middle of a request, send garbage, or send half a
 * request and stall until the end.  The others are the world the pattern
 * runs with, and must all complete; the line ends with
 * "faults: CLOSED GARBAGE STALLED".
 *
 *   bench-store-load run|torch N HOST PORT [TIMEOUT_S [FAULT_PCT]]
 *   bench-store-load run|torch N local [TIMEOUT_S]
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "store/store.h"
#include "store/wire.h"

#ifndef IP_BIND_ADDRESS_NO_PORT
#define IP_BIND_ADDRESS_NO_PORT 24
#endif

enum reply { R_U8, R_U32, R_I64, R_VEC };
enum { GATHER_CHUNK = 8192, ROUNDS = 3, DIAL_AHEAD = 256 };

struct cl {
	long id;   /* its index among all clients (its source address) */
	long rank; /* its rank in the world (a misbehaving client has none) */
	int fd;    /* -1: not connected (or a session) */
	struct mcinit_store_session *ss;
	int step;        /* where the client is in its pattern */
	long chunk;      /* rank 0's next gather chunk */
	int64_t last;    /* the last ADD's result */
	enum reply kind; /* what each awaited reply is */
	long awaited;    /* replies still to come */
	bool done, failed;
	int fault; /* enum fault: how a misbehaving client misbehaves */
	struct mcx_buf out, in;
	size_t off;
};

enum fault { F_NONE, F_CLOSE, F_GARBAGE, F_STALL };

static long n; /* the world: the well-behaved clients */
static bool torch;
static const char *const round_names[ROUNDS] = {"rdzv", "groups", "ready"};
/* The phases a rank begins before each round's SET (mcinit_ph_begin). */
static const char *const round_phases[ROUNDS][2] = {
    {"rendezvous", NULL}, {"device", "groups"}, {"seeds", "ready"}};
static const size_t round_payload[ROUNDS] = {160, 256, 768};

/* ---- requests ---- */

/* mcinit/ROUND/R, as a length-prefixed key. */
static void
rq_round_key(struct mcx_buf *b, int round, long r)
{
	char key[96];
	int len = snprintf(key, sizeof key, "/mcinit/%s/%ld", round_names[round], r);

	mcinit_store_wr_vec(b, key, (size_t)len);
}

static void
rq_set(struct cl *c, const char *key, const void *v, size_t vl)
{
	mcx_buf_addc(&c->out, MCINIT_STORE_SET);
	mcinit_store_wr_vec(&c->out, key, strlen(key));
	mcinit_store_wr_vec(&c->out, v, vl);
}

static void
rq_one_key(struct cl *c, unsigned cmd, const char *key)
{
	mcx_buf_addc(&c->out, (char)cmd);
	if (cmd == MCINIT_STORE_WAIT)
		mcinit_store_wr_u64(&c->out, 1);
	mcinit_store_wr_vec(&c->out, key, strlen(key));
}

static void
rq_add(struct cl *c, const char *key, int64_t d)
{
	rq_one_key(c, MCINIT_STORE_ADD, key);
	mcinit_store_wr_u64(&c->out, (uint64_t)d);
}

static void
expect(struct cl *c, enum reply kind, long count)
{
	c->kind = kind;
	c->awaited = count;
}

static void
hello(struct cl *c)
{
	uint32_t magic = MCINIT_STORE_MAGIC, nonce = (uint32_t)c->rank;

	mcx_buf_addc(&c->out, MCINIT_STORE_VALIDATE);
	mcx_buf_add(&c->out, &magic, sizeof magic);
	mcx_buf_addc(&c->out, MCINIT_STORE_PING);
	mcx_buf_add(&c->out, &nonce, sizeof nonce);
	expect(c, R_U32, 1);
}

/* ---- mcinit run's rounds ---- */

static void
verdict_key(char *key, size_t size, int round)
{
	snprintf(key, size, "/mcinit/%s/verdict", round_names[round]);
}

/* A round begins: the phase keys, the rank's own value, and the wait
 * (rank 0: for every rank's key; the others: for the verdict). */
static void
run_arrive(struct cl *c, int round)
{
	char key[96], payload[1024];
	long r;

	memset(payload, 'x', sizeof payload);
	for (int i = 0; i < 2 && round_phases[round][i]; i++) {
		snprintf(key, sizeof key, "/mcinit/phase/%ld", c->rank);
		rq_set(c, key, round_phases[round][i], strlen(round_phases[round][i]));
	}
	snprintf(key, sizeof key, "/mcinit/%s/%ld", round_names[round], c->rank);
	rq_set(c, key, payload, round_payload[round]);
	if (c->rank != 0) {
		verdict_key(key, sizeof key, round);
		rq_one_key(c, MCINIT_STORE_WAIT, key);
	} else {
		mcx_buf_addc(&c->out, MCINIT_STORE_WAIT);
		mcinit_store_wr_u64(&c->out, (uint64_t)n);
		for (r = 0; r < n; r++)
			rq_round_key(&c->out, round, r);
	}
	expect(c, R_U8, 1);
	c->chunk = 0;
}

/* Rank 0 reads the round's values, a chunk at a time (gather). */
static void
run_gather(struct cl *c, int round)
{
	long r, end = c->chunk + GATHER_CHUNK < n ? c->chunk + GATHER_CHUNK : n;

	mcx_buf_addc(&c->out, MCINIT_STORE_MULTI_GET);
	mcinit_store_wr_u64(&c->out, (uint64_t)(end - c->chunk));
	for (r = c->chunk; r < end; r++)
		rq_round_key(&c->out, round, r);
	expect(c, R_VEC, end - c->chunk);
	c->chunk = end;
}

static void
run_depart(struct cl *c)
{
	char key[96];

	if (c->rank != 0) {
		rq_add(c, "/mcinit/depart", 1);
		expect(c, R_I64, 1);
		return;
	}
	verdict_key(key, sizeof key, ROUNDS - 1);
	rq_set(c, key, "0:ok", 4);
	if (n == 1)
		return; /* nobody else to wait for */
	rq_one_key(c, MCINIT_STORE_WAIT, "/mcinit/departed");
	expect(c, R_U8, 1);
}

/* Steps: 0 hello; per round 1 + 2k arrive, 2 + 2k gather or read the
 * verdict; then depart, and the last to depart opens rank 0's wait. */
static void
run_next(struct cl *c)
{
	int round = (c->step - 1) / 2;
	char key[96];

	if (c->step == 0) {
		hello(c);
	} else if (round < ROUNDS && c->step % 2 == 1) {
		if (c->rank == 0 && round > 0) {
			verdict_key(key, sizeof key, round - 1);
			rq_set(c, key, "0:ok", 4);
		}
		run_arrive(c, round);
	} else if (round < ROUNDS && c->rank == 0) {
		run_gather(c, round);
		if (c->chunk < n)
			c->step--; /* more chunks */
	} else if (round < ROUNDS) {
		verdict_key(key, sizeof key, round);
		rq_one_key(c, MCINIT_STORE_GET, key);
		expect(c, R_VEC, 1);
	} else if (round == ROUNDS && c->step % 2 == 1) {
		run_depart(c);
	} else {
		if (c->rank != 0 && c->last == n - 1)
			rq_set(c, "/mcinit/departed", "1", 1);
		c->done = true;
	}
}

/* ---- torch's init_process_group ---- */

#define BARRIER "/store_based_barrier_key:1"
#define NCCL_ID "/default_pg/0//nccl/0"

static void
torch_next(struct cl *c)
{
	static const char id[128];

	switch (c->step) {
	case 0:
		hello(c);
		break;
	case 1: /* TCPStore's wait for workers: every client counts itself */
		rq_add(c, MCINIT_STORE_INIT_KEY, 1);
		expect(c, R_I64, 1);
		break;
	case 2:
		rq_add(c, BARRIER, 1);
		expect(c, R_I64, 1);
		break;
	case 3:
		rq_add(c, BARRIER, 0);
		expect(c, R_I64, 1);
		break;
	case 4:
		if (c->last == n)
			rq_set(c, BARRIER ":last_worker", "1", 1);
		rq_one_key(c, MCINIT_STORE_WAIT, BARRIER ":last_worker");
		expect(c, R_U8, 1);
		break;
	case 5:
		if (c->rank == 0) {
			rq_set(c, NCCL_ID, id, sizeof id);
			c->done = true;
			break;
		}
		rq_one_key(c, MCINIT_STORE_WAIT, NCCL_ID);
		expect(c, R_U8, 1);
		break;
	case 6:
		rq_one_key(c, MCINIT_STORE_GET, NCCL_ID);
		expect(c, R_VEC, 1);
		break;
	default:
		c->done = true;
	}
}

/* ---- replies ---- */

/* Consumes the replies c->in holds; -1 when one is malformed. */
static int
take_replies(struct cl *c)
{
	struct rd r = {c->in.data, c->in.len, 0};

	while (c->awaited > 0) {
		size_t before = r.off, sz = c->kind == R_U8 ? 1 : c->kind == R_U32 ? 4 : 8;
		const char *p;
		size_t len;
		int64_t v = 0;
		int rc = c->kind == R_VEC ? mcinit_store_rd_str(&r, SIZE_MAX, &p, &len)
		                          : mcinit_store_rd_raw(&r, &v, sz);

		if (rc == P_MORE) {
			r.off = before;
			break;
		}
		if (rc != P_OK)
			return -1;
		if (c->kind == R_I64)
			c->last = v;
		c->awaited--;
	}
	memmove(c->in.data, c->in.data + r.off, c->in.len - r.off);
	c->in.len -= r.off;
	return 0;
}

/* Moves c on while its replies are in: 1 when it has a request to send. */
static int
progress(struct cl *c)
{
	if (take_replies(c) < 0) {
		c->failed = true;
		return 0;
	}
	while (!c->done && c->awaited == 0 && c->out.len == 0) {
		if (torch)
			torch_next(c);
		else
			run_next(c);
		c->step++;
	}
	return c->out.len > c->off;
}

/* ---- transport: loopback sockets ---- */

static struct sockaddr_in server_addr;
static int ep;
static unsigned src_net; /* the second octet of the clients' 127.x.y.z */

static int
dial(struct cl *c)
{
	struct epoll_event ev = {.events = EPOLLIN | EPOLLOUT | EPOLLET, .data.ptr = c};
	struct sockaddr_in src = {.sin_family = AF_INET};
	int one = 1;

	src.sin_addr.s_addr = htonl((127u << 24) | (src_net << 16) |
	                            (unsigned)(1 + c->id / 250) << 8 | (unsigned)(1 + c->id % 250));
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one, sizeof one);
	if (bind(c->fd, (struct sockaddr *)&src, sizeof src) != 0 ||
	    (connect(c->fd, (struct sockaddr *)&server_addr, sizeof server_addr) != 0 &&
	     errno != EINPROGRESS))
		return -1;
	return epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev);
}

static int
sock_flush(struct cl *c)
{
	while (c->off < c->out.len) {
		ssize_t w = send(c->fd, c->out.data + c->off, c->out.len - c->off, MSG_NOSIGNAL);

		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (w <= 0)
			return -1;
		c->off += (size_t)w;
	}
	c->out.len = c->off = 0;
	return 0;
}

static int
sock_read(struct cl *c)
{
	for (;;) {
		ssize_t r;

		mcx_buf_reserve(&c->in, 16384);
		r = recv(c->fd, c->in.data + c->in.len, 16384, 0);
		if (r < 0 && errno == EAGAIN)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c->in.len += (size_t)r;
		if (r < 16384)
			return 0; /* drained: whatever comes next is a new edge */
	}
}

/* A misbehaving client, once connected: the handshake, then half a SET
 * (whose key length says 100 bytes) and a close, or the same half and a
 * stall, or a byte no command has. */
static void
misbehave(struct cl *c)
{
	static const char half_set[] = {MCINIT_STORE_SET, 100, 0, 0, 0, 0, 0, 0, 0, '/', 'k'};
	static const char garbage[] = {(char)0xee, 'g', 'a', 'r', 'b', 'a', 'g', 'e'};

	hello(c);
	if (c->fault == F_GARBAGE)
		mcx_buf_add(&c->out, garbage, sizeof garbage);
	else
		mcx_buf_add(&c->out, half_set, sizeof half_set);
	if (sock_flush(c) < 0 || c->fault != F_STALL) {
		close(c->fd);
		c->fd = -1;
	} else {
		epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL); /* held open until the end */
	}
	c->done = true;
}

/* One event on c's socket: sends what it can, reads what came, and moves
 * on while the replies are in; a request the socket cannot take yet waits
 * for the next EPOLLOUT. */
static void
sock_event(struct cl *c)
{
	if (c->fault) {
		misbehave(c);
		return;
	}
	for (;;) {
		if (sock_flush(c) < 0 || sock_read(c) < 0) {
			c->failed = true;
			break;
		}
		if (c->out.len > c->off || !progress(c))
			break;
	}
	if (c->failed || (c->done && c->out.len == 0)) {
		close(c->fd);
		c->fd = -1;
	}
}

static void
raise_nofile(void)
{
	struct rlimit rl;

	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_cur = rl.rlim_max;
	setrlimit(RLIMIT_NOFILE, &rl);
}

static long total; /* clients: the world and the misbehaving ones */

/* Dials at most DIAL_AHEAD clients ahead of those whose handshake is
 * answered, so that the store's accept backlog (net.core.somaxconn) never
 * overflows: a SYN dropped on loopback is retried only a second later.
 * Ends when every client of the world is done or failed: what did not
 * finish by the deadline counts as failed. */
static long
sock_run(struct cl *cs, double deadline)
{
	long next = 0, shaking = 0, finished = 0, failed = 0;

	ep = epoll_create1(EPOLL_CLOEXEC);
	while (finished < n && mcinit_now() < deadline) {
		struct epoll_event evs[512];
		int k, m;

		for (; next < total && shaking < DIAL_AHEAD; next++, shaking++)
			if (dial(&cs[next]) < 0)
				cs[next].failed = true, shaking--, finished += !cs[next].fault,
				failed += !cs[next].fault;
		m = epoll_wait(ep, evs, 512, 100);
		for (k = 0; k < m; k++) {
			struct cl *c = evs[k].data.ptr;
			bool shook = c->step > 1 || c->done;

			if (c->fd < 0 || (c->fault && c->done))
				continue;
			sock_event(c);
			if (!shook && (c->step > 1 || c->done || c->fd < 0))
				shaking--;
			if (!c->fault && c->fd < 0)
				finished++, failed += c->failed;
		}
	}
	return failed + (n - finished);
}

/* ---- transport: in-process sessions ---- */

static struct mcinit_store_server *local_srv;
static size_t local_peak;

/* Hands c's request (or nothing: a poll for wake-ups) to its session. */
static void
local_feed(struct cl *c)
{
	struct mcinit_store_stats st;

	if (mcinit_store_session_feed(c->ss, c->out.data + c->off, c->out.len - c->off, &c->in) < 0)
		c->failed = true;
	c->out.len = c->off = 0;
	mcinit_store_server_stats(local_srv, &st);
	if (st.memory > local_peak)
		local_peak = st.memory;
}

/* Drives c as far as it goes without waiting: 1 if it moved. */
static int
local_drive(struct cl *c)
{
	size_t had = c->in.len;
	int step = c->step;

	local_feed(c);
	if (c->in.len == had && c->step == step && c->awaited > 0)
		return 0;
	while (!c->failed && progress(c))
		local_feed(c);
	return 1;
}

/* Runs every client until it waits, then polls the waiting ones for their
 * wake-ups; a pass that moves nobody ends it.  A pass is O(N), and a
 * rendezvous needs a few per barrier. */
static long
local_run(struct cl *cs, double deadline)
{
	long i, left = n, failed = 0;
	bool moved = true;

	local_srv = mcinit_store_server_local(NULL, NULL);
	for (i = 0; i < n; i++) {
		cs[i].ss = mcinit_store_session_new(local_srv);
		progress(&cs[i]);
	}
	while (moved && left > 0 && mcinit_now() < deadline) {
		moved = false;
		for (i = 0; i < n; i++) {
			struct cl *c = &cs[i];

			if (c->done || c->failed)
				continue;
			moved |= local_drive(c) != 0;
			if (c->done || c->failed)
				left--, failed += c->failed;
		}
	}
	return failed + left;
}

/* Every 100/pct-th client but the first misbehaves, the three ways in
 * turn; the others are ranks 0 to n - 1. */
static struct cl *
clients(long pct)
{
	struct cl *cs = mcx_xcalloc((size_t)total, sizeof *cs);
	long i, every = pct > 0 ? 100 / pct : 0, r = 0, f = 0;

	for (i = 0; i < total; i++) {
		cs[i].id = i;
		cs[i].fd = -1;
		if (every > 0 && i % every == every - 1)
			cs[i].fault = F_CLOSE + (int)(f++ % 3);
		else
			cs[i].rank = r++;
	}
	n = r;
	return cs;
}

static void
print_faults(const struct cl *cs)
{
	long k[4] = {0, 0, 0, 0}, i;

	for (i = 0; i < total; i++)
		k[cs[i].fault]++;
	if (k[F_CLOSE] + k[F_GARBAGE] + k[F_STALL] > 0)
		printf(" faults: %ld %ld %ld", k[F_CLOSE], k[F_GARBAGE], k[F_STALL]);
	printf("\n");
}

int
main(int argc, char **argv)
{
	bool local = argc >= 4 && strcmp(argv[3], "local") == 0;
	int targ = local ? 4 : 5;
	struct cl *cs;
	double t0, timeout;
	long i, failed;

	if (argc < targ || (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "torch") != 0)) {
		fprintf(stderr, "usage: bench-store-load run|torch N (HOST PORT [TIMEOUT_S "
		                "[FAULT_PCT]]|local [TIMEOUT_S])\n");
		return 64;
	}
	torch = strcmp(argv[1], "torch") == 0;
	total = atol(argv[2]);
	timeout = argc > targ ? atof(argv[targ]) : 120;
	if (!local) {
		server_addr.sin_family = AF_INET;
		server_addr.sin_port = htons((uint16_t)atoi(argv[4]));
		if (inet_pton(AF_INET, argv[3], &server_addr.sin_addr) != 1) {
			fprintf(stderr, "bench-store-load: HOST must be an IPv4 address\n");
			return 64;
		}
		src_net = 1 + (unsigned)getpid() % 250;
		raise_nofile();
	}
	cs = clients(!local && argc > targ + 1 ? atol(argv[targ + 1]) : 0);
	t0 = mcinit_now();
	failed = local ? local_run(cs, t0 + timeout) : sock_run(cs, t0 + timeout);
	if (local)
		printf("%s %ld %.4f %ld %zu", argv[1], total, mcinit_now() - t0, failed,
		       local_peak);
	else
		printf("%s %ld %.4f %ld -", argv[1], total, mcinit_now() - t0, failed);
	print_faults(cs);
	for (i = 0; i < total && local; i++)
		mcinit_store_session_free(cs[i].ss);
	mcinit_store_server_free(local_srv);
	for (i = 0; i < total; i++) {
		if (cs[i].fd >= 0)
			close(cs[i].fd);
		mcx_buf_free(&cs[i].out);
		mcx_buf_free(&cs[i].in);
	}
	free(cs);
	return failed == 0 ? 0 : 1;
}
