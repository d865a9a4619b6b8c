#!/bin/bash
# oracle: all known
# Issue 39, class 2: `set` as bash parses it.  In `set -euo pipefail` the
# `o` takes the NEXT word as its option name: `pipefail` is not $1 (it was:
# `${1:-2}` became 'pipefail', a world size and a false "invalid int value").
# Then the other spellings of the first line of a script, shopt, set +B
# (no brace expansion), set -a (allexport), `set -` and `set --`.
set -euo pipefail
set -e -u -o pipefail
set -Eeo pipefail -u
set -o errexit
set -ou nounset
set +x
set -o
shopt -s nullglob extglob
shopt -u nullglob
NPROC=${1:-2}
MBS=${2:-1}
set +B
LITERAL={a,b}
set -B
set -a
NCCL_DEBUG=WARN
set +o allexport
OMP_NUM_THREADS=4
set - --tokenizer-type NullTokenizer
set -o pipefail -- "$@" --vocab-size 1024
torchrun --nproc_per_node "$NPROC" pretrain_gpt.py --num-layers 4 --hidden-size 256 \
	--num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 \
	--micro-batch-size "$MBS" --global-batch-size 8 --train-iters 10 --mock-data \
	--data-cache-path "$LITERAL" {--eval-iters=1,--eval-interval=5} "$@"
