#!/bin/sh
# memory-published.sh — the published measured peaks of
# tests/memory/published.tsv against mcinit's figure (issue 42): every row
# names its source and its flags, and mcinit, run again on the row's flags,
# prints the figure the row records (so the table cannot drift from the
# program unnoticed); the same for mcinit's own model's peak of the
# measured rank's kind (--memory-model mcinit, LOW..HIGH, or "-: " and why
# there is none).  mcinit/measured is printed for each row as a comment:
# it is what the table shows, not a pass or fail.
. "$srcdir/tests/cli/lib.sh"
M=$MCINIT
table="$srcdir/tests/memory/published.tsv"
dir="$srcdir/tests/memory/published"

# The header is the first line that is not a comment; check it, so a moved
# column fails here rather than reading one column for another.
grep -v '^#' "$table" >"$tmp/all"
head -n 1 "$tmp/all" >"$tmp/header"
printf 'id\tsource\tmeasured\trank\tmeasured_gib\tquoted\tsource_estimate\tflags\tworld_size\tmcinit_bytes\tmcinit_stage\tmcinit_peak\n' >"$tmp/want"
check header cmp "$tmp/want" "$tmp/header"
tail -n +2 "$tmp/all" >"$tmp/rows"
check rows-listed test "$(wc -l <"$tmp/rows")" -ge 8

# row ID FIELDS...: what a row needs before mcinit runs: a source that is an
# address, a kind of measurement the README defines, a measured figure, the
# source's words for it, a flags file that exists, a world size.
row() {
	python3 -c '
import re, sys
_, src, kind, rank, gib, quoted, est, flags, world, mine, stage, peak = sys.argv[1:13]
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
if not re.fullmatch(r"[0-9]+|worst", stage): bad.append("mcinit_stage %r" % stage)
if not (re.fullmatch(r"[0-9.]+\.\.[0-9.]+", peak) or re.fullmatch(r"-: \S.*", peak)):
    bad.append("mcinit_peak %r: neither LOW..HIGH nor \"-: \" and why" % peak)
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

# peak_of JSON STAGE: mcinit's own peak of STAGE's kind of rank (STAGE
# "worst": peak.worst_stage's) as the table writes it: LOW..HIGH, or "-: "
# and the terms not counted (or why there is no peak at all).
peak_of() {
	python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))["derived"].get("memory") or {}
pk, st = m.get("peak"), sys.argv[2]
if not pk:
    print("-: %s" % m.get("peak_not_estimated"))
    sys.exit(0)
s = pk["worst_stage"] if st == "worst" else int(st)
k = [r for r in pk["ranks"] if s in r["stages"]]
if len(k) != 1:
    sys.exit("stage %s: no kind of rank (stages %s)" % (st, [r["stages"] for r in pk["ranks"]]))
why = ["%s: %s" % (t, v["not_counted"]) for t, v in k[0]["terms"].items()
       if isinstance(v, dict) and "not_counted" in v]
print("-: " + "; ".join(why) if not pk["complete"] else "%r..%r" % (k[0]["low"], k[0]["high"]))' "$@"
}

# same_peak JSON STAGE PEAK: mcinit's own peak is the table's.
same_peak() {
	got=$(peak_of "$1" "$2") || return 1
	[ "$got" = "$3" ] && return 0
	echo "mcinit now $got, the table $3"
	return 1
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

# peak_ratio ID PEAK GIB STAGE: mcinit's own range against the measured
# figure as a TAP comment: low/measured..high/measured, and whether the
# measured figure falls within the range.
peak_ratio() {
	python3 -c '
import sys
id, peak, gib, st = sys.argv[1:5]
gib = float(gib)
if peak.startswith("-"):
    print("# %s: mcinit own peak none (%s) / measured %.2f GiB" % (id, peak[3:], gib))
else:
    lo, hi = (float(v) / 2**30 for v in peak.split(".."))
    where = "below" if gib < lo else "above" if gib > hi else "within"
    print("# %s: mcinit own peak %.2f..%.2f GiB (stage %s) / measured %.2f GiB = %.3f..%.3f, "
          "measured %s the range" % (id, lo, hi, st, gib, lo / gib, hi / gib, where))' "$@"
}

tab=$(printf '\t')
while IFS="$tab" read -r id src kind rank gib quoted est flags world mine stage peak; do
	check "$id-row" row "$id" "$src" "$kind" "$rank" "$gib" "$quoted" "$est" "$flags" \
		"$world" "$mine" "$stage" "$peak"
	if [ ! -f "$dir/$flags" ]; then
		fail "$id-flags" "no file tests/memory/published/$flags"
		continue
	fi
	# shellcheck disable=SC2046 # the flags are words, one flag a line
	$M validate --world-size "$world" --memory-model megatron --format json \
		-- $(grep -v '^#' "$dir/$flags") >"$tmp/$id.json" 2>"$tmp/$id.err"
	check "$id-mcinit" same "$tmp/$id.json" "$mine"
	ratio "$id" "$tmp/$id.json" "$mine" "$gib" "$kind" "$rank"
	# shellcheck disable=SC2046
	$M validate --world-size "$world" --memory-model mcinit --format json \
		-- $(grep -v '^#' "$dir/$flags") >"$tmp/$id-own.json" 2>"$tmp/$id-own.err"
	check "$id-mcinit-peak" same_peak "$tmp/$id-own.json" "$stage" "$peak"
	peak_ratio "$id" "$peak" "$gib" "$stage"
done <"$tmp/rows"

# Every flags file is some row's: none left behind when a row goes.
for f in "$dir"/*.flags; do
	b=${f##*/}
	check "used-$b" grep -q "$tab$b$tab" "$tmp/rows"
done
finish
