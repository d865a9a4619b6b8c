/*
 * bench-topology.c — time the rank-group generator at 2^16, 2^18 and 2^20
 * ranks (TP 8, PP 16, CP 2, EP 8, ETP 1; main, with hierarchical CP and two
 * optimizer instances, or with gtp_remat 2): every kind (a) in memory,
 * (b) as JSON streamed to /dev/null, (c) as JSON in one mcx_buf.
 * Prints the median of 5 runs (wall clock and CPU time), the peak RSS of
 * each case (measured in a child process of its own, so cases do not
 * inherit each other's peak), and the speed-up over Megatron-Core's own
 * generator where bench-topology.sh measured it in the same run: CPU time
 * against CPU time, as the reference is, since a loaded machine stretches
 * wall clock far more than CPU time.
 *
 * Usage: bench-topology [MAX_LOG2_WORLD]   (default 20)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "topo/topology.h"

#define REPS 5

enum mode { MODE_MEMORY, MODE_JSON_STREAM, MODE_JSON_BUF, MODE_COUNT };

static const char *const mode_names[MODE_COUNT] = {"groups in memory", "JSON -> /dev/null",
                                                   "JSON in a buffer"};

/* Megatron-Core's own generator (initialize_model_parallel, all groups)
 * at this world size, measured in the same run by bench-topology.sh
 * (tests/bench/topology-reference.py) and handed over as
 * MCINIT_TOPOLOGY_REFERENCE="WORLD=SECONDS,...": 0 when not measured (no
 * Megatron-Core installed), and no ratio is printed then. */
static double
reference_seconds(long world)
{
	const char *p = getenv("MCINIT_TOPOLOGY_REFERENCE");

	while (p != NULL && *p != '\0') {
		char *end;
		long w = strtol(p, &end, 10);
		double secs;

		if (*end != '=')
			return 0.0;
		secs = strtod(end + 1, &end);
		if (w == world)
			return secs;
		p = *end == ',' ? end + 1 : NULL;
	}
	return 0.0;
}

static double
now(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One run of a mode; returns the bytes produced (members for MODE_MEMORY). */
static long
run_once(const struct mcinit_topo *t, enum mode m, FILE *devnull)
{
	struct mcinit_groups g[MCINIT_FAM_MAX];
	struct mcx_buf b = {0};
	struct mcinit_err err = {0};
	long n = 0;
	int k;

	switch (m) {
	case MODE_MEMORY:
		for (k = 0; k < t->nfam; k++) {
			if (mcinit_topo_fam_groups(t, k, &g[k], &err) < 0) {
				fprintf(stderr, "bench-topology: %s\n", err.msg);
				exit(1);
			}
			n += g[k].ngroups * g[k].size;
		}
		for (k = 0; k < t->nfam; k++)
			mcinit_groups_destroy(&g[k]);
		return n;
	case MODE_JSON_STREAM:
		if (mcinit_topo_json_groups_write(t, MCINIT_GROUP_ALL, devnull, &err) < 0) {
			fprintf(stderr, "bench-topology: %s\n", err.msg);
			exit(1);
		}
		return 0;
	case MODE_JSON_BUF:
		mcinit_topo_json_groups(t, MCINIT_GROUP_ALL, &b);
		n = (long)b.len;
		mcx_buf_free(&b);
		return n;
	default:
		return 0;
	}
}

static ssize_t
count_write(void *cookie, const char *buf, size_t n)
{
	(void)buf;
	*(long *)cookie += (long)n;
	return (ssize_t)n;
}

/* Size of the streamed text, counted outside the timed runs (/dev/null cannot tell). */
static long
streamed_bytes(const struct mcinit_topo *t)
{
	cookie_io_functions_t io = {.write = count_write};
	long n = 0;
	FILE *f = fopencookie(&n, "w", io);

	if (f == NULL || mcinit_topo_json_groups_write(t, MCINIT_GROUP_ALL, f, NULL) < 0)
		return -1;
	fclose(f);
	return n;
}

struct result {
	double median, min, cpu; /* wall clock; cpu: median CPU time (user + system) */
	long produced;
};

/* Two jobs on main between them create every kind: hierarchical CP and two
 * optimizer instances, or the gtp_remat axis (which excludes instances). */
static const char *const job_names[2] = {"hcp 2, 2 instances", "gtp_remat 2, expert 2"};

static void
child(long world, int job, enum mode m, int fd)
{
	struct mcinit_topo_sizes s = {.world = world,
	                              .tp = 8,
	                              .pp = 16,
	                              .cp = 2,
	                              .ep = 8,
	                              .etp = 1,
	                              .features = mcinit_topo_features("main")};
	struct mcinit_topo t;
	struct mcinit_err err = {0};
	struct result r = {0};
	double times[REPS], cpu[REPS];
	FILE *devnull = fopen("/dev/null", "w");
	int i;

	if (job == 0) {
		s.nhcp = 1;
		s.hcp[0] = 2;
		s.dist_opt_instances = 2;
	} else {
		s.gtp = s.egtp = 2;
	}
	if (devnull == NULL || mcinit_topo_init(&t, &s, &err) < 0) {
		fprintf(stderr, "bench-topology: %s\n", devnull ? err.msg : "/dev/null");
		_exit(1);
	}
	for (i = 0; i < REPS; i++) {
		double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);

		rewind(devnull);
		r.produced = run_once(&t, m, devnull);
		times[i] = now(CLOCK_MONOTONIC) - t0;
		cpu[i] = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
	}
	if (m == MODE_JSON_STREAM)
		r.produced = streamed_bytes(&t);
	qsort(times, REPS, sizeof times[0], cmp_double);
	qsort(cpu, REPS, sizeof cpu[0], cmp_double);
	r.median = times[REPS / 2];
	r.cpu = cpu[REPS / 2];
	r.min = times[0];
	if (write(fd, &r, sizeof r) != (ssize_t)sizeof r)
		_exit(1);
	fclose(devnull);
	_exit(0);
}

/* Runs one case in a child; *maxrss_kib gets that child's peak RSS. */
static int
measure(long world, int job, enum mode m, struct result *r, long *maxrss_kib)
{
	struct rusage ru;
	int fd[2], status, wst;
	pid_t pid;

	if (pipe(fd) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(fd[0]);
		child(world, job, m, fd[1]);
	}
	close(fd[1]);
	if (read(fd[0], r, sizeof *r) != (ssize_t)sizeof *r)
		status = -1;
	else
		status = 0;
	close(fd[0]);
	if (wait4(pid, &wst, 0, &ru) < 0)
		return -1;
	if (!WIFEXITED(wst) || WEXITSTATUS(wst) != 0)
		status = -1;
	*maxrss_kib = ru.ru_maxrss;
	return status;
}

int
main(int argc, char **argv)
{
	int maxlog = argc > 1 ? atoi(argv[1]) : 20, lg, m, job;

	if (maxlog < 16 || maxlog > 24) {
		fprintf(stderr, "usage: bench-topology [MAX_LOG2_WORLD: 16..24]\n");
		return 64;
	}
	printf("rank groups, every kind main creates; TP 8, PP 16, CP 2, EP 8, ETP 1; median of "
	       "%d runs\n",
	       REPS);
	printf("%9s  %-22s %-18s %10s %10s %8s %14s %9s %12s\n", "ranks", "job", "what",
	       "median ms", "min ms", "CPU ms", "output", "peak RSS", "vs Megatron");
	for (lg = 16; lg <= maxlog; lg += 2) {
		long world = 1L << lg;

		for (job = 0; job < 2; job++)
			for (m = 0; m < MODE_COUNT; m++) {
				struct result r;
				long rss;
				double ref = reference_seconds(world);
				char out[32], vs[32];

				if (measure(world, job, m, &r, &rss) < 0) {
					fprintf(stderr, "bench-topology: case failed\n");
					return 1;
				}
				if (m == MODE_MEMORY)
					snprintf(out, sizeof out, "%.1fM members",
					         (double)r.produced / 1e6);
				else
					snprintf(out, sizeof out, "%.1f MB",
					         (double)r.produced / 1e6);
				if (ref > 0)
					snprintf(vs, sizeof vs, "%.0fx faster",
					         ref / (r.cpu > 0 ? r.cpu : r.median));
				else
					snprintf(vs, sizeof vs, "-");
				printf("%9ld  %-22s %-18s %10.2f %10.2f %8.2f %14s %6.1f MB %12s\n",
				       world, job_names[job], mode_names[m], r.median * 1e3,
				       r.min * 1e3, r.cpu * 1e3, out, (double)rss / 1024.0, vs);
			}
	}
	printf("%s\n", getenv("MCINIT_TOPOLOGY_REFERENCE") != NULL
	                   ? "vs Megatron: Megatron-Core's initialize_model_parallel, in "
	                     "memory, measured above in this run (CPU time against CPU time)"
	                   : "vs Megatron: not measured (no Megatron-Core: set MEGATRON_PYTHON)");
	return 0;
}
