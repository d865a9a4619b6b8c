/* hwlocdl.c — libhwloc opened at its first use (hwlocdl.h). */
#include "build.h" /* MCINIT_HWLOC_SONAME, MCINIT_HWLOC_LIBDIR */

#include "topo/hwlocdl.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>

#include "core/dlfind.h"

enum {
#define SLOT(f) SLOT_##f,
	MCINIT_HWLOC_FUNCTIONS(SLOT)
#undef SLOT
	    NSLOTS
};

/* The real names, as libhwloc exports them (not renamed: these are
 * strings). */
static const char *const names[NSLOTS] = {
#define NAME(f) [SLOT_##f] = #f,
    MCINIT_HWLOC_FUNCTIONS(NAME)
#undef NAME
};

static void *fns[NSLOTS];
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int opened;               /* every slot resolved */
static char why[PATH_MAX + 256]; /* what went wrong, when not */

static void
open_once(void)
{
	char path[PATH_MAX];
	void *h;

	h = mcinit_dl_find(MCINIT_HWLOC_SONAME, "MCINIT_HWLOC_LIBRARY", NULL, MCINIT_HWLOC_LIBDIR,
	                   path, sizeof path, why, sizeof why);
	if (h == NULL)
		return;
	/* hwloc's plugins (PCI, XML through libxml2) look its core symbols up
	 * in the global scope and disable themselves when they are not there:
	 * make them global, as linking did. */
	if (dlopen(path, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD) == NULL) {
		snprintf(why, sizeof why, "%s", dlerror());
		return;
	}
	opened = mcinit_dl_resolve(h, path, names, NSLOTS, fns, " (hwloc too old?)", why,
	                           sizeof why) == 0;
}

int
mcinit_hwloc_open(struct mcinit_err *err)
{
	pthread_once(&once, open_once);
	if (opened)
		return 0;
	return mcinit_err_set(err, MCINIT_E_UNAVAILABLE,
	                      "hwloc is needed to read a node's hardware and cannot be loaded: %s "
	                      "(Debian: libhwloc15)",
	                      why);
}

/* F(name): the resolved function, with the prototype hwloc declares. */
#define F(name) ((__typeof__(&mcinit_dl_##name))fns[SLOT_##name])

struct hwloc_backend *
mcinit_dl_hwloc_backend_alloc(struct hwloc_topology *topology,
                              struct hwloc_disc_component *component)
{
	return F(hwloc_backend_alloc)(topology, component);
}

int
mcinit_dl_hwloc_backend_enable(struct hwloc_backend *backend)
{
	return F(hwloc_backend_enable)(backend);
}

hwloc_bitmap_t
mcinit_dl_hwloc_bitmap_alloc(void)
{
	return F(hwloc_bitmap_alloc)();
}

int
mcinit_dl_hwloc_bitmap_and(hwloc_bitmap_t res, hwloc_const_bitmap_t bitmap1,
                           hwloc_const_bitmap_t bitmap2)
{
	return F(hwloc_bitmap_and)(res, bitmap1, bitmap2);
}

hwloc_bitmap_t
mcinit_dl_hwloc_bitmap_dup(hwloc_const_bitmap_t bitmap)
{
	return F(hwloc_bitmap_dup)(bitmap);
}

int
mcinit_dl_hwloc_bitmap_first(hwloc_const_bitmap_t bitmap)
{
	return F(hwloc_bitmap_first)(bitmap);
}

int
mcinit_dl_hwloc_bitmap_intersects(hwloc_const_bitmap_t bitmap1, hwloc_const_bitmap_t bitmap2)
{
	return F(hwloc_bitmap_intersects)(bitmap1, bitmap2);
}

int
mcinit_dl_hwloc_bitmap_isequal(hwloc_const_bitmap_t bitmap1, hwloc_const_bitmap_t bitmap2)
{
	return F(hwloc_bitmap_isequal)(bitmap1, bitmap2);
}

int
mcinit_dl_hwloc_bitmap_iszero(hwloc_const_bitmap_t bitmap)
{
	return F(hwloc_bitmap_iszero)(bitmap);
}

int
mcinit_dl_hwloc_bitmap_list_asprintf(char **strp, hwloc_const_bitmap_t bitmap)
{
	return F(hwloc_bitmap_list_asprintf)(strp, bitmap);
}

int
mcinit_dl_hwloc_bitmap_list_sscanf(hwloc_bitmap_t bitmap, const char *__hwloc_restrict string)
{
	return F(hwloc_bitmap_list_sscanf)(bitmap, string);
}

int
mcinit_dl_hwloc_bitmap_next(hwloc_const_bitmap_t bitmap, int prev)
{
	return F(hwloc_bitmap_next)(bitmap, prev);
}

int
mcinit_dl_hwloc_bitmap_weight(hwloc_const_bitmap_t bitmap)
{
	return F(hwloc_bitmap_weight)(bitmap);
}

int
mcinit_dl_hwloc_distances_get_by_name(hwloc_topology_t topology, const char *name, unsigned *nr,
                                      struct hwloc_distances_s **distances, unsigned long flags)
{
	return F(hwloc_distances_get_by_name)(topology, name, nr, distances, flags);
}

void
mcinit_dl_hwloc_distances_release(hwloc_topology_t topology, struct hwloc_distances_s *distances)
{
	F(hwloc_distances_release)(topology, distances);
}

int
mcinit_dl_hwloc_get_cpubind(hwloc_topology_t topology, hwloc_cpuset_t set, int flags)
{
	return F(hwloc_get_cpubind)(topology, set, flags);
}

unsigned
mcinit_dl_hwloc_get_nbobjs_by_depth(hwloc_topology_t topology, int depth)
{
	return F(hwloc_get_nbobjs_by_depth)(topology, depth);
}

hwloc_obj_t
mcinit_dl_hwloc_get_obj_by_depth(hwloc_topology_t topology, int depth, unsigned idx)
{
	return F(hwloc_get_obj_by_depth)(topology, depth, idx);
}

int
mcinit_dl_hwloc_get_type_depth(hwloc_topology_t topology, hwloc_obj_type_t type)
{
	return F(hwloc_get_type_depth)(topology, type);
}

int
mcinit_dl_hwloc_set_cpubind(hwloc_topology_t topology, hwloc_const_cpuset_t set, int flags)
{
	return F(hwloc_set_cpubind)(topology, set, flags);
}

int
mcinit_dl_hwloc_set_proc_cpubind(hwloc_topology_t topology, hwloc_pid_t pid,
                                 hwloc_const_cpuset_t set, int flags)
{
	return F(hwloc_set_proc_cpubind)(topology, pid, set, flags);
}

void
mcinit_dl_hwloc_topology_destroy(hwloc_topology_t topology)
{
	F(hwloc_topology_destroy)(topology);
}

hwloc_const_cpuset_t
mcinit_dl_hwloc_topology_get_allowed_cpuset(hwloc_topology_t topology)
{
	return F(hwloc_topology_get_allowed_cpuset)(topology);
}

int
mcinit_dl_hwloc_topology_init(hwloc_topology_t *topologyp)
{
	return F(hwloc_topology_init)(topologyp);
}

int
mcinit_dl_hwloc_topology_is_thissystem(hwloc_topology_t __hwloc_restrict topology)
{
	return F(hwloc_topology_is_thissystem)(topology);
}

int
mcinit_dl_hwloc_topology_load(hwloc_topology_t topology)
{
	return F(hwloc_topology_load)(topology);
}

int
mcinit_dl_hwloc_topology_set_components(hwloc_topology_t __hwloc_restrict topology,
                                        unsigned long flags, const char *__hwloc_restrict name)
{
	return F(hwloc_topology_set_components)(topology, flags, name);
}

int
mcinit_dl_hwloc_topology_set_flags(hwloc_topology_t topology, unsigned long flags)
{
	return F(hwloc_topology_set_flags)(topology, flags);
}

int
mcinit_dl_hwloc_topology_set_io_types_filter(hwloc_topology_t topology,
                                             enum hwloc_type_filter_e filter)
{
	return F(hwloc_topology_set_io_types_filter)(topology, filter);
}

int
mcinit_dl_hwloc_topology_set_xmlbuffer(hwloc_topology_t __hwloc_restrict topology,
                                       const char *__hwloc_restrict buffer, int size)
{
	return F(hwloc_topology_set_xmlbuffer)(topology, buffer, size);
}

/* hwloc_bitmap_free(NULL) does nothing: neither does this, library or not
 * (mcinit_affinity_free reaches it when the library could not be opened). */
void
mcinit_dl_hwloc_bitmap_free(hwloc_bitmap_t bitmap)
{
	if (bitmap != NULL)
		F(hwloc_bitmap_free)(bitmap);
}

/* --version reports the running hwloc: 0 when there is none. */
unsigned
mcinit_dl_hwloc_get_api_version(void)
{
	return mcinit_hwloc_open(NULL) == 0 ? F(hwloc_get_api_version)() : 0;
}
