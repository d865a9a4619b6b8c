#!/bin/bash
# A model config sourced from beside the script (MODEL_ARGS an array, the
# rest strings), a training config sourced with arguments of its own (its
# `shift` is undone: the caller's arguments come back), and a function the
# sourced file defines, called here.
# script-args: --lr 3e-4 --train-iters 5
# oracle: all known
source ./config/model.sh
. config/training.sh 2 4
set_data wiki
torchrun --nproc_per_node "$GPUS_PER_NODE" pretrain_gpt.py "${MODEL_ARGS[@]}" $EXTRA \
	$TRAIN_ARGS --data-path "$DATA" "$@"
