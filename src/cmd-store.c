/*
 * cmd-store.c — `mcinit store`: the rendezvous store alone (a multi-node
 * job's store on a head node, benchmarks).  Serves until SIGINT/SIGTERM.
 * Options, the token's checks, the signals and exit codes here; the serving
 * is the library's (mcx_store_serve).
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sysexits.h>
#include <unistd.h>

#include "commands.h"
#include "private/mcinit-tool.h"

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
	struct mcx_store_opts so; /* what the store is served with */
	const char *token_file;
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
		o->so.host = arg;
		break;
	case OPT_PORT:
		o->so.port = (int)mcinit_opt_long(state, "--port", arg, 0, 65535);
		break;
	case OPT_TOKEN:
		o->so.token = arg;
		o->token_file = NULL;
		break;
	case OPT_TOKEN_FILE:
		o->token_file = arg;
		break;
	case OPT_MAX_CONNS:
		o->so.max_conns =
		    (size_t)mcinit_opt_long(state, "--max-connections", arg, 1, 1L << 24);
		break;
	case OPT_MAX_MEMORY:
		o->so.max_memory = (size_t)mcinit_opt_long(state, "--max-memory", arg, 1, 1L << 22)
		                   << 20;
		break;
	case OPT_MAX_KEYS:
		o->so.max_keys = (size_t)mcinit_opt_long(state, "--max-keys", arg, 1, 1L << 40);
		break;
	case OPT_WORLD_SIZE:
		o->so.world = mcinit_opt_long(state, "--world-size", arg, 1, 1L << 24);
		break;
	case OPT_QUIET:
		o->so.quiet = true;
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
	mcinit_error_t err;
	char *t = mcx_store_token_file(path, &err);

	if (!t) {
		fprintf(stderr, "mcinit store: --token-file: %s\n", err.text);
		return NULL;
	}
	if (!*t) {
		fprintf(stderr, "mcinit store: --token-file: %s holds no token\n", path);
		free(t);
		return NULL;
	}
	return t;
}

int
mcinit_cmd_store(int argc, char **argv, int argi0)
{
	struct sopts o = {.so = {.port = MCX_STORE_PORT, .stop_fd = -1}};
	mcinit_error_t err;
	sigset_t set;
	int rc = 0;
	char *prog = mcx_xasprintf("mcinit %s", argv[0]);
	char *token = NULL;

	(void)argi0;
	argv[0] = prog;
	o.so.token = getenv("MCINIT_STORE_TOKEN");
	argp_parse(&mcinit_store_argp, argc, argv, 0, NULL, &o);
	if (o.token_file && !(token = read_token_file(o.token_file))) {
		free(prog);
		return EX_NOINPUT;
	}
	if (token)
		o.so.token = token;
	if (o.so.token && strlen(o.so.token) > MCX_STORE_TOKEN_MAX) {
		/* the ranks take no longer one: cut, it would be refused there */
		fprintf(stderr, "mcinit store: the token is %zu bytes long: at most %d are taken\n",
		        strlen(o.so.token), MCX_STORE_TOKEN_MAX);
		free(token);
		free(prog);
		return EX_USAGE;
	}
	/* served until SIGINT or SIGTERM: read, not handled */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	o.so.stop_fd = signalfd(-1, &set, SFD_CLOEXEC);
	if (mcx_store_serve(&o.so, stderr, &err) != 0) {
		fprintf(stderr, "mcinit store: %s\n", err.text);
		rc = mcinit_exit_status(err.code);
	}
	if (o.so.stop_fd >= 0)
		close(o.so.stop_fd);
	free(token);
	free(prog);
	return rc;
}
