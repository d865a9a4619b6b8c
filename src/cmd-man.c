/*
 * cmd-man.c — `mcinit man PAGE`: the manual pages, written from the tables
 * they describe, so they cannot drift from the code: mcinit(1) from the
 * command table and the exit-status table, mcinit-COMMAND(1) from each
 * command's argp options and doc (any command added to the table gets its
 * page), mcinit-config(5) from schema.def and the diagnostic-code tables.
 * `make` runs it to build man/ (Makefile.am).  What is made from the
 * library's tables alone (mcinit-config(5), validate's DERIVED VALUES) and
 * the escaping are the library's doc module's (mcx_man_*, mcx_roff_*).
 */
#include "build.h" /* PACKAGE_STRING */

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>

#include "cli.h"
#include "commands.h"
#include "private/mcinit-tool.h"

static const char doc[] =
    "Print a manual page (roff), generated from mcinit's own tables.\v"
    "PAGE is mcinit, a command (validate, mcinit-validate, mcinit-validate.1, "
    "man/mcinit-validate.1) or config (mcinit-config(5): every field and diagnostic code).  "
    "Without PAGE, the page file names are listed, one per line.  Read one with "
    "`mcinit man config | man -l -`.\n\n" MCINIT_EXIT_CODES_DOC;

const struct argp mcinit_man_argp = {NULL, NULL, "[PAGE]", doc, NULL, NULL, NULL};

/* Environment variables mcinit reads (tests/cli/man.sh checks that every
 * getenv() name in src/ is here). */
static const char *const environ_doc[][2] = {
    {"WORLD_SIZE", "The world size, when neither --world-size nor launch.world_size is given."},
    {"SLURM_NTASKS", "The world size under Slurm, after WORLD_SIZE."},
    {"OMPI_COMM_WORLD_SIZE", "The world size under Open MPI, after SLURM_NTASKS."},
    {"CUDA_DEVICE_MAX_CONNECTIONS",
     "Read by the rules that need it set to 1 (overlapped tensor-parallel communication); "
     "env_vars in the config take precedence."},
    {"CUDA_VISIBLE_DEVICES", "The GPUs a rank may use, for the placement checks."},
    {"NCCL_ALGO",
     "Checked under --deterministic-mode (MC050): Ring, CollnetDirect, CollnetChain or ^NVLS "
     "(before core_r0.19 also Tree, and it must be set)."},
    {"CUBLAS_WORKSPACE_CONFIG", "Checked under --deterministic-mode (MC050): :4096:8 or :16:8."},
    {"NVTE_ALLOW_NONDETERMINISTIC_ALGO", "Checked under --deterministic-mode (MC050): 0."},
    {"MAMBA_DETERMINISTIC",
     "With CAUSAL_CONV1D_DETERMINISTIC, checked under --deterministic-mode (MC050): 1 when "
     "set.  Megatron-LM's own checks read further variables the way Megatron does "
     "(NCCL_PROTO, PYTORCH_CUDA_ALLOC_CONF, ...), from the environment, else env_vars."},
    {"CUDA_MODULE_LOADING",
     "--memory-model mcinit: EAGER puts the CUDA context at its eager figure at both ends of "
     "its range (PyTorch PR 86509); env_vars in the config take precedence, as for the others "
     "the job reads."},
    {"PYTORCH_CUDA_ALLOC_CONF",
     "--memory-model mcinit: with expandable_segments:True the allocator's fragmentation is "
     "modelled up to 0.05 of what is allocated, else up to 0.36."},
    {"NCCL_BUFFSIZE",
     "--memory-model mcinit: NCCL's buffer per channel and peer (4 MiB unset), with "
     "NCCL_MIN_NCHANNELS and NCCL_MAX_NCHANNELS (1 and 32 unset) the range of NCCL's buffers."},
    {"NCCL_MIN_NCHANNELS",
     "--memory-model mcinit: the low end of NCCL's channels (see NCCL_BUFFSIZE)."},
    {"NCCL_MAX_NCHANNELS",
     "--memory-model mcinit: the high end of NCCL's channels (see NCCL_BUFFSIZE)."},
    {"HWLOC_XMLFILE",
     "An hwloc XML file describing the node, used by mcinit topology instead of this machine "
     "(as --hwloc-xml does)."},
    {"MCINIT_HWLOC_LIBRARY",
     "mcinit topology and run: hwloc's library (" MCINIT_HWLOC_SONAME "), a file or the folder "
     "holding it; only it is tried.  Unset, it is looked for on the loader's path, then in the "
     "folder hwloc was built in.  Only the commands that read a node's hardware open it; "
     "without it they fail naming what is missing, and the others work."},
    {"MCINIT_YAML_LIBRARY",
     "libyaml (" MCINIT_YAML_SONAME "), a file or the folder holding it, found as "
     "MCINIT_HWLOC_LIBRARY says; only a YAML input opens it."},
    {"NO_COLOR", "When set and not empty, diagnostics are never coloured."},
    {"RANK", "mcinit run: this rank (torchrun's contract; with WORLD_SIZE it comes first)."},
    {"LOCAL_RANK", "mcinit run: the rank on this node (default RANK modulo LOCAL_WORLD_SIZE)."},
    {"LOCAL_WORLD_SIZE", "mcinit run: ranks on this node (default WORLD_SIZE)."},
    {"GROUP_RANK", "mcinit run: this node's index (torchrun)."},
    {"GROUP_WORLD_SIZE", "mcinit run: the number of nodes (torchrun)."},
    {"MASTER_ADDR",
     "mcinit run: the host of the rendezvous store (--master-addr wins); required under Open "
     "MPI, which gives none."},
    {"MASTER_PORT", "mcinit run: the port of the store (--master-port wins; default 29500)."},
    {"TORCHELASTIC_RESTART_COUNT",
     "mcinit run: the restart attempt, part of the agent store's key prefix "
     "/worker/attempt_N."},
    {"TORCHELASTIC_RUN_ID", "mcinit run: torchrun's run id, reported."},
    {"TORCHELASTIC_USE_AGENT_STORE",
     "mcinit run: exactly True when torchrun's agent (or an mcinit launcher) serves the store: "
     "ranks join it instead of rank 0 binding MASTER_PORT."},
    {"TORCHELASTIC_ERROR_FILE",
     "mcinit run: a failing rank writes torchelastic's JSON error file here, so that "
     "torchrun's root-cause summary shows mcinit's message."},
    {"MCINIT_LAUNCHED", "mcinit run: set to 1 by an mcinit launcher in the workers it starts."},
    {"MCINIT_STORE_TOKEN",
     "mcinit run, mcinit store: the job token a store connection must present (SET of "
     "mcinit/auth) before anything but VALIDATE, PING and torch's init/ counter; the launcher "
     "makes a random one for a one-node job, several nodes share one through this variable.  "
     "At most 4,096 bytes (a longer one is refused at start, never cut).  Unlike --token, "
     "it does not show in ps(1); mcinit store also reads it from --token-file."},
    {"MCINIT_FAULT",
     "mcinit run: fault injection, RANK:PHASE:KIND (e.g. 1:groups:crash): when that rank begins "
     "that phase (config, env, rendezvous, device, world, groups, verify, seeds, kernels, "
     "tp-comm, ready) it crashes (SIGSEGV, no core file), hangs until killed, exits with status "
     "3 without a word, or stalls (sleeps twice the timeout, then goes on).  For testing what a "
     "launcher and the peers do with a broken rank: under mcinit's launcher the job exits 139, "
     "3, or 75 for a hang or stall (the peers time out), naming the rank and phase.  "
     "A malformed value is a usage error (64)."},
    {"MCINIT_PHASE_FD",
     "mcinit run: set by an mcinit launcher in its workers: the pipe on which each tells the "
     "phase it begins."},
    {"SLURM_PROCID", "mcinit run: the rank under Slurm (with SLURM_NTASKS)."},
    {"SLURM_LOCALID", "mcinit run: the local rank under Slurm."},
    {"SLURM_NODEID", "mcinit run: the node index under Slurm."},
    {"SLURM_STEP_NODELIST",
     "mcinit run: the node list (Slurm hostlist syntax); the first host is the master.  Else "
     "SLURM_JOB_NODELIST, else SLURM_NODELIST."},
    {"SLURM_JOB_NODELIST", "mcinit run: the node list when SLURM_STEP_NODELIST is not set."},
    {"SLURM_NODELIST", "mcinit run: the node list, after SLURM_JOB_NODELIST."},
    {"SLURM_NTASKS_PER_NODE", "mcinit run: ranks per node under Slurm."},
    {"SLURM_TASKS_PER_NODE",
     "mcinit run: ranks per node in Slurm's compressed form (4(x2),2), when "
     "SLURM_NTASKS_PER_NODE is not set."},
    {"SLURM_JOB_ID",
     "mcinit run: without MASTER_PORT, the store port is 15000 + its last four digits "
     "(Megatron-Bridge's convention)."},
    {"OMPI_COMM_WORLD_RANK", "mcinit run: the rank under Open MPI."},
    {"OMPI_COMM_WORLD_LOCAL_RANK", "mcinit run: the local rank under Open MPI."},
    {"OMPI_COMM_WORLD_LOCAL_SIZE", "mcinit run: ranks on this node under Open MPI."},
    {"TMPDIR",
     "mcinit run: where a launcher keeps its workers' error files (default /tmp); removed "
     "when it ends, by its watchdog when it is killed."},
    {"MCINIT_CUDA_LIBRARY",
     "mcinit run: CUDA's runtime (libcudart.so.13), a file or the folder holding it; only it "
     "is tried.  Unset, the runtime is looked for where the training job's Python would find "
     "it: the active VIRTUAL_ENV's, then CONDA_PREFIX's site-packages/nvidia/cu13/lib and "
     "nvidia/cuda_runtime/lib (and CONDA_PREFIX/lib), then the python3 on PATH's "
     "site-packages (~/.local's first when it is not a venv, and dist-packages, "
     "/usr/local/lib/python3*/dist-packages included), then CUDA_HOME, then the loader's "
     "path (LD_LIBRARY_PATH, ld.so.cache), then the CUDA toolkit mcinit was built with.  "
     "mcinit --version and the run report name the file and why it was taken.  Nothing "
     "links it: without it every command but run's GPU phases works, and run exits 69 "
     "naming what is missing."},
    {"MCINIT_NCCL_LIBRARY",
     "mcinit run: NCCL (libnccl.so.2), a file or the folder holding it, found as "
     "MCINIT_CUDA_LIBRARY says (the wheels' nvidia/nccl/lib).  When another, different "
     "libnccl is visible too, run warns naming both."},
    {"MCINIT_NVML_LIBRARY",
     "mcinit doctor: the driver's NVML (libnvidia-ml.so.1), a file or the folder holding "
     "it, for each GPU's MIG mode and NVLinks; else the dynamic loader finds it."},
    {"MCINIT_KERNELS_MODULE",
     "mcinit run: the CUDA kernels module (mcinit-cuda-kernels.so), else it is looked for "
     "beside the program, in the build tree and in the installed library folder."},
    {"MCINIT_CUDA_DRIVER_LIBRARY",
     "mcinit run: the CUDA driver (libcuda.so.1), a file or the folder holding it, which the "
     "kernels module loads its kernels with (no CUDA runtime needed); else the dynamic "
     "loader finds it."},
    {"VIRTUAL_ENV",
     "mcinit run: a Python environment whose site-packages/nvidia/*/lib may hold CUDA's "
     "runtime and NCCL (see MCINIT_CUDA_LIBRARY)."},
    {"CONDA_PREFIX", "mcinit run: a conda environment, searched as VIRTUAL_ENV is."},
    {"PATH", "mcinit run: the first python3 on it names a Python environment, searched as "
             "VIRTUAL_ENV is."},
    {"HOME", "mcinit run: ~/.local's site-packages is searched as VIRTUAL_ENV is."},
    {"CUDA_HOME", "mcinit run: its lib64 and lib are searched for CUDA's runtime and NCCL, "
                  "after the Python environments (see MCINIT_CUDA_LIBRARY)."},
    {"LD_LIBRARY_PATH", "mcinit run: its folders are searched for CUDA's runtime and NCCL "
                        "after CUDA_HOME, as the loader would (see MCINIT_CUDA_LIBRARY)."},
    {"OMP_NUM_THREADS",
     "mcinit run: left alone when set; else a launcher with several workers sets it to 1, as "
     "torchrun does."},
};

/* ---- the page list ---- */

enum { PAGE_MAIN = -1, PAGE_CONFIG = -2, PAGE_NONE = -3 };

/* "validate", "mcinit-validate", "mcinit-validate.1", "man/mcinit-validate.1":
 * a command index, PAGE_MAIN, PAGE_CONFIG or PAGE_NONE. */
static int
page_find(const char *arg)
{
	const char *base = strrchr(arg, '/') ? strrchr(arg, '/') + 1 : arg;
	size_t n = strcspn(base, ".");
	size_t i;
	char name[64];

	if (n >= sizeof name || (base[n] && strcmp(base + n, ".1") && strcmp(base + n, ".5")))
		return PAGE_NONE;
	memcpy(name, base, n);
	name[n] = '\0';
	if (strcmp(name, "mcinit") == 0)
		return base[n] && strcmp(base + n, ".1") ? PAGE_NONE : PAGE_MAIN;
	if (strncmp(name, "mcinit-", 7) == 0)
		memmove(name, name + 7, n - 6);
	if (strcmp(name, "config") == 0)
		return base[n] && strcmp(base + n, ".5") ? PAGE_NONE : PAGE_CONFIG;
	if (base[n] && strcmp(base + n, ".1"))
		return PAGE_NONE;
	for (i = 0; i < mcinit_ncommands; i++)
		if (strcmp(name, mcinit_commands[i].name) == 0)
			return (int)i;
	return PAGE_NONE;
}

void
mcinit_man_pages(void (*fn)(const char *page, const char *arg), const char *arg)
{
	char buf[80];
	size_t i;

	fn("mcinit.1", arg);
	for (i = 0; i < mcinit_ncommands; i++) {
		snprintf(buf, sizeof buf, "mcinit-%s.1", mcinit_commands[i].name);
		fn(buf, arg);
	}
	fn("mcinit-config.5", arg);
}

static void
print_page_name(const char *page, const char *arg)
{
	(void)arg;
	puts(page);
}

/* ---- pieces every page shares ---- */

static void
text_n(FILE *out, const char *s, size_t n)
{
	char *t = mcx_xmalloc(n + 1);

	memcpy(t, s, n);
	t[n] = '\0';
	mcx_roff_text(out, t);
	free(t);
}

/* An argp doc: the part before \v, then the part after it without the
 * exit-status paragraph (EXIT STATUS is rendered from the table). */
static void
argp_doc(FILE *out, const char *d)
{
	const char *v, *after, *exit;

	if (d == NULL)
		return;
	v = strchr(d, '\v');
	text_n(out, d, v ? (size_t)(v - d) : strlen(d));
	if (v == NULL)
		return;
	after = v + 1;
	exit = strstr(after, MCINIT_EXIT_CODES_DOC);
	fputs(".PP\n", out);
	text_n(out, after, exit ? (size_t)(exit - after) : strlen(after));
}

static void
exit_status(FILE *out)
{
	char num[8];

	mcx_roff_sh(out, "EXIT STATUS");
#define MCINIT_EXIT_ROFF(value, name, meaning)                                                     \
	snprintf(num, sizeof num, "%d", value);                                                    \
	fprintf(out, ".TP\n.B %s\n", num);                                                         \
	mcx_roff_text(out, meaning);
	MCINIT_EXIT_TABLE(MCINIT_EXIT_ROFF)
#undef MCINIT_EXIT_ROFF
}

static void
see_also(FILE *out, int self)
{
	size_t i;

	mcx_roff_sh(out, "SEE ALSO");
	if (self != PAGE_MAIN)
		fputs(".BR mcinit (1),\n", out);
	for (i = 0; i < mcinit_ncommands; i++)
		if ((int)i != self)
			fprintf(out, ".BR mcinit\\-%s (1),\n", mcinit_commands[i].name);
	fputs(self == PAGE_CONFIG ? ".BR torchrun (1)\n" : ".BR mcinit\\-config (5)\n", out);
}

/* ---- a command's options, from its argp tree ---- */

struct opt_entry {
	const struct argp_option *o; /* then o[1..nalias] are OPTION_ALIAS */
	int nalias;
	const struct argp *argp; /* whose option it is: its help_filter applies */
};

static const char *
sort_name(const struct argp_option *o)
{
	return o->name ? o->name : "";
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct opt_entry *x = a, *y = b;

	return strcmp(sort_name(x->o), sort_name(y->o));
}

static void
option_name(FILE *out, const struct argp_option *o, const char *arg, int optional)
{
	if (o->name)
		fprintf(out, "\\fB\\-\\-");
	else
		fprintf(out, "\\fB\\-");
	if (o->name)
		mcx_roff_inline(out, o->name, strlen(o->name));
	else
		fputc(o->key, out);
	fputs("\\fR", out);
	if (arg == NULL)
		return;
	fputs(optional ? "[" : "", out);
	fputs(o->name ? "=\\fI" : " \\fI", out);
	mcx_roff_inline(out, arg, strlen(arg));
	fputs(optional ? "\\fR]" : "\\fR", out);
}

static int
has_short(const struct argp_option *o)
{
	return o->key > 0 && o->key < 128 && isprint(o->key);
}

/* An option's doc as --help shows it: through its argp's help_filter, as
 * argp does (the job options name the library's releases that way). */
static void
option_doc(FILE *out, const struct argp *a, const struct argp_option *o)
{
	char *d = a->help_filter && o->doc ? a->help_filter(o->key, o->doc, NULL) : (char *)o->doc;

	if (d != NULL)
		mcx_roff_text(out, d);
	if (d != o->doc)
		free(d);
}

/* ".TP" and "-k, --name=ARG" for every spelling, argp's way (the argument
 * named once, on the last spelling), then the doc. */
static void
option_entry(FILE *out, const struct opt_entry *e)
{
	const struct argp_option *o = e->o;
	int optional = (o->flags & OPTION_ARG_OPTIONAL) != 0, i, first = 1, n = 0, k = 0;
	struct argp_option shortopt = {0};

	for (i = 0; i <= e->nalias; i++)
		n += has_short(&o[i]) + (o[i].name != NULL);
	fputs(".TP\n", out);
	for (i = 0; i <= e->nalias; i++) { /* short spellings first, as argp does */
		if (!has_short(&o[i]))
			continue;
		shortopt.key = o[i].key;
		fputs(first ? "" : ", ", out);
		option_name(out, &shortopt, ++k == n ? o->arg : NULL, optional);
		first = 0;
	}
	for (i = 0; i <= e->nalias; i++) {
		if (o[i].name == NULL)
			continue;
		fputs(first ? "" : ", ", out);
		option_name(out, &o[i], ++k == n ? o->arg : NULL, optional);
		first = 0;
	}
	fputc('\n', out);
	option_doc(out, e->argp, o);
}

static void
flush_group(FILE *out, struct opt_entry *v, size_t *n)
{
	size_t i;

	if (*n == 0) /* v may still be NULL, which qsort must not get */
		return;
	qsort(v, *n, sizeof *v, entry_cmp);
	for (i = 0; i < *n; i++)
		option_entry(out, &v[i]);
	*n = 0;
}

/* A header "Job description:" as a subsection without its colon. */
static void
group_header(FILE *out, const char *h)
{
	size_t n = strlen(h);
	char *t;

	if (n == 0)
		return;
	t = mcx_xstrdup(h);
	if (t[n - 1] == ':')
		t[n - 1] = '\0';
	mcx_roff_ss(out, t);
	free(t);
}

static void
argp_options(FILE *out, const struct argp *a)
{
	const struct argp_option *o;
	const struct argp_child *ch;
	struct opt_entry *v = NULL;
	size_t n = 0;

	for (o = a->options; o && (o->name || o->key || o->doc); o++) {
		if (o->flags & OPTION_ALIAS) { /* belongs to the entry before it */
			if (n > 0 && v[n - 1].o + v[n - 1].nalias + 1 == o)
				v[n - 1].nalias++;
			continue;
		}
		if (o->flags & OPTION_HIDDEN)
			continue;
		if ((o->name == NULL && o->key == 0) || (o->flags & OPTION_DOC)) {
			flush_group(out, v, &n);
			if (o->flags & OPTION_DOC)
				mcx_roff_text(out, o->doc);
			else
				group_header(out, o->doc);
			continue;
		}
		v = mcx_xrealloc(v, (n + 1) * sizeof *v);
		v[n++] = (struct opt_entry){o, 0, a};
	}
	flush_group(out, v, &n);
	free(v);
	for (ch = a->children; ch && ch->argp; ch++) {
		if (ch->header)
			group_header(out, ch->header);
		argp_options(out, ch->argp);
	}
}

static void
command_page(FILE *out, const struct mcinit_command *c)
{
	const struct argp *a = c->argp;
	char name[80];
	const char *u;

	snprintf(name, sizeof name, "mcinit-%s", c->name);
	mcx_roff_th(out, name, 1, PACKAGE_STRING);
	mcx_roff_sh(out, "NAME");
	fprintf(out, "mcinit\\-%s \\- ", c->name);
	mcx_roff_inline(out, c->summary, strlen(c->summary));
	fputc('\n', out);
	mcx_roff_sh(out, "SYNOPSIS");
	u = a->args_doc ? a->args_doc : "";
	do { /* argp's args_doc: alternatives separated by newlines */
		size_t n = strcspn(u, "\n");

		fprintf(out, ".B mcinit %s\n[\\fIOPTION\\fR...]", c->name);
		if (n) {
			fputc(' ', out);
			mcx_roff_inline(out, u, n);
		}
		fputs("\n.br\n", out);
		u += n + (u[n] == '\n');
	} while (*u);
	mcx_roff_sh(out, "DESCRIPTION");
	argp_doc(out, a->doc);
	mcx_roff_sh(out, "OPTIONS");
	argp_options(out, a);
	/* argp's own, added to every command */
	mcx_roff_ss(out, "Generic options");
	fputs(".TP\n\\fB\\-?\\fR, \\fB\\-\\-help\\fR\nGive this help list\n"
	      ".TP\n\\fB\\-\\-usage\\fR\nGive a short usage message\n"
	      ".TP\n\\fB\\-V\\fR, \\fB\\-\\-version\\fR\nPrint program version\n",
	      out);
	if (strcmp(c->name, "validate") == 0)
		mcx_man_derived(out);
}

/* ---- mcinit(1) ---- */

static const char overview[] =
    "mcinit checks a Megatron-LM / Megatron-Core / Megatron-Bridge model-parallel training "
    "job before it takes a cluster: the config file, the Megatron-LM flags, the overrides "
    "and the launch script are merged the way Megatron merges them, and every rule Megatron's "
    "argument validation would enforce is checked at once, offline, without GPUs.  It prints "
    "the rank groups Megatron-Core would create (tensor, pipeline, data, context and expert "
    "parallel), where each rank lands on the node's GPUs, CPUs and NICs, and the seeds "
    "each rank gets.\n\n"
    "Each command has its own page, listed below.  mcinit-config(5) describes every field "
    "of the job configuration and every diagnostic code, with an example and its fix; "
    "`mcinit explain CODE` prints one.\n\n"
    "Diagnostics go to standard error as FILE:LINE:COL: severity[CODE]: message, one per "
    "problem, so that editors can jump to them.";

static const char files_doc[] =
    "An INPUT is recognised by its name: a .json file is a job configuration "
    "(mcinit-config(5)); a .sh or .bash file is a launch script whose Megatron-LM flags are "
    "read; a .py file is linted for argparse type=bool.  An hwloc XML file (lstopo "
    "node.xml) describes a node for mcinit topology --hwloc-xml.\n\n"
    "Shell completions are installed as PREFIX/share/bash-completion/completions/mcinit, "
    "PREFIX/share/zsh/site-functions/_mcinit and "
    "PREFIX/share/fish/vendor_completions.d/mcinit.fish; all three ask `mcinit complete`.";

static const char examples[] =
    ".nf\n"
    "mcinit validate job.json \\-\\-world\\-size 64\n"
    "mcinit validate job.json model.tensor_model_parallel_size=8 \\-\\- \\-\\-seq\\-length 8192\n"
    "mcinit validate train.sh \\-\\-format=json\n"
    "mcinit topology job.json \\-\\-world\\-size 16 \\-\\-nproc\\-per\\-node 8\n"
    "mcinit topology job.json \\-\\-world\\-size 16 \\-\\-format=svg > job.svg\n"
    "mcinit explain MC012\n"
    ".fi\n";

static void
main_page(FILE *out)
{
	size_t i;

	mcx_roff_th(out, "mcinit", 1, PACKAGE_STRING);
	mcx_roff_sh(out, "NAME");
	fputs("mcinit \\- validate, inspect and initialize Megatron model-parallel training jobs\n",
	      out);
	mcx_roff_sh(out, "SYNOPSIS");
	fputs(".B mcinit\n\\fICOMMAND\\fR [\\fIOPTION\\fR...] [\\fIARGS\\fR...]\n.br\n"
	      ".B mcinit\n\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n",
	      out);
	mcx_roff_sh(out, "DESCRIPTION");
	mcx_roff_text(out, overview);
	mcx_roff_sh(out, "COMMANDS");
	for (i = 0; i < mcinit_ncommands; i++) {
		fprintf(out, ".TP\n.B %s\n", mcinit_commands[i].name);
		mcx_roff_text(out, mcinit_commands[i].summary);
		fprintf(out, "(\\fBmcinit\\-%s\\fR(1))\n", mcinit_commands[i].name);
	}
	mcx_roff_sh(out, "OPTIONS");
	fputs(".TP\n\\fB\\-?\\fR, \\fB\\-\\-help\\fR, \\fBhelp\\fR\nList the commands.\n"
	      ".TP\n\\fB\\-V\\fR, \\fB\\-\\-version\\fR\n"
	      "Print the version and the build configuration (CUDA, NCCL and library versions).\n",
	      out);
	exit_status(out);
	mcx_roff_sh(out, "ENVIRONMENT");
	for (i = 0; i < sizeof environ_doc / sizeof environ_doc[0]; i++) {
		fprintf(out, ".TP\n.B %s\n", environ_doc[i][0]);
		mcx_roff_text(out, environ_doc[i][1]);
	}
	mcx_roff_sh(out, "FILES");
	mcx_roff_text(out, files_doc);
	mcx_roff_sh(out, "EXAMPLES");
	fputs(examples, out);
	see_also(out, PAGE_MAIN);
}

int
mcinit_cmd_man(int argc, char **argv, int argi0)
{
	int idx, page = PAGE_NONE, first = 0;

	(void)argi0;
	argv[0] = "mcinit man";
	if (argp_parse(&mcinit_man_argp, argc, argv, ARGP_IN_ORDER, &first, NULL) != 0)
		return EX_USAGE;
	if (first >= argc) {
		mcinit_man_pages(print_page_name, NULL);
		return fflush(stdout) == 0 ? 0 : EX_IOERR;
	}
	if (first + 1 < argc) {
		fprintf(stderr, "mcinit man: one PAGE at a time (got '%s' and '%s')\n", argv[first],
		        argv[first + 1]);
		return EX_USAGE;
	}
	idx = page_find(argv[first]);
	if (idx == PAGE_NONE) {
		fprintf(stderr, "mcinit man: no page '%s' (`mcinit man` lists them)\n",
		        argv[first]);
		return EX_USAGE;
	}
	page = idx;
	if (page == PAGE_MAIN)
		main_page(stdout);
	else if (page == PAGE_CONFIG) {
		/* its SEE ALSO names the commands: the library's part first */
		if (mcx_man_config(stdout) == 0)
			see_also(stdout, PAGE_CONFIG);
	} else {
		command_page(stdout, &mcinit_commands[page]);
		exit_status(stdout);
		see_also(stdout, page);
	}
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : EX_IOERR;
}
