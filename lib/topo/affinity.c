/* affinity.c — see affinity.h. */
#include "topo/affinity.h"
#include "topo/hwlocdl.h" /* hwloc.h, opened at run time */
#include "topo/hwxml.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NVIDIA_VENDOR_ID       0x10de
#define PCI_CLASS_VGA          0x0300
#define PCI_CLASS_3D           0x0302
#define PCI_CLASS_BRIDGE_OTHER 0x0680

/* Unidirectional bandwidth hwloc's NVML backend records per NVLink (MB/s):
 * 20000 for NVLink 1, 25000 for later versions. */
#define NVLINK_BW_V1 20000
#define NVLINK_BW    25000

struct gpu {
	struct mcinit_affinity_gpu pub;
	hwloc_obj_t pci;
	hwloc_bitmap_t cpuset;
	long order_key; /* cuda/nvml number, for sorting; -1 when unnamed */
	int order_kind; /* 0 cuda, 1 nvml, 2 unnamed */
};

struct nic {
	struct mcinit_affinity_nic pub;
	hwloc_obj_t endpoint; /* its PCI device, else the OS device itself */
};

struct mcinit_affinity {
	hwloc_topology_t topo;
	int live;
	char *source;
	struct gpu *gpus;
	size_t ngpus;
	unsigned *nvlinks; /* ngpus x ngpus, 0 = no NVLink */
	int nvlink_known;  /* nvlinks reflects the hardware (see header) */
	struct nic *nics;
	size_t nnics;
	struct mcinit_affinity_numa *numa;
	size_t nnuma;
	struct mcinit_affinity_package *pkgs;
	size_t npkgs;
	hwloc_bitmap_t allowed;
	char *allowed_str;
};

/* ---------------------------------------------------------------- helpers */

static char *
bitmap_list(hwloc_const_bitmap_t set)
{
	char *s = NULL;

	if (hwloc_bitmap_list_asprintf(&s, set) < 0 || s == NULL)
		return mcx_xstrdup("");
	return s;
}

static unsigned *
nodeset_indexes(hwloc_const_bitmap_t nodeset, size_t *n)
{
	int w = hwloc_bitmap_weight(nodeset);
	unsigned *v, i;
	size_t k = 0;

	*n = 0;
	if (w <= 0)
		return NULL;
	v = mcx_xcalloc((size_t)w, sizeof *v);
	hwloc_bitmap_foreach_begin(i, nodeset)
	{
		v[k++] = i;
	}
	hwloc_bitmap_foreach_end();
	*n = k;
	return v;
}

static void
format_busid(hwloc_obj_t pci, char *buf, size_t size)
{
	struct hwloc_pcidev_attr_s *p = &pci->attr->pcidev;

	snprintf(buf, size, "%04x:%02x:%02x.%01x", p->domain, p->bus, p->dev, p->func);
}

static int
is_io(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_BRIDGE || o->type == HWLOC_OBJ_PCI_DEVICE ||
	       o->type == HWLOC_OBJ_OS_DEVICE;
}

static int
is_host_bridge(hwloc_obj_t o)
{
	return o->type == HWLOC_OBJ_BRIDGE &&
	       o->attr->bridge.upstream_type == HWLOC_OBJ_BRIDGE_HOST;
}

static int
is_nvidia_gpu(hwloc_obj_t o)
{
	unsigned cls = o->attr->pcidev.class_id;

	return o->attr->pcidev.vendor_id == NVIDIA_VENDOR_ID &&
	       (cls == PCI_CLASS_3D || cls == PCI_CLASS_VGA);
}

static int
is_nvswitch(hwloc_obj_t o)
{
	if (o->type != HWLOC_OBJ_PCI_DEVICE)
		return 0;
	if (o->subtype != NULL && strcmp(o->subtype, "NVSwitch") == 0)
		return 1;
	return o->attr->pcidev.vendor_id == NVIDIA_VENDOR_ID &&
	       o->attr->pcidev.class_id == PCI_CLASS_BRIDGE_OTHER;
}

/* ---------------------------------------------------------------- loading */

/*
 * hwloc obeys $HWLOC_XMLFILE (and $HWLOC_SYNTHETIC, $HWLOC_FSROOT) only
 * while no backend has been chosen before hwloc_topology_load, and
 * blacklisting its XML component does not stop that.  So a load of this
 * machine first enables a backend of our own that discovers nothing (the
 * plugin API of <hwloc/plugins.h>): hwloc then skips those variables and
 * adds its usual components.  No environment is changed, so loads may run
 * in any thread.
 */
static struct hwloc_disc_component live_marker = {
    "mcinit_live", HWLOC_DISC_PHASE_TWEAK, 0, NULL, 0, 0, NULL,
};

static int
choose_live(hwloc_topology_t topo)
{
	struct hwloc_backend *b = hwloc_backend_alloc(topo, &live_marker);

	if (b == NULL)
		return -1;
	b->phases = HWLOC_DISC_PHASE_TWEAK;
	return hwloc_backend_enable(b);
}

/* A missing or unreadable file is "no input" (MCINIT_E_NOINPUT), unlike a file
 * hwloc cannot parse (MCINIT_E_PARSE): scripts tell the two apart. */
static int
check_readable(const char *path, struct mcinit_err *err)
{
	struct stat st;

	if (access(path, R_OK) < 0)
		return mcinit_err_set(err, MCINIT_E_NOINPUT, "%s: cannot read hwloc XML: %s", path,
		                      strerror(errno));
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return mcinit_err_set(err, MCINIT_E_NOINPUT, "%s: cannot read hwloc XML: %s", path,
		                      strerror(EISDIR));
	return 0;
}

/* A readable XML source that hwloc rejects is bad data, whichever step
 * rejects it: with libxml2 (Debian's libhwloc-plugins) hwloc parses in
 * hwloc_topology_set_xml*, with its own minimal parser only in
 * hwloc_topology_load, and errno says nothing useful in either case.  One
 * message for both keeps the output independent of what is installed. */
static int
not_xml(const struct mcinit_affinity *a, struct mcinit_err *err)
{
	return mcinit_err_set(err, MCINIT_E_PARSE,
	                      "%s: not an hwloc XML topology (hwloc cannot parse it)", a->source);
}

static int
load_topology(struct mcinit_affinity *a, const struct mcinit_affinity_opts *o,
              struct mcinit_err *err)
{
	const char *path = o->xml_path;
	char *text = NULL; /* the file's bytes, checked, then given to hwloc */
	size_t len;
	int xml = 0, rc;

	if (mcinit_hwloc_open(err) < 0)
		return -1;
	if (hwloc_topology_init(&a->topo) < 0) {
		a->topo = NULL;
		return mcinit_err_set(err, MCINIT_E_OS, "hwloc: cannot initialise a topology: %s",
		                      strerror(errno));
	}
	hwloc_topology_set_io_types_filter(a->topo, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
	/* Keep CPUs outside the allowed set (a cgroup, a Slurm allocation, an
	 * XML's allowed_cpuset): a GPU's local CPUs are what the hardware has,
	 * and the warnings and binding intersect them with the allowed set. */
	hwloc_topology_set_flags(a->topo, HWLOC_TOPOLOGY_FLAG_INCLUDE_DISALLOWED);
	if (path == NULL && o->xml_buffer == NULL && !o->ignore_xml_env) {
		path = getenv("HWLOC_XMLFILE");
		if (path != NULL && *path == '\0')
			path = NULL;
	}
	if (o->xml_buffer != NULL) {
		len = strlen(o->xml_buffer) + 1;
		a->source = mcx_xstrdup("XML buffer");
		xml = 1;
		rc = mcinit_hwxml_check(o->xml_buffer, len - 1, a->source, err);
		if (rc < 0)
			return -1;
		if (rc > 0 || len > INT32_MAX ||
		    hwloc_topology_set_xmlbuffer(a->topo, o->xml_buffer, (int)len) < 0)
			return not_xml(a, err);
	} else if (path != NULL) {
		if (check_readable(path, err) < 0 ||
		    (text = mcinit_read_file(path, &len, err)) == NULL)
			return -1;
		rc = mcinit_hwxml_check(text, len, path, err);
		if (rc < 0) {
			free(text);
			return -1;
		}
		a->source = mcx_xstrdup(path);
		xml = 1;
		/* hwloc gets the bytes just checked, never the path: read
		 * again, the file could have changed in between (or be a
		 * pipe's second, different stream). */
		if (rc > 0 || len >= INT32_MAX ||
		    hwloc_topology_set_xmlbuffer(a->topo, text, (int)len + 1) < 0) {
			free(text);
			return not_xml(a, err);
		}
	} else {
		a->source = mcx_xstrdup("this machine");
		/* The GL backend probes X displays over sockets and OpenCL starts
		 * vendor runtimes: slow (tens of ms), and they add only OS devices
		 * that mcinit never looks at. */
		hwloc_topology_set_components(a->topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
		                              "gl");
		hwloc_topology_set_components(a->topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST,
		                              "opencl");
	}
	rc = (!xml && choose_live(a->topo) < 0) || hwloc_topology_load(a->topo) < 0;
	free(text); /* hwloc has parsed it (or copied it) by now */
	if (rc) {
		if (xml)
			return not_xml(a, err);
		return mcinit_err_set(err, MCINIT_E_OS, "%s: hwloc cannot load the topology: %s",
		                      a->source, strerror(errno));
	}
	/* An XML file describes another node even if $HWLOC_THISSYSTEM says
	 * otherwise: never bind to its CPU numbers. */
	a->live = !xml && hwloc_topology_is_thissystem(a->topo);
	return 0;
}

static void
init_allowed(struct mcinit_affinity *a)
{
	hwloc_const_cpuset_t top = hwloc_topology_get_allowed_cpuset(a->topo);

	a->allowed = hwloc_bitmap_dup(top);
	if (a->live) {
		hwloc_bitmap_t cur = hwloc_bitmap_alloc();

		if (hwloc_get_cpubind(a->topo, cur, HWLOC_CPUBIND_PROCESS) == 0 &&
		    hwloc_bitmap_intersects(cur, top))
			hwloc_bitmap_and(a->allowed, cur, top);
		hwloc_bitmap_free(cur);
	}
	a->allowed_str = bitmap_list(a->allowed);
}

static void
collect_cpu_side(struct mcinit_affinity *a)
{
	int n = hwloc_get_nbobjs_by_type(a->topo, HWLOC_OBJ_NUMANODE);
	hwloc_obj_t o;
	size_t i;

	a->nnuma = n > 0 ? (size_t)n : 0;
	a->numa = mcx_xcalloc(a->nnuma, sizeof *a->numa);
	for (i = 0; i < a->nnuma; i++) {
		o = hwloc_get_obj_by_type(a->topo, HWLOC_OBJ_NUMANODE, (unsigned)i);
		a->numa[i].os_index = o->os_index;
		a->numa[i].cpuset = bitmap_list(o->cpuset);
		a->numa[i].memory = o->attr->numanode.local_memory;
	}
	n = hwloc_get_nbobjs_by_type(a->topo, HWLOC_OBJ_PACKAGE);
	a->npkgs = n > 0 ? (size_t)n : 0;
	a->pkgs = mcx_xcalloc(a->npkgs, sizeof *a->pkgs);
	for (i = 0; i < a->npkgs; i++) {
		o = hwloc_get_obj_by_type(a->topo, HWLOC_OBJ_PACKAGE, (unsigned)i);
		a->pkgs[i].os_index = o->os_index;
		a->pkgs[i].cpuset = bitmap_list(o->cpuset);
		a->pkgs[i].numa = nodeset_indexes(o->nodeset, &a->pkgs[i].nnuma);
	}
}

/* NCCL talks RDMA when any OpenFabrics device exists; plain netdevs then
 * are management ports, so list them only on nodes without RDMA. */
static void
collect_nics(struct mcinit_affinity *a)
{
	hwloc_obj_t o = NULL;
	size_t cap = 0;
	int want = HWLOC_OBJ_OSDEV_NETWORK;

	while ((o = hwloc_get_next_osdev(a->topo, o)) != NULL)
		if (o->attr->osdev.type == HWLOC_OBJ_OSDEV_OPENFABRICS)
			want = HWLOC_OBJ_OSDEV_OPENFABRICS;
	while ((o = hwloc_get_next_osdev(a->topo, o)) != NULL) {
		struct nic *n;

		if ((int)o->attr->osdev.type != want || o->name == NULL)
			continue;
		if (a->nnics == cap) {
			cap = cap ? 2 * cap : 8;
			a->nics = mcx_xrealloc(a->nics, cap * sizeof *a->nics);
		}
		n = &a->nics[a->nnics++];
		memset(n, 0, sizeof *n);
		n->pub.name = mcx_xstrdup(o->name);
		n->endpoint = o;
		if (o->parent != NULL && o->parent->type == HWLOC_OBJ_PCI_DEVICE) {
			n->endpoint = o->parent;
			format_busid(o->parent, n->pub.busid, sizeof n->pub.busid);
		}
	}
}

static void
name_gpu(struct gpu *g)
{
	hwloc_obj_t c;
	unsigned long num;
	char *end;

	g->order_kind = 2;
	g->order_key = -1;
	for (c = g->pci->io_first_child; c != NULL; c = c->next_sibling) {
		int kind;

		if (c->type != HWLOC_OBJ_OS_DEVICE || c->name == NULL)
			continue;
		if (strncmp(c->name, "cuda", 4) == 0)
			kind = 0;
		else if (strncmp(c->name, "nvml", 4) == 0)
			kind = 1;
		else
			continue;
		num = strtoul(c->name + 4, &end, 10);
		if (end == c->name + 4 || *end != '\0' || kind > g->order_kind)
			continue;
		g->order_kind = kind;
		g->order_key = (long)num;
		free(g->pub.osname);
		g->pub.osname = mcx_xstrdup(c->name);
		if (hwloc_obj_get_info_by_name(c, "GPUModel") != NULL) {
			free(g->pub.model);
			g->pub.model = mcx_xstrdup(hwloc_obj_get_info_by_name(c, "GPUModel"));
		}
	}
}

static void
fill_gpu(struct mcinit_affinity *a, struct gpu *g, hwloc_obj_t pci)
{
	hwloc_obj_t anc = hwloc_get_non_io_ancestor_obj(a->topo, pci);
	const char *pname = hwloc_obj_get_info_by_name(pci, "PCIDevice");

	memset(g, 0, sizeof *g);
	g->pci = pci;
	format_busid(pci, g->pub.busid, sizeof g->pub.busid);
	name_gpu(g);
	if (g->pub.model == NULL && pname != NULL)
		g->pub.model = mcx_xstrdup(pname);
	g->cpuset = hwloc_bitmap_dup(anc->cpuset);
	g->pub.cpuset = bitmap_list(anc->cpuset);
	g->pub.numa = nodeset_indexes(anc->nodeset, &g->pub.nnuma);
}

static int
gpu_cmp(const void *pa, const void *pb)
{
	const struct gpu *x = pa, *y = pb;
	const struct hwloc_pcidev_attr_s *p = &x->pci->attr->pcidev, *q = &y->pci->attr->pcidev;

	if (x->order_kind != y->order_kind)
		return x->order_kind - y->order_kind;
	if (x->order_key != y->order_key)
		return x->order_key < y->order_key ? -1 : 1;
	if (p->domain != q->domain)
		return p->domain < q->domain ? -1 : 1;
	if (p->bus != q->bus)
		return p->bus - q->bus;
	if (p->dev != q->dev)
		return p->dev - q->dev;
	return p->func - q->func;
}

static int
collect_gpus_by_busid(struct mcinit_affinity *a, const struct mcinit_affinity_opts *o,
                      struct mcinit_err *err)
{
	size_t i, j;

	a->gpus = mcx_xcalloc(o->ngpu_busids, sizeof *a->gpus);
	for (i = 0; i < o->ngpu_busids; i++) {
		const char *id = o->gpu_busids[i];
		hwloc_obj_t pci = id ? hwloc_get_pcidev_by_busidstring(a->topo, id) : NULL;

		if (pci == NULL)
			return mcinit_err_set(err, MCINIT_E_PARSE,
			                      "GPU %zu: PCI bus id %s is not in the topology of %s",
			                      i, id ? id : "(null)", a->source);
		for (j = 0; j < a->ngpus; j++)
			if (a->gpus[j].pci == pci)
				return mcinit_err_set(err, MCINIT_E_PARSE,
				                      "GPU %zu: PCI bus id %s repeats GPU %zu", i,
				                      id, j);
		fill_gpu(a, &a->gpus[a->ngpus++], pci);
	}
	return 0;
}

static void
collect_gpus(struct mcinit_affinity *a)
{
	hwloc_obj_t o = NULL;
	size_t cap = 0;

	while ((o = hwloc_get_next_pcidev(a->topo, o)) != NULL) {
		if (!is_nvidia_gpu(o))
			continue;
		if (a->ngpus == cap) {
			cap = cap ? 2 * cap : 8;
			a->gpus = mcx_xrealloc(a->gpus, cap * sizeof *a->gpus);
		}
		fill_gpu(a, &a->gpus[a->ngpus++], o);
	}
	if (a->ngpus > 1)
		qsort(a->gpus, a->ngpus, sizeof *a->gpus, gpu_cmp);
}

/* ---------------------------------------------------------------- links */

static unsigned
bw_to_links(hwloc_uint64_t bw)
{
	hwloc_uint64_t n;

	if (bw == 0)
		return 0;
	if (bw % NVLINK_BW == 0)
		return (unsigned)(bw / NVLINK_BW);
	if (bw % NVLINK_BW_V1 == 0)
		return (unsigned)(bw / NVLINK_BW_V1);
	n = (bw + NVLINK_BW / 2) / NVLINK_BW;
	return n ? (unsigned)n : 1;
}

static int
matrix_index(const struct hwloc_distances_s *d, hwloc_obj_t pci)
{
	unsigned k;

	for (k = 0; k < d->nbobjs; k++) {
		hwloc_obj_t o = d->objs[k];

		if (o == pci || (o->type == HWLOC_OBJ_OS_DEVICE && o->parent == pci))
			return (int)k;
	}
	return -1;
}

static hwloc_uint64_t
pair_bw(const struct hwloc_distances_s *d, int i, int j)
{
	hwloc_uint64_t x = d->values[(size_t)i * d->nbobjs + (size_t)j];
	hwloc_uint64_t y = d->values[(size_t)j * d->nbobjs + (size_t)i];

	return x > y ? x : y;
}

/* GPUs wired to NVSwitches (DGX-2 style) have no direct GPU-GPU entries;
 * every pair of them talks over the switch fabric with the smaller of
 * their link counts, as nvidia-smi reports it. */
static void
fill_nvlinks(struct mcinit_affinity *a, const struct hwloc_distances_s *d)
{
	int *idx = mcx_xcalloc(a->ngpus, sizeof *idx);
	hwloc_uint64_t *sw = mcx_xcalloc(a->ngpus, sizeof *sw);
	size_t i, j;
	unsigned k;

	for (i = 0; i < a->ngpus; i++) {
		idx[i] = matrix_index(d, a->gpus[i].pci);
		for (k = 0; idx[i] >= 0 && k < d->nbobjs; k++)
			if (is_nvswitch(d->objs[k]))
				sw[i] += pair_bw(d, idx[i], (int)k);
	}
	for (i = 0; i < a->ngpus; i++)
		for (j = 0; j < a->ngpus; j++) {
			hwloc_uint64_t bw = 0;

			if (i == j || idx[i] < 0 || idx[j] < 0)
				continue;
			bw = pair_bw(d, idx[i], idx[j]);
			if (bw == 0 && sw[i] > 0 && sw[j] > 0)
				bw = sw[i] < sw[j] ? sw[i] : sw[j];
			a->nvlinks[i * a->ngpus + j] = bw_to_links(bw);
		}
	free(sw);
	free(idx);
}

static void
collect_nvlinks(struct mcinit_affinity *a)
{
	struct hwloc_distances_s *d = NULL;
	unsigned nr = 1;

	a->nvlinks = mcx_xcalloc(a->ngpus * a->ngpus, sizeof *a->nvlinks);
	if (a->ngpus == 0)
		return;
	if (hwloc_distances_get_by_name(a->topo, "NVLinkBandwidth", &nr, &d, 0) < 0 || nr == 0 ||
	    d == NULL)
		return;
	fill_nvlinks(a, d);
	a->nvlink_known = 1;
	hwloc_distances_release(a->topo, d);
}

/* First common ancestor of x and y, found by walking both parent chains
 * ourselves: hwloc_get_common_ancestor_obj() crashes on I/O objects whose
 * bridge chains differ in length (hwloc 2.9).  *bx / *by count the bridges
 * strictly between each side and that ancestor. */
static hwloc_obj_t
common_ancestor(hwloc_obj_t x, hwloc_obj_t y, unsigned *bx, unsigned *by)
{
	hwloc_obj_t o, p;

	*bx = *by = 0;
	for (o = y; o != NULL; o = o->parent) {
		for (p = x; p != NULL && p != o; p = p->parent)
			;
		if (p != NULL)
			break;
		if (o != y && o->type == HWLOC_OBJ_BRIDGE)
			(*by)++;
	}
	for (p = x->parent; o != NULL && p != NULL && p != o; p = p->parent)
		if (p->type == HWLOC_OBJ_BRIDGE)
			(*bx)++;
	return o;
}

/* Paths that leave PCIe: within one NUMA domain or across the SMP link. */
static enum mcinit_link_kind
cpu_link(hwloc_topology_t topo, hwloc_obj_t x, hwloc_obj_t y)
{
	hwloc_obj_t ax = hwloc_get_non_io_ancestor_obj(topo, x);
	hwloc_obj_t ay = hwloc_get_non_io_ancestor_obj(topo, y);

	if (ax && ay && ax->nodeset && ay->nodeset &&
	    hwloc_bitmap_isequal(ax->nodeset, ay->nodeset))
		return MCINIT_LINK_NODE;
	return MCINIT_LINK_SYS;
}

/* Link class of two I/O endpoints, as nvidia-smi names them.  A PCIe
 * switch shows up in hwloc as an upstream bridge whose children are
 * downstream bridges, so "one switch" (PIX) means at most one bridge on
 * each side below the common one. */
static enum mcinit_link_kind
pci_link(hwloc_topology_t topo, hwloc_obj_t x, hwloc_obj_t y)
{
	unsigned bx, by;
	hwloc_obj_t c;

	if (x == y)
		return MCINIT_LINK_PIX;
	c = common_ancestor(x, y, &bx, &by);
	if (c == NULL)
		return MCINIT_LINK_SYS;
	if (!is_io(c))
		return cpu_link(topo, x, y);
	if (is_host_bridge(c))
		return MCINIT_LINK_PHB;
	return bx <= 1 && by <= 1 ? MCINIT_LINK_PIX : MCINIT_LINK_PXB;
}

struct mcinit_link
mcinit_affinity_gpu_link(const struct mcinit_affinity *a, size_t i, size_t j)
{
	struct mcinit_link l = {MCINIT_LINK_SYS, 0};

	if (i >= a->ngpus || j >= a->ngpus)
		return l;
	if (i == j) {
		l.kind = MCINIT_LINK_SELF;
		return l;
	}
	l.nvlinks = a->nvlinks[i * a->ngpus + j];
	if (l.nvlinks > 0) {
		l.kind = MCINIT_LINK_NV;
		return l;
	}
	l.kind = pci_link(a->topo, a->gpus[i].pci, a->gpus[j].pci);
	return l;
}

struct mcinit_link
mcinit_affinity_gpu_nic_link(const struct mcinit_affinity *a, size_t gpu, size_t nic)
{
	struct mcinit_link l = {MCINIT_LINK_SYS, 0};

	if (gpu < a->ngpus && nic < a->nnics)
		l.kind = pci_link(a->topo, a->gpus[gpu].pci, a->nics[nic].endpoint);
	return l;
}

static struct mcinit_link
nic_nic_link(const struct mcinit_affinity *a, size_t i, size_t j)
{
	struct mcinit_link l = {MCINIT_LINK_SELF, 0};

	if (i != j)
		l.kind = pci_link(a->topo, a->nics[i].endpoint, a->nics[j].endpoint);
	return l;
}

int
mcinit_affinity_set_nvlink(struct mcinit_affinity *a, size_t i, size_t j, unsigned nlinks,
                           struct mcinit_err *err)
{
	if (i >= a->ngpus || j >= a->ngpus || i == j)
		return mcinit_err_set(err, MCINIT_E_USAGE, "no GPU pair %zu-%zu: %s has %zu GPU%s",
		                      i, j, a->source, a->ngpus, a->ngpus == 1 ? "" : "s");
	a->nvlinks[i * a->ngpus + j] = nlinks;
	a->nvlinks[j * a->ngpus + i] = nlinks;
	a->nvlink_known = 1;
	return 0;
}

int
mcinit_affinity_nvlink_known(const struct mcinit_affinity *a)
{
	return a->nvlink_known;
}

const char *
mcinit_link_name(struct mcinit_link l, char *buf, size_t size)
{
	static const char *const names[] = {"X", "NV", "PIX", "PXB", "PHB", "NODE", "SYS"};

	if (l.kind == MCINIT_LINK_NV)
		snprintf(buf, size, "NV%u", l.nvlinks);
	else if ((size_t)l.kind < sizeof names / sizeof *names)
		snprintf(buf, size, "%s", names[l.kind]);
	else
		snprintf(buf, size, "?");
	return buf;
}

/* Nearby NICs: those of the best link class up to NODE (closest common PCI
 * bridge first, then same host bridge, then same NUMA node). */
static void
find_near_nics(struct mcinit_affinity *a)
{
	size_t g, k;

	for (g = 0; g < a->ngpus; g++) {
		struct mcinit_affinity_gpu *pub = &a->gpus[g].pub;
		enum mcinit_link_kind best = MCINIT_LINK_SYS;

		for (k = 0; k < a->nnics; k++) {
			enum mcinit_link_kind kind = mcinit_affinity_gpu_nic_link(a, g, k).kind;

			if (kind < best)
				best = kind;
		}
		if (best == MCINIT_LINK_SYS)
			continue;
		pub->nics = mcx_xcalloc(a->nnics, sizeof *pub->nics);
		for (k = 0; k < a->nnics; k++)
			if (mcinit_affinity_gpu_nic_link(a, g, k).kind == best)
				pub->nics[pub->nnics++] = a->nics[k].pub.name;
	}
}

/* ---------------------------------------------------------------- public */

struct mcinit_affinity *
mcinit_affinity_load(const struct mcinit_affinity_opts *opts, struct mcinit_err *err)
{
	static const struct mcinit_affinity_opts defaults;
	struct mcinit_affinity *a = mcx_xcalloc(1, sizeof *a);
	const struct mcinit_affinity_opts *o = opts ? opts : &defaults;

	if (load_topology(a, o, err) < 0)
		goto fail;
	init_allowed(a);
	collect_cpu_side(a);
	collect_nics(a);
	if (o->ngpu_busids > 0) {
		if (collect_gpus_by_busid(a, o, err) < 0)
			goto fail;
	} else {
		collect_gpus(a);
	}
	collect_nvlinks(a);
	/* An XML file is the node's own account: no matrix there means no
	 * NVLink.  Live, Debian's hwloc lacks the NVML backend, so silence
	 * proves nothing until mcinit_affinity_set_nvlink() fills it in. */
	if (!a->live)
		a->nvlink_known = 1;
	find_near_nics(a);
	return a;
fail:
	mcinit_affinity_free(a);
	return NULL;
}

void
mcinit_affinity_free(struct mcinit_affinity *a)
{
	size_t i;

	if (a == NULL)
		return;
	for (i = 0; i < a->ngpus; i++) {
		struct gpu *g = &a->gpus[i];

		free(g->pub.model);
		free(g->pub.osname);
		free(g->pub.numa);
		free(g->pub.cpuset);
		free(g->pub.nics); /* names are owned by a->nics */
		hwloc_bitmap_free(g->cpuset);
	}
	free(a->gpus);
	for (i = 0; i < a->nnics; i++)
		free(a->nics[i].pub.name);
	free(a->nics);
	for (i = 0; i < a->nnuma; i++)
		free(a->numa[i].cpuset);
	free(a->numa);
	for (i = 0; i < a->npkgs; i++) {
		free(a->pkgs[i].cpuset);
		free(a->pkgs[i].numa);
	}
	free(a->pkgs);
	free(a->nvlinks);
	hwloc_bitmap_free(a->allowed);
	free(a->allowed_str);
	free(a->source);
	if (a->topo != NULL)
		hwloc_topology_destroy(a->topo);
	free(a);
}

int
mcinit_affinity_is_live(const struct mcinit_affinity *a)
{
	return a->live;
}

const char *
mcinit_affinity_source(const struct mcinit_affinity *a)
{
	return a->source;
}

size_t
mcinit_affinity_ngpus(const struct mcinit_affinity *a)
{
	return a->ngpus;
}

const struct mcinit_affinity_gpu *
mcinit_affinity_gpu(const struct mcinit_affinity *a, size_t i)
{
	return i < a->ngpus ? &a->gpus[i].pub : NULL;
}

size_t
mcinit_affinity_nnics(const struct mcinit_affinity *a)
{
	return a->nnics;
}

const struct mcinit_affinity_nic *
mcinit_affinity_nic(const struct mcinit_affinity *a, size_t i)
{
	return i < a->nnics ? &a->nics[i].pub : NULL;
}

size_t
mcinit_affinity_nnuma(const struct mcinit_affinity *a)
{
	return a->nnuma;
}

const struct mcinit_affinity_numa *
mcinit_affinity_numa(const struct mcinit_affinity *a, size_t i)
{
	return i < a->nnuma ? &a->numa[i] : NULL;
}

size_t
mcinit_affinity_npackages(const struct mcinit_affinity *a)
{
	return a->npkgs;
}

const struct mcinit_affinity_package *
mcinit_affinity_package(const struct mcinit_affinity *a, size_t i)
{
	return i < a->npkgs ? &a->pkgs[i] : NULL;
}

const char *
mcinit_affinity_allowed_cpuset(const struct mcinit_affinity *a)
{
	return a->allowed_str;
}

static hwloc_bitmap_t
parse_list(const char *list, struct mcinit_err *err)
{
	hwloc_bitmap_t set = hwloc_bitmap_alloc();

	if (list == NULL || hwloc_bitmap_list_sscanf(set, list) < 0 ||
	    hwloc_bitmap_weight(set) <= 0 /* empty, or "0-" (infinite) */) {
		hwloc_bitmap_free(set);
		mcinit_err_set(err, MCINIT_E_USAGE, "'%s' is not a CPU list like \"0-23,48-71\"",
		               list ? list : "(null)");
		return NULL;
	}
	return set;
}

int
mcinit_affinity_set_allowed_cpuset(struct mcinit_affinity *a, const char *list,
                                   struct mcinit_err *err)
{
	hwloc_bitmap_t set = parse_list(list, err);

	if (set == NULL)
		return -1;
	hwloc_bitmap_free(a->allowed);
	free(a->allowed_str);
	a->allowed = set;
	a->allowed_str = bitmap_list(set);
	return 0;
}

/* ---------------------------------------------------------------- text */

static void
pad(struct mcx_buf *b, const char *s, int width)
{
	mcx_buf_printf(b, "%-*s", width, s);
}

static void
matrix_row(const struct mcinit_affinity *a, struct mcx_buf *out, size_t row, int w, int cw)
{
	char cell[32];
	size_t n = a->ngpus + a->nnics, j;
	int is_gpu = row < a->ngpus;

	if (is_gpu)
		snprintf(cell, sizeof cell, "GPU%zu", row);
	else
		snprintf(cell, sizeof cell, "NIC%zu", row - a->ngpus);
	pad(out, cell, w);
	for (j = 0; j < n; j++) {
		struct mcinit_link l;

		if (is_gpu && j < a->ngpus)
			l = mcinit_affinity_gpu_link(a, row, j);
		else if (is_gpu)
			l = mcinit_affinity_gpu_nic_link(a, row, j - a->ngpus);
		else if (j < a->ngpus)
			l = mcinit_affinity_gpu_nic_link(a, j, row - a->ngpus);
		else
			l = nic_nic_link(a, row - a->ngpus, j - a->ngpus);
		pad(out, mcinit_link_name(l, cell, sizeof cell), w);
	}
	if (is_gpu) {
		const struct mcinit_affinity_gpu *g = &a->gpus[row].pub;
		size_t k;

		pad(out, g->cpuset, cw);
		for (k = 0; k < g->nnuma; k++)
			mcx_buf_printf(out, "%s%u", k ? "," : "", g->numa[k]);
		if (g->nnuma == 0)
			mcx_buf_adds(out, "N/A");
	}
	while (out->len > 0 && out->data[out->len - 1] == ' ')
		out->len--;
	mcx_buf_addc(out, '\n');
}

void
mcinit_affinity_matrix_text(const struct mcinit_affinity *a, struct mcx_buf *out)
{
	size_t n = a->ngpus + a->nnics, j;
	const int w = 7;
	int cw = 16; /* "CPU Affinity" column, widened for long lists */
	char cell[32];

	if (a->ngpus == 0) {
		mcx_buf_printf(out, "No NVIDIA GPUs found (%s).\n", a->source);
		return;
	}
	for (j = 0; j < a->ngpus; j++)
		if ((int)strlen(a->gpus[j].pub.cpuset) + 2 > cw)
			cw = (int)strlen(a->gpus[j].pub.cpuset) + 2;
	pad(out, "", w);
	for (j = 0; j < n; j++) {
		if (j < a->ngpus)
			snprintf(cell, sizeof cell, "GPU%zu", j);
		else
			snprintf(cell, sizeof cell, "NIC%zu", j - a->ngpus);
		pad(out, cell, w);
	}
	pad(out, "CPU Affinity", cw);
	mcx_buf_adds(out, "NUMA Affinity\n");
	for (j = 0; j < n; j++)
		matrix_row(a, out, j, w, cw);
	mcx_buf_adds(out,
	             "\nLegend:\n\n"
	             "  X    = self\n"
	             "  SYS  = path crosses PCIe and the SMP interconnect between NUMA nodes\n"
	             "  NODE = path crosses PCIe and the link between host bridges of one NUMA "
	             "node\n"
	             "  PHB  = path crosses PCIe and a PCIe host bridge (the CPU)\n"
	             "  PXB  = path crosses several PCIe bridges, no host bridge\n"
	             "  PIX  = path crosses at most one PCIe bridge (switch)\n"
	             "  NV#  = bonded set of # NVLinks (direct or via NVSwitch)\n");
	if (a->nnics > 0) {
		mcx_buf_adds(out, "\nNIC Legend:\n\n");
		for (j = 0; j < a->nnics; j++)
			mcx_buf_printf(out, "  NIC%zu: %s\n", j, a->nics[j].pub.name);
	}
}

static void
add_uints(struct mcx_buf *out, const unsigned *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		mcx_buf_printf(out, "%s%u", i ? "," : "", v[i]);
	if (n == 0)
		mcx_buf_adds(out, "-");
}

void
mcinit_affinity_summary_text(const struct mcinit_affinity *a, struct mcx_buf *out)
{
	size_t i, k;

	mcx_buf_printf(out, "Topology: %s\n", a->source);
	mcx_buf_printf(out, "Packages: %zu\n", a->npkgs);
	for (i = 0; i < a->npkgs; i++) {
		mcx_buf_printf(out, "  package %u: CPUs %s, NUMA ", a->pkgs[i].os_index,
		               a->pkgs[i].cpuset);
		add_uints(out, a->pkgs[i].numa, a->pkgs[i].nnuma);
		mcx_buf_addc(out, '\n');
	}
	mcx_buf_printf(out, "NUMA nodes: %zu\n", a->nnuma);
	for (i = 0; i < a->nnuma; i++)
		mcx_buf_printf(out, "  node %u: CPUs %s, %.1f GiB\n", a->numa[i].os_index,
		               a->numa[i].cpuset,
		               (double)a->numa[i].memory / (1024.0 * 1024.0 * 1024.0));
	mcx_buf_printf(out, "GPUs: %zu\n", a->ngpus);
	for (i = 0; i < a->ngpus; i++) {
		const struct mcinit_affinity_gpu *g = &a->gpus[i].pub;

		mcx_buf_printf(out, "  GPU%zu %s %s: NUMA ", i, g->busid,
		               g->model ? g->model : "(unknown model)");
		add_uints(out, g->numa, g->nnuma);
		mcx_buf_printf(out, ", CPUs %s, NICs ", g->cpuset);
		for (k = 0; k < g->nnics; k++)
			mcx_buf_printf(out, "%s%s", k ? "," : "", g->nics[k]);
		if (g->nnics == 0)
			mcx_buf_adds(out, "-");
		mcx_buf_addc(out, '\n');
	}
	mcx_buf_printf(out, "NICs: %zu\n", a->nnics);
	for (i = 0; i < a->nnics; i++)
		mcx_buf_printf(out, "  %s %s\n", a->nics[i].pub.name,
		               a->nics[i].pub.busid[0] ? a->nics[i].pub.busid : "(not PCI)");
	mcx_buf_printf(out, "Allowed CPUs: %s\n", a->allowed_str);
}

/* ---------------------------------------------------------------- warnings */

struct strv {
	char **v;
	enum mcinit_affinity_warn *kinds; /* parallel to v */
	size_t n, cap;
};

static void
strv_push(struct strv *s, enum mcinit_affinity_warn kind, char *msg)
{
	if (s->n + 2 > s->cap) {
		s->cap = s->cap ? 2 * s->cap : 8;
		s->v = mcx_xrealloc(s->v, s->cap * sizeof *s->v);
		s->kinds = mcx_xrealloc(s->kinds, s->cap * sizeof *s->kinds);
	}
	s->kinds[s->n] = kind;
	s->v[s->n++] = msg;
	s->v[s->n] = NULL;
}

static void
warn_group(const struct mcinit_affinity *a, long gi, const int *grp, size_t len, struct strv *out)
{
	size_t i, j, bad = 0;
	int bi = -1, bj = -1;
	struct mcinit_link first = {MCINIT_LINK_SYS, 0};
	struct mcx_buf members = {0};
	char name[32];

	for (i = 0; i < len; i++)
		for (j = i + 1; j < len; j++) {
			struct mcinit_link l;

			if (grp[i] < 0 || grp[j] < 0 || (size_t)grp[i] >= a->ngpus ||
			    (size_t)grp[j] >= a->ngpus || grp[i] == grp[j])
				continue;
			l = mcinit_affinity_gpu_link(a, (size_t)grp[i], (size_t)grp[j]);
			if (l.kind == MCINIT_LINK_NV)
				continue;
			if (bad++ == 0) {
				bi = grp[i];
				bj = grp[j];
				first = l;
			}
		}
	if (bad == 0)
		return;
	for (i = 0; i < len; i++)
		mcx_buf_printf(&members, "%s%d", i ? "," : "", grp[i]);
	strv_push(out, MCINIT_AFF_WARN_TP_NVLINK,
	          mcx_xasprintf("tensor-parallel group %ld (GPUs %s) is not fully "
	                        "NVLink-connected: %zu GPU pair%s without NVLink, e.g. "
	                        "GPU%d-GPU%d over %s",
	                        gi, mcx_buf_cstr(&members), bad, bad == 1 ? "" : "s", bi, bj,
	                        mcinit_link_name(first, name, sizeof name)));
	mcx_buf_free(&members);
}

static int
rank_gpu_of(const struct mcinit_affinity_placement *p, size_t l)
{
	if (p->rank_gpu != NULL)
		return p->rank_gpu[l];
	return l > (size_t)INT32_MAX ? -1 : (int)l;
}

static void
warn_far_cpus(const struct mcinit_affinity *a, const struct mcinit_affinity_placement *p,
              struct strv *out)
{
	size_t g, l;

	for (g = 0; g < a->ngpus; g++) {
		struct mcx_buf ranks = {0};

		if (hwloc_bitmap_intersects(a->gpus[g].cpuset, a->allowed))
			continue;
		for (l = 0; l < p->nlocal; l++)
			if (rank_gpu_of(p, l) == (int)g)
				mcx_buf_printf(&ranks, "%s%zu", ranks.len ? "," : "", l);
		if (ranks.len > 0)
			strv_push(
			    out, MCINIT_AFF_WARN_FAR_CPUS,
			    mcx_xasprintf("GPU%zu (%s) is local to CPUs %s, none of which this "
			                  "process may use (allowed: %s); local rank %s would "
			                  "run far from its GPU",
			                  g, a->gpus[g].pub.busid, a->gpus[g].pub.cpuset,
			                  a->allowed_str, mcx_buf_cstr(&ranks)));
		mcx_buf_free(&ranks);
	}
}

int
mcinit_affinity_warnings(const struct mcinit_affinity *a, const struct mcinit_affinity_placement *p,
                         char ***out, enum mcinit_affinity_warn **kinds, size_t *nout)
{
	struct strv s = {0};
	size_t l, g;

	s.cap = 8;
	s.v = mcx_xcalloc(s.cap, sizeof *s.v); /* empty list is still an array */
	s.kinds = mcx_xcalloc(s.cap, sizeof *s.kinds);
	if (p->nlocal > a->ngpus)
		strv_push(&s, MCINIT_AFF_WARN_RANKS,
		          mcx_xasprintf("%zu local ranks but only %zu GPU%s on this node "
		                        "(%s): ranks would share GPUs or run without one",
		                        p->nlocal, a->ngpus, a->ngpus == 1 ? "" : "s", a->source));
	for (l = 0; p->rank_gpu != NULL && l < p->nlocal; l++)
		if (p->rank_gpu[l] < 0 || (size_t)p->rank_gpu[l] >= a->ngpus)
			strv_push(&s, MCINIT_AFF_WARN_RANKS,
			          mcx_xasprintf("local rank %zu is mapped to GPU %d, which "
			                        "does not exist (%zu GPUs)",
			                        l, p->rank_gpu[l], a->ngpus));
	for (g = 0; a->nvlink_known && g < p->ngroups; g++)
		warn_group(a, p->group_ids ? p->group_ids[g] : (long)g, p->groups[g],
		           p->group_len[g], &s);
	warn_far_cpus(a, p, &s);
	*out = s.v;
	if (kinds != NULL)
		*kinds = s.kinds;
	else
		free(s.kinds);
	if (nout != NULL)
		*nout = s.n;
	return 0;
}

void
mcinit_affinity_warnings_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* ---------------------------------------------------------------- binding */

static hwloc_bitmap_t
gpu_bind_set(const struct mcinit_affinity *a, size_t gpu, struct mcinit_err *err)
{
	hwloc_bitmap_t set;

	if (gpu >= a->ngpus) {
		mcinit_err_set(err, MCINIT_E_USAGE, "no GPU %zu: %s has %zu GPU%s", gpu, a->source,
		               a->ngpus, a->ngpus == 1 ? "" : "s");
		return NULL;
	}
	set = hwloc_bitmap_alloc();
	hwloc_bitmap_and(set, a->gpus[gpu].cpuset, a->allowed);
	if (hwloc_bitmap_iszero(set)) {
		mcinit_err_set(err, MCINIT_E_UNAVAILABLE,
		               "GPU%zu (%s) is local to CPUs %s, none of which are allowed (%s)",
		               gpu, a->gpus[gpu].pub.busid, a->gpus[gpu].pub.cpuset,
		               a->allowed_str);
		hwloc_bitmap_free(set);
		return NULL;
	}
	return set;
}

char *
mcinit_affinity_gpu_bind_cpuset(const struct mcinit_affinity *a, size_t gpu, struct mcinit_err *err)
{
	hwloc_bitmap_t set = gpu_bind_set(a, gpu, err);
	char *s;

	if (set == NULL)
		return NULL;
	s = bitmap_list(set);
	hwloc_bitmap_free(set);
	return s;
}

static int
bind_set(const struct mcinit_affinity *a, hwloc_const_bitmap_t want, pid_t pid,
         struct mcinit_err *err)
{
	hwloc_bitmap_t set = NULL;
	int rc = -1;
	char *s = NULL;

	if (!a->live) {
		mcinit_err_set(err, MCINIT_E_USAGE,
		               "cannot bind: the topology comes from %s, not this machine",
		               a->source);
		goto out;
	}
	set = hwloc_bitmap_alloc();
	hwloc_bitmap_and(set, want, a->allowed);
	if (hwloc_bitmap_iszero(set)) {
		s = bitmap_list(want);
		mcinit_err_set(err, MCINIT_E_UNAVAILABLE,
		               "cannot bind to CPUs %s: none is allowed (%s)", s, a->allowed_str);
		goto out;
	}
	if ((pid == 0 ? hwloc_set_cpubind(a->topo, set, HWLOC_CPUBIND_PROCESS)
	              : hwloc_set_proc_cpubind(a->topo, pid, set, HWLOC_CPUBIND_PROCESS)) < 0) {
		s = bitmap_list(set);
		mcinit_err_set(err, MCINIT_E_OS, "cannot bind to CPUs %s: %s", s, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(s);
	hwloc_bitmap_free(set);
	return rc;
}

int
mcinit_affinity_bind_gpu(const struct mcinit_affinity *a, size_t gpu, pid_t pid,
                         struct mcinit_err *err)
{
	hwloc_bitmap_t set = gpu_bind_set(a, gpu, err);
	int rc;

	if (set == NULL)
		return -1;
	rc = bind_set(a, set, pid, err);
	hwloc_bitmap_free(set);
	return rc;
}

int
mcinit_affinity_bind_cpuset(const struct mcinit_affinity *a, const char *list, pid_t pid,
                            struct mcinit_err *err)
{
	hwloc_bitmap_t set = parse_list(list, err);
	int rc;

	if (set == NULL)
		return -1;
	rc = bind_set(a, set, pid, err);
	hwloc_bitmap_free(set);
	return rc;
}

char *
mcinit_affinity_get_binding(const struct mcinit_affinity *a, struct mcinit_err *err)
{
	hwloc_bitmap_t set;
	char *s = NULL;

	if (!a->live) {
		mcinit_err_set(err, MCINIT_E_USAGE,
		               "no binding to read: the topology comes from %s", a->source);
		return NULL;
	}
	set = hwloc_bitmap_alloc();
	if (hwloc_get_cpubind(a->topo, set, HWLOC_CPUBIND_PROCESS) < 0)
		mcinit_err_set(err, MCINIT_E_OS, "cannot read the CPU binding: %s",
		               strerror(errno));
	else
		s = bitmap_list(set);
	hwloc_bitmap_free(set);
	return s;
}

/* ---------------------------------------------------------------- JSON */

static json_t *
uint_array(const unsigned *v, size_t n)
{
	json_t *arr = json_array();
	size_t i;

	for (i = 0; i < n; i++)
		json_array_append_new(arr, json_integer((json_int_t)v[i]));
	return arr;
}

static json_t *
no_gpu_entry(const struct mcinit_affinity *a, json_t *e)
{
	json_t *numa = json_array();
	size_t i;

	for (i = 0; i < a->nnuma; i++) {
		hwloc_obj_t o = hwloc_get_obj_by_type(a->topo, HWLOC_OBJ_NUMANODE, (unsigned)i);

		if (o != NULL && hwloc_bitmap_intersects(o->cpuset, a->allowed))
			json_array_append_new(numa, json_integer((json_int_t)o->os_index));
	}
	json_object_set_new(e, "gpu", json_null());
	json_object_set_new(e, "numa", numa);
	json_object_set_new(e, "cpuset", json_string(a->allowed_str));
	json_object_set_new(e, "nics", json_array());
	return e;
}

json_t *
mcinit_affinity_entry_json(const struct mcinit_affinity *a, size_t local_rank, int gpu)
{
	json_t *e = json_object(), *nics;
	const struct mcinit_affinity_gpu *g;
	size_t k;

	json_object_set_new(e, "local_rank", json_integer((json_int_t)local_rank));
	if (gpu < 0 || (size_t)gpu >= a->ngpus)
		return no_gpu_entry(a, e);
	g = &a->gpus[gpu].pub;
	json_object_set_new(e, "gpu", json_string(g->busid));
	json_object_set_new(e, "numa", uint_array(g->numa, g->nnuma));
	json_object_set_new(e, "cpuset", json_string(g->cpuset));
	nics = json_array();
	for (k = 0; k < g->nnics; k++)
		json_array_append_new(nics, json_string(g->nics[k]));
	json_object_set_new(e, "nics", nics);
	return e;
}

json_t *
mcinit_affinity_json(const struct mcinit_affinity *a, size_t nlocal, const int *rank_gpu)
{
	json_t *arr = json_array();
	size_t l;

	for (l = 0; l < nlocal; l++) {
		int g = rank_gpu ? rank_gpu[l] : (l > (size_t)INT32_MAX ? -1 : (int)l);

		json_array_append_new(arr, mcinit_affinity_entry_json(a, l, g));
	}
	return arr;
}

const struct mcinit_code_doc mcinit_affinity_codes[] = {
    {"MC050", MCINIT_WARNING,
     "the GPUs of a tensor-parallel group inside a node are not all joined by NVLink",
     "TP 4 on a node whose GPUs talk over PCIe only",
     "use a TP size that fits an NVLink domain, or a node with NVLink"},
    {"MC051", MCINIT_WARNING, "a node runs more local ranks than it has GPUs",
     "--nproc-per-node 8 on a 4-GPU node", "set nproc_per_node to the GPU count"},
    {"MC052", MCINIT_WARNING,
     "a GPU none of whose nearby CPUs the ranks are allowed to use (cpuset/cgroup)",
     "a job confined to socket 0 using GPUs on socket 1",
     "widen the allowed cpuset or use the GPUs near it"},
    {"MC053", MCINIT_NOTE, "the node has no NVIDIA GPUs; only CPUs and NUMA nodes are shown",
     "mcinit topology on a login node", "pass --hwloc-xml with the target node's topology"},
    {"MC054", MCINIT_WARNING, "this machine's topology could not be read; affinity is left out",
     "hwloc cannot read /sys", "pass --hwloc-xml FILE"},
};
const size_t mcinit_naffinity_codes =
    sizeof mcinit_affinity_codes / sizeof mcinit_affinity_codes[0];
