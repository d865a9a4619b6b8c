#!/bin/sh
# CLI tests for `mcinit complete` and the bash completion script built on it.
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
# has WANT CMD...: WANT is one of the candidates printed by CMD.
has() {
	want=$1
	shift
	"$@" 2>/dev/null | grep -qxF -- "$want"
}
check commands has validate $M complete -- v
check options-of-command has --world-size $M complete -- validate --wor
check options-of-child-and-own has --hwloc-xml $M complete -- topology --hw
check no-foreign-option sh -c "! $M complete -- validate --hw | grep -q ."
check format-values-topology has svg $M complete -- topology --format ''
check format-values-validate sh -c "! $M complete -- validate --format '' | grep -qx svg"
check group-kinds has tp_ep_pp $M complete -- topology --group tp_e
check version-values has r0.16 $M complete -- validate --megatron-version r
check override-keys has model.tensor_model_parallel_size= $M complete -- validate model.tensor_m
check sections has dist. $M complete -- validate di
check files-offered has :files $M complete -- validate ex
check megatron-flags-after-dashdash has --tensor-model-parallel-size $M complete -- validate -- --tensor-model
check megatron-version-respected sh -c "! $M complete -- validate --megatron-version r0.15 -- --disable-jit | grep -q ."
check explain-codes has MC012 $M complete -- explain MC01
# Every schema key is offered, one per row of schema.def.
keys=0
for sec in model train validation rng dist ddp launch; do
	keys=$((keys + $($M complete -- validate "$sec." | grep -c '=$')))
done
check every-key-offered sh -c "test $keys -eq \$($M schema | python3 -c 'import json,sys; s=json.load(sys.stdin)[\"properties\"]; print(sum(len(v.get(\"properties\", {})) for k, v in s.items() if k != \"env_vars\"))')"

# The bash script, driven the way bash drives it.
if command -v bash >/dev/null 2>&1; then
	check bash-script-completes bash -c "
		complete() { :; }; compopt() { :; }
		. '$srcdir/completions/mcinit.bash'
		COMP_WORDS=($M topology --group tp_c); COMP_CWORD=3
		_mcinit
		[ \"\${COMPREPLY[*]}\" = tp_cp ]"
fi
finish
