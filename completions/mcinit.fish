# fish completion for mcinit: candidates from `mcinit complete` (see
# mcinit.bash), which reads mcinit's own tables.
function __mcinit_complete
	set -l tok (commandline -ct)
	set -l words (commandline -opc) "$tok"
	for line in ($words[1] complete -- $words[2..-1] 2>/dev/null)
		if string match -q ':files*' -- $line
			set -l exts (string split -n ' ' -- (string replace ':files' '' -- $line))
			for f in (__fish_complete_path "$tok")
				# directories to walk into, and files of the wanted kinds
				set -l name (string split -m1 \t -- $f)[1]
				if test (count $exts) -eq 0; or string match -q '*/' -- $name
					echo $f
				else
					for e in $exts
						string match -q "*.$e" -- $name; and echo $f
					end
				end
			end
		else
			echo $line
		end
	end
end
complete -c mcinit -f -a '(__mcinit_complete)'
