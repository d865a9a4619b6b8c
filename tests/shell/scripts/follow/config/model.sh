# Sourced by ../source-config.sh: its variables become the caller's.
NUM_LAYERS=24
MODEL_ARGS=(
	--num-layers $NUM_LAYERS # the line above
	--hidden-size 1024
	--num-attention-heads 16
)
EXTRA="--seq-length 1024 --max-position-embeddings 1024"
GPUS_PER_NODE=${GPUS_PER_NODE:-8}
export CUDA_DEVICE_MAX_CONNECTIONS=1
