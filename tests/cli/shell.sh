#!/bin/sh
# CLI tests for launch scripts read with bash's semantics: the job's
# environment (export/unset), the launcher's world size and where it came
# from, arithmetic, and words bash splits or keeps quoted.
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
S=../../shell/scripts

for f in "$srcdir"/tests/shell/scripts/*.sh; do
	n=$(basename "$f" .sh)
	want=1 # the scripts are fragments of jobs: required fields are missing
	case $n in gpt-complete | args-forwarded | functions | script-args | loops | sbatch-vars | wrappers | arith) want=0 ;; esac
	args=$(sed -n 's/^# script-args: //p' "$f")
	if [ -n "$args" ]; then
		golden "shell-$n" "$want" $M validate --script-args "$args" $S/$n.sh
	else
		golden "shell-$n" "$want" $M validate $S/$n.sh
	fi
done
# with no arguments, as bash runs it alone: ${1:?} stops the script
check shell-script-args-none sh -c "$M validate $S/script-args.sh 2>&1 | grep -q 'script-args.sh:6:4: .*MC009.*variable is empty'"
check shell-script-args-unterminated sh -c "$M validate --script-args \"'a\" $S/script-args.sh 2>$tmp/e; test \$? -eq 64 && grep -q 'script arguments: .*unterminated single quote' $tmp/e"
# no launch: said once, and no "required field is not set" for flags never found
check shell-no-launch sh -c "printf 'echo hello\\nnproc\\n' >$tmp/n.sh && $M validate $tmp/n.sh >$tmp/o 2>&1 && test \$(grep -c MC0 $tmp/o) -eq 1 && grep -q 'warning\\[MC009\\]: launch script: no launch found' $tmp/o"
check shell-gpt-complete-world-8 sh -c "$M validate --format=json $S/gpt-complete.sh | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"valid\"] and d[\"derived\"][\"world_size\"] == 8 and not [x for x in d[\"diagnostics\"] if x[\"code\"] in (\"MC003\", \"MC044\")], d'"
check shell-world-size-source-json sh -c "$M validate --format=json $S/srun-torchrun.sh | python3 -c 'import json,sys; d=json.load(sys.stdin)[\"derived\"]; assert d[\"world_size\"] == 32 and d[\"world_size_source\"].startswith(\"torchrun --nnodes 4\"), d'"
check shell-export-satisfies-mc044 sh -c "! $M validate $S/gpt.sh 2>&1 | grep -q MC044"
check shell-unset-counts sh -c "printf '#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\nunset CUDA_DEVICE_MAX_CONNECTIONS\ntorchrun --nproc_per_node 2 pretrain_gpt.py --tensor-model-parallel-size 2\n' >$tmp/u.sh && $M validate $tmp/u.sh 2>&1 | grep -q 'MC044.*not set'"
check shell-world-size-option-wins sh -c "$M validate --world-size 4 --format=json $S/mpirun.sh | python3 -c 'import json,sys; assert json.load(sys.stdin)[\"derived\"][\"world_size\"] == 4'"
check shell-py-alone-is-lint sh -c "$M validate args.py >$tmp/o 2>&1 && ! grep -q MC008 $tmp/o && grep -q MC002 $tmp/o"
check shell-py-werror sh -c "$M validate --werror args.py >/dev/null 2>&1; test \$? -eq 1"
check shell-werror-json-invalid sh -c "$M validate --werror --format=json args.py | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"valid\"] is False and d[\"derived\"] is None'"
check shell-py-with-flags-is-a-job sh -c "$M validate args.py -- --num-layers 2 2>&1 | grep -q MC008"
check shell-werror-yaml sh -c "$M validate --werror yaml/traps.yaml >/dev/null 2>&1; test \$? -eq 1"
finish
