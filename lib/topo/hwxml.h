/* hwxml.h — what mcinit checks in an hwloc XML text before hwloc loads it. */
#ifndef MCINIT_HWXML_H
#define MCINIT_HWXML_H

#include <stddef.h>

#include "core/util.h"

/* What hwloc must not see, in an hwloc XML text of len bytes.
 *
 * libxml2 reads an encoding it does not carry (one it finds in neither its
 * own tables nor iconv) through ICU, which keeps tables it loads for good;
 * hwloc unloads them with its XML plugin, and they leak.  lstopo writes
 * UTF-8, so a declared encoding other than UTF-8, ASCII or ISO-8859-1 is
 * refused, and a text that does not start with '<' (whose encoding libxml2
 * would guess from its first bytes) is no XML.
 *
 * hwloc up to its fix of May 2026 (open-mpi/hwloc#783) dereferences a NULL
 * complete_cpuset while loading an object that has a cpuset but no
 * complete_cpuset (likewise for nodesets): a crash on a hand-edited or
 * damaged file.  lstopo always writes the four sets together, so such an
 * object is refused here.  Two more shapes that lstopo never writes crash
 * hwloc 2.9, and are refused too: a set that is no bitmap (what
 * hwloc_bitmap_sscanf half-reads, with text between objects, crashed it),
 * and a DOCTYPE without a system identifier (the libxml2 importer compares
 * it unchecked).  (An object whose <info> or other child hwloc rejects is
 * leaked by hwloc 2.9's importer; that path is hwloc's own validation, so
 * tests/leaks/lsan-hwloc.supp names it instead.)
 *
 * 0; 1 when the text is no XML at all, or its root is not <topology> (the caller says so as it does
 * when hwloc refuses a text); or -1 with err (MCINIT_E_PARSE, located at source:line).  Text that
 * is not well-formed enough to scan is left to hwloc's parser (0). */
int mcinit_hwxml_check(const char *text, size_t len, const char *source, struct mcinit_err *err);

#endif
