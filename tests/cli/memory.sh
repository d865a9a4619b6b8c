#!/bin/sh
# memory.sh — memory per GPU before launch (issue 42): --memory-model
# megatron is Megatron-LM's own estimate, to the byte, on the configs of
# tests/memory/megatron-main.tsv (written by tests/oracle/memory-diff.py
# from Megatron's own functions); --gpu-memory turns it into MC063, whose
# hint names a change that fits, checked here by estimating it again.
. "$srcdir/tests/cli/lib.sh"
M=$MCINIT
rows="$srcdir/tests/memory/megatron-main.tsv"

# same JSON WEIGHTS ACT: derived.memory equals Megatron's bytes, as mcinit
# writes reals (15 significant digits)
same() {
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["derived"].get("memory") or {}
w, a = float(sys.argv[2]), float(sys.argv[3])
want = {"weights_and_optimizer_bytes": w, "activation_bytes": a, "total_bytes": w + a}
bad = {k: (m.get(k), float("%.15g" % v)) for k, v in want.items() if m.get(k) != float("%.15g" % v)}
sys.exit("mcinit, Megatron: %s" % bad if bad else 0)' "$@"
}

grep -v '^#' "$rows" | tail -n +2 >"$tmp/rows"
check rows-listed test "$(wc -l <"$tmp/rows")" -ge 20
while IFS="$(printf '\t')" read -r kind world flags w a; do
	# shellcheck disable=SC2086 # the flags are words
	$M validate --world-size "$world" --memory-model megatron --format json launch.gpu_arch=90 \
		-- $flags >"$tmp/$kind.json" 2>/dev/null
	check "megatron-$kind" same "$tmp/$kind.json" "$w" "$a"
done <"$tmp/rows"

# No estimate unless asked for: derived has no memory key.
GPT="--num-layers 32 --hidden-size 4096 --num-attention-heads 32 --seq-length 4096 \
--max-position-embeddings 4096 --global-batch-size 64 --train-iters 10 --vocab-size 32000 \
--tensor-model-parallel-size 2"
# shellcheck disable=SC2086
$M validate --world-size 8 --format json -- $GPT --micro-batch-size 1 >"$tmp/plain.json" 2>/dev/null
check no-estimate-unasked python3 -c "
import json; import sys
sys.exit('memory' in json.load(open('$tmp/plain.json'))['derived'])"

# Too big for a 96 GiB GPU: an error, and the hint's change estimated again fits.
# shellcheck disable=SC2086
golden memory-too-big 1 $M validate --world-size 8 --gpu-memory 96 -- $GPT --micro-batch-size 4
# shellcheck disable=SC2086
$M validate --world-size 8 --gpu-memory 96 -- $GPT --micro-batch-size 4 >"$tmp/big.out" 2>&1
change=$(sed -n 's/.*hint: with .*(\(--[a-z-]*\)\( \([0-9]*\)\)\{0,1\}).*/\1 \3/p' "$tmp/big.out")
check hint-names-a-change test -n "$change"
# shellcheck disable=SC2086
$M validate --world-size 8 --gpu-memory 96 -- $GPT --micro-batch-size 4 $change >"$tmp/fixed.out" 2>&1
check hint-change-fits sh -c "! grep -q 'MC063' '$tmp/fixed.out'"

# Between 90% and all of it: a warning; well under: nothing.
# shellcheck disable=SC2086
$M validate --world-size 8 --gpu-memory 80 --format json -- $GPT --micro-batch-size 1 >"$tmp/w.json" 2>/dev/null
check warn-or-quiet-at-80 python3 -c "
import json, sys
d = json.load(open('$tmp/w.json'))
t = d['derived']['memory']['total_bytes'] / 2**30
codes = [g['severity'] for g in d['diagnostics'] if g['code'] == 'MC063']
want = ['warning'] if 72 < t <= 80 else ['error'] if t > 80 else []
sys.exit(0 if codes == want else 'total %.1f GiB: %s' % (t, codes))"

# What is not estimated says why; bad option values are usage errors.
golden memory-bridge-not-estimated 0 $M validate --memory-model megatron --world-size 2 \
	../../bridge/0.6.2/llama3_8b_pretrain_2gpu_h100_bf16.yaml
# shellcheck disable=SC2086
golden memory-old-release 0 $M validate --megatron-version r0.17 --memory-model megatron \
	--world-size 8 -- $GPT --micro-batch-size 1
golden memory-bad-model 64 $M validate --memory-model guess --world-size 8
golden memory-bad-gpu 64 $M validate --gpu-memory 80GB --world-size 8
finish
