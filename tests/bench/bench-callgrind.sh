#!/bin/sh
# Instructions per command, counted by callgrind: a figure that does not
# move with the machine or its load, beside the times and ratios of the
# other benchmarks.  The commands and goals of the speed work (HACKING,
# Speed): validate of the GPT-3 175B example at 1,024 ranks (5 M), the
# seven examples with --each in one process (25 M), and the topology of
# bench-topology.sh at 65,536 ranks as JSON (150 M).  Skipped without
# valgrind.  Needs MCINIT and srcdir.
set -eu
: "${MCINIT:?}" "${srcdir:?}"
if ! command -v valgrind >/dev/null 2>&1; then
	echo "(valgrind not installed: instruction counts skipped)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# row LABEL GOAL ARGS...: one line of the table, mcinit ARGS under callgrind.
row() {
	label=$1 goal=$2
	shift 2
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$MCINIT" "$@" \
		>/dev/null 2>"$tmp/vg" || true
	n=$(sed -n 's/^==[0-9]*== Collected : \([0-9][0-9]*\)$/\1/p' "$tmp/vg")
	if [ -z "$n" ]; then
		echo "$label: callgrind gave no count" >&2
		sed 's/^/  /' "$tmp/vg" >&2
		return 1
	fi
	awk -v l="$label" -v n="$n" -v g="$goal" 'BEGIN {
		printf "%-44s %10.2f M %8.0f M %7.2fx\n", l, n / 1e6, g / 1e6, n / g }'
}

ex=$srcdir/examples
printf '%-44s %12s %10s %8s\n' "command (callgrind, whole process)" instructions goal "of goal"
row "validate gpt3-175b.json --world-size 1024" 5000000 \
	validate "$ex/gpt3-175b.json" --world-size 1024
# shellcheck disable=SC2046 # the seven examples, one word each
row "validate --each, the $(ls "$ex"/*.json | wc -l) examples" 25000000 \
	validate --each $(ls "$ex"/*.json)
row "topology W=65536 --format=json" 150000000 \
	topology --world-size 65536 --nproc-per-node 8 --format=json \
	model.tensor_model_parallel_size=8 model.pipeline_model_parallel_size=16 \
	model.context_parallel_size=2 model.expert_model_parallel_size=8 \
	model.expert_tensor_parallel_size=1 model.num_layers=32 model.hidden_size=1024 \
	model.num_attention_heads=16 model.seq_length=4096 model.max_position_embeddings=4096 \
	model.num_moe_experts=8 model.sequence_parallel=true model.bf16=true \
	train.micro_batch_size=1 'model.hierarchical_context_parallel_sizes=[2]' \
	ddp.num_distributed_optimizer_instances=2 ddp.use_distributed_optimizer=true
