# bash completion for mcinit.  Candidates come from `mcinit complete`, which
# reads the same tables as mcinit itself (commands, options and their values,
# config keys and their choices, Megatron-LM flags per version, group kinds,
# diagnostic codes, man pages).  This script only adapts bash's view of the
# line to mcinit's and back.

# bash splits words at COMP_WORDBREAKS (= and : among them), so
# model.seed=1234 reaches us as three words: glue back together the words that
# no blank separates in COMP_LINE, which is what mcinit (and argv) sees.
_mcinit_words()
{
	local line=${COMP_LINE:0:COMP_POINT} w i pos=0 blank
	_mcinit_w=()
	for ((i = 0; i <= COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		blank=0
		while [[ ${line:pos:1} == [[:space:]] ]]; do
			((pos++))
			blank=1
		done
		if ((i > 0 && !blank)) && [[ ${line:pos:${#w}} == "$w" ]]; then
			_mcinit_w[${#_mcinit_w[@]} - 1]+=$w
		else
			_mcinit_w+=("$w")
		fi
		((pos += ${#w}))
	done
	# Typing right after a blank: bash's current word is empty.
	((COMP_CWORD >= ${#COMP_WORDS[@]})) && _mcinit_w+=("")
	return 0
}

_mcinit()
{
	local cur line word prefix=
	local -a _mcinit_w cands=() exts=()
	local files=0 ext

	_mcinit_words
	word=${_mcinit_w[${#_mcinit_w[@]} - 1]}
	cur=${COMP_WORDS[COMP_CWORD]}
	[[ $cur == [=:] ]] && cur=
	# bash replaces only the part after the last word-break character.
	if [[ $word != "$cur" ]]; then
		prefix=${word:0:${#word}-${#cur}}
	fi
	while IFS= read -r line; do
		if [[ $line == :files* ]]; then
			files=1
			read -ra exts <<<"${line#:files}"
		elif [[ $line == "$prefix"* ]]; then
			cands+=("${line#"$prefix"}")
		fi
	done < <("${COMP_WORDS[0]}" complete -- "${_mcinit_w[@]:1}" 2>/dev/null)
	COMPREPLY=("${cands[@]}")
	if ((files)); then
		compopt -o filenames 2>/dev/null
		if ((${#exts[@]})); then
			# directories to walk into, and files of the wanted kinds
			while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -d -- "$cur")
			for ext in "${exts[@]}"; do
				while IFS= read -r line; do COMPREPLY+=("$line"); done \
					< <(compgen -f -X "!*.$ext" -- "$cur")
			done
		else
			while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$cur")
		fi
	fi
	# "model.seed=" and "dist." want their value next, not a space.
	if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *[=.] ]]; then
		compopt -o nospace 2>/dev/null
	fi
	return 0
}
complete -F _mcinit mcinit
