#!/bin/sh
# hygiene.sh — the library (lib/) and the program (src/) kept apart, and the
# library kept in layers.  Checked on the sources themselves:
#   - what the library must not do: end the process, write to the standard
#     streams, touch the environment, or choose exit statuses (the program
#     in src/ does those; lib/*/*.def are data, Megatron's own flag names and
#     help are rows there);
#   - every lib/ source is built into the library, no src/ source is;
#   - layering: HACKING's "layers:" line lists the modules (the folders of
#     lib/) lowest first; a file includes headers of its own module and of
#     modules below it, never above, and a lib/ file nothing from src/.
. "$srcdir/tests/cli/lib.sh"

cd "$srcdir" || exit 1
ls lib/*/*.c >"$tmp/files"
check library-sources-found test "$(wc -l <"$tmp/files")" -ge 40
# Ending the process is a call (exit, _Exit, quick_exit, abort, or one
# registered with atexit); the word in prose or in a message is not.
xargs grep -nE '(^|[^A-Za-z0-9_])(exit|_Exit|quick_exit|abort|atexit)[ \t]*\(|\bstderr\b' <"$tmp/files" >"$tmp/exit"
check no-exit-abort-stderr sh -c "! grep . '$tmp/exit'"
# A process the library forks ends with _exit, never the caller's: only
# the launcher forks (lib/run/supervisor.c: its watchdog, and a worker
# whose exec failed).
xargs grep -nE '(^|[^A-Za-z0-9_])_exit[ \t]*\(' <"$tmp/files" | grep -v '^lib/run/supervisor\.c:' >"$tmp/_exit"
check no-_exit-but-in-forked-children sh -c "! grep . '$tmp/_exit'"
xargs grep -nE '\b(stdout|stdin|setenv|unsetenv|putenv|clearenv|argp_[a-z_]+)\b|(^|[^a-z_])(printf|vprintf|puts|putchar|perror|assert)\(' <"$tmp/files" >"$tmp/print"
check no-stdout-env-argp sh -c "! grep . '$tmp/print'"
xargs grep -n 'sysexits\|\bEX_[A-Z]' <"$tmp/files" >"$tmp/sysexits"
check no-sysexits sh -c "! grep . '$tmp/sysexits'"
# The program's sources name no library internals of hwloc or jansson
# through the public header: it includes only the C library.
check public-header-self-contained sh -c \
	"! grep '^#include' '$srcdir/include/mcinit.h' | grep -v '<std\(def\|io\)\.h>'"

# Built where it belongs: each lib/ source is named by a lib_ variable of
# Makefile.am (the core library, its GPU backend or its kernels), each
# src/ source by src_mcinit_SOURCES or a test, never by a lib_ variable.
awk '/^[a-z_]+_SOURCES \+?= / { on = 1; v = $1 }
	on { c = sub(/\\$/, ""); n = split($0, w, /[ \t]+/)
	     for (i = 1; i <= n; i++) if (w[i] ~ /\.c$/) print v, w[i]; on = c }' Makefile.am >"$tmp/built"
for f in $(cat "$tmp/files"); do
	grep -q "^lib_[A-Za-z_]* $f\$" "$tmp/built" ||
		grep -q "EXTRA_DIST.*$f" Makefile.am || echo "$f"
done >"$tmp/unbuilt"
check every-lib-source-in-library sh -c "! grep . '$tmp/unbuilt'"
grep '^lib_[A-Za-z_]* src/' "$tmp/built" >"$tmp/src-in-lib" || true
check no-src-source-in-library sh -c "! grep . '$tmp/src-in-lib'"

# No fused multiply-add in the library: the memory estimates are Python's
# arithmetic to the byte, which an FMA changes in the last bit (issue 42).
check lib-no-fp-contraction grep -q '^LIB_CFLAGS = .*-ffp-contract=off' "$PWD/Makefile.am"

# Layering: one line of HACKING gives the order.
layers=$(sed -n 's/^ *layers: *//p' HACKING)
check layers-declared test -n "$layers"
rank() {
	i=0
	for m in $layers; do
		i=$((i + 1))
		[ "$m" = "$1" ] && { echo $i; return; }
	done
	echo 0
}
: >"$tmp/layering"
for d in lib/*/; do
	m=$(basename "$d")
	r=$(rank "$m")
	[ "$r" -gt 0 ] || { echo "lib/$m: a module missing from HACKING's layers line"; continue; }
	for f in "$d"*.[ch] "$d"*.cu; do
		[ -f "$f" ] || continue
		sed -n 's/^[ \t]*#[ \t]*include[ \t]*"\([^"]*\)".*/\1/p' "$f" | while read -r inc; do
			case $inc in
			build.h | mcinit.h | private/mcinit-tool.h) ;; # include/: under every module
			*/*)
				im=${inc%%/*}
				ir=$(rank "$im")
				if [ "$ir" -eq 0 ]; then
					echo "$f: includes $inc, not a module of lib/"
				elif [ "$ir" -gt "$r" ]; then
					echo "$f: includes $inc, from $im, a module above $m"
				fi
				;;
			*)
				[ -f "$d$inc" ] || echo "$f: includes \"$inc\", which is not in lib/$m (src/?)"
				;;
			esac
		done
	done
done >>"$tmp/layering"
check layering sh -c "! grep . '$tmp/layering'"
finish
