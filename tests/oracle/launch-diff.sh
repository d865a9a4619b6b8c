#!/bin/sh
# The launch-script differential: scripts generated in the shapes users
# write (launch-gen.py), run in real bash with the launchers' documented
# behaviour (launch-cases.py), each launch judged by Megatron-LM's own
# parse_args + validate_args at the world size its launcher gives, and by
# mcinit on the script itself, run without its arguments
# (megatron-diff.py).  Not part of the build or of make check: it needs a
# Megatron-LM tree per release and a Python with torch.
#   launch-diff.sh MLM_TREE PYTHON MCINIT RELEASE [COUNT [SEED]]
# MLM_TREE holds megatron/ of RELEASE (megatron-diff.sh's $WORK/mlm-R).
set -eu
tree=$1 py=$2 mcinit=$3 release=$4 count=${5:-200} seed=${6:-1}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
python3 "$here/launch-gen.py" "$work/scripts" --count "$count" --seed "$seed"
python3 "$here/launch-cases.py" "$work"/scripts/launch-*.sh >"$work/corpus.jsonl"
PYTHONPATH=$tree MLM_ROOT=$tree "$py" -W ignore "$here/megatron-diff.py" --release "$release" --init-model-parallel \
	--mcinit "$mcinit" --corpus "$work/corpus.jsonl"
