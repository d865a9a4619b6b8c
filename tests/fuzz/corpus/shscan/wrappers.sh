#!/bin/bash
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=4
# The launch inside other commands, as clusters run it: srun starts a shell
# on each node whose command string runs Python (srun gives the world size,
# 2 x 4), and a command assembled in a string run with eval.
export CUDA_DEVICE_MAX_CONNECTIONS=1
MODEL="--num-layers 4 --hidden-size 256 --num-attention-heads 8"
CMD="python pretrain_gpt.py $MODEL --seq-length 128 --max-position-embeddings 128"
srun --mpi=pmix bash -c "$CMD --micro-batch-size \$1 --train-iters 10" _ 1
EVAL_ARGS='--data-path "my data" --split 99,1,0'
eval echo preprocess_data.py $EVAL_ARGS
