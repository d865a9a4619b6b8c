/*
 * Unit tests: `mcinit store`'s serving as the library gives it to the
 * program (mcx_store_serve, mcx_store_token_file; private/mcinit-tool.h):
 * what it says on the log it is handed, that it stops when its stop
 * descriptor is readable, its refusals and totals, and its errors.
 */
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "private/mcinit-tool.h"

static bool
starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static char *
write_file(const char *text)
{
	char *path = strdup("/tmp/mcinit-serve-XXXXXX");
	int fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return path;
}

Test(token_file, first_line_without_its_end)
{
	mcinit_error_t err;
	char *path = write_file("s3cret\r\nsecond line\n");
	char *t = mcx_store_token_file(path, &err);

	cr_assert_str_eq(t, "s3cret");
	free(t);
	unlink(path);
	free(path);
}

Test(token_file, empty_first_line_is_empty)
{
	mcinit_error_t err;
	char *path = write_file("\ntoken on the second line\n");
	char *t = mcx_store_token_file(path, &err);

	cr_assert_str_eq(t, "");
	free(t);
	unlink(path);
	free(path);
}

Test(token_file, missing_file_names_it)
{
	mcinit_error_t err;
	char *t = mcx_store_token_file("/nonexistent/mcinit-token", &err);

	cr_assert_null(t);
	cr_assert_eq(err.code, MCINIT_E_NOINPUT);
	/* the whole message: the program prints it as it is */
	cr_assert_str_eq(err.text, "/nonexistent/mcinit-token: No such file or directory");
	cr_assert_str_eq(err.source, "");
}

Test(token_file, directory_refused)
{
	mcinit_error_t err;
	char *t = mcx_store_token_file("/tmp", &err);

	cr_assert_null(t);
	cr_assert_eq(err.code, MCINIT_E_NOINPUT);
	cr_assert(strstr(err.text, "/tmp: ") == err.text, "%s", err.text);
	cr_assert(strstr(err.text, "not a regular file") != NULL, "%s", err.text);
}

/* A log in memory: its text once closed. */
struct mlog {
	char *text;
	size_t len;
	FILE *f;
};

static void
mlog_open(struct mlog *m)
{
	m->f = open_memstream(&m->text, &m->len);
	cr_assert_not_null(m->f);
}

static void
mlog_close(struct mlog *m)
{
	fclose(m->f);
}

Test(serve, stops_when_told_and_counts)
{
	struct mlog m = {0};
	mcinit_error_t err;
	int stop[2];
	struct mcx_store_opts o = {.host = "127.0.0.1", .token = "t"};

	cr_assert_eq(pipe(stop), 0);
	cr_assert_eq(write(stop[1], "x", 1), 1); /* stopped before anything comes */
	o.stop_fd = stop[0];
	mlog_open(&m);
	cr_assert_eq(mcx_store_serve(&o, m.f, &err), 0);
	mlog_close(&m);
	cr_assert(starts(m.text, "mcinit store: listening on 127.0.0.1:"), "%s", m.text);
	cr_assert(strstr(m.text, "no token") == NULL, "%s", m.text);
	cr_assert(strstr(m.text, "\nmcinit store: 0 connection(s), 0 request(s); dropped 0 (0 "
	                         "malformed, 0 silent, 0 stalled mid-request, 0 over the bounds, "
	                         "0 turned away); 0 closed by the client mid-request\n") != NULL,
	          "%s", m.text);
	free(m.text);
	close(stop[0]);
	close(stop[1]);
}

Test(serve, quiet_still_warns_of_an_open_store)
{
	struct mlog m = {0};
	mcinit_error_t err;
	int stop[2];
	struct mcx_store_opts o = {.port = 0, .quiet = true};

	cr_assert_eq(pipe(stop), 0);
	cr_assert_eq(write(stop[1], "x", 1), 1);
	o.stop_fd = stop[0];
	mlog_open(&m);
	cr_assert_eq(mcx_store_serve(&o, m.f, &err), 0);
	mlog_close(&m);
	/* one line: the warning, nothing else */
	cr_assert(starts(m.text, "mcinit store: warning: listening on all addresses with no token: "
	                         "anyone who can reach port "),
	          "%s", m.text);
	cr_assert_eq(strchr(m.text, '\n'), m.text + m.len - 1, "%s", m.text);
	free(m.text);
	close(stop[0]);
	close(stop[1]);
}

/* A client that sends a command the protocol lacks, waits until the store
 * drops it, then stops the store. */
struct client {
	int port, stop;
};

static void *
client_main(void *arg)
{
	struct client *c = arg;
	struct sockaddr_in a = {.sin_family = AF_INET,
	                        .sin_port = htons((uint16_t)c->port),
	                        .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = -1, tries;
	unsigned char cmd = 99;
	char b;

	/* The thread may run before mcx_store_serve listens: connect again
	 * until it does (at most 10 s), or the store stops with no connection
	 * and the test fails on a loaded machine only. */
	for (tries = 0; tries < 1000; tries++) {
		if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		    connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
			break;
		close(fd);
		fd = -1;
		usleep(10000);
	}
	if (fd >= 0 && write(fd, &cmd, 1) == 1)
		while (read(fd, &b, 1) > 0) /* until the store closes it */
			;
	if (fd >= 0)
		close(fd);
	if (write(c->stop, "x", 1) != 1)
		return NULL;
	return NULL;
}

static int
free_port(void)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t n = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0), port;

	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &n), 0);
	port = ntohs(a.sin_port);
	close(fd);
	return port;
}

Test(serve, unknown_command_refused_and_counted)
{
	struct mlog m = {0};
	mcinit_error_t err;
	int stop[2];
	struct client c;
	pthread_t th;
	struct mcx_store_opts o = {.host = "127.0.0.1"};

	cr_assert_eq(pipe(stop), 0);
	c.port = o.port = free_port();
	c.stop = stop[1];
	o.stop_fd = stop[0];
	mlog_open(&m);
	cr_assert_eq(pthread_create(&th, NULL, client_main, &c), 0);
	cr_assert_eq(mcx_store_serve(&o, m.f, &err), 0);
	pthread_join(th, NULL);
	mlog_close(&m);
	cr_assert(strstr(m.text, "\nmcinit store: refused 1 request(s): unknown command 99 "
	                         "(TCPStore's commands are 0 to 18, as torch 2.15 sends them): its "
	                         "connection dropped\n") != NULL,
	          "%s", m.text);
	cr_assert(strstr(m.text, "\nmcinit store: 1 connection(s), 0 request(s); dropped 1 (1 "
	                         "malformed, ") != NULL,
	          "%s", m.text);
	free(m.text);
	close(stop[0]);
	close(stop[1]);
}

Test(serve, cannot_listen)
{
	struct mlog m = {0};
	mcinit_error_t err;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t n = sizeof a;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct mcx_store_opts o = {.host = "127.0.0.1", .token = "t", .stop_fd = -1};
	char want[128];

	/* the port taken by a listener of this test */
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
	cr_assert_eq(listen(fd, 1), 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &n), 0);
	o.port = ntohs(a.sin_port);
	mlog_open(&m);
	cr_assert_eq(mcx_store_serve(&o, m.f, &err), -1);
	mlog_close(&m);
	cr_assert_eq(err.code, MCINIT_E_UNAVAILABLE);
	snprintf(want, sizeof want, "store: cannot listen on 127.0.0.1:%d: Address already in use",
	         o.port);
	cr_assert_str_eq(err.text, want);
	cr_assert_eq(m.len, 0, "%s", m.text); /* said by the caller, not here */
	free(m.text);
	close(fd);
}
