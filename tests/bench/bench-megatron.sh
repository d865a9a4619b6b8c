#!/bin/sh
# Whole process against Megatron-LM's own check: `mcinit validate` of the
# flags of examples/gpt3-175b.args at 1,024 ranks beside a Python process
# that imports megatron.training.arguments and runs parse_args() and
# validate_args() on the same flags (median wall time of each; Megatron's
# import of torch is most of its time, and is part of what a job pays).
# Megatron-LM asks the GPU's architecture in validate_args
# (get_device_arch_version); the reference answers 9 (Hopper) in its place,
# so that no GPU is needed.  MEGATRON_PYTHON names the Python whose
# environment has Megatron-LM's training package and torch (the
# megatron-core wheel ships megatron/training; default python3); without
# it the comparison is skipped, with the reason.  Needs MCINIT and srcdir.
set -eu
: "${MCINIT:?}" "${srcdir:?}"
py=${MEGATRON_PYTHON:-python3}
flags=$(cat "$srcdir/examples/gpt3-175b.args")
# the environment both are checked in: 1,024 ranks, one stream per device
export WORLD_SIZE=1024 RANK=0 LOCAL_RANK=0 CUDA_DEVICE_MAX_CONNECTIONS=1

if ! why=$("$py" -W ignore -c 'import megatron.training.arguments' 2>&1 >/dev/null); then
	echo "(skipped: $py cannot import megatron.training.arguments: $(echo "$why" | tail -n 1);"
	echo " set MEGATRON_PYTHON to a Python with megatron-core and torch)"
	exit 0
fi
# shellcheck disable=SC2086 # the flags, one word each
python3 - "$MCINIT" "$py" $flags <<'PY'
import statistics, subprocess, sys, time

mcinit, py, flags = sys.argv[1], sys.argv[2], sys.argv[3:]
reference = """
import sys
import megatron.training.arguments as a
a.get_device_arch_version = lambda: 9  # no GPU here: Hopper's answer
a.validate_args(a.parse_args())
"""


def median_time(argv, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        times.append(time.perf_counter() - t)
        if r.returncode != 0:
            sys.exit(f"{argv[0]} exited {r.returncode}: {r.stderr.strip()[-500:]}")
    return statistics.median(times)


ours = median_time([mcinit, "validate", "--", *flags], 20)
theirs = median_time([py, "-W", "ignore", "-c", reference, *flags], 3)
print(f"mcinit validate (gpt3-175b flags, 1024 ranks)  median {ours * 1e3:9.2f} ms of 20")
print(f"Megatron-LM parse_args + validate_args          median {theirs * 1e3:9.2f} ms of 3")
print(f"whole process: mcinit {theirs / ours:.0f}x faster (goal: 1000x)")
PY
