#!/bin/sh
# build-aux/facts.sh SRCDIR — `make facts`: regenerate every extracted table
# of SRCDIR/data from the inputs pinned in SRCDIR/data/facts.lock.
#
#   the releases (data/releases/*/): their wheels, downloaded with pip into
#       $FACTS_CACHE (kept between runs) and checked against the lock's sha256;
#       each directory's own tables give back the notes a person wrote
#   the main snapshot (data/*.tsv) and the per-release Megatron-LM tables
#       (megatron-flags.tsv's refs): only when $MLM and $BRIDGE name clones or
#       bare mirrors of Megatron-LM and Megatron-Bridge holding the lock's
#       commits; otherwise skipped, and said so
#
# Then `git diff data/` is what changed.  Environment: PYTHON3 (python3),
# PIP ($PYTHON3 -m pip), FACTS_CACHE (${XDG_CACHE_HOME:-~/.cache}/mcinit/facts),
# MLM, BRIDGE, FACTS_OFFLINE=1 (use the cache only, never pip: exit 77 when a
# wheel is missing, for tests/cli/facts.sh), FACTS_WRITTEN=FILE (list there
# every table written, for the same).
set -eu

srcdir=${1:?usage: facts.sh SRCDIR}
PYTHON3=${PYTHON3:-python3}
PIP=${PIP:-"$PYTHON3 -m pip"}
FACTS_CACHE=${FACTS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mcinit/facts}
MLM=${MLM:-}
BRIDGE=${BRIDGE:-}
FACTS_OFFLINE=${FACTS_OFFLINE:-}
FACTS_WRITTEN=${FACTS_WRITTEN:-/dev/null}

# put FILE TABLE: FILE is the new TABLE (a path below the source tree)
put() {
    cp "$1" "$2"
    printf '%s\n' "$2" >>"$FACTS_WRITTEN"
}
say() { printf 'facts: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
abspath() { (cd "$1" && pwd); }

# the git sources are named relative to where make ran
[ -z "$MLM" ] || MLM=$(abspath "$MLM") || die "MLM=$MLM: no such directory"
[ -z "$BRIDGE" ] || BRIDGE=$(abspath "$BRIDGE") || die "BRIDGE=$BRIDGE: no such directory"
srcdir=$(abspath "$srcdir")
cd "$srcdir"
lock=data/facts.lock
extract="$PYTHON3 build-aux/extract-facts.py"
[ -f "$lock" ] || die "$lock: missing"
mkdir -p "$FACTS_CACHE"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/facts.XXXXXX")
trap 'rm -rf "$tmp"' EXIT HUP INT TERM
start=$(date +%s)

# the lock's rows (comments dropped): into role name source digest
lockrows() { grep -v '^#' "$lock" | tail -n +2; }

sha256() { "$PYTHON3" -c 'import hashlib,sys
h = hashlib.sha256()
with open(sys.argv[1], "rb") as f:
    for b in iter(lambda: f.read(1 << 20), b""):
        h.update(b)
print("sha256:" + h.hexdigest())' "$1"; }

# fetch WHEEL DIGEST: the wheel into the cache, exactly the locked file
fetch() {
    whl=$1 digest=$2
    if [ -f "$FACTS_CACHE/$whl" ] && [ "$(sha256 "$FACTS_CACHE/$whl")" = "$digest" ]; then
        return 0
    fi
    if [ -n "$FACTS_OFFLINE" ]; then
        say "$whl: not in $FACTS_CACHE (FACTS_OFFLINE)"
        exit 77
    fi
    # name-version-python-abi-platform.whl: pip is told that platform, so
    # that it picks this file whatever machine it runs on
    set -- $(printf '%s\n' "${whl%.whl}" | tr '-' ' ')
    dist=$(printf '%s' "$1" | tr '_' '-')
    # (a pure wheel's Requires-Python still needs a version: the one the
    # locked wheels were published for)
    opts="--no-deps --only-binary=:all: --quiet --python-version 3.12"
    if [ "$4" != "none" ]; then
        py=${3#cp}
        opts="--no-deps --only-binary=:all: --quiet --implementation cp"
        opts="$opts --python-version ${py%"${py#?}"}.${py#?} --abi $4"
        for plat in $(printf '%s\n' "$5" | tr '.' ' '); do
            opts="$opts --platform $plat"
        done
    fi
    say "pip download $dist==$2"
    $PIP download $opts -d "$tmp/dl" "$dist==$2" >&2 || die "$whl: pip download failed"
    [ -f "$tmp/dl/$whl" ] || die "$whl: pip downloaded $(ls "$tmp/dl") instead"
    got=$(sha256 "$tmp/dl/$whl")
    [ "$got" = "$digest" ] || die "$whl: $got, but $lock says $digest"
    mv "$tmp/dl/$whl" "$FACTS_CACHE/$whl"
}

# ---- the releases: data/releases/DIR from its two wheels
for dir in $(lockrows | cut -f1 | grep '^data/releases/' | sort -u); do
    core=$(lockrows | awk -F'\t' -v d="$dir" '$1 == d && $2 == "core"')
    bridge=$(lockrows | awk -F'\t' -v d="$dir" '$1 == d && $2 == "bridge"')
    [ -n "$core" ] && [ -n "$bridge" ] || die "$lock: $dir needs a core and a bridge row"
    name=$(printf '%s\n' "$core" | cut -f3)
    cwhl=$(printf '%s\n' "$core" | cut -f4)
    bwhl=$(printf '%s\n' "$bridge" | cut -f4)
    fetch "$cwhl" "$(printf '%s\n' "$core" | cut -f5)"
    fetch "$bwhl" "$(printf '%s\n' "$bridge" | cut -f5)"
    rm -rf "$tmp/rel"
    $extract release --core "$FACTS_CACHE/$cwhl" --bridge "$FACTS_CACHE/$bwhl" \
        --name "$name" --into "$tmp/rel" --previous-dir "$dir" --quiet 2>"$tmp/log" ||
        { cat "$tmp/log" >&2; die "$dir: extract-facts.py release failed"; }
    for t in "$tmp"/rel/*.tsv; do
        put "$t" "$dir/${t##*/}"
    done
    say "$dir: from $cwhl and $bwhl ($name)"
done

# ---- the main snapshot and the per-release Megatron-LM tables: git sources
commit() {    # commit ROLE NAME: the lock's commit
    c=$(lockrows | awk -F'\t' -v r="$1" -v n="$2" '$2 == r && $3 == n { print $5 }')
    [ -n "$c" ] || die "$lock: no $1 row named $2"
    printf '%s\n' "${c#commit:}"
}
# data/megatron-versions.tsv and the lock name the same commits
tail -n +2 data/megatron-versions.tsv | while IFS='	' read -r name branch short default; do
    case $(commit training "$name") in
    "$short"*) ;;
    *) die "$lock: $name is not data/megatron-versions.tsv's $short" ;;
    esac
done

if [ -z "$MLM" ] || [ -z "$BRIDGE" ]; then
    say "main snapshot and megatron-flags.tsv skipped: no git sources" \
        "(make facts MLM=Megatron-LM.git BRIDGE=Megatron-Bridge.git)"
else
    for c in "$MLM@$(commit core main)" "$BRIDGE@$(commit bridge main)" \
            "$MLM@$(commit pinned-core "$(lockrows | awk -F'\t' '$2 == "pinned-core" { print $3 }')")"; do
        git -C "${c%@*}" cat-file -e "${c#*@}^{commit}" 2>/dev/null ||
            die "${c#*@}: not in ${c%@*} (fetch it, or point MLM/BRIDGE at a fuller clone)"
    done
    pinned=$(lockrows | awk -F'\t' '$2 == "pinned-core" { print $3 }')
    $extract release --core "$MLM@$(commit core main)" --bridge "$BRIDGE@$(commit bridge main)" \
        --pinned-core "$MLM@$(commit pinned-core "$pinned")" --pinned-name "$pinned" \
        --name main --into "$tmp/main" --previous-dir data --quiet 2>"$tmp/log" ||
        { cat "$tmp/log" >&2; die "main: extract-facts.py release failed"; }
    for t in bridge-config-fields bridge-variant-fields megatron-checks bridge-checks \
            bridge-mixed-precision bridge-loader; do
        put "$tmp/main/$t.tsv" "data/$t.tsv"
    done
    say "data/: main from Megatron-LM $(commit core main) and Megatron-Bridge $(commit bridge main)"
    # the recipes: Megatron-Bridge main alone
    $extract bridge-recipes --bridge "$BRIDGE@$(commit bridge main)" -o "$tmp/recipes.tsv" \
        2>"$tmp/log" || { cat "$tmp/log" >&2; die "bridge-recipes failed"; }
    put "$tmp/recipes.tsv" data/bridge-recipes.tsv
    say "data/bridge-recipes.tsv: Megatron-Bridge $(commit bridge main)"
    # megatron-flags.tsv: every release of data/megatron-versions.tsv, in its order
    rm -f "$tmp/flags.tsv"
    for name in $(tail -n +2 data/megatron-versions.tsv | cut -f1); do
        $extract flags --training "$MLM@$(commit training "$name")" --name "$name" \
            -o "$tmp/f.tsv" 2>"$tmp/log" || { cat "$tmp/log" >&2; die "flags $name failed"; }
        $extract merge --table "$tmp/flags.tsv" --rows "$tmp/f.tsv" 2>"$tmp/log" ||
            { cat "$tmp/log" >&2; die "merge $name failed"; }
    done
    put "$tmp/flags.tsv" data/megatron-flags.tsv
    say "data/megatron-flags.tsv: $(tail -n +2 data/megatron-versions.tsv | cut -f1 | tr '\n' ' ')"
    # the entry scripts, every release at once
    set --
    for name in $(tail -n +2 data/megatron-versions.tsv | cut -f1); do
        set -- "$@" "$name=$MLM@$(commit training "$name")"
    done
    $extract entries "$@" --points "$tmp/ep.tsv" --flags-out "$tmp/ef.tsv" 2>"$tmp/log" ||
        { cat "$tmp/log" >&2; die "entries failed (PYTHON3=python3.12 or newer for r0.15's scripts)"; }
    put "$tmp/ep.tsv" data/megatron-entry-points.tsv
    put "$tmp/ef.tsv" data/megatron-entry-flags.tsv
    say "data/megatron-entry-points.tsv, data/megatron-entry-flags.tsv: the same releases"
fi
say "done in $(($(date +%s) - start)) s; git diff data/ shows what changed"
