#!/bin/sh
# Median wall time of `mcinit validate` on the largest bundled example (by
# size), over 50 runs.  Process start-up dominates; expect a few ms.
set -eu
: "${MCINIT:?}" "${srcdir:?}"
largest=$(ls -S "$srcdir"/examples/*.json | head -n 1)
runs=50
python3 - "$MCINIT" "$largest" "$runs" <<'PY'
import statistics, subprocess, sys, time
mcinit, example, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
times = []
for _ in range(runs):
    t = time.perf_counter()
    r = subprocess.run([mcinit, "validate", example], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    times.append(time.perf_counter() - t)
    if r.returncode != 0:
        sys.exit(f"validate {example} exited {r.returncode}")
print(f"validate {example.rsplit('/', 1)[-1]}: median {statistics.median(times)*1e3:.2f} ms, "
      f"min {min(times)*1e3:.2f} ms over {runs} runs")
PY
