#!/bin/sh
# bench-startup.sh — a whole mcinit process beside /bin/true: CPU time
# (task-clock) and page faults, each the mean of `perf stat -r 50`, and the
# ratio to /bin/true's.  The goal is a validate within twice /bin/true
# (issue 37); callgrind's instruction counts are bench-callgrind.sh's.
set -eu
: "${MCINIT:?}" "${srcdir:?}"
runs=${BENCH_STARTUP_RUNS:-50}

if ! command -v perf >/dev/null 2>&1 || ! perf stat -x, -e task-clock true >/dev/null 2>&1; then
	echo "bench-startup: skipped (perf stat cannot run here)"
	exit 0
fi

# measure LABEL CMD...: "LABEL msec faults" from perf stat's CSV (-x,).
measure() {
	label=$1
	shift
	perf stat -x, -r "$runs" -e task-clock,page-faults "$@" 2>&1 >/dev/null |
		awk -F, -v label="$label" '
			$3 == "task-clock" { ms = $1 }
			$3 == "page-faults" { pf = $1 }
			END { printf "%s %s %s\n", label, ms, pf }'
}

ex="$srcdir/examples/gpt3-175b.json"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT INT TERM
{
	measure /bin/true /bin/true
	measure "mcinit --version" "$MCINIT" --version
	measure "explain MC012" "$MCINIT" explain MC012
	measure "validate gpt3-175b 1,024" "$MCINIT" validate "$ex" --world-size 1024
	measure "validate bridge YAML" "$MCINIT" validate "$srcdir/examples/bridge/llama32_1b_pretrain.yaml"
	measure "topology gpt3-175b 1,024" "$MCINIT" topology "$ex" --world-size 1024
} >"$tmp"
awk '
NR == 1 { t = $(NF - 1); f = $NF }
{
	n = NF - 2; label = $1
	for (i = 2; i <= n; i++) label = label " " $i
	rows[NR] = sprintf("%-28s %9.3f %6.1fx %8d %6.1fx", label, $(NF - 1), $(NF - 1) / t, $NF, $NF / f)
}
END {
	printf "%-28s %9s %7s %8s %7s\n", "process (perf stat -r '"$runs"')", "CPU ms", "/true", "faults", "/true"
	for (i = 1; i <= NR; i++) print rows[i]
}' "$tmp"

# What the loader does before main, whatever the clock says: the libraries
# it loads (libhwloc and libyaml are opened later, by the commands and
# inputs that need them) and the relocations it applies (each page holding
# one is written at every start; tables of offsets hold none).
if command -v readelf >/dev/null 2>&1 && readelf -h "$MCINIT" >/dev/null 2>&1; then
	echo "loaded at start: $(readelf -d "$MCINIT" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
	readelf -r "$MCINIT" | awk '
		/^ *[0-9]+ offsets$/ { packed += $1 }
		/^[0-9a-f]+ +[0-9a-f]+ +R_/ { other++ }
		END { printf "relocations at start: %d relative (packed), %d others\n", packed, other }'
fi
