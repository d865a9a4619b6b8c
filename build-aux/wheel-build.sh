#!/bin/sh
# wheel-build.sh SRCDIR BUILDDIR STAGE — the autotools build behind the
# Python wheel (CMakeLists.txt runs it for scikit-build-core).  Builds
# mcinit and libmcinit.so in BUILDDIR and lays out in STAGE what the
# package `mcinit` carries:
#
#   STAGE/bin/mcinit            the program (RUNPATH $ORIGIN/../lib)
#   STAGE/lib/libmcinit.so.4    the library (RUNPATH $ORIGIN)
#   STAGE/lib/libyaml-0.so.2    vendored: mcinit opens libyaml at run time
#                               (lib/input/yamldl.c) by its soname, which the
#                               dynamic loader looks up in the RUNPATH of the
#                               object that calls dlopen
#   STAGE/lib/libhwloc.so.N, libudev.so.1  vendored the same way (hwlocdl.c;
#                               hwloc needs libudev, which a container may lack)
#   STAGE/include/mcinit.h, STAGE/share/{man,bash-completion,zsh,fish}
#
#   STAGE/lib/libjansson.so.4   vendored: linked (DT_NEEDED), found through
#                               the same RUNPATH (Debian's libjansson.a is
#                               built for executables, not for a shared library)
#
# So nothing beyond glibc is needed on the user's machine.  CUDA and
# NCCL are never linked (they are opened at run time, from the user's
# environment).  Environment: MCINIT_CONFIGURE_FLAGS (extra flags for
# configure), MAKEFLAGS.
set -eu
src=$(cd "$1" && pwd)
build=$2
stage=$3
mkdir -p "$build" "$stage"
build=$(cd "$build" && pwd)
stage=$(cd "$stage" && pwd)

if [ ! -x "$src/configure" ]; then
	echo "wheel-build: bootstrapping (autoreconf -fi)"
	(cd "$src" && autoreconf -fi)
fi
jobs=$(nproc 2>/dev/null || echo 2)
prefix=$build/prefix
cd "$build"
if [ ! -f Makefile ] || [ "$src/configure" -nt Makefile ]; then
	# shellcheck disable=SC2086
	"$src/configure" --prefix="$prefix" --with-cuda=no --disable-packed-relocs ${MCINIT_CONFIGURE_FLAGS:-}
fi
make -j"$jobs"
make install >/dev/null

rm -rf "$stage"/*
mkdir -p "$stage/bin" "$stage/lib" "$stage/include" "$stage/share"
cp "$prefix/bin/mcinit" "$stage/bin/"
cp -L "$prefix/lib/libmcinit.so.4" "$stage/lib/"
cp "$prefix/include/mcinit.h" "$stage/include/"
cp -R "$prefix/share/man" "$stage/share/"
for d in bash-completion zsh fish; do
	[ -d "$prefix/share/$d" ] && cp -R "$prefix/share/$d" "$stage/share/"
done

# The libraries mcinit opens at run time, by the sonames configure found
# (build.h), from where pkg-config says they are.
soname() { sed -n "s/^#define $1 \"\\(.*\\)\"/\\1/p" "$build/build.h"; }
libdir() { sed -n "s/^#define $1 \"\\(.*\\)\"/\\1/p" "$build/build.h"; }
yaml=$(libdir MCINIT_YAML_LIBDIR)/$(soname MCINIT_YAML_SONAME)
hwloc=$(libdir MCINIT_HWLOC_LIBDIR)/$(soname MCINIT_HWLOC_SONAME)
cp -L "$yaml" "$hwloc" "$stage/lib/"
# what the library links (jansson) and hwloc's own dependencies (libudev on
# Debian), beyond glibc
for dep in $(ldd "$stage/lib/libmcinit.so.4" "$hwloc" | awk '$3 ~ /^\// {print $3}' | sort -u); do
	case $(basename "$dep") in
	libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | ld-linux*) ;;
	libmcinit.so.*) ;;
	*) cp -L "$dep" "$stage/lib/" ;;
	esac
done

# The program finds the vendored libraries beside the library; each
# library finds its neighbours.
"${PATCHELF:-patchelf}" --set-rpath '$ORIGIN/../lib' "$stage/bin/mcinit"
for f in "$stage"/lib/*.so*; do
	chmod u+w "$f"
	"${PATCHELF:-patchelf}" --set-rpath '$ORIGIN' "$f"
done
strip --strip-unneeded "$stage/bin/mcinit" "$stage"/lib/*.so*
echo "wheel-build: staged in $stage"
ls -l "$stage/bin" "$stage/lib"
