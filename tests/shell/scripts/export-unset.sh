#!/bin/bash
# export, unset, declare -x, set -a and prefix assignments: the job's environment.
export CUDA_DEVICE_MAX_CONNECTIONS=1
export NCCL_DEBUG
NCCL_DEBUG=INFO
declare -x NVTE_FLAG=2
LOCAL_ONLY=3
unset CUDA_DEVICE_MAX_CONNECTIONS
set -a
AUTO_EXPORTED=yes
set +a
NOT_EXPORTED=no
TP=${TP:-2}
: ${PP:=1}
ARGS=(--tensor-model-parallel-size $TP --pipeline-model-parallel-size $PP)
PREFIX_ONLY=7 python -u pretrain_gpt.py "${ARGS[@]}" --seed $((TP * 1000 + PP))
echo "after: ${PREFIX_ONLY:-gone}"
