#!/bin/bash
# Command substitutions as launch scripts write them: flags printed by
# echo and printf under a test, the script's own function, arithmetic and
# backquotes are read as bash prints them; $(nproc) runs a program, so the
# flags from it are not checked (a warning naming its line).
USE_DSA=1
LAYERS=4
model_args() {
	printf -- '--num-layers %d --hidden-size %d ' "$LAYERS" $((64 * LAYERS))
	echo "--num-attention-heads 8"
}
MODEL=$(model_args)
DSA=$([ "$USE_DSA" = 1 ] && echo "--dsa-kernel-backend triton-min-memory")
NO_DSA=$([ "$USE_DSA" = 0 ] && echo "--never-passed")
SEQ=`echo 128`
torchrun --nproc_per_node 2 pretrain_gpt.py $MODEL --seq-length $SEQ \
	--max-position-embeddings "$(echo $SEQ)" --micro-batch-size 1 --train-iters 10 \
	$DSA $NO_DSA --num-workers $(nproc) $(cat extra-flags.txt 2>/dev/null)
