# Sourced with two arguments: the micro batch and a factor.
TRAIN_ARGS="--micro-batch-size $1 --global-batch-size $(($2 * 8))"
shift
set_data() { DATA=/data/$1; }
