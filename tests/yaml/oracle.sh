#!/bin/sh
# oracle.sh — every YAML file under tests/yaml/cases is read by mcinit's YAML
# loader exactly as Megatron-Bridge's loader (OmegaConf) reads it: the same
# values and types (int, float, bool, null, string), and refused (exit 1 or
# 65) where OmegaConf refuses it.  Skipped without python3's omegaconf.
. "$srcdir/tests/cli/lib.sh"
: "${YAML_DUMP:?YAML_DUMP must point at tests/yaml/yaml-dump}"
python3 -c 'import omegaconf' 2>/dev/null || skip_all "python3 omegaconf not installed"

same() {
	python3 -c 'import json, sys
def same(x, y):
    if type(x) is not type(y):
        return False
    if isinstance(x, dict):
        return x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, list):
        return len(x) == len(y) and all(map(same, x, y))
    return x == y
sys.exit(0 if same(json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))) else 1)' "$1" "$2"
}

for f in "$srcdir"/tests/yaml/cases/*.yaml; do
	name=oracle-$(basename "$f" .yaml)
	mine=0 theirs=0
	"$YAML_DUMP" "$f" >"$tmp/mine" 2>"$tmp/mine.err" || mine=$?
	python3 "$srcdir/tests/yaml/oracle.py" "$f" >"$tmp/theirs" 2>"$tmp/theirs.err" || theirs=$?
	if [ "$theirs" -ne 0 ] && [ "$mine" -eq 0 ]; then
		fail "$name" "OmegaConf refuses it, mcinit reads it" "$tmp/theirs.err"
	elif [ "$theirs" -ne 0 ]; then
		pass "$name"
	elif [ "$mine" -ne 0 ]; then
		fail "$name" "OmegaConf reads it, mcinit refuses it" "$tmp/mine.err"
	elif ! same "$tmp/mine" "$tmp/theirs"; then
		cat "$tmp/mine" "$tmp/theirs" >"$tmp/both"
		fail "$name" "values differ (mcinit, then OmegaConf):" "$tmp/both"
	else
		pass "$name"
	fi
done
finish
