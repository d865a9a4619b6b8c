/* hwxml.h — what mcinit checks in an hwloc XML text before hwloc loads it. */
#ifndef MCINIT_HWXML_H
#define MCINIT_HWXML_H

#include <stddef.h>

#include "core/util.h"

/* hwloc up to its fix of May 2026 (open-mpi/hwloc#783) dereferences a NULL
 * complete_cpuset while loading an object that has a cpuset but no
 * complete_cpuset (likewise for nodesets): a crash on a hand-edited or
 * damaged file.  lstopo always writes the four sets together, so such an
 * object is refused here.  0, or -1 with err (MCINIT_E_PARSE, located at
 * source:line).  Text that is not well-formed enough to scan is left to
 * hwloc's parser (0). */
int mcinit_hwxml_check_sets(const char *text, size_t len, const char *source,
                            struct mcinit_err *err);

#endif
