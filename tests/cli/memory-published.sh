#!/bin/sh
# memory-published.sh — the published measured peaks of
# tests/memory/published.tsv against mcinit's figure (issue 42): every row
# names its source and its flags, and mcinit, run again on the row's flags,
# prints the figure the row records (so the table cannot drift from the
# program unnoticed).  mcinit/measured is printed for each row as a comment:
# it is what the table shows, not a pass or fail.
. "$srcdir/tests/cli/lib.sh"
M=$MCINIT
table="$srcdir/tests/memory/published.tsv"
dir="$srcdir/tests/memory/published"

# The header is the first line that is not a comment; check it, so a moved
# column fails here rather than reading one column for another.
grep -v '^#' "$table" >"$tmp/all"
head -n 1 "$tmp/all" >"$tmp/header"
printf 'id\tsource\tmeasured\trank\tmeasured_gib\tquoted\tsource_estimate\tflags\tworld_size\tmcinit_bytes\n' >"$tmp/want"
check header cmp "$tmp/want" "$tmp/header"
tail -n +2 "$tmp/all" >"$tmp/rows"
check rows-listed test "$(wc -l <"$tmp/rows")" -ge 8

# row ID FIELDS...: what a row needs before mcinit runs: a source that is an
# address, a kind of measurement the README defines, a measured figure, the
# source's words for it, a flags file that exists, a world size.
row() {
	python3 -c '
import re, sys
_, src, kind, rank, gib, quoted, est, flags, world, mine = sys.argv[1:11]
bad = []
if not re.fullmatch(r"https://\S+", src): bad.append("source %r is not an address" % src)
if kind not in ("allocated", "oom-allocated", "peak"): bad.append("measured %r" % kind)
if not rank: bad.append("no rank")
try:
    if float(gib) <= 0: bad.append("measured_gib %s" % gib)
except ValueError: bad.append("measured_gib %r" % gib)
if not quoted: bad.append("no quoted figure")
if not est: bad.append("no source_estimate (\"-\" for none)")
if not re.fullmatch(r"[a-z0-9.-]+\.flags", flags): bad.append("flags %r" % flags)
if not re.fullmatch(r"[1-9][0-9]*", world): bad.append("world_size %r" % world)
if mine != "-" and not re.fullmatch(r"[0-9]+(\.[0-9]*)?", mine): bad.append("mcinit_bytes %r" % mine)
sys.exit("; ".join(bad) if bad else 0)' "$@"
}

# same JSON BYTES: derived.memory.total_bytes is BYTES; for BYTES "-",
# mcinit gives no figure and says why (derived.memory.not_estimated).
same() {
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["derived"].get("memory") or {}
got = m.get("total_bytes")
if sys.argv[2] == "-":
    sys.exit(0 if got is None and m.get("not_estimated") else "mcinit now estimates: %s" % m)
want = float(sys.argv[2])
sys.exit(0 if got == want else "mcinit now %r, the table %r: %s" % (got, want, m))' "$@"
}

# ratio ID JSON BYTES GIB KIND RANK: the row as a TAP comment.
ratio() {
	python3 -c '
import json, sys
id, js, mine, gib, kind, rank = sys.argv[1:7]
gib = float(gib)
if mine == "-":
    why = (json.load(open(js))["derived"].get("memory") or {}).get("not_estimated")
    print("# %s: mcinit no figure (%s) / measured %.2f GiB (%s, rank %s)" % (id, why, gib, kind, rank))
else:
    mine = float(mine) / 2**30
    print("# %s: mcinit %.2f GiB / measured %.2f GiB (%s, rank %s) = %.3f"
          % (id, mine, gib, kind, rank, mine / gib))' "$@"
}

tab=$(printf '\t')
while IFS="$tab" read -r id src kind rank gib quoted est flags world mine; do
	check "$id-row" row "$id" "$src" "$kind" "$rank" "$gib" "$quoted" "$est" "$flags" \
		"$world" "$mine"
	if [ ! -f "$dir/$flags" ]; then
		fail "$id-flags" "no file tests/memory/published/$flags"
		continue
	fi
	# shellcheck disable=SC2046 # the flags are words, one flag a line
	$M validate --world-size "$world" --memory-model megatron --format json \
		-- $(grep -v '^#' "$dir/$flags") >"$tmp/$id.json" 2>"$tmp/$id.err"
	check "$id-mcinit" same "$tmp/$id.json" "$mine"
	ratio "$id" "$tmp/$id.json" "$mine" "$gib" "$kind" "$rank"
done <"$tmp/rows"

# Every flags file is some row's: none left behind when a row goes.
for f in "$dir"/*.flags; do
	b=${f##*/}
	check "used-$b" grep -q "$tab$b$tab" "$tmp/rows"
done
finish
