#!/bin/bash
#SBATCH --nodes=4
#SBATCH -G 32
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=32
# shape: Slurm's own sizing. -G/--gpus is the job's GPU count: over -N 4
# nodes, SLURM_GPUS_ON_NODE is 8; SLURM_GPUS is the count asked for.
# oracle: all known
srun torchrun --nnodes "$SLURM_JOB_NUM_NODES" --nproc_per_node "$SLURM_GPUS_ON_NODE" \
	pretrain_gpt.py --num-layers 4 --hidden-size 256 --num-attention-heads 8 \
	--seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 \
	--train-iters 10 --tensor-model-parallel-size 8 --global-batch-size "$SLURM_GPUS" \
	--num-workers "$SLURM_CPUS_PER_TASK"
