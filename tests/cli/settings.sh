#!/bin/sh
# tests/cli/settings.sh — a repository's settings (mcinit.toml, or
# pyproject.toml's [tool.mcinit]) as `mcinit validate` reads them: the
# nearest file upward from the input, the command line winning over it,
# --no-config ignoring it, a malformed file refused with its place, and
# messages naming the file a value came from (not an option nobody gave).
. "$srcdir/tests/cli/lib.sh"
cd "$tmp" || exit 1
mkdir -p repo/configs/deep pyp/configs plain
printf '{"model": {"tensor_model_parallel_size": 3}}\n' >tp3.json
cp tp3.json repo/configs/deep/bad.json
cp tp3.json pyp/configs/bad.json
cp tp3.json plain/bad.json
cp "$srcdir/examples/llama3-8b.json" repo/configs/deep/good.json
printf '# the cluster\nworld_size = 8\noverrides = ["train.micro_batch_size=2"]\n' >repo/mcinit.toml
printf '[project]\nname = "x"\n[tool.mcinit]\nworld-size = 16\n' >pyp/pyproject.toml
M=$MCINIT
v() { $M validate --format=json "$@" 2>&1; }

# llama3-8b: TP 2, global batch 128; 8 GPUs, micro-batch 2: 128 / (2 x 4) = 16
v repo/configs/deep/good.json >out
check "mcinit.toml two levels up: its world size, and where it came from" sh -c "
	grep -q '\"world_size\": 8,' '$tmp/out' && grep -q '\"world_size_source\": \"world_size of .*repo/mcinit.toml\"' '$tmp/out'"
check "mcinit.toml's overrides apply (16 micro-batches, not 32)" grep -q '"num_micro_batches": 16,' "$tmp/out"
v repo/configs/deep/good.json train.micro_batch_size=4 >out
check "the command line's override comes after the file's (8 micro-batches)" grep -q '"num_micro_batches": 8,' "$tmp/out"
$M validate repo/configs/deep/bad.json >out 2>&1
check "the message names the file, not --world-size" grep -q "world size 8 (from world_size of .*repo/mcinit.toml)" "$tmp/out"
$M validate repo/configs/deep/bad.json --world-size 4 >out 2>&1
check "--world-size wins over the file, and is named" grep -q "world size 4 (from --world-size)" "$tmp/out"
$M validate --no-config repo/configs/deep/bad.json >out 2>&1
check "--no-config: the file is not read (world size 1, the default)" grep -q "world size 1 (from default)" "$tmp/out"
$M validate pyp/configs/bad.json >out 2>&1
check "pyproject.toml's [tool.mcinit] (world-size spelled with a dash)" grep -q "world size 16 (from world_size of .*pyp/pyproject.toml)" "$tmp/out"
$M validate plain/bad.json >out 2>&1
check "no settings file upward: the default" grep -q "world size 1 (from default)" "$tmp/out"
printf 'world_size = "eight"\n' >plain/mcinit.toml
$M validate plain/bad.json >out 2>&1
rc=$?
check "a malformed file: refused with its place, non-zero exit" sh -c "test $rc != 0 && grep -q 'mcinit.toml:1:' '$tmp/out'"
printf 'wrold_size = 8\n' >plain/mcinit.toml
$M validate plain/bad.json >out 2>&1
rc=$?
check "an unknown key: refused, named" sh -c "test $rc != 0 && grep -q 'wrold_size' '$tmp/out'"
finish
