#!/bin/sh
# hygiene.sh — what the library must not do, checked on its sources (the
# files of src_libmcinit_core_la_SOURCES in Makefile.am): end the process,
# write to the standard streams, touch the environment, or choose exit
# statuses.  The command files (cmd-*.c, cli.c, topo-*.c, mcinit.c) are the
# program, not the library.  schema.def is data: Megatron's own flag names
# and help ("--exit-interval", "Save and exit on exit_signal") are rows.
. "$srcdir/tests/cli/lib.sh"

# Every assignment, = and +=, with its continuation lines.
awk '/^src_libmcinit_core_la_SOURCES \+?= / { on = 1; sub(/^[^=]*=/, "") }
	on { c = sub(/\\$/, ""); print; on = c }' "$srcdir/Makefile.am" | tr ' \t' '\n\n' |
	grep -v '^$' | grep -v '\.def$' >"$tmp/files"
check library-sources-listed test "$(wc -l <"$tmp/files")" -ge 20
check library-has-no-command-file sh -c "! grep -E 'cmd-|cli\\.|topo-|mcinit\\.c' '$tmp/files'"
(cd "$srcdir" && xargs grep -n 'exit\|abort\|stderr' <"$tmp/files") >"$tmp/exit"
check no-exit-abort-stderr sh -c "! cat '$tmp/exit' | grep ."
(cd "$srcdir" && xargs grep -nE '\b(stdout|stdin|setenv|unsetenv|putenv|clearenv|argp_[a-z_]+)\b|(^|[^a-z_])(printf|vprintf|puts|putchar|perror|assert)\(' <"$tmp/files") >"$tmp/print"
check no-stdout-env-argp sh -c "! cat '$tmp/print' | grep ."
check no-sysexits sh -c "cd '$srcdir' && ! xargs grep -n 'sysexits\|\\bEX_[A-Z]' <'$tmp/files'"
# The program's sources name no library internals of hwloc or jansson
# through the public header: it includes only the C library.
check public-header-self-contained sh -c \
	"! grep '^#include' '$srcdir/include/mcinit.h' | grep -v '<std\(def\|io\)\.h>'"
finish
