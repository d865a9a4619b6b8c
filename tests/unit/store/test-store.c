/*
 * Unit tests: the TCPStore-compatible store.  Byte-level frames for every
 * command (the bytes torch's client sends and expects back, written out
 * here by hand from the wire format), garbage, silent clients, a flood of
 * connections, the job token, and mcinit's own client.
 */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "store/store.h"

static struct mcinit_store_server *srv;

static void
serve(const char *token, double silent)
{
	struct mcinit_err err = {0};
	struct mcinit_store_limits lim;

	mcinit_store_limits_default(&lim);
	lim.silent_timeout = silent;
	lim.max_memory = 64u << 20;
	srv = mcinit_store_server_new("127.0.0.1", 0, token, &lim, &err);
	cr_assert_not_null(srv, "%s", err.msg);
	cr_assert_eq(mcinit_store_server_start(srv, &err), 0);
}

static void
serve_plain(void)
{
	serve(NULL, 30);
}

static void
stop(void)
{
	mcinit_store_server_free(srv);
	srv = NULL;
}

static int
dial(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	a.sin_port = htons((uint16_t)mcinit_store_server_port(srv));
	a.sin_addr.s_addr = htonl(0x7f000001);
	cr_assert_eq(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
	return fd;
}

/* Frame builder: a command byte, u64-length strings, raw integers. */
struct fr {
	unsigned char b[4096];
	size_t n;
};
static void
f_u8(struct fr *f, unsigned v)
{
	f->b[f->n++] = (unsigned char)v;
}
static void
f_raw(struct fr *f, const void *p, size_t n)
{
	memcpy(f->b + f->n, p, n);
	f->n += n;
}
static void
f_str(struct fr *f, const char *s)
{
	uint64_t l = strlen(s);

	f_raw(f, &l, 8);
	f_raw(f, s, strlen(s));
}
static void
f_u64(struct fr *f, uint64_t v)
{
	f_raw(f, &v, 8);
}

static void
send_fr(int fd, const struct fr *f)
{
	cr_assert_eq(send(fd, f->b, f->n, MSG_NOSIGNAL), (ssize_t)f->n);
}

/* Reads exactly n bytes within 2 s; returns how many came. */
static size_t
recv_n(int fd, void *p, size_t n, int ms)
{
	size_t got = 0;

	while (got < n) {
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		ssize_t r;

		if (poll(&pf, 1, ms) <= 0)
			break;
		r = recv(fd, (char *)p + got, n - got, 0);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

static void
expect(int fd, const void *want, size_t n)
{
	unsigned char got[4096];

	cr_assert_eq(recv_n(fd, got, n, 2000), n, "short reply");
	cr_assert_arr_eq(got, want, n);
}

/* The connection was closed by the server (EOF within 2 s). */
static int
closed(int fd)
{
	char c;
	struct pollfd pf = {.fd = fd, .events = POLLIN};

	if (poll(&pf, 1, 2000) <= 0)
		return 0;
	return recv(fd, &c, 1, 0) <= 0;
}

static const unsigned char VALIDATE[] = {0x00, 0xce, 0xf7, 0x85, 0x3c};

TestSuite(store, .init = serve_plain, .fini = stop, .timeout = 20);

Test(store, validate_then_ping_golden)
{
	int fd = dial();
	static const unsigned char ping[] = {0x0d, 0x78, 0x56, 0x34, 0x12};
	static const unsigned char pong[] = {0x78, 0x56, 0x34, 0x12};

	cr_assert_eq(send(fd, VALIDATE, 5, 0), 5);
	cr_assert_eq(send(fd, ping, 5, 0), 5);
	expect(fd, pong, 4);
	close(fd);
}

Test(store, set_get_golden)
{
	int fd = dial();
	/* SET "/k" = "vv" (no reply), then GET "/k" -> u64 2, "vv" */
	static const unsigned char set[] = {1, 2, 0, 0, 0, 0, 0, 0, 0,   '/', 'k',
	                                    2, 0, 0, 0, 0, 0, 0, 0, 'v', 'v'};
	static const unsigned char get[] = {3, 2, 0, 0, 0, 0, 0, 0, 0, '/', 'k'};
	static const unsigned char rep[] = {2, 0, 0, 0, 0, 0, 0, 0, 'v', 'v'};
	static const unsigned char empty[] = {0, 0, 0, 0, 0, 0, 0, 0};
	static const unsigned char getmiss[] = {3, 2, 0, 0, 0, 0, 0, 0, 0, '/', 'x'};

	cr_assert_eq(send(fd, set, sizeof set, 0), (ssize_t)sizeof set);
	cr_assert_eq(send(fd, get, sizeof get, 0), (ssize_t)sizeof get);
	expect(fd, rep, sizeof rep);
	cr_assert_eq(send(fd, getmiss, sizeof getmiss, 0), (ssize_t)sizeof getmiss);
	expect(fd, empty, sizeof empty); /* a missing key reads empty (libuv server) */
	close(fd);
}

Test(store, add_golden_and_text_form)
{
	int fd = dial();
	struct fr f = {0};
	int64_t d = 5, m = -7;
	static const unsigned char five[] = {5, 0, 0, 0, 0, 0, 0, 0};
	static const unsigned char minus2[] = {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
	static const unsigned char text[] = {2, 0, 0, 0, 0, 0, 0, 0, '-', '2'};

	f_u8(&f, 4);
	f_str(&f, "/n");
	f_raw(&f, &d, 8);
	send_fr(fd, &f);
	expect(fd, five, 8);
	f.n = 0;
	f_u8(&f, 4);
	f_str(&f, "/n");
	f_raw(&f, &m, 8);
	f_u8(&f, 3);
	f_str(&f, "/n");
	send_fr(fd, &f);
	expect(fd, minus2, 8);
	expect(fd, text, sizeof text); /* stored as ASCII decimal */
	close(fd);
}

Test(store, add_on_text_drops_connection_only)
{
	int fd = dial(), fd2;
	struct fr f = {0};
	int64_t d = 1;

	f_u8(&f, 1);
	f_str(&f, "/t");
	f_str(&f, "abc");
	f_u8(&f, 4);
	f_str(&f, "/t");
	f_raw(&f, &d, 8);
	send_fr(fd, &f);
	cr_assert(closed(fd));
	close(fd);
	fd2 = dial(); /* the server lives on */
	f.n = 0;
	f_u8(&f, 7);
	send_fr(fd2, &f);
	{
		static const unsigned char one[] = {1, 0, 0, 0, 0, 0, 0, 0};
		expect(fd2, one, 8);
	}
	close(fd2);
}

Test(store, compare_set_golden)
{
	int fd = dial();
	struct fr f = {0};
	static const unsigned char rx[] = {1, 0, 0, 0, 0, 0, 0, 0, 'x'};
	static const unsigned char rn[] = {1, 0, 0, 0, 0, 0, 0, 0, 'n'};
	static const unsigned char rm[] = {1, 0, 0, 0, 0, 0, 0, 0, 'm'};

	/* missing key, non-empty expected: returns expected, stores nothing */
	f_u8(&f, 2);
	f_str(&f, "/c");
	f_str(&f, "x");
	f_str(&f, "y");
	/* missing key, empty expected: creates */
	f_u8(&f, 2);
	f_str(&f, "/c");
	f_str(&f, "");
	f_str(&f, "n");
	/* wrong expected: unchanged; right expected: swapped */
	f_u8(&f, 2);
	f_str(&f, "/c");
	f_str(&f, "q");
	f_str(&f, "z");
	f_u8(&f, 2);
	f_str(&f, "/c");
	f_str(&f, "n");
	f_str(&f, "m");
	send_fr(fd, &f);
	expect(fd, rx, sizeof rx);
	expect(fd, rn, sizeof rn);
	expect(fd, rn, sizeof rn);
	expect(fd, rm, sizeof rm);
	close(fd);
}

Test(store, check_wait_stop_waiting_golden)
{
	int a = dial(), b = dial();
	struct fr f = {0};
	unsigned char r;
	static const unsigned char notready[] = {1};
	static const unsigned char ready[] = {0};

	f_u8(&f, 5);
	f_u64(&f, 1);
	f_str(&f, "/w");
	send_fr(a, &f);
	expect(a, notready, 1);
	f.n = 0;
	f_u8(&f, 6); /* WAIT: deferred reply */
	f_u64(&f, 2);
	f_str(&f, "/w");
	f_str(&f, "/w2");
	send_fr(a, &f);
	cr_assert_eq(recv_n(a, &r, 1, 200), 0, "WAIT answered before its keys exist");
	f.n = 0;
	f_u8(&f, 1);
	f_str(&f, "/w");
	f_str(&f, "1");
	send_fr(b, &f);
	cr_assert_eq(recv_n(a, &r, 1, 200), 0, "WAIT answered with one key of two");
	f.n = 0;
	f_u8(&f, 11); /* MULTI_SET sets the second */
	f_u64(&f, 1);
	f_str(&f, "/w2");
	f_str(&f, "2");
	send_fr(b, &f);
	expect(a, ready, 1); /* STOP_WAITING = 0 */
	close(a);
	close(b);
}

Test(store, cancel_wait_golden)
{
	int a = dial();
	struct fr f = {0};
	static const unsigned char canceled[] = {1};

	f_u8(&f, 6);
	f_u64(&f, 1);
	f_str(&f, "/never");
	f_u8(&f, 12);
	send_fr(a, &f);
	expect(a, canceled, 1);
	close(a);
}

Test(store, numkeys_delete_append_multiget_golden)
{
	int fd = dial();
	struct fr f = {0};
	static const unsigned char two[] = {2, 0, 0, 0, 0, 0, 0, 0};
	static const unsigned char one[] = {1, 0, 0, 0, 0, 0, 0, 0};
	static const unsigned char zero[] = {0, 0, 0, 0, 0, 0, 0, 0};
	static const unsigned char mg[] = {3,   0, 0, 0, 0, 0, 0, 0, 'a', 'b',
	                                   'c', 0, 0, 0, 0, 0, 0, 0, 0};

	f_u8(&f, 1);
	f_str(&f, "/a");
	f_str(&f, "a");
	f_u8(&f, 9); /* APPEND */
	f_str(&f, "/a");
	f_str(&f, "bc");
	f_u8(&f, 1);
	f_str(&f, "/b");
	f_str(&f, "");
	f_u8(&f, 7); /* GETNUMKEYS */
	f_u8(&f, 8); /* DELETE_KEY /b -> 1, again -> 0 */
	f_str(&f, "/b");
	f_u8(&f, 8);
	f_str(&f, "/b");
	f_u8(&f, 10); /* MULTI_GET /a /b */
	f_u64(&f, 2);
	f_str(&f, "/a");
	f_str(&f, "/b");
	send_fr(fd, &f);
	expect(fd, two, 8);
	expect(fd, one, 8);
	expect(fd, zero, 8);
	expect(fd, mg, sizeof mg);
	close(fd);
}

Test(store, queue_golden)
{
	int fd = dial();
	struct fr f = {0};
	static const unsigned char two[] = {2, 0, 0, 0, 0, 0, 0, 0};
	static const unsigned char pop[] = {2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 'x'};
	static const unsigned char pop1[] = {1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 'y'};

	f_u8(&f, 14);
	f_str(&f, "/q");
	f_str(&f, "x");
	f_u8(&f, 14);
	f_str(&f, "/q");
	f_str(&f, "y");
	f_u8(&f, 16);
	f_str(&f, "/q");
	f_u8(&f, 15);
	f_str(&f, "/q");
	f_u8(&f, 15);
	f_str(&f, "/q");
	f_u8(&f, 15);
	f_str(&f, "/q");
	send_fr(fd, &f);
	expect(fd, two, 8);
	expect(fd, pop, sizeof pop);
	expect(fd, pop1, sizeof pop1);
	{
		static const unsigned char zero[] = {0, 0, 0, 0, 0, 0, 0, 0};
		expect(fd, zero, 8);
	}
	close(fd);
}

Test(store, frames_split_byte_by_byte)
{
	int fd = dial();
	struct fr f = {0};
	size_t i;
	static const unsigned char rep[] = {3, 0, 0, 0, 0, 0, 0, 0, 'a', 'b', 'c'};

	f_u8(&f, 1);
	f_str(&f, "/s");
	f_str(&f, "abc");
	f_u8(&f, 3);
	f_str(&f, "/s");
	for (i = 0; i < f.n; i++) {
		cr_assert_eq(send(fd, f.b + i, 1, 0), 1);
		usleep(200);
	}
	expect(fd, rep, sizeof rep);
	close(fd);
}

static void
garbage(const struct fr *f)
{
	int fd = dial(), ok;
	struct mcinit_err err = {0};
	struct mcinit_store_client *c;

	send_fr(fd, f);
	cr_assert(closed(fd), "garbage was not answered by a close");
	close(fd);
	c = mcinit_store_client_new("127.0.0.1", mcinit_store_server_port(srv), mcinit_now() + 5,
	                            &err);
	cr_assert_not_null(c, "server died: %s", err.msg);
	ok = mcinit_store_set(c, "alive", "1", 1, &err);
	cr_assert_eq(ok, 0);
	mcinit_store_client_free(c);
}

Test(store, unknown_command_costs_the_connection)
{
	struct fr f = {0};
	struct mcinit_store_stats st;

	f_u8(&f, 200);
	garbage(&f);
	mcinit_store_server_stats(srv, &st);
	cr_assert_eq(st.malformed, 1, "counted %llu malformed", st.malformed);
	cr_assert_eq(st.truncated + st.silent + st.refused + st.turned_away, 0);
}

Test(store, oversized_key_costs_the_connection)
{
	struct fr f = {0};

	f_u8(&f, 1);
	f_u64(&f, 1ull << 40);
	garbage(&f);
}

Test(store, too_many_keys_costs_the_connection)
{
	struct fr f = {0};

	f_u8(&f, 6);
	f_u64(&f, 1ull << 62);
	garbage(&f);
}

Test(store, bad_magic_costs_the_connection)
{
	struct fr f = {0};
	uint32_t m = 0xdeadbeef;

	f_u8(&f, 0);
	f_raw(&f, &m, 4);
	garbage(&f);
}

Test(store, half_closed_and_flood)
{
	int fds[300], i;
	struct mcinit_store_stats st;
	struct mcinit_err err = {0};
	struct mcinit_store_client *c;

	for (i = 0; i < 300; i++) {
		fds[i] = dial();
		if (i % 2)
			shutdown(fds[i], SHUT_WR); /* half-closed */
	}
	c = mcinit_store_client_new("127.0.0.1", mcinit_store_server_port(srv), mcinit_now() + 5,
	                            &err);
	cr_assert_not_null(c, "%s", err.msg);
	cr_assert_eq(mcinit_store_ping(c, 42, &err), 0);
	mcinit_store_client_free(c);
	for (i = 0; i < 300; i++)
		close(fds[i]);
	usleep(100000);
	mcinit_store_server_stats(srv, &st);
	cr_assert_lt(st.conns, 5);
}

Test(store, client_roundtrip)
{
	struct mcinit_err err = {0};
	struct mcinit_store_client *c = mcinit_store_client_new(
	    "127.0.0.1", mcinit_store_server_port(srv), mcinit_now() + 5, &err);
	char *v, **vals;
	size_t len, *lens;
	int64_t n;
	const char *keys[] = {"x", "y"};
	const char *vs[] = {"1", "22"};
	const size_t ls[] = {1, 2};

	cr_assert_not_null(c, "%s", err.msg);
	cr_assert_eq(mcinit_store_multi_set(c, keys, vs, ls, 2, &err), 0);
	v = mcinit_store_get(c, "y", &len, &err);
	cr_assert_str_eq(v, "22");
	free(v);
	cr_assert_eq(mcinit_store_add(c, "cnt", 3, &n, &err), 0);
	cr_assert_eq(n, 3);
	cr_assert_eq(mcinit_store_multi_get(c, keys, 2, &vals, &lens, &err), 0);
	cr_assert_str_eq(vals[0], "1");
	mcinit_store_values_free(vals, lens, 2);
	cr_assert_eq(mcinit_store_check(c, keys, 2, &err), 1);
	mcinit_store_client_set_deadline(c, mcinit_now() + 0.3);
	{
		const char *k = "missing";
		double t0 = mcinit_now();

		cr_assert_eq(mcinit_store_wait(c, &k, 1, &err), -1);
		cr_assert_lt(mcinit_now() - t0, 2.0);
	}
	/* after a cancelled wait the connection is still usable */
	mcinit_store_client_set_deadline(c, mcinit_now() + 5);
	cr_assert_eq(mcinit_store_num_keys(c, &n, &err), 0, "%s", err.msg);
	cr_assert_eq(n, 3);
	mcinit_store_client_free(c);
}

Test(store_silent, client_that_never_speaks, .timeout = 10)
{
	int fd;
	struct mcinit_store_stats st;

	serve(NULL, 0.3);
	fd = dial();
	cr_assert(closed(fd), "a silent client was kept");
	close(fd);
	mcinit_store_server_stats(srv, &st);
	cr_assert_eq(st.silent, 1, "counted %llu silent", st.silent);
	stop();
}

/* Half a request and nothing more is a stall: dropped after the same
 * limit as silence, and counted apart; a client idle between whole
 * requests (a rank waiting for its peers) is not. */
Test(store_silent, client_that_stalls_mid_request, .timeout = 10)
{
	struct fr f = {0}, ping = {0};
	struct mcinit_store_stats st;
	static const unsigned char pong[] = {7, 0, 0, 0};
	int fd, idle;

	serve(NULL, 0.3);
	f_u8(&ping, 13);
	f_raw(&ping, pong, sizeof pong);
	idle = dial();
	send_fr(idle, &ping);
	expect(idle, pong, sizeof pong);
	f_u8(&f, 1);
	f_str(&f, "/half");
	f_str(&f, "a value that never comes");
	fd = dial();
	cr_assert_eq(send(fd, f.b, f.n / 2, MSG_NOSIGNAL), (ssize_t)(f.n / 2));
	cr_assert(closed(fd), "a client stalled mid-request was kept");
	close(fd);
	send_fr(idle, &ping);
	expect(idle, pong, sizeof pong); /* still served after the stall's limit */
	close(idle);
	mcinit_store_server_stats(srv, &st);
	cr_assert_eq(st.stalled, 1, "counted %llu stalled", st.stalled);
	cr_assert_eq(st.silent + st.malformed, 0);
	stop();
}

Test(store_token, before_auth_only_validate_ping_init, .timeout = 10)
{
	struct mcinit_err err = {0};
	struct mcinit_store_client *c;
	int64_t n;
	int fd;
	struct fr f = {0};

	serve("s3cret", 30);
	c = mcinit_store_client_new("127.0.0.1", mcinit_store_server_port(srv), mcinit_now() + 5,
	                            &err);
	cr_assert_not_null(c, "VALIDATE/PING refused before auth: %s", err.msg);
	cr_assert_eq(mcinit_store_add_raw(c, "init/", 1, &n, &err), 0, "%s", err.msg);
	cr_assert_eq(mcinit_store_auth(c, "s3cret", &err), 0, "%s", err.msg);
	cr_assert_eq(mcinit_store_set(c, "k", "v", 1, &err), 0);
	cr_assert_eq(mcinit_store_num_keys(c, &n, &err), 0);
	mcinit_store_client_free(c);

	/* a wrong token */
	c = mcinit_store_client_new("127.0.0.1", mcinit_store_server_port(srv), mcinit_now() + 5,
	                            &err);
	cr_assert_not_null(c);
	cr_assert_eq(mcinit_store_auth(c, "guess", &err), -1);
	mcinit_store_client_free(c);

	/* a request before authenticating */
	fd = dial();
	f_u8(&f, 7);
	send_fr(fd, &f);
	cr_assert(closed(fd));
	close(fd);
	stop();
}

Test(store_token, a_refused_client_leaves_the_store_usable, .timeout = 10)
{
	struct mcinit_err err = {0};
	struct mcinit_store_client *c;
	int i;

	serve("tok", 30);
	for (i = 0; i < 3; i++) {
		c = mcinit_store_client_new("127.0.0.1", mcinit_store_server_port(srv),
		                            mcinit_now() + 5, &err);
		cr_assert_not_null(c, "round %d: %s", i, err.msg);
		cr_assert_eq(mcinit_store_auth(c, "bad", &err), -1);
		mcinit_store_client_free(c);
	}
	c = mcinit_store_client_new("127.0.0.1", mcinit_store_server_port(srv), mcinit_now() + 5,
	                            &err);
	cr_assert_not_null(c, "the store refuses everyone after a refused client: %s", err.msg);
	cr_assert_eq(mcinit_store_auth(c, "tok", &err), 0, "%s", err.msg);
	mcinit_store_client_free(c);
	stop();
}

/* ---- store faults (issue 13): in every case the store goes on serving ---- */

static void
serve_limits(const struct mcinit_store_limits *lim)
{
	struct mcinit_err err = {0};

	srv = mcinit_store_server_new("127.0.0.1", 0, NULL, lim, &err);
	cr_assert_not_null(srv, "%s", err.msg);
	cr_assert_eq(mcinit_store_server_start(srv, &err), 0);
}

static struct mcinit_store_client *
client(void)
{
	struct mcinit_err err = {0};
	struct mcinit_store_client *c = mcinit_store_client_new(
	    "127.0.0.1", mcinit_store_server_port(srv), mcinit_now() + 5, &err);

	cr_assert_not_null(c, "the store stopped serving: %s", err.msg);
	return c;
}

/* Another client is answered, and within 0.5 s. */
static void
still_serving(void)
{
	struct mcinit_err err = {0};
	struct mcinit_store_client *c = client();
	double t0 = mcinit_now();

	cr_assert_eq(mcinit_store_ping(c, 7, &err), 0, "%s", err.msg);
	cr_assert_lt(mcinit_now() - t0, 0.5, "a ping took %.3f s", mcinit_now() - t0);
	mcinit_store_client_free(c);
}

/* The server's stats once it holds lo to hi connections (2 s at most: the
 * server thread accepts and closes on its own time). */
static struct mcinit_store_stats
settle_conns(size_t lo, size_t hi)
{
	struct mcinit_store_stats st;
	int i;

	for (i = 0; i < 100; i++) {
		mcinit_store_server_stats(srv, &st);
		if (st.conns >= lo && st.conns <= hi)
			break;
		usleep(20000);
	}
	return st;
}

Test(store, peer_closes_mid_frame)
{
	struct fr f = {0};
	struct mcinit_store_stats st;
	int fd = dial();

	f_u8(&f, 1);
	f_str(&f, "/half");
	f_str(&f, "a value that never comes");
	cr_assert_eq(send(fd, f.b, f.n / 2, MSG_NOSIGNAL), (ssize_t)(f.n / 2));
	close(fd);
	still_serving();
	st = settle_conns(0, 0);
	cr_assert_eq(st.conns, 0, "the half-sent connection was kept");
	cr_assert_eq(st.keys, 0, "half a SET was applied");
	cr_assert_eq(st.truncated, 1, "counted %llu closed mid-request", st.truncated);
	cr_assert_eq(st.malformed, 0);
}

Test(store, slow_peer_byte_per_100ms, .timeout = 30)
{
	struct fr f = {0};
	size_t i;
	int fd = dial();
	static const unsigned char rep[] = {4, 0, 0, 0, 0, 0, 0, 0, 's', 'l', 'o', 'w'};

	f_u8(&f, 1);
	f_str(&f, "/s");
	f_str(&f, "slow");
	f_u8(&f, 3);
	f_str(&f, "/s");
	for (i = 0; i < f.n; i++) {
		cr_assert_eq(send(fd, f.b + i, 1, MSG_NOSIGNAL), 1);
		usleep(100000);
		if (i % 8 == 0)
			still_serving(); /* the slow one holds nobody up */
	}
	expect(fd, rep, sizeof rep);
	close(fd);
}

Test(store, flood_of_2000_connections, .timeout = 30)
{
	enum { N = 2000 };
	static int fds[N];
	struct mcinit_store_stats st;
	int i;

	for (i = 0; i < N; i++) {
		fds[i] = dial();
		if (i % 3 == 0)
			cr_assert_eq(send(fds[i], VALIDATE, sizeof VALIDATE, MSG_NOSIGNAL),
			             (ssize_t)sizeof VALIDATE);
	}
	still_serving();
	st = settle_conns(N, N);
	cr_assert_eq(st.conns, N, "%zu of %d connections open", st.conns, N);
	for (i = 0; i < N; i++)
		close(fds[i]);
	still_serving();
	st = settle_conns(0, 0);
	cr_assert_eq(st.conns, 0, "%zu connections left after closing all", st.conns);
}

TestSuite(store_bounds, .fini = stop, .timeout = 30);

Test(store_bounds, flood_of_keys_stops_at_max_keys)
{
	struct mcinit_store_limits lim;
	struct mcinit_store_client *c;
	struct mcinit_store_stats st;
	struct mcinit_err err = {0};
	int64_t n;
	int i;
	char key[32], *v;

	mcinit_store_limits_default(&lim);
	lim.max_entries = 1000;
	serve_limits(&lim);
	c = client();
	for (i = 0; i < 5000; i++) {
		snprintf(key, sizeof key, "k%d", i);
		if (mcinit_store_add(c, key, 1, &n, &err) != 0)
			break;
	}
	cr_assert_leq(i, 1000, "%d keys taken, the bound is 1000", i);
	cr_assert(mcinit_store_client_lost(c), "refused without dropping: %s", err.msg);
	mcinit_store_client_free(c);
	mcinit_store_server_stats(srv, &st);
	cr_assert_leq(st.keys, 1000);
	cr_assert_geq(st.refused, 1);
	cr_assert(strstr(st.why, "keys held") && strstr(st.why, "bound 1000"), "%s", st.why);
	/* the keys it holds are still served, and deleting makes room */
	c = client();
	v = mcinit_store_get(c, "k0", NULL, &err);
	cr_assert_not_null(v, "%s", err.msg);
	cr_assert_str_eq(v, "1");
	free(v);
	cr_assert_eq(mcinit_store_delete(c, "k1", &n, &err), 0);
	cr_assert_eq(mcinit_store_add(c, "fresh", 1, &n, &err), 0, "%s", err.msg);
	mcinit_store_client_free(c);
}

Test(store_bounds, flood_of_bytes_stops_at_max_memory)
{
	struct mcinit_store_limits lim;
	struct mcinit_store_client *c;
	struct mcinit_store_stats st;
	struct mcinit_err err = {0};
	static char big[64 * 1024];
	int i;
	char key[32];

	mcinit_store_limits_default(&lim);
	lim.max_memory = 1 << 20;
	serve_limits(&lim);
	memset(big, 'x', sizeof big);
	c = client();
	for (i = 0; i < 200; i++) {
		snprintf(key, sizeof key, "big%d", i);
		/* SET has no reply: the PING after it sees the drop */
		if (mcinit_store_set(c, key, big, sizeof big, &err) != 0 ||
		    mcinit_store_ping(c, 1, &err) != 0)
			break;
	}
	cr_assert_lt(i, 200, "200 x 64 KiB taken with a 1 MiB bound");
	mcinit_store_client_free(c);
	mcinit_store_server_stats(srv, &st);
	cr_assert_leq(st.memory, lim.max_memory, "%zu bytes held", st.memory);
	cr_assert(strstr(st.why, "bytes held"), "%s", st.why);
	still_serving();
}

/* mcinit's client tells a store that went away from a timeout. */
Test(store_bounds, a_lost_store_is_no_timeout)
{
	struct mcinit_store_client *c;
	struct mcinit_err err = {0};
	const char *k = "never";
	double t0;

	serve_limits(NULL);
	c = client();
	mcinit_store_client_set_deadline(c, mcinit_now() + 10);
	mcinit_store_server_free(srv);
	srv = NULL;
	t0 = mcinit_now();
	cr_assert_eq(mcinit_store_wait(c, &k, 1, &err), -1);
	cr_assert_lt(mcinit_now() - t0, 2.0, "waited for the deadline on a closed connection");
	cr_assert(mcinit_store_client_lost(c));
	mcinit_store_client_free(c);
}

/* The in-process sessions the fuzz harness drives answer as the sockets
 * do: a WAIT woken by another session's SET, garbage costing one session. */
Test(store_session, wait_woken_by_another_session)
{
	struct mcinit_store_server *s = mcinit_store_server_local(NULL, NULL);
	struct mcinit_store_session *a = mcinit_store_session_new(s);
	struct mcinit_store_session *b = mcinit_store_session_new(s);
	struct mcinit_store_stats st;
	struct mcx_buf out = {0};
	struct fr w = {0}, set = {0}, get = {0};
	static const unsigned char junk[] = {200};
	static const unsigned char rep[] = {1, 0, 0, 0, 0, 0, 0, 0, 'v'};

	f_u8(&w, 6);
	f_u64(&w, 1);
	f_str(&w, "/k");
	f_u8(&set, 1);
	f_str(&set, "/k");
	f_str(&set, "v");
	f_u8(&get, 3);
	f_str(&get, "/k");
	cr_assert_eq(mcinit_store_session_feed(a, w.b, w.n, &out), 0);
	cr_assert_eq(out.len, 0, "WAIT answered before the key exists");
	cr_assert_eq(mcinit_store_session_feed(b, set.b, set.n, &out), 0);
	cr_assert_eq(out.len, 0, "SET answered");
	cr_assert_eq(mcinit_store_session_feed(a, get.b, get.n, &out), 0);
	cr_assert_eq(out.len, 1 + sizeof rep);
	cr_assert_eq((unsigned char)out.data[0], MCINIT_STORE_STOP_WAIT);
	cr_assert_arr_eq(out.data + 1, rep, sizeof rep);
	cr_assert_eq(mcinit_store_session_feed(b, junk, 1, NULL), -1);
	cr_assert_eq(mcinit_store_session_feed(b, get.b, get.n, NULL), -1, "a dropped one revived");
	mcinit_store_server_stats(s, &st);
	cr_assert_eq(st.conns, 1);
	cr_assert_eq(st.dropped, 1);
	mcinit_store_session_free(a);
	mcinit_store_session_free(b);
	mcx_buf_free(&out);
	mcinit_store_server_free(s);
}

/* Many sessions wait on one key and most of them leave (close) before it
 * is written: each leaves in O(its keys), the list is squeezed as they go,
 * and the write wakes every one still there exactly once: one registered
 * twice, one whose other key was written before it left. */
Test(store_session, waiters_leave_then_one_write_wakes_the_rest_once)
{
	struct mcinit_store_server *s = mcinit_store_server_local(NULL, NULL);
	struct mcinit_store_session *ss[100], *writer;
	struct mcinit_store_stats st0, st;
	struct mcx_buf out = {0};
	struct fr w = {0}, w2 = {0}, wa = {0}, seta = {0}, set = {0};
	int i;

	f_u8(&w, 6), f_u64(&w, 1), f_str(&w, "/k");
	f_u8(&w2, 6), f_u64(&w2, 2), f_str(&w2, "/k"), f_str(&w2, "/k");
	f_u8(&wa, 6), f_u64(&wa, 2), f_str(&wa, "/a"), f_str(&wa, "/k");
	f_u8(&seta, 1), f_str(&seta, "/a"), f_str(&seta, "1");
	f_u8(&set, 1), f_str(&set, "/k"), f_str(&set, "v");
	mcinit_store_server_stats(s, &st0);
	writer = mcinit_store_session_new(s);
	for (i = 0; i < 100; i++) {
		const struct fr *f = i == 0 ? &wa : i == 1 ? &w2 : &w;

		ss[i] = mcinit_store_session_new(s);
		cr_assert_eq(mcinit_store_session_feed(ss[i], f->b, f->n, &out), 0);
	}
	cr_assert_eq(out.len, 0, "a WAIT answered before its keys exist");
	cr_assert_eq(mcinit_store_session_feed(writer, seta.b, seta.n, &out), 0);
	cr_assert_eq(mcinit_store_session_feed(ss[0], NULL, 0, &out), 0);
	cr_assert_eq(out.len, 0, "woken with /k still missing");
	for (i = 0; i < 70; i++) /* ss[0] too, after /a consumed its first key */
		if (i != 1) {
			mcinit_store_session_free(ss[i]);
			ss[i] = NULL;
		}
	cr_assert_eq(mcinit_store_session_feed(writer, set.b, set.n, &out), 0);
	for (i = 1; i < 100; i++) {
		if (!ss[i])
			continue;
		out.len = 0;
		cr_assert_eq(mcinit_store_session_feed(ss[i], NULL, 0, &out), 0);
		cr_assert_eq(out.len, 1, "session %d: %zu bytes, not one STOP_WAITING", i, out.len);
		cr_assert_eq((unsigned char)out.data[0], MCINIT_STORE_STOP_WAIT);
		mcinit_store_session_free(ss[i]);
	}
	/* a key whose waiters all left is gone, its bytes with it */
	ss[0] = mcinit_store_session_new(s);
	w.n = 0;
	f_u8(&w, 6), f_u64(&w, 1), f_str(&w, "/gone");
	mcinit_store_server_stats(s, &st);
	cr_assert_eq(mcinit_store_session_feed(ss[0], w.b, w.n, &out), 0);
	mcinit_store_session_free(ss[0]);
	mcinit_store_server_stats(s, &st0);
	cr_assert_eq(st0.memory, st.memory, "%zu bytes held after, %zu before", st0.memory,
	             st.memory);
	mcinit_store_session_free(writer);
	mcx_buf_free(&out);
	mcinit_store_server_free(s);
}

/* Before the token, a request runs only when it is proved to be one that
 * needs none: a key longer than any allowed one (here 65 bytes, ending in
 * the suffix that lifts the token) is refused, whatever the command, and
 * nothing is stored (issue 36: such keys were let through). */
Test(store_session, long_keys_do_not_pass_the_token)
{
	static const unsigned cmds[] = {1, 3, 4, 8, 9, 14, 15, 16, 18};
	static const char *key =
	    "kkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkkk/mcinit/open";
	struct mcinit_store_server *s = mcinit_store_server_local("tok", NULL);
	struct mcinit_store_stats st;
	size_t i;

	cr_assert_eq(strlen(key), 65);
	for (i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		struct mcinit_store_session *a = mcinit_store_session_new(s);
		struct fr f = {0};

		f_u8(&f, cmds[i]);
		f_str(&f, key);
		f_str(&f, "12"); /* a value, or 8 bytes of a number */
		f_raw(&f, "\0\0\0\0\0\0", 6);
		cr_assert_eq(mcinit_store_session_feed(a, f.b, f.n, NULL), -1,
		             "command %u ran without the token", cmds[i]);
		mcinit_store_session_free(a);
	}
	mcinit_store_server_stats(s, &st);
	cr_assert_eq(st.keys, 0, "%zu keys stored without the token", st.keys);
	{ /* and the token still holds */
		struct mcinit_store_session *a = mcinit_store_session_new(s);
		struct fr f = {0};

		f_u8(&f, 7); /* GETNUMKEYS */
		cr_assert_eq(mcinit_store_session_feed(a, f.b, f.n, NULL), -1);
		mcinit_store_session_free(a);
	}
	mcinit_store_server_free(s);
}

/* A reply counts against max_memory: a MULTI_GET naming one 1 MiB value
 * 100 times (100 MiB of reply against a 4 MiB bound) is refused, and the
 * store's count comes back to what it held (issue 36: the reply was built,
 * whatever its size). */
Test(store_session, a_reply_over_the_bound_is_refused)
{
	struct mcinit_store_limits lim;
	struct mcinit_store_server *s;
	struct mcinit_store_session *a, *b;
	struct mcinit_store_stats st0, st;
	struct mcx_buf out = {0}, set = {0};
	struct fr mg = {0};
	uint64_t l = 1 << 20;
	char *v = calloc(1, l);
	int i;

	mcinit_store_limits_default(&lim);
	lim.max_memory = 4u << 20;
	s = mcinit_store_server_local(NULL, &lim);
	a = mcinit_store_session_new(s);
	b = mcinit_store_session_new(s);
	mcx_buf_add(&set, "\1", 1);
	l = 2;
	mcx_buf_add(&set, &l, 8);
	mcx_buf_add(&set, "/v", 2);
	l = 1 << 20;
	mcx_buf_add(&set, &l, 8);
	mcx_buf_add(&set, v, l);
	cr_assert_eq(mcinit_store_session_feed(a, set.data, set.len, NULL), 0);
	mcinit_store_server_stats(s, &st0);
	f_u8(&mg, 10);
	f_u64(&mg, 100);
	for (i = 0; i < 100; i++)
		f_str(&mg, "/v");
	cr_assert_eq(mcinit_store_session_feed(b, mg.b, mg.n, &out), -1, "a 100 MiB reply built");
	cr_assert_eq(out.len, 0);
	mcinit_store_server_stats(s, &st);
	cr_assert_eq(st.refused, 1);
	cr_assert_eq(st.memory, st0.memory, "memory %zu after, %zu before", st.memory, st0.memory);
	mcinit_store_session_free(a);
	mcinit_store_session_free(b);
	mcx_buf_free(&out);
	mcx_buf_free(&set);
	free(v);
	mcinit_store_server_free(s);
}
