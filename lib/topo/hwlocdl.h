/* hwlocdl.h — hwloc's API, with libhwloc opened at run time, only by the
 * commands that read hardware (topology, run, the affinity tests).
 *
 * libhwloc drags libudev in with it: linked, the two cost every process,
 * validate and explain included, about a quarter of a millisecond and two
 * dozen page faults before main for code they never call.  So the library
 * is not linked.  Include this header instead of <hwloc.h>: it renames,
 * before hwloc's headers are read, each hwloc function mcinit calls to a
 * trampoline of the same prototype (hwlocdl.c), so hwloc's own inline
 * helpers (hwloc_get_obj_by_type, hwloc_bitmap_foreach_begin) reach the
 * trampolines too.  A function not listed here is a link error
 * (an undefined hwloc_* symbol), never a silent static dependency.
 *
 * mcinit_hwloc_open() opens the library (once per process, thread-safe) and
 * resolves every function listed; a caller that starts a topology calls it
 * first, and gets MCINIT_E_UNAVAILABLE naming the library when it cannot.
 * The trampolines are called only after it succeeded, except
 * hwloc_get_api_version (0 when the library cannot be opened) and
 * hwloc_bitmap_free of NULL (a no-op, as in hwloc). */
#ifndef MCINIT_HWLOCDL_H
#define MCINIT_HWLOCDL_H

#include "core/util.h"

/* X(name): every hwloc function that mcinit's code or hwloc's inline
 * helpers call.  `nm -u` of an object that includes this header lists no
 * hwloc_* symbol but these, renamed. */
#define MCINIT_HWLOC_FUNCTIONS(X)                                                                  \
	X(hwloc_backend_alloc)                                                                     \
	X(hwloc_backend_enable)                                                                    \
	X(hwloc_bitmap_alloc)                                                                      \
	X(hwloc_bitmap_and)                                                                        \
	X(hwloc_bitmap_dup)                                                                        \
	X(hwloc_bitmap_first)                                                                      \
	X(hwloc_bitmap_free)                                                                       \
	X(hwloc_bitmap_intersects)                                                                 \
	X(hwloc_bitmap_isequal)                                                                    \
	X(hwloc_bitmap_iszero)                                                                     \
	X(hwloc_bitmap_list_asprintf)                                                              \
	X(hwloc_bitmap_list_sscanf)                                                                \
	X(hwloc_bitmap_next)                                                                       \
	X(hwloc_bitmap_weight)                                                                     \
	X(hwloc_distances_get_by_name)                                                             \
	X(hwloc_distances_release)                                                                 \
	X(hwloc_get_api_version)                                                                   \
	X(hwloc_get_cpubind)                                                                       \
	X(hwloc_get_nbobjs_by_depth)                                                               \
	X(hwloc_get_obj_by_depth)                                                                  \
	X(hwloc_get_type_depth)                                                                    \
	X(hwloc_set_cpubind)                                                                       \
	X(hwloc_set_proc_cpubind)                                                                  \
	X(hwloc_topology_destroy)                                                                  \
	X(hwloc_topology_get_allowed_cpuset)                                                       \
	X(hwloc_topology_init)                                                                     \
	X(hwloc_topology_is_thissystem)                                                            \
	X(hwloc_topology_load)                                                                     \
	X(hwloc_topology_set_components)                                                           \
	X(hwloc_topology_set_flags)                                                                \
	X(hwloc_topology_set_io_types_filter)                                                      \
	X(hwloc_topology_set_xmlbuffer)

/* hwloc_X -> mcinit_dl_hwloc_X, before hwloc's headers declare them. */
#define hwloc_backend_alloc                mcinit_dl_hwloc_backend_alloc
#define hwloc_backend_enable               mcinit_dl_hwloc_backend_enable
#define hwloc_bitmap_alloc                 mcinit_dl_hwloc_bitmap_alloc
#define hwloc_bitmap_and                   mcinit_dl_hwloc_bitmap_and
#define hwloc_bitmap_dup                   mcinit_dl_hwloc_bitmap_dup
#define hwloc_bitmap_first                 mcinit_dl_hwloc_bitmap_first
#define hwloc_bitmap_free                  mcinit_dl_hwloc_bitmap_free
#define hwloc_bitmap_intersects            mcinit_dl_hwloc_bitmap_intersects
#define hwloc_bitmap_isequal               mcinit_dl_hwloc_bitmap_isequal
#define hwloc_bitmap_iszero                mcinit_dl_hwloc_bitmap_iszero
#define hwloc_bitmap_list_asprintf         mcinit_dl_hwloc_bitmap_list_asprintf
#define hwloc_bitmap_list_sscanf           mcinit_dl_hwloc_bitmap_list_sscanf
#define hwloc_bitmap_next                  mcinit_dl_hwloc_bitmap_next
#define hwloc_bitmap_weight                mcinit_dl_hwloc_bitmap_weight
#define hwloc_distances_get_by_name        mcinit_dl_hwloc_distances_get_by_name
#define hwloc_distances_release            mcinit_dl_hwloc_distances_release
#define hwloc_get_api_version              mcinit_dl_hwloc_get_api_version
#define hwloc_get_cpubind                  mcinit_dl_hwloc_get_cpubind
#define hwloc_get_nbobjs_by_depth          mcinit_dl_hwloc_get_nbobjs_by_depth
#define hwloc_get_obj_by_depth             mcinit_dl_hwloc_get_obj_by_depth
#define hwloc_get_type_depth               mcinit_dl_hwloc_get_type_depth
#define hwloc_set_cpubind                  mcinit_dl_hwloc_set_cpubind
#define hwloc_set_proc_cpubind             mcinit_dl_hwloc_set_proc_cpubind
#define hwloc_topology_destroy             mcinit_dl_hwloc_topology_destroy
#define hwloc_topology_get_allowed_cpuset  mcinit_dl_hwloc_topology_get_allowed_cpuset
#define hwloc_topology_init                mcinit_dl_hwloc_topology_init
#define hwloc_topology_is_thissystem       mcinit_dl_hwloc_topology_is_thissystem
#define hwloc_topology_load                mcinit_dl_hwloc_topology_load
#define hwloc_topology_set_components      mcinit_dl_hwloc_topology_set_components
#define hwloc_topology_set_flags           mcinit_dl_hwloc_topology_set_flags
#define hwloc_topology_set_io_types_filter mcinit_dl_hwloc_topology_set_io_types_filter
#define hwloc_topology_set_xmlbuffer       mcinit_dl_hwloc_topology_set_xmlbuffer

#include <hwloc.h>
#include <hwloc/plugins.h>

/* Opens libhwloc (configure's MCINIT_HWLOC_SONAME: $MCINIT_HWLOC_LIBRARY
 * alone when set, else by the loader's path, then hwloc's libdir) and
 * resolves the functions above: 0, or -1 with err MCINIT_E_UNAVAILABLE
 * saying what is missing (err may be NULL).  The first call decides for the
 * process. */
int mcinit_hwloc_open(struct mcinit_err *err);

#endif
