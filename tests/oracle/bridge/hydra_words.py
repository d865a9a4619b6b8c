#!/usr/bin/env python3
"""Override words for the differential of mcinit's Hydra override parser
against Hydra's own (the parser Megatron-Bridge's parse_hydra_overrides
calls), by the grammar rather than by cases.

  hydra_words.py gen [--count N] [--seed S]   words, one JSON string a line
  hydra_words.py judge FILE                   each word as Hydra parses it

`gen` derives words from every production of Hydra's override grammar
(hydra/grammar/OverrideLexer.g4 and OverrideParser.g4: the three prefixes,
keys, packages, primitives of every token kind, quoted values with their
escapes, lists, dicts, functions and sweeps, whitespace where the lexer
allows it), mixes in the words Bridge users type (Bridge field names with
values of their types), and mutates a share of them by one character so
that invalid words of every kind appear.  `judge` prints one JSON line per
word with what Hydra's OverridesParser made of it, in a canonical form a
C program can print too:

  {"word": W, "type": "change"|"add"|"force_add"|"delete",
   "key": K, "package": P|null, "value": V}      or {"word": W, "error": CLASS}

where V is absent (no value: `~key`, `key=`), a value tagged by its type
({"int": "10"}, {"float": "1e-05"}, {"bool": true}, {"str": "a b"}, null,
[...], {"dict": [[K, V], ...]}), or {"sweep": KIND} for a sweep or a
function other than the casts.  Run `judge` with a Python that has
hydra-core (the Bridge venv, ../shared/oracles/bridge-venv.sh).  Not part
of the build.
"""
import argparse
import json
import math
import random
import sys

FIELDS = [
    "model.tensor_model_parallel_size", "model.pipeline_model_parallel_size",
    "model.context_parallel_size", "model.expert_model_parallel_size", "model.num_layers",
    "model.hidden_size", "model.seq_length", "model.recompute_modules", "model.recompute_granularity",
    "model.window_size", "model.moe_router_topk", "model.sequence_parallel", "model.fp8",
    "model.virtual_pipeline_model_parallel_size", "optimizer.lr", "optimizer.min_lr",
    "optimizer.weight_decay", "optimizer.adam_beta2", "optimizer.use_distributed_optimizer",
    "train.global_batch_size", "train.micro_batch_size", "train.train_iters",
    "scheduler.lr_warmup_iters", "checkpoint.save", "checkpoint.load", "checkpoint.save_interval",
    "logger.log_interval", "logger.wandb_project", "dataset.seq_length", "dataset.blend",
    "mixed_precision", "mixed_precision.fp8", "ddp.overlap_grad_reduce", "rng.seed",
    "tokenizer.tokenizer_type", "validation.eval_interval", "dist.distributed_timeout_minutes",
]
VALUES = [
    "2", "8", "1_024", "10_000", "-1", "+4", "0", "3e-4", "3.0e-4", "1e-5", ".0003", "5.", "1E3",
    "inf", "-inf", "NaN", "true", "False", "TRUE", "null", "NULL", "bf16_mixed", "fp8", "hybrid",
    "full", "selective", "[core_attn,mlp]", "[core_attn, mlp]", "[]", "[128,0]", "[1, [2, 3]]",
    "{a:1,b:2}", "{}", "{a: [1, 2], b: {c: x}}", "'hello world'", '"a,b"', "/data/my_text_document",
    "/path/with spaces", "${model.seq_length}", "${oc.env:HOME}", "a\\,b", "\\[x\\]", "gpt2-bpe",
    "meta-llama/Llama-3-8B", "1,2,3", "choice(1,2)", "range(1,4)", "int(3.0)", "float(1)",
    "str(10)", "bool(1)", "tag(a,b)", "x=y", "a:b", "$HOME", "50%", "*.bin", "a|b", "a?",
]


def derive(rng, sym, depth=0):
    """A random word of grammar symbol `sym`."""
    r = rng.random
    if sym == "override":
        kind = rng.choice(["change", "change", "change", "add", "force", "del", "delv"])
        key = derive(rng, "key", depth)
        val = derive(rng, "value", depth) if r() < 0.9 else ""
        ws = rng.choice(["", "", " "])
        return {"change": "%s=%s%s" % (key, ws, val), "add": "+%s=%s" % (key, val),
                "force": "++%s=%s" % (key, val), "del": "~%s" % key,
                "delv": "~%s=%s" % (key, val)}[kind]
    if sym == "key":
        k = derive(rng, "package", depth)
        if r() < 0.08:
            k = "/".join(derive(rng, "id", depth) for _ in range(rng.randint(2, 3)))
        if r() < 0.08:
            k += "@" + derive(rng, "package", depth)
        return k
    if sym == "package":
        c = r()
        if c < 0.4:
            return rng.choice(FIELDS)
        if c < 0.55:
            return derive(rng, "id", depth)
        if c < 0.65:
            return "$" + derive(rng, "id", depth)
        if c < 0.7:
            return ""
        return ".".join(rng.choice([derive(rng, "id", depth), str(rng.randint(0, 12))])
                        for _ in range(rng.randint(2, 4)))
    if sym == "id":
        first = rng.choice("abcxyzAB_")
        return first + "".join(rng.choice("abcdez019_-") for _ in range(rng.randint(0, 6)))
    if sym == "value":
        if r() < 0.15:
            return ",".join(derive(rng, "element", depth + 1) for _ in range(rng.randint(2, 3)))
        return derive(rng, "element", depth)
    if sym == "element":
        c = r() if depth < 4 else 0
        if c < 0.55:
            return derive(rng, "primitive", depth)
        if c < 0.75:
            sep = rng.choice([",", ", ", " ,"])
            return "[" + sep.join(derive(rng, "element", depth + 1)
                                  for _ in range(rng.randint(0, 3))) + "]"
        if c < 0.9:
            return "{" + ", ".join("%s:%s%s" % (derive(rng, "dictkey", depth),
                                                rng.choice(["", " "]),
                                                derive(rng, "element", depth + 1))
                                   for _ in range(rng.randint(0, 3))) + "}"
        name = rng.choice(["choice", "range", "int", "float", "str", "bool", "tag", "sort",
                           "interval", "glob", "shuffle", "foo"])
        return "%s(%s)" % (name, ",".join(derive(rng, "element", depth + 1)
                                          for _ in range(rng.randint(0, 3))))
    if sym == "primitive":
        if r() < 0.2:
            return derive(rng, "quoted", depth)
        return "".join(derive(rng, "token", depth) for _ in range(rng.choice([1, 1, 1, 2, 3])))
    if sym == "dictkey":
        return "".join(rng.choice([derive(rng, "id", depth), str(rng.randint(0, 99)), "null",
                                   "true", "1.5", "-", ".", "\\:", " "])
                       for _ in range(rng.choice([1, 1, 2])))
    if sym == "token":
        return rng.choice([
            derive(rng, "id", depth), "null", "Null", str(rng.randint(-50, 5000)), "1_000",
            rng.choice(["3.14", "-2.5", "1e-4", "1E+3", ".5", "5.", "1_0.0_1", "inf", "-Inf",
                        "nan", "+nan"]),
            rng.choice(["true", "False", "tRuE"]), "${model.hidden_size}", "${oc.env:X,y}",
            rng.choice("/-\\+.$%*@?|"), ":", rng.choice(["\\\\", "\\(", "\\)", "\\[", "\\]",
                                                          "\\{", "\\}", "\\:", "\\=", "\\,",
                                                          "\\ "]),
            " ", "\t"])
    if sym == "quoted":
        q = rng.choice("'\"")
        body = "".join(rng.choice(["a", " ", ",", "\\", "\\\\", "'", '"', "=", "${x}", "[", "é"])
                       for _ in range(rng.randint(0, 6)))
        return q + body + q
    raise ValueError(sym)


MUTATE = list("=~+@:/,[]{}()'\"\\ $.-_0aZ\t") + ["${", "}", "==", ",,", "\x00", "\n"]


def mutate(rng, w):
    i = rng.randint(0, len(w))
    c = rng.random()
    if c < 0.5:
        return w[:i] + rng.choice(MUTATE) + w[i:]
    if c < 0.8 and w:
        return w[:i] + w[i + 1:]
    return w[:i] + w[i:i + 1] * 2 + w[i + 1:]


def gen(count, seed):
    rng = random.Random(seed)
    seen = set()
    while len(seen) < count:
        c = rng.random()
        if c < 0.3:
            w = "%s%s=%s" % (rng.choice(["", "", "", "+", "++"]), rng.choice(FIELDS),
                             rng.choice(VALUES))
        elif c < 0.35:
            w = "~" + rng.choice(FIELDS)
        else:
            w = derive(rng, "override")
        if rng.random() < 0.25:
            w = mutate(rng, w)
        if w not in seen:
            seen.add(w)
            print(json.dumps(w))


def canon(v):
    """A parsed value in the tagged form."""
    from hydra.core.override_parser.types import QuotedString, Sweep

    if v is None:
        return None
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"float": "nan" if math.isnan(v) else repr(v)}
    if isinstance(v, QuotedString):
        return {"str": v.text}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, list):
        return [canon(x) for x in v]
    if isinstance(v, dict):
        return {"dict": [[str(k), canon(x)] for k, x in v.items()]}
    if isinstance(v, Sweep):
        return {"sweep": type(v).__name__}
    return {"other": type(v).__name__}


def judge(path):
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from hydra.core.override_parser.types import OverrideType, ValueType

    parser = OverridesParser.create()
    kinds = {OverrideType.CHANGE: "change", OverrideType.ADD: "add",
             OverrideType.FORCE_ADD: "force_add", OverrideType.DEL: "delete"}
    for line in open(path):
        w = json.loads(line)
        out = {"word": w}
        try:
            o = parser.parse_override(w)
            out.update(type=kinds[o.type], key=o.key_or_group, package=o.package)
            if o.value_type is not None:
                v = o.value()
                out["value"] = canon(v) if o.value_type == ValueType.ELEMENT else \
                    {"sweep": o.value_type.name}
        except Exception as e:  # noqa: BLE001 -- the error's class is the verdict
            out = {"word": w, "error": type(e).__name__}
        print(json.dumps(out, ensure_ascii=False))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    g = sub.add_parser("gen")
    g.add_argument("--count", type=int, default=2500)
    g.add_argument("--seed", type=int, default=38)
    j = sub.add_parser("judge")
    j.add_argument("file")
    a = ap.parse_args()
    if a.cmd == "gen":
        gen(a.count, a.seed)
    else:
        judge(a.file)


if __name__ == "__main__":
    sys.exit(main())
