#!/usr/bin/env python
"""AST inventory of every assert / raise / warning in the code runtime_config_update() runs.

Writes $BRIDGE_ORACLE_WORK/bridge-checks-0.6.2.tsv with columns:
  location  function  kind  condition  message  fields  scope
  * location: path (relative to site-packages) : line
  * function: Class.method or function
  * kind: assert | raise | warn (warnings.warn / warn_rank_0 / logger.warning / logging.warning)
  * condition: for assert the asserted expression (must hold); for raise/warn the conjunction
    of enclosing if/elif/else tests that lead to it (the triggering condition), " && "-joined;
    `else` branches appear as `not (<test>)`; try/except context as `except <Type>`.
  * message: source text of the message / exception constructor
  * fields: config fields read in condition+message, mapped to YAML sections
    (e.g. self.lr_warmup_iters inside SchedulerConfig -> scheduler.lr_warmup_iters;
    self.model.seq_length inside ConfigContainer -> model.seq_length)
  * scope: bridge-config | bridge-runtime | bridge-provider | bridge-data | bridge-yaml |
           mcore-model | mcore-optimizer | mcore-ddp | mcore-dataset | mtrain-config | mcore-yaml |
           post-check (num_microbatches calculator, setup vocab)
Functions are limited per file (see FILES) to what runtime_config_update/from_yaml reaches.
"""
import ast
import csv
import os
import sys

SP = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "venv/lib/python3.12/site-packages")
OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bridge-checks-0.6.2.tsv")

ALL = None  # all functions in the file
FILES = [
    ("megatron/bridge/training/config.py", ALL, "bridge-config"),
    ("megatron/bridge/training/mixed_precision.py", ALL, "bridge-runtime"),
    ("megatron/bridge/training/comm_overlap.py", ALL, "bridge-runtime"),
    ("megatron/bridge/training/flex_dispatcher_backend.py", ALL, "bridge-runtime"),
    ("megatron/bridge/utils/cuda_graph.py", ALL, "bridge-runtime"),
    ("megatron/bridge/models/transformer_config.py", ALL, "bridge-provider"),
    ("megatron/bridge/models/gpt_provider.py", {"finalize", "__post_init__", "_resolve_string_fields"}, "bridge-provider"),
    ("megatron/bridge/models/hybrid/hybrid_provider.py", {"finalize", "__post_init__"}, "bridge-provider"),
    ("megatron/bridge/models/mla_provider.py", {"finalize", "__post_init__"}, "bridge-provider"),
    ("megatron/bridge/data/base.py", ALL, "bridge-data"),
    ("megatron/bridge/data/builders/gpt_sft.py", {"validate", "finalize", "__post_init__", "__init__"}, "bridge-data"),
    ("megatron/bridge/data/builders/direct_hf_sft.py", {"validate", "finalize", "__post_init__"}, "bridge-data"),
    ("megatron/bridge/data/builders/energon.py", {"validate", "finalize", "__post_init__"}, "bridge-data"),
    ("megatron/bridge/data/builders/mock_vlm_sft.py", {"validate", "finalize", "__post_init__"}, "bridge-data"),
    ("megatron/bridge/data/sft_processing.py", ALL, "bridge-data"),
    ("megatron/bridge/data/packing/config.py", ALL, "bridge-data"),
    ("megatron/bridge/training/tokenizers/config.py", ALL, "bridge-config"),
    ("megatron/bridge/utils/instantiate_utils.py", ALL, "bridge-yaml"),
    ("megatron/bridge/training/setup.py", {"_validate_and_set_vocab_size"}, "post-check"),
    ("megatron/core/transformer/transformer_config.py", ALL, "mcore-model"),
    ("megatron/core/model_parallel_config.py", ALL, "mcore-model"),
    ("megatron/core/optimizer/optimizer_config.py", {"__post_init__"}, "mcore-optimizer"),
    ("megatron/core/distributed/distributed_data_parallel_config.py", {"__post_init__"}, "mcore-ddp"),
    ("megatron/core/datasets/blended_megatron_dataset_config.py", ALL, "mcore-dataset"),
    ("megatron/core/datasets/gpt_dataset.py", {"__post_init__"}, "mcore-dataset"),
    ("megatron/training/config/training_config.py", ALL, "mtrain-config"),
    ("megatron/training/config/common_config.py", ALL, "mtrain-config"),
    ("megatron/training/config/resilience_config.py", ALL, "mtrain-config"),
    ("megatron/training/config/container.py", ALL, "mcore-yaml"),
    ("megatron/training/config/instantiate_utils.py", ALL, "mcore-yaml"),
    ("megatron/training/config/utils.py", ALL, "mcore-yaml"),
    ("megatron/core/num_microbatches_calculator.py", {"__init__", "_build_num_microbatches_calculator"}, "post-check"),
]

CLASS_SECTION = {
    "SchedulerConfig": "scheduler", "TrainingConfig": "train", "CheckpointConfig": "checkpoint",
    "LoggerConfig": "logger", "ProfilingConfig": "profiling", "TensorInspectConfig": "tensor_inspect",
    "NVRxStragglerDetectionConfig": "nvrx_straggler", "GPTDatasetConfig": "dataset",
    "MockGPTDatasetConfig": "dataset", "GPTFIMDatasetConfig": "dataset", "DataloaderConfig": "dataset",
    "GPTSFTDatasetConfig": "dataset", "FinetuningDatasetConfig": "dataset", "DirectHFSFTDatasetConfig": "dataset",
    "EnergonDatasetConfig": "dataset", "MockVLMSFTDatasetConfig": "dataset",
    "BlendedMegatronDatasetConfig": "dataset", "PackedSequenceSpecs": "dataset.packed_sequence_specs",
    "OptimizerConfig": "optimizer", "DistributedDataParallelConfig": "ddp",
    "MixedPrecisionConfig": "mixed_precision", "CommOverlapConfig": "comm_overlap",
    "TransformerConfig": "model", "MLATransformerConfig": "model", "ModelParallelConfig": "model",
    "HeterogeneousTransformerConfig": "model", "GPTModelProvider": "model", "HybridModelProvider": "model",
    "MLAModelProvider": "model", "TokenizerConfig": "tokenizer", "ValidationConfig": "validation",
    "RNGConfig": "rng", "DistributedInitConfig": "dist", "RerunStateMachineConfig": "rerun_state_machine",
    "StragglerDetectionConfig": "straggler", "ConfigContainer": "", "ConfigContainerBase": "",
    "_ConfigContainerBase": "",
}
SECTIONS = {"model", "train", "optimizer", "scheduler", "dataset", "logger", "tokenizer", "checkpoint", "dist",
            "ddp", "validation", "rng", "rerun_state_machine", "profiling", "peft", "comm_overlap",
            "mixed_precision", "tensor_inspect", "inprocess_restart", "ft", "straggler", "nvrx_straggler",
            "env_vars", "optimizer_config_override_provider"}
OPTIONAL_SECTIONS = {"peft", "comm_overlap", "mixed_precision", "tensor_inspect", "profiling", "nvrx_straggler",
                     "ft", "straggler", "inprocess_restart"}
VAR_SECTION = {
    "config": "", "cfg": "", "model_cfg": "model", "model_config": "model", "optimizer_cfg": "optimizer",
    "optimizer_config": "optimizer", "ddp_config": "ddp", "ddp_cfg": "ddp", "transformer_config": "model",
    "train_config": "train", "args": "",
}
WARN_FUNCS = {"warn", "warn_rank_0", "warning", "warn_once"}


def src(text, node):
    s = ast.get_source_segment(text, node) or ast.unparse(node)
    return " ".join(s.split())


def attr_chain(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return list(reversed(parts))
    return None


def fields_of(nodes, cls):
    out = []
    for n in nodes:
        if n is None:
            continue
        for sub in ast.walk(n):
            ch = None
            if isinstance(sub, ast.Attribute):
                ch = attr_chain(sub)
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id in ("getattr", "hasattr") \
                    and len(sub.args) >= 2 and isinstance(sub.args[1], ast.Constant) and isinstance(sub.args[1].value, str):
                base = attr_chain(sub.args[0]) if isinstance(sub.args[0], (ast.Attribute, ast.Name)) else None
                if base:
                    ch = base + [sub.args[1].value]
            if not ch or len(ch) < 2:
                continue
            root = ch[0]
            if root == "self":
                sec = CLASS_SECTION.get(cls, cls or "?")
                rest = ch[1:]
            elif root in VAR_SECTION:
                sec = VAR_SECTION[root]
                rest = ch[1:]
            else:
                continue
            # keep section.field (two levels for the container)
            if sec == "":
                if len(rest) == 1 and rest[0] in SECTIONS and rest[0] not in OPTIONAL_SECTIONS:
                    continue
                path = ".".join(rest[:2])
            else:
                path = sec + "." + rest[0]
            if path and not path.endswith(("finalize", "validate", "__post_init__")):
                out.append(path)
    seen = []
    for p in out:
        if p not in seen:
            seen.append(p)
    return ",".join(seen)


class V(ast.NodeVisitor):
    def __init__(self, text, relpath, funcs, scope, rows):
        self.text, self.rel, self.funcs, self.scope, self.rows = text, relpath, funcs, scope, rows
        self.cls = []
        self.fn = []
        self.conds = []

    def visit_ClassDef(self, node):
        self.cls.append(node.name)
        self.generic_visit(node)
        self.cls.pop()

    def _visit_fn(self, node):
        self.fn.append(node.name)
        saved = self.conds
        self.conds = []
        self.generic_visit(node)
        self.conds = saved
        self.fn.pop()

    visit_FunctionDef = _visit_fn
    visit_AsyncFunctionDef = _visit_fn

    def in_scope(self):
        if not self.fn:
            return self.funcs is ALL
        return self.funcs is ALL or self.fn[0] in self.funcs or self.fn[-1] in self.funcs

    def fname(self):
        return ".".join(([self.cls[-1]] if self.cls else []) + self.fn) or "<module>"

    def visit_If(self, node):
        t = src(self.text, node.test)
        self.conds.append(t)
        for s in node.body:
            self.visit(s)
        self.conds.pop()
        self.conds.append(f"not ({t})")
        for s in node.orelse:
            self.visit(s)
        self.conds.pop()

    def visit_Try(self, node):
        for s in node.body:
            self.visit(s)
        for h in node.handlers:
            self.conds.append(f"except {src(self.text, h.type) if h.type else ''}".strip())
            for s in h.body:
                self.visit(s)
            self.conds.pop()
        for s in node.orelse + node.finalbody:
            self.visit(s)

    visit_TryStar = visit_Try

    def add(self, node, kind, cond_nodes, cond_text, msg_node):
        if not self.in_scope():
            return
        msg = src(self.text, msg_node) if msg_node is not None else ""
        cls = self.cls[-1] if self.cls else None
        fields = fields_of(list(cond_nodes) + [msg_node], cls)
        self.rows.append([f"{self.rel}:{node.lineno}", self.fname(), kind, cond_text, msg, fields, self.scope])

    def visit_Assert(self, node):
        ctx = " && ".join(self.conds)
        cond = src(self.text, node.test)
        extra = []
        for c in self.conds:
            try:
                extra.append(ast.parse(c.replace("except ", "").strip() or "0", mode="eval").body)
            except SyntaxError:
                pass
        self.add(node, "assert", extra + [node.test], (f"[{ctx}] => " if ctx else "") + cond, node.msg)
        self.generic_visit(node)

    def visit_Raise(self, node):
        self.add(node, "raise", [], " && ".join(self.conds) or "(unconditional)", node.exc)
        # condition nodes: re-parse cond text for fields
        if self.rows and self.rows[-1][0] == f"{self.rel}:{node.lineno}":
            extra = []
            for c in self.conds:
                try:
                    extra.append(ast.parse(c.replace("except ", "").strip() or "0", mode="eval").body)
                except SyntaxError:
                    pass
            cls = self.cls[-1] if self.cls else None
            f = fields_of(extra + [node.exc], cls)
            self.rows[-1][5] = f
        self.generic_visit(node)

    def visit_Call(self, node):
        f = node.func
        name = f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else None)
        base = attr_chain(f.value) if isinstance(f, ast.Attribute) else None
        is_warn = False
        if name in ("warn",) and (base in (["warnings"],) or isinstance(f, ast.Name)):
            is_warn = True
        elif name == "warn_rank_0":
            is_warn = True
        elif name in ("warning", "warn") and base and base[-1] in ("logger", "logging", "_logger", "log"):
            is_warn = True
        elif name == "log_single_rank" and len(node.args) >= 2 and "WARNING" in src(self.text, node.args[1]):
            is_warn = True
        if is_warn:
            msg = node.args[0] if node.args else None
            if name == "log_single_rank" and len(node.args) >= 3:
                msg = node.args[2]
            extra = []
            for c in self.conds:
                try:
                    extra.append(ast.parse(c.replace("except ", "").strip() or "0", mode="eval").body)
                except SyntaxError:
                    pass
            if self.in_scope():
                cls = self.cls[-1] if self.cls else None
                self.rows.append([f"{self.rel}:{node.lineno}", self.fname(), "warn",
                                  " && ".join(self.conds) or "(unconditional)",
                                  src(self.text, msg) if msg is not None else "", fields_of(extra + [msg], cls),
                                  self.scope])
        self.generic_visit(node)


def main():
    rows = []
    for rel, funcs, scope in FILES:
        p = os.path.join(SP, rel)
        if not os.path.exists(p):
            print("missing", rel, file=sys.stderr)
            continue
        text = open(p).read()
        V(text, rel, funcs, scope, rows).visit(ast.parse(text))
    with open(OUT, "w", newline="") as f:
        w = csv.writer(f, delimiter="\t", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
        w.writerow(["location", "function", "kind", "condition", "message", "fields", "scope"])
        for r in rows:
            w.writerow([x.replace("\t", " ").replace("\n", " ") for x in r])
    from collections import Counter
    print(len(rows), "rows ->", OUT)
    print(Counter((r[6], r[2]) for r in rows))


if __name__ == "__main__":
    main()
