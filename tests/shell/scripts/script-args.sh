#!/bin/bash
# script-args: 2 "--num-layers 4" --hidden-size 256
# The script's own arguments (mcinit validate --script-args), as a
# launcher script takes them: the first is the tensor-parallel size, the
# rest are flags; one of them is two words, split by the unquoted $@.
TP=${1:?usage: script-args.sh TP [FLAGS...]}
shift
set -- "$@" --num-attention-heads 8
echo "$# flags: $*"
torchrun --nproc_per_node "$TP" pretrain_gpt.py --tensor-model-parallel-size "$TP" $@ \
	--seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 10 \
	"${@:1:0}"
