/*
 * supervisor.c — the launcher of `mcinit run --nproc-per-node N`
 * (mcx_launch, private/mcinit-tool.h).  In the library, as the program's
 * one call: the program keeps the options and the exit status; this file
 * forks, reaps and ends only its own children.  It writes to the streams
 * it is handed: the workers' output to o->out and o->err, its own
 * messages to o->log.
 *
 * One loop (poll) watches a signalfd (SIGCHLD, SIGINT, SIGTERM, SIGHUP), the
 * store's epoll descriptor (node 0 serves the store in this same thread) and
 * the two output pipes of every worker.
 *
 * No orphans: every worker leads a process group of its own (so a hand-over
 * command that forks is still reached by kill(-pgid)), dies with the
 * launcher (PR_SET_PDEATHSIG), and a watchdog process — forked first, fed
 * the worker pids through a pipe — kills those groups when the launcher
 * disappears without saying goodbye (SIGKILL leaves no other chance).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/util.h"
#include "run/init.h"
#include "store/store.h"

extern char **environ;

struct stream {
	int fd;
	struct mcx_buf line;
	bool raw; /* passed through unprefixed (rank 0's JSON report) */
	FILE *to;
};

struct worker {
	long rank, local_rank;
	pid_t pid;
	bool running;
	int status;   /* wait status once reaped */
	bool stopped; /* still running when the job was stopped (a laggard?) */
	struct stream out, err;
	/* the phase it is in, told through a pipe of its own (MCINIT_PHASE_FD)
	 * from the first phase on: the store may not be there yet, and a rank
	 * that dies by a signal says nothing else */
	struct stream ph;
	char phase[32];
	char errfile[1100];
};

struct launch {
	const struct mcx_launch_opts *o;
	struct worker *w;
	long n, alive;
	struct mcinit_store_server *srv;
	unsigned long long told_unknown; /* the store's unknown commands logged */
	int port;
	char addr[256];
	char token[MCINIT_STORE_TOKEN_MAX + 1];
	char dir[1024];
	int sfd;
	int watch_fd; /* write end of the watchdog's pipe; -1 when none */
	pid_t watchdog;
	long first_fail; /* index into w, -1 */
	int forwarded;   /* signal forwarded to the workers, 0 none */
	double kill_at;  /* SIGKILL deadline, 0 none */
	double stop_at;  /* SIGTERM to all after a timeout, 0 none */
};

/* ---- worker output ---- */

static void
emit_line(struct launch *L, struct worker *w, struct stream *s, const char *p, size_t n)
{
	if (s == &w->ph) {
		snprintf(w->phase, sizeof w->phase, "%.*s", (int)n, p);
		return;
	}
	if (L->o->quiet && s == &w->out && w->rank != 0)
		return;
	if (s->raw)
		fprintf(s->to, "%.*s\n", (int)n, p);
	else
		fprintf(s->to, "[rank %ld] %.*s\n", w->rank, (int)n, p);
	fflush(s->to);
}

/* Ends a stream: its unfinished line is printed, its pipe closed. */
static void
stream_close(struct launch *L, struct worker *w, struct stream *s)
{
	if (s->line.len)
		emit_line(L, w, s, s->line.data, s->line.len);
	s->line.len = 0;
	close(s->fd);
	s->fd = -1;
}

/* Reads what is there; false at EOF. */
static bool
stream_read(struct launch *L, struct worker *w, struct stream *s)
{
	char buf[65536];
	ssize_t r = read(s->fd, buf, sizeof buf);
	size_t i, start = 0;

	if (r < 0 && (errno == EAGAIN || errno == EINTR))
		return true;
	if (r <= 0) {
		stream_close(L, w, s);
		return false;
	}
	for (i = 0; i < (size_t)r; i++) {
		if (buf[i] != '\n')
			continue;
		if (s->line.len) {
			mcx_buf_add(&s->line, buf + start, i - start);
			emit_line(L, w, s, s->line.data, s->line.len);
			s->line.len = 0;
		} else {
			emit_line(L, w, s, buf + start, i - start);
		}
		start = i + 1;
	}
	mcx_buf_add(&s->line, buf + start, (size_t)r - start);
	if (s->line.len > 1 << 20) { /* a line without end: do not hold it forever */
		emit_line(L, w, s, s->line.data, s->line.len);
		s->line.len = 0;
	}
	return true;
}

/* ---- the watchdog ---- */

/* The launcher's directory of error files, removed by whoever outlives it. */
static void
remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL)
		if (e->d_name[0] != '.')
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(dir);
}

static void
watchdog_main(int rfd, const char *dir)
{
	pid_t pids[4096];
	size_t n = 0, i;
	char c;

	for (;;) {
		int32_t pid;
		ssize_t r = read(rfd, &pid, sizeof pid);

		if (r == (ssize_t)sizeof pid && pid > 0) {
			if (n < sizeof pids / sizeof *pids)
				pids[n++] = pid;
			continue;
		}
		if (r == (ssize_t)sizeof pid && pid == 0)
			_exit(0); /* goodbye: the launcher reaped everything itself */
		if (r < 0 && errno == EINTR)
			continue;
		break; /* EOF: the launcher is gone */
	}
	(void)c;
	for (i = 0; i < n; i++)
		kill(-pids[i], SIGKILL);
	remove_dir(dir);
	_exit(0);
}

static int
watchdog_start(struct launch *L)
{
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		setpgid(0, 0); /* not in the terminal's group: a ^C is for the launcher */
		watchdog_main(p[0], L->dir);
	}
	close(p[0]);
	L->watch_fd = p[1];
	L->watchdog = pid;
	return 0;
}

static void
watchdog_tell(struct launch *L, int32_t pid)
{
	if (L->watch_fd >= 0 && write(L->watch_fd, &pid, sizeof pid) != (ssize_t)sizeof pid) {
		close(L->watch_fd);
		L->watch_fd = -1;
	}
}

/* ---- spawning ---- */

static void
env_put(struct mcx_buf *names, char ***envv, size_t *n, size_t *cap, char *kv)
{
	(void)names;
	if (*n + 2 > *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*envv = mcx_xrealloc(*envv, *cap * sizeof **envv);
	}
	(*envv)[(*n)++] = kv;
	(*envv)[*n] = NULL;
}

/* The variables the torchrun contract sets: dropped from the inherited
 * environment, then set afresh. */
static const char *const contract_vars[] = {"RANK",
                                            "WORLD_SIZE",
                                            "LOCAL_RANK",
                                            "LOCAL_WORLD_SIZE",
                                            "GROUP_RANK",
                                            "GROUP_WORLD_SIZE",
                                            "ROLE_RANK",
                                            "ROLE_WORLD_SIZE",
                                            "ROLE_NAME",
                                            "MASTER_ADDR",
                                            "MASTER_PORT",
                                            "TORCHELASTIC_RESTART_COUNT",
                                            "TORCHELASTIC_MAX_RESTARTS",
                                            "TORCHELASTIC_RUN_ID",
                                            "TORCHELASTIC_USE_AGENT_STORE",
                                            "TORCHELASTIC_ERROR_FILE",
                                            "MCINIT_LAUNCHED",
                                            "MCINIT_STORE_TOKEN",
                                            "MCINIT_PHASE_FD",
                                            NULL};

static bool
is_contract_var(const char *kv)
{
	const char *const *v;

	for (v = contract_vars; *v; v++) {
		size_t n = strlen(*v);

		if (strncmp(kv, *v, n) == 0 && kv[n] == '=')
			return true;
	}
	return false;
}

static char **
worker_env(const struct launch *L, const struct worker *w, int phase_fd)
{
	const struct mcx_launch_opts *o = L->o;
	char **v = NULL, **e;
	size_t n = 0, cap = 0;
	long world = o->nproc * o->nnodes;

	for (e = environ; *e; e++)
		if (!is_contract_var(*e))
			env_put(NULL, &v, &n, &cap, mcx_xstrdup(*e));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("RANK=%ld", w->rank));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("WORLD_SIZE=%ld", world));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("LOCAL_RANK=%ld", w->local_rank));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("LOCAL_WORLD_SIZE=%ld", o->nproc));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("GROUP_RANK=%ld", o->node_rank));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("GROUP_WORLD_SIZE=%ld", o->nnodes));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("ROLE_RANK=%ld", w->rank));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("ROLE_WORLD_SIZE=%ld", world));
	env_put(NULL, &v, &n, &cap, mcx_xstrdup("ROLE_NAME=default"));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("MASTER_ADDR=%s", L->addr));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("MASTER_PORT=%d", L->port));
	env_put(NULL, &v, &n, &cap, mcx_xstrdup("TORCHELASTIC_RESTART_COUNT=0"));
	env_put(NULL, &v, &n, &cap, mcx_xstrdup("TORCHELASTIC_MAX_RESTARTS=0"));
	env_put(NULL, &v, &n, &cap,
	        mcx_xasprintf("TORCHELASTIC_RUN_ID=mcinit-%s", L->dir + strlen(L->dir) - 6));
	/* the store is served (here or on node 0): join it, do not bind the port */
	env_put(NULL, &v, &n, &cap, mcx_xstrdup("TORCHELASTIC_USE_AGENT_STORE=True"));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("TORCHELASTIC_ERROR_FILE=%s", w->errfile));
	env_put(NULL, &v, &n, &cap, mcx_xstrdup("MCINIT_LAUNCHED=1"));
	env_put(NULL, &v, &n, &cap, mcx_xasprintf("MCINIT_PHASE_FD=%d", phase_fd));
	if (L->token[0])
		env_put(NULL, &v, &n, &cap, mcx_xasprintf("MCINIT_STORE_TOKEN=%s", L->token));
	if (o->nproc > 1 && !getenv("OMP_NUM_THREADS")) /* as torchrun does */
		env_put(NULL, &v, &n, &cap, mcx_xstrdup("OMP_NUM_THREADS=1"));
	return v;
}

static void
strv_free(char **v)
{
	char **p;

	for (p = v; p && *p; p++)
		free(*p);
	free(v);
}

static void
close_pipes(int p[][2], int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (p[i][0] >= 0)
			close(p[i][0]);
		if (p[i][1] >= 0)
			close(p[i][1]);
	}
}

static int
spawn(struct launch *L, struct worker *w, struct mcinit_err *err)
{
	int pipes[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
	int *po = pipes[0], *pe = pipes[1], *pp = pipes[2];
	char **env;
	pid_t parent = getpid(), pid;
	sigset_t none;
	int e;

	if (pipe2(po, O_CLOEXEC) != 0 || pipe2(pe, O_CLOEXEC) != 0 || pipe2(pp, O_CLOEXEC) != 0) {
		e = errno;
		close_pipes(pipes, 3);
		return mcinit_err_set(err, MCINIT_E_OS, "launcher: pipe: %s", strerror(e));
	}
	env = worker_env(L, w, pp[1]);
	pid = fork();
	if (pid < 0) {
		e = errno;
		strv_free(env);
		close_pipes(pipes, 3);
		return mcinit_err_set(err, MCINIT_E_OS, "launcher: fork: %s", strerror(e));
	}
	if (pid == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent) /* the launcher died before the prctl */
			_exit(137);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		fcntl(pp[1], F_SETFD, 0); /* the worker's own (it closes it on exec) */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		execve(L->o->self, L->o->argv, env);
		dprintf(2, "mcinit: cannot start %s: %s\n", L->o->self, strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* also here: no race with the first kill(-pid) */
	strv_free(env);
	close(po[1]);
	close(pe[1]);
	close(pp[1]);
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	fcntl(pp[0], F_SETFL, O_NONBLOCK);
	w->ph.fd = pp[0];
	w->pid = pid;
	w->running = true;
	w->out.fd = po[0];
	w->err.fd = pe[0];
	w->out.to = L->o->out;
	w->err.to = L->o->err;
	w->out.raw = L->o->json && w->rank == 0;
	L->alive++;
	watchdog_tell(L, pid);
	return 0;
}

/* ---- stopping ---- */

static void
signal_all(struct launch *L, int sig)
{
	long i;

	/* only the running: a reaped worker's group went with it (reap), and
	 * its number may since be another process group's, not ours to signal */
	for (i = 0; i < L->n; i++)
		if (L->w[i].pid > 0 && L->w[i].running)
			kill(-L->w[i].pid, sig);
}

static void
stop_all(struct launch *L, int sig)
{
	if (L->kill_at == 0)
		L->kill_at = mcinit_now() + L->o->grace;
	signal_all(L, sig);
}

/* Stops every worker after a failure (the survivors are marked). */
static void
stop_job(struct launch *L)
{
	long j;

	for (j = 0; j < L->n; j++)
		L->w[j].stopped = L->w[j].running;
	L->stop_at = 0;
	stop_all(L, SIGTERM);
}

static const char *
phase_of(struct launch *L, const struct worker *w, char *buf, size_t cap)
{
	char key[64], *v;
	long rank = w->rank;

	if (w->phase[0])
		return w->phase;
	if (!L->srv)
		return NULL;
	/* the workers' keys: torch's client prefix and the agent store's */
	snprintf(key, sizeof key, "//worker/attempt_0/mcinit/phase/%ld", rank);
	v = mcinit_store_server_lookup(L->srv, key, NULL);
	if (!v)
		return NULL;
	snprintf(buf, cap, "%s", v);
	free(v);
	return buf;
}

static int
exit_status_of(int st)
{
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	/* Neither exited nor killed: not reached (waitpid reports nothing
	 * else without WUNTRACED); 70, the program's status of an internal
	 * error, rather than a success. */
	return 70;
}

/* Where phase names stand in the sequence ("command" after them all). */
static int
phase_rank(const char *name)
{
	int p;

	for (p = 0; p < MCINIT_PH_COUNT; p++)
		if (strcmp(name, mcinit_phase_name(p)) == 0)
			return p;
	return MCINIT_PH_COUNT;
}

/* A timeout names the ranks that never arrived, not where they are: the
 * workers that were still running when the job stopped, in the earliest
 * phase any of them had reached, are the ones that hung or stalled. */
static void
laggards(struct launch *L)
{
	int least = MCINIT_PH_COUNT + 1;
	long i;

	for (i = 0; i < L->n; i++)
		if (L->w[i].stopped && phase_rank(L->w[i].phase) < least)
			least = phase_rank(L->w[i].phase);
	for (i = 0; i < L->n; i++) {
		const struct worker *w = &L->w[i];

		if (w->stopped && phase_rank(w->phase) == least)
			fprintf(L->o->log,
			        "mcinit run: rank %ld (pid %ld) was still in phase %s when the job "
			        "stopped\n",
			        w->rank, (long)w->pid, w->phase[0] ? w->phase : "(none yet)");
	}
}

/* A client of the store that sends a command the protocol lacks (a torch
 * newer than this store, in the program handed over to) loses its
 * connection: said here with the code, not left to a hang. */
static void
report_unknown(struct launch *L)
{
	struct mcinit_store_stats st;

	mcinit_store_server_stats(L->srv, &st);
	if (st.unknown == L->told_unknown)
		return;
	fprintf(L->o->log, "mcinit run: store: %s\n", st.unknown_why);
	L->told_unknown = st.unknown;
}

static void
root_cause(struct launch *L)
{
	struct worker *w = &L->w[L->first_fail];
	char *msg = mcinit_read_error_file(w->errfile);
	char phase[128];
	const char *ph = phase_of(L, w, phase, sizeof phase);
	FILE *f = L->o->log;

	if (WIFSIGNALED(w->status))
		fprintf(f,
		        "mcinit run: root cause: rank %ld (pid %ld) was killed by signal %d "
		        "(%s)%s%s%s\n",
		        w->rank, (long)w->pid, WTERMSIG(w->status), strsignal(WTERMSIG(w->status)),
		        ph ? " in phase " : "", ph ? ph : "", msg ? "" : "");
	else
		fprintf(
		    f, "mcinit run: root cause: rank %ld (pid %ld) exited with status %d%s%s%s%s\n",
		    w->rank, (long)w->pid, WEXITSTATUS(w->status), ph ? " in phase " : "",
		    ph ? ph : "", msg ? ": " : "", msg ? msg : "");
	free(msg);
	if (WIFEXITED(w->status) && WEXITSTATUS(w->status) == L->o->timeout_status)
		laggards(L);
}

static void
reap(struct launch *L)
{
	for (;;) {
		int st;
		pid_t pid = waitpid(-1, &st, WNOHANG);
		long i;

		if (pid <= 0)
			return;
		if (pid == L->watchdog) {
			L->watchdog = 0;
			continue;
		}
		for (i = 0; i < L->n; i++) {
			struct worker *w = &L->w[i];

			if (w->pid != pid || !w->running)
				continue;
			w->running = false;
			w->status = st;
			L->alive--;
			/* what the worker left behind in its group goes with it */
			kill(-pid, SIGKILL);
			if ((!WIFEXITED(st) || WEXITSTATUS(st) != 0) && L->first_fail < 0 &&
			    !L->forwarded) {
				L->first_fail = i;
				/* a rank that timed out: its peers hear the same
				 * verdict and leave on their own within moments, so
				 * those still running half a second later are the
				 * ones that hung (laggards) */
				if (WIFEXITED(st) && WEXITSTATUS(st) == L->o->timeout_status)
					L->stop_at =
					    mcinit_now() + (L->o->grace < 0.5 ? L->o->grace : 0.5);
				else
					stop_job(L);
			}
		}
	}
}

static void
on_signal(struct launch *L)
{
	struct signalfd_siginfo si;

	while (read(L->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
		if (si.ssi_signo == SIGCHLD) {
			reap(L);
			continue;
		}
		/* SIGINT/SIGTERM/SIGHUP: pass it on, then the grace period */
		if (!L->forwarded)
			L->forwarded = (int)si.ssi_signo;
		stop_all(L, (int)si.ssi_signo);
	}
}

/* The launcher waits for its workers, not for their pipes.  Once every
 * worker is reaped and the grace period is over, whatever still holds a
 * pipe escaped the worker's process group (a setsid daemon, a process that
 * double-forked): what it already wrote is printed, and the pipes are
 * closed rather than waited on for as long as it lives. */
static void
drain_streams(struct launch *L)
{
	long k;

	for (k = 0; k < L->n; k++) {
		struct stream *ss[3] = {&L->w[k].out, &L->w[k].err, &L->w[k].ph};
		int j;

		for (j = 0; j < 3; j++) {
			if (ss[j]->fd < 0 || !stream_read(L, &L->w[k], ss[j]))
				continue;
			stream_close(L, &L->w[k], ss[j]);
		}
	}
}

/* ---- the loop ---- */

static void
loop(struct launch *L)
{
	size_t cap = (size_t)(3 * L->n + 2);
	struct pollfd *pf = mcx_xcalloc(cap, sizeof *pf);
	struct stream **who = mcx_xcalloc(cap, sizeof *who);
	struct worker **whow = mcx_xcalloc(cap, sizeof *whow);

	for (;;) {
		size_t np = 0, i;
		long k;
		int ms = 500;

		pf[np++] = (struct pollfd){.fd = L->sfd, .events = POLLIN};
		if (L->srv)
			pf[np++] =
			    (struct pollfd){.fd = mcinit_store_server_fd(L->srv), .events = POLLIN};
		for (k = 0; k < L->n; k++) {
			struct stream *ss[3] = {&L->w[k].out, &L->w[k].err, &L->w[k].ph};
			int j;

			for (j = 0; j < 3; j++)
				if (ss[j]->fd >= 0) {
					who[np] = ss[j];
					whow[np] = &L->w[k];
					pf[np++] =
					    (struct pollfd){.fd = ss[j]->fd, .events = POLLIN};
				}
		}
		if (L->alive == 0 && np <= (L->srv ? 2u : 1u))
			break;
		if (L->alive == 0 || L->stop_at > 0)
			ms = 100;
		poll(pf, np, ms);
		if (L->stop_at > 0 && mcinit_now() >= L->stop_at && !L->forwarded)
			stop_job(L);
		if (pf[0].revents)
			on_signal(L);
		if (L->srv && (pf[1].revents & POLLIN)) {
			mcinit_store_server_step(L->srv, 0);
			report_unknown(L);
		}
		for (i = L->srv ? 2 : 1; i < np; i++)
			if (pf[i].revents)
				stream_read(L, whow[i], who[i]);
		if (L->kill_at > 0 && mcinit_now() >= L->kill_at && L->alive > 0) {
			signal_all(L, SIGKILL);
			L->kill_at = mcinit_now() + 3600;
		}
		if (L->alive == 0 && L->kill_at == 0)
			L->kill_at = mcinit_now() + 1;
		if (L->alive == 0 && mcinit_now() >= L->kill_at)
			drain_streams(L);
	}
	free(pf);
	free(who);
	free(whow);
}

/* Node 0's launcher serves the store: once its own workers are done it
 * keeps serving until every rank of the world has counted itself out
 * (init.c, depart), 60 s at most, or a signal. */
static void
serve_departures(struct launch *L)
{
	long world = L->o->nproc * L->o->nnodes;
	double until = mcinit_now() + 60;

	while (mcinit_now() < until) {
		struct pollfd pf[2] = {{.fd = L->sfd, .events = POLLIN},
		                       {.fd = mcinit_store_server_fd(L->srv), .events = POLLIN}};
		char *v =
		    mcinit_store_server_lookup(L->srv, "//worker/attempt_0/mcinit/depart", NULL);
		long n = v ? atol(v) : 0;

		free(v);
		if (n >= world)
			return;
		poll(pf, 2, 100);
		if (pf[0].revents) {
			struct signalfd_siginfo si;

			if (read(L->sfd, &si, sizeof si) == (ssize_t)sizeof si &&
			    si.ssi_signo != SIGCHLD)
				return;
		}
		if (pf[1].revents)
			mcinit_store_server_step(L->srv, 0);
	}
	fprintf(L->o->log, "mcinit run: gave up waiting for the other nodes' ranks to leave the "
	                   "store\n");
}

static void
random_token(char *out, size_t cap)
{
	unsigned char b[16];
	size_t i;

	if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		snprintf(out, cap, "%lx%lx%x", (long)ts.tv_nsec, (long)ts.tv_sec,
		         (unsigned)getpid());
		return;
	}
	for (i = 0; i < sizeof b && 2 * i + 2 < cap; i++)
		snprintf(out + 2 * i, 3, "%02x", b[i]);
}

static int
setup(struct launch *L, struct mcinit_err *err)
{
	const struct mcx_launch_opts *o = L->o;
	const char *tok = getenv("MCINIT_STORE_TOKEN");
	sigset_t set;

	snprintf(L->addr, sizeof L->addr, "%s", o->master_addr ? o->master_addr : "127.0.0.1");
	L->port = o->master_port > 0 ? o->master_port : (o->nnodes == 1 ? 0 : 29500);
	/* other nodes cannot guess a random token: share one through the
	 * environment (MCINIT_STORE_TOKEN), or go without */
	if (tok && strlen(tok) > MCINIT_STORE_TOKEN_MAX) /* cut, the ranks would be refused */
		return mcinit_err_set(err, MCINIT_E_USAGE,
		                      "MCINIT_STORE_TOKEN is %zu bytes long: at most %d are taken",
		                      strlen(tok), MCINIT_STORE_TOKEN_MAX);
	if (tok && *tok)
		snprintf(L->token, sizeof L->token, "%s", tok);
	else if (o->nnodes == 1)
		random_token(L->token, sizeof L->token);
	snprintf(L->dir, sizeof L->dir, "%s/mcinit-XXXXXX",
	         getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(L->dir))
		return mcinit_err_set(err, MCINIT_E_OS,
		                      "launcher: cannot create a directory in "
		                      "/tmp: %s",
		                      strerror(errno));
	if (o->node_rank == 0) {
		L->srv = mcinit_store_server_new(L->addr, L->port, L->token[0] ? L->token : NULL,
		                                 NULL, err);
		if (!L->srv)
			return -1;
		L->port = mcinit_store_server_port(L->srv);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	L->sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (L->sfd < 0)
		return mcinit_err_set(err, MCINIT_E_OS, "launcher: signalfd: %s", strerror(errno));
	if (watchdog_start(L) != 0)
		return mcinit_err_set(err, MCINIT_E_OS, "launcher: fork: %s", strerror(errno));
	return 0;
}

static void
teardown(struct launch *L)
{
	long i;
	int32_t bye = 0;

	for (i = 0; i < L->n; i++) {
		mcx_buf_free(&L->w[i].out.line);
		mcx_buf_free(&L->w[i].err.line);
		mcx_buf_free(&L->w[i].ph.line);
		if (L->w[i].ph.fd >= 0)
			close(L->w[i].ph.fd);
		if (L->w[i].out.fd >= 0)
			close(L->w[i].out.fd);
		if (L->w[i].err.fd >= 0)
			close(L->w[i].err.fd);
		if (L->w[i].errfile[0])
			unlink(L->w[i].errfile);
	}
	if (L->watch_fd >= 0) {
		if (L->alive == 0)
			watchdog_tell(L, bye);
		if (L->watch_fd >= 0)
			close(L->watch_fd);
	}
	if (L->watchdog > 0)
		waitpid(L->watchdog, NULL, 0);
	if (L->dir[0])
		rmdir(L->dir);
	if (L->sfd >= 0)
		close(L->sfd);
	mcinit_store_server_free(L->srv);
	free(L->w);
}

static int
launch(const struct mcx_launch_opts *o, struct mcinit_err *err)
{
	struct launch L = {.o = o, .first_fail = -1, .sfd = -1, .watch_fd = -1};
	long i;
	int status = 0;

	L.n = o->nproc;
	L.w = mcx_xcalloc((size_t)L.n, sizeof *L.w);
	for (i = 0; i < L.n; i++)
		L.w[i].out.fd = L.w[i].err.fd = L.w[i].ph.fd = -1;
	if (setup(&L, err) < 0) {
		status = -1;
		goto out;
	}
	for (i = 0; i < L.n; i++) {
		struct worker *w = &L.w[i];

		w->local_rank = i;
		w->rank = o->node_rank * o->nproc + i;
		snprintf(w->errfile, sizeof w->errfile, "%s/error-%ld.json", L.dir, w->rank);
		if (spawn(&L, w, err) < 0) {
			stop_all(&L, SIGTERM);
			status = -1;
			break;
		}
	}
	loop(&L);
	if (status < 0)
		goto out;
	if (L.srv && L.first_fail < 0 && !L.forwarded && o->nnodes > 1)
		serve_departures(&L);
	if (L.first_fail >= 0) {
		root_cause(&L);
		status = exit_status_of(L.w[L.first_fail].status);
	} else if (L.forwarded) {
		fprintf(o->log, "mcinit run: stopped by signal %d (%s)\n", L.forwarded,
		        strsignal(L.forwarded));
		status = 128 + L.forwarded;
	}
out:
	teardown(&L);
	return status;
}

int
mcx_launch(const struct mcx_launch_opts *o, mcinit_error_t *err)
{
	struct mcinit_err e = {0};
	int status = launch(o, &e);

	if (status < 0)
		mcinit_err_export(&e, err);
	return status;
}
