# tests/double/lib.sh — for the tests that run mcinit over the CPU double of
# CUDA's runtime and NCCL (sourced after tests/cli/lib.sh).  $D is the
# folder of the double's libcudart.so.13 and libnccl.so.2; every run gets
# its own shared-memory names (MCDOUBLE_TAG), removed at the end.
D=$(cd "$(dirname "${MCINIT##* }")/../tests/double" 2>/dev/null && pwd)
[ -n "$D" ] && [ -f "$D/libnccl.so.2" ] || skip_all "no CPU double built (a build without CUDA)"
MCDOUBLE_TAG=t$$
export MCDOUBLE_TAG
trap 'rm -rf "$tmp" /dev/shm/mcd-$MCDOUBLE_TAG-*' EXIT
J=$srcdir/tests/cli/inputs/topology-model.json
S=$(slowdown)

# on_double CMD...: CMD with the double as CUDA (runtime and driver), NCCL
# and NVML, no GPU of its own.  The driver, libcuda.so.1, is there in builds
# with the CUDA kernels (they are what loads it).
on_double() {
	env -u RANK -u WORLD_SIZE -u LOCAL_RANK -u MASTER_ADDR -u MASTER_PORT \
		MCINIT_CUDA_LIBRARY="$D" MCINIT_NCCL_LIBRARY="$D" MCINIT_NVML_LIBRARY="$D" \
		MCINIT_CUDA_DRIVER_LIBRARY="$D" "$@"
}

# todo NAME WHY: a check that fails for a known defect (TAP TODO: XFAIL).
todo() {
	ntest=$((ntest + 1))
	echo "not ok $ntest - $1 # TODO $2"
}
