#!/bin/sh
# Hostile inputs (issue 36): whatever a file holds or is, validate and
# topology end in time with a clear message, never crash, never block, and
# nothing from the input reaches the terminal raw.  Each case runs under
# `timeout`, so a regression fails instead of hanging the suite.
. "$srcdir/tests/cli/lib.sh"
TO="timeout $((60 * $(slowdown)))"
V="$TO $MCINIT validate --world-size 8"
FX=../../fixtures

# A FIFO or a device named as an input: refused (exit 66) without open()
# blocking on a FIFO that has no writer.
for ext in json yaml sh py; do
	mkfifo "$tmp/fifo.$ext"
	check "fifo-$ext-refused" sh -c "$V '$tmp/fifo.$ext' >'$tmp/o' 2>&1; test \$? -eq 66 &&
		grep -q 'fifo.$ext: a FIFO (named pipe), not a regular file' '$tmp/o'"
done
ln -s /dev/zero "$tmp/zero.json"
check device-refused sh -c "$V '$tmp/zero.json' >'$tmp/o' 2>&1; test \$? -eq 66 &&
	grep -q 'zero.json: a character device, not a regular file' '$tmp/o'"
mkdir "$tmp/dir.json"
check directory-refused sh -c "$V '$tmp/dir.json' >'$tmp/o' 2>&1; test \$? -eq 66 &&
	grep -q 'dir.json: a directory, not a regular file' '$tmp/o'"
# A script that sources a FIFO: the sourced file is refused, not waited for.
mkfifo "$tmp/env-fifo.sh"
printf '#!/bin/bash\nsource %s\ntorchrun pretrain_gpt.py --num-layers 2\n' "$tmp/env-fifo.sh" >"$tmp/sources-fifo.sh"
check sourced-fifo-not-waited-for sh -c "$V '$tmp/sources-fifo.sh' >'$tmp/o' 2>&1; test \$? -ne 124"
TOPO="$TO $MCINIT topology --world-size 8 topology-model.json model.tensor_model_parallel_size=4 --nproc-per-node 4"
mkfifo "$tmp/fifo.xml"
check hwloc-xml-fifo-refused sh -c "$TOPO --hwloc-xml '$tmp/fifo.xml' >'$tmp/o' 2>&1; test \$? -eq 66 &&
	grep -q 'fifo.xml: a FIFO (named pipe), not a regular file' '$tmp/o'"

# The hwloc XML is read once: hwloc gets the bytes mcinit checked, not the
# path to open again (where another file could be by then).
if command -v strace >/dev/null 2>&1 && strace -o /dev/null true 2>/dev/null; then
	# LeakSanitizer cannot run under ptrace: off for this one run.
	check hwloc-xml-read-once sh -c "strace -f -e trace=open,openat -o '$tmp/trace' env ASAN_OPTIONS=\${ASAN_OPTIONS:+\$ASAN_OPTIONS:}detect_leaks=0 $TOPO --hwloc-xml $FX/node4-1s.xml >'$tmp/o' 2>&1 &&
		n=\$(grep -c 'node4-1s.xml' '$tmp/trace') && echo \"opened \$n times\" && test \"\$n\" -eq 1"
else
	skip hwloc-xml-read-once "no working strace here"
fi

# Control bytes and newlines from an input are escaped in text output: no
# raw control byte reaches the terminal and no line is forged.  The keys,
# flags and file names below hold ESC, a newline, a C1 CSI (U+009B) and a
# byte that is not UTF-8.
forged='other.sh:1:1: error[MC999]: forged'
printf '{"model": {"num_la\\u001b[31myers\\n%s": 2, "x\\u009b2J": 1}}' "$forged" >"$tmp/esc.json"
printf '#!/bin/bash\ntorchrun pretrain_gpt.py --num-lay\033[31mers 2 $'"'"'--x\\n%s'"'"' --y\377\n' "$forged" >"$tmp/esc.sh"
printf 'model:\n  "a\\e[2Jb\\n%s": 1\n' "$forged" >"$tmp/esc.yaml"
printf '{"a": \033[2J\n%s\n' "$forged" >"$tmp/esc-name
$forged.json"
# raw: the output holds a control byte other than newline, a C1 control in
# UTF-8, or a byte that is not UTF-8; forged: a line starts with the forged
# text.
cat >"$tmp/clean.py" <<'PY'
import re, sys
b = open(sys.argv[1], 'rb').read()
bad = re.search(rb'[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]', b)
try:
    b.decode('utf-8')
except UnicodeDecodeError:
    bad = True
forged = any(l.startswith(b'other.sh:1:1') for l in b.split(b'\n'))
escaped = b'\\e' in b and b'\\n' in b
print('raw control byte' if bad else 'clean', 'forged line' if forged else 'no forged line',
      'escaped' if escaped else 'NOT escaped')
sys.exit(1 if bad or forged or not escaped else 0)
PY
for f in esc.json esc.sh esc.yaml; do
	check "escaped-$f" sh -c "$V '$tmp/$f' >'$tmp/o' 2>&1; test \$? -ne 124 && python3 '$tmp/clean.py' '$tmp/o'"
done
check escaped-file-name-and-error sh -c "$V \"\$(printf '%s/esc-name\\n%s.json' '$tmp' '$forged')\" >'$tmp/o' 2>&1; test \$? -eq 65 && python3 '$tmp/clean.py' '$tmp/o'"
# --format json escapes by itself: the key comes back whole.
check escaped-json-output-intact sh -c "$V --format json '$tmp/esc.json' >'$tmp/o' 2>/dev/null; python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert any(\"\\x1b[31myers\\n\" in g[\"message\"] for g in d[\"diagnostics\"]), d
' '$tmp/o'"

# Deep nesting: refused with the place where the limit was passed (exit 65),
# never a stack overflow, and never minutes inside libyaml (200 KB of `[`
# took 60 s before the depth was checked as libyaml reads).
Q="timeout $((10 * $(slowdown))) $MCINIT validate --world-size 8"
python3 -c "
import sys
d = sys.argv[1]
open(d + '/deep-flow.yaml', 'w').write('[' * 200000)
open(d + '/deep-map.yaml', 'w').write('{a: ' * 100000)
open(d + '/deep-block.yaml', 'w').write('- ' * 100000 + 'x\n')
with open(d + '/keys.yaml', 'w') as f:
    for i in range(160000):
        f.write('k%d: 1\n' % i)
with open(d + '/anchors.yaml', 'w') as f:
    f.write('x:\n')
    for i in range(100000):
        f.write('  k%d: &a%d 1\n' % (i, i))
    f.write('y: *a99999\n')
" "$tmp"
for f in deep-flow deep-map deep-block; do
	check "yaml-$f-refused" sh -c "$Q '$tmp/$f.yaml' >'$tmp/o' 2>&1; rc=\$?; cat '$tmp/o'; test \$rc -eq 65 &&
		grep -q '$f.yaml:1:[0-9]*: YAML nested more than 256 levels deep' '$tmp/o'"
done
# 160,000 keys: duplicates are looked up in a hash, not a scan (35 s).
check yaml-many-keys-linear sh -c "$Q '$tmp/keys.yaml' >'$tmp/o' 2>&1; test \$? -ne 124"
check yaml-many-anchors-linear sh -c "$Q '$tmp/anchors.yaml' >'$tmp/o' 2>&1; test \$? -ne 124"

# 160,000 unknown keys in a section: each is still an MC003 with its
# did-you-mean, but the section's candidates are made once (each key made
# them again: 21 s).
python3 -c "
import json, sys
json.dump({'model': {'k%d' % i: 1 for i in range(160000)}}, open(sys.argv[1], 'w'))
" "$tmp/unknown-keys.json"
check json-many-unknown-keys-linear sh -c "$Q '$tmp/unknown-keys.json' >'$tmp/o' 2>&1; rc=\$?; test \$rc -eq 1 &&
	test \$(grep -c 'error\[MC003\]: unknown key' '$tmp/o') -eq 160000"

# The other recursive readers, 100,000 levels deep: JSON stops at jansson's
# depth with the place, a Python source and an override value are read
# without recursion (guards: these held before issue 36 too).
python3 -c "
import sys
d = sys.argv[1]
open(d + '/deep.json', 'w').write('[' * 100000 + ']' * 100000)
open(d + '/deep.py', 'w').write('import argparse\np = argparse.ArgumentParser()\n'
    'p.add_argument(\"--x\", type=bool, default=' + '(' * 100000 + '1' + ')' * 100000 + ')\n'
    'y = ' + '[' * 100000 + '\n')
" "$tmp"
check json-deep-refused sh -c "$Q '$tmp/deep.json' >'$tmp/o' 2>&1; test \$? -eq 65 &&
	grep -q 'deep.json:1:[0-9]*: malformed JSON: maximum parsing depth reached' '$tmp/o'"
check python-deep-no-crash sh -c "$Q '$tmp/deep.py' >'$tmp/o' 2>&1; rc=\$?; test \$rc -eq 1 &&
	grep -q 'deep.py:3:23: warning\[MC002\]' '$tmp/o'"
check override-deep-no-crash sh -c "$Q \"model.pipeline_model_parallel_layout=\$(python3 -c 'print(\"[\" * 100000)')\" >'$tmp/o' 2>&1; test \$? -eq 1"

finish
