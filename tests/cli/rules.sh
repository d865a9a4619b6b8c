#!/bin/sh
# CLI tests for the cross-field rules, repairs and derived values.
#
# Each directory tests/configs/<CODE>/ holds cases for one diagnostic code:
#   fail*.json / fail*.yaml / fail*.args
#                             must report CODE; if CODE is an error, it must be
#                             the only error (exit 1), else there is no error
#                             (exit 0).
#   pass*.json / pass*.yaml / pass*.args
#                             the passing neighbour: no CODE, no error, exit 0.
# A .json or .yaml case is `mcinit validate CASE.json`; a .args case holds the words
# after `mcinit validate` (options, overrides, `--` and Megatron flags).  An
# optional CASE.env holds words for env(1) (VAR=VALUE or -u VAR).  CASE.out is
# the golden text output (diagnostics, derived table, exit status), compared
# exactly; UPDATE_GOLDEN=1 rewrites it.
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
cfg="$srcdir/tests/configs"
ex="$srcdir/examples"

# The world size and GPU facts must come from the cases only.
unset WORLD_SIZE SLURM_NTASKS OMPI_COMM_WORLD_SIZE CUDA_VISIBLE_DEVICES
CUDA_DEVICE_MAX_CONNECTIONS=1
export CUDA_DEVICE_MAX_CONNECTIONS

# run DIR CASE [OPTION...]: mcinit validate on one case, output in $tmp/out,
# exit status in $rc.
run() {
	dir=$1 cs=$2
	shift 2
	stem=${cs%.*}
	envs=
	[ -f "$dir/$stem.env" ] && envs=$(cat "$dir/$stem.env")
	if [ "${cs##*.}" = args ]; then
		words=$(cat "$dir/$cs")
	else
		words=$cs
	fi
	rc=0
	# Split the words, but do not glob: layout strings hold * and |.
	set -f
	# shellcheck disable=SC2086 # word splitting is the point
	(cd "$dir" && env $envs $M validate "$@" $words) >"$tmp/out" 2>&1 || rc=$?
	set +f
}

# props CODE KIND: the JSON output in $tmp/out agrees with the case's kind.
props() {
	python3 - "$1" "$2" "$rc" "$tmp/out" <<'EOF'
import json, sys
code, kind, rc, path = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
diags = json.load(open(path))["diagnostics"]
codes = {g["code"] for g in diags}
errors = {g["code"] for g in diags if g["severity"] == "error"}
sevs = {g["severity"] for g in diags if g["code"] == code}
if kind == "fail":
    assert code in codes, "%s not reported; got %s" % (code, sorted(codes))
    assert errors <= {code}, "other errors: %s" % sorted(errors - {code})
    want = 1 if "error" in sevs else 0
    assert rc == want, "exit %d, expected %d" % (rc, want)
    # Repairs and derived-value notes are never silent and never errors.
    if "MC100" <= code < "MC200":
        want_sev = {"warning"} if code == "MC108" else {"note"}
        assert sevs == want_sev, "%s reported as %s" % (code, sorted(sevs))
else:
    assert code not in codes, "%s reported: %s" % (code, [g["message"] for g in diags if g["code"] == code])
    assert not errors, "errors: %s" % sorted(errors)
    assert rc == 0, "exit %d" % rc
EOF
}

# one DIR CODE CASE: the golden text output and the JSON properties.
one() {
	dir=$1 code=$2 cs=$3 stem=${3%.*}
	kind=pass
	case $stem in
	fail*) kind=fail ;;
	esac
	name="$code/$stem"
	run "$dir" "$cs"
	printf 'exit %s\n' "$rc" >>"$tmp/out"
	if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
		cp "$tmp/out" "$dir/$stem.out"
	fi
	if diff -u "$dir/$stem.out" "$tmp/out" >"$tmp/diff" 2>&1; then
		pass "$name"
	else
		fail "$name" "output differs from tests/configs/$name.out" "$tmp/diff"
	fi
	run "$dir" "$cs" --format=json
	if props "$code" "$kind" >"$tmp/props" 2>&1; then
		pass "$name-json"
	else
		fail "$name-json" "the JSON properties of a $kind case do not hold:" "$tmp/props"
	fi
}

ncodes=0
for dir in "$cfg"/MC*; do
	code=${dir##*/}
	ncodes=$((ncodes + 1))
	nf=0 np=0
	for f in "$dir"/*.json "$dir"/*.yaml "$dir"/*.args; do
		[ -f "$f" ] || continue
		case ${f##*/} in
		fail*) nf=$((nf + 1)) ;;
		pass*) np=$((np + 1)) ;;
		*) continue ;;
		esac
		one "$dir" "$code" "${f##*/}"
	done
	# Every code has at least one failing case and a passing neighbour.
	check "$code-has-fail-and-pass" test "$nf" -ge 1 -a "$np" -ge 1
done

# Every rule of the table has its directory (MC010-MC049: 40 rules).
check all-rules-tested sh -c "test $ncodes -ge 40 && for n in \$(seq 10 49); do test -d '$cfg/MC0'\$n || exit 1; done"

# Three independent mistakes give three errors in one run.
run "$cfg" three-mistakes.json
printf 'exit %s\n' "$rc" >>"$tmp/out"
[ "${UPDATE_GOLDEN:-0}" = 1 ] && cp "$tmp/out" "$cfg/three-mistakes.out"
check three-mistakes-golden diff -u "$cfg/three-mistakes.out" "$tmp/out"
run "$cfg" three-mistakes.json --format=json
check three-mistakes-three-errors python3 -c "
import json
d = json.load(open('$tmp/out'))['diagnostics']
e = sorted(g['code'] for g in d if g['severity'] == 'error')
assert e == ['MC012', 'MC014', 'MC030'], e
assert $rc == 1"

# The examples validate cleanly, as JSON and as Megatron-LM flags for their
# world size; both forms derive the same values.
for f in "$ex"/*.json; do
	n=${f##*/}
	n=${n%.json}
	run "$ex" "$n.json"
	check "example-$n-json-clean" sh -c "test $rc = 0 && ! grep -q 'error\\|warning' '$tmp/out'"
	run "$ex" "$n.json" --format=json
	cp "$tmp/out" "$tmp/a.json"
	w=$(python3 -c "import json; print(json.load(open('$tmp/a.json'))['derived']['world_size'])")
	check "example-$n-has-args" test -f "$ex/$n.args"
	run "$ex" "$n.args" --world-size "$w" --
	check "example-$n-args-clean" sh -c "test $rc = 0 && ! grep -q 'error\\|warning' '$tmp/out'"
	run "$ex" "$n.args" --format=json --world-size "$w" --
	check "example-$n-same-derived" python3 -c "
import json
a = json.load(open('$tmp/a.json'))['derived']
b = json.load(open('$tmp/out'))['derived']
for k in ('world_size_source',):
    a.pop(k); b.pop(k)
assert a == b, {k: (a[k], b.get(k)) for k in a if a[k] != b.get(k)}"
done

# Derived values in JSON use Megatron's attribute names.
run "$ex" llama3-70b.json --format=json
check derived-json-keys python3 -c "
import json
d = json.load(open('$tmp/out'))['derived']
want = {'data_parallel_size': 2, 'expert_data_parallel_size': 4,
        'expert_tensor_parallel_size': 4, 'virtual_pipeline_model_parallel_size': 5,
        'global_batch_size': 512, 'num_micro_batches': 256, 'ffn_hidden_size': 28672,
        'kv_channels': 128, 'sequence_parallel': True, 'layers_per_stage': [[4] * 5] * 4,
        'seq_length_multiple': 8, 'world_size': 64,
        'world_size_source': 'nnodes x nproc_per_node'}
for k, v in want.items():
    assert d[k] == v, (k, d[k], v)"
run "$ex" llama3-8b.json --format=json
check derived-json-vpp-null python3 -c "
import json
d = json.load(open('$tmp/out'))['derived']
assert d['virtual_pipeline_model_parallel_size'] is None"

# Repairs change the resolved config (and are reported, see MC101-MC108).
# Megatron-LM's own CI configurations (tests/functional_tests/test_cases of
# Megatron-LM main, with their ENV_VARS): Megatron accepts them, so must
# mcinit (hybrid and T5 layer counts, the MoE-overlap exemption, BERT).
for cs in "$cfg"/megatron-ci/*.args; do
	n=$(basename "$cs" .args)
	run "$cfg/megatron-ci" "$n.args"
	check "megatron-ci-$n-clean" sh -c "test $rc -eq 0 && ! grep -q 'error\[' '$tmp/out'"
done

# A process that checks many jobs (validate --each) remembers a Megatron-LM
# row's verdict for where the fields the row read are at their defaults: each
# job's diagnostics must be those of a process of its own, in either order
# (a fail case after its passing neighbour, and before it).
check each-job-as-alone python3 -c "
import glob, json, subprocess, sys
files = sorted(glob.glob('$cfg/MC2*/*.json')) + sorted(glob.glob('$ex/*.json'))
def each(fs):
    r = subprocess.run(['$M', 'validate', '--each', '--format=json'] + fs, capture_output=True, text=True)
    return [x['diagnostics'] for x in json.loads(r.stdout)['results']]
alone = [json.loads(subprocess.run(['$M', 'validate', '--format=json', f], capture_output=True,
                                   text=True).stdout)['diagnostics'] for f in files]
assert len(files) > 20 and any(alone), 'no cases'
for order in (files, files[::-1]):
    got = dict(zip(order, each(order)))
    for f, want in zip(files, alone):
        assert got[f] == want, (f, got[f], want)"

run "$cfg/MC101" fail.json --format=json --print-config
check repair-in-print-config python3 -c "
import json
d = json.load(open('$tmp/out'))
assert d['config']['model']['sequence_parallel'] is False"

finish
