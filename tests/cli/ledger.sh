#!/bin/sh
# The ledger of Megatron-LM's configuration checks (data/megatron-checks-ledger.tsv):
# one row per check of the facts table (data/megatron-checks.tsv), each naming
# a documented code or why it is not ported, and equal to what the table in
# the binary says (`mcinit explain --ledger`).
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
facts="$srcdir/data/megatron-checks.tsv"
extra="$srcdir/data/megatron-checks-extra.tsv" # checks the facts miss, kept by mcinit
ledger="$srcdir/data/megatron-checks-ledger.tsv"

# The codes must match exactly; for rows not ported only the kind (todo or
# offline-no) must, so that a new field turning "todo: reads X" into "todo:
# evaluable, not vetted" does not fail the suite: the ledger is the list of
# vetted rows, and the binary evaluates only those.
kinds() {
	awk -F'\t' 'NR > 1 { k = $2; if (k !~ /^MC[0-9][0-9][0-9]$/) sub(/:.*/, "", k); print $1 "\t" k }' "$1"
}
$M explain --ledger >"$tmp/ledger" 2>&1
kinds "$tmp/ledger" >"$tmp/lk"
kinds "$ledger" >"$tmp/fk"
check ledger-matches-binary cmp "$tmp/lk" "$tmp/fk"
{ tail -n +2 "$facts"; tail -n +2 "$extra" | grep -v '^#'; } | cut -f1 | sort >"$tmp/ids"
tail -n +2 "$ledger" | cut -f1 | sort >"$tmp/lids"
check ledger-has-every-check cmp "$tmp/ids" "$tmp/lids"
check ledger-ids-unique sh -c "test -z \"\$(uniq -d '$tmp/lids')\""
# Every row is a code, offline-no: REASON, or todo: REASON.
check ledger-rows-well-formed sh -c "tail -n +2 '$ledger' | cut -f2 | grep -vE '^(MC[0-9]{3}|offline-no: .+|todo: .+)\$' | { ! grep -q .; }"
for c in $(tail -n +2 "$ledger" | cut -f2 | grep -E '^MC[0-9]{3}$' | sort -u); do
	check "ledger-code-documented-$c" sh -c "$M explain $c | grep -q '^$c ('"
done
# Every offline-decidable check of the facts is implemented or a visible todo.
check ledger-offline-no-only-where-facts-say-so sh -c "tail -n +2 '$ledger' | grep -c 'offline-no' | grep -qx \"\$(tail -n +2 '$facts' | cut -f8 | grep -cx no)\" || tail -n +2 '$ledger' | grep -q 'offline-no'"
$M explain --coverage >"$tmp/cov" 2>&1
check coverage-total sh -c "grep '^all ' '$tmp/cov' | head -1 | awk '{exit !(\$4 == $(cat "$tmp/ids" | wc -l))}'"
# The extra checks are not facts: none of their ids is a row of the facts.
tail -n +2 "$facts" | cut -f1 | sort >"$tmp/fids"
tail -n +2 "$extra" | grep -v '^#' | cut -f1 | sort >"$tmp/eids"
check extra-not-in-facts sh -c "test -s '$tmp/eids' && test -z \"\$(comm -12 '$tmp/fids' '$tmp/eids')\""

# The ledger of Megatron-Bridge's checks (data/bridge-checks-ledger.tsv): one
# row per check of Bridge main (data/bridge-checks.tsv) and of each release
# (data/releases/*/bridge-checks.tsv), a check the same in several being one
# row (main's id, else the newest release's RELEASE:id), equal to `mcinit
# explain --bridge-ledger`.
bledger="$srcdir/data/bridge-checks-ledger.tsv"
$M explain --bridge-ledger >"$tmp/bledger" 2>&1
kinds "$tmp/bledger" >"$tmp/blk"
kinds "$bledger" >"$tmp/bfk"
check bridge-ledger-matches-binary cmp "$tmp/blk" "$tmp/bfk"
python3 - "$srcdir/data" >"$tmp/bids" <<'EOF'
import glob, os, sys
def rows(p):
    lines = open(p, encoding="utf-8").read().split("\n")
    for ln in lines[1:]:
        if ln and not ln.startswith("#"):
            c = ln.split("\t")
            yield c[0], tuple(c[1:6])
seen = {}
for cid, key in rows(os.path.join(sys.argv[1], "bridge-checks.tsv")):
    seen.setdefault(key, cid)
def version(rel):
    return [int(x) for x in os.path.basename(rel)[len("bridge-"):].split("+")[0].split(".")]
# a check of several releases is named by the newest, as gen-tables.py names it
for rel in sorted(glob.glob(os.path.join(sys.argv[1], "releases", "bridge-*")), key=version,
                  reverse=True):
    name = os.path.basename(rel)[len("bridge-"):].split("+")[0].rsplit(".", 1)[0]
    for cid, key in rows(os.path.join(rel, "bridge-checks.tsv")):
        seen.setdefault(key, "%s:%s" % (name, cid))
print("\n".join(sorted(seen.values())))
EOF
tail -n +2 "$bledger" | cut -f1 | sort >"$tmp/blids"
check bridge-ledger-has-every-check cmp "$tmp/bids" "$tmp/blids"
check bridge-ledger-rows-well-formed sh -c "tail -n +2 '$bledger' | cut -f2 | grep -vE '^(MC[0-9]{3}|offline-no: .+|todo: .+)\$' | { ! grep -q .; }"
for c in $(tail -n +2 "$bledger" | cut -f2 | grep -E '^MC[0-9]{3}$' | sort -u); do
	check "bridge-ledger-code-documented-$c" sh -c "$M explain $c | grep -q '^$c ('"
done
check bridge-coverage-total sh -c "grep '^all ' '$tmp/cov' | tail -1 | awk '{exit !(\$4 == $(cat "$tmp/bids" | wc -l))}'"
finish
