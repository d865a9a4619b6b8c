#!/bin/bash
# Run by ../child-args.sh as a child shell (and on its own by the oracle).
log starting
CHILD_SET=1
export CHILD_SET
torchrun --nproc_per_node ${NPROC:-1} pretrain_gpt.py "$@" --exit-interval ${LOCAL_ONLY:-7}
NPROC=99
