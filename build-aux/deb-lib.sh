# shellcheck shell=sh
# deb-lib.sh — what build-aux/deb-build-check.sh and build-aux/deb-check.sh
# share, sourced by both after they define say (their messages' prefix):
# the checks that skip (exit 77, with the reason) where a tool or a build
# dependency is missing, and the build of the packages from a clean clone.
# A clone, not the tree: the packages are built from what is committed,
# without a build directory or an untracked file of the tree leaking in.

# deb_need_tools HINT TOOL...: each TOOL on PATH, else skipped, naming the
# first missing one and HINT (what installs them).
deb_need_tools() {
	hint=$1
	shift
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || {
			say "SKIP: no $t here ($hint)"
			exit 77
		}
	done
}

# deb_need_build_deps SRC: debian/control's Build-Depends as
# dpkg-checkbuilddeps reads them, else skipped with what is missing.
deb_need_build_deps() {
	missing=$(cd "$1" && dpkg-checkbuilddeps 2>&1) || {
		say "SKIP: build dependencies missing: $missing"
		exit 77
	}
}

# deb_build SRC WORK: clones SRC's HEAD into WORK/src and builds the
# packages (dpkg-buildpackage -us -uc -b) into WORK, its log WORK/build.log;
# on failure, the log's tail and exit 1.
deb_build() {
	git clone -q "$1" "$2/src"
	(cd "$2/src" && dpkg-buildpackage -us -uc -b >"$2/build.log" 2>&1) || {
		tail -n 60 "$2/build.log"
		say "FAIL: dpkg-buildpackage"
		exit 1
	}
}
