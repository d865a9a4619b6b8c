#!/bin/sh
# libmcinit.sh — the installed library as a user gets it: `make install
# DESTDIR=…` (done by make check into $MCINIT_DESTDIR, see Makefile.am) put
# the header, the shared library and mcinit.pc in place; only mcinit_
# symbols are exported, every function of the header is; the header stands
# alone; and examples/libmcinit/validate.c builds with pkg-config and runs.
set -u
: "${MCINIT_DESTDIR:?}" "${libdir:?}" "${includedir:?}" "${srcdir:?}"
. "$srcdir/tests/cli/lib.sh"
dest=$MCINIT_DESTDIR
lib=$dest$libdir
cc=${CC:-cc}

check installed-header test -f "$dest$includedir/mcinit.h"
check installed-pc test -f "$lib/pkgconfig/mcinit.pc"
check installed-so sh -c "ls '$lib'/libmcinit.so.[0-9]* >/dev/null"
check no-static-archive test ! -e "$lib/libmcinit.a"

# Exports: mcinit_ only, and every function the header declares.
nm -D --defined-only "$lib/libmcinit.so" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sort >"$tmp/versioned"
sed 's/@.*//' "$tmp/versioned" >"$tmp/exported"
# Every export carries the version node of its interface (lib/libmcinit.map).
check exports-versioned sh -c "test -s '$tmp/versioned' && ! grep -v '@@MCINIT_[0-9][0-9.]*\$' '$tmp/versioned'"
# Interface 4.1's functions carry its node, the older ones stay in MCINIT_4
# (a program linked against 4.0 still finds them by their old version).
for f in mcinit_config_schema mcinit_gpu_count mcinit_init_failed_phase mcinit_init_handover \
	mcinit_init_launcher mcinit_init_megatron_args mcinit_init_summary \
	mcinit_read_error_file mcinit_store_capacity_check mcinit_write_error_file; do
	check "export-$f-4.1" grep -qx "$f@@MCINIT_4.1" "$tmp/versioned"
done
# Interface 4.2: the JSON surface, and mcinit_doctor (issue 40).
for f in mcinit_json_validate mcinit_json_topology mcinit_settings_json mcinit_doctor; do
	check "export-$f-4.2" grep -qx "$f@@MCINIT_4.2" "$tmp/versioned"
done
check export-initialize-stays-4 grep -qx 'mcinit_initialize@@MCINIT_4' "$tmp/versioned"
check exports-only-mcinit sh -c "! grep -v '^mcinit_' '$tmp/exported'"
sed -n 's/^MCINIT_API .*[ *]\(mcinit_[a-z_0-9]*\)(.*/\1/p' "$srcdir/include/mcinit.h" |
	sort -u >"$tmp/declared"
check header-declares-functions test -s "$tmp/declared"
check every-declared-function-exported sh -c "comm -23 '$tmp/declared' '$tmp/exported' | (! grep .)"
# A closed ABI: nothing is exported that the header does not declare.
check nothing-else-exported sh -c "comm -13 '$tmp/declared' '$tmp/exported' | (! grep .)"

# The header needs nothing but the C library: no jansson, hwloc or internal header.
check header-includes-only-libc sh -c \
	"! grep '^#include' '$srcdir/include/mcinit.h' | grep -v '<std\(def\|io\)\.h>'"
printf '#include <mcinit.h>\nint main(void) { return mcinit_group_kinds() > 0 ? 0 : 1; }\n' >"$tmp/alone.c"
check header-stands-alone-c99 $cc -std=c99 -pedantic -Wall -Wextra -Werror \
	-I"$dest$includedir" -c "$tmp/alone.c" -o "$tmp/alone.o"

# The example, through pkg-config, against the DESTDIR copy.
export PKG_CONFIG_PATH="$lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$dest"
flags=$(pkg-config --cflags --libs mcinit)
check pkg-config-names-destdir sh -c "echo '$flags' | grep -q -- '-I$dest$includedir' &&
	echo '$flags' | grep -q -- '-L$lib' && echo '$flags' | grep -q -- '-lmcinit'"
# shellcheck disable=SC2086
check example-builds $cc ${CFLAGS:-} -Wall -Wextra -Werror "$srcdir/examples/libmcinit/validate.c" \
	$flags ${LDFLAGS:-} -o "$tmp/validate"
export LD_LIBRARY_PATH="$lib"
# The header's version macros name the library that runs (mcinit_version).
cat >"$tmp/ver.c" <<'EOF'
#include <mcinit.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
	char want[32];
	snprintf(want, sizeof want, "%d.%d.%d", MCINIT_VERSION_MAJOR, MCINIT_VERSION_MINOR,
	         MCINIT_VERSION_PATCH);
	if (MCINIT_VERSION_HEX !=
	    (MCINIT_VERSION_MAJOR << 16 | MCINIT_VERSION_MINOR << 8 | MCINIT_VERSION_PATCH))
		return 2;
	puts(mcinit_version());
	return strcmp(want, mcinit_version()) != 0;
}
EOF
# shellcheck disable=SC2086
check version-macros-match-library sh -c "$cc ${CFLAGS:-} -Wall -Wextra -Werror '$tmp/ver.c' $flags ${LDFLAGS:-} -o '$tmp/ver' &&
	'$tmp/ver'"
check example-uses-installed-library sh -c "ldd '$tmp/validate' | grep -q '$lib/libmcinit.so'"
ex="$tmp/validate"
check example-llama3-70b sh -c "'$ex' '$srcdir/examples/llama3-70b.json' \
	--hwloc-xml '$srcdir/tests/fixtures/dgx8-2s.xml' >'$tmp/ex.out' &&
	grep -q '^topology: 64 ranks, order tp-cp-ep-dp-pp: TP 4, CP 2, PP 4 (VPP 5), DP 2' '$tmp/ex.out' &&
	grep -q '^placement: 8 nodes x 8 ranks' '$tmp/ex.out' &&
	grep -q '^  local rank 7: GPU 7 (0000:' '$tmp/ex.out' &&
	grep -q '^0 errors' '$tmp/ex.out'"
sed 's/^/# /' "$tmp/ex.out"
check example-invalid-job sh -c "'$ex' '$srcdir/examples/llama3-70b.json' \
	model.tensor_model_parallel_size=3 >'$tmp/bad.out'; test \$? = 1 &&
	grep -q '^error MC' '$tmp/bad.out'"
check example-missing-file sh -c "'$ex' '$tmp/no-such.json' >'$tmp/miss.out'; test \$? = 2 &&
	grep -q '^error (noinput)' '$tmp/miss.out'"

# mcinit_initialize with lazy MPU init (examples/libmcinit/initialize.c):
# config and env run, the distributed phases are deferred, and the finish
# callback runs them (the CPU path here: --allow-no-cuda).
# shellcheck disable=SC2086
check init-example-builds $cc ${CFLAGS:-} -Wall -Wextra -Werror \
	"$srcdir/examples/libmcinit/initialize.c" $flags ${LDFLAGS:-} -o "$tmp/initialize"
job="$srcdir/tests/cli/inputs/topology-model.json"
unset RANK WORLD_SIZE LOCAL_RANK MASTER_ADDR MASTER_PORT SLURM_PROCID OMPI_COMM_WORLD_RANK \
	2>/dev/null || true
check init-lazy-finish sh -c "'$tmp/initialize' --allow-no-cuda '$job' >'$tmp/lazy.out' &&
	sed -n '/^initialized, lazily:/,/^finish callback/p' '$tmp/lazy.out' >'$tmp/before' &&
	grep -q '^  config     ok ' '$tmp/before' && grep -q '^  env        ok ' '$tmp/before' &&
	grep -q '^  rendezvous deferred ' '$tmp/before' && grep -q '^  seeds      deferred ' '$tmp/before' &&
	grep -q '^  ready      deferred ' '$tmp/before' &&
	sed -n '/^finished:/,\$p' '$tmp/lazy.out' >'$tmp/after' &&
	grep -q '^  rendezvous ok ' '$tmp/after' && grep -q '^  groups     ok ' '$tmp/after' &&
	grep -q '^  seeds      ok ' '$tmp/after' && grep -q '^  ready      ok ' '$tmp/after' &&
	grep -q '^  tp-comm    skipped  lazy MPU init' '$tmp/after'"
sed 's/^/# /' "$tmp/lazy.out"
# Interface 4.1: the launcher (none: a single process), mcinit run's
# summary, and the lazy rule's one place (repairs.c R4) seen through the
# flags Megatron-LM would get: --lazy-mpu-init and --use-cpu-initialization.
check init-launcher-none grep -qx 'launcher: none, rank 0' "$tmp/lazy.out"
check init-summary grep -q '^mcinit run: ready, world 1 (none)$' "$tmp/lazy.out"
check init-lazy-implies-cpu-init sh -c "grep '^megatron flags:' '$tmp/lazy.out' >'$tmp/mf' &&
	grep -q ' --lazy-mpu-init' '$tmp/mf' && grep -q ' --use-cpu-initialization' '$tmp/mf'"
# No GPU and no allow_no_cuda: the lazy path defers the device, so the
# finish is what fails, with MCINIT_E_UNAVAILABLE; the eager path fails at once.
check init-lazy-no-gpu sh -c "'$tmp/initialize' '$job' >'$tmp/ng.out'; test \$? = 2 &&
	grep -q '^finish callback' '$tmp/ng.out' && grep -q '^error (unavailable): ' '$tmp/ng.out'"
check init-eager-no-gpu sh -c "'$tmp/initialize' --eager '$job' >'$tmp/ne.out'; test \$? = 2 &&
	grep -q '^error (unavailable): no CUDA device' '$tmp/ne.out' && ! grep -q '^finish' '$tmp/ne.out' &&
	grep -qx 'failed phase: device' '$tmp/ne.out'"
check init-eager-cpu sh -c "'$tmp/initialize' --eager --allow-no-cuda '$job' >'$tmp/ec.out' &&
	grep -q '^initialized:' '$tmp/ec.out' && grep -q '^  ready      ok ' '$tmp/ec.out' &&
	grep -q '^world communicator: none' '$tmp/ec.out'"
check init-invalid-job sh -c "'$tmp/initialize' --allow-no-cuda '$job' model.num_layers=7 \
	model.pipeline_model_parallel_size=2 >'$tmp/inv.out'; test \$? = 1 &&
	grep -q '^error (invalid): ' '$tmp/inv.out'"
finish
