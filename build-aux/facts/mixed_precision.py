# build-aux/facts/mixed_precision.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron's sources are parsed, never imported).
"""Megatron-Bridge's mixed-precision presets (data/bridge-mixed-precision.tsv)."""

import ast
import sys

from .source import repo_path


# ---------------------------------------------------------------- mixed-precision presets

MIXED_PRECISION_HEAD = ["preset", "field", "value", "note"]


def bridge_mixed_precision(code):
    """The presets runtime_config_update resolves a `mixed_precision: NAME`
    to (training/mixed_precision.py, MIXED_PRECISION_RECIPES): each function
    registered with @register, read as Bridge writes them: `return
    MixedPrecisionConfig(k=v, ...)`, or `cfg = other_preset()` then
    `cfg.k = v` assignments and `return cfg`.  One row per field a preset
    sets (the value as Python source); the fields it leaves are the
    dataclass's defaults."""
    mod = code.module("megatron.bridge.training.mixed_precision")
    if mod is None:
        return []
    funcs = {}
    for node in mod.tree.body:
        if isinstance(node, ast.FunctionDef) and any(
                isinstance(d, ast.Name) and d.id == "register" for d in node.decorator_list):
            funcs[node.name] = node
    done = {}

    def resolve(name, seen=()):
        if name in done:
            return done[name]
        if name in seen or name not in funcs:
            sys.exit("extract-facts: mixed precision: cannot read preset %s" % name)
        vals, var = {}, None
        for st in funcs[name].body:
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
                continue  # the docstring
            if (isinstance(st, ast.Assign) and len(st.targets) == 1 and
                    isinstance(st.targets[0], ast.Name) and isinstance(st.value, ast.Call) and
                    isinstance(st.value.func, ast.Name) and not st.value.args):
                var = st.targets[0].id
                vals = dict(resolve(st.value.func.id, seen + (name,)))
            elif (isinstance(st, ast.Assign) and len(st.targets) == 1 and
                  isinstance(st.targets[0], ast.Attribute) and
                  isinstance(st.targets[0].value, ast.Name) and st.targets[0].value.id == var):
                vals[st.targets[0].attr] = ast.unparse(st.value)
            elif isinstance(st, ast.Return) and isinstance(st.value, ast.Name) and \
                    st.value.id == var:
                pass
            elif (isinstance(st, ast.Return) and isinstance(st.value, ast.Call) and
                  isinstance(st.value.func, ast.Name) and
                  st.value.func.id == "MixedPrecisionConfig" and not st.value.args):
                vals = {k.arg: ast.unparse(k.value) for k in st.value.keywords}
            else:
                sys.exit("extract-facts: mixed precision: %s: a statement this reader does not "
                         "know (line %d)" % (name, st.lineno))
        done[name] = vals
        return vals

    rows = []
    for name in funcs:
        for k, v in resolve(name).items():
            rows.append({"preset": name, "field": k, "value": v,
                         "note": "%s:%d" % (repo_path(mod.name), funcs[name].lineno)})
    return rows
