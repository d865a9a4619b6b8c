#!/bin/sh
# CLI tests for `mcinit validate`: exit codes, locations, golden output.
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
base="--num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 128 --max-position-embeddings 128 --micro-batch-size 1"

# The type=bool trap, as flags.
golden lazy-false 1 $M validate -- $base --lazy-mpu-init False
golden lazy-true 0 $M validate -- $base --lazy-mpu-init True
golden lazy-alone 0 $M validate -- $base --lazy-mpu-init
golden lazy-alone-r016 0 $M validate --megatron-version=r0.16 -- $base --lazy-mpu-init
check lazy-false-names-flag sh -c "$M validate -- $base --lazy-mpu-init False 2>&1 | grep -q '^argv:[0-9]*: error\[MC001\]: .--lazy-mpu-init False'"
check lazy-alone-no-mc001 sh -c "! $M validate -- $base --lazy-mpu-init 2>&1 | grep -q MC001"

# JSON inputs: located type errors, did-you-mean, duplicates.
golden json-lazy-string 1 $M validate lazy-string.json
golden json-misspelled 1 $M validate misspelled.json
golden json-duplicate 1 $M validate duplicate.json
golden json-malformed 65 $M validate malformed.json
golden missing-file 66 $M validate no-such-file.json
golden unknown-kind 64 $M validate job.toml
# --format=json prints JSON whatever happens: a fatal error with its place.
golden json-fatal-malformed 65 $M validate --format=json malformed.json
golden json-fatal-missing 66 $M validate --format=json no-such-file.json
check json-fatal-is-json sh -c "$M validate --format=json malformed.json 2>/dev/null |
	python3 -c 'import json,sys; e=json.load(sys.stdin)[\"error\"]; sys.exit(not (e[\"line\"], e[\"column\"], e[\"code\"]) == (4, 3, \"parse\"))'"
check json-fatal-stderr-empty sh -c "$M validate --format=json malformed.json 2>&1 >/dev/null | (! grep .)"
# Command-line words are located by their index in argv, not a line.
golden json-argv-index 1 $M validate --format=json --world-size 8 -- --tensor-model-parallel-size x

# Launch scripts: flags located where they were written, even inside arrays.
golden launch-script 1 $M validate --world-size 8 launch.sh

# Python lint.
golden py-type-bool 0 $M validate args.py -- $base

# Overrides and flags combined, several mistakes reported at once.
golden many-mistakes 1 $M validate model.tensor_model_paralel_size=2 model.num_layers=many -- $base --seq-lenght 128 --world-size-x 2

# MC010 with a world size from the option and from the environment.
golden mc010-option 1 $M validate --world-size 12 -- $base --tensor-model-parallel-size 8
golden mc010-env 1 env WORLD_SIZE=6 $M validate -- $base --tensor-model-parallel-size 4

# Usage errors.
golden bad-option 64 $M validate --no-such-option
golden bad-world-size 64 $M validate --world-size zero

# JSON output parses and agrees with the exit status.
check json-output-parses sh -c "$M validate --format=json -- $base --lazy-mpu-init False | python3 -m json.tool >/dev/null"
check json-output-valid-false sh -c "$M validate --format=json -- $base --lazy-mpu-init False | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"valid\"] is False and d[\"diagnostics\"][0][\"code\"]==\"MC001\"'"
check print-config-applies-derived sh -c "$M validate --print-config $srcdir/examples/llama3-8b.json 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"model\"][\"kv_channels\"] == 128 and d[\"launch\"][\"world_size\"] == 8 and d[\"model\"][\"params_dtype\"] == \"bf16\"'"
check json-shape-exact sh -c "$M validate --format=json $srcdir/examples/llama3-8b.json | python3 -c 'import json,sys; assert sorted(json.load(sys.stdin)) == [\"derived\", \"diagnostics\", \"valid\"]'"
check print-config sh -c "$M validate --print-config -- $base --tensor-model-parallel-size 2 | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"model\"][\"tensor_model_parallel_size\"]==2 and d[\"dist\"][\"distributed_timeout_minutes\"]==10'"

# The bundled examples are valid.
for ex in "$srcdir"/examples/*.json; do
	check "example-$(basename "$ex")" $M validate "$ex"
done
# --each: every input its own job; the worst status wins.
check each-examples-valid sh -c "$M validate --each $srcdir/examples/*.json >/dev/null 2>&1"
check each-json-lists-results sh -c "$M validate --each --format=json $srcdir/examples/*.json | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"valid\"] and len(d[\"results\"]) >= 7 and all(r[\"valid\"] for r in d[\"results\"])'"
check each-invalid-is-1 sh -c "$M validate --each $srcdir/examples/llama3-8b.json duplicate.json >/dev/null 2>&1; test \$? -eq 1"
check each-missing-is-66 sh -c "$M validate --each duplicate.json no-such.json >/dev/null 2>&1; test \$? -eq 66"
# Checks Megatron gates on the Transformer Engine / torch version: decided
# once the versions are declared (tests/configs/MC200, MC201), else a note
# that names each, never an error.
golden te-undeclared-note 0 $M validate --world-size 8 -- $base --qk-clip --qk-clip-alpha 0.5 --qk-clip-threshold 100 --symmetric-ar-type two_shot
golden te-declared-old 1 $M validate --te-version 1.13 --torch-version 2.9.1 --world-size 8 -- $base --qk-clip --qk-clip-alpha 0.5 --qk-clip-threshold 100 --symmetric-ar-type two_shot
golden te-declared-new 0 $M validate --te-version 2.14 --torch-version 2.9.1 --world-size 8 -- $base --qk-clip --qk-clip-alpha 0.5 --qk-clip-threshold 100 --symmetric-ar-type two_shot
golden te-version-config-key 0 $M validate 'launch.te_version="2.14.0"' 'launch.torch_version="2.9.1"' --world-size 8 -- $base --symmetric-ar-type two_shot
golden te-version-not-a-version 64 $M validate --te-version 2.x --world-size 8 -- $base

check merged-inputs-last-wins sh -c "$M validate --print-config $srcdir/examples/llama3-8b.json $srcdir/examples/gpt3-175b.json 2>/dev/null | python3 -c 'import json,sys; assert json.load(sys.stdin)[\"model\"][\"num_layers\"] == 96'"
check help-mentions-exit-codes sh -c "$M validate --help | grep -q 'Exit status'"
check version sh -c "$M --version | grep -q '^mcinit '"

finish
