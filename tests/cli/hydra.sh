#!/bin/sh
# hydra.sh — override words on a Megatron-Bridge ConfigContainer, read as
# Bridge 0.6.2 reads them: Hydra's grammar (lib/input/hydra.c), then
# parse_hydra_overrides' application in struct mode (hydra's
# ConfigLoaderImpl._apply_overrides_to_config), then the typing a config
# file's value gets.  The verdicts are those of Hydra 1.3 and OmegaConf on
# this dump (tests/bridge/0.6.2/gemma3_1b_pretrain_1gpu_h100_bf16.yaml),
# checked with the Bridge venv when these tests were written.
. "$srcdir/tests/cli/lib.sh"
M=$MCINIT
Y=../../bridge/0.6.2/gemma3_1b_pretrain_1gpu_h100_bf16.yaml

# the value as Bridge applies it: --print-config's line for the key
value_is() { # value_is WORD SECTION KEY JSON
	$M validate --print-config "$Y" "$1" 2>/dev/null |
		python3 -c 'import json,sys; c=json.load(sys.stdin); v=c[sys.argv[1]][sys.argv[2]]; sys.exit(0 if v == json.loads(sys.argv[3]) else print("got", json.dumps(v)) or 1)' "$2" "$3" "$4"
}

# Hydra's literals, typed as Hydra types them
check hydra-int-underscores value_is train.train_iters=10_000 train train_iters 10000
check hydra-float-leading-point value_is optimizer.lr=.0003 optimizer lr 0.0003
check hydra-bool-any-case value_is ddp.overlap_grad_reduce=fALSE ddp overlap_grad_reduce false
check hydra-list-bare-words value_is 'model.recompute_modules=[core_attn,mlp]' model recompute_modules '["core_attn", "mlp"]'
check hydra-null value_is model.fp8=null model fp8 null
check hydra-cast value_is 'train.train_iters=int(20.0)' train train_iters 20
check hydra-quoted value_is "checkpoint.save='/a b'" checkpoint save '"/a b"'
check hydra-force-add value_is ++model.num_layers=4 model num_layers 4
check hydra-add-to-null value_is '+model.recompute_modules=[mlp]' model recompute_modules '["mlp"]'
check hydra-section-dict value_is 'ddp={overlap_grad_reduce:false}' ddp overlap_grad_reduce false
# `key=` sets the empty string (Hydra: OK, ''): a string field holds it; an
# int field is refused with what it got: Bridge's dataclass keeps it, and
# training's arithmetic on a str raises TypeError (issue 38)
check hydra-empty-value value_is checkpoint.save= checkpoint save '""'
check hydra-empty-value-int sh -c "$M validate '$Y' model.seq_length= >'$tmp/ev.out' 2>&1; test \$? = 1 && grep -q \"error\\[MC004\\]: model.seq_length: a string ('': 'key=' sets '') where Megatron-Bridge declares an integer\" '$tmp/ev.out'"
# Hydra's inf and nan are floats: a float field holds them
check hydra-inf-float sh -c "$M validate --print-config '$Y' optimizer.lr=-inf 2>/dev/null | python3 -c 'import json,sys; v=json.load(sys.stdin)[\"optimizer\"][\"lr\"]; sys.exit(0 if v in (\"-inf\", \"-Infinity\", float(\"-inf\")) else 1)'"
# `~key` deletes the key from Bridge's OmegaConf; Bridge then applies back
# only the keys left, so the field keeps its value
check hydra-delete-keeps value_is '~model.num_layers' model num_layers 26
# a preset's name for mixed_precision, as `mixed_precision: fp16_mixed` in the file
check hydra-precision-name value_is mixed_precision=fp16_mixed model fp16 true

# what Bridge refuses (OverridesError), each with Hydra's reason
golden hydra-change-missing 1 $M validate "$Y" model.no_such_field=1
golden hydra-add-existing 1 $M validate "$Y" +model.num_layers=4
golden hydra-add-missing 0 $M validate "$Y" +model.no_such_field=1
golden hydra-delete-missing 1 $M validate "$Y" '~model.no_such_field'
golden hydra-delete-null 1 $M validate "$Y" '~peft'
golden hydra-delete-other-value 1 $M validate "$Y" '~model.num_layers=8'
golden hydra-sweep 1 $M validate "$Y" model.num_layers=1,2
golden hydra-sweep-function 1 $M validate "$Y" 'model.num_layers=choice(1,2)'
golden hydra-tilde-value 1 $M validate "$Y" 'model.num_layers=~'
golden hydra-package 1 $M validate "$Y" model.num_layers@pkg=1
golden hydra-under-preset-name 1 $M validate "$Y" mixed_precision.fp8=hybrid
golden hydra-add-under-null 1 $M validate "$Y" +peft.dim=8
golden hydra-inside-scalar 1 $M validate "$Y" model.num_layers.x=1
finish
