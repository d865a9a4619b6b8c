/* doctor.c — mcinit_doctor (mcinit.h): a GPU node's readiness for a job in
 * one report, what `mcinit doctor` prints.  It gathers what the GPU phases
 * of mcinit run would meet (the driver, the CUDA runtime and NCCL and where
 * they load from, the devices) and what the machine allows (the open-file
 * and locked-memory limits, the listen backlog against the world, /dev/shm),
 * and turns each shortfall into a problem with its fix.  No GPU is needed:
 * without one it says so and reports the rest.  Here in run, the top layer,
 * because it asks the GPU backend and the store's capacity check. */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <jansson.h>

#include "core/dlfind.h"
#include "gpu/gpu.h"
#include "run/init-impl.h"
#include "store/store.h"
#include "topo/affinity.h"

/* /dev/shm below this is too small for NCCL's shared-memory transport in
 * a container (Docker gives 64 MiB): NCCL's own advice is 1 GiB or more,
 * or the host's IPC namespace. */
#define SHM_MIN ((unsigned long long)1 << 30)

static void problem(json_t *list, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
problem(json_t *list, const char *fix, const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	json_array_append_new(list, json_pack("{s:s, s:s}", "what", what, "fix", fix));
}

/* A JSON boolean as the text report says it: on, off, or unknown (null or
 * absent). */
static const char *
on_off(const json_t *b)
{
	return json_is_true(b) ? "on" : json_is_false(b) ? "off" : "unknown";
}

static json_t *
str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *
int_or_null(long long v)
{
	return v ? json_integer(v) : json_null();
}

/* The libnccl.so.2 that the torch of the trainer's Python would load: the
 * nvidia/nccl/lib beside the first torch/ in the Python environments'
 * site-packages (torch's libraries name it in their RPATH), into out. */
static int
torch_nccl(char *out, size_t cap)
{
	static const char *const subs[] = {"nccl", NULL};
	struct mcinit_dl_place *v = mcx_xcalloc(48, sizeof *v);
	size_t n = mcinit_dl_places("libnccl.so.2", NULL, subs, NULL, v, 48), i;
	int found = -1;

	for (i = 0; i < n && found < 0; i++) {
		char site[600];
		const char *tail = "/nvidia/nccl/lib/libnccl.so.2";
		size_t len = strlen(v[i].file), k = strlen(tail);

		if (len <= k || strcmp(v[i].file + len - k, tail) != 0)
			continue;
		snprintf(site, sizeof site, "%.*s/torch", (int)(len - k), v[i].file);
		if (access(site, F_OK) != 0)
			continue;
		snprintf(out, cap, "%s", v[i].file);
		found = 0;
	}
	free(v);
	return found;
}

static int
same_file(const char *a, const char *b)
{
	char ra[PATH_MAX], rb[PATH_MAX];

	return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

static const char *
compute_mode_name(int m)
{
	switch (m) {
	case 0:
		return "default";
	case 1:
		return "exclusive_thread";
	case 2:
		return "prohibited";
	case 3:
		return "exclusive_process";
	default:
		return NULL;
	}
}

/* The driver, the runtime, NCCL, the devices. */
static json_t *
gpu_part(json_t *problems, json_t *root)
{
	struct mcinit_gpu_versions v;
	char why[1024] = "", chk[512], tn[600];
	json_t *devs = json_array(), *nccl;
	int n, i;

	mcinit_gpu_versions(&v);
	n = mcinit_gpu_count(why, sizeof why);
	json_object_set_new(root, "gpu", json_boolean(n > 0));
	json_object_set_new(root, "gpu_node", json_boolean(v.gpu_node || n > 0));
	json_object_set_new(root, "no_gpu_why", n > 0 ? json_null() : json_string(why));
	if (n == 0 && v.gpu_node)
		problem(problems,
		        "see the reason: a CUDA runtime the driver runs (MCINIT_CUDA_LIBRARY, the "
		        "nvidia-cuda-runtime-cu12 wheel), or a newer driver",
		        "an NVIDIA driver is here but no CUDA device is usable: %s", why);
	json_object_set_new(root, "driver_cuda", int_or_null(v.cuda_driver));
	json_object_set_new(root, "cuda_runtime",
	                    json_pack("{s:o, s:o, s:o}", "version", int_or_null(v.cuda_runtime),
	                              "library", str_or_null(v.cuda_library), "why",
	                              str_or_null(v.cuda_how)));
	nccl = json_pack("{s:o, s:o, s:o, s:o, s:o, s:o}", "version", int_or_null(v.nccl_runtime),
	                 "headers", int_or_null(v.nccl_header), "library",
	                 str_or_null(v.nccl_library), "why", str_or_null(v.nccl_how), "other",
	                 str_or_null(v.nccl_other), "other_why", str_or_null(v.nccl_other_how));
	if (torch_nccl(tn, sizeof tn) == 0) {
		int same = v.nccl_library && *v.nccl_library && same_file(tn, v.nccl_library);

		json_object_set_new(nccl, "torch_library", json_string(tn));
		json_object_set_new(nccl, "same_as_torch", json_boolean(same));
		if (!same)
			problem(problems,
			        "MCINIT_NCCL_LIBRARY=<torch's> so that mcinit checks the NCCL the "
			        "trainer loads, or activate torch's environment",
			        "torch would load %s, mcinit loads %s", tn,
			        v.nccl_library && *v.nccl_library ? v.nccl_library : "none");
	} else {
		json_object_set_new(nccl, "torch_library", json_null());
		json_object_set_new(nccl, "same_as_torch", json_null());
	}
	json_object_set_new(root, "nccl", nccl);
	if (v.nccl_missing)
		problem(problems,
		        "pip install nvidia-nccl-cu12 in the trainer's environment, or name a "
		        "libnccl.so.2 in MCINIT_NCCL_LIBRARY",
		        "no NCCL library: %s", v.nccl_missing);
	else if (v.nccl_other && *v.nccl_other &&
	         !json_is_true(json_object_get(nccl, "same_as_torch")))
		problem(problems,
		        "name the trainer's in MCINIT_NCCL_LIBRARY (or remove the other from its "
		        "path)",
		        "two different NCCL libraries are visible: %s (%s) and %s (%s)",
		        v.nccl_library, v.nccl_how, v.nccl_other, v.nccl_other_how);
	if (mcinit_gpu_version_check(v.nccl_runtime, v.nccl_header, v.cuda_runtime, v.cuda_header,
	                             v.cuda_driver, chk, sizeof chk) < 0)
		problem(problems, "see the reason", "%s", chk);
	for (i = 0; i < n; i++) {
		struct mcinit_gpu_props p;
		struct mcinit_nvml_props nv;
		char nvwhy[1024];
		const char *cm;

		if (mcinit_gpu_props(i, &p) != 0) {
			json_array_append_new(devs, json_pack("{s:i}", "index", i));
			continue;
		}
		cm = compute_mode_name(p.compute_mode);
		if (mcinit_nvml_props(p.busid, &nv, nvwhy, sizeof nvwhy) != 0 &&
		    json_object_get(root, "nvml") == NULL)
			json_object_set_new(root, "nvml",
			                    json_pack("{s:o, s:s}", "library",
			                              str_or_null(mcinit_nvml_library()), "why",
			                              nvwhy));
		json_array_append_new(
		    devs,
		    json_pack("{s:i, s:s, s:s, s:o, s:o, s:o, s:o, s:o}", "index", i, "name",
		              p.name, "bus_id", p.busid, "compute_mode", str_or_null(cm), "ecc",
		              p.ecc < 0 ? json_null() : json_boolean(p.ecc), "mig",
		              nv.mig < 0 ? json_null() : json_boolean(nv.mig), "mig_pending",
		              nv.mig_pending < 0 ? json_null() : json_boolean(nv.mig_pending),
		              "nvlinks", nv.nvlinks < 0 ? json_null() : json_integer(nv.nvlinks)));
		/* MIG instances have no NVLink and no CUDA IPC between them (NVIDIA's
		 * MIG guide): NCCL goes through host memory, and a rank sees one
		 * instance, not the GPU */
		if (nv.mig == 1)
			problem(
			    problems,
			    "nvidia-smi -i <GPU> -mig 0, then reset the GPU (as root); or run one "
			    "rank per MIG instance knowing it has no NVLink",
			    "GPU %d (%s) is in MIG mode: its instances have no NVLink or CUDA IPC, "
			    "so NCCL between ranks on it goes through host memory",
			    i, p.busid);
		else if (nv.mig_pending == 1)
			problem(problems,
			        "reset the GPU (nvidia-smi -i <GPU> -r, as root) or undo it "
			        "with nvidia-smi -i <GPU> -mig 0",
			        "GPU %d (%s) will be in MIG mode after its next reset", i, p.busid);
		if (p.compute_mode == 2 || p.compute_mode == 3)
			problem(problems, "nvidia-smi -i <GPU> -c DEFAULT (as root)",
			        "GPU %d (%s) is in compute mode %s: %s", i, p.busid, cm,
			        p.compute_mode == 2
			            ? "no process may use it"
			            : "one process only: two ranks on it, or mcinit "
			              "and the trainer, cannot share it");
	}
	json_object_set_new(root, "devices", devs);
	if (json_object_get(root, "nvml") == NULL)
		json_object_set_new(
		    root, "nvml",
		    json_pack("{s:o, s:n}", "library", str_or_null(mcinit_nvml_library()), "why"));
	return root;
}

/* NVLink and NIC affinity from hwloc (topo/affinity.h), the devices in
 * CUDA's order when there are some: each GPU's NUMA nodes, CPUs and nearby
 * NICs, and the link matrix as `mcinit topology` prints it.  hwloc that
 * cannot read the node, or a device it does not know, is said, not a
 * problem of the node. */
static void
affinity_part(json_t *root)
{
	json_t *devs = json_object_get(root, "devices"), *d, *gpus, *a;
	struct mcinit_affinity_opts o = {0};
	struct mcinit_affinity *aff;
	struct mcinit_err e = {0};
	struct mcx_buf m = {0};
	const char **ids = NULL;
	size_t i, n = json_array_size(devs), k;

	if (n) {
		ids = mcx_xcalloc(n, sizeof *ids);
		json_array_foreach(devs, i, d)
		{
			ids[i] = json_string_value(json_object_get(d, "bus_id"));
			if (!ids[i])
				ids[i] = "";
		}
		o.gpu_busids = ids;
		o.ngpu_busids = n;
	}
	aff = mcinit_affinity_load(&o, &e);
	free(ids);
	if (!aff) {
		json_object_set_new(
		    root, "affinity",
		    json_pack("{s:n, s:s}", "source", "why", e.msg[0] ? e.msg : "hwloc failed"));
		return;
	}
	gpus = json_array();
	for (i = 0; i < mcinit_affinity_ngpus(aff); i++) {
		const struct mcinit_affinity_gpu *g = mcinit_affinity_gpu(aff, i);
		json_t *numa = json_array(), *nics = json_array();

		for (k = 0; k < g->nnuma; k++)
			json_array_append_new(numa, json_integer(g->numa[k]));
		for (k = 0; k < g->nnics; k++)
			json_array_append_new(nics, json_string(g->nics[k]));
		json_array_append_new(gpus, json_pack("{s:s, s:o, s:o, s:o}", "bus_id", g->busid,
		                                      "numa", numa, "cpus", str_or_null(g->cpuset),
		                                      "nics", nics));
	}
	mcinit_affinity_matrix_text(aff, &m);
	a = json_pack("{s:s, s:b, s:o, s:s}", "source", mcinit_affinity_source(aff), "nvlink_known",
	              mcinit_affinity_nvlink_known(aff), "gpus", gpus, "matrix", mcx_buf_cstr(&m));
	json_object_set_new(root, "affinity", a);
	mcx_buf_free(&m);
	mcinit_affinity_free(aff);
}

/* The limits, the backlog, /dev/shm. */
static void
machine_part(long world, json_t *problems, json_t *root)
{
	struct mcinit_store_capacity cap;
	struct mcx_buf t = {0};
	struct rlimit ml = {0, 0};
	struct statvfs sv;
	unsigned long long shm = 0;
	int have_shm;

	mcinit_store_capacity(world > 0 ? world : 1, NULL, &cap);
	getrlimit(RLIMIT_MEMLOCK, &ml);
	json_object_set_new(
	    root, "limits",
	    json_pack(
	        "{s:o, s:I, s:o, s:o, s:o}", "world", world > 0 ? json_integer(world) : json_null(),
	        "nofile", (json_int_t)cap.nofile, "memlock",
	        ml.rlim_cur == RLIM_INFINITY ? json_string("unlimited")
	                                     : json_integer((json_int_t)ml.rlim_cur),
	        "somaxconn", cap.somaxconn >= 0 ? json_integer(cap.somaxconn) : json_null(),
	        "nofile_needed", world > 0 ? json_integer((json_int_t)cap.need_fds) : json_null()));
	if (world > 0 && (cap.short_fds || cap.short_backlog)) {
		const char *l, *e;

		/* one line a shortfall, each naming what to set */
		mcinit_store_capacity_text(&cap, "", &t);
		for (l = mcx_buf_cstr(&t); *l; l = *e ? e + 1 : e) {
			e = l + strcspn(l, "\n");
			if (e > l)
				problem(problems, "what the line says to set", "%.*s", (int)(e - l),
				        l);
		}
		mcx_buf_free(&t);
	}
	if (ml.rlim_cur != RLIM_INFINITY)
		problem(problems,
		        "ulimit -l unlimited (memlock in /etc/security/limits.conf; docker run "
		        "--ulimit memlock=-1)",
		        "the locked-memory limit is %llu KiB: NCCL over InfiniBand/RoCE registers "
		        "its buffers and fails or falls back to sockets",
		        (unsigned long long)ml.rlim_cur / 1024);
	have_shm = statvfs("/dev/shm", &sv) == 0;
	if (have_shm)
		shm = (unsigned long long)sv.f_blocks * sv.f_frsize;
	json_object_set_new(root, "shm_bytes",
	                    have_shm ? json_integer((json_int_t)shm) : json_null());
	if (!have_shm || shm < SHM_MIN)
		problem(problems,
		        "docker run --shm-size=1g (or --ipc=host); a larger tmpfs on /dev/shm",
		        "/dev/shm is %s: NCCL's shared-memory transport between the ranks of a "
		        "node needs more than a container's default 64 MiB",
		        have_shm ? "small" : "missing");
}

static void
text(const json_t *r, FILE *out)
{
	const json_t *nccl = json_object_get(r, "nccl"), *cu = json_object_get(r, "cuda_runtime"),
	             *lim = json_object_get(r, "limits"), *p;
	char buf[32];
	size_t i;
	long long x;

	fprintf(out, "mcinit doctor: this node's readiness for a GPU job\n");
	if (json_is_true(json_object_get(r, "gpu")))
		fprintf(out, "  GPUs:          %zu\n",
		        json_array_size(json_object_get(r, "devices")));
	else
		fprintf(out, "  GPUs:          none (%s)%s\n",
		        json_string_value(json_object_get(r, "no_gpu_why")),
		        json_is_true(json_object_get(r, "gpu_node"))
		            ? ""
		            : "; the rest is reported all the same");
	x = json_integer_value(json_object_get(r, "driver_cuda"));
	mcinit_cuda_version_text((int)x, buf, sizeof buf);
	fprintf(out, "  driver:        %s\n", x ? buf : "none");
	x = json_integer_value(json_object_get(cu, "version"));
	mcinit_cuda_version_text((int)x, buf, sizeof buf);
	fprintf(out, "  CUDA runtime:  %s", x ? buf : "none");
	if (json_string_value(json_object_get(cu, "library")))
		fprintf(out, ", %s (%s)", json_string_value(json_object_get(cu, "library")),
		        json_string_value(json_object_get(cu, "why")));
	fputc('\n', out);
	x = json_integer_value(json_object_get(nccl, "version"));
	mcinit_nccl_version_text((int)x, buf, sizeof buf);
	fprintf(out, "  NCCL:          %s", x ? buf : "none");
	if (json_string_value(json_object_get(nccl, "library")))
		fprintf(out, ", %s (%s)", json_string_value(json_object_get(nccl, "library")),
		        json_string_value(json_object_get(nccl, "why")));
	fputc('\n', out);
	if (json_string_value(json_object_get(nccl, "torch_library")))
		fprintf(out, "  torch's NCCL:  %s (%s)\n",
		        json_string_value(json_object_get(nccl, "torch_library")),
		        json_is_true(json_object_get(nccl, "same_as_torch")) ? "the same file"
		                                                             : "a different file");
	p = json_object_get(r, "nvml");
	if (json_array_size(json_object_get(r, "devices")) > 0 &&
	    json_string_value(json_object_get(p, "why")))
		fprintf(out, "  NVML:          %s (MIG and NVLinks unknown)\n",
		        json_string_value(json_object_get(p, "why")));
	json_array_foreach(json_object_get(r, "devices"), i, p)
	{
		const json_t *e = json_object_get(p, "ecc");

		const json_t *m = json_object_get(p, "mig"), *l = json_object_get(p, "nvlinks");

		fprintf(out, "  GPU %-3zu        %s %s, compute mode %s, ECC %s, MIG %s", i,
		        json_string_value(json_object_get(p, "bus_id")) ?: "?",
		        json_string_value(json_object_get(p, "name")) ?: "?",
		        json_string_value(json_object_get(p, "compute_mode")) ?: "unknown",
		        on_off(e), on_off(m));
		if (json_is_integer(l))
			fprintf(out, ", NVLinks %lld", (long long)json_integer_value(l));
		fputc('\n', out);
	}
	p = json_object_get(r, "affinity");
	if (json_string_value(json_object_get(p, "matrix"))) {
		const char *l = json_string_value(json_object_get(p, "matrix")), *e;

		fprintf(out, "  affinity:      hwloc, %s%s\n",
		        json_string_value(json_object_get(p, "source")),
		        json_is_true(json_object_get(p, "nvlink_known"))
		            ? ""
		            : "; NVLinks unknown without NVML");
		for (; *l; l = *e ? e + 1 : e) {
			e = l + strcspn(l, "\n");
			fprintf(out, "    %.*s\n", (int)(e - l), l);
		}
	} else {
		fprintf(out, "  affinity:      unknown (%s)\n",
		        json_string_value(json_object_get(p, "why")) ?: "hwloc");
	}
	fprintf(out, "  limits:        open files %lld, locked memory %s, somaxconn %lld",
	        (long long)json_integer_value(json_object_get(lim, "nofile")),
	        json_is_string(json_object_get(lim, "memlock")) ? "unlimited" : "limited",
	        (long long)json_integer_value(json_object_get(lim, "somaxconn")));
	if (json_integer_value(json_object_get(lim, "world")))
		fprintf(out, " (world %lld)",
		        (long long)json_integer_value(json_object_get(lim, "world")));
	fputc('\n', out);
	x = json_integer_value(json_object_get(r, "shm_bytes"));
	fprintf(out, "  /dev/shm:      %.1f GiB\n", (double)x / (double)(1ULL << 30));
	if (json_array_size(json_object_get(r, "problems")) == 0) {
		fprintf(out, "no problem found\n");
		return;
	}
	fprintf(out, "%zu problem(s):\n", json_array_size(json_object_get(r, "problems")));
	json_array_foreach(json_object_get(r, "problems"), i, p)
	{
		const char *w = json_string_value(json_object_get(p, "what"));
		size_t n = strlen(w);

		fprintf(out, "  - %.*s\n    fix: %s\n", (int)n, w,
		        json_string_value(json_object_get(p, "fix")));
	}
}

int
mcinit_doctor(long world, FILE *out, char **json)
{
	json_t *r = json_object(), *problems = json_array();
	int n;

	gpu_part(problems, r);
	affinity_part(r);
	machine_part(world, problems, r);
	json_object_set_new(r, "problems", problems);
	n = (int)json_array_size(problems);
	if (out)
		text(r, out);
	if (json)
		*json = json_dumps(r, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(r);
	return json && !*json ? -1 : n;
}
