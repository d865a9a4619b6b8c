#!/bin/sh
# compare-output.sh OLD NEW — for a change that must not change behaviour
# (a refactor, a file moved): runs two mcinit binaries on every input under
# tests/ (configs, flag lists, launch scripts, argparse sources) at world
# sizes 8, 64 and 1,024, validate as text and JSON and topology as text,
# and prints the runs whose status or output differ.  Exits 1 when one does.
#
#   build-aux/compare-output.sh /tmp/old/_build/src/mcinit _build/src/mcinit
#
# Run from the source tree's root: diagnostics name files as given.
set -u

old=$1 new=$2
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

find tests examples -type f \( -name '*.json' -o -name '*.yaml' -o -name '*.yml' \
	-o -name '*.args' -o -name '*.sh' -o -name '*.bash' -o -name '*.py' \) |
	grep -Ev '^tests/(cli|bench|fuzz|gpu|double|interop|lib|leftovers|kernels|oracle)/[^/]*$|^tests/unit/' |
	LC_ALL=C sort >"$tmp/inputs"

# run BINARY OUT ARGS...: status and combined output, bounded in time.
run() {
	b=$1 out=$2
	shift 2
	timeout -k 2 20 "$b" "$@" >"$out" 2>&1
	echo "status $?" >>"$out"
}

n=0 bad=0
while read -r f; do
	for w in 8 64 1024; do
		set -- "validate $f --world-size $w" "validate --format=json $f --world-size $w"
		case $f in
		*.json | *.yaml | *.yml) set -- "$@" "topology $f --world-size $w" ;;
		esac
		for cmd in "$@"; do
			n=$((n + 1))
			# shellcheck disable=SC2086
			run "$old" "$tmp/a" $cmd
			# shellcheck disable=SC2086
			run "$new" "$tmp/b" $cmd
			if ! cmp -s "$tmp/a" "$tmp/b"; then
				bad=$((bad + 1))
				echo "differs: mcinit $cmd"
				diff "$tmp/a" "$tmp/b" | head -n 10
			fi
		done
	done
done <"$tmp/inputs"
echo "compare-output: $(wc -l <"$tmp/inputs") inputs, $n runs, $bad differ"
[ "$bad" -eq 0 ]
