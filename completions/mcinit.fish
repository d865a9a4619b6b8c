# fish completion for mcinit: candidates from `mcinit complete` (see mcinit.bash).
function __mcinit_complete
	set -l words (commandline -opc) (commandline -ct)
	for line in ($words[1] complete -- $words[2..-1] 2>/dev/null)
		if test "$line" = ":files"
			__fish_complete_path (commandline -ct)
		else
			echo $line
		end
	end
end
complete -c mcinit -f -a '(__mcinit_complete)'
