#!/bin/bash
# Issue 39, class 1: the script's own arguments, read without them (no
# --script-args: the user gives them at launch), are values only the run
# knows, never empty words.  Megatron-LM's examples (mixtral, mamba) pass
# `--save $CHECKPOINT_PATH` with CHECKPOINT_PATH=$1: read as empty, --save
# took the next flag as its value (a false MC004 "expected one argument").
# `${3:-1}` is its default, as bash gives it when the argument is absent;
# "$@" after `shift` and $# stay unknown.  One note says all this.
CHECKPOINT_PATH=$1
DATA_PATH=$2
MBS=${3:-1}
NARGS=$#
if [ "$NARGS" -gt 3 ]; then
	shift 3
else
	set --
fi
for extra; do
	echo "extra argument: $extra"
done
torchrun --nproc_per_node 2 pretrain_gpt.py --num-layers 4 --hidden-size 256 \
	--num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 \
	--micro-batch-size $MBS --global-batch-size 8 --train-iters 10 \
	--save $CHECKPOINT_PATH --load $CHECKPOINT_PATH --save-interval 5 \
	--data-path $DATA_PATH --split 1,0,0 --tokenizer-type NullTokenizer --vocab-size 1024 "$@"
