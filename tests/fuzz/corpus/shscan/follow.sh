#!/bin/bash
f() { echo $1; }
source a.sh 1 2
. no-such.sh
bash b.sh "$@"
srun -N 2 bash -x c.sh x
./d.sh --flag
V=1 sh e.sh
. a.sh
torchrun --nproc_per_node ${GPUS:-8} pretrain_gpt.py ${MODEL_ARGS[@]} $X --num-layers "$1"
