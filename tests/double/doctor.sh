#!/bin/sh
# tests/double/doctor.sh — issue 40: `mcinit doctor` over the CPU double:
# the GPUs with compute mode and ECC, EXCLUSIVE_PROCESS as a problem with
# its fix, the libraries and why, torch's NCCL against the one loaded, and a
# driver older than the runtime named as such.
. "$srcdir/tests/cli/lib.sh"
. "$srcdir/tests/double/lib.sh"

on_double env MCDOUBLE_DEVICES=2 $MCINIT doctor --format=json >"$tmp/ok.json" 2>"$tmp/ok.err"
comment "$tmp/ok.json"
check "two GPUs: compute mode default, ECC on" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["gpu"] is True and len(r["devices"]) == 2, r
d = r["devices"][1]
assert d["bus_id"] == "0000:11:00.0" and d["compute_mode"] == "default" and d["ecc"] is True, d
assert r["nccl"]["version"] and r["nccl"]["why"].startswith("MCINIT_NCCL_LIBRARY="), r["nccl"]
assert r["cuda_runtime"]["library"].endswith("libcudart.so.13"), r["cuda_runtime"]
assert not any("compute mode" in p["what"] for p in r["problems"]), r["problems"]
# hwloc does not know the bus ids of the double: said, not a problem
assert "0000:10:00.0" in r["affinity"]["why"], r["affinity"]
assert not any("hwloc" in p["what"] or "topology" in p["what"] for p in r["problems"]), r["problems"]
' "$tmp/ok.json"

on_double env MCDOUBLE_DEVICES=2 MCDOUBLE_COMPUTE_MODE=exclusive_process $MCINIT doctor >"$tmp/excl" 2>&1
rc=$?
comment "$tmp/excl"
check "EXCLUSIVE_PROCESS: each GPU a problem, the fix, exit 69" sh -c "test $rc = 69 &&
	test \$(grep -c '^  - GPU [01] (0000:1[01]:00.0) is in compute mode exclusive_process' '$tmp/excl') = 2 &&
	grep -q '^    fix: nvidia-smi -i <GPU> -c DEFAULT' '$tmp/excl'"

on_double env MCDOUBLE_DRIVER_VERSION=12020 $MCINIT doctor >"$tmp/old" 2>&1
comment "$tmp/old"
check "driver 12.2 under runtime 13: named, with the fix" sh -c "
	grep -q 'an NVIDIA driver is here but no CUDA device is usable: the NVIDIA driver supports CUDA 12.2, older than the CUDA 13.0 runtime' '$tmp/old' &&
	grep -q '^  driver: *12.2' '$tmp/old' && ! grep -q 'allow-no-cuda' '$tmp/old'"

# torch in a venv with its own NCCL, mcinit pointed at another: named
V=$tmp/venv/lib/python3.12/site-packages
mkdir -p "$V/torch" "$V/nvidia/nccl/lib"
cp "$D/nccl-2.27/libnccl.so.2" "$V/nvidia/nccl/lib/"
on_double env VIRTUAL_ENV="$tmp/venv" $MCINIT doctor >"$tmp/torch" 2>&1
comment "$tmp/torch"
check "torch's NCCL differs from the one loaded: a problem" sh -c "
	grep -q '^  torch.s NCCL: *$V/nvidia/nccl/lib/libnccl.so.2 (a different file)' '$tmp/torch' &&
	grep -q '^  - torch would load $V/nvidia/nccl/lib/libnccl.so.2, mcinit loads $D/libnccl.so.2' '$tmp/torch'"
env -u MCINIT_NCCL_LIBRARY -u CONDA_PREFIX MCINIT_CUDA_LIBRARY="$D" VIRTUAL_ENV="$tmp/venv" \
	$MCINIT doctor --format=json >"$tmp/same.json" 2>"$tmp/same.err"
check "torch's NCCL is the one found first: the same" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["nccl"]["same_as_torch"] is True and r["nccl"]["version"] == 22705, r["nccl"]
' "$tmp/same.json"
# NVML (the double's libnvidia-ml.so.1): MIG and NVLinks per GPU
on_double env MCDOUBLE_DEVICES=2 MCDOUBLE_NVLINKS=18 $MCINIT doctor --format=json >"$tmp/nvml.json" 2>"$tmp/nvml.err"
check "NVML: MIG off, 18 NVLinks, the library named, no MIG problem" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["nvml"]["library"].endswith("libnvidia-ml.so.1") and r["nvml"]["why"] is None, r["nvml"]
for d in r["devices"]:
    assert d["mig"] is False and d["mig_pending"] is False and d["nvlinks"] == 18, d
assert not any("MIG" in p["what"] for p in r["problems"]), r["problems"]
' "$tmp/nvml.json"
on_double env MCDOUBLE_DEVICES=2 MCDOUBLE_MIG=on $MCINIT doctor >"$tmp/mig" 2>&1
rc=$?
comment "$tmp/mig"
check "MIG on: each GPU says so, a problem with the fix, exit 69" sh -c "test $rc = 69 &&
	test \$(grep -c '^  GPU [01] .*, MIG on, NVLinks 0\$' '$tmp/mig') = 2 &&
	test \$(grep -c '^  - GPU [01] (0000:1[01]:00.0) is in MIG mode: its instances have no NVLink' '$tmp/mig') = 2 &&
	grep -q '^    fix: nvidia-smi -i <GPU> -mig 0' '$tmp/mig'"
on_double env MCDOUBLE_DEVICES=1 MCDOUBLE_MIG=pending $MCINIT doctor >"$tmp/pend" 2>&1
comment "$tmp/pend"
check "MIG pending a reset: said, with the fix" sh -c "
	grep -q '^  GPU 0 .*, MIG off' '$tmp/pend' &&
	grep -q '^  - GPU 0 (0000:10:00.0) will be in MIG mode after its next reset' '$tmp/pend'"
on_double env MCDOUBLE_DEVICES=1 MCDOUBLE_NVML_INIT=fail $MCINIT doctor --format=json >"$tmp/nonvml.json" 2>/dev/null
check "NVML that cannot start: why, MIG and NVLinks unknown, not a problem" python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert "nvmlInit: Driver Not Loaded" in r["nvml"]["why"], r["nvml"]
d = r["devices"][0]
assert d["mig"] is None and d["nvlinks"] is None, d
assert not any("MIG" in p["what"] or "NVML" in p["what"] for p in r["problems"]), r["problems"]
' "$tmp/nonvml.json"
finish
