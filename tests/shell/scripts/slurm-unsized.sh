#!/bin/bash
# shape: Slurm's sizing known only at run time (Megatron-LM's
# examples/mixtral).  With no #SBATCH line, SLURM_NNODES is the allocation's
# when the job runs: its default 1 here is an assumption, so the expert grid
# (EP 8 x PP 4 = 32) is not judged against the 8 ranks of one node; a note
# says so.
# oracle: all known
export CUDA_DEVICE_MAX_CONNECTIONS=1
GPUS_PER_NODE=8
NNODES=${SLURM_NNODES:-"1"}
DISTRIBUTED_ARGS=(
	--nproc_per_node $GPUS_PER_NODE
	--nnodes $NNODES
)
torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py --num-layers 8 --hidden-size 256 \
	--num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 \
	--micro-batch-size 1 --global-batch-size 32 --train-iters 10 \
	--pipeline-model-parallel-size 4 --num-experts 8 --expert-model-parallel-size 8 \
	--disable-bias-linear
