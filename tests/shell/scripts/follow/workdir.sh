#!/bin/bash
#SBATCH --nodes=1
#SBATCH --ntasks-per-node=1
# oracle: all known
# Issue 39, class 3: the working directory and the script's own directory,
# as bash has them, from the script's path as given and the directory it
# runs in: ROOT=$(cd "$(dirname "$0")/.." && pwd), ${BASH_SOURCE[0]},
# $(pwd), $PWD, cd (relative names after it, OLDPWD, cd -), pushd/popd,
# and under Slurm (#SBATCH) $SLURM_SUBMIT_DIR, the directory sbatch ran in.
# A file sourced behind such a path is followed.
ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/child/.." && pwd)"
source "$ROOT/follow/config/model.sh"
WORK=$(pwd)
cd "$HERE/config"
. ./workdir-paths.sh
cd - >/dev/null
pushd "$HERE/child" >/dev/null
CHILD_DIR=$PWD
popd >/dev/null
python pretrain_gpt.py "${MODEL_ARGS[@]}" $EXTRA --micro-batch-size 1 --train-iters 10 \
	--tokenizer-type NullTokenizer --vocab-size 1024 --mock-data \
	--save "$SAVE_DIR" --save-interval 5 --load "${PWD}/ckpt" --tensorboard-dir "$WORK/tb" \
	--data-cache-path "$OLDPWD/cache" --vocab-file "$CHILD_DIR/vocab.json" \
	--merge-file "$SLURM_SUBMIT_DIR/merges.txt"
