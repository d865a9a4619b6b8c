#!/bin/sh
# Two hosts for real: two network namespaces joined by a veth pair, one
# `mcinit run --nnodes 2` launcher in each, meeting through the store that
# node 0's launcher serves on its own address.  Needs root and iproute2's
# `ip netns` (skipped otherwise).
. "$srcdir/tests/cli/lib.sh"
unset MASTER_ADDR MASTER_PORT MCINIT_STORE_TOKEN MCINIT_LAUNCHED 2>/dev/null || true
a="mcinit-a-$$" b="mcinit-b-$$"
# The first `ip netns add' on a machine bind-mounts /run/netns onto itself
# and leaves it there; in a chroot that mount pins the root.  Undo it when
# this test made it.
netns_mounted() {
	awk '$5 == "/run/netns" { found = 1 } END { exit !found }' /proc/self/mountinfo
}
had_mount=no
netns_mounted && had_mount=yes
if [ "$(id -u)" != 0 ] || ! command -v ip >/dev/null 2>&1 || ! ip netns add "$a" 2>/dev/null; then
	skip_all "needs root and ip netns (iproute2)"
fi
# `ip netns exec` remounts / as a slave, which a chroot (whose / is no
# mount point) refuses.
if ! ip netns exec "$a" true 2>/dev/null; then
	ip netns delete "$a" 2>/dev/null
	[ "$had_mount" = yes ] || umount /run/netns 2>/dev/null
	skip_all "ip netns exec does not work here (a chroot?)"
fi
cleanup() {
	ip netns delete "$a" 2>/dev/null
	ip netns delete "$b" 2>/dev/null
	if [ "$had_mount" = no ] && [ -z "$(ls -A /run/netns 2>/dev/null)" ]; then
		umount /run/netns 2>/dev/null
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
ip netns add "$b"
ip link add "va$$" type veth peer name "vb$$"
ip link set "va$$" netns "$a"
ip link set "vb$$" netns "$b"
ip -n "$a" addr add 10.231.0.1/24 dev "va$$"
ip -n "$b" addr add 10.231.0.2/24 dev "vb$$"
for n in "$a" "$b"; do
	ip -n "$n" link set lo up
done
ip -n "$a" link set "va$$" up
ip -n "$b" link set "vb$$" up
check netns-hosts-reach-each-other ip netns exec "$b" sh -c 'cat </dev/null >/dev/tcp/10.231.0.1/1 2>/dev/null; true'

M=$MCINIT
J=topology-model.json
slow=1
if ldd "$MCINIT" 2>/dev/null | grep -q 'libasan\|libubsan'; then
	slow=10
fi
T="timeout -k 5 $((60 * slow))"
L="--allow-no-cuda --nnodes 2 --nproc-per-node 2 --master-addr 10.231.0.1 --master-port 29511 --timeout $((20 * slow)) $J"
check netns-two-hosts sh -c "
	MCINIT_STORE_TOKEN=netns-$$ ip netns exec $b $T $M run --node-rank 1 $L >$tmp/b.out 2>&1 &
	MCINIT_STORE_TOKEN=netns-$$ ip netns exec $a $T $M run --node-rank 0 $L --format=json >$tmp/a.json 2>$tmp/a.err
	ra=\$?; wait %1; rb=\$?
	cat $tmp/a.err $tmp/b.out
	[ \$ra = 0 ] && [ \$rb = 0 ] && python3 -c 'import json; d = json.load(open(\"$tmp/a.json\")); assert d[\"ok\"] and len(d[\"ranks\"]) == 4, d'"
# Node 1 alone: its ranks cannot reach a store and name rank 0's absence.
check netns-node0-missing sh -c "
	ip netns exec $b $T $M run --node-rank 1 --allow-no-cuda --nnodes 2 --nproc-per-node 2 \
		--master-addr 10.231.0.1 --master-port 29512 --timeout 2 $J >$tmp/c.out 2>&1
	rc=\$?; cat $tmp/c.out; [ \$rc = 75 ] && grep -q 'rank 0 never arrived' $tmp/c.out"
finish
