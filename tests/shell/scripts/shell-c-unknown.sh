#!/bin/bash
# srun running `bash -c "..."`: the outer shell expands the string, and the
# shell on the node reads the result as commands.  A value only the run
# knows (the script's own argument, a command's output) stays that unknown
# value there: it is not read again as that shell's `$1` (empty, since
# bash -c is given no arguments) nor as a command of its own, whether it
# lands outside quotes or inside the inner single quotes.
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --gpus-per-node=8
CKPT="$1"
HOST=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n 1)
ARGS="--num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 512"
ARGS="$ARGS --max-position-embeddings 512 --micro-batch-size 1 --train-iters 10"
srun bash -c "torchrun --nnodes=2 --nproc-per-node=8 --rdzv-backend=c10d \
	--rdzv-endpoint=$HOST:29500 pretrain_gpt.py $ARGS --save $CKPT --load '$CKPT' \
	--save-interval 50"
