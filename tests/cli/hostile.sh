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
	check hwloc-xml-read-once sh -c "strace -f -e trace=open,openat -o '$tmp/trace' $TOPO --hwloc-xml $FX/node4-1s.xml >'$tmp/o' 2>&1 &&
		n=\$(grep -c 'node4-1s.xml' '$tmp/trace') && echo \"opened \$n times\" && test \"\$n\" -eq 1"
else
	skip hwloc-xml-read-once "no working strace here"
fi

finish
