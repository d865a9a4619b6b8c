#!/bin/bash
DTYPE="fp8"
USE=1
ARGS=(--num-layers 2)
if [[ "$DTYPE" == "fp8" ]]; then
    ARGS+=(--fp8-format hybrid)
elif [ "$DTYPE" = bf16 ]; then
    ARGS+=(--bf16)
else
    ARGS+=(--fp16)
fi
if [ -n "${WANDB_API_KEY}" ]; then
    ARGS+=(--wandb-project x)
fi
if [ "${USE}" = 1 ]; then unset CUDA_DEVICE_MAX_CONNECTIONS; ARGS+=(--use-megatron-fsdp); else export CUDA_DEVICE_MAX_CONNECTIONS=1; fi
if ! [ $USE -eq 0 ]; then ARGS+=(--a); fi
if [[ $DTYPE == fp* ]]; then ARGS+=(--glob); fi
if [[ $DTYPE == "fp*" ]]; then ARGS+=(--quoted-glob); fi
if [ 1 -gt 2 ] || [ 3 -lt 4 ]; then ARGS+=(--compound); fi
if [ x = y ]; then
  if [ a = a ]; then ARGS+=(--never); fi
else
  if [ a = a ]; then ARGS+=(--nested); else ARGS+=(--no); fi
fi
if [ 1 = 1 ]; then ARGS+=(--first); elif [ 2 = 2 ]; then ARGS+=(--second); fi
torchrun --nproc_per_node 2 pretrain_gpt.py "${ARGS[@]}"
