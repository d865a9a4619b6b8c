# build-aux/facts/loader.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron's sources are parsed, never imported).
"""Megatron-Bridge's config loader (data/bridge-loader.tsv): the _target_
allow- and deny-lists and the classes whose constructor takes **kwargs."""

import ast
import sys

from .source import repo_path


LOADER_HEAD = ["rule", "value", "where"]
LOADER_MODULES = ("megatron.training.config.instantiate_utils",
                  "megatron.bridge.utils.instantiate_utils")
# The module-level names Bridge's loader (from_yaml -> instantiate) consults
# before it imports a `_target_`, and the rule each stands for.
LOADER_NAMES = {
    "_DEFAULT_ALLOWED_PREFIXES": "allow-prefix", "_ALLOWED_TARGET_PREFIXES": "allow-prefix",
    "_DEFAULT_ALLOWED_EXACT": "allow-exact", "_ALLOWED_PRIVATE_TARGETS": "allow-private",
    "_DISALLOWED_TARGETS": "deny-target", "_DISALLOWED_CALLABLE_FIELD_NAMES": "deny-field",
}


def const_strings(node, env):
    """The strings a module-level constant expression holds: literals,
    set()/frozenset()/tuple() of them, * unpacking, comprehensions over
    known names and f-strings of their variables.  None when unreadable."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, (ast.Set, ast.Tuple, ast.List)):
        out = []
        for e in node.elts:
            v = const_strings(e.value if isinstance(e, ast.Starred) else e, env)
            if v is None:
                return None
            out += v
        return out
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
            node.func.id in ("set", "frozenset", "tuple", "list") and len(node.args) <= 1:
        return const_strings(node.args[0], env) if node.args else []
    if isinstance(node, ast.JoinedStr):
        s = ""
        for part in node.values:
            v = const_strings(part.value if isinstance(part, ast.FormattedValue) else part, env)
            if v is None or len(v) != 1:
                return None
            s += v[0]
        return [s]
    if isinstance(node, (ast.SetComp, ast.ListComp, ast.GeneratorExp)) and \
            len(node.generators) == 1 and isinstance(node.generators[0].target, ast.Name) and \
            not node.generators[0].ifs:
        g = node.generators[0]
        it = const_strings(g.iter, env)
        if it is None:
            return None
        out = []
        for x in it:
            v = const_strings(node.elt, dict(env, **{g.target.id: [x]}))
            if v is None:
                return None
            out += v
        return out
    return None


def takes_any_keyword(code, q):
    """Whether class q's constructor takes **kwargs: Bridge's instantiate
    then passes an unknown key on (and the constructor refuses it) instead
    of dropping it with a log warning.  The first class of the MRO that
    writes __init__ decides; a dataclass writes one unless it says init=False."""
    for c in code.mro(q):
        ci = code.cls(c) if not c.startswith("?") else None
        if ci is None:
            return False
        fn = ci.methods.get("__init__")
        if fn is not None:
            return fn.args.kwarg is not None
        if ci.is_dataclass:
            return False
    return False


def bridge_loader(code, classes):
    """How Bridge's loader treats what a config names: the `_target_`
    allow- and deny-lists (instantiate_utils of megatron.training.config
    and of Bridge) and the classes whose constructor takes **kwargs."""
    rows = []
    for mn in LOADER_MODULES:
        mod = code.module(mn) if code.has_module(mn) else None
        if mod is None:
            continue
        env = {}
        for st in mod.tree.body:
            tgt = st.targets[0] if isinstance(st, ast.Assign) and len(st.targets) == 1 else \
                st.target if isinstance(st, ast.AnnAssign) and st.value is not None else None
            if not isinstance(tgt, ast.Name):
                continue
            v = const_strings(st.value, env)
            if v is None:
                continue
            env[tgt.id] = v
            if tgt.id in LOADER_NAMES:
                where = "%s:%d" % (repo_path(mn), st.lineno)
                rows += [{"rule": LOADER_NAMES[tgt.id], "value": x, "where": where}
                         for x in sorted(set(v))]
        if not any(tgt in env for tgt in LOADER_NAMES):
            sys.exit("extract-facts: loader: %s names none of %s" % (mn, ", ".join(LOADER_NAMES)))
    for q in sorted(set(classes)):
        if code.cls(q) is not None and takes_any_keyword(code, q):
            rows.append({"rule": "keeps-unknown-keys", "value": q, "where": ""})
    return rows + etp_default_rows(code)


# Where Bridge's model configs fill an unset expert_tensor_parallel_size
# before Megatron-Core's __post_init__ would make it TP.
ETP_MODULE = "megatron.bridge.models.transformer_config"


def etp_default_rows(code):
    """`etp-one-with-ep`: a function of ETP_MODULE that sets
    expert_tensor_parallel_size to 1 under a test of expert_model_parallel_size
    (Bridge >= 0.6: an unset ETP is 1 when EP > 1, not TP)."""
    if not code.has_module(ETP_MODULE):
        return []
    mod = code.module(ETP_MODULE)
    rows = []
    for fn in mod.tree.body:
        if not isinstance(fn, ast.FunctionDef):
            continue
        for node in ast.walk(fn):
            if not isinstance(node, ast.If) or "expert_model_parallel_size" not in ast.unparse(node.test):
                continue
            if any(isinstance(st, ast.Assign) and len(st.targets) == 1
                   and isinstance(st.targets[0], ast.Attribute)
                   and st.targets[0].attr == "expert_tensor_parallel_size"
                   and isinstance(st.value, ast.Constant) and st.value.value == 1
                   for st in node.body):
                rows.append({"rule": "etp-one-with-ep", "value": fn.name,
                             "where": "%s:%d" % (repo_path(ETP_MODULE), fn.lineno)})
                break
    return rows


def loader_classes(field_rows, variant_rows):
    return [r["class"] for r in list(field_rows) + list(variant_rows) if r.get("class")]
