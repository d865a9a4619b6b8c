#!/bin/sh
# CLI tests for YAML inputs (Megatron-Bridge's shape, read as Bridge's
# OmegaConf loader reads it): the same diagnostics as JSON, located at
# FILE:LINE:COL, and YAML's own traps reported.
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
cd "$cli/inputs" || exit 1

golden yaml-bridge-job 0 $M validate yaml/bridge-job.yaml
golden yaml-traps 1 $M validate yaml/traps.yaml
golden yaml-dup 1 $M validate yaml/dup.yaml
golden yaml-syntax 65 $M validate yaml/syntax.yaml
golden yaml-tab 65 $M validate yaml/tab.yaml
golden yaml-multidoc 65 $M validate yaml/multidoc.yaml
golden yaml-interp 1 $M validate yaml/interp.yaml
golden yaml-merge 1 $M validate yaml/merge.yaml
golden yaml-tags 1 $M validate yaml/tags.yaml
golden yaml-utf8 1 $M validate yaml/utf8.yaml
golden yaml-crlf 1 $M validate yaml/crlf.yaml
golden yaml-list 1 $M validate yaml/list.yaml
golden yaml-empty-plus-flags 0 $M validate yaml/empty.yaml -- --num-layers 4 --hidden-size 256 --num-attention-heads 8 --seq-length 128 --micro-batch-size 1 --train-iters 10
golden yaml-bridge-example 0 $M validate ../../../examples/bridge/llama32_1b_pretrain.yaml
golden yaml-missing 66 $M validate yaml/no-such.yml
# The file a ConfigContainer is read from goes through yaml.safe_load
# (from_yaml): `3e-4` has no dot, so PyYAML reads the string '3e-4'
# (refused, with the fix: Bridge's dataclass keeps the str, and the
# optimizer's arithmetic on it raises TypeError, issue 38); `3.0e-5` is a
# float.
golden yaml-pyyaml-floats 1 $M validate yaml/pyyaml-floats.yaml
# ... and a YAML 1.1 float past the double range (`1.0e+309`) is PyYAML's
# inf, as `.inf` is: a float field holds it (it was "got a string")
sed 's/^  lr: 0.0003$/  lr: 1.0e+309/' "$srcdir/tests/bridge/0.6.2/llama3_8b_pretrain_2gpu_h100_bf16.yaml" >"$tmp/big.yaml"
check yaml-float-overflow-is-inf sh -c "$M validate --world-size 2 --print-config '$tmp/big.yaml' 2>/dev/null |
	python3 -c 'import json,sys; v=json.load(sys.stdin)[\"optimizer\"][\"lr\"]; sys.exit(0 if v in (\"inf\", float(\"inf\")) else \"got %r\" % (v,))'"

# A YAML file and its JSON twin are the same job.
check yaml-json-same-config sh -c "$M validate --print-config yaml/bridge-job.yaml >$tmp/y 2>/dev/null; $M validate --print-config yaml/bridge-job.json >$tmp/j 2>/dev/null; cmp $tmp/y $tmp/j"
# Merged with JSON left to right, like any input; .yml too.
check yaml-merges-with-json sh -c "cp yaml/bridge-job.yaml $tmp/x.yml && $M validate --print-config yaml/bridge-job.json $tmp/x.yml model.num_layers=8 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin); assert d[\"model\"][\"num_layers\"] == 8 and d[\"model\"][\"max_position_embeddings\"] == 4096'"
check yaml-json-output sh -c "$M validate --format=json yaml/traps.yaml | python3 -c 'import json,sys; d=json.load(sys.stdin); assert not d[\"valid\"] and any(x[\"code\"] == \"MC001\" and x[\"line\"] == 8 for x in d[\"diagnostics\"])'"

# libyaml is opened only when a YAML input is read (lib/input/yamldl.c): a
# JSON input never loads it, and without it a YAML input fails naming it
# (69, EX_UNAVAILABLE) while JSON still validates the same.
if [ -z "${MCINIT_WRAPPER:-}" ] && LD_DEBUG=files $M --help 2>&1 >/dev/null | grep -q 'file=libc\.so'; then
	check json-loads-no-libyaml sh -c "! LD_DEBUG=files $M validate yaml/bridge-job.json 2>&1 | grep -q 'file=libyaml'"
	check yaml-loads-libyaml sh -c "LD_DEBUG=files $M validate yaml/bridge-job.yaml 2>&1 | grep -q 'file=libyaml'"
else
	skip json-loads-no-libyaml "LD_DEBUG does not trace this mcinit (a wrapper, or a secure-execution loader)"
	skip yaml-loads-libyaml "LD_DEBUG does not trace this mcinit (a wrapper, or a secure-execution loader)"
fi
check yaml-without-libyaml-is-69 sh -c "MCINIT_YAML_LIBRARY=$tmp/none $M validate yaml/bridge-job.yaml >'$tmp/noyaml' 2>&1; test \$? -eq 69 && grep -q 'yaml/bridge-job.yaml: libyaml is needed.*MCINIT_YAML_LIBRARY=' '$tmp/noyaml'"
check json-without-libyaml sh -c "$M validate yaml/bridge-job.json >'$tmp/j1' 2>&1; a=\$?; MCINIT_YAML_LIBRARY=$tmp/none $M validate yaml/bridge-job.json >'$tmp/j2' 2>&1; test \$? -eq \$a && cmp -s '$tmp/j1' '$tmp/j2'"

finish
