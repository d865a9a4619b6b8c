# lib.sh — helpers for CLI tests (sourced).  Each test compares a command's
# exit status and its combined output with a golden file in golden/.
# UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
set -u
: "${MCINIT:?MCINIT must point at the mcinit binary}"
: "${srcdir:?srcdir must point at the source tree}"
# make check-valgrind runs every mcinit of these tests under a wrapper.
MCINIT="${MCINIT_WRAPPER:+$MCINIT_WRAPPER }$MCINIT"
cli="$srcdir/tests/cli"
# Hermetic: the launcher and CUDA variables mcinit reads must come from the
# tests themselves, not from the machine running them.
unset WORLD_SIZE RANK LOCAL_RANK SLURM_NTASKS SLURM_PROCID OMPI_COMM_WORLD_SIZE \
	CUDA_DEVICE_MAX_CONNECTIONS CUDA_VISIBLE_DEVICES HWLOC_XMLFILE 2>/dev/null || true
nfail=0
npass=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# golden NAME RC CMD...: run CMD in tests/cli/inputs, expect exit RC and
# output equal to golden/NAME.out.
golden() {
	name=$1 want=$2
	shift 2
	got=0
	(cd "$cli/inputs" && "$@") >"$tmp/out" 2>&1 || got=$?
	printf 'exit %s\n' "$got" >>"$tmp/out"
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/out" "$cli/golden/$name.out"
	fi
	if [ "$got" != "$want" ]; then
		echo "FAIL $name: exit $got, expected $want"
		cat "$tmp/out"
		nfail=$((nfail + 1))
	elif ! diff -u "$cli/golden/$name.out" "$tmp/out"; then
		echo "FAIL $name: output differs from golden/$name.out"
		nfail=$((nfail + 1))
	else
		npass=$((npass + 1))
	fi
}

# check NAME CONDITION-CMD...: a property that must hold (exit 0).
check() {
	name=$1
	shift
	if (cd "$cli/inputs" && "$@") >"$tmp/check" 2>&1; then
		npass=$((npass + 1))
	else
		echo "FAIL $name"
		cat "$tmp/check"
		nfail=$((nfail + 1))
	fi
}

finish() {
	echo "$npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
}
