/*
 * cmd-run.c — `mcinit run`: the full initialization (run.md).  Options and
 * exit codes here; the launcher is the library's mcx_launch
 * (lib/run/supervisor.c), the phases are the engine of lib/run/init.c.
 *
 * The phases run through the public mcinit_initialize (mcinit.h), with the
 * one options structure every caller of the library fills.
 *
 * With --nproc-per-node N and no launcher environment this process becomes
 * the launcher: it checks the job once, then starts N copies of itself as
 * workers (MCINIT_LAUNCHED=1 tells them apart) with the torchrun contract.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sysexits.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "commands.h"
#include "private/mcinit-tool.h"

enum {
	OPT_NODE_RANK = 0x500,
	OPT_MASTER_ADDR,
	OPT_MASTER_PORT,
	OPT_ALLOW_NO_CUDA,
	OPT_LAZY,
	OPT_FINISH_LAZY,
	OPT_TIMEOUT,
	OPT_REPORT,
	OPT_NO_BIND,
	OPT_TEE,
	OPT_QUIET,
	OPT_GRACE,
	OPT_APPEND_ARGS,
	OPT_NO_WARMUP,
	OPT_BANDWIDTH,
};

struct ropts {
	struct mcinit_cli cli;
	long node_rank;
	const char *master_addr;
	int master_port;
	bool allow_no_cuda, lazy, finish_lazy, no_bind, quiet, append_args, no_warmup, bandwidth;
	double timeout, grace;
	const char *report;
};

static const struct argp_option options[] = {
    {NULL, 0, NULL, 0, "Launcher (with --nproc-per-node and no launcher environment):", 2},
    {"node-rank", OPT_NODE_RANK, "K", 0, "This node's index, 0 to --nnodes - 1 (default 0)", 2},
    {"master-addr", OPT_MASTER_ADDR, "ADDR", 0,
     "Host of the store (node 0); default $MASTER_ADDR, the first Slurm host, or 127.0.0.1", 2},
    {"master-port", OPT_MASTER_PORT, "PORT", 0,
     "Port of the store; default $MASTER_PORT, 15000 + the last four digits of "
     "$SLURM_JOB_ID, or 29500 (a free port for a one-node launcher)",
     2},
    {"grace", OPT_GRACE, "SECONDS", 0,
     "After a worker fails, how long the others get between SIGTERM and SIGKILL (default 5)", 2},
    {"tee", OPT_TEE, NULL, 0, "Relay every worker's output with a [rank N] prefix (default)", 2},
    {"quiet", OPT_QUIET, NULL, 0, "Relay only rank 0's standard output (and every stderr)", 2},
    {NULL, 0, NULL, 0, "Initialization:", 3},
    {"allow-no-cuda", OPT_ALLOW_NO_CUDA, NULL, 0,
     "Without a GPU, skip the CUDA/NCCL phases and run the CPU path (exit 69 otherwise)", 3},
    {"lazy-mpu-init", OPT_LAZY, NULL, 0,
     "Defer every distributed phase into the finish function (dist.lazy_mpu_init)", 3},
    {"finish-lazy", OPT_FINISH_LAZY, NULL, 0, "On the lazy path, run the finish at once", 3},
    {"timeout", OPT_TIMEOUT, "SECONDS", 0,
     "How long a rank waits for its peers (default dist.distributed_timeout_minutes)", 3},
    {"no-bind", OPT_NO_BIND, NULL, 0, "Do not bind each rank to its GPU's CPUs", 3},
    {"no-warmup", OPT_NO_WARMUP, NULL, 0, "Skip the fused-kernel warm-up", 3},
    {"bandwidth", OPT_BANDWIDTH, NULL, 0,
     "After the verification, time each NCCL communicator (algbw and busbw as nccl-tests "
     "reports them)",
     3},
    {"report", OPT_REPORT, "FILE", 0, "Write the JSON report to FILE (rank 0)", 3},
    {"append-megatron-args", OPT_APPEND_ARGS, NULL, 0,
     "With -- COMMAND: append the job's Megatron-LM flags to the command", 3},
    {NULL, 0, NULL, 0, NULL, 0},
};

static double
seconds(struct argp_state *state, const char *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (*arg == '\0' || *end != '\0' || errno != 0 || !(v > 0) || v > 1e7)
		argp_error(state, "%s: '%s' is not a number of seconds > 0", opt, arg);
	return v;
}

long
mcinit_opt_long(struct argp_state *state, const char *opt, const char *arg, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (*arg == '\0' || *end != '\0' || errno != 0 || v < lo || v > hi)
		argp_error(state, "%s: '%s' is not an integer in [%ld, %ld]", opt, arg, lo, hi);
	return v;
}

static error_t
parse_opt(int key, char *arg, struct argp_state *state)
{
	struct ropts *o = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->cli;
		break;
	case OPT_NODE_RANK:
		o->node_rank = mcinit_opt_long(state, "--node-rank", arg, 0, 1L << 20);
		break;
	case OPT_MASTER_ADDR:
		o->master_addr = arg;
		break;
	case OPT_MASTER_PORT:
		o->master_port = (int)mcinit_opt_long(state, "--master-port", arg, 1, 65535);
		break;
	case OPT_GRACE:
		o->grace = seconds(state, "--grace", arg);
		break;
	case OPT_TEE:
		o->quiet = false;
		break;
	case OPT_QUIET:
		o->quiet = true;
		break;
	case OPT_ALLOW_NO_CUDA:
		o->allow_no_cuda = true;
		break;
	case OPT_LAZY:
		o->lazy = true;
		break;
	case OPT_FINISH_LAZY:
		o->finish_lazy = true;
		break;
	case OPT_TIMEOUT:
		o->timeout = seconds(state, "--timeout", arg);
		break;
	case OPT_NO_BIND:
		o->no_bind = true;
		break;
	case OPT_NO_WARMUP:
		o->no_warmup = true;
		break;
	case OPT_BANDWIDTH:
		o->bandwidth = true;
		break;
	case OPT_REPORT:
		o->report = arg;
		break;
	case OPT_APPEND_ARGS:
		o->append_args = true;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {{&mcinit_job_argp, 0, NULL, 0}, {NULL, 0, NULL, 0}};

static const char doc[] =
    "Initialize a Megatron job for real: environment, rendezvous, CUDA device, NCCL world "
    "and group communicators, verification, seeds, fused-kernel warm-up; then exit 0, or "
    "hand over to the training command after `--`.\v"
    "Phases: config, env, rendezvous, device, world, groups, verify, seeds, kernels, tp-comm, "
    "ready; each is timed and ends ok, failed, deferred (lazy MPU init) or skipped.  The "
    "environment comes from torchrun (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, ...), Slurm "
    "(SLURM_PROCID, SLURM_NTASKS, the node list) or Open MPI (OMPI_COMM_WORLD_*), else this "
    "is a single process.  The ranks meet through a store that speaks PyTorch's TCPStore "
    "protocol, served by the launching mcinit, by torchrun's agent "
    "(TORCHELASTIC_USE_AGENT_STORE=True) or by rank 0.  A rank that does not arrive within "
    "--timeout makes every other rank exit 75 naming it; a rank started with another config "
    "is named too (exit 1).\n\n"
    "With --nproc-per-node N and no launcher environment, mcinit is the launcher: it serves "
    "the store, starts N workers with the torchrun contract, prefixes their output with "
    "[rank N], forwards SIGINT/SIGTERM, stops all workers when one fails and prints the root "
    "cause (rank, phase, message); it exits with the failing worker's status.\n\n"
    "Without a GPU, the CUDA/NCCL phases are skipped with --allow-no-cuda (the ranks still "
    "prove they agree on the config and on every group through the store), else exit 69.  "
    "--format=json prints rank 0's report: {\"ok\", \"world_size\", \"phases\": [{\"name\", "
    "\"status\", \"slowest_rank\", \"seconds\"}], \"ranks\": [{\"rank\", \"phases\": [...]}], "
    "\"versions\", \"communicators\", \"error\"}.\n\n"
    "MCINIT_FAULT=RANK:PHASE:KIND in the environment injects a fault: when that rank begins "
    "that phase it crashes (SIGSEGV), hangs, exits with status 3, or stalls (sleeps twice "
    "--timeout); the launcher then exits 139, 3, or 75 (its peers time out), naming the rank "
    "and the phase.\n\n"
    "A rank that fails says why in one line, the first it writes to stderr: `mcinit run: rank "
    "R: PHASE: REASON` (for a config that does not validate, `config: invalid job: CODE "
    "message (+N more)`, then every diagnostic).  Under torchrun the same text is the message "
    "of torch's error file (TORCHELASTIC_ERROR_FILE), so torchrun's \"Root Cause\" section "
    "shows it as the traceback.  Slurm has no error file: under srun, look for that line.  "
    "srun's own report of a failing task is `srun: error: HOST: task N: Exited with exit code "
    "C`, and srun exits with the highest status of its tasks; with --kill-on-bad-exit (-K) "
    "Slurm ends the whole step as soon as one task exits non-zero, so the others die of a "
    "signal (reported as killed or terminated) and the first failing rank's line is the root "
    "cause.  srun --label puts the task number in front of each line.\n\n" MCINIT_EXIT_CODES_DOC;

const struct argp mcinit_run_argp = {
    options, parse_opt, "[INPUT...] [SECTION.FIELD=VALUE...] [-- COMMAND [ARG...]]", doc, children,
    NULL,    NULL};

/* The job from the command line and the phases through mcinit_initialize:
 * what follows `--` is the hand-over command here, not Megatron-LM flags.
 * *I is set in every case (mcinit_destroy it). */
static int
initialize(const struct ropts *o, const struct mcinit_init_options *io, struct mcinit_init **I,
           mcinit_finish_callback *finish, mcinit_error_t *err)
{
	struct mcinit_job_desc desc;

	mcinit_cli_desc(&o->cli, &desc);
	desc.megatron_flags = NULL;
	desc.nmegatron_flags = 0;
	return mcinit_initialize(&desc, io, I, finish, err);
}

/* The name of the phase that failed, "?" if none. */
static const char *
failed_phase(const struct mcinit_init *I)
{
	const char *name = "?";

	mcinit_init_phase(I, mcinit_init_failed_phase(I), &name, NULL, NULL, NULL);
	return name;
}

/* Whether mcinit_initialize failed because the job is invalid (its errors
 * are in the diagnostics), not for a reason of its own. */
static bool
job_invalid(const struct mcinit_init *I, const mcinit_error_t *err)
{
	return err->code == MCINIT_E_INVALID && strcmp(failed_phase(I), "config") == 0 &&
	       mcinit_diags_count(mcinit_init_diagnostics(I), MCINIT_ERROR) > 0;
}

/* ---- the launcher ---- */

static char **
copy_argv(char **argv, int argc)
{
	char **v = mcx_xcalloc((size_t)argc + 1, sizeof *v);
	int i;

	for (i = 0; i < argc; i++)
		v[i] = mcx_xstrdup(argv[i]);
	return v;
}

static void
free_argv(char **v)
{
	char **p;

	for (p = v; p && *p; p++)
		free(*p);
	free(v);
}

static bool
launched_elsewhere(const char **by)
{
	*by = getenv("RANK") || getenv("WORLD_SIZE") ? "torchrun (RANK/WORLD_SIZE are set)"
	      : getenv("SLURM_PROCID")               ? "Slurm (SLURM_PROCID is set)"
	      : getenv("OMPI_COMM_WORLD_RANK")       ? "Open MPI (OMPI_COMM_WORLD_RANK is set)"
	                                             : NULL;
	return *by != NULL;
}

/* Torch's error file, when torchrun asked for one: the line its root-cause
 * summary shows, so that whoever reads torchrun's report sees the reason
 * without the per-rank logs.  Read from the environment itself when the
 * launcher's environment did not parse: that failure is reported too. */
static void
tell_torchrun(const struct mcinit_init *I, const char *phase, const char *msg)
{
	const char *file, *addr;
	char *where;

	mcinit_init_launcher(I, NULL, NULL, &addr, &file);
	if (!file[0])
		file = getenv("TORCHELASTIC_ERROR_FILE");
	if (!file || !*file)
		return;
	where = mcx_xasprintf("mcinit run, phase %s, on %s", phase, addr[0] ? addr : "?");
	mcinit_write_error_file(file, msg, where);
	free(where);
}

/* This rank's number as the launcher gave it: the parsed one, or, when
 * the launcher's environment did not parse, its variable as it is. */
static void
rank_label(const struct mcinit_init *I, char *buf, size_t size)
{
	const char *launcher;
	long rank;
	const char *raw = getenv("RANK")           ? getenv("RANK")
	                  : getenv("SLURM_PROCID") ? getenv("SLURM_PROCID")
	                                           : getenv("OMPI_COMM_WORLD_RANK");

	mcinit_init_launcher(I, &launcher, &rank, NULL, NULL);
	/* as it is: say_failure escapes what it prints (mcx_fputs_text) */
	if (launcher == NULL && raw && *raw)
		snprintf(buf, size, "%.24s", raw);
	else
		snprintf(buf, size, "%ld", rank);
}

/* The one line that says why this process failed, built here only: first
 * on its stderr (under srun, which has no error file, the line to look
 * for; srun --label puts the task number in front) and the message of
 * torch's error file.  "rank R: PHASE: REASON"; a launcher has no rank. */
static void
say_failure(const struct mcinit_init *I, bool is_rank, const char *phase, const char *reason)
{
	char rank[32];
	char *msg;

	rank_label(I, rank, sizeof rank);
	msg = is_rank ? mcx_xasprintf("rank %s: %s: %s", rank, phase, reason)
	              : mcx_xasprintf("%s: %s", phase, reason);
	fputs("mcinit run: ", stderr);
	mcx_fputs_text(msg, stderr);
	fputc('\n', stderr);
	fflush(stderr);
	if (is_rank)
		tell_torchrun(I, phase, msg);
	free(msg);
}

/* The job is invalid: the first error, with how many more, in the failure
 * line; then every diagnostic. */
static int
print_invalid(const struct mcinit_init *I, bool is_rank)
{
	const struct mcinit_diags *d = mcinit_init_diagnostics(I);
	struct mcinit_diagnostic g = {.size = sizeof g};
	size_t i, n = mcinit_diags_count(d, MCINIT_ERROR);
	char *msg = NULL;

	for (i = 0; msg == NULL && mcinit_diags_get(d, i, &g) == 0; i++)
		if (g.severity == MCINIT_ERROR)
			msg = n > 1 ? mcx_xasprintf("invalid job: %s %s (+%zu more)", g.code,
			                            g.message, n - 1)
			            : mcx_xasprintf("invalid job: %s %s", g.code, g.message);
	say_failure(I, is_rank, "config", msg ? msg : "invalid job");
	free(msg);
	mcinit_diags_print(d, stderr, mcx_want_color(stderr));
	mcinit_print_summary(d, stderr);
	return 1;
}

/* Node 0's launcher serves the store: room for the world's connections
 * (the soft open-file limit raised as far as the hard one allows), or a
 * warning with the numbers and what to set. */
static void
check_store_capacity(long world)
{
	mcinit_store_capacity_check(world, "mcinit run: warning: ", stderr);
}

static int
run_launcher(struct ropts *o, char **orig, const struct mcinit_init_options *io)
{
	struct mcx_launch_opts lo = {0};
	mcinit_error_t e;
	struct mcinit_init *I;
	mcinit_finish_callback finish;
	char self[PATH_MAX];
	ssize_t n;
	int rc;
	char why[256];

	struct mcinit_init_options quiet = *io;

	/* the job once, here, before any worker starts (the workers report) */
	quiet.progress = NULL;
	quiet.flags |= MCINIT_INIT_CHECK_ONLY;
	if (o->cli.check.nnodes == 0)
		o->cli.check.nnodes = 1;
	if (o->cli.check.world_size == 0) {
		o->cli.check.world_size = o->cli.check.nnodes * o->cli.check.nproc_per_node;
		quiet.world_source = "--nnodes x --nproc-per-node";
	}
	rc = initialize(o, &quiet, &I, &finish, &e);
	if (rc != 0) {
		if (job_invalid(I, &e))
			rc = print_invalid(I, false);
		else {
			say_failure(I, false, "config", e.text);
			rc = mcinit_exit_status(e.code);
		}
		mcinit_destroy(I);
		return rc;
	}
	mcinit_destroy(I);
	if (!o->allow_no_cuda && mcinit_gpu_count(why, sizeof why) == 0) {
		fprintf(stderr,
		        "mcinit run: no CUDA device (%s): pass --allow-no-cuda to run the "
		        "CPU path\n",
		        why);
		return EX_UNAVAILABLE;
	}
	n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0) {
		fprintf(stderr, "mcinit run: cannot find my own program: %s\n", strerror(errno));
		return EX_OSERR;
	}
	self[n] = '\0';
	lo.nproc = (long)o->cli.check.nproc_per_node;
	lo.nnodes = o->cli.check.nnodes > 0 ? (long)o->cli.check.nnodes : 1;
	lo.node_rank = o->node_rank;
	lo.master_addr = o->master_addr ? o->master_addr : getenv("MASTER_ADDR");
	lo.master_port = o->master_port;
	lo.grace = o->grace > 0 ? o->grace : 5;
	lo.json = o->cli.format == MCINIT_FMT_JSON;
	lo.quiet = o->quiet;
	lo.self = self;
	lo.argv = orig;
	lo.timeout_status = mcinit_exit_status(MCINIT_E_TIMEOUT);
	lo.out = stdout;
	lo.err = stderr;
	lo.log = stderr;
	if (lo.node_rank >= lo.nnodes) {
		fprintf(stderr, "mcinit run: --node-rank %ld with --nnodes %ld\n", lo.node_rank,
		        lo.nnodes);
		return EX_USAGE;
	}
	if (lo.node_rank == 0)
		check_store_capacity(lo.nnodes * lo.nproc);
	rc = mcx_launch(&lo, &e);
	if (rc < 0) {
		fputs("mcinit run: ", stderr);
		mcx_fputs_text(e.text, stderr);
		fputc('\n', stderr);
		return mcinit_exit_status(e.code);
	}
	return rc;
}

/* ---- a rank ---- */

static int
write_report(const struct mcinit_init *I, const struct ropts *o)
{
	json_t *r;
	long rank;
	int rc = 0;

	mcinit_init_launcher(I, NULL, &rank, NULL, NULL);
	if (rank != 0)
		return 0;
	if (!o->report && o->cli.format != MCINIT_FMT_JSON)
		return 0;
	r = mcx_init_report(I);
	if (o->report && json_dump_file(r, o->report, JSON_INDENT(2)) != 0) {
		char *why = mcx_xasprintf("cannot write the report %s", o->report);

		say_failure(I, true, "report", why);
		free(why);
		rc = -1;
	}
	if (o->cli.format == MCINIT_FMT_JSON && mcinit_print_json(r, stdout) < 0)
		rc = -1;
	json_decref(r);
	return rc;
}

static int
report_failure(const struct mcinit_init *I, const struct ropts *o, const mcinit_error_t *err)
{
	say_failure(I, true, failed_phase(I), err->text);
	write_report(I, o);
	return mcinit_exit_status(err->code);
}

/* The library hands environment changes to the program
 * (mcinit_init_options.set_env). */
static void
set_env(const char *name, const char *value, int overwrite)
{
	if (value == NULL)
		unsetenv(name);
	else
		setenv(name, value, overwrite);
}

static int
exec_command(struct mcinit_init *I, const struct ropts *o)
{
	mcinit_error_t err;
	size_t nm = 0, i;
	char **margs = o->append_args ? mcinit_init_megatron_args(I, &nm) : NULL;
	char **argv = mcx_xcalloc(o->cli.nrest + nm + 1, sizeof *argv);
	int rc;

	if (mcinit_init_handover(I, &err) != 0)
		return report_failure(I, o, &err);
	signal(SIGPIPE, SIG_DFL); /* main ignores it; the command gets it as from a shell */
	for (i = 0; i < o->cli.nrest; i++)
		argv[i] = o->cli.rest[i];
	for (i = 0; i < nm; i++)
		argv[o->cli.nrest + i] = margs[i];
	fflush(NULL);
	execvp(argv[0], argv);
	rc = errno == ENOENT ? 127 : 126;
	{
		char *why = mcx_xasprintf("cannot run %s: %s", argv[0], strerror(errno));

		say_failure(I, true, "hand-over", why);
		free(why);
	}
	free(argv);
	free_argv(margs);
	return rc;
}

static int
run_rank(struct ropts *o, const struct mcinit_init_options *io)
{
	mcinit_error_t err;
	struct mcinit_init *I;
	mcinit_finish_callback finish = NULL;
	long rank;
	int rc = initialize(o, io, &I, &finish, &err);

	if (rc != 0) {
		rc = job_invalid(I, &err) ? print_invalid(I, true) : report_failure(I, o, &err);
		goto out;
	}
	if (finish && o->finish_lazy && finish(I, &err) != 0) {
		rc = report_failure(I, o, &err);
		goto out;
	}
	if (write_report(I, o) < 0) {
		rc = EX_IOERR;
		goto out;
	}
	mcinit_init_launcher(I, NULL, &rank, NULL, NULL);
	if (o->cli.format != MCINIT_FMT_JSON && rank == 0)
		mcinit_init_summary(I, stdout);
	if (o->cli.nrest > 0) {
		if (finish && !o->finish_lazy)
			fprintf(stderr,
			        "mcinit run: lazy MPU init: handing over with the distributed "
			        "phases deferred\n");
		rc = exec_command(I, o);
	}
out:
	mcinit_destroy(I);
	return rc;
}

/* MCINIT_FAULT's crash and exit, which the library leaves to the program
 * (mcinit_init_options.on_fault).  A crash leaves no core file in the job's directory and is not
 * caught by a sanitizer's handler: the rank dies of the signal. */
static void
do_fault(void *arg, int action)
{
	struct rlimit none = {0, 0};
	sigset_t segv;

	(void)arg;
	if (action == MCINIT_FAULT_ACTION_EXIT)
		_exit(MCINIT_FAULT_EXIT_CODE); /* without a word, as a script's exit(3) */
	setrlimit(RLIMIT_CORE, &none);
	signal(SIGSEGV, SIG_DFL);
	sigemptyset(&segv);
	sigaddset(&segv, SIGSEGV);
	pthread_sigmask(SIG_UNBLOCK, &segv, NULL);
	raise(SIGSEGV);
	_exit(128 + SIGSEGV); /* not reached */
}

/* A worker of an mcinit launcher tells it each phase as it begins, one
 * line on the pipe MCINIT_PHASE_FD names (lib/run/supervisor.c). */
static void
tell_phase(void *arg, const char *phase)
{
	int fd = *(int *)arg;
	char line[64];
	int n = snprintf(line, sizeof line, "%s\n", phase);

	if (fd >= 0 && write(fd, line, (size_t)n) != n)
		*(int *)arg = -1; /* the launcher is gone: its death signal follows */
}

static void
phase_pipe(struct mcinit_init_options *io)
{
	static int fd = -1;
	const char *v = getenv("MCINIT_PHASE_FD");
	char *end;
	long n;

	if (!v || !getenv("MCINIT_LAUNCHED"))
		return;
	n = strtol(v, &end, 10);
	/* not for a hand-over command, which would inherit both */
	unsetenv("MCINIT_PHASE_FD");
	if (*v == '\0' || *end != '\0' || n < 3 || n > INT_MAX ||
	    fcntl((int)n, F_SETFD, FD_CLOEXEC) != 0)
		return;
	fd = (int)n;
	io->on_phase = tell_phase;
	io->callback_arg = &fd; /* do_fault ignores it */
}

int
mcinit_cmd_run(int argc, char **argv, int argi0)
{
	struct ropts o = {0};
	struct mcinit_init_options io = {.set_env = set_env};
	char **orig = copy_argv(argv - argi0, argc + argi0);
	const char *by;
	int n, rc;

	mcinit_cli_init(&o.cli, argi0, MCINIT_FMT_TEXT | MCINIT_FMT_JSON);
	n = mcinit_cli_split(&o.cli, argc, argv);
	argp_parse(&mcinit_run_argp, n, argv, 0, NULL, &o);
	io.allow_no_cuda = o.allow_no_cuda;
	io.lazy_mpu_init = o.lazy;
	io.no_bind = o.no_bind;
	io.bandwidth = o.bandwidth;
	io.flags = o.no_warmup ? MCINIT_INIT_NO_WARMUP : 0;
	io.timeout = o.timeout;
	io.master_addr = o.master_addr;
	io.master_port = o.master_port;
	io.progress = o.cli.format == MCINIT_FMT_JSON ? NULL : stdout;
	io.on_fault = do_fault;
	phase_pipe(&io);
	if (o.cli.check.nproc_per_node > 0 && !getenv("MCINIT_LAUNCHED")) {
		if (launched_elsewhere(&by)) {
			fprintf(stderr,
			        "mcinit run: --nproc-per-node would start workers, but this "
			        "process was already started by %s\n",
			        by);
			rc = EX_USAGE;
		} else {
			rc = run_launcher(&o, orig, &io);
		}
	} else {
		rc = run_rank(&o, &io);
	}
	free_argv(orig);
	mcinit_cli_destroy(&o.cli);
	return rc;
}
