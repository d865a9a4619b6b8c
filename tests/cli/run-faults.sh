#!/bin/sh
# The fault matrix of `mcinit run` (issue 13): for every phase of the CPU
# path and every kind of MCINIT_FAULT (crash, hang, exit, stall), a job of
# three local ranks whose rank 1 fails there (and rank 0, in a few phases)
# must end within its timeout with the documented status, name the rank
# and the phase, leave no process behind and no file in its TMPDIR.  The
# matrix is printed as a table in the test log (rank, phase x kind -> exit
# status, seconds, message).
. "$srcdir/tests/cli/lib.sh"
unset MASTER_ADDR MASTER_PORT LOCAL_WORLD_SIZE GROUP_RANK TORCHELASTIC_USE_AGENT_STORE \
	TORCHELASTIC_ERROR_FILE MCINIT_STORE_TOKEN MCINIT_LAUNCHED MCINIT_FAULT SLURM_NODELIST \
	OMPI_COMM_WORLD_RANK 2>/dev/null || true

J=topology-model.json
slow=$(slowdown)
TO=$((2 * slow)) # --timeout of every run
# A unique name in every process's command line: the workers are started
# with the launcher's own argv, so pgrep finds any that survive.
marker="mcinit-faults-$$"
ln -s "${MCINIT##* }" "$tmp/$marker"
wrapper=${MCINIT% *}
[ "$wrapper" = "$MCINIT" ] && wrapper=
M="$wrapper $tmp/$marker"

phases="config env rendezvous device world groups verify seeds kernels tp-comm ready"
kinds="crash hang exit stall"
# rank 0 differs: the others wait for its verdicts
phases0="rendezvous groups ready"
if [ "$slow" != 1 ]; then
	# sanitized ranks take seconds each: the first and the last phase
	phases="config ready"
	phases0="groups"
fi
cells=
for ph in $phases; do
	for kind in $kinds; do cells="$cells 1:$ph:$kind"; done
done
for ph in $phases0; do
	for kind in $kinds; do cells="$cells 0:$ph:$kind"; done
done

# want KIND: the launcher's documented exit status for the kind.
want() {
	case $1 in
	crash) echo 139 ;; # 128 + SIGSEGV, the crashing rank's
	exit) echo 3 ;;    # the rank's own status (MCINIT_FAULT_EXIT_STATUS)
	*) echo 75 ;;      # the peers time out naming rank 1 (EX_TEMPFAIL)
	esac
}

table="$tmp/table"
printf '%-4s %-11s %-6s %4s %7s  %s\n' rank phase kind exit seconds message >"$table"
for cell in $cells; do
	r=${cell%%:*} kind=${cell##*:} ph=${cell#*:}
	ph=${ph%:*}
	name="fault-$r-$ph-$kind"
	dir="$tmp/t-$r-$ph-$kind"
	mkdir "$dir"
	start=$(date +%s.%N)
	rc=0
	(cd "$cli/inputs" && MCINIT_FAULT="$cell" TMPDIR="$dir" \
		timeout -k 5 $((30 * slow)) $M run --allow-no-cuda --nproc-per-node 3 \
		--timeout "$TO" --grace 1 "$J" >"$tmp/out" 2>&1) || rc=$?
	end=$(date +%s.%N)
	secs=$(echo "$end $start" | awk '{ printf "%.2f", $1 - $2 }')
	# the launcher's own lines: the root cause, and for a timeout the laggard
	grep -v '^\[rank' "$tmp/out" | grep 'mcinit run: ' >"$tmp/msg" || true
	msg=$(sed 's/^mcinit run: //; s/(pid [0-9]*) //' "$tmp/msg" | paste -sd '|' -)
	printf '%-4s %-11s %-6s %4s %7s  %s\n' "$r" "$ph" "$kind" "$rc" "$secs" "$msg" >>"$table"
	# what may survive goes within the grace period
	i=0
	while pgrep -f "$marker" >/dev/null && [ $i -lt 30 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	why=
	[ "$rc" = "$(want "$kind")" ] || why="$why exit $rc, expected $(want "$kind");"
	# the timeout, the half second the launcher gives the peers, the grace,
	# slack; a sanitized rank's config phase alone may take a timeout or two
	awk -v s="$secs" -v t="$TO" -v k="$slow" \
		'BEGIN { exit !(s <= t + 1 + 1 + 2 * k + (k > 1 ? 2 * t : 0)) }' ||
		why="$why took ${secs}s;"
	case $kind in
	crash | exit) pat="root cause: rank $r .* in phase $ph\$" ;;
	*) pat="rank $r (pid [0-9]*) was still in phase $ph when the job stopped" ;;
	esac
	grep -q "$pat" "$tmp/msg" || why="$why rank $r and phase $ph not named;"
	if pgrep -f "$marker" >/dev/null; then
		why="$why processes left: $(pgrep -f "$marker" | paste -sd ' ' -);"
		kill -9 $(pgrep -f "$marker") 2>/dev/null
	fi
	[ -z "$(ls -A "$dir")" ] || why="$why left in TMPDIR: $(ls -A "$dir" | paste -sd ' ' -);"
	if [ -z "$why" ]; then
		pass "$name"
	else
		fail "$name" "$why" "$tmp/out"
	fi
done
echo "# the fault matrix (3 ranks, --timeout $TO, --grace 1):"
comment "$table"

# A malformed MCINIT_FAULT is a usage error before any worker starts.
golden run-fault-malformed 64 env MCINIT_FAULT=1:grups:crash $M run --allow-no-cuda --nproc-per-node 2 $J
golden run-fault-bad-kind 64 env MCINIT_FAULT=1:groups:crsh $M run --allow-no-cuda --nproc-per-node 2 $J
golden run-fault-no-rank 64 env MCINIT_FAULT=groups:crash $M run --allow-no-cuda --nproc-per-node 2 $J
# Without a launcher the library reads it too: a single process.
check run-fault-single-exit sh -c "MCINIT_FAULT=0:seeds:exit $M run --allow-no-cuda $J >/dev/null 2>&1; [ \$? = 3 ]"
# Rank 0 serving the store itself (torchrun's contract, no agent store)
# crashes: rank 1 names the store it lost and who served it, at once.
P=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
check run-fault-rank0-store-lost sh -c "
	for r in 0 1; do
	MCINIT_FAULT=0:groups:crash WORLD_SIZE=2 RANK=\$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$P \
		timeout -k 5 $((30 * slow)) $M run --allow-no-cuda --timeout $((5 * slow)) $J >$tmp/s\$r.out 2>&1 &
	done
	wait %1; r0=\$?; wait %2; r1=\$?
	cat $tmp/s1.out
	[ \$r0 = 139 ] && [ \$r1 = 69 ] && grep -q 'lost the store at 127.0.0.1:$P, served by rank 0' $tmp/s1.out"
# Slow but alive, without a launcher to stop it: rank 1 stalls in groups;
# rank 0 (serving the store) gives up naming it, and rank 1, awake again,
# finds the store gone and says so, instead of waiting for ever.
P=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
check run-fault-stall-alone sh -c "
	start=\$(date +%s)
	for r in 0 1; do
	MCINIT_FAULT=1:groups:stall WORLD_SIZE=2 RANK=\$r MASTER_ADDR=127.0.0.1 MASTER_PORT=$P \
		timeout -k 5 $((30 * slow)) $M run --allow-no-cuda --timeout $TO $J >$tmp/a\$r.out 2>&1 &
	done
	wait %1; r0=\$?; wait %2; r1=\$?
	end=\$(date +%s)
	cat $tmp/a0.out $tmp/a1.out
	[ \$r0 = 75 ] && grep -q '^mcinit run: rank 0: groups: rank 1 never arrived' $tmp/a0.out &&
	[ \$r1 = 69 ] && grep -q 'lost the store at 127.0.0.1:$P, served by rank 0' $tmp/a1.out &&
	[ \$((end - start)) -le $((3 * TO + 3 * slow)) ]"
finish
