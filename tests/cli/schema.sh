#!/bin/sh
# CLI tests for `mcinit schema`: the JSON Schema generated from schema.def.
. "$srcdir/tests/cli/lib.sh"

M=$MCINIT
$M schema >"$tmp/schema.json"
check schema-parses python3 -m json.tool "$tmp/schema.json"
check schema-has-every-section python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
bridge = {"rng","rerun_state_machine","train","model","optimizer","optimizer_config_override_provider",
          "ddp","validation","scheduler","dataset","logger","tokenizer","checkpoint","dist","ft",
          "straggler","nvrx_straggler","profiling","peft","comm_overlap","mixed_precision",
          "tensor_inspect","inprocess_restart"}
assert set(s["properties"]) >= bridge | {"launch","megatron","env_vars"}, s["properties"].keys()
assert "alias of dist.lazy_mpu_init" in s["properties"]["dist"]["properties"]["lazy_init"]["description"]
assert s["properties"]["optimizer"]["properties"]["lr"]["anyOf"][1]["type"] == "number"
m = s["properties"]["model"]
assert "num_layers" in m["required"]
cp = m["properties"]["cp_comm_type"]
assert len(cp["anyOf"]) == 3, cp
assert m["properties"]["tensor_model_parallel_size"]["minimum"] == 1
assert s["properties"]["train"]["properties"]["rampup_batch_size"]["anyOf"][0]["maxItems"] == 3
' "$tmp/schema.json"

# Where the jsonschema module exists, the examples conform and a bad file does not.
if python3 -c 'import jsonschema' 2>/dev/null; then
	for ex in "$srcdir"/examples/*.json; do
		check "schema-accepts-$(basename "$ex")" python3 -c '
import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
' "$tmp/schema.json" "$ex"
	done
	check schema-rejects-misspelling python3 -c '
import json, sys, jsonschema
try:
    jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))
except jsonschema.ValidationError:
    sys.exit(0)
sys.exit(1)
' "$tmp/schema.json" "$srcdir/tests/cli/inputs/misspelled.json"
else
	skip schema-accepts-examples "no python3 jsonschema module (Debian: python3-jsonschema)"
fi
finish
