#!/bin/sh
# The store at scale (issue 28): tests/bench/bench-store-load drives N
# clients of one `mcinit store` on loopback from one process, replaying
# mcinit run's own rendezvous rounds ("run") and init_process_group's
# ("torch"); see the program's head for the requests.  Each row is a fresh
# store: the generator's wall time, the store's CPU time (its
# /proc/PID/schedstat, which a loaded machine inflates less than the wall
# time) and its peak resident memory (VmHWM).
#
# Over sockets each process needs N descriptors, so N is capped by the hard
# RLIMIT_NOFILE (both processes raise their soft limit to it).  A world
# larger than that runs "local": the same clients against an in-process
# server through sessions (store.h), no socket; its memory column is then
# the store's own count of what it holds, and its time includes the
# clients'.  Goals (issue 28): 1,024 ranks < 0.1 s, 65,536 < 10 s.
#
# Last, faults under load: 8,192 clients of which 5 % close in the middle
# of a request, send garbage or stall with half a request; the others
# (the world) must all complete, and the store's closing line counts each
# kind.  The store drops a stall after 30 s; the run is shorter, so the
# stalled ones count as closed mid-request when the generator exits.
set -eu
: "${MCINIT:?}" "${srcdir:?}"
prog="${BENCH_BUILD:-.}/tests/bench/bench-store-load"
[ -x "$prog" ] || { echo "($prog not built: store load benchmark skipped)"; exit 0; }
tmp=$(mktemp -d)
srv=
trap '[ -z "$srv" ] || kill "$srv" 2>/dev/null; rm -rf "$tmp"' EXIT
hard=$(ulimit -Hn)
[ "$hard" = unlimited ] && hard=1048576
max_sock=$((hard - 64))

start_store() {
	(ulimit -n "$hard" && exec "$MCINIT" store --host 127.0.0.1 --port 0 \
		--max-connections 1048576) 2>"$tmp/port" &
	srv=$!
	while ! grep -q listening "$tmp/port" 2>/dev/null; do sleep 0.05; done
	port=$(sed -n 's/.*://p' "$tmp/port")
}
stop_store() { kill "$srv"; wait "$srv" 2>/dev/null || true; srv=; }
cpu_ms() { awk '{ printf "%d", $1 / 1000000 }' /proc/"$1"/schedstat; }
hwm_mib() { awk '/^VmHWM/ { printf "%.1f", $2 / 1024 }' /proc/"$1"/status; }

# row PATTERN N: one line of the table.
row() {
	if [ "$2" -le "$max_sock" ]; then
		start_store
		a=$(cpu_ms "$srv")
		out=$( (ulimit -n "$hard" && timeout 300 "$prog" "$1" "$2" 127.0.0.1 "$port" 240) ||
			echo "$1 $2 - fail -")
		b=$(cpu_ms "$srv")
		mem="$(hwm_mib "$srv") MiB"
		stop_store
		set -- $out
		printf '%6s %7s %9s %9s %8s %12s  sockets\n' "$1" "$2" "$3" "$((b - a))" "$4" "$mem"
	else
		out=$(timeout 300 "$prog" "$1" "$2" local 240 || echo "$1 $2 - fail -")
		set -- $out
		mem=$(awk -v b="$5" 'BEGIN { if (b + 0 > 0) printf "%.1f MiB", b / 1048576; else print "-" }')
		printf '%6s %7s %9s %9s %8s %12s  in-process (hard limit %s < %s fds)\n' \
			"$1" "$2" "$3" - "$4" "$mem" "$hard" "$2"
	fi
}

printf '%6s %7s %9s %9s %8s %12s  %s\n' pattern clients seconds cpu_ms failed memory transport
for n in 1024 8192 65536; do
	for p in run torch; do
		row "$p" "$n"
	done
done
if [ "$max_sock" -lt 65536 ] && [ "$max_sock" -gt 8192 ]; then
	# the largest world this machine's descriptors allow over sockets
	big=$((max_sock / 1024 * 1024))
	for p in run torch; do
		row "$p" "$big"
	done
fi

# faults: the world completes, the store counts what it dropped
start_store
out=$( (ulimit -n "$hard" && timeout 300 "$prog" run 8192 127.0.0.1 "$port" 240 5) ||
	echo "run 8192 - fail")
mem="$(hwm_mib "$srv") MiB"
stop_store
echo "faults at 8192 clients, 5 %: $out (closed mid-request, garbage, stalled); store peak $mem"
grep 'dropped' "$tmp/port" || true
