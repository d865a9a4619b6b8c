#!/bin/sh
# svg-chromium.sh [FILE.svg] — renders a topology SVG with headless Chromium
# and checks that the screenshot has the SVG's size and is not blank.
#
# Without FILE it draws `mcinit topology --format=svg` ($MCINIT) for 4 nodes
# of the 8-GPU fixture (tests/fixtures/dgx8-2s.xml) with TP=8 PP=2.  "Not
# blank" is judged against a screenshot of an empty white SVG of the same
# size: a real picture compresses far worse than a uniform one.  The PNG is
# kept when $SVG_CHROMIUM_KEEP names a file.
#
# Prints TAP (one check, run by automake's tap-driver.sh); without Chromium
# (Debian: chromium) the check is skipped with the reason.
set -u

browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
	for b in chromium chromium-browser google-chrome; do
		if command -v "$b" >/dev/null 2>&1; then
			browser=$b
			break
		fi
	done
fi
if [ -z "$browser" ] || ! command -v "$browser" >/dev/null 2>&1; then
	echo "1..0 # SKIP no chromium found (Debian: chromium)"
	exit 0
fi

srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}

echo "1..1"
# bad WHY: the one check failed; what follows it (a log) is printed as comments.
bad() {
	echo "not ok 1 - svg-renders-in-chromium"
	echo "# $1"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/svg-chromium.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM

if [ $# -ge 1 ]; then
	svg=$1
else
	if [ -z "${MCINIT:-}" ] || [ ! -x "$MCINIT" ]; then
		bad "MCINIT must name the mcinit binary (or give an SVG file)"
		exit 1
	fi
	svg=$tmp/picture.svg
	if ! "$MCINIT" topology --format=svg --world-size 32 --nproc-per-node 8 \
		--hwloc-xml "$srcdir/tests/fixtures/dgx8-2s.xml" \
		"$srcdir/tests/cli/inputs/topology-model.json" model.tensor_model_parallel_size=8 \
		model.pipeline_model_parallel_size=2 >"$svg" 2>"$tmp/mcinit.log"; then
		bad "mcinit topology --format=svg failed:"
		sed 's/^/# /' "$tmp/mcinit.log"
		exit 1
	fi
fi

[ -s "$svg" ] || {
	bad "$svg is missing or empty"
	exit 1
}

# The root element's own width/height (the first ones in the file).
width=$(sed -n 's/.*<svg[^>]* width="\([0-9]*\)".*/\1/p' "$svg" | head -n 1)
height=$(sed -n 's/.*<svg[^>]* height="\([0-9]*\)".*/\1/p' "$svg" | head -n 1)
case "$width$height" in
'' | *[!0-9]*)
	bad "no numeric width/height on the <svg> element"
	exit 1
	;;
esac

cat >"$tmp/blank.svg" <<EOF
<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="$width" height="$height"><rect width="100%" height="100%" fill="#ffffff"/></svg>
EOF

run_timeout=
command -v timeout >/dev/null 2>&1 && run_timeout="timeout 120"

shoot() { # shoot IN.svg OUT.png
	abs=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
	# --no-sandbox: CI runs as root, where Chromium's sandbox refuses to start.
	$run_timeout "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--no-first-run --user-data-dir="$tmp/profile" --window-size="$width,$height" \
		--screenshot="$2" "file://$abs" >>"$tmp/chromium.log" 2>&1
	[ -s "$2" ]
}

if ! shoot "$svg" "$tmp/picture.png" || ! shoot "$tmp/blank.svg" "$tmp/blank.png"; then
	bad "chromium produced no screenshot:"
	tail -n 20 "$tmp/chromium.log" | sed 's/^/# /'
	exit 1
fi

# PNG signature, then IHDR width and height as big-endian 32-bit numbers.
sig=$(od -An -tx1 -N8 "$tmp/picture.png" | tr -d ' \n')
if [ "$sig" != "89504e470d0a1a0a" ]; then
	bad "the screenshot is not a PNG"
	exit 1
fi
be32() { od -An -tu1 -j "$2" -N4 "$1" | awk '{ print (($1 * 256 + $2) * 256 + $3) * 256 + $4 }'; }
pw=$(be32 "$tmp/picture.png" 16)
ph=$(be32 "$tmp/picture.png" 20)
if [ "$pw" -ne "$width" ] || [ "$ph" -ne "$height" ]; then
	bad "screenshot is ${pw}x${ph}, the SVG ${width}x${height}"
	exit 1
fi

size=$(wc -c <"$tmp/picture.png")
blank=$(wc -c <"$tmp/blank.png")
if [ "$size" -lt $((blank * 3 + 4096)) ]; then
	bad "screenshot looks blank ($size bytes; an empty page is $blank)"
	exit 1
fi

if [ -n "${SVG_CHROMIUM_KEEP:-}" ]; then
	cp "$tmp/picture.png" "$SVG_CHROMIUM_KEEP"
fi
echo "ok 1 - svg-renders-in-chromium"
echo "# ${width}x${height} screenshot, $size bytes (blank: $blank)"
exit 0
