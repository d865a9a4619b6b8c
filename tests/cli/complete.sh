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
check memory-model-values has bridge $M complete -- validate --memory-model b
check group-kinds has tp_ep_pp $M complete -- topology --group tp_e
check version-values has r0.16 $M complete -- validate --megatron-version r
check override-keys has model.tensor_model_parallel_size= $M complete -- validate model.tensor_m
check sections has dist. $M complete -- validate di
check files-offered sh -c "$M complete -- validate ex | grep -q '^:files'"
check megatron-flags-after-dashdash has --tensor-model-parallel-size $M complete -- validate -- --tensor-model
check megatron-version-respected sh -c "! $M complete -- validate --megatron-version r0.15 -- --disable-jit | grep -q ."
check explain-codes has MC012 $M complete -- explain MC01
check field-values-choices has model.cp_comm_type=a2a $M complete -- validate model.cp_comm_type=a
check field-values-bool has model.sequence_parallel=false $M complete -- validate model.sequence_parallel=
check field-values-no-files sh -c "! $M complete -- validate model.sequence_parallel= | grep -q :files"
check option-value-same-word has --format=svg $M complete -- topology --format=
check option-value-not-svg-for-validate sh -c "! $M complete -- validate --format= | grep -q svg"
check megatron-flag-choices has flash $M complete -- validate -- --attention-backend ''
check man-pages has config $M complete -- man co
check input-files-by-type has ':files json yaml yml sh bash py' $M complete -- validate ''
check hwloc-files-by-type has ':files xml' $M complete -- topology --hwloc-xml ''
# The suffixes offered are those the loader names when it rejects an input.
$M validate x.unknown >"$tmp/kinds" 2>&1
check input-suffixes-match-loader sh -c "test \"\$(sed -n 's/.*(expected \\(.*\\), or .*/\\1/p' '$tmp/kinds' | grep -o '[.][a-z]*' | tr -d . | sort | tr '\n' ' ')\" = \"\$($M complete -- validate '' | sed -n 's/^:files //p' | tr ' ' '\n' | sort | tr '\n' ' ')\""
# Every version of the flag table is offered.
for v in $(tr '\t,' '\n\n' <"$srcdir/data/megatron-flags.tsv" | grep -xE 'r[0-9]+[.][0-9]+|main' | sort -u); do
	check "version-$v-offered" has "$v" $M complete -- validate --megatron-version ''
done

# Every schema key is offered, one per field (aliases included).
keys=0
for sec in $($M schema | python3 -c 'import json,sys; print(" ".join(k for k in json.load(sys.stdin)["properties"] if k != "env_vars"))'); do
	keys=$((keys + $($M complete -- validate "$sec." | grep -c '=$')))
done
check every-key-offered sh -c "test $keys -eq \$($M schema | python3 -c 'import json,sys; s=json.load(sys.stdin)[\"properties\"]; print(sum(len(v.get(\"properties\", v.get(\"anyOf\", [{}])[0].get(\"properties\", {}))) for k, v in s.items() if k != \"env_vars\"))')"

# The bash script, driven the way bash drives it.
if command -v bash >/dev/null 2>&1; then
	check bash-script-completes bash -c "
		complete() { :; }; compopt() { :; }
		. '$srcdir/completions/mcinit.bash'
		COMP_WORDS=($M topology --group tp_c); COMP_CWORD=3
		_mcinit
		[ \"\${COMPREPLY[*]}\" = tp_cp ]"
fi

# The three shells for real, in a directory with files of several kinds:
# bash and zsh interactive on a pseudo-terminal (tests/cli/shell-complete.py
# types the line and TAB), fish through `complete --do-complete`.
bin=$(dirname "${MCINIT##* }")
mkdir "$tmp/files" "$tmp/files/sub"
touch "$tmp/files/job.json" "$tmp/files/notes.txt" "$tmp/files/train.sh" "$tmp/files/node.xml"
lines="mcinit va|mcinit validate model.tensor_|mcinit validate model.cp_comm_type=a|mcinit topology --format=s|mcinit validate -- --tensor-model-p|mcinit validate |mcinit topology --hwloc-xml "
# cands FILE LINE: the candidates recorded for LINE.
cands() {
	awk -v want="== $2" '/^== / { on = ($0 == want); next } on' "$1"
}
# offered SHELL LINE WANT: WANT is among what SHELL offered for LINE.
offered() {
	cands "$tmp/$1.out" "$2" | sed 's/\t.*//; s|/$||' | grep -qxF -- "$3"
}
not_offered() {
	! offered "$@"
}
# bash and zsh need a pseudo-terminal (a chroot without /dev/pts has none).
has_pty=yes
python3 -c 'import os; m, s = os.openpty()' 2>/dev/null || has_pty=no
for sh in bash zsh fish; do
	if ! command -v $sh >/dev/null 2>&1; then
		skip "$sh-completes" "$sh is not installed"
		continue
	fi
	if [ $sh != fish ] && [ $has_pty = no ]; then
		skip "$sh-completes" "no pseudo-terminal can be opened here"
		continue
	fi
	rc=0
	(
		cd "$tmp/files" && export PATH="$bin:$PATH" && IFS='|' && set -f &&
			if [ $sh = fish ]; then
				for l in $lines; do
					echo "== $l"
					fish --no-config -c "source '$srcdir/completions/mcinit.fish'; complete --do-complete '$l'"
				done
			else
				python3 "$srcdir/tests/cli/shell-complete.py" $sh "$srcdir/completions" $lines
			fi
	) >"$tmp/$sh.out" 2>"$tmp/$sh.err" || rc=$?
	check "$sh-answered" sh -c "test $rc -eq 0 && ! grep -q 'did not complete' '$tmp/$sh.err' || { cat '$tmp/$sh.err'; false; }"
	comment "$tmp/$sh.out"
	# bash replaces only what follows the last = or :, so it is offered that part.
	value=model.cp_comm_type=a2a fmt=--format=svg
	[ $sh = bash ] && value=a2a fmt=svg
	check "$sh-command" offered $sh "mcinit va" validate
	check "$sh-tensor-keys" offered $sh "mcinit validate model.tensor_" model.tensor_model_parallel_size=
	check "$sh-key-choices" offered $sh "mcinit validate model.cp_comm_type=a" $value
	check "$sh-option-value" offered $sh "mcinit topology --format=s" $fmt
	check "$sh-megatron-flags" offered $sh "mcinit validate -- --tensor-model-p" --tensor-model-parallel-size
	check "$sh-input-json" offered $sh "mcinit validate " job.json
	check "$sh-input-script" offered $sh "mcinit validate " train.sh
	check "$sh-input-dir" offered $sh "mcinit validate " sub
	check "$sh-input-not-txt" not_offered $sh "mcinit validate " notes.txt
	check "$sh-input-sections" offered $sh "mcinit validate " model.
	check "$sh-hwloc-xml" offered $sh "mcinit topology --hwloc-xml " node.xml
	check "$sh-hwloc-not-json" not_offered $sh "mcinit topology --hwloc-xml " job.json
done
finish
