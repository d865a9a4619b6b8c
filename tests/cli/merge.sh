#!/bin/sh
# merge.sh — a YAML file merged over a Megatron-Bridge ConfigContainer dump,
# as Bridge 0.6.2's example scripts merge `--config-file`
# (process_config_with_overrides: OmegaConf.merge, to_container, then
# apply_overrides onto the dataclasses).  In mcinit a later input merges
# over an earlier one.  The verdicts are Bridge's, from
# tests/oracle/bridge/merge_apply.py on these files (runtime_config_update;
# a plain dict Bridge first uses later, in pretrain, setup or train, is
# refused where it fails), checked with the Bridge venv when these tests
# were written.
. "$srcdir/tests/cli/lib.sh"
M=$MCINIT
OBJ=../../bridge/0.6.2/llama3_70b_pretrain_32gpu_h100_bf16.yaml # mixed_precision, comm_overlap: objects
NAME=../../bridge/0.6.2/llama3_8b_pretrain_2gpu_h100_bf16.yaml  # mixed_precision: bf16_mixed; comm_overlap: null

# the value after the merge: --print-config's line for the key
value_is() { # value_is DUMP FILE SECTION KEY JSON
	$M validate --print-config "$1" "$2" 2>/dev/null |
		python3 -c 'import json,sys; c=json.load(sys.stdin); v=c[sys.argv[1]][sys.argv[2]]; sys.exit(0 if v == json.loads(sys.argv[3]) else print("got", json.dumps(v)) or 1)' "$3" "$4" "$5"
}

# a preset's name replaces the MixedPrecisionConfig object: Bridge makes the
# preset's config anew (get_mixed_precision_config), nothing of the old kept
golden merge-name-over-object 0 $M validate --world-size 32 "$OBJ" merge/name-over-object.yaml
golden merge-name-hyphens-over-object 0 $M validate --world-size 32 "$OBJ" merge/name-hyphens-over-object.yaml
check merge-name-over-object-bf16 value_is "$OBJ" merge/name-over-object.yaml model bf16 false
check merge-name-over-object-fp16 value_is "$OBJ" merge/name-over-object.yaml optimizer fp16 true
# null over a section: None, as OmegaConf merges it
golden merge-null-over-object 0 $M validate --world-size 32 "$OBJ" merge/null-over-object.yaml
golden merge-profiling-null 0 $M validate --world-size 2 "$NAME" merge/profiling-null.yaml

# a file merged over a dump is read by OmegaConf's loader (OmegaConf.load),
# whose float resolver takes `3e-4` (the dump itself, read by PyYAML in
# from_yaml, would hold the string: yaml.sh)
golden merge-float-no-dot 0 $M validate --world-size 2 "$NAME" merge/float-no-dot.yaml
check merge-float-no-dot-value value_is "$NAME" merge/float-no-dot.yaml optimizer lr 0.0003

# a mapping over a preset's name or None stays a plain dict in Bridge
golden merge-map-over-name 1 $M validate --world-size 2 "$NAME" merge/map-over-name.yaml
golden merge-map-over-null 1 $M validate --world-size 2 "$NAME" merge/map-over-null.yaml
golden merge-map-over-null-later 1 $M validate --world-size 2 "$NAME" merge/map-over-null-later.yaml
golden merge-map-over-null-peft 1 $M validate --world-size 2 "$NAME" merge/map-over-null-peft.yaml
# ... unless it names its class: apply_overrides instantiates it
golden merge-target-over-null 0 $M validate --world-size 2 "$NAME" merge/target-over-null.yaml

# keys a section's class lacks: apply_overrides skips them with a warning
golden merge-unknown-keys 0 $M validate --world-size 2 "$NAME" merge/unknown-keys.yaml
golden merge-unknown-keys-object 0 $M validate --world-size 32 "$OBJ" merge/unknown-keys-object.yaml
# lists replace, mappings merge key by key
check merge-list-replaces value_is "$NAME" merge/list-and-nested.yaml model recompute_modules '["core_attn"]'
check merge-nested-merges value_is "$NAME" merge/list-and-nested.yaml train global_batch_size 512
golden merge-list-and-nested 0 $M validate --world-size 2 "$NAME" merge/list-and-nested.yaml
finish
