# build-aux/facts/entries.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron's sources are parsed, never imported).
"""Megatron-LM's entry scripts (data/megatron-entry-points.tsv) and the flags
their extra_args_provider adds to the training parser
(data/megatron-entry-flags.tsv), per release.

Which scripts are entry points, and under what name, is mcinit's choice
(ENTRIES); what each hands Megatron-LM is read from the script: the
args_defaults literal of its pretrain() / initialize_megatron() /
parse_and_validate_args() call, and its extra_args_provider function,
interpreted as the training parser is (mflags.FlagInterp)."""

import ast
import fnmatch
import json
import os
import sys

from .source import Code, Module, Source
from .mflags import FLAGS_HEAD, FlagInterp, PObj

# (entry, script): a script is a file name anywhere in the tree (the
# shortest path wins: pretrain_bert.py moved to examples/bert/ in r0.18), or
# a pattern of paths.  pretrain_mamba.py runs pretrain_hybrid.py (runpy)
# from r0.18 on.  modelopt is not one script but what ModelOpt adds to every
# parser it is installed under (add_modelopt_args), args_defaults {}.
ENTRIES = [
    ("pretrain_gpt", "pretrain_gpt.py"),
    ("pretrain_bert", "pretrain_bert.py"),
    ("pretrain_t5", "pretrain_t5.py"),
    ("pretrain_hybrid", "pretrain_mamba.py"),
    ("pretrain_hybrid", "pretrain_hybrid.py"),
    ("pretrain_vlm", "pretrain_vlm.py"),
    ("train_rl", "train_rl.py"),
    ("gpt_static_inference", "gpt_static_inference.py"),
    ("gpt_dynamic_inference", "gpt_dynamic_inference.py"),
    ("modelopt", "*post_training/modelopt/*.py"),
    ("offline_inference", "offline_inference.py"),
    ("launch_inference_server", "launch_inference_server.py"),
]
MODELOPT_ARGS = ("megatron.post_training.arguments", "add_modelopt_args")
ENTRY_POINTS_HEAD = ["entry", "script", "args_defaults", "refs"]
ENTRY_FLAGS_HEAD = ["entry"] + FLAGS_HEAD + ["refs"]
ENTRY_CALLS = ("pretrain", "initialize_megatron", "parse_and_validate_args", "parse_args")


def script_sources(spec):
    """A Source whose every .py file is a module (the scripts beside
    megatron/ too), by its path: examples/inference/offline_inference.py is
    examples.inference.offline_inference, pretrain_gpt.py pretrain_gpt."""
    src = Source(spec)
    for n in src._files:
        if not n.startswith(src.prefix) or not n.endswith(".py"):
            continue
        parts = n[len(src.prefix):-3].split("/")
        if all(p.isidentifier() for p in parts):
            if parts[-1] == "__init__":
                parts = parts[:-1]
            if parts:
                src.mods.setdefault(".".join(parts), n)
    return src


def find_script(src, script):
    names = [n[len(src.prefix):] for n in src._files if n.startswith(src.prefix)]
    if "/" in script or "*" in script:
        return sorted(n for n in names if fnmatch.fnmatch(n, script))
    hits = [n for n in names if os.path.basename(n) == script]
    return sorted(hits, key=lambda n: (n.count("/"), n))[:1]


def modname(path):
    return path[:-3].replace("/", ".")


def entry_call(tree):
    """The call that hands Megatron-LM args_defaults / extra_args_provider."""
    best = None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            kws = {k.arg for k in node.keywords}
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in ENTRY_CALLS and kws & {"args_defaults", "extra_args_provider"}:
                if best is None or "args_defaults" in kws:
                    best = node
    return best


def runpy_target(tree):
    """pretrain_mamba.py's runpy.run_path("pretrain_hybrid.py"): the script it runs."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("run_path", "run_module"):
            for a in node.args:
                for c in ast.walk(a):
                    if isinstance(c, ast.Constant) and isinstance(c.value, str) and \
                            c.value.endswith(".py"):
                        return os.path.basename(c.value)
    return None


def provider_rows(code, mod, expr):
    """The flags an extra_args_provider expression adds (a function of the
    script's, or one it imports, at module level or in the function that
    makes the call)."""
    if not isinstance(expr, ast.Name):
        return []          # `add_modelopt_args if has_nvidia_modelopt else None`: modelopt's
    fn = mod.functions.get(expr.id)
    fmod = mod
    if fn is None:
        r = code.lookup(mod.name, expr.id)
        if r is None or r.kind != "func":
            for node in ast.walk(mod.tree):
                if isinstance(node, ast.ImportFrom) and \
                        any((a.asname or a.name) == expr.id for a in node.names):
                    src = mod._abs(node.level, node.module)
                    r = code.lookup(src, next(a.name for a in node.names
                                              if (a.asname or a.name) == expr.id))
                    break
        if r is None or r.kind != "func":
            return []
        fn, fmod = r.node, (code.module(r.module) if isinstance(r.module, str) else r.module)
    it = FlagInterp(code)
    it.run_function(fmod, fn, [PObj()], {})
    rows = it.rows()
    rows.sort(key=lambda r: r["flag"])
    return rows


def read_entries(spec, name):
    """One release's entry rows and flag rows (refs: NAME)."""
    src = script_sources(spec)
    code = Code([src])
    points, flags = [], []
    for entry, script in ENTRIES:
        paths = find_script(src, script)
        if not paths:
            continue
        if entry == "modelopt":
            points.append({"entry": entry, "script": script, "args_defaults": "{}", "refs": name})
            mod = code.module(MODELOPT_ARGS[0])
            if mod is not None and MODELOPT_ARGS[1] in mod.functions:
                for r in provider_rows(code, mod, ast.Name(MODELOPT_ARGS[1])):
                    flags.append(dict(r, entry=entry, refs=name))
            continue
        path = paths[0]
        mod = code.module(modname(path))
        call = entry_call(mod.tree)
        if call is None:
            target = runpy_target(mod.tree)
            tp = find_script(src, target) if target else []
            if not tp:
                continue
            mod = code.module(modname(tp[0]))
            call = entry_call(mod.tree)
            if call is None:
                continue
        kw = {k.arg: k.value for k in call.keywords}
        defaults = ast.literal_eval(kw["args_defaults"]) if "args_defaults" in kw else {}
        points.append({"entry": entry, "script": script,
                       "args_defaults": json.dumps(defaults, sort_keys=True), "refs": name})
        if "extra_args_provider" in kw:
            for r in provider_rows(code, mod, kw["extra_args_provider"]):
                flags.append(dict(r, entry=entry, refs=name))
    return points, flags


def merge_refs(tables, head, key):
    """Rows of several releases (in release order) as one table: a row the
    same but for refs is one row naming them all; sorted by entry (ENTRIES
    order), then key(row), then first release."""
    rank = {}
    for i, (e, _) in enumerate(ENTRIES):
        rank.setdefault(e, i)
    cols = [c for c in head if c != "refs"]
    merged, first = {}, {}
    for n, rows in enumerate(tables):
        for r in rows:
            k = tuple(str(r[c]) for c in cols)
            if k not in merged:
                merged[k], first[k] = [], n
            merged[k].append(r["refs"])
    out = []
    for k, refs in merged.items():
        r = dict(zip(cols, k))
        r["refs"] = ",".join(refs)
        out.append((rank[r["entry"]], key(r), first[k], r))
    out.sort(key=lambda t: t[:3])
    return [t[3] for t in out]


def entry_tables(releases):
    """[(NAME, SRC)] in release order -> (entry-points rows, entry-flags rows)."""
    points, flags = [], []
    for name, spec in releases:
        try:
            p, f = read_entries(spec, name)
        except SyntaxError as e:
            # r0.15's gpt_dynamic_inference.py nests quotes in an f-string (PEP 701)
            sys.exit("extract-facts: entries: %s: %s:%s: %s; Python %d.%d cannot parse it "
                     "(a newer one can)" % (name, e.filename, e.lineno, e.msg,
                                            sys.version_info[0], sys.version_info[1]))
        points.append(p)
        flags.append(f)
    script_rank = {s: i for i, (_, s) in enumerate(ENTRIES)}
    return (merge_refs(points, ENTRY_POINTS_HEAD, lambda r: script_rank[r["script"]]),
            merge_refs(flags, ENTRY_FLAGS_HEAD, lambda r: r["flag"]))
