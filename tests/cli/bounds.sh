#!/bin/sh
# Resource bounds: inputs far larger than any job description are rejected
# quickly with a clear message (exit 65), never read for minutes or into
# gigabytes.  Each case runs under `timeout`, so a regression fails instead
# of hanging the suite.
. "$srcdir/tests/cli/lib.sh"
V="timeout $((120 * $(slowdown))) $MCINIT validate --world-size 8"

# 100 MB files (sparse: only the size matters before anything is read).
for ext in json yaml sh py; do
	truncate -s 100M "$tmp/huge.$ext"
done
for ext in json sh py; do
	check "huge-$ext-rejected" sh -c "$V '$tmp/huge.$ext' >'$tmp/o' 2>&1; test \$? -eq 65 &&
		grep -q 'huge.$ext: larger than the 16 MiB mcinit reads as one input' '$tmp/o'"
done
if $MCINIT validate "$tmp/huge.yaml" 2>&1 | grep -q 'unknown kind of input'; then
	skip huge-yaml-rejected "this build reads no YAML"
else
	check huge-yaml-rejected sh -c "$V '$tmp/huge.yaml' >'$tmp/o' 2>&1; test \$? -eq 65 &&
		grep -q 'larger than the 16 MiB' '$tmp/o'"
fi

# A 10 MB launch script, and a million-word flag list in one: too many words,
# said as the command is read (the words were all kept first: 16 MiB of them
# took 1.5 GB and 5 s; now 33 MB and 0.03 s).
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('#!/bin/bash\ntorchrun pretrain_gpt.py \\\n')
    f.write(' --lr 1e-4 \\\n' * 700000)
    f.write(' --lr 1e-4\n')
" "$tmp/ten-mb.sh"
check ten-mb-script-bounded sh -c "$V '$tmp/ten-mb.sh' >'$tmp/o' 2>&1; test \$? -eq 65 &&
	grep -q 'ten-mb.sh:2:1: a command of more than 65536 words, more than mcinit reads from a launch script' '$tmp/o'"
# The same words from an array: expanding it stops at the expansion budget;
# the flags read so far are judged and the required fields that may be
# among the rest are a warning, never "not set" errors.
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('#!/bin/bash\nARGS=(\n')
    f.write('--lr 1e-4\n' * 1000000)
    f.write(')\ntorchrun pretrain_gpt.py \${ARGS[@]}\n')
" "$tmp/ten-mb-array.sh"
check ten-mb-array-bounded sh -c "$V '$tmp/ten-mb-array.sh' >'$tmp/o' 2>&1; test \$? -eq 0 &&
	grep -q 'expansion stopped after' '$tmp/o' &&
	grep -q 'warning\[MC009\]: required fields not checked (model.num_layers.*stopped reading the launch script early' '$tmp/o' &&
	! grep -q 'MC008' '$tmp/o'"

# A sweep of 1,600 launches (nested loops): the first 256 distinct ones are
# each checked, then one note; the rest are not compared with every earlier
# launch (that took 3.9 G instructions on a fuzzed script).
python3 -c "
import sys
n = ' '.join(str(i) for i in range(1, 41))
with open(sys.argv[1], 'w') as f:
    f.write('#!/bin/bash\nfor a in %s; do\n\tfor b in %s; do\n' % (n, n))
    f.write('\t\ttorchrun --nproc_per_node 1 pretrain_gpt.py --num-layers \$a --hidden-size \$((b * 64)) --num-attention-heads 4 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1 --train-iters 1\n')
    f.write('\tdone\ndone\n')
" "$tmp/sweep.sh"
check sweep-launches-bounded sh -c "$V '$tmp/sweep.sh' >'$tmp/o' 2>&1; test \$? -eq 0 &&
	grep -q '== launch 256 of 256' '$tmp/o' && ! grep -q 'launch 257' '$tmp/o' &&
	grep -q 'more than 256 launches: the later ones are not checked' '$tmp/o'"

# Launches in nested loops (838 bytes, found by the fuzzer): the script is
# interpreted once for all its 256 launches, not once more per launch
# (6.2 s, 257 readings; now 0.09 s).  Each launch is still checked.  The
# limit is a guard against the 257 readings, far from today's time: 3 s
# (0.3 s at a load of 10), and 60 s under ASan (7.7 s at a load of 10: an
# ASan run beside three others went past the 20 s it had).
cp "$srcdir/tests/fuzz/corpus/shscan/slow-launches-in-nested-loops" "$tmp/nested.sh"
check launches-interpreted-once sh -c "timeout $(($(slowdown) > 1 ? 60 : 3)) $MCINIT validate '$tmp/nested.sh' >'$tmp/o' 2>/dev/null; test \$? -eq 1 &&
	test \$(grep -c '^== launch' '$tmp/o') -eq 256"

# Recursion of the reader: arithmetic nested in parentheses, `!` or `?:`
# 100,000 deep (a stack overflow, exit 139), and $(( nested in 50 KB, are
# an error at their place (exit 65).
python3 -c "
import sys
n = 100000
open(sys.argv[1] + '/p.sh', 'w').write('echo \$(( ' + '(' * n + '1' + ')' * n + ' ))\n')
open(sys.argv[1] + '/c.sh', 'w').write('A=1\n(( ' + '(' * n + '1' + ')' * n + ' ))\n')
open(sys.argv[1] + '/n.sh', 'w').write('echo \$(( ' + '!' * n + '1 ))\n')
open(sys.argv[1] + '/t.sh', 'w').write('echo \$(( ' + '1 ? ' * n + '1' + ' : 1' * n + ' ))\n')
open(sys.argv[1] + '/d.sh', 'w').write('echo ' + '\$((' * 12500 + '1' + '))' * 12500 + '\n')
" "$tmp"
for c in p:1:6 c:2:1 n:1:6 t:1:6; do
	f=${c%%:*}
	check "deep-arithmetic-$f" sh -c "$V '$tmp/$f.sh' >'$tmp/o' 2>&1; test \$? -eq 65 &&
		grep -q '$f.sh:${c#*:}: arithmetic nested too deeply (more than 256 levels)' '$tmp/o'"
done
check deep-arithmetic-expansions sh -c "$V '$tmp/d.sh' >'$tmp/o' 2>&1; test \$? -eq 65 &&
	grep -q 'd.sh:1:6: expansions nested too deeply (more than 64 levels)' '$tmp/o'"

# Just under the bounds, the input is read and judged: 60000 unknown flags
# are each reported (no diagnostic is lost), in bounded time.
python3 -c "
import sys
with open(sys.argv[1], 'w') as f:
    f.write('torchrun pretrain_gpt.py ' + ' '.join('--no-such-flag-%d' % i for i in range(60000)) + '\n')
" "$tmp/many.sh"
check many-unknown-flags-all-reported sh -c "$V '$tmp/many.sh' --format=json >'$tmp/o' 2>/dev/null; test \$? -eq 1 &&
	python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))[\"diagnostics\"]; n = sum(1 for g in d if g[\"code\"] == \"MC003\"); assert n == 60000, n' '$tmp/o'"
finish
