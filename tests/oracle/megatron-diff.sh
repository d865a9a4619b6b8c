#!/bin/sh
# The per-release differential of tests/oracle/megatron-diff.py: each
# Megatron-LM release mcinit knows (data/megatron-versions.tsv) taken from a
# Megatron-LM git directory (a bare mirror will do) into $WORK/mlm-R, the
# corpus written once (tests/oracle/corpus.py), each release judged.
# Not part of the build or of make check.
#   megatron-diff.sh MEGATRON_GIT PYTHON MCINIT [WORK] [-- megatron-diff.py options]
set -eu
git=$1 py=$2 mcinit=$3 work=${4:-/tmp}
shift 3
[ $# -gt 0 ] && [ "$1" != -- ] && shift
[ $# -gt 0 ] && shift
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
ci=
while read -r name branch commit _; do
	[ "$name" = name ] && continue
	d=$work/mlm-$name
	if [ ! -d "$d/megatron" ]; then
		mkdir -p "$d"
		git --git-dir="$git" archive "$commit" megatron tests/functional_tests | tar -x -C "$d"
	fi
	ci="$ci --ci $name=$d"
done <"$top/data/megatron-versions.tsv"
# shellcheck disable=SC2086 # one option and its value per word
"$py" "$here/corpus.py" "$top" $ci >"$work/mlm-corpus.jsonl"
while read -r name _; do
	[ "$name" = name ] && continue
	PYTHONPATH=$work/mlm-$name MLM_ROOT=$work/mlm-$name "$py" -W ignore "$here/megatron-diff.py" \
		--release "$name" --mcinit "$mcinit" --corpus "$work/mlm-corpus.jsonl" \
		--out "$work/mlm-diff-$name.jsonl" "$@" 2>/dev/null | tail -n 1
done <"$top/data/megatron-versions.tsv"
