#!/bin/bash
#SBATCH --nodes=4
#SBATCH --ntasks-per-node=1 --gpus-per-node=8
#SBATCH -J train   # job name
NNODES=4
srun --container-image=img.sqsh -l bash -c true
srun --nodes $NNODES --ntasks-per-node=1 torchrun --nnodes=$NNODES --nproc-per-node=8 \
	--rdzv_backend c10d --rdzv_endpoint=node0:29400 pretrain_gpt.py --num-layers 8
