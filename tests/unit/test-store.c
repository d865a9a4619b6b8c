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

#include "store.h"

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

	f_u8(&f, 200);
	garbage(&f);
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

	serve(NULL, 0.3);
	fd = dial();
	cr_assert(closed(fd), "a silent client was kept");
	close(fd);
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
