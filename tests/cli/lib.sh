# lib.sh — helpers for CLI tests (sourced).  Each check compares a command's
# exit status and its combined output with a golden file in golden/, or
# asserts a property.  Output is TAP (one "ok N - NAME" / "not ok N - NAME"
# per check, the plan last), so automake's tap-driver.sh names every failing
# check in the test log; everything else is printed as TAP comments.
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
ntest=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# comment FILE: FILE's lines as TAP comments.
comment() {
	sed 's/^/# /' "$1"
}

pass() {
	ntest=$((ntest + 1))
	npass=$((npass + 1))
	echo "ok $ntest - $1"
}

# fail NAME WHY [FILE]: a failed check, its reason and FILE as comments.
fail() {
	ntest=$((ntest + 1))
	nfail=$((nfail + 1))
	echo "not ok $ntest - $1"
	echo "# $2"
	[ $# -lt 3 ] || comment "$3"
}

# skip NAME WHY: a check that cannot run here (a missing optional tool).
skip() {
	ntest=$((ntest + 1))
	echo "ok $ntest - $1 # SKIP $2"
}

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
		fail "$name" "exit $got, expected $want" "$tmp/out"
	elif ! diff -u "$cli/golden/$name.out" "$tmp/out" >"$tmp/diff" 2>&1; then
		fail "$name" "output differs from golden/$name.out" "$tmp/diff"
	else
		pass "$name"
	fi
}

# check NAME CONDITION-CMD...: a property that must hold (exit 0).
check() {
	name=$1
	shift
	if (cd "$cli/inputs" && "$@") >"$tmp/check" 2>&1; then
		pass "$name"
	else
		fail "$name" "the condition failed:" "$tmp/check"
	fi
}

# skip_all WHY: the whole script cannot run here; exits.
skip_all() {
	echo "1..0 # SKIP $1"
	exit 0
}

# wait_line FILE PATTERN: until a line of FILE matches PATTERN (a server
# says it listens), ten seconds at most.
wait_line() {
	wl_i=0
	while ! grep -q "$2" "$1" 2>/dev/null && [ $wl_i -lt 100 ]; do
		sleep 0.1
		wl_i=$((wl_i + 1))
	done
}

finish() {
	echo "1..$ntest"
	echo "# $npass passed, $nfail failed"
	[ "$nfail" -eq 0 ]
}

# How many times slower than a plain build $MCINIT runs: 10 under ASan/UBSan
# (quickstart's second pass), whose ranks and big inputs take many seconds;
# tests scale their time limits by it, so a loaded machine does not fail them.
slowdown() {
	if ldd "${MCINIT##* }" 2>/dev/null | grep -q 'libasan\|libubsan'; then
		echo 10
	else
		echo 1
	fi
}
