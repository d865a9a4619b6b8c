#!/bin/sh
# quickstart.sh — one command from a fresh Debian 12 machine to a working mcinit.
#
#   ./quickstart.sh          install build dependencies (when missing), bootstrap,
#                            configure, build, and validate a bundled example
#   ./quickstart.sh check    the same, then the whole test suite (make check), and
#                            the suite again in a second build with ASan + UBSan
#                            (--enable-sanitizers), so memory errors fail it too,
#                            then the Python wheel from a clean clone in a fresh
#                            venv with its pytest tests (build-aux/python-check.sh),
#                            then the Debian packages from a clean clone, lintian and
#                            their autopkgtests on the unpacked packages
#                            (build-aux/deb-build-check.sh)
#   ./quickstart.sh bench    the same, then run the benchmarks (make bench)
#
# Environment: BUILD_DIR (default: _build; the sanitizer build is BUILD_DIR-asan),
# CONFIGURE_FLAGS (extra flags), SANITIZE=no (check: skip the sanitizer pass),
# PYTHON_CHECK=no (check: skip the Python package), DEB_CHECK=no (check: skip
# the Debian packages),
# MAKEFLAGS as usual.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
started=$(date +%s)
build=${BUILD_DIR:-$here/_build}
what=${1:-run}
jobs=$(nproc 2>/dev/null || echo 2)

sh "$here/build-aux/setup-debian.sh"

cd "$here"
if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
	echo "quickstart: bootstrapping (autoreconf -fi)"
	autoreconf -fi
fi

# configure_build DIR [FLAGS...]: configure (when needed) and build in DIR.
configure_build() {
	dir=$1
	shift
	mkdir -p "$dir"
	cd "$dir"
	if [ ! -f Makefile ] || [ "$here/configure" -nt Makefile ]; then
		# shellcheck disable=SC2086
		"$here/configure" ${CONFIGURE_FLAGS:-} "$@"
	fi
	make -j"$jobs"
}

# count WHAT DIR: how many test results of kind WHAT (an ERE) DIR's last run left.
count() {
	find "$2/tests" -name '*.trs' -exec cat {} + 2>/dev/null | grep -Ec "^:test-result: ($1)" || true
}

# since: the time since quickstart started, as "M min S s".
since() {
	t=$(($(date +%s) - started))
	echo "$((t / 60)) min $((t % 60)) s"
}

# suite DIR LABEL: make check in DIR; prints the failing logs and a count line.
suite() {
	st=0
	(cd "$1" && make -j"$jobs" check) || st=$?
	if [ "$st" -ne 0 ]; then
		for log in $(find "$1/tests" -name '*.log' | sort); do
			grep -Eq '^:test-result: (FAIL|ERROR|XPASS)' "${log%.log}.trs" 2>/dev/null || continue
			echo "==== $log"
			tail -n 60 "$log"
			# the digest repeated at the very end, where a reader of only
			# the output's last lines still sees why
			{
				echo "== $2: $log"
				grep -E '^not ok|^# .*(FAIL|[Ee]rror|exit [1-9])' "$log" | head -n 12
			} >>"$digest"
		done
	fi
	p=$(count PASS "$1") f=$(count 'FAIL|ERROR|XPASS' "$1") s=$(count SKIP "$1")
	echo "quickstart: $2: $p passed, $f failed, $s skipped ($(since) since the start)"
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	[ "$st" -eq 0 ] || status=$st
}

configure_build "$build"

case $what in
run)
	echo "quickstart: mcinit validate examples/llama3-8b.json --world-size 8"
	./src/mcinit validate "$here/examples/llama3-8b.json" --world-size 8
	;;
check)
	status=0 pass=0 fail=0 skip=0
	digest=$(mktemp)
	trap 'rm -f "$digest"' EXIT
	suite "$build" "tests"
	if [ "${SANITIZE:-yes}" != no ]; then
		if (configure_build "$build-asan" --enable-sanitizers); then
			suite "$build-asan" "tests under ASan+UBSan"
		else
			# A build that fails under the sanitizers is a failure, and counted as one.
			echo "quickstart: the sanitizer build failed"
			status=1 fail=$((fail + 1))
		fi
	fi
	# The Python package from a clean clone (build-aux/python-check.sh): its
	# own build, so it neither uses nor slows the suites; counted as one
	# test, and skipped with its reason when the package index is unreachable.
	if [ "${PYTHON_CHECK:-yes}" != no ]; then
		pst=0
		sh "$here/build-aux/python-check.sh" "$here" || pst=$?
		case $pst in
		0) pass=$((pass + 1)) r=passed ;;
		77) skip=$((skip + 1)) r=skipped ;;
		*)
			fail=$((fail + 1)) status=1 r=failed
			echo "python package: failed (build-aux/python-check.sh, output above)" >>"$digest"
			;;
		esac
		echo "quickstart: python package: $r ($(since) since the start)"
	fi
	# The Debian packages from a clean clone (build-aux/deb-build-check.sh):
	# counted as one test, skipped with its reason when a tool is missing.
	if [ "${DEB_CHECK:-yes}" != no ]; then
		dst=0
		sh "$here/build-aux/deb-build-check.sh" "$here" || dst=$?
		case $dst in
		0) pass=$((pass + 1)) r=passed ;;
		77) skip=$((skip + 1)) r=skipped ;;
		*)
			fail=$((fail + 1)) status=1 r=failed
			echo "debian packages: failed (build-aux/deb-build-check.sh, output above)" >>"$digest"
			;;
		esac
		echo "quickstart: debian packages: $r ($(since) since the start)"
	fi
	if [ -s "$digest" ]; then
		echo "quickstart: what failed (the logs are printed above in full)"
		cat "$digest"
	fi
	# One closing line that any reader can count, whatever the drivers printed.
	echo "tests: $pass passed, $fail failed, $skip skipped"
	echo "quickstart: check took $(since), both builds and both passes"
	exit "$status"
	;;
bench)
	make bench
	;;
*)
	echo "usage: $0 [run|check|bench]" >&2
	exit 64
	;;
esac
