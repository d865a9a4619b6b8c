#!/bin/sh
# oracle.sh — the honest oracle for the launch-script reader: every launch
# script under tests/ runs in real bash with stand-ins for torchrun, srun,
# mpirun, mpiexec and python on PATH, which record the words they are given
# (NUL-separated) and their environment.  mcinit must have extracted exactly
# those words (a word it marks as known only at run time stands for zero or
# more words: a variable the script never sets is empty here).  The script
# gets no arguments and mcinit reads it as it does by default, without them
# (known only at run time), or both take those of its line
# `# script-args: ARGS` (mcinit validate --script-args ARGS),
# and exactly that environment for the variables it names.  It runs in a
# copy of its own directory, so the files it sources or runs (`. ./x.sh`,
# `bash sub/y.sh`, tests/shell/scripts/follow) are those beside it; mcinit
# reads it from there too (its $PWD).  A
# script with the line `# oracle: all known` must have no word mcinit
# marks as known only at run time (which would match anything).
. "$srcdir/tests/cli/lib.sh"
: "${SH_WORDS:?SH_WORDS must point at tests/shell/sh-words}"
command -v bash >/dev/null 2>&1 || skip_all "bash not installed"

stub=$tmp/stub
mkdir -p "$stub" "$tmp/run"
cat >"$stub/record" <<'STUB'
#!/bin/sh
n=$(ls "$ARGV_DIR" | wc -l)
printf '%s\0' "$(basename "$0")" "$@" >"$ARGV_DIR/$n.argv"
env >"$ARGV_DIR/$n.env"
# srun --opt=v bash -c '...': the shell runs, as on a node
if [ "$(basename "$0")" = srun ]; then
	while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do shift; done
	case $1 in bash | sh) exec "$@" ;; esac
fi
STUB
chmod +x "$stub/record"
for c in torchrun srun mpirun mpiexec deepspeed python python3; do
	ln -s record "$stub/$c"
done
# Wrappers run the command after their own words, each read here as its
# man page gives its grammar (written for this oracle, not taken from
# mcinit); bind.sh stands for a site's script that runs its arguments.
cat >"$stub/wrap" <<'STUB'
#!/bin/sh
name=$(basename "$0")
case $name in nsys | singularity | apptainer | enroot) shift ;; esac # profile, exec, start
while [ $# -gt 0 ]; do
	case $name:$1 in
	*:--) shift && break ;;
	*:--*=*) shift ;;
	numactl:-[NmCpi] | numactl:--cpunodebind | numactl:--membind | numactl:--physcpubind | \
		numactl:--preferred | numactl:--interleave) shift 2 ;;
	nsys:-*) shift 2 ;; # nsys profile's options take a value
	singularity:-[BW] | apptainer:-[BW] | *:--bind | *:--env | enroot:-[em] | enroot:--mount) shift 2 ;;
	*:-*) shift ;;
	*) break ;;
	esac
done
case $name in singularity | apptainer | enroot | taskset) shift ;; esac # the image, the mask
[ "${1:-}" = -- ] && shift
exec "$@"
STUB
chmod +x "$stub/wrap"
for c in numactl nsys taskset singularity apptainer enroot bind.sh; do
	ln -s wrap "$stub/$c"
done

compare() { # compare MINE THEIRS: words equal, \001-marked ones match anything
	python3 - "$1" "$2" <<'PY'
import sys
mine = open(sys.argv[1], 'rb').read().split(b'\0')[:-1]
theirs = open(sys.argv[2], 'rb').read().split(b'\0')[:-1]
# mcinit's command may start with wrappers (env, exec, ...) the stand-in
# never sees: align on the recorded command's name
name = theirs[0]
while mine and mine[0].lstrip(b'\1').rsplit(b'/', 1)[-1] != name:
    mine = mine[1:]
mine = mine[1:]
theirs = theirs[1:]
# A \001-marked word is known only at run time: a variable the script does
# not set (from the environment: bash here has none, so nothing) or the
# script's arguments: it stands for zero or more words.
def match(i, j, memo={}):
    if (i, j) not in memo:
        if i == len(mine):
            r = j == len(theirs)
        elif mine[i].startswith(b'\1'):
            r = match(i + 1, j) or (j < len(theirs) and match(i, j + 1))
        else:
            r = j < len(theirs) and mine[i] == theirs[j] and match(i + 1, j + 1)
        memo[(i, j)] = r
    return memo[(i, j)]
sys.setrecursionlimit(100000)
bad = not match(0, 0)
if bad:
    print('mcinit:', [w.decode(errors='replace') for w in mine])
    print('bash:  ', [w.decode(errors='replace') for w in theirs])
sys.exit(1 if bad else 0)
PY
}

# What sbatch sets in the job's environment from the script's #SBATCH
# directives (those before the first command), read here independently of
# mcinit: NAME=VALUE words for env.
slurm_env() {
	python3 - "$1" <<'PY'
import re, sys
opts = {}
for line in open(sys.argv[1], errors='replace'):
    s = line.strip()
    if s and not s.startswith('#'):
        break
    if not s.startswith('#SBATCH'):
        continue
    words = s[7:].split('#')[0].split()
    i = 0
    while i < len(words):
        w = words[i]
        m = re.match(r'(--[a-z-]+)=(.*)|(-[A-Za-z])(.+)', w)
        if m:
            k, v = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        elif i + 1 < len(words):
            k, v = w, words[i + 1]
            i += 1
        else:
            k, v = w, ''
        opts[{'-N': '--nodes', '-n': '--ntasks', '-G': '--gpus',
              '-c': '--cpus-per-task'}.get(k, k)] = v
        i += 1
num = lambda k: int(opts[k]) if opts.get(k, '').isdigit() else None
def gpus(k):  # sbatch(1): --gpus, --gpus-per-node, --gpus-per-task are [type:]number
    v = opts.get(k, '').split(':')[-1]
    return int(v) if v.isdigit() else None
def gres_gpus():  # --gres=name[[:type]:count],...: a gpu entry without a count is 1
    for e in opts.get('--gres', '').split(','):
        f = e.split(':')
        if f[0] in ('gpu', 'gres/gpu'):
            return int(f[-1]) if len(f) > 1 and f[-1].isdigit() else 1
    return None
out = {}
if num('--nodes'):
    out['SLURM_NNODES'] = out['SLURM_JOB_NUM_NODES'] = num('--nodes')
if num('--ntasks'):
    out['SLURM_NTASKS'] = out['SLURM_NPROCS'] = num('--ntasks')
elif num('--nodes') and num('--ntasks-per-node'):
    out['SLURM_NTASKS'] = out['SLURM_NPROCS'] = num('--nodes') * num('--ntasks-per-node')
if num('--ntasks-per-node'):
    out['SLURM_NTASKS_PER_NODE'] = num('--ntasks-per-node')
# SLURM_GPUS_ON_NODE: the GPUs allocated on the node, however requested
tasks_on_node = num('--ntasks-per-node')
if tasks_on_node is None and num('--ntasks') and num('--nodes') and \
        num('--ntasks') % num('--nodes') == 0:
    tasks_on_node = num('--ntasks') // num('--nodes')
if gpus('--gpus-per-node'):
    out['SLURM_GPUS_ON_NODE'] = gpus('--gpus-per-node')
elif gres_gpus():
    out['SLURM_GPUS_ON_NODE'] = gres_gpus()
elif gpus('--gpus') and num('--nodes') and gpus('--gpus') % num('--nodes') == 0:
    out['SLURM_GPUS_ON_NODE'] = gpus('--gpus') // num('--nodes')
elif gpus('--gpus-per-task') and tasks_on_node:
    out['SLURM_GPUS_ON_NODE'] = gpus('--gpus-per-task') * tasks_on_node
for opt, var in (('--gpus-per-node', 'SLURM_GPUS_PER_NODE'), ('--gpus', 'SLURM_GPUS'),
                 ('--gpus-per-task', 'SLURM_GPUS_PER_TASK'),
                 ('--cpus-per-task', 'SLURM_CPUS_PER_TASK')):
    if num(opt):
        out[var] = num(opt)
print(' '.join('%s=%d' % kv for kv in out.items()))
PY
}

# mcinit's reading, in the directory bash runs the script in ($PWD, cd)
shw() { (cd "$tmp/run" && "$SH_WORDS" "$@"); }

# the launch scripts of the tests (not the test drivers themselves)
find "$srcdir/tests/cli/inputs" "$srcdir/tests/shell/scripts" "$srcdir/tests/configs" \
	-name '*.sh' -o -name '*.bash' | sort >"$tmp/scripts"
while read -r f; do
	name=shell-oracle-$(basename "$f" .sh)
	rm -rf "$tmp/rec" && mkdir "$tmp/rec"
	args=$(sed -n 's/^# script-args: //p' "$f" | head -n 1)
	# mcinit's reading: without the line, as validate reads by default
	set -- && grep -q '^# script-args:' "$f" && set -- -a "$args"
	known=$(grep -c '^# oracle: all known' "$f")
	slurm=$(slurm_env "$f")
	# sbatch runs the script in the directory it was run in, and says so
	! grep -q '^#SBATCH' "$f" || slurm="$slurm SLURM_SUBMIT_DIR=$tmp/run"
	# in a copy of its directory, where it is run from (the files it
	# sources or runs are found there)
	chmod -R u+w "$tmp/run" && rm -rf "$tmp/run" && cp -R "$(dirname "$f")" "$tmp/run"
	(eval "set -- $args" && cd "$tmp/run" &&
		env -i PATH="$stub:/usr/bin:/bin" HOME="$tmp/run" ARGV_DIR="$tmp/rec" $slurm \
			bash "$f" "$@" >/dev/null 2>&1)
	shw "$@" "$f" >"$tmp/mine" 2>"$tmp/err" || { fail "$name" "sh-words failed" "$tmp/err"; continue; }
	n=$(shw -c "$@" "$f")
	if [ "$known" != 0 ]; then # as many launches as bash ran commands with a .py
		ran=$(for r in "$tmp/rec"/*.argv; do
			[ -f "$r" ] && tr '\0' '\n' <"$r" | grep -q '\.py$' && echo
		done | wc -l)
		if [ "$ran" != "$((n > 1 ? n : 1))" ]; then
			echo "bash: $ran, mcinit: $n" >"$tmp/diff"
			fail "$name" "not as many launches as bash ran" "$tmp/diff"
			continue
		fi
	fi
	if [ "$n" -ge 2 ]; then
		# several launches, each judged: each is one of bash's runs, in order
		ls "$tmp/rec"/*.argv | sort -V >"$tmp/recs"
		bad=
		k=1
		while [ "$k" -le "$n" ]; do
			shw -n "$k" "$@" "$f" >"$tmp/mine"
			[ "$known" = 0 ] || [ "$(tr -cd '\001' <"$tmp/mine" | wc -c)" = 0 ] ||
				bad="$bad $k(run-time word)"
			while read -r r && ! compare "$tmp/mine" "$r" >"$tmp/diff" 2>&1; do :; done
			[ -n "$r" ] || bad="$bad $k"
			k=$((k + 1))
		done <"$tmp/recs"
		if [ -n "$bad" ]; then
			echo "launches with no run of bash's, in order:$bad" >"$tmp/diff"
			fail "$name" "launches differ from what bash ran" "$tmp/diff"
		else
			pass "$name"
		fi
		continue
	fi
	if [ ! -s "$tmp/mine" ]; then
		# no command runs a .py file: bash must not have run one either
		if ls "$tmp/rec" | grep -q argv; then
			fail "$name" "bash ran a launcher, mcinit found no command"
		else
			pass "$name"
		fi
		continue
	fi
	# the recorded run of the command mcinit chose: the last one of its name;
	# of its launchers, the innermost bash ran (srun bash -c "python ...")
	rec=
	for want in $(tr '\0' '\n' <"$tmp/mine" | tr -d '\001' | while read -r w; do
		case ${w##*/} in torchrun | srun | mpirun | mpiexec | deepspeed | python | python3) echo "${w##*/}" ;; *.py) break ;; esac
	done | tac); do
		for r in $(ls "$tmp/rec"/*.argv 2>/dev/null | sort -t/ -k1 -V); do
			[ "$(head -c "$((${#want} + 1))" "$r" | tr -d '\0')" = "$want" ] && rec=$r
		done
		[ -n "$rec" ] && break
	done
	if [ -z "$rec" ]; then
		fail "$name" "mcinit chose a $want command that bash never ran"
		continue
	fi
	if ! compare "$tmp/mine" "$rec" >"$tmp/diff" 2>&1; then
		fail "$name" "words differ from what bash passed" "$tmp/diff"
		continue
	fi
	if [ "$known" != 0 ] && [ "$(tr -cd '\001' <"$tmp/mine" | wc -c)" != 0 ]; then
		{ tr '\0\001' ' ^' <"$tmp/mine" && echo; } >"$tmp/diff" # a line of its own in the log
		fail "$name" "a word is known only at run time (^)" "$tmp/diff"
		continue
	fi
	# the environment mcinit reports is the one the command got
	shw -e "$@" "$f" >"$tmp/env"
	envbad=
	while read -r kv; do
		case $kv in
		*=*) grep -qxF "$kv" "${rec%.argv}.env" || envbad="$envbad $kv" ;;
		*) ! grep -q "^$kv=" "${rec%.argv}.env" || envbad="$envbad $kv(unset)" ;;
		esac
	done <"$tmp/env"
	if [ -n "$envbad" ]; then
		echo "mcinit says:$envbad" >"$tmp/diff"
		fail "$name" "environment differs from what bash exported" "$tmp/diff"
	else
		pass "$name"
	fi
done <"$tmp/scripts"
finish
