#!/bin/bash
# Brace expansion as bash does it (issue 36): sequences (numbers, zero
# padding, a step, letters), lists, nesting, a preamble and a postscript;
# quoted or escaped braces, `${`, `{x}` and an unmatched brace stay literal.
# oracle: all known
set -- {1..4}
NODES=({a,b}{1..2})
for g in {0..2}; do LAST=$g; done
torchrun --nproc_per_node ${#NODES[@]} pretrain_gpt.py --num-layers $# \
	--data-path /data/{train,valid}_{01..02} --seq-length $((LAST + 126)) \
	--eval-iters {5..1..2} --lr-warmup-iters {a..c} '{a,b}' "{1..2}" \{x,y\} {z} x{ ${LAST}{7,8}
