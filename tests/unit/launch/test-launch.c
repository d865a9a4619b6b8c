/* Unit tests: launcher environment contracts and Slurm hostlists. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch/contract.h"

static char *
joined(const char *list)
{
	char **h;
	size_t n, i;
	struct mcinit_err err = {0};
	struct mcx_buf b = {0};

	cr_assert_eq(mcinit_hostlist_expand(list, 1000, &h, &n, &err), 0, "%s: %s", list, err.msg);
	for (i = 0; i < n; i++)
		mcx_buf_printf(&b, "%s%s", i ? " " : "", h[i]);
	mcinit_hostlist_free(h, n);
	return b.data;
}

Test(hostlist, forms)
{
	static const char *const cases[][2] = {
	    {"node1", "node1"},
	    {"a,b,c", "a b c"},
	    {"node[001-004,7]", "node001 node002 node003 node004 node7"},
	    {"node[8-11]", "node8 node9 node10 node11"},
	    {"node[08-11]", "node08 node09 node10 node11"},
	    {"gpu[1-2]x[3-4]", "gpu1x3 gpu1x4 gpu2x3 gpu2x4"},
	    {"node[001-002],gpu[1-2]x[3-4]", "node001 node002 gpu1x3 gpu1x4 gpu2x3 gpu2x4"},
	    {"rack[1-2]-n[01-02]", "rack1-n01 rack1-n02 rack2-n01 rack2-n02"},
	    {"[1-3]", "1 2 3"},
	    {"h[5]", "h5"},
	    {"n[1,3,5-6].ib", "n1.ib n3.ib n5.ib n6.ib"},
	};
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *s = joined(cases[i][0]);

		cr_expect_str_eq(s, cases[i][1], "%s", cases[i][0]);
		free(s);
	}
}

Test(hostlist, malformed_is_an_error)
{
	static const char *const bad[] = {"node[1-", "node[4-2]", "node[a-b]", "node[1,]", "a,,b",
	                                  "a,",      "",          "node]1[",   "n[1-2] x", "n[]"};
	size_t i, n;
	char **h;
	struct mcinit_err err = {0};

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cr_expect_eq(mcinit_hostlist_expand(bad[i], 1000, &h, &n, &err), -1, "'%s'",
		             bad[i]);
	cr_expect_eq(mcinit_hostlist_expand("n[1-100000]", 1000, &h, &n, &err), -1);
	cr_expect_eq(mcinit_hostlist_expand("a[1-100]b[1-100]", 1000, &h, &n, &err), -1);
}

Test(tasks_per_node, compressed_form)
{
	long *c;
	size_t n;
	struct mcinit_err err = {0};

	cr_assert_eq(mcinit_tasks_per_node("4(x2),2", 100, &c, &n, &err), 0, "%s", err.msg);
	cr_assert_eq(n, 3);
	cr_expect(c[0] == 4 && c[1] == 4 && c[2] == 2);
	free(c);
	cr_assert_eq(mcinit_tasks_per_node("8", 100, &c, &n, &err), 0);
	cr_expect(n == 1 && c[0] == 8);
	free(c);
	cr_expect_eq(mcinit_tasks_per_node("4(2)", 100, &c, &n, &err), -1);
	cr_expect_eq(mcinit_tasks_per_node("4(x2", 100, &c, &n, &err), -1);
	cr_expect_eq(mcinit_tasks_per_node("x", 100, &c, &n, &err), -1);
	cr_expect_eq(mcinit_tasks_per_node("4,", 100, &c, &n, &err), -1);
	cr_expect_eq(mcinit_tasks_per_node("0", 100, &c, &n, &err), -1);
}

static struct mcinit_env e;
static struct mcinit_err err;

static int
detect(const char *const *envp)
{
	memset(&err, 0, sizeof err);
	return mcinit_env_detect(&e, envp, NULL, &err);
}

Test(env, none_is_one_process)
{
	const char *const env[] = {"HOME=/", NULL};

	cr_assert_eq(detect(env), 0);
	cr_expect_eq(e.contract, MCINIT_CONTRACT_NONE);
	cr_expect(e.world == 1 && e.rank == 0 && e.master_port == 29500);
	cr_expect_str_eq(e.key_prefix, "/");
}

Test(env, torchrun_with_agent_store)
{
	const char *const env[] = {"RANK=5",
	                           "WORLD_SIZE=8",
	                           "LOCAL_RANK=1",
	                           "LOCAL_WORLD_SIZE=4",
	                           "GROUP_RANK=1",
	                           "GROUP_WORLD_SIZE=2",
	                           "MASTER_ADDR=head",
	                           "MASTER_PORT=29400",
	                           "TORCHELASTIC_RESTART_COUNT=2",
	                           "TORCHELASTIC_USE_AGENT_STORE=True",
	                           "TORCHELASTIC_ERROR_FILE=/tmp/e.json",
	                           NULL};

	cr_assert_eq(detect(env), 0, "%s", err.msg);
	cr_expect_eq(e.contract, MCINIT_CONTRACT_TORCHRUN);
	cr_expect(e.rank == 5 && e.world == 8 && e.local_rank == 1 && e.local_world == 4);
	cr_expect(e.node_rank == 1 && e.nnodes == 2 && e.master_port == 29400);
	cr_expect(e.agent_store);
	cr_expect_str_eq(e.key_prefix, "//worker/attempt_2/");
	cr_expect_str_eq(e.master_addr, "head");
	cr_expect_str_eq(e.error_file, "/tmp/e.json");
}

Test(env, agent_store_is_exactly_True)
{
	const char *const env[] = {"RANK=0", "WORLD_SIZE=1", "TORCHELASTIC_USE_AGENT_STORE=true",
	                           NULL};

	cr_assert_eq(detect(env), 0);
	cr_expect(!e.agent_store);
	cr_expect_str_eq(e.key_prefix, "/");
}

Test(env, torchrun_contradictions)
{
	const char *const a[] = {"RANK=2", "WORLD_SIZE=2", "MASTER_ADDR=h", NULL};
	const char *const b[] = {
	    "RANK=0", "WORLD_SIZE=4", "LOCAL_RANK=4", "LOCAL_WORLD_SIZE=4", "MASTER_ADDR=h", NULL};
	const char *const c[] = {"RANK=0", NULL};
	const char *const d[] = {"RANK=0", "WORLD_SIZE=2", NULL};
	const char *const f[] = {"RANK=x", "WORLD_SIZE=2", NULL};

	cr_expect_eq(detect(a), -1);
	cr_expect(strstr(err.msg, "outside"), "%s", err.msg);
	cr_expect_eq(detect(b), -1);
	cr_expect(strstr(err.msg, "local rank 4"), "%s", err.msg);
	cr_expect_eq(detect(c), -1);
	cr_expect(strstr(err.msg, "WORLD_SIZE"), "%s", err.msg);
	cr_expect_eq(detect(d), -1);
	cr_expect(strstr(err.msg, "MASTER_ADDR"), "%s", err.msg);
	cr_expect_eq(detect(f), -1);
	cr_expect(strstr(err.msg, "RANK='x'"), "%s", err.msg);
}

Test(env, slurm)
{
	const char *const env[] = {"SLURM_PROCID=9",
	                           "SLURM_NTASKS=10",
	                           "SLURM_LOCALID=1",
	                           "SLURM_NODEID=2",
	                           "SLURM_JOB_NODELIST=ignored[1-9]",
	                           "SLURM_STEP_NODELIST=node[007-008],gpu9",
	                           "SLURM_TASKS_PER_NODE=4(x2),2",
	                           "SLURM_JOB_ID=123456789",
	                           NULL};

	cr_assert_eq(detect(env), 0, "%s", err.msg);
	cr_expect_eq(e.contract, MCINIT_CONTRACT_SLURM);
	cr_expect(e.rank == 9 && e.world == 10 && e.local_rank == 1 && e.local_world == 2);
	cr_expect(e.node_rank == 2 && e.nnodes == 3);
	cr_expect_str_eq(e.master_addr, "node007");
	cr_expect_eq(e.master_port, 15000 + 6789);
}

Test(env, slurm_master_port_and_addr_from_env)
{
	const char *const env[] = {"SLURM_PROCID=0",        "SLURM_NTASKS=2",
	                           "SLURM_LOCALID=0",       "SLURM_NODEID=0",
	                           "SLURM_NODELIST=n[1-2]", "SLURM_NTASKS_PER_NODE=1",
	                           "SLURM_JOB_ID=42",       "MASTER_PORT=1234",
	                           "MASTER_ADDR=10.0.0.1",  NULL};

	cr_assert_eq(detect(env), 0, "%s", err.msg);
	cr_expect_eq(e.master_port, 1234);
	cr_expect_str_eq(e.master_addr, "10.0.0.1");
	cr_expect_eq(e.local_world, 1);
}

Test(env, slurm_contradictions)
{
	const char *const a[] = {"SLURM_PROCID=0",
	                         "SLURM_NTASKS=5",
	                         "SLURM_NODEID=0",
	                         "SLURM_NODELIST=n[1-2]",
	                         "SLURM_TASKS_PER_NODE=2(x2)",
	                         NULL};
	const char *const b[] = {"SLURM_PROCID=0",          "SLURM_NTASKS=2",
	                         "SLURM_NODEID=3",          "SLURM_NODELIST=n[1-2]",
	                         "SLURM_NTASKS_PER_NODE=1", NULL};
	const char *const c[] = {"SLURM_PROCID=0", "SLURM_NODELIST=n1", NULL};

	cr_expect_eq(detect(a), -1);
	cr_expect(strstr(err.msg, "adds up to 4"), "%s", err.msg);
	cr_expect_eq(detect(b), -1);
	cr_expect(strstr(err.msg, "SLURM_NODEID=3"), "%s", err.msg);
	cr_expect_eq(detect(c), -1);
	cr_expect(strstr(err.msg, "SLURM_NTASKS"), "%s", err.msg);
}

Test(env, openmpi_needs_a_master)
{
	const char *const a[] = {"OMPI_COMM_WORLD_RANK=3", "OMPI_COMM_WORLD_SIZE=8",
	                         "OMPI_COMM_WORLD_LOCAL_RANK=3", "OMPI_COMM_WORLD_LOCAL_SIZE=4",
	                         NULL};
	const char *const b[] = {"OMPI_COMM_WORLD_RANK=3",
	                         "OMPI_COMM_WORLD_SIZE=8",
	                         "OMPI_COMM_WORLD_LOCAL_RANK=3",
	                         "OMPI_COMM_WORLD_LOCAL_SIZE=4",
	                         "MASTER_ADDR=head",
	                         NULL};

	cr_expect_eq(detect(a), -1);
	cr_expect(strstr(err.msg, "Open MPI gives no master address"), "%s", err.msg);
	cr_assert_eq(detect(b), 0, "%s", err.msg);
	cr_expect_eq(e.contract, MCINIT_CONTRACT_MPI);
	cr_expect(e.rank == 3 && e.local_world == 4 && e.node_rank == 0 && e.nnodes == 2);
}

Test(env, torchrun_comes_first)
{
	const char *const env[] = {"RANK=1",         "WORLD_SIZE=2",   "MASTER_ADDR=h",
	                           "SLURM_PROCID=7", "SLURM_NTASKS=8", NULL};

	cr_assert_eq(detect(env), 0);
	cr_expect_eq(e.contract, MCINIT_CONTRACT_TORCHRUN);
	cr_expect_eq(e.rank, 1);
}

Test(error_file, torchelastic_format)
{
	/* In the suite's TMPDIR, where the leftovers check sees a file a
	 * failed assertion leaves. */
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int fd;
	char *m;

	snprintf(path, sizeof path, "%s/mcinit-test-errXXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path);

	cr_assert_geq(fd, 0);
	cr_assert_eq(mcinit_write_error_file(path, "rank 3: rendezvous failed", "here"), 0);
	m = mcinit_read_error_file(path);
	cr_assert_str_eq(m, "rank 3: rendezvous failed");
	free(m);
	unlink(path);
}
