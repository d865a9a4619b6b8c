# build-aux/facts/bchecks.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron's sources are parsed, never imported).
"""Megatron-Bridge's configuration checks (data/bridge-checks.tsv)."""

import ast

from .source import union_members
from .mchecks import extract_checks
from .bridge_fields import BRIDGE_CONFIG, section_classes


BRIDGE_CHECK_METHODS = ("__post_init__", "finalize", "validate")


def bridge_check_roots(code):
    """ConfigContainer.validate, runtime_config_update, and __post_init__ /
    finalize / validate of every section class (and its Bridge bases):
    (module, label, section prefix)."""
    cc = code.class_ref(BRIDGE_CONFIG, "ConfigContainer")
    roots = [(BRIDGE_CONFIG, "runtime_config_update", None),
             (BRIDGE_CONFIG, "ConfigContainer.validate", "")]
    owner = {}       # class qual -> section
    for f, sec, others, accepts_str in section_classes(code, cc):
        if sec is None or not f.init:
            continue
        # the other classes the annotation accepts (HybridModelProvider for
        # `model`) run their own finalize; each row names its class, and a
        # row applies only to a section holding that class
        dmod = code.cls(f.cls).module
        alts = [code.resolve_expr(dmod, m) for m in union_members(f.node.annotation)
                if not isinstance(m, ast.Constant)]
        for top in [sec] + [r.qual for r in alts if r is not None and r.kind == "class"]:
            for q in code.mro(top):
                if q.startswith("?") or not q.startswith("megatron.bridge."):
                    continue
                owner.setdefault(q, f.name)
    for q, secname in owner.items():
        ci = code.cls(q)
        for m in BRIDGE_CHECK_METHODS:
            if m in ci.methods:
                roots.append((ci.module.name, ci.name + "." + m, secname + "."))
    return roots, owner


def extract_bridge_checks(code, early_returns=True):
    roots, owner = bridge_check_roots(code)
    prefixes = {}
    for modname, label, prefix in roots:
        prefixes[(modname, label.partition(".")[0])] = prefix
    cc_name = "ConfigContainer"

    def prefix_of(modname, lb, cls):
        if cls == cc_name and modname == BRIDGE_CONFIG:
            return ""
        if cls is not None:
            q = modname + "." + cls
            if q in owner:
                return owner[q] + "."
            return cls + "."
        return ""

    def style_of(modname, lb, fn, cls):
        args0 = [a.arg for a in fn.args.args]
        if cls is not None and args0[:1] == ["self"]:
            return "bridge"
        if cls is None and args0[:1] and (args0[0] in ("cfg", "config", "container") or (
                fn.args.args[0].annotation is not None and "ConfigContainer" in
                ast.unparse(fn.args.args[0].annotation))):
            return "bridge"
        return "params"
    # no "target" verdict (nor "gate:" note) for Bridge: gen-tables.py bchecks
    # and lib/rules/rules-bcheck.c decide only "yes" rows, declared TE / torch
    # versions are Megatron-LM's checks' alone (9aca206), so a gated Bridge
    # check stays "no", as data/ and data/releases/ have it
    rows = extract_checks(code, [(m, lb, "bridge") for m, lb, _ in roots], style_of=style_of,
                          fields_prefix=prefix_of, early_returns=early_returns,
                          version_gated=False)
    for r in rows:
        path, _, line = r["id"].rpartition(":")
        if path.startswith("megatron/bridge/"):
            r["id"] = "src/%s:%s" % (path, line)
    return rows
