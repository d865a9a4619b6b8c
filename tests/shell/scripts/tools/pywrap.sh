#!/bin/bash
# A cluster's wrapper in the repository (wrappers-*.sh run it behind
# singularity, numactl ...): the job's environment, then python on its
# arguments.  Alone it runs nothing.
[ $# -gt 0 ] || exit 0
export NCCL_DEBUG=WARN
exec python3 -u "$@"
