/* fuzz-hwloc.c — libFuzzer target for mcinit's path through an hwloc XML
 * topology: hwloc's parser, then mcinit's GPU, NUMA, NIC and link-matrix
 * walk over whatever tree hwloc built.  A rejected document must be a data
 * error with the "not an hwloc XML topology" message. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "topo/affinity.h"
#include "topo/hwlocdl.h" /* hwloc.h; libhwloc is opened at run time */

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* hwloc opens its plugins (hwloc_xml_libxml.so and what they link) at every
 * hwloc_topology_init and closes them when the last topology goes: 84 % of
 * an execution's instructions were the dynamic loader's.  A topology held
 * for the life of the process keeps them open, as in a program that loads
 * a topology once. */
static hwloc_topology_t kept_open;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (mcinit_hwloc_open(NULL) < 0 || hwloc_topology_init(&kept_open) < 0)
		kept_open = NULL;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcinit_affinity_opts o = {0};
	struct mcinit_affinity *a;
	struct mcinit_err err = {0};
	char *xml = malloc(size + 1);

	if (xml == NULL)
		return 0;
	memcpy(xml, data, size);
	xml[size] = '\0';
	o.xml_buffer = xml;
	a = mcinit_affinity_load(&o, &err);
	if (a == NULL) {
		if (err.code != MCINIT_E_PARSE && err.code != MCINIT_E_USAGE)
			abort();
	} else {
		struct mcx_buf b = {0};

		for (size_t g = 0; g < mcinit_affinity_ngpus(a); g++)
			(void)mcinit_affinity_gpu(a, g);
		mcinit_affinity_matrix_text(a, &b);
		mcx_buf_free(&b);
		mcinit_affinity_free(a);
	}
	free(xml);
	return 0;
}
