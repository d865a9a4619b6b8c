/*
 * cmd-store.c — `mcinit store`: the rendezvous store alone (a multi-node
 * job's store on a head node, benchmarks).  Serves until SIGINT/SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <poll.h>
#include <sysexits.h>
#include <unistd.h>

#include "commands.h"
#include "store/store.h"

enum {
	OPT_HOST = 0x400,
	OPT_PORT,
	OPT_TOKEN,
	OPT_TOKEN_FILE,
	OPT_MAX_CONNS,
	OPT_MAX_MEMORY,
	OPT_MAX_KEYS,
	OPT_WORLD_SIZE,
	OPT_QUIET
};

struct sopts {
	const char *host;
	long port;
	const char *token;
	const char *token_file;
	struct mcinit_store_limits lim;
	long world;
	int quiet;
};

static const struct argp_option options[] = {
    {"host", OPT_HOST, "ADDR", 0, "Listen on this address only (default: all addresses)", 0},
    {"port", OPT_PORT, "PORT", 0, "TCP port (default 29500; 0 picks a free one)", 0},
    {"token", OPT_TOKEN, "TOKEN", 0,
     "Require clients to authenticate with this job token (default $MCINIT_STORE_TOKEN).  "
     "Other users see it in ps(1): prefer --token-file or the variable",
     0},
    {"token-file", OPT_TOKEN_FILE, "FILE", 0,
     "Read the job token from FILE (its first line; at most 4096 bytes)", 0},
    {"max-connections", OPT_MAX_CONNS, "N", 0,
     "Open connections at most (default: the open-file limit, ulimit -n, less 64)", 0},
    {"max-memory", OPT_MAX_MEMORY, "MIB", 0,
     "Keys, values and buffers together at most (MiB, default 1024)", 0},
    {"max-keys", OPT_MAX_KEYS, "N", 0, "Keys held at most (default 1048576)", 0},
    {"world-size", OPT_WORLD_SIZE, "N", 0,
     "Ranks that will connect: raise the open-file limit for them and warn when it or "
     "net.core.somaxconn falls short",
     0},
    {"quiet", OPT_QUIET, NULL, 0, "Do not print the listening line", 0},
    {NULL, 0, NULL, 0, NULL, 0},
};

static error_t
parse_opt(int key, char *arg, struct argp_state *state)
{
	struct sopts *o = state->input;

	switch (key) {
	case OPT_HOST:
		o->host = arg;
		break;
	case OPT_PORT:
		o->port = mcinit_opt_long(state, "--port", arg, 0, 65535);
		break;
	case OPT_TOKEN:
		o->token = arg;
		o->token_file = NULL;
		break;
	case OPT_TOKEN_FILE:
		o->token_file = arg;
		break;
	case OPT_MAX_CONNS:
		o->lim.max_conns =
		    (size_t)mcinit_opt_long(state, "--max-connections", arg, 1, 1L << 24);
		break;
	case OPT_MAX_MEMORY:
		o->lim.max_memory = (size_t)mcinit_opt_long(state, "--max-memory", arg, 1, 1L << 22)
		                    << 20;
		break;
	case OPT_MAX_KEYS:
		o->lim.max_entries = (size_t)mcinit_opt_long(state, "--max-keys", arg, 1, 1L << 40);
		break;
	case OPT_WORLD_SIZE:
		o->world = mcinit_opt_long(state, "--world-size", arg, 1, 1L << 24);
		break;
	case OPT_QUIET:
		o->quiet = 1;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const char doc[] =
    "Serve the rendezvous store alone: a key-value service that speaks PyTorch's TCPStore "
    "protocol (torch.distributed.TCPStore(host, port, is_master=False) and "
    "init_process_group(\"env://\") use it), for a multi-node job whose store lives on a head "
    "node, and for benchmarks.\v"
    "Prints `mcinit store: listening on HOST:PORT` on stderr once it accepts connections, "
    "then serves until SIGINT or SIGTERM, and then a line that counts the connections it "
    "dropped, by kind.  A client that sends garbage, an unknown command (logged with its "
    "code; the store knows TCPStore's commands 0 to 18, every one torch 2.15 sends), "
    "an oversized length, nothing within 30 s, or half a request and nothing more for 30 s "
    "loses its connection; the store goes "
    "on.  So does a request that would take the store over --max-memory or --max-keys: "
    "refused, its connection dropped (torch's protocol has no error reply), and the reason "
    "printed on stderr (once a second at most).  Replies count against --max-memory too: a "
    "request whose reply would pass it is refused so, and a client that does not read its "
    "replies is not read from until it does.\n\n"
    "With a token, a client may send nothing but VALIDATE, PING, torch's init/ counter and "
    "the token itself until it has presented the token.  Without one, anyone who can reach "
    "the port reads and writes every key: the store warns when it listens on all addresses "
    "so.  The token is taken from --token, --token-file or $MCINIT_STORE_TOKEN (the last "
    "two do not show in ps(1)), at most 4096 bytes: a longer one is refused, not "
    "cut.\n\n" MCINIT_EXIT_CODES_DOC;

const struct argp mcinit_store_argp = {options, parse_opt, "", doc, NULL, NULL, NULL};

/* The token of --token-file: the file's first line (a trailing newline is
 * no part of it).  NULL with a message printed when it cannot be read. */
static char *
read_token_file(const char *path)
{
	struct mcinit_err err = {0};
	size_t len;
	char *t = mcinit_read_file(path, &len, &err);

	if (!t) {
		fprintf(stderr, "mcinit store: --token-file: %s\n", err.msg);
		return NULL;
	}
	t[strcspn(t, "\r\n")] = '\0';
	if (!*t) {
		fprintf(stderr, "mcinit store: --token-file: %s holds no token\n", path);
		free(t);
		return NULL;
	}
	return t;
}

/* Before listening: room for the world's connections (the soft open-file
 * limit raised as far as the hard one allows), or a warning with the
 * numbers and what to set. */
static void
check_capacity(const struct sopts *o)
{
	if (o->world > 0)
		mcinit_store_capacity_check(o->world, "mcinit store: warning: ", stderr);
}

/* Requests refused since the last report, for the bounds or for a command
 * the protocol lacks, with the last reason (the unknown command's code):
 * once a second at most, so that a flood cannot flood stderr. */
static void
report_refusals(const struct mcinit_store_server *s, const struct sopts *o)
{
	static unsigned long long told, told_unknown;
	static double last;
	struct mcinit_store_stats st;
	double now = mcinit_now();

	mcinit_store_server_stats(s, &st);
	if (o->quiet || now - last < 1.0)
		return;
	if (st.refused != told)
		fprintf(stderr,
		        "mcinit store: refused %llu request(s), connection(s) dropped: %s\n",
		        st.refused - told, st.why);
	if (st.unknown != told_unknown)
		fprintf(stderr, "mcinit store: refused %llu request(s): %s\n",
		        st.unknown - told_unknown, st.unknown_why);
	if (st.refused != told || st.unknown != told_unknown)
		last = now;
	told = st.refused;
	told_unknown = st.unknown;
}

/* On the way out: what was served and what was dropped, by kind. */
static void
report_totals(const struct mcinit_store_server *s, const struct sopts *o)
{
	struct mcinit_store_stats st;

	mcinit_store_server_stats(s, &st);
	if (o->quiet)
		return;
	fprintf(stderr,
	        "mcinit store: %llu connection(s), %llu request(s); dropped %llu (%llu malformed, "
	        "%llu silent, %llu stalled mid-request, %llu over the bounds, %llu turned away); "
	        "%llu closed by the client mid-request\n",
	        st.accepted, st.requests, st.dropped, st.malformed, st.silent, st.stalled,
	        st.refused, st.turned_away, st.truncated);
}

int
mcinit_cmd_store(int argc, char **argv, int argi0)
{
	struct sopts o = {.host = NULL, .port = MCINIT_STORE_PORT};
	struct mcinit_store_server *s;
	struct mcinit_err err = {0};
	sigset_t set;
	int sfd;
	char *prog = mcx_xasprintf("mcinit %s", argv[0]);
	char *token = NULL;

	(void)argi0;
	argv[0] = prog;
	mcinit_store_limits_default(&o.lim);
	o.token = getenv("MCINIT_STORE_TOKEN");
	argp_parse(&mcinit_store_argp, argc, argv, 0, NULL, &o);
	if (o.token_file && !(token = read_token_file(o.token_file))) {
		free(prog);
		return EX_NOINPUT;
	}
	if (token)
		o.token = token;
	if (o.token && strlen(o.token) > MCINIT_STORE_TOKEN_MAX) {
		/* the ranks take no longer one: cut, it would be refused there */
		fprintf(stderr, "mcinit store: the token is %zu bytes long: at most %d are taken\n",
		        strlen(o.token), MCINIT_STORE_TOKEN_MAX);
		free(token);
		free(prog);
		return EX_USAGE;
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sfd = signalfd(-1, &set, SFD_CLOEXEC);
	check_capacity(&o);
	s = mcinit_store_server_new(o.host, (int)o.port, o.token, &o.lim, &err);
	if (!s) {
		fprintf(stderr, "mcinit store: %s\n", err.msg);
		free(token);
		free(prog);
		close(sfd);
		return mcinit_exit_status(err.code ? err.code : MCINIT_E_INTERNAL);
	}
	if (!o.quiet)
		fprintf(stderr, "mcinit store: listening on %s:%d\n", o.host ? o.host : "*",
		        mcinit_store_server_port(s));
	if (!(o.host && *o.host) && !(o.token && *o.token))
		/* said even with --quiet: it is how the store is exposed */
		fprintf(stderr,
		        "mcinit store: warning: listening on all addresses with no token: "
		        "anyone who can reach port %d can read and change every key (give "
		        "--host, or a token with --token-file or MCINIT_STORE_TOKEN)\n",
		        mcinit_store_server_port(s));
	for (;;) {
		struct pollfd pf[2] = {{.fd = mcinit_store_server_fd(s), .events = POLLIN},
		                       {.fd = sfd, .events = POLLIN}};

		if (poll(pf, 2, 1000) < 0 && errno != EINTR)
			break;
		if (pf[1].revents & POLLIN)
			break;
		mcinit_store_server_step(s, 0);
		report_refusals(s, &o);
	}
	report_totals(s, &o);
	mcinit_store_server_free(s);
	close(sfd);
	free(token);
	free(prog);
	return 0;
}
