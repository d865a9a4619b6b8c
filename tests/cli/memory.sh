#!/bin/sh
# memory.sh — memory per GPU before launch (issue 42): --memory-model
# megatron is Megatron-LM's own estimate, to the byte, on the configs of
# tests/memory/megatron-main.tsv (written by tests/oracle/memory-diff.py
# from Megatron's own functions); --gpu-memory turns it into MC063, whose
# hint names a change that fits, checked here by estimating it again.
# --memory-model bridge is Megatron-Bridge 0.6.2's estimate_training_memory,
# to the byte, on the configs of tests/memory/bridge-0.6.2.tsv (written by
# tests/oracle/bridge/memory_diff.py from Bridge's own function).
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

# --moe-layer-freq as a list expression, as Megatron-LM's parser evals it:
# the estimate of its list (it was "not estimated").
MOE="--num-layers 8 --hidden-size 512 --num-attention-heads 8 --seq-length 1024 \
--max-position-embeddings 1024 --micro-batch-size 1 --global-batch-size 128 --train-iters 10 \
--vocab-size 32000 --tensor-model-parallel-size 4 --bf16 --num-experts 4 \
--expert-model-parallel-size 4 --moe-router-topk 2 --moe-ffn-hidden-size 128 --moe-grouped-gemm"
for f in '([1]*3+[0])*2' '[1,1,1,0,1,1,1,0]'; do
	# shellcheck disable=SC2086
	$M validate --world-size 16 --memory-model megatron --format json -- $MOE --moe-layer-freq "$f" \
		>"$tmp/freq-$(echo "$f" | cut -c1-2).json" 2>/dev/null
done
check moe-freq-expression python3 -c "
import json
a, b = (json.load(open('$tmp/freq-' + k + '.json'))['derived']['memory'] for k in ('([', '[1'))
assert 'total_bytes' in a and a == b, (a, b)"

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

# Bridge: each row's overrides merged over its recipe dump (a later input
# merges over an earlier one, as Bridge's --config-file does), every figure
# estimate_training_memory returns equal to Bridge's as mcinit writes reals.
bridge_same() {
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["derived"].get("memory") or {}
want = json.loads(sys.argv[2])
r = lambda v: float("%.15g" % v)
bad = [k for k in ("weights_and_optimizer_bytes", "activation_bytes", "total_bytes",
                   "total_parameters") if m.get(k) != r(want[k])]
got = m.get("components") or []
bad += ["components"] if len(got) != len(want["components"]) else []
bad += ["%s.%s" % (w["name"], k) for w, g in zip(want["components"], got)
        for k, v in w.items() if g.get(k) != (v if k == "name" else r(v))]
lines = open(sys.argv[3]).read().splitlines()
bad += ["assumptions"] if m.get("assumptions") != [lines[i] for i in want["assumptions"]] else []
sys.exit("mcinit %s differs from Bridge in %s" % (json.dumps(m)[:400], bad) if bad else 0)' "$@"
}
# the overrides {"model.x": v, ...} as a file of sections
nest() {
	python3 -c '
import json, sys
d = {}
for k, v in json.loads(sys.argv[1]).items():
    s, n = k.split(".", 1)
    d.setdefault(s, {})[n] = v
print(json.dumps(d, indent=1))' "$1"
}
grep -v '^#' "$srcdir/tests/memory/bridge-0.6.2.tsv" | tail -n +2 >"$tmp/brows"
check bridge-rows-listed test "$(wc -l <"$tmp/brows")" -ge 20
i=0
while IFS="$(printf '\t')" read -r base world ov want; do
	i=$((i + 1))
	nest "$ov" >"$tmp/b$i.yaml"
	$M validate --world-size "$world" --memory-model bridge --format json \
		"$srcdir/tests/bridge/0.6.2/$base" "$tmp/b$i.yaml" >"$tmp/b$i.json" 2>/dev/null
	check "bridge-$i-${base%%_pretrain*}" bridge_same "$tmp/b$i.json" "$want" \
		"$srcdir/tests/memory/bridge-0.6.2-assumptions.txt"
done <"$tmp/brows"

# --gpu-memory alone estimates a ConfigContainer by Bridge's model; too big,
# an error whose hint names a Bridge override, and with it the same estimate fits.
B8=../../bridge/0.6.2/llama3_8b_pretrain_2gpu_h100_bf16.yaml
golden memory-bridge-too-big 1 $M validate --world-size 8 --gpu-memory 48 "$B8"
(cd "$srcdir/tests/cli/inputs" && $M validate --world-size 8 --gpu-memory 48 "$B8") >"$tmp/bbig.out" 2>&1
bchange=$(sed -n 's/.*hint: with .*(\([a-z_]*\.[a-z_]*=[a-z0-9]*\)).*/\1/p' "$tmp/bbig.out")
check bridge-hint-names-an-override test -n "$bchange"
(cd "$srcdir/tests/cli/inputs" && $M validate --world-size 8 --gpu-memory 48 "$B8" "$bchange") \
	>"$tmp/bfixed.out" 2>&1
check bridge-hint-change-fits sh -c "! grep -q 'MC063' '$tmp/bfixed.out'"

# What is not estimated says why; bad option values are usage errors.
golden memory-bridge-not-estimated 0 $M validate --memory-model megatron --world-size 2 \
	../../bridge/0.6.2/llama3_8b_pretrain_2gpu_h100_bf16.yaml
# shellcheck disable=SC2086
golden memory-old-release 0 $M validate --megatron-version r0.17 --memory-model megatron \
	--world-size 8 -- $GPT --micro-batch-size 1
# Bridge's estimate: not for Megatron-LM's flags, Bridge 0.5.1 (its estimator
# counts otherwise), a hybrid (Mamba) model, or a vocabulary known only
# once the tokenizer loads; each says why.
# shellcheck disable=SC2086
golden memory-bridge-flags 0 $M validate --memory-model bridge --world-size 8 -- $GPT \
	--micro-batch-size 1
golden memory-bridge-051 0 $M validate --bridge-version 0.5 --memory-model bridge --world-size 2 \
	../../bridge/0.5.1/llama3_8b_pretrain.yaml
golden memory-bridge-hybrid 0 $M validate --memory-model bridge --world-size 2 \
	../../bridge/0.6.2/nemotronh_8b_pretrain_2gpu_h100_bf16.yaml
golden memory-bridge-tokenizer 0 $M validate --memory-model bridge --world-size 8 \
	../../bridge/0.6.2/qwen3_30b_a3b_pretrain_8gpu_h100_bf16.yaml
golden memory-bad-model 64 $M validate --memory-model guess --world-size 8
golden memory-bad-gpu 64 $M validate --gpu-memory 80GB --world-size 8
finish
