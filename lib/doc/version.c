/* version.c — `mcinit --version`: the version and the build configuration
 * (CUDA, NCCL and the libraries, as compiled and, where a library can tell,
 * as running), so a bug report says what was built (mcx_version_write). */
#include "build.h" /* PACKAGE_STRING and configure's MCINIT_BUILD_* */

#include "doc.h"

#include "config/config.h"
#include "config/mflags.h"
#include "gpu/gpu.h"
#include "topo/hwlocdl.h" /* hwloc.h; libhwloc is opened when asked */

#include <jansson.h>

/* hwloc's API version 0x00020800 as "2.8.0". */
static void
api_version(FILE *out, unsigned v)
{
	fprintf(out, "%u.%u.%u", v >> 16, (v >> 8) & 0xff, v & 0xff);
}

/* NCCL_VERSION_CODE: X*1000+Y*100+Z up to 2.8, X*10000+Y*100+Z after. */
static void
nccl_version(FILE *out, long code)
{
	if (code < 20900)
		fprintf(out, "%ld.%ld.%ld", code / 1000, code % 1000 / 100, code % 100);
	else
		fprintf(out, "%ld.%ld.%ld", code / 10000, code % 10000 / 100, code % 100);
}

/* What mcinit run's GPU phases would use: the backend built in and the
 * libraries it loads now (0: not there, e.g. no driver). */
static void
gpu_backend(FILE *out)
{
	struct mcinit_gpu_versions v;
	char n[16], r[16], d[16];

	fputs("  GPU backend: " MCINIT_BUILD_GPU_BACKEND, out);
	mcinit_gpu_versions(&v);
	if (v.nccl_header) {
		mcinit_nccl_version_text(v.nccl_runtime, n, sizeof n);
		mcinit_cuda_version_text(v.cuda_runtime, r, sizeof r);
		mcinit_cuda_version_text(v.cuda_driver, d, sizeof d);
		fprintf(out, " (running NCCL %s, CUDA runtime %s, driver %s)",
		        v.nccl_runtime ? n : "none", v.cuda_runtime ? r : "none",
		        v.cuda_driver ? d : "none");
	}
	fputc('\n', out);
	/* which files, and why those: the trainer's Python finds them so */
	if (v.nccl_library && *v.nccl_library)
		fprintf(out, "    libnccl   %s (%s)\n", v.nccl_library,
		        v.nccl_how ? v.nccl_how : "");
	if (v.cuda_library && *v.cuda_library)
		fprintf(out, "    libcudart %s (%s)\n", v.cuda_library,
		        v.cuda_how ? v.cuda_how : "");
	if (v.nccl_other && *v.nccl_other)
		fprintf(out, "    warning: another libnccl is visible: %s (%s)\n", v.nccl_other,
		        v.nccl_other_how);
}

/* The releases whose facts are built in (data/), and which apply unless
 * --megatron-version or --bridge-version say otherwise. */
static void
facts(FILE *out)
{
	char names[256];

	mcinit_mversion_list(MCINIT_MV_ALL, names, sizeof names);
	fprintf(out, "facts:\n  Megatron-LM      %s (default %s)\n", names,
	        mcinit_mversion_name(mcinit_mversion_default()));
	fprintf(out, "  Megatron-Bridge  %s (default %s)\n",
	        mcinit_bversion_list(names, sizeof names),
	        mcinit_bversion_name(mcinit_bversion_default()));
	/* the pairs: naming one release selects the other (issue 43) */
	fputs("  pairs            ", out);
	for (unsigned i = 0; mcinit_bversion_core(1u << i) != NULL; i++)
		fprintf(out, "%sBridge %s with Megatron-Core %s", i ? ", " : "",
		        mcinit_bversion_name(1u << i), mcinit_bversion_core(1u << i));
	fputs("\n", out);
}

int
mcx_version_write(FILE *out)
{
	long cuda = MCINIT_BUILD_CUDART_VERSION, nccl = MCINIT_BUILD_NCCL_VERSION;
	unsigned running;

	fprintf(out, "%s\nbuild configuration:\n  CUDA     ", PACKAGE_STRING);
	if (cuda > 0)
		fprintf(out, "%ld.%ld (toolkit %s)\n", cuda / 1000, cuda % 1000 / 10,
		        MCINIT_BUILD_CUDA_DIR);
	else
		fputs("no\n", out);
	fputs("  NCCL     ", out);
	if (nccl > 0)
		nccl_version(out, nccl);
	else
		fputs("no", out);
	fputs("\n  hwloc    " MCINIT_BUILD_HWLOC " (API ", out);
	api_version(out, HWLOC_API_VERSION);
	fputs("; running API ", out);
	if ((running = hwloc_get_api_version()) != 0)
		api_version(out, running);
	else
		fputs("none", out); /* libhwloc cannot be opened */
	fprintf(out, ")\n  jansson  %s (running %s)\n", MCINIT_BUILD_JANSSON,
	        jansson_version_str());
	fprintf(out, "  libyaml  %s\n", *MCINIT_BUILD_LIBYAML ? MCINIT_BUILD_LIBYAML : "no");
	gpu_backend(out);
	facts(out);
	return fflush(out) == 0 && !ferror(out) ? 0 : -1;
}
