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
	case $n in gpt-complete | args-forwarded | args-unknown | set-options | functions | script-args | loops | sbatch-vars | wrappers | arith | slurm-gres | slurm-gpus | slurm-gpus-per-task | deepspeed | wrappers-followed | wrappers-table | slurm-unsized | shell-c-unknown) want=0 ;; esac
	args=$(sed -n 's/^# script-args: //p' "$f")
	if [ -n "$args" ]; then
		golden "shell-$n" "$want" $M validate --script-args "$args" $S/$n.sh
	else
		golden "shell-$n" "$want" $M validate $S/$n.sh
	fi
done
# without --script-args, the arguments are given at launch: ${1:?} is a
# value only the run knows (one note says so), not an error
check shell-script-args-none sh -c "$M validate $S/script-args.sh >$tmp/o 2>&1 && grep -q 'script-args.sh:6:4: .*MC009.*arguments are known only at run time' $tmp/o && test \$(grep -c 'note.*arguments are known only at run time' $tmp/o) -eq 1"
check shell-script-args-unterminated sh -c "$M validate --script-args \"'a\" $S/script-args.sh 2>$tmp/e; test \$? -eq 64 && grep -q 'script arguments: .*unterminated single quote' $tmp/e"
# no launch: said once, and no "required field is not set" for flags never found
check shell-no-launch sh -c "printf 'echo hello\\nnproc\\n' >$tmp/n.sh && $M validate $tmp/n.sh >$tmp/o 2>&1 && test \$(grep -c MC0 $tmp/o) -eq 1 && grep -q 'warning\\[MC009\\]: launch script: no launch found' $tmp/o"
check shell-gpt-complete-world-8 sh -c "$M validate --format=json $S/gpt-complete.sh | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"valid\"] and d[\"derived\"][\"world_size\"] == 8 and not [x for x in d[\"diagnostics\"] if x[\"code\"] in (\"MC003\", \"MC044\")], d'"
check shell-world-size-source-json sh -c "$M validate --format=json $S/srun-torchrun.sh | python3 -c 'import json,sys; d=json.load(sys.stdin)[\"derived\"]; assert d[\"world_size\"] == 32 and d[\"world_size_source\"].startswith(\"torchrun --nnodes 4\"), d'"
check shell-export-satisfies-mc044 sh -c "! $M validate $S/gpt.sh 2>&1 | grep -q MC044"
check shell-unset-counts sh -c "printf '#!/bin/bash\nexport CUDA_DEVICE_MAX_CONNECTIONS=1\nunset CUDA_DEVICE_MAX_CONNECTIONS\ntorchrun --nproc_per_node 2 pretrain_gpt.py --tensor-model-parallel-size 2\n' >$tmp/u.sh && $M validate $tmp/u.sh 2>&1 | grep -q 'MC044.*not set'"
# one judgment per script of several launches: its worst launch's, the same
# in text (exit status) and JSON (top-level "valid"); each launch's derived
# values in its own result, in bash's order, none at the top level
check shell-launches-judged-worst sh -c "$M validate $S/launches-judged.sh >/dev/null 2>&1; t=\$?; $M validate --format=json $S/launches-judged.sh 2>/dev/null >$tmp/lj.json; j=\$?; test \$t -eq 1 && test \$j -eq 1 && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d[\"results\"]; assert d[\"valid\"] is False and \"derived\" not in d and [x[\"valid\"] for x in r] == [True, False] and [x[\"derived\"][\"global_batch_size\"] for x in r] == [16, 12], d' $tmp/lj.json"
check shell-launches-judged-all-valid sh -c "$M validate --format=json $S/wrappers-table.sh 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"valid\"] is True and len(d[\"results\"]) == 4 and all(x[\"valid\"] for x in d[\"results\"]), d'"
check shell-world-size-option-wins sh -c "$M validate --world-size 4 --format=json $S/mpirun.sh | python3 -c 'import json,sys; assert json.load(sys.stdin)[\"derived\"][\"world_size\"] == 4'"
check shell-py-alone-is-lint sh -c "$M validate args.py >$tmp/o 2>&1 && ! grep -q MC008 $tmp/o && grep -q MC002 $tmp/o"
check shell-py-werror sh -c "$M validate --werror args.py >/dev/null 2>&1; test \$? -eq 1"
check shell-werror-json-invalid sh -c "$M validate --werror --format=json args.py | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"valid\"] is False and d[\"derived\"] is None'"
check shell-py-with-flags-is-a-job sh -c "$M validate args.py -- --num-layers 2 2>&1 | grep -q MC008"
check shell-werror-yaml sh -c "$M validate --werror yaml/traps.yaml >/dev/null 2>&1; test \$? -eq 1"
# the files a script sources or runs (tests/shell/scripts/follow): what is
# found there is placed in its own file
for f in "$srcdir"/tests/shell/scripts/follow/*.sh; do
	n=$(basename "$f" .sh)
	want=1
	case $n in source-config | source-dirname | workdir) want=0 ;; esac
	golden "shell-follow-$n" "$want" $M validate --script-args "$(sed -n 's/^# script-args: //p' "$f")" $S/follow/$n.sh
done
# a sourced file that is not there: one warning at its line, its variables
# unknown (not unset), so no "required field is not set" for flags it may hold
check shell-follow-missing sh -c "printf 'source ./nope.sh\nif [ -z \"\$GPUS\" ]; then GPUS=1; fi\ntorchrun --nproc_per_node \${GPUS_PER_NODE:-8} pretrain_gpt.py \$MODEL_ARGS --seq-length 128\n' >$tmp/m.sh && $M validate $tmp/m.sh >$tmp/o 2>&1 && test \$(grep -c 'not found' $tmp/o) -eq 1 && grep -q 'm.sh:1:1: warning\\[MC009\\]: launch script: sourced file .\\./nope.sh. not found' $tmp/o && ! grep -q 'error\\[' $tmp/o && grep -q 'required fields not checked' $tmp/o"
check shell-follow-missing-child sh -c "printf 'bash ./nope.sh 1 2\n' >$tmp/c.sh && $M validate $tmp/c.sh >$tmp/o 2>&1 && grep -q 'c.sh:1:1: warning\\[MC009\\]: launch script: script .\\./nope.sh. not found: a launch in it is not checked' $tmp/o && ! grep -q MC008 $tmp/o"
# a launch behind function calls deeper than the bound: the note that says
# so is kept beside "no launch found"
check shell-deep-calls-said sh -c "printf 'f() { if [ \"\$1\" -lt 40 ]; then f \$((\$1 + 1)); else\n torchrun pretrain_gpt.py --num-layers 2; fi; }\nf 0\n' >$tmp/dc.sh && $M validate $tmp/dc.sh >$tmp/o 2>&1 && grep -q 'no launch found' $tmp/o && grep -q 'dc.sh:1:32: note\[MC009\]: launch script: function calls nested more than 32 deep' $tmp/o"
# files that source each other without end: a warning, and the scan ends
check shell-follow-cycle sh -c "mkdir -p $tmp/cy && printf '. ./b.sh\ntorchrun pretrain_gpt.py --num-layers 2\n' >$tmp/cy/a.sh && printf 'source a.sh\n. ./b.sh\n' >$tmp/cy/b.sh && timeout 20 $M validate $tmp/cy/a.sh >$tmp/o 2>&1; test \$? -le 1 && grep -q 'b.sh:2:1: warning\\[MC009\\]: .*sourced file .*b.sh. is already being read (.*b.sh. -> .*b.sh.)' $tmp/o"
check shell-follow-deep sh -c "mkdir -p $tmp/dp && for i in 0 1 2 3 4 5 6 7 8 9; do echo \". ./f\$((i + 1)).sh\" >$tmp/dp/f\$i.sh; done && echo 'X=1' >$tmp/dp/f10.sh && timeout 20 $M validate $tmp/dp/f0.sh >$tmp/o 2>&1; grep -q 'f8.sh:1:1: warning.*f9.sh. not read (files are read within one another 8 deep at most)' $tmp/o"
check shell-follow-not-a-file sh -c "mkdir -p $tmp/nd/d && printf 'source ./d\ntorchrun pretrain_gpt.py \$A\n' >$tmp/nd/s.sh && $M validate $tmp/nd/s.sh 2>&1 | grep -q 'sourced file .\\./d. not a regular file'"
finish
