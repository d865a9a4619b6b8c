# scan.sh — what a test run can leave behind on the machine (sourced by
# begin.sh and end.sh).  Every test of `make check' runs with
# MCINIT_TESTSUITE set to the build directory and TMPDIR inside it
# (AM_TESTS_ENVIRONMENT), which is how a leftover is told from the rest of
# the machine.

# marked_pids MARK: processes other than this one's own test tree whose
# environment holds MCINIT_TESTSUITE=MARK, one "PID COMMAND" per line.
# The driver that runs this script and its children (awk, the script)
# carry the mark too: they are excluded by walking up to the outermost
# marked ancestor and leaving out everything below it.
marked_pids() {
	mark="MCINIT_TESTSUITE=$1"
	top=
	p=$$
	while [ "$p" -gt 1 ] 2>/dev/null; do
		{ tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "$mark" && top=$p
		p=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null)
		[ -n "$p" ] || break
	done
	for d in /proc/[0-9]*; do
		pid=${d#/proc/}
		{ tr '\0' '\n' <"$d/environ"; } 2>/dev/null | grep -qxF "$mark" || continue
		below_top "$pid" "$top" && continue
		printf '%s %s\n' "$pid" "$({ tr '\0' ' ' <"$d/cmdline"; } 2>/dev/null | cut -c1-120)"
	done
}

# below_top PID TOP: whether PID is TOP or one of its descendants.
below_top() {
	[ -n "$2" ] || return 1
	q=$1
	while [ -n "$q" ] && [ "$q" -gt 0 ] 2>/dev/null; do
		[ "$q" = "$2" ] && return 0
		q=$(awk '/^PPid:/ { print $2 }' "/proc/$q/status" 2>/dev/null)
	done
	return 1
}

# machine_state: mount points, named network namespaces and /dev/shm
# entries, sorted, one per line with its kind.
machine_state() {
	awk '{ print "mount " $5 }' /proc/self/mountinfo
	for f in /run/netns/* /dev/shm/*; do
		[ -e "$f" ] && echo "path $f"
	done
	true
}
