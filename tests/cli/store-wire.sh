#!/bin/sh
# TCPStore's wire against `mcinit store`, byte by byte (store-wire.py; no
# torch needed): torch 2.15's LIST_KEYS (17) and BARRIER (18), and a
# command the protocol lacks, refused with its code on stderr while the
# store goes on serving the others.  tests/interop/store-commands.sh runs
# every command through torch's own clients.
. "$srcdir/tests/cli/lib.sh"
unset MASTER_ADDR MASTER_PORT MCINIT_STORE_TOKEN MCINIT_LAUNCHED 2>/dev/null || true

M=$MCINIT
T="timeout -k 5 60"
W="$srcdir/tests/cli/store-wire.py"

$M store --host 127.0.0.1 --port 0 2>"$tmp/store.err" &
pid=$!
wait_line "$tmp/store.err" listening
P=$(sed -n 's/^mcinit store: listening on .*:\([0-9]*\)$/\1/p' "$tmp/store.err")

for c in list-keys barrier barrier-not-a-number unknown-19 unknown-200; do
	check "store-wire-$c" $T python3 "$W" "$P" "$c"
done
sleep 1.2 # the store reports refusals once a second at most
kill $pid
wait $pid 2>/dev/null
comment "$tmp/store.err"
check store-wire-unknown-logged-with-code sh -c "grep -q '^mcinit store: refused [12] request(s): unknown command 200 (TCPStore.s commands are 0 to 18, as torch 2.15 sends them): its connection dropped\$' '$tmp/store.err'"
check store-wire-unknown-both-counted sh -c "test \"\$(sed -n 's/^mcinit store: refused \([0-9]*\) request(s): unknown command.*/\1/p' '$tmp/store.err' | awk '{ n += \$1 } END { print n }')\" = 2"
check store-wire-unknown-counted sh -c "grep -q 'dropped [0-9]* ([0-9]* malformed' '$tmp/store.err'"

# The launcher's store says it too: a hand-over program that speaks a
# command the store lacks.
J="$srcdir/tests/cli/inputs/topology-model.json"
check store-wire-unknown-launcher sh -c "$T $M run --allow-no-cuda --nproc-per-node 1 '$J' -- \
	python3 -c 'import os, socket, struct, time
s = socket.create_connection((os.environ[\"MASTER_ADDR\"], int(os.environ[\"MASTER_PORT\"])))
s.sendall(bytes([0]) + struct.pack(\"<I\", 0x3C85F7CE) + bytes([77]))
assert s.recv(1) == b\"\"' >'$tmp/l.out' 2>&1; rc=\$?; grep store '$tmp/l.out'
	[ \$rc = 0 ] && grep -q '^mcinit run: store: unknown command 77 (TCPStore.s commands are 0 to 18' '$tmp/l.out'"
finish
