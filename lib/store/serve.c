/*
 * serve.c — `mcinit store`'s serving (mcx_store_serve, mcx_store_token_file;
 * private/mcinit-tool.h): the server of server.c behind one call, with what
 * the store says while it serves, on the stream it is handed.  The program
 * keeps the options, the signals that stop it (stop_fd) and the exit
 * status.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

char *
mcx_store_token_file(const char *path, mcinit_error_t *err)
{
	struct mcinit_err e = {0};
	size_t len;
	char *t = mcinit_read_file(path, &len, &e);

	if (!t) {
		/* the whole message, the file named in it: the program prints it
		 * after its option's name */
		mcinit_err_export(&e, err);
		if (err) {
			snprintf(err->text, sizeof err->text, "%s", e.msg);
			err->source[0] = '\0';
		}
		return NULL;
	}
	t[strcspn(t, "\r\n")] = '\0';
	return t;
}

/* What has been said of the refusals, so that a flood of them cannot flood
 * the log. */
struct told {
	unsigned long long refused, unknown;
	double last;
};

/* Requests refused since the last report, for the bounds or for a command
 * the protocol lacks, with the last reason (the unknown command's code):
 * once a second at most. */
static void
report_refusals(const struct mcinit_store_server *s, const struct mcx_store_opts *o, FILE *log,
                struct told *t)
{
	struct mcinit_store_stats st;
	double now = mcinit_now();

	mcinit_store_server_stats(s, &st);
	if (o->quiet || now - t->last < 1.0)
		return;
	if (st.refused != t->refused)
		fprintf(log, "mcinit store: refused %llu request(s), connection(s) dropped: %s\n",
		        st.refused - t->refused, st.why);
	if (st.unknown != t->unknown)
		fprintf(log, "mcinit store: refused %llu request(s): %s\n", st.unknown - t->unknown,
		        st.unknown_why);
	if (st.refused != t->refused || st.unknown != t->unknown)
		t->last = now;
	t->refused = st.refused;
	t->unknown = st.unknown;
}

/* On the way out: what was served and what was dropped, by kind. */
static void
report_totals(const struct mcinit_store_server *s, const struct mcx_store_opts *o, FILE *log)
{
	struct mcinit_store_stats st;

	mcinit_store_server_stats(s, &st);
	if (o->quiet)
		return;
	fprintf(log,
	        "mcinit store: %llu connection(s), %llu request(s); dropped %llu (%llu malformed, "
	        "%llu silent, %llu stalled mid-request, %llu over the bounds, %llu turned away); "
	        "%llu closed by the client mid-request\n",
	        st.accepted, st.requests, st.dropped, st.malformed, st.silent, st.stalled,
	        st.refused, st.turned_away, st.truncated);
}

int
mcx_store_serve(const struct mcx_store_opts *o, FILE *log, mcinit_error_t *err)
{
	struct mcinit_store_limits lim;
	struct mcinit_store_server *s;
	struct mcinit_err e = {0};
	struct told told = {0};

	mcinit_store_limits_default(&lim);
	if (o->max_conns)
		lim.max_conns = o->max_conns;
	if (o->max_memory)
		lim.max_memory = o->max_memory;
	if (o->max_keys)
		lim.max_entries = o->max_keys;
	/* before listening: room for the world's connections (the soft
	 * open-file limit raised as far as the hard one allows), or a warning
	 * with the numbers and what to set */
	if (o->world > 0)
		mcinit_store_capacity_check(o->world, "mcinit store: warning: ", log);
	s = mcinit_store_server_new(o->host, o->port, o->token, &lim, &e);
	if (!s) {
		mcinit_err_export(&e, err);
		return -1;
	}
	if (!o->quiet)
		fprintf(log, "mcinit store: listening on %s:%d\n", o->host ? o->host : "*",
		        mcinit_store_server_port(s));
	if (!(o->host && *o->host) && !(o->token && *o->token))
		/* said even when quiet: it is how the store is exposed */
		fprintf(log,
		        "mcinit store: warning: listening on all addresses with no token: "
		        "anyone who can reach port %d can read and change every key (give "
		        "--host, or a token with --token-file or MCINIT_STORE_TOKEN)\n",
		        mcinit_store_server_port(s));
	for (;;) {
		struct pollfd pf[2] = {{.fd = mcinit_store_server_fd(s), .events = POLLIN},
		                       {.fd = o->stop_fd, .events = POLLIN}};

		if (poll(pf, 2, 1000) < 0 && errno != EINTR)
			break;
		if (pf[1].revents & POLLIN)
			break;
		mcinit_store_server_step(s, 0);
		report_refusals(s, o, log, &told);
	}
	report_totals(s, o, log);
	mcinit_store_server_free(s);
	return 0;
}
