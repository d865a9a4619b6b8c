/* test-affinity.c — GPU/NUMA/NIC affinity from hwloc: the three XML
 * fixtures of tests/fixtures (exact bus ids, NUMA nodes, cpusets, NICs and
 * link classes), GPU ordering, placement warnings, JSON, and loading and
 * binding on this machine.
 *
 * Fixtures are found in $srcdir/tests/fixtures (automake exports srcdir),
 * else in MCINIT_FIXTURES_DIR (default "tests/fixtures", relative to the
 * directory the test runs in). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <jansson.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "topo/affinity.h"

#ifndef MCINIT_FIXTURES_DIR
#define MCINIT_FIXTURES_DIR "tests/fixtures"
#endif

/* ---- helpers ---------------------------------------------------------- */

static char *
fixture(const char *name)
{
	const char *srcdir = getenv("srcdir");

	if (srcdir != NULL && *srcdir != '\0')
		return mcx_xasprintf("%s/tests/fixtures/%s", srcdir, name);
	return mcx_xasprintf("%s/%s", MCINIT_FIXTURES_DIR, name);
}

static struct mcinit_affinity *
load_fixture(const char *name)
{
	struct mcinit_affinity_opts o = {0};
	struct mcinit_err err = {0};
	struct mcinit_affinity *a;
	char *path = fixture(name);

	o.xml_path = path;
	a = mcinit_affinity_load(&o, &err);
	cr_assert_not_null(a, "loading %s: %s", path, err.msg);
	cr_assert_eq(mcinit_affinity_is_live(a), 0, "an XML topology is not this machine");
	free(path);
	return a;
}

static const char *
link_str(struct mcinit_link l)
{
	static char buf[4][16];
	static int k;

	k = (k + 1) % 4;
	return mcinit_link_name(l, buf[k], sizeof buf[k]);
}

static void
assert_gpu(const struct mcinit_affinity *a, size_t i, const char *busid, unsigned numa,
           const char *cpuset, const char *nic)
{
	const struct mcinit_affinity_gpu *g = mcinit_affinity_gpu(a, i);

	cr_assert_not_null(g, "GPU %zu", i);
	cr_assert_str_eq(g->busid, busid, "GPU %zu bus id", i);
	cr_assert_eq(g->nnuma, 1, "GPU %zu: one NUMA node", i);
	cr_assert_eq(g->numa[0], numa, "GPU %zu NUMA node", i);
	cr_assert_str_eq(g->cpuset, cpuset, "GPU %zu cpuset", i);
	if (nic == NULL) {
		cr_assert_eq(g->nnics, 0, "GPU %zu: no near NIC", i);
	} else {
		cr_assert_eq(g->nnics, 1, "GPU %zu: %zu near NICs", i, g->nnics);
		cr_assert_str_eq(g->nics[0], nic, "GPU %zu NIC", i);
	}
}

static char *
warnings_joined(const struct mcinit_affinity *a, const struct mcinit_affinity_placement *p,
                size_t *n)
{
	char **v = NULL;
	struct mcx_buf b = {0};
	size_t i, count = 99;

	cr_assert_eq(mcinit_affinity_warnings(a, p, &v, NULL, &count), 0);
	cr_assert_not_null(v);
	for (i = 0; v[i] != NULL; i++)
		mcx_buf_printf(&b, "%s\n", v[i]);
	cr_assert_eq(i, count, "count matches the NULL-terminated array");
	*n = count;
	mcinit_affinity_warnings_free(v);
	mcx_buf_cstr(&b);
	return b.data;
}

static size_t
count_substr(const char *hay, const char *needle)
{
	size_t n = 0;
	const char *p = hay;

	while ((p = strstr(p, needle)) != NULL) {
		n++;
		p += strlen(needle);
	}
	return n;
}

static void
replace_same_len(char *s, const char *from, const char *to)
{
	char *p = strstr(s, from);

	cr_assert_not_null(p, "%s in the fixture", from);
	cr_assert_eq(strlen(from), strlen(to));
	memcpy(p, to, strlen(to));
}

static void
assert_json(json_t *got, const char *want)
{
	json_error_t jerr;
	json_t *w = json_loads(want, 0, &jerr);
	char *g = json_dumps(got, JSON_COMPACT | JSON_SORT_KEYS);

	cr_assert_not_null(w, "bad expected JSON: %s", jerr.text);
	cr_assert(json_equal(got, w), "JSON %s, want %s", g, want);
	free(g);
	json_decref(w);
	json_decref(got);
}

/* ---- dgx8-2s: 8 GPUs, 2 sockets, PCIe switches, NVLink all-to-all ------ */

static const char *const dgx8_bus[8] = {"0000:13:00.0", "0000:14:00.0", "0000:43:00.0",
                                        "0000:44:00.0", "0000:93:00.0", "0000:94:00.0",
                                        "0000:c3:00.0", "0000:c4:00.0"};

Test(affinity_dgx8, gpus_numa_cpusets_nics)
{
	struct mcinit_affinity *a = load_fixture("dgx8-2s.xml");
	static const char *const nics[4] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"};
	size_t i;

	cr_assert_eq(mcinit_affinity_ngpus(a), 8);
	for (i = 0; i < 8; i++) {
		const struct mcinit_affinity_gpu *g = mcinit_affinity_gpu(a, i);
		char name[16];

		assert_gpu(a, i, dgx8_bus[i], i < 4 ? 0 : 1, i < 4 ? "0-55" : "56-111",
		           nics[i / 2]);
		cr_assert_str_eq(g->model, "NVIDIA H100 80GB HBM3");
		snprintf(name, sizeof name, "nvml%zu", i);
		cr_assert_str_eq(g->osname, name);
	}
	cr_assert_null(mcinit_affinity_gpu(a, 8));
	cr_assert_eq(mcinit_affinity_nnics(a), 4, "netdevs of RDMA ports are not extra NICs");
	for (i = 0; i < 4; i++)
		cr_assert_str_eq(mcinit_affinity_nic(a, i)->name, nics[i]);
	cr_assert_str_eq(mcinit_affinity_nic(a, 2)->busid, "0000:95:00.0");
	cr_assert_str_eq(mcinit_affinity_allowed_cpuset(a), "0-111");
	mcinit_affinity_free(a);
}

Test(affinity_dgx8, cpu_side)
{
	struct mcinit_affinity *a = load_fixture("dgx8-2s.xml");

	cr_assert_eq(mcinit_affinity_npackages(a), 2);
	cr_assert_eq(mcinit_affinity_nnuma(a), 2);
	cr_assert_str_eq(mcinit_affinity_package(a, 0)->cpuset, "0-55");
	cr_assert_str_eq(mcinit_affinity_package(a, 1)->cpuset, "56-111");
	cr_assert_eq(mcinit_affinity_package(a, 1)->nnuma, 1);
	cr_assert_eq(mcinit_affinity_package(a, 1)->numa[0], 1);
	cr_assert_eq(mcinit_affinity_numa(a, 1)->os_index, 1);
	cr_assert_str_eq(mcinit_affinity_numa(a, 1)->cpuset, "56-111");
	cr_assert_eq(mcinit_affinity_numa(a, 0)->memory, 1081608011776ULL);
	cr_assert_null(mcinit_affinity_numa(a, 2));
	mcinit_affinity_free(a);
}

Test(affinity_dgx8, nvlink_everywhere)
{
	struct mcinit_affinity *a = load_fixture("dgx8-2s.xml");
	struct mcx_buf b = {0};
	size_t i, j;

	for (i = 0; i < 8; i++)
		for (j = 0; j < 8; j++) {
			struct mcinit_link l = mcinit_affinity_gpu_link(a, i, j);

			if (i == j) {
				cr_assert_eq(l.kind, MCINIT_LINK_SELF);
				continue;
			}
			cr_assert_eq(l.kind, MCINIT_LINK_NV, "GPU%zu-GPU%zu is %s", i, j,
			             link_str(l));
			cr_assert_eq(l.nvlinks, 18, "GPU%zu-GPU%zu: 18 links of 25 GB/s", i, j);
		}
	mcinit_affinity_matrix_text(a, &b);
	cr_assert_eq(count_substr(mcx_buf_cstr(&b), "NV18"), 56, "%s", b.data);
	cr_assert(strstr(b.data, "GPU0   X      NV18") != NULL, "%s", b.data);
	cr_assert(strstr(b.data, "NIC0: mlx5_0") != NULL);
	cr_assert(strstr(b.data, "Legend") != NULL);
	mcx_buf_free(&b);
	mcinit_affinity_free(a);
}

Test(affinity_dgx8, gpu_nic_links)
{
	struct mcinit_affinity *a = load_fixture("dgx8-2s.xml");
	static const char *const want[8][4] = {
	    {"PIX", "NODE", "SYS", "SYS"}, {"PIX", "NODE", "SYS", "SYS"},
	    {"NODE", "PIX", "SYS", "SYS"}, {"NODE", "PIX", "SYS", "SYS"},
	    {"SYS", "SYS", "PIX", "NODE"}, {"SYS", "SYS", "PIX", "NODE"},
	    {"SYS", "SYS", "NODE", "PIX"}, {"SYS", "SYS", "NODE", "PIX"},
	};
	size_t g, k;

	for (g = 0; g < 8; g++)
		for (k = 0; k < 4; k++)
			cr_assert_str_eq(link_str(mcinit_affinity_gpu_nic_link(a, g, k)),
			                 want[g][k], "GPU%zu-NIC%zu", g, k);
	cr_assert_eq(mcinit_affinity_gpu_nic_link(a, 0, 9).kind, MCINIT_LINK_SYS);
	cr_assert_eq(mcinit_affinity_gpu_link(a, 0, 99).kind, MCINIT_LINK_SYS);
	mcinit_affinity_free(a);
}

Test(affinity_dgx8, json_entries)
{
	struct mcinit_affinity *a = load_fixture("dgx8-2s.xml");
	int map[3] = {5, 0, -1};

	assert_json(mcinit_affinity_entry_json(a, 2, 2),
	            "{\"local_rank\":2,\"gpu\":\"0000:43:00.0\",\"numa\":[0],"
	            "\"cpuset\":\"0-55\",\"nics\":[\"mlx5_1\"]}");
	assert_json(mcinit_affinity_json(a, 3, map),
	            "[{\"local_rank\":0,\"gpu\":\"0000:94:00.0\",\"numa\":[1],"
	            "\"cpuset\":\"56-111\",\"nics\":[\"mlx5_2\"]},"
	            "{\"local_rank\":1,\"gpu\":\"0000:13:00.0\",\"numa\":[0],"
	            "\"cpuset\":\"0-55\",\"nics\":[\"mlx5_0\"]},"
	            "{\"local_rank\":2,\"gpu\":null,\"numa\":[0,1],"
	            "\"cpuset\":\"0-111\",\"nics\":[]}]");
	mcinit_affinity_free(a);
}

Test(affinity_dgx8, summary_text)
{
	struct mcinit_affinity *a = load_fixture("dgx8-2s.xml");
	struct mcx_buf b = {0};

	mcinit_affinity_summary_text(a, &b);
	mcx_buf_cstr(&b);
	cr_assert(strstr(b.data, "Packages: 2\n") != NULL, "%s", b.data);
	cr_assert(strstr(b.data, "node 1: CPUs 56-111") != NULL, "%s", b.data);
	cr_assert(strstr(b.data, "GPU7 0000:c4:00.0 NVIDIA H100 80GB HBM3: NUMA 1, CPUs 56-111, "
	                         "NICs mlx5_3") != NULL,
	          "%s", b.data);
	mcx_buf_free(&b);
	mcinit_affinity_free(a);
}

/* ---- node4-1s: 4 GPUs, 1 socket, no NVLink ---------------------------- */

Test(affinity_node4, gpus_and_nics)
{
	struct mcinit_affinity *a = load_fixture("node4-1s.xml");
	static const char *const bus[4] = {"0000:05:00.0", "0000:06:00.0", "0000:07:00.0",
	                                   "0000:41:00.0"};
	size_t i;

	cr_assert_eq(mcinit_affinity_ngpus(a), 4);
	for (i = 0; i < 4; i++) {
		char name[16];

		assert_gpu(a, i, bus[i], 0, "0-63", "mlx5_0");
		snprintf(name, sizeof name, "cuda%zu", i);
		cr_assert_str_eq(mcinit_affinity_gpu(a, i)->osname, name);
		cr_assert_str_eq(mcinit_affinity_gpu(a, i)->model, "NVIDIA L40S");
	}
	/* eno1 is a plain Ethernet port: with an RDMA device present it is not
	 * what NCCL would use, so it is not listed. */
	cr_assert_eq(mcinit_affinity_nnics(a), 1);
	cr_assert_eq(mcinit_affinity_npackages(a), 1);
	cr_assert_eq(mcinit_affinity_nnuma(a), 1);
	cr_assert_str_eq(mcinit_affinity_numa(a, 0)->cpuset, "0-63");
	mcinit_affinity_free(a);
}

Test(affinity_node4, pcie_link_classes)
{
	struct mcinit_affinity *a = load_fixture("node4-1s.xml");
	static const char *const want[4][4] = {
	    {"X", "PIX", "PXB", "NODE"},
	    {"PIX", "X", "PXB", "NODE"},
	    {"PXB", "PXB", "X", "NODE"},
	    {"NODE", "NODE", "NODE", "X"},
	};
	static const char *const nic[4] = {"PHB", "PHB", "PHB", "NODE"};
	struct mcx_buf b = {0};
	size_t i, j;

	for (i = 0; i < 4; i++) {
		for (j = 0; j < 4; j++)
			cr_assert_str_eq(link_str(mcinit_affinity_gpu_link(a, i, j)), want[i][j],
			                 "GPU%zu-GPU%zu", i, j);
		cr_assert_str_eq(link_str(mcinit_affinity_gpu_nic_link(a, i, 0)), nic[i],
		                 "GPU%zu-NIC0", i);
	}
	mcinit_affinity_matrix_text(a, &b);
	mcx_buf_cstr(&b);
	cr_assert(strstr(b.data, "       GPU0   GPU1   GPU2   GPU3   NIC0   CPU Affinity") != NULL,
	          "%s", b.data);
	cr_assert(strstr(b.data,
	                 "\nGPU0   X      PIX    PXB    NODE   PHB    0-63            0\n") != NULL,
	          "%s", b.data);
	cr_assert(strstr(b.data, "\nNIC0   PHB    PHB    PHB    NODE   X\n") != NULL, "%s", b.data);
	cr_assert(strstr(b.data, "NV") == NULL || strstr(b.data, "NV#") != NULL);
	cr_assert_eq(count_substr(b.data, "NV1"), 0);
	mcx_buf_free(&b);
	mcinit_affinity_free(a);
}

Test(affinity_node4, gpu_order_from_cuda_names)
{
	struct mcinit_err err = {0};
	char *path = fixture("node4-1s.xml");
	char *xml = mcinit_read_file(path, NULL, &err);
	struct mcinit_affinity_opts o = {0};
	struct mcinit_affinity *a;

	cr_assert_not_null(xml, "%s", err.msg);
	/* Swap the names cuda0 and cuda3 (CUDA_DEVICE_ORDER=FASTEST_FIRST
	 * style): the order must follow the names, not the bus. */
	replace_same_len(xml, "name=\"cuda0\"", "name=\"cudaT\"");
	replace_same_len(xml, "name=\"cuda3\"", "name=\"cuda0\"");
	replace_same_len(xml, "name=\"cudaT\"", "name=\"cuda3\"");
	o.xml_buffer = xml;
	a = mcinit_affinity_load(&o, &err);
	cr_assert_not_null(a, "%s", err.msg);
	cr_assert_str_eq(mcinit_affinity_source(a), "XML buffer");
	cr_assert_str_eq(mcinit_affinity_gpu(a, 0)->busid, "0000:41:00.0");
	cr_assert_str_eq(mcinit_affinity_gpu(a, 0)->osname, "cuda0");
	cr_assert_str_eq(mcinit_affinity_gpu(a, 1)->busid, "0000:06:00.0");
	cr_assert_str_eq(mcinit_affinity_gpu(a, 3)->busid, "0000:05:00.0");
	cr_assert_str_eq(link_str(mcinit_affinity_gpu_link(a, 1, 3)), "PIX");
	mcinit_affinity_free(a);
	free(xml);
	free(path);
}

Test(affinity_node4, tp_group_without_nvlink_warns)
{
	struct mcinit_affinity *a = load_fixture("node4-1s.xml");
	static const int g0[4] = {0, 1, 2, 3};
	const int *groups[1] = {g0};
	size_t len[1] = {4}, n;
	struct mcinit_affinity_placement p = {4, NULL, 1, len, groups, NULL};
	char *w = warnings_joined(a, &p, &n);

	cr_assert_eq(n, 1, "%s", w);
	cr_assert(strstr(w,
	                 "tensor-parallel group 0 (GPUs 0,1,2,3) is not fully "
	                 "NVLink-connected: 6 GPU pairs without NVLink, e.g. GPU0-GPU1 over PIX") !=
	              NULL,
	          "%s", w);
	free(w);
	mcinit_affinity_free(a);
}

Test(affinity_node4, warning_kinds_and_group_ids)
{
	struct mcinit_affinity *a = load_fixture("node4-1s.xml");
	static const int g0[2] = {0, 1}, g1[2] = {2, 3}, map[6] = {0, 1, 2, 3, 0, 1};
	static const long ids[2] = {6, 7};
	const int *groups[2] = {g0, g1};
	size_t len[2] = {2, 2}, n = 0;
	struct mcinit_affinity_placement p = {6, map, 2, len, groups, ids};
	struct mcinit_err err = {0};
	enum mcinit_affinity_warn *kinds = NULL;
	char **v = NULL;

	cr_assert_eq(mcinit_affinity_set_allowed_cpuset(a, "64", &err), 0, "%s", err.msg);
	cr_assert_eq(mcinit_affinity_warnings(a, &p, &v, &kinds, &n), 0);
	/* 6 ranks on 4 GPUs; both TP groups lack NVLink; every GPU is far. */
	cr_assert_eq(n, 1 + 2 + 4);
	cr_assert_not_null(kinds);
	cr_assert_eq(kinds[0], MCINIT_AFF_WARN_RANKS, "%s", v[0]);
	cr_assert_eq(kinds[1], MCINIT_AFF_WARN_TP_NVLINK, "%s", v[1]);
	cr_assert(strncmp(v[1], "tensor-parallel group 6 (GPUs 0,1)", 34) == 0, "%s", v[1]);
	cr_assert_eq(kinds[2], MCINIT_AFF_WARN_TP_NVLINK, "%s", v[2]);
	cr_assert(strncmp(v[2], "tensor-parallel group 7 (GPUs 2,3)", 34) == 0, "%s", v[2]);
	for (size_t i = 3; i < n; i++)
		cr_assert_eq(kinds[i], MCINIT_AFF_WARN_FAR_CPUS, "%s", v[i]);
	cr_assert(strstr(v[3], "local rank 0,4 would run far") != NULL, "%s", v[3]);
	free(kinds);
	mcinit_affinity_warnings_free(v);
	mcinit_affinity_free(a);
}

Test(affinity_node4, nvlinks_reported_by_the_caller)
{
	struct mcinit_affinity *a = load_fixture("node4-1s.xml");
	struct mcinit_err err = {0};
	static const int g0[2] = {0, 1}, g1[2] = {2, 3};
	const int *groups[2] = {g0, g1};
	size_t len[2] = {2, 2}, n;
	struct mcinit_affinity_placement p = {4, NULL, 2, len, groups, NULL};
	char *w;

	cr_assert_eq(mcinit_affinity_nvlink_known(a), 1, "an XML file is authoritative");
	cr_assert_eq(mcinit_affinity_set_nvlink(a, 1, 0, 4, &err), 0, "%s", err.msg);
	cr_assert_str_eq(link_str(mcinit_affinity_gpu_link(a, 0, 1)), "NV4");
	cr_assert_str_eq(link_str(mcinit_affinity_gpu_link(a, 1, 0)), "NV4");
	cr_assert_str_eq(link_str(mcinit_affinity_gpu_link(a, 0, 2)), "PXB");
	w = warnings_joined(a, &p, &n);
	cr_assert_eq(n, 1, "%s", w);
	cr_assert(strstr(w, "tensor-parallel group 1 (GPUs 2,3)") != NULL, "%s", w);
	cr_assert(strstr(w, "1 GPU pair without NVLink, e.g. GPU2-GPU3 over NODE") != NULL, "%s",
	          w);
	free(w);
	cr_assert_eq(mcinit_affinity_set_nvlink(a, 2, 2, 1, &err), -1);
	cr_assert_eq(err.code, MCINIT_E_USAGE);
	cr_assert_eq(mcinit_affinity_set_nvlink(a, 0, 4, 1, &err), -1);
	mcinit_affinity_free(a);
}

/* ---- node16-2s: 16 GPUs over 2 sockets, NVSwitch ---------------------- */

Test(affinity_node16, numa_split_and_cpusets)
{
	struct mcinit_affinity *a = load_fixture("node16-2s.xml");
	static const char *const bus[16] = {
	    "0000:15:00.0", "0000:16:00.0", "0000:1d:00.0", "0000:1e:00.0",
	    "0000:45:00.0", "0000:46:00.0", "0000:4d:00.0", "0000:4e:00.0",
	    "0000:95:00.0", "0000:96:00.0", "0000:9d:00.0", "0000:9e:00.0",
	    "0000:c5:00.0", "0000:c6:00.0", "0000:cd:00.0", "0000:ce:00.0"};
	size_t i;

	cr_assert_eq(mcinit_affinity_ngpus(a), 16);
	cr_assert_eq(mcinit_affinity_nnics(a), 8);
	for (i = 0; i < 16; i++) {
		char nic[16];

		snprintf(nic, sizeof nic, "mlx5_%zu", i / 2);
		assert_gpu(a, i, bus[i], i < 8 ? 0 : 1, i < 8 ? "0-47" : "48-95", nic);
		cr_assert_null(mcinit_affinity_gpu(a, i)->osname, "no OS devices: bus order");
		cr_assert_str_eq(mcinit_affinity_gpu(a, i)->model,
		                 "GV100GL [Tesla V100 SXM3 32GB]");
	}
	cr_assert_str_eq(mcinit_affinity_numa(a, 0)->cpuset, "0-47");
	cr_assert_str_eq(mcinit_affinity_numa(a, 1)->cpuset, "48-95");
	mcinit_affinity_free(a);
}

Test(affinity_node16, nvswitch_links_and_nics)
{
	struct mcinit_affinity *a = load_fixture("node16-2s.xml");
	size_t i, j;

	for (i = 0; i < 16; i++)
		for (j = 0; j < 16; j++) {
			struct mcinit_link l = mcinit_affinity_gpu_link(a, i, j);

			if (i != j)
				cr_assert_str_eq(link_str(l), "NV6", "GPU%zu-GPU%zu", i, j);
		}
	cr_assert_str_eq(link_str(mcinit_affinity_gpu_nic_link(a, 0, 0)), "PIX");
	cr_assert_str_eq(link_str(mcinit_affinity_gpu_nic_link(a, 0, 1)), "PXB");
	cr_assert_str_eq(link_str(mcinit_affinity_gpu_nic_link(a, 0, 2)), "NODE");
	cr_assert_str_eq(link_str(mcinit_affinity_gpu_nic_link(a, 0, 4)), "SYS");
	cr_assert_str_eq(link_str(mcinit_affinity_gpu_nic_link(a, 15, 7)), "PIX");
	mcinit_affinity_free(a);
}

Test(affinity_node16, tp_across_sockets_is_fine_over_nvswitch)
{
	struct mcinit_affinity *a = load_fixture("node16-2s.xml");
	static const int g0[8] = {0, 2, 4, 6, 8, 10, 12, 14}, g1[8] = {1, 3, 5, 7, 9, 11, 13, 15};
	const int *groups[2] = {g0, g1};
	size_t len[2] = {8, 8}, n;
	struct mcinit_affinity_placement p = {16, NULL, 2, len, groups, NULL};
	char *w = warnings_joined(a, &p, &n);

	cr_assert_eq(n, 0, "%s", w);
	free(w);
	mcinit_affinity_free(a);
}

/* ---- ordering by caller-supplied bus ids ------------------------------- */

Test(affinity_order, busid_list_orders_and_selects)
{
	static const char *const ids[3] = {"00000000:94:00.0", "0000:13:00.0", "c4:00.0"};
	struct mcinit_affinity_opts o = {0};
	struct mcinit_err err = {0};
	struct mcinit_affinity *a;
	char *path = fixture("dgx8-2s.xml");

	o.xml_path = path;
	o.gpu_busids = ids;
	o.ngpu_busids = 3;
	a = mcinit_affinity_load(&o, &err);
	cr_assert_not_null(a, "%s", err.msg);
	cr_assert_eq(mcinit_affinity_ngpus(a), 3);
	assert_gpu(a, 0, "0000:94:00.0", 1, "56-111", "mlx5_2");
	assert_gpu(a, 1, "0000:13:00.0", 0, "0-55", "mlx5_0");
	assert_gpu(a, 2, "0000:c4:00.0", 1, "56-111", "mlx5_3");
	cr_assert_str_eq(link_str(mcinit_affinity_gpu_link(a, 0, 1)), "NV18");
	mcinit_affinity_free(a);
	free(path);
}

Test(affinity_order, unknown_or_repeated_busid_fails)
{
	static const char *const unknown[2] = {"0000:13:00.0", "0000:77:00.0"};
	static const char *const twice[2] = {"0000:13:00.0", "0000:13:00.0"};
	struct mcinit_affinity_opts o = {0};
	struct mcinit_err err = {0};
	char *path = fixture("dgx8-2s.xml");

	o.xml_path = path;
	o.gpu_busids = unknown;
	o.ngpu_busids = 2;
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert_eq(err.code, MCINIT_E_PARSE);
	cr_assert(strstr(err.msg, "0000:77:00.0") != NULL, "%s", err.msg);
	o.gpu_busids = twice;
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert(strstr(err.msg, "repeats GPU 0") != NULL, "%s", err.msg);
	free(path);
}

/* ---- warnings ---------------------------------------------------------- */

Test(affinity_warn, clean_placement_has_none)
{
	struct mcinit_affinity *a = load_fixture("dgx8-2s.xml");
	static const int g0[4] = {0, 1, 2, 3}, g1[4] = {4, 5, 6, 7};
	const int *groups[2] = {g0, g1};
	size_t len[2] = {4, 4}, n;
	struct mcinit_affinity_placement p = {8, NULL, 2, len, groups, NULL};
	char *w = warnings_joined(a, &p, &n);

	cr_assert_eq(n, 0, "%s", w);
	free(w);
	mcinit_affinity_free(a);
}

Test(affinity_warn, more_ranks_than_gpus)
{
	struct mcinit_affinity *a = load_fixture("node4-1s.xml");
	static const int map[3] = {0, 7, -2};
	struct mcinit_affinity_placement p = {6, NULL, 0, NULL, NULL, NULL};
	size_t n;
	char *w = warnings_joined(a, &p, &n);

	cr_assert_eq(n, 1, "%s", w);
	cr_assert(strstr(w, "6 local ranks but only 4 GPUs on this node") != NULL, "%s", w);
	free(w);
	p.nlocal = 3;
	p.rank_gpu = map;
	w = warnings_joined(a, &p, &n);
	cr_assert_eq(n, 2, "%s", w);
	cr_assert(strstr(w, "local rank 1 is mapped to GPU 7, which does not exist") != NULL, "%s",
	          w);
	cr_assert(strstr(w, "local rank 2 is mapped to GPU -2") != NULL, "%s", w);
	free(w);
	mcinit_affinity_free(a);
}

Test(affinity_warn, gpu_outside_allowed_cpus)
{
	struct mcinit_affinity *a = load_fixture("dgx8-2s.xml");
	struct mcinit_affinity_placement p = {8, NULL, 0, NULL, NULL, NULL};
	struct mcinit_err err = {0};
	size_t n;
	char *w;

	cr_assert_eq(mcinit_affinity_set_allowed_cpuset(a, "0-3,8", &err), 0, "%s", err.msg);
	cr_assert_str_eq(mcinit_affinity_allowed_cpuset(a), "0-3,8");
	w = warnings_joined(a, &p, &n);
	cr_assert_eq(n, 4, "GPUs 4-7 are on the other socket: %s", w);
	cr_assert(strstr(w, "GPU4 (0000:93:00.0) is local to CPUs 56-111, none of which this "
	                    "process may use (allowed: 0-3,8); local rank 4") != NULL,
	          "%s", w);
	cr_assert(strstr(w, "GPU3 ") == NULL, "%s", w);
	free(w);
	p.nlocal = 2; /* only GPUs 0 and 1 in use: nothing far */
	w = warnings_joined(a, &p, &n);
	cr_assert_eq(n, 0, "%s", w);
	free(w);
	cr_assert_eq(mcinit_affinity_set_allowed_cpuset(a, "", &err), -1);
	cr_assert_eq(err.code, MCINIT_E_USAGE);
	cr_assert_eq(mcinit_affinity_set_allowed_cpuset(a, "x-y", &err), -1);
	mcinit_affinity_free(a);
}

/* ---- binding ----------------------------------------------------------- */

Test(affinity_bind, gpu_cpuset_intersects_allowed)
{
	struct mcinit_affinity *a = load_fixture("dgx8-2s.xml");
	struct mcinit_err err = {0};
	char *s;

	s = mcinit_affinity_gpu_bind_cpuset(a, 0, &err);
	cr_assert_str_eq(s, "0-55");
	free(s);
	cr_assert_eq(mcinit_affinity_set_allowed_cpuset(a, "0-3,100-103", &err), 0);
	s = mcinit_affinity_gpu_bind_cpuset(a, 5, &err);
	cr_assert_str_eq(s, "100-103");
	free(s);
	cr_assert_eq(mcinit_affinity_set_allowed_cpuset(a, "0-3", &err), 0);
	cr_assert_null(mcinit_affinity_gpu_bind_cpuset(a, 6, &err));
	cr_assert_eq(err.code, MCINIT_E_UNAVAILABLE);
	cr_assert(strstr(err.msg, "GPU6 (0000:c3:00.0)") != NULL, "%s", err.msg);
	cr_assert_null(mcinit_affinity_gpu_bind_cpuset(a, 8, &err));
	cr_assert_eq(err.code, MCINIT_E_USAGE);
	mcinit_affinity_free(a);
}

Test(affinity_bind, never_on_xml_topologies)
{
	struct mcinit_affinity *a = load_fixture("dgx8-2s.xml");
	struct mcinit_err err = {0};

	cr_assert_eq(mcinit_affinity_bind_cpuset(a, "0", 0, &err), -1);
	cr_assert_eq(err.code, MCINIT_E_USAGE);
	cr_assert(strstr(err.msg, "not this machine") != NULL, "%s", err.msg);
	cr_assert_eq(mcinit_affinity_bind_gpu(a, 0, 0, &err), -1);
	cr_assert_eq(err.code, MCINIT_E_USAGE);
	cr_assert_null(mcinit_affinity_get_binding(a, &err));
	mcinit_affinity_free(a);
}

/* ---- this machine ------------------------------------------------------ */

static struct mcinit_affinity *
load_live(void)
{
	struct mcinit_affinity_opts o = {0};
	struct mcinit_err err = {0};
	struct mcinit_affinity *a;

	o.ignore_xml_env = 1;
	a = mcinit_affinity_load(&o, &err);
	cr_assert_not_null(a, "live load: %s", err.msg);
	cr_assert_eq(mcinit_affinity_is_live(a), 1);
	return a;
}

/* NVIDIA display/3D controllers in sysfs, counted independently of hwloc. */
static size_t
sysfs_nvidia_gpus(void)
{
	DIR *d = opendir("/sys/bus/pci/devices");
	struct dirent *e;
	size_t n = 0;

	if (d == NULL)
		return 0;
	while ((e = readdir(d)) != NULL) {
		char path[512], vendor[16] = "", cls[16] = "";
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/vendor", e->d_name);
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(vendor, sizeof vendor, f) == NULL)
				vendor[0] = '\0';
			fclose(f);
		}
		snprintf(path, sizeof path, "/sys/bus/pci/devices/%s/class", e->d_name);
		if ((f = fopen(path, "r")) != NULL) {
			if (fgets(cls, sizeof cls, f) == NULL)
				cls[0] = '\0';
			fclose(f);
		}
		if (strncmp(vendor, "0x10de", 6) == 0 &&
		    (strncmp(cls, "0x0302", 6) == 0 || strncmp(cls, "0x0300", 6) == 0))
			n++;
	}
	closedir(d);
	return n;
}

Test(affinity_live, loads_and_reports_cpu_side)
{
	struct mcinit_affinity *a = load_live();
	struct mcx_buf b = {0};
	json_t *e;

	cr_assert_str_eq(mcinit_affinity_source(a), "this machine");
	cr_assert_eq(mcinit_affinity_ngpus(a), sysfs_nvidia_gpus());
	if (mcinit_affinity_ngpus(a) == 0) {
		struct mcinit_err err = {0};

		cr_assert_eq(mcinit_affinity_set_nvlink(a, 0, 1, 2, &err), -1);
		cr_assert_eq(err.code, MCINIT_E_USAGE);
	}
	cr_assert_geq(mcinit_affinity_nnuma(a), 1);
	cr_assert_neq(mcinit_affinity_allowed_cpuset(a)[0], '\0');
	mcinit_affinity_summary_text(a, &b);
	mcinit_affinity_matrix_text(a, &b);
	mcx_buf_cstr(&b);
	cr_assert(strstr(b.data, "Topology: this machine\nPackages: ") != NULL, "%s", b.data);
	cr_assert(strstr(b.data, "NUMA nodes: ") != NULL, "%s", b.data);
	if (mcinit_affinity_ngpus(a) == 0) {
		cr_assert(strstr(b.data, "No NVIDIA GPUs found") != NULL, "%s", b.data);
		e = mcinit_affinity_entry_json(a, 0, 0);
		cr_assert(json_is_null(json_object_get(e, "gpu")));
		cr_assert_str_eq(json_string_value(json_object_get(e, "cpuset")),
		                 mcinit_affinity_allowed_cpuset(a));
		cr_assert_geq(json_array_size(json_object_get(e, "numa")), 1);
		json_decref(e);
	}
	mcx_buf_free(&b);
	mcinit_affinity_free(a);
}

Test(affinity_live, xml_env_is_honoured_unless_ignored)
{
	char *path = fixture("node4-1s.xml");
	struct mcinit_err err = {0};
	struct mcinit_affinity *a;

	setenv("HWLOC_XMLFILE", path, 1);
	a = mcinit_affinity_load(NULL, &err);
	cr_assert_not_null(a, "%s", err.msg);
	cr_assert_eq(mcinit_affinity_ngpus(a), 4);
	cr_assert_eq(mcinit_affinity_is_live(a), 0);
	cr_assert_str_eq(mcinit_affinity_source(a), path);
	mcinit_affinity_free(a);
	a = load_live(); /* ignore_xml_env: hwloc must not read it either */
	cr_assert_eq(mcinit_affinity_ngpus(a), sysfs_nvidia_gpus());
	mcinit_affinity_free(a);
	unsetenv("HWLOC_XMLFILE");
	free(path);
}

Test(affinity_live, bad_inputs_fail_cleanly)
{
	struct mcinit_affinity_opts o = {0};
	struct mcinit_err err = {0};

	o.xml_path = "/nonexistent/topology.xml";
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert_eq(err.code, MCINIT_E_NOINPUT, "missing file: code %d", err.code);
	cr_assert(strstr(err.msg, "/nonexistent/topology.xml") != NULL, "%s", err.msg);
	o.xml_path = "/";
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert_eq(err.code, MCINIT_E_NOINPUT, "a directory: code %d", err.code);
	o.xml_path = "/proc/self/cmdline"; /* readable, not XML */
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert_eq(err.code, MCINIT_E_PARSE, "not XML: code %d", err.code);
	cr_assert(strstr(err.msg, "not an hwloc XML topology") != NULL, "%s", err.msg);
	o.xml_path = NULL;
	o.xml_buffer = "<topology version=\"2.0\"><object";
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert_eq(err.code, MCINIT_E_PARSE, "%s", err.msg);
}

/* libxml2 reads an encoding it does not carry through ICU, whose tables
 * leak when hwloc unloads its plugin (fuzz-hwloc found it): refused before
 * hwloc sees the text, with its line; so is a text that is no XML (libxml2
 * would guess its encoding from the first bytes), as hwloc's refusal is. */
Test(affinity_live, encodings_hwloc_must_not_see)
{
	struct mcinit_affinity_opts o = {0};
	struct mcinit_err err = {0};
	struct mcinit_affinity *a;
	char *path, *text, *bom;
	size_t len;

	o.xml_buffer = "<?xml version=\"1.0\" encoding=\"UTF-x\"?>\n<topology version=\"2.0\"/>";
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert_eq(err.code, MCINIT_E_PARSE, "%s", err.msg);
	cr_assert(strstr(err.msg, "encoding \"UTF-x\"") != NULL, "%s", err.msg);
	cr_assert_eq(err.line, 1, "line %d", err.line);
	o.xml_buffer = "<?xml encoding='f'";
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert(strstr(err.msg, "encoding \"f\"") != NULL, "%s", err.msg);
	o.xml_buffer = "Lo\xa7\x94<topology/>"; /* "<?" in EBCDIC */
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert(strstr(err.msg, "not an hwloc XML topology") != NULL, "%s", err.msg);
	path = fixture("node4-1s.xml"); /* lstopo's own text, after a byte-order mark */
	text = mcinit_read_file(path, &len, &err);
	cr_assert_not_null(text, "%s", err.msg);
	bom = mcx_xasprintf("\xef\xbb\xbf%s", text);
	o.xml_buffer = bom;
	a = mcinit_affinity_load(&o, &err);
	cr_assert_not_null(a, "%s", err.msg);
	free(bom);
	free(text);
	free(path);
	mcinit_affinity_free(a);
}

/* Two shapes that crash hwloc 2.9's libxml2 importer (fuzz-hwloc found
 * them): a DOCTYPE without a system identifier, and a set that is no
 * bitmap (with text between objects); refused before hwloc sees them.  So
 * is a root that is not <topology>, as hwloc's refusal is. */
Test(affinity_live, shapes_that_crash_hwloc)
{
	struct mcinit_affinity_opts o = {0};
	struct mcinit_err err = {0};

	o.xml_buffer = "<!DOCTYPEo><togy></togy>";
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert(strstr(err.msg, "a DOCTYPE without a system identifier") != NULL, "%s", err.msg);
	o.xml_buffer = "<topology>\n<object type=\"Machine\" cpuset=\"0x1\" "
	               "complete_cpuset=\"0xffffffff,`0x1\"/></topology>";
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert(strstr(err.msg, "a set that is no hwloc bitmap") != NULL, "%s", err.msg);
	cr_assert_eq(err.line, 2, "line %d", err.line);
	o.xml_buffer = "<html><topology/></html>";
	cr_assert_null(mcinit_affinity_load(&o, &err));
	cr_assert(strstr(err.msg, "not an hwloc XML topology") != NULL, "%s", err.msg);
}

Test(affinity_live, bind_this_process)
{
	struct mcinit_affinity *a = load_live();
	struct mcinit_err err = {0};
	char *orig = mcinit_affinity_get_binding(a, &err), *now, one[32];
	long first = strtol(mcinit_affinity_allowed_cpuset(a), NULL, 10);

	cr_assert_not_null(orig, "%s", err.msg);
	snprintf(one, sizeof one, "%ld", first);
	cr_assert_eq(mcinit_affinity_bind_cpuset(a, one, 0, &err), 0, "%s", err.msg);
	now = mcinit_affinity_get_binding(a, &err);
	cr_assert_str_eq(now, one);
	free(now);
	cr_assert_eq(mcinit_affinity_bind_cpuset(a, "100000", 0, &err), -1);
	cr_assert_eq(err.code, MCINIT_E_UNAVAILABLE, "%s", err.msg);
	cr_assert_eq(mcinit_affinity_bind_cpuset(a, "nonsense", 0, &err), -1);
	cr_assert_eq(err.code, MCINIT_E_USAGE, "%s", err.msg);
	if (mcinit_affinity_ngpus(a) == 0) {
		cr_assert_eq(mcinit_affinity_bind_gpu(a, 0, 0, &err), -1);
		cr_assert_eq(err.code, MCINIT_E_USAGE);
	}
	cr_assert_eq(mcinit_affinity_bind_cpuset(a, orig, 0, &err), 0, "%s", err.msg);
	now = mcinit_affinity_get_binding(a, &err);
	cr_assert_str_eq(now, orig);
	free(now);
	free(orig);
	mcinit_affinity_free(a);
}

Test(affinity_live, bind_child_process)
{
	struct mcinit_affinity *a;
	struct mcinit_err err = {0};
	const char *s, *p;
	char one[32];
	long last;
	cpu_set_t set;
	int status;
	pid_t pid;

	/* A child that only waits; exec'd so that it owns none of our memory
	 * (valgrind checks forked children for leaks too). */
	pid = fork();
	cr_assert_neq(pid, -1);
	if (pid == 0) {
		execlp("sleep", "sleep", "60", (char *)NULL);
		_exit(127);
	}
	a = load_live();
	s = mcinit_affinity_allowed_cpuset(a);
	p = s + strlen(s);
	while (p > s && p[-1] >= '0' && p[-1] <= '9')
		p--;
	last = strtol(p, NULL, 10);
	snprintf(one, sizeof one, "%ld", last);
	cr_assert_eq(mcinit_affinity_bind_cpuset(a, one, pid, &err), 0, "%s", err.msg);
	CPU_ZERO(&set);
	cr_assert_eq(sched_getaffinity(pid, sizeof set, &set), 0);
	cr_assert_eq(CPU_COUNT(&set), 1);
	cr_assert(CPU_ISSET((int)last, &set), "child bound to CPU %ld", last);
	kill(pid, SIGKILL);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFSIGNALED(status), "the child was still waiting");
	mcinit_affinity_free(a);
}

/* ---- names ------------------------------------------------------------- */

Test(affinity_names, link_names)
{
	struct mcinit_link l = {MCINIT_LINK_NV, 12};
	char buf[16];

	cr_assert_str_eq(mcinit_link_name(l, buf, sizeof buf), "NV12");
	l.kind = MCINIT_LINK_SELF;
	cr_assert_str_eq(mcinit_link_name(l, buf, sizeof buf), "X");
	l.kind = MCINIT_LINK_PHB;
	cr_assert_str_eq(mcinit_link_name(l, buf, sizeof buf), "PHB");
	l.kind = MCINIT_LINK_SYS;
	cr_assert_str_eq(mcinit_link_name(l, buf, sizeof buf), "SYS");
}
