#!/bin/sh
# Turns data/megatron-checks.tsv (the facts: every check in Megatron-LM main's
# configuration validation, with its guard and condition as Python source) and
# data/megatron-checks-port.tsv (how mcinit ports each one where the facts
# alone do not say: a hand-written rule, a rewritten condition, a reason it
# cannot be decided offline) into the C table included by src/mchecks.c.
# The ledger (data/megatron-checks-ledger.tsv) says which table rows are
# vetted against Megatron (its implemented_by column names a code): only
# those are evaluated, so a row that becomes evaluable (a new field, a new
# resolver name) changes nothing until it is vetted and the ledger updated.
# A row's releases (port action `versions`) become a mask of enum
# mcinit_mversion bits: "r0.18,r0.19,main" names each release, "r0.18+"
# reads "r0.18 and every newer one" (the bits grow with the version); a row
# without one is in every release.
# EXTRA.tsv (optional, same columns as CHECKS.tsv) holds the checks of Megatron-LM
# that the facts do not list, kept by mcinit.
# Usage: gen-mchecks.sh CHECKS.tsv PORT.tsv LEDGER.tsv [EXTRA.tsv] > mchecks.inc
set -eu
LC_ALL=C
export LC_ALL
awk -F'\t' '
function cstr(s) { gsub(/\\/, "\\\\", s); gsub(/"/, "\\\"", s); return "\"" s "\"" }
function cnul(s) { return s == "" ? "NULL" : cstr(s) }
function vmask(id, s,   n, i, v, a, b, out) {
	if (s == "") return "MCINIT_MV_ALL"
	n = split(s, a, ",")
	out = ""
	for (i = 1; i <= n; i++) {
		v = a[i]
		if (v !~ /^(r[0-9]+\.[0-9]+|main)\+?$/) {
			print "gen-mchecks: bad release " v " in versions of " id > "/dev/stderr"; exit 1
		}
		b = toupper(v); sub(/\+$/, "", b); gsub(/\./, "", b)
		b = "MCINIT_MV_" b
		out = out (out == "" ? "" : " | ") (v ~ /\+$/ ? "(MCINIT_MV_ALL & ~(" b " - 1u))" : b)
	}
	return "(" out ")"
}
FNR == 1 { file++; next }
file == 1 && /^#/ { next }
file == 2 { vetted[$1] = ($2 ~ /^MC[0-9][0-9][0-9]$/); next }
file == 1 {
	if (!($1 in ids)) { order[n++] = $1; ids[$1] = 1 }
	if ($2 == "guard" || $2 == "cond" || $2 == "when" || $2 == "msg" || $2 == "rule" ||
	    $2 == "no" || $2 == "sev" || $2 == "versions") {
		if (($1, $2) in port) { print "gen-mchecks: two " $2 " rows for " $1 > "/dev/stderr"; exit 1 }
		port[$1, $2] = $3
		next
	}
	print "gen-mchecks: unknown action " $2 " for " $1 > "/dev/stderr"; exit 1
}
file >= 3 && /^#/ { next }
file >= 3 {
	seen[$1] = 1
	g = (($1, "guard") in port) ? port[$1, "guard"] : $4
	c = (($1, "cond") in port) ? port[$1, "cond"] : $5
	m = (($1, "msg") in port) ? port[$1, "msg"] : $6
	printf "MCINIT_MCHECK(%s, %s, %s, %s, %s, %s, %s, %d, %s, %s, %s, %s, %s, %d)\n",
	    cstr($1), cstr($2), cstr($3), cstr(g), cstr(c), cnul((($1, "when") in port) ? port[$1, "when"] : ""),
	    cstr(m), $8 == "yes", cstr($9), cnul(port[$1, "rule"]), cnul(port[$1, "no"]),
	    cnul(port[$1, "sev"]), vmask($1, port[$1, "versions"]), vetted[$1] + 0
}
END {
	for (i = 0; i < n; i++)
		if (!(order[i] in seen)) { print "gen-mchecks: " order[i] " is not a check of the facts table" > "/dev/stderr"; exit 1 }
}' "$2" "$3" "$1" ${4:+"$4"}
