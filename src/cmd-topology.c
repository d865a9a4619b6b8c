/*
 * cmd-topology.c — `mcinit topology`: every rank group exactly as
 * Megatron-Core would build it, where each rank lands, and its seeds.
 *
 * Output can be large (2^20 ranks give ~300 MB of JSON), so nothing here
 * builds a tree of the groups or ranks: the groups come from the streaming
 * writer of lib/topo/topology.c and the ranks from the chunked writer
 * (lib/report/topo-out.c).
 *
 * The node's hardware (GPUs, NUMA nodes, NICs) comes from hwloc, loaded once
 * and described per local rank, never per world rank, so it costs the same
 * for 8 ranks as for a million.  Every node is taken to look like the one
 * described (this machine, or --hwloc-xml FILE).
 *
 * This file holds the options and the command's flow: load and check the
 * job, then hand it to the library's writers (mcx_topology_write, the
 * report module's topo-json.c, topo-text.c and topo-svg.c), which read the
 * node's hardware.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include <jansson.h>

#include "cli.h"
#include "commands.h"
#include "private/mcinit-tool.h"

/* The command's options: the job's (cli) and how to write it (w). */
struct topts {
	struct mcinit_cli cli;
	struct mcx_topology_opts w;
	const char *hwloc_xml; /* --hwloc-xml, NULL = $HWLOC_XMLFILE or this machine */
};

enum { OPT_RANK = 0x300, OPT_GROUP, OPT_ALL, OPT_HWLOC_XML };

/* ---- options ---- */

static const char *
kind_list(void)
{
	static char buf[1024];
	size_t n = 0;
	int k;

	if (buf[0] != '\0')
		return buf;
	for (k = 0; k < mcinit_group_kinds(); k++)
		n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", k ? ", " : "",
		                      mcinit_group_name(k));
	return buf;
}

static const struct argp_option options[] = {
    {NULL, 0, NULL, 0, "Topology:", 2},
    {"rank", OPT_RANK, "R", 0,
     "Show one rank: its coordinates, groups, node, local rank, seeds and GPU/CPU affinity", 2},
    {"group", OPT_GROUP, "KIND", 0,
     "List only this group kind (a Megatron-Core communicator name: dp_cp, dp, cp, hcp, mp, "
     "tp, pp, embd, tp_ep_pp, ep_dp, intra_dist_opt_instance, gtp_remat, ...; an unknown "
     "name lists them all)",
     2},
    {"all", OPT_ALL, NULL, 0, "Print the per-rank table even for more than 64 ranks", 2},
    {"hwloc-xml", OPT_HWLOC_XML, "FILE", 0,
     "The node's GPUs, NUMA nodes and NICs from this hwloc XML file (lstopo node.xml) "
     "instead of this machine; default $HWLOC_XMLFILE when set",
     2},
    {NULL, 0, NULL, 0, NULL, 0},
};

static error_t
parse_opt(int key, char *arg, struct argp_state *state)
{
	struct topts *o = state->input;
	char *end;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->cli;
		break;
	case OPT_RANK:
		errno = 0;
		o->w.rank = strtol(arg, &end, 10);
		if (*arg == '\0' || *end != '\0' || errno != 0 || o->w.rank < 0)
			argp_error(state, "--rank: '%s' is not a rank (an integer >= 0)", arg);
		break;
	case OPT_GROUP:
		o->w.kind = mcinit_group_lookup(arg);
		if (o->w.kind < 0)
			argp_error(state, "--group: '%s' is not a group kind: %s", arg,
			           kind_list());
		break;
	case OPT_ALL:
		o->w.all = true;
		break;
	case OPT_HWLOC_XML:
		o->hwloc_xml = arg;
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child children[] = {{&mcinit_job_argp, 0, NULL, 0}, {NULL, 0, NULL, 0}};

static const char doc[] =
    "Print the model-parallel topology Megatron-Core would build: the parallel sizes, every "
    "rank group in Megatron's order, where each rank lands and its seeds.\v"
    "Inputs as for `mcinit validate`; an invalid job is reported the same way (exit 1).  "
    "Ranks are placed in blocks, as torchrun and Slurm do: node = rank / nproc-per-node, "
    "local rank = rank % nproc-per-node (from --nproc-per-node, launch.nproc_per_node, or "
    "the world size / --nnodes).\n\n"
    "Local rank i drives GPU i (device 0 with dist.external_gpu_device_mapping); every node "
    "is taken to look like this machine, or the node in --hwloc-xml FILE.\n\n"
    "Text output: a summary, which group kinds stay inside a node, the groups, a per-rank "
    "table (for at most 64 ranks, or with --all), then the node's affinity: its GPUs with "
    "their PCI bus id, NUMA node, CPUs and nearby NICs, the GPU/NIC link matrix (as "
    "nvidia-smi topo -m) and each local rank's GPU, CPUs, NUMA node and NIC.  "
    "--format=json prints {\"world_size\", \"order\", \"sizes\", \"groups\", \"ranks\", "
    "\"affinity\", \"diagnostics\"}; group keys are Megatron-Core's communicator names, in "
    "the order Megatron creates them; \"affinity\" has one entry per local rank.  "
    "--format=svg draws nodes x GPUs: each GPU's ranks, coloured by tensor-parallel "
    "group, pipeline stages as rows, NUMA domains and NICs.\n\n"
    "Placement warnings: MC050 a tensor-parallel group's GPUs are not all joined by "
    "NVLink, MC051 more local ranks than GPUs, MC052 a GPU none of whose CPUs the ranks "
    "may use; MC053 notes a node without NVIDIA GPUs, MC054 warns when this machine's "
    "topology cannot be read.\n\n" MCINIT_EXIT_CODES_DOC;

const struct argp mcinit_topology_argp = {
    options, parse_opt, "[INPUT...] [SECTION.FIELD=VALUE...] [-- MEGATRON-FLAGS...]", doc, children,
    NULL,    NULL};

/* ---- the command ---- */

/* Diagnostics of a job that cannot be laid out, as validate reports them. */
static int
emit_invalid(const struct topts *o, const struct mcinit_job *job, const struct mcinit_diags *d)
{
	int rc = 0;

	if (o->cli.format == MCINIT_FMT_JSON) {
		json_t *out = json_object();

		json_object_set_new(out, "valid", json_false());
		json_object_set_new(out, "diagnostics", mcx_diags_to_json(d));
		json_object_set_new(out, "derived", mcx_job_derived_to_json(job));
		rc = mcinit_print_json(out, stdout);
		json_decref(out);
		return rc;
	}
	mcinit_diags_print(d, stderr, mcx_want_color(stderr));
	mcinit_print_summary(d, stderr);
	return rc;
}

/* The node's file could not be read: its message, located as the library
 * locates it (FILE:LINE: text). */
static void
node_error(const struct topts *o, const mcinit_error_t *err)
{
	fputs("mcinit topology: ", stderr);
	mcinit_cli_error_place(err, stderr);
	mcx_fputs_text(err->text, stderr);
	fprintf(stderr, "%s\n", o->hwloc_xml ? "" : " (the file $HWLOC_XMLFILE names)");
}

int
mcinit_cmd_topology(int argc, char **argv, int argi0)
{
	struct topts o = {.w = {.rank = -1, .kind = -1}};
	struct mcinit_job_desc desc;
	struct mcinit_diags *d = mcinit_diags_new();
	struct mcinit_job *job = NULL;
	struct mcinit_sizes s = {.size = sizeof s};
	mcinit_error_t perr;
	int status = EX_SOFTWARE, n;

	mcinit_cli_init(&o.cli, argi0, MCINIT_FMT_TEXT | MCINIT_FMT_JSON | MCINIT_FMT_SVG);
	n = mcinit_cli_split(&o.cli, argc, argv);
	argp_parse(&mcinit_topology_argp, n, argv, 0, NULL, &o);
	o.w.format = o.cli.format == MCINIT_FMT_JSON  ? MCX_TOPOLOGY_JSON
	             : o.cli.format == MCINIT_FMT_SVG ? MCX_TOPOLOGY_SVG
	                                              : MCX_TOPOLOGY_TEXT;
	mcinit_cli_desc(&o.cli, &desc);
	desc.hwloc_xml = o.hwloc_xml;
	job = mcinit_job_new(&desc, d, &perr);
	if (job == NULL) {
		status = mcinit_cli_fail(d, &perr);
		goto out;
	}
	if (!mcinit_job_valid(job)) {
		status = emit_invalid(&o, job, d) < 0 ? EX_IOERR : 1;
		goto out;
	}
	mcinit_topology_sizes(mcinit_job_topology(job), &s);
	if (o.w.rank >= s.world) {
		fprintf(stderr, "mcinit topology: --rank %ld: the world has %ld ranks (0 to %ld)\n",
		        o.w.rank, s.world, s.world - 1);
		status = EX_USAGE;
		goto out;
	}
	if (mcx_topology_start(job, &o.w, &perr) < 0) {
		node_error(&o, &perr);
		status = mcinit_exit_status(perr.code);
		goto out;
	}
	if (o.w.format != MCX_TOPOLOGY_JSON) {
		/* JSON carries them inside; text and SVG show them first */
		mcx_topology_node(job);
		mcinit_diags_print(d, stderr, mcx_want_color(stderr));
		mcinit_print_summary(d, stderr);
	}
	n = mcx_topology_write(job, &o.w, stdout, stderr);
	if (n < 0) {
		fprintf(stderr, "mcinit: cannot write output\n");
		status = EX_IOERR;
		goto out;
	}
	status = n > 0 ? EX_USAGE : 0;
out:
	mcinit_job_free(job);
	mcinit_diags_free(d);
	mcinit_cli_destroy(&o.cli);
	return status;
}
