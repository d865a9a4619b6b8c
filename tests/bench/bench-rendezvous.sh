#!/bin/sh
# Rendezvous benchmark (issue 11): N clients on loopback connect, set a key,
# wait and get one key (tests/bench/bench-rendezvous: one thread drives every
# client through non-blocking sockets, so the server is what is timed).
# Mode "keys": each waits for all N keys (N^2 keys for the server); mode
# "count": the barrier launchers use (ADD a counter, the last one sets a key
# everyone waits for).  The same client against `mcinit store` and against
# torch's own TCPStore server (when $MCINIT_TORCH_PYTHON, else python3, has
# torch), as a ratio.  Torch's server is slow (about 80 ms per client here),
# so it runs at 64 and 256 clients only unless BENCH_TORCH_MAX=1024.
# mcinit: median of 3 runs, a fresh store each; "cpu_ms" is `mcinit store`'s
# own CPU time (/proc/PID/schedstat), which a loaded machine inflates less
# than the wall time.
set -eu
: "${MCINIT:?}" "${srcdir:?}"
prog="${BENCH_BUILD:-.}/tests/bench/bench-rendezvous"
[ -x "$prog" ] || { echo "($prog not built: rendezvous benchmark skipped)"; exit 0; }
PY=${MCINIT_TORCH_PYTHON:-python3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Starts a server in the background, sets $srv (pid) and $port.
start_mcinit() {
	"$MCINIT" store --host 127.0.0.1 --port 0 2>"$tmp/port" &
	srv=$!
	while ! grep -q listening "$tmp/port" 2>/dev/null; do sleep 0.05; done
	port=$(sed -n 's/.*://p' "$tmp/port")
}
start_torch() {
	"$PY" - >"$tmp/tport" 2>/dev/null <<'PY' &
import datetime, signal, torch.distributed as dist
s = dist.TCPStore("127.0.0.1", 0, is_master=True, wait_for_workers=False,
                  timeout=datetime.timedelta(seconds=600))
print(s.port, flush=True)
signal.sigwait([signal.SIGTERM, signal.SIGINT])
PY
	srv=$!
	while [ ! -s "$tmp/tport" ]; do sleep 0.1; done
	port=$(cat "$tmp/tport")
	rm -f "$tmp/tport"
}
stop() { kill "$srv"; wait "$srv" 2>/dev/null || true; }
# CPU time of every thread of process $1, in ns (torch serves in a thread).
cpu_ns() {
	cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ t += $1 } END { printf "%d", t }'
}
# one_run N MODE: "seconds cpu_ms" for N clients, or "fail -".
one_run() {
	pid=$(ss -ltnp 2>/dev/null | grep ":$port " | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -n 1)
	a=$(cpu_ns "$pid")
	out=$(timeout 120 "$prog" 127.0.0.1 "$port" "$1" 100 "$2") || { echo "fail -"; return; }
	b=$(cpu_ns "$pid")
	echo "$(echo "$out" | cut -d' ' -f2) $(((b - a) / 1000000))"
}
median() { sort -n | sed -n 2p; }
# the store started by start_mcinit is `mcinit store` itself (its pid is
# what ss shows for the port); for torch it is the Python process

have_torch=no
"$PY" -c 'import torch.distributed' >/dev/null 2>&1 && have_torch=yes
tmax=${BENCH_TORCH_MAX:-256}
printf '%6s %8s %10s %8s %10s %8s %8s\n' mode clients mcinit_s cpu_ms torch_s cpu_ms ratio
for mode in keys count; do
	for n in 64 256 1024; do
		for i in 1 2 3; do
			start_mcinit
			one_run "$n" "$mode"
			stop
		done >"$tmp/m"
		m=$(median <"$tmp/m")
		t="- -"
		r=-
		if [ "$have_torch" = yes ] && [ "$n" -le "$tmax" ]; then
			start_torch
			t="$(one_run "$n" "$mode" | cut -d' ' -f1) -"
			stop
			r=$(awk -v a="${t%% *}" -v b="${m%% *}" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.0fx", a / b; else print "-" }')
		fi
		printf '%6s %8s %10s %8s %10s %8s %8s\n' "$mode" "$n" ${m} ${t} "$r"
	done
done
[ "$have_torch" = yes ] || echo "(no torch for $PY: set MCINIT_TORCH_PYTHON for the torch column)"
