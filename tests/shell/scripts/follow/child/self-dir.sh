#!/bin/bash
# Run by ../source-dirname.sh: reads a file beside itself through its $0.
. "$(dirname "$0")/../config/training.sh" "$1" 2
torchrun --nproc_per_node 2 pretrain_gpt.py $MODEL_ARGS_STR $TRAIN_ARGS --seq-length 64 \
	--max-position-embeddings 64
