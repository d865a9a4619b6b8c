# bash completion for mcinit.  Candidates come from `mcinit complete`, which
# reads the same tables as mcinit itself (commands, options, config keys,
# Megatron-LM flags, group kinds, diagnostic codes).
_mcinit()
{
	local cur=${COMP_WORDS[COMP_CWORD]} line files=0
	local -a cands=()

	while IFS= read -r line; do
		if [[ $line == :files ]]; then
			files=1
		else
			cands+=("$line")
		fi
	done < <("${COMP_WORDS[0]}" complete -- "${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
	COMPREPLY=("${cands[@]}")
	if ((files)); then
		compopt -o filenames 2>/dev/null
		COMPREPLY+=($(compgen -f -- "$cur"))
	fi
	# "model.seed=" wants its value next, not a space.
	if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *= || ${COMPREPLY[0]} == *. ]]; then
		compopt -o nospace 2>/dev/null
	fi
}
complete -F _mcinit mcinit
