#!/bin/sh
# Turns data/megatron-flags.tsv (the facts: every Megatron-LM training flag,
# its argparse kind and arity, and which versions have it) into the C table
# included by src/mflags.c.  Rows are sorted by flag so lookups can bisect.
# Usage: gen-mflags.sh TSV > mflags.inc
set -eu
LC_ALL=C
export LC_ALL
tail -n +2 "$1" | sort -t "$(printf '\t')" -k1,1 -s | awk -F'\t' '
function cstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
{
	kind = toupper($3)
	nargs = ($3 == "value" || $3 == "legacy_type_bool") ? 1 : 0
	if ($3 == "list") nargs = ($5 == "+") ? -1 : ($5 == "*") ? -2 : $5 + 0
	v = 0
	n = split($8, vs, ",")
	for (i = 1; i <= n; i++) {
		if (vs[i] == "r0.15") v += 1
		else if (vs[i] == "r0.16") v += 2
		else if (vs[i] == "main") v += 4
	}
	printf "MCINIT_MFLAG(%s, %s, MCINIT_MK_%s, %d, %d, %s)\n", cstr($1), cstr($2), kind, nargs, v, ($7 == "" ? "NULL" : cstr($7))
}'
