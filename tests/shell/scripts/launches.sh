#!/bin/bash
# A script that launches twice, on two lines: each launch is checked on
# its own and reported with its launcher's line; the second asks for a
# tensor-parallel size that does not divide the attention heads.
ARGS=(--num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 128
	--max-position-embeddings 128 --micro-batch-size 1 --train-iters 10)
torchrun --nproc_per_node 2 pretrain_gpt.py "${ARGS[@]}" --tensor-model-parallel-size 2
python tools/preprocess_data.py --input data.json --output-prefix data
torchrun --nproc_per_node 3 pretrain_gpt.py "${ARGS[@]}" --tensor-model-parallel-size 3
