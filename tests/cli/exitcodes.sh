#!/bin/sh
# The exit statuses: src/exitcodes.h is the one table.  Every status the
# sources return is in it, every status in it (but 0 and 1) is returned
# somewhere, and --help and the README document exactly its statuses.
. "$srcdir/tests/cli/lib.sh"

table="$srcdir/src/exitcodes.h"
sed -n 's/^[[:space:]]*X(\([0-9]*\), \([A-Z_]*\), "\(.*\)")[[:space:]\\]*$/\1 \2 \3/p' "$table" >"$tmp/table"
check table-read test "$(wc -l <"$tmp/table")" -ge 8
cut -d' ' -f2 "$tmp/table" | grep '^EX_' | grep -v '^EX_OK$' | sort >"$tmp/listed"
# Every EX_ constant a source file (not a test) uses.
grep -ohE '\bEX_[A-Z]+\b' "$srcdir"/src/*.c "$srcdir"/lib/*/*.c | sort -u >"$tmp/used"
check every-returned-status-is-listed sh -c "comm -23 '$tmp/used' '$tmp/listed' | tee '$tmp/extra' | grep -q . && exit 1; exit 0"
check every-listed-status-is-returned sh -c "comm -13 '$tmp/used' '$tmp/listed' | grep . && exit 1; exit 0"

$MCINIT --help >"$tmp/help" 2>&1
# The README's paragraph that starts "Exit status".
sed -n '/^Exit status/,/^$/p' "$srcdir/README.md" | tr '\n' ' ' >"$tmp/readme-para"
while read -r value name meaning; do
	check "help-documents-$value" grep -qE "(: |; )$value $(printf '%s' "$meaning" | sed 's/[][\\.*^$()+?{}|]/\\&/g')[;.]" "$tmp/help"
done <"$tmp/table"
# The list is "V meaning; V meaning.": no stray separator at its end.
check help-list-ends-with-a-full-stop sh -c "grep '^Exit status:' '$tmp/help' | grep -q '[^;]\.\$'"
grep -oE '(^|[ ,:])[0-9]+ [a-z]' "$tmp/readme-para" | grep -oE '[0-9]+' | sort -n >"$tmp/readme"
cut -d' ' -f1 "$tmp/table" | sort -n >"$tmp/values"
check readme-lists-exactly-the-table diff -u "$tmp/values" "$tmp/readme"
# mcinit never ends by a signal of its own.  A reader that went away
# (| head) is an output error, as a full disk is: 74, not SIGPIPE's 141.
check closed-pipe-is-an-output-error sh -c "{ $MCINIT schema; echo \$? >$tmp/st; } | head -c 10 >/dev/null; test \"\$(cat $tmp/st)\" = 74"
check full-disk-is-an-output-error sh -c "$MCINIT explain MC012 >/dev/full 2>$tmp/full.err; test \$? = 74 && grep -q 'No space left' $tmp/full.err"
# An invalid WORLD_SIZE and an invalid RANK are the same failure.
check bad-world-size-and-bad-rank-agree sh -c "
	env WORLD_SIZE=abc RANK=0 timeout 20 $MCINIT run --allow-no-cuda topology-model.json >/dev/null 2>&1; a=\$?
	env WORLD_SIZE=2 RANK=abc timeout 20 $MCINIT run --allow-no-cuda topology-model.json >/dev/null 2>&1; b=\$?
	echo \"WORLD_SIZE=abc: \$a, RANK=abc: \$b\"; [ \$a = 65 ] && [ \$b = 65 ]"
# A launcher variable's bytes are quoted escaped, in the failure line and
# in the phase's progress line alike: no escape sequence reaches the terminal.
check bad-rank-escaped sh -c "
	env WORLD_SIZE=2 RANK=\"\$(printf '1\\033[31m')\" timeout 20 $MCINIT run --allow-no-cuda topology-model.json >$tmp/esc.out 2>&1
	cat $tmp/esc.out; ! grep -q \"\$(printf '\\033')\" $tmp/esc.out && grep -q 'RANK=.1\\\\e\\[31m' $tmp/esc.out"
# Out of memory has its own status, whichever allocation fails (mcinit's or
# jansson's): under a range of address-space limits a large config either
# fits or ends with 3 and says so, never a parse error or a signal.
if ldd "$MCINIT" 2>/dev/null | grep -q 'libasan'; then
	skip out-of-memory-has-its-own-status "ASan reserves more address space than any ulimit -v here"
else
	python3 -c "import json; print(json.dumps({'env_vars': {'K%d' % i: 'v' * 10 for i in range(600000)}}))" >"$tmp/big.json"
	check out-of-memory-has-its-own-status sh -c "
		n3=0
		for v in 30000 60000 90000 120000 160000 200000 400000; do
			( ulimit -v \$v; exec $MCINIT validate $tmp/big.json ) >/dev/null 2>$tmp/oom.err; rc=\$?
			echo \"ulimit -v \$v: \$rc \$(tail -n 1 $tmp/oom.err)\"
			case \$rc in
			0 | 1) ;;
			3) grep -q '^mcinit: out of memory' $tmp/oom.err || exit 1; n3=\$((n3 + 1)) ;;
			*) exit 1 ;;
			esac
		done
		[ \$n3 -gt 0 ]"
fi
for cmd in validate topology schema explain complete; do
	check "$cmd-help-has-exit-codes" sh -c "$MCINIT $cmd --help | grep -q 'Exit status: 0 success'"
done
finish
