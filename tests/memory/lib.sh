# tests/memory/lib.sh — sourced by the memory model's CLI tests
# (tests/cli/params.sh, tests/cli/activations.sh) after tests/cli/lib.sh.
# shellcheck shell=sh disable=SC2154 # M and tmp are tests/cli/lib.sh's

# not_counted TERM NAME WHY-PART ARGS...: validate --memory-model mcinit ARGS
# gives no derived.memory.TERM and TERM_not_estimated names WHY-PART: not
# counted, with the reason, never a number.
not_counted() {
	term=$1 name=$2 why=$3
	shift 3
	"$M" validate --memory-model mcinit --format json "$@" >"$tmp/n.json" 2>/dev/null
	check "$name" python3 -c '
import json, sys
m, term, why = json.load(open(sys.argv[1]))["derived"]["memory"], sys.argv[2], sys.argv[3]
sys.exit(0 if term not in m and why in m.get(term + "_not_estimated", "")
         else "not refused as %r: %s" % (why, m))' "$tmp/n.json" "$term" "$why"
}
