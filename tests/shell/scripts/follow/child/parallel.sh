#!/bin/bash
# Run by path from ../child-exported.sh.
torchrun --nproc_per_node "$1" pretrain_gpt.py $MODEL \
	--tensor-model-parallel-size ${TP:-1} --pipeline-model-parallel-size ${PP:-1}
