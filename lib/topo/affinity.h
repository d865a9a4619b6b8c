/*
 * affinity.h — where the GPUs, CPUs, NUMA nodes and NICs of one node are,
 * read from hwloc (this machine, or an hwloc XML file of the target node).
 *
 * Load once with mcinit_affinity_load(); everything else queries the
 * returned object.  All strings and arrays reachable from the structs below
 * are owned by the mcinit_affinity object and stay valid until
 * mcinit_affinity_free().  Functions that return a `char *` or a `json_t *`
 * give the caller ownership (free() / json_decref()).
 *
 * GPU indexes are "local GPU indexes": the order CUDA would number the
 * devices (the caller's bus-id list, else cuda<N>/nvml<N> OS-device names
 * found in an XML file, else PCI bus order).  Local rank i normally drives
 * GPU i.
 *
 * Binding happens only on a topology discovered from the live machine: an
 * XML topology describes some other node, so binding to its CPU numbers
 * would be meaningless (mcinit_affinity_is_live()).
 *
 * CPUs outside the allowed set (cgroup, Slurm allocation, an XML's
 * allowed_cpuset) stay in the topology: a GPU's cpuset is what the hardware
 * has, and warnings and binding intersect it with the allowed set.
 *
 * Leak checkers: a live load leaks ~1 KiB once per process inside
 * libpciaccess (the device-name cache hwloc's PCI plugin fills and
 * pci_system_cleanup() never frees).  It is not ours to free; the tests
 * carry suppressions in tests/leaks/ (see the comments there for the
 * valgrind and LeakSanitizer options).
 */
#ifndef MCINIT_AFFINITY_H
#define MCINIT_AFFINITY_H

#include <stddef.h>
#include <sys/types.h>

#include <jansson.h>

#include "core/diag.h"
#include "core/util.h"

struct mcinit_affinity; /* opaque; owns the hwloc topology */

struct mcinit_affinity_opts {
	/* hwloc XML file of the node; NULL: $HWLOC_XMLFILE if set (unless
	 * ignore_xml_env), else discover this machine.  ignore_xml_env: hwloc
	 * does not read it either (no environment is changed: loads are
	 * thread-safe). */
	const char *xml_path;
	/* NUL-terminated XML already in memory (used instead of xml_path
	 * when not NULL). */
	const char *xml_buffer;
	int ignore_xml_env;
	/* Optional GPU order: PCI bus ids ("0000:34:00.0", or CUDA's
	 * "00000000:34:00.0") of CUDA devices 0..n-1.  When given, exactly
	 * these GPUs are reported, in this order. */
	const char *const *gpu_busids;
	size_t ngpu_busids;
};

struct mcinit_affinity_gpu {
	char busid[24]; /* "0000:34:00.0" */
	char *model;    /* "NVIDIA H100 80GB HBM3"; NULL when unknown */
	char *osname;   /* "cuda0" / "nvml0" when the topology names it; else NULL */
	unsigned *numa; /* OS indexes of the NUMA nodes local to the GPU */
	size_t nnuma;
	char *cpuset; /* CPUs local to the GPU, list form ("0-23,48-71") */
	char **nics;  /* names of the nearby NICs ("mlx5_0") */
	size_t nnics;
};

struct mcinit_affinity_nic {
	char *name;     /* "mlx5_0" (RDMA device) or "eth0" when no RDMA device exists */
	char busid[24]; /* its PCI device; "" when not on PCI */
};

struct mcinit_affinity_numa {
	unsigned os_index;
	char *cpuset;              /* list form */
	unsigned long long memory; /* bytes local to the node; 0 when unknown */
};

struct mcinit_affinity_package {
	unsigned os_index;
	char *cpuset;   /* list form */
	unsigned *numa; /* OS indexes of its NUMA nodes */
	size_t nnuma;
};

/* Loads the topology (I/O objects kept) and finds GPUs, NICs, NUMA nodes.
 * A node without GPUs is not an error.  NULL + err when hwloc fails or a
 * bus id in opts->gpu_busids is unknown.  opts may be NULL. */
struct mcinit_affinity *mcinit_affinity_load(const struct mcinit_affinity_opts *opts,
                                             struct mcinit_err *err);
void mcinit_affinity_free(struct mcinit_affinity *a);

/* 1 when discovered from the running machine (binding allowed). */
int mcinit_affinity_is_live(const struct mcinit_affinity *a);
/* "this machine", or the XML file name. */
const char *mcinit_affinity_source(const struct mcinit_affinity *a);

size_t mcinit_affinity_ngpus(const struct mcinit_affinity *a);
const struct mcinit_affinity_gpu *mcinit_affinity_gpu(const struct mcinit_affinity *a, size_t i);
size_t mcinit_affinity_nnics(const struct mcinit_affinity *a);
const struct mcinit_affinity_nic *mcinit_affinity_nic(const struct mcinit_affinity *a, size_t i);
size_t mcinit_affinity_nnuma(const struct mcinit_affinity *a);
const struct mcinit_affinity_numa *mcinit_affinity_numa(const struct mcinit_affinity *a, size_t i);
size_t mcinit_affinity_npackages(const struct mcinit_affinity *a);
const struct mcinit_affinity_package *mcinit_affinity_package(const struct mcinit_affinity *a,
                                                              size_t i);

/* CPUs this process may use, list form: on the live machine the process's
 * current binding, in an XML topology its allowed CPUs. */
const char *mcinit_affinity_allowed_cpuset(const struct mcinit_affinity *a);
/* Replaces that set (e.g. what a launcher will give the workers).
 * -1 + err (MCINIT_E_USAGE) on a malformed or empty list. */
int mcinit_affinity_set_allowed_cpuset(struct mcinit_affinity *a, const char *list,
                                       struct mcinit_err *err);

/* ---- links, as `nvidia-smi topo -m` classifies them ---- */

enum mcinit_link_kind {
	MCINIT_LINK_SELF, /* X */
	MCINIT_LINK_NV,   /* NV#: # bonded NVLinks (direct or through NVSwitch) */
	MCINIT_LINK_PIX,  /* at most one PCIe bridge/switch between */
	MCINIT_LINK_PXB,  /* several PCIe bridges, no host bridge */
	MCINIT_LINK_PHB,  /* through a PCIe host bridge */
	MCINIT_LINK_NODE, /* between host bridges of one NUMA node */
	MCINIT_LINK_SYS,  /* across NUMA nodes (SMP interconnect) */
};

struct mcinit_link {
	enum mcinit_link_kind kind;
	unsigned nvlinks; /* for MCINIT_LINK_NV */
};

/* GPU i to GPU j / GPU i to NIC k.  Out-of-range indexes give SYS. */
struct mcinit_link mcinit_affinity_gpu_link(const struct mcinit_affinity *a, size_t i, size_t j);
struct mcinit_link mcinit_affinity_gpu_nic_link(const struct mcinit_affinity *a, size_t gpu,
                                                size_t nic);
/* Whether NV# entries can be trusted: the topology had an NVLinkBandwidth
 * matrix, came from an XML file, or mcinit_affinity_set_nvlink() was
 * called.  Debian's hwloc has no NVML backend, so on a live machine NVLinks
 * are unknown until the caller reports them. */
int mcinit_affinity_nvlink_known(const struct mcinit_affinity *a);
/* Records nlinks NVLinks between GPUs i and j (both ways), e.g. from NVML.
 * -1 + err (MCINIT_E_USAGE) for a bad pair. */
int mcinit_affinity_set_nvlink(struct mcinit_affinity *a, size_t i, size_t j, unsigned nlinks,
                               struct mcinit_err *err);
/* "X", "NV18", "PIX", ... into buf (at least 16 bytes); returns buf. */
const char *mcinit_link_name(struct mcinit_link l, char *buf, size_t size);

/* Appends the GPU/NIC link matrix with CPU/NUMA affinity columns and a
 * legend, or a "no GPUs" line. */
void mcinit_affinity_matrix_text(const struct mcinit_affinity *a, struct mcx_buf *out);
/* Appends a summary: source, packages, NUMA nodes, GPUs, NICs, allowed CPUs. */
void mcinit_affinity_summary_text(const struct mcinit_affinity *a, struct mcx_buf *out);

/* ---- placement warnings ---- */

struct mcinit_affinity_placement {
	size_t nlocal;            /* local ranks on this node */
	const int *rank_gpu;      /* [nlocal] GPU of each local rank; NULL: rank i -> GPU i */
	size_t ngroups;           /* tensor-parallel groups, as local GPU indexes */
	const size_t *group_len;  /* [ngroups] */
	const int *const *groups; /* [ngroups][group_len[g]] */
	const long *group_ids;    /* [ngroups] numbers the messages give the groups
	                             (e.g. Megatron's group index); NULL: 0, 1, ... */
};

/* Which check a warning comes from (callers map them to diagnostic codes). */
enum mcinit_affinity_warn {
	MCINIT_AFF_WARN_TP_NVLINK, /* a TP group's GPUs are not all NVLink-connected */
	MCINIT_AFF_WARN_RANKS,     /* more local ranks than GPUs, or a rank on a missing GPU */
	MCINIT_AFF_WARN_FAR_CPUS,  /* a used GPU has no CPU in the allowed set */
};

/* Fills *out with a NULL-terminated array of warning messages (possibly
 * empty) and *nout with their count; release with mcinit_affinity_warnings_free.
 * When kinds is not NULL, *kinds gets a malloc'd array (caller frees) saying
 * which check each message comes from.
 * Warns when a TP group's GPUs are not all NVLink-connected (only when
 * mcinit_affinity_nvlink_known()), when local ranks outnumber GPUs (or map
 * to a missing GPU), and when a used GPU's CPUs are all outside the allowed
 * set.  Never fails: returns 0. */
int mcinit_affinity_warnings(const struct mcinit_affinity *a,
                             const struct mcinit_affinity_placement *p, char ***out,
                             enum mcinit_affinity_warn **kinds, size_t *nout);
void mcinit_affinity_warnings_free(char **v);

/* ---- binding (for `run`) ---- */

/* The CPUs a rank driving GPU `gpu` should use: the GPU's local CPUs
 * intersected with the allowed set (as NCCL does), list form; caller
 * frees.  NULL + err (MCINIT_E_UNAVAILABLE) when the intersection is empty, MCINIT_E_USAGE
 * for a bad index. */
char *mcinit_affinity_gpu_bind_cpuset(const struct mcinit_affinity *a, size_t gpu,
                                      struct mcinit_err *err);
/* Binds process pid (0: this process) to the GPU's CPUs as above. */
int mcinit_affinity_bind_gpu(const struct mcinit_affinity *a, size_t gpu, pid_t pid,
                             struct mcinit_err *err);
/* Binds process pid (0: this process) to `list` ∩ allowed CPUs.  -1 + err
 * when the topology is not the live machine (MCINIT_E_USAGE), the list is bad
 * (MCINIT_E_USAGE), the intersection is empty (MCINIT_E_UNAVAILABLE) or hwloc fails
 * (MCINIT_E_OS). */
int mcinit_affinity_bind_cpuset(const struct mcinit_affinity *a, const char *list, pid_t pid,
                                struct mcinit_err *err);
/* Current CPU binding of this process, list form; caller frees.  NULL + err
 * when not live or hwloc fails. */
char *mcinit_affinity_get_binding(const struct mcinit_affinity *a, struct mcinit_err *err);

/* ---- JSON ---- */

/* One `affinity` entry: {"local_rank": l, "gpu": "0000:34:00.0", "numa":
 * [0], "cpuset": "0-23", "nics": ["mlx5_0"]}; for a rank without a GPU
 * (gpu < 0 or out of range) "gpu" is null, "numa"/"cpuset" describe the
 * allowed CPUs and "nics" is [].  New reference. */
json_t *mcinit_affinity_entry_json(const struct mcinit_affinity *a, size_t local_rank, int gpu);
/* The `affinity` array for nlocal local ranks (rank_gpu as in placement). */
json_t *mcinit_affinity_json(const struct mcinit_affinity *a, size_t nlocal, const int *rank_gpu);

/* Documentation of the placement codes MC050-MC054 that `mcinit topology`
 * reports from this module's findings. */
extern const struct mcinit_code_doc mcinit_affinity_codes[];
extern const size_t mcinit_naffinity_codes;

#endif
