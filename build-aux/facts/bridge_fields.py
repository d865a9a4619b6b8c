# build-aux/facts/bridge_fields.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron's sources are parsed, never imported).
"""Megatron-Bridge's ConfigContainer fields (data/bridge-config-fields.tsv)
and the other classes its sections accept (data/bridge-variant-fields.tsv)."""

import ast
import sys
from collections import OrderedDict

from .source import repo_path, union_members
from .tables import read_tsv


# --------------------------------------------------------------------------
# bridge-fields
# --------------------------------------------------------------------------
#
# A row per field of ConfigContainer, then per field of each section's
# dataclass in dataclasses.fields() order, the MRO resolved through Bridge
# into megatron-core / megatron.training (the first dataclass of a union
# annotation is the section class: model = GPTModelProvider).  type: the
# annotation as written; default: the literal as written, `factory:X` for
# default_factory=X, `required`; class: the most derived class declaring it.
# flag: the Megatron-LM flags whose dest is the field's name, else the dest
# its argparse_meta names, else the first flag-backed Namespace attribute
# Megatron-LM's (or Bridge's mlm_compat) argument-to-config functions set it
# from (MLM_SETTERS, BRIDGE_SETTERS; their assignments become "set from
# args as ..." notes, in ast.walk order).  An alias property (one that
# returns self.<field>) gets a row of type `property`.

BRIDGE_CONFIG = "megatron.bridge.training.config"

# Functions that build a config section from Megatron-LM's argparse Namespace,
# and which dict of keyword arguments feeds which section.  (function,
# {dict variable: section}); the function is looked up by name in the
# modules listed, first hit wins.
MLM_SETTERS = [
    ("core_transformer_config_from_args", {"kw_args": "model"}),
    ("gpt_config_from_args", {"kwargs": "model"}),
    ("get_megatron_ddp_config", {"kwargs": "ddp"}),
    ("pretrain_cfg_container_from_args", {"ckpt_kwargs": "checkpoint", "prof_kwargs": "profiling",
                                          "rerunsm_kwargs": "rerun_state_machine"}),
]
MLM_SETTER_MODULES = ["megatron.training.argument_utils", "megatron.training.arguments",
                      "megatron.training.training"]
BRIDGE_SETTERS = [
    ("_transformer_config_from_args", {"kw_args": "model"}),
    ("_tokenizer_config_from_args", {"kw_args": "tokenizer"}),
]
BRIDGE_SETTER_MODULES = ["megatron.bridge.training.mlm_compat.arguments"]


def find_function(code, modules, name):
    for mn in modules:
        mod = code.module(mn)
        if mod is not None and name in mod.functions:
            return mod, mod.functions[name]
    return None, None


def args_dests(node):
    """The Namespace attributes an expression reads (args.X, getattr(args,
    "X", ...)), in source order."""
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id == "args":
            out.append((n.lineno, n.col_offset, n.attr))
        elif (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in
              ("getattr", "hasattr") and len(n.args) >= 2 and isinstance(n.args[0], ast.Name)
              and n.args[0].id == "args" and isinstance(n.args[1], ast.Constant)):
            out.append((n.lineno, n.col_offset, n.args[1].value))
    seen, res = set(), []
    for _, _, d in sorted(out):
        if d not in seen:
            seen.add(d)
            res.append(d)
    return res


def set_from_args(code, setters, modules, who, flags):
    """(section, field) -> [(note text, first dest with a flag)] from the
    kwargs assignments of the setter functions, in ast.walk order."""
    out = OrderedDict()
    for fname, dicts in setters:
        mod, fn = find_function(code, modules, fname)
        if fn is None:
            continue
        for n in ast.walk(fn):
            if not (isinstance(n, ast.Assign) and len(n.targets) == 1):
                continue
            t = n.targets[0]
            if not (isinstance(t, ast.Subscript) and isinstance(t.value, ast.Name)
                    and t.value.id in dicts):
                continue
            key = t.slice
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            field = key.value
            v = n.value
            if (isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name)
                    and v.value.id == "args" and v.attr == field):
                continue          # copied one-to-one: the dest is the field
            dests = args_dests(v)
            if not dests:
                continue
            fl = []
            for d in dests:
                for f in flags.flags(d):
                    if f not in fl:
                        fl.append(f)
            note = "set from args as %s = %s (%s %s:%d)" % (field, mod.seg(v), who, fname, n.lineno)
            if fl:
                note += " <- " + ",".join(fl)
            first = next((d for d in dests if flags.flags(d)), None)
            out.setdefault((dicts[t.value.id], field), []).append((note, first))
    return out


def argparse_meta(mod, f):
    if f.metadata is None:
        return None
    t = mod.seg(f.metadata)
    return t if "argparse_meta" in t else None


def meta_dest(f):
    """The dest an argparse_meta dict names, if any."""
    if f.metadata is None or not isinstance(f.metadata, ast.Dict):
        return None
    for k, v in zip(f.metadata.keys, f.metadata.values):
        if isinstance(k, ast.Constant) and k.value == "argparse_meta" and isinstance(v, ast.Dict):
            for k2, v2 in zip(v.keys, v.values):
                if isinstance(k2, ast.Constant) and k2.value == "dest" and isinstance(v2, ast.Constant):
                    return v2.value
    return None


def alias_target(ci, fn, fields):
    """A property that returns self.<field> (or getattr(self, "<field>",
    default), as Bridge 0.5's GPTDatasetConfig.seq_length): that field's name."""
    body = [s for s in fn.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) == 1 and isinstance(body[0], ast.Return):
        v = body[0].value
        if (isinstance(v, ast.Attribute) and isinstance(v.value, ast.Name) and v.value.id == "self"
                and v.attr in fields):
            return v.attr
        if (isinstance(v, ast.Call) and isinstance(v.func, ast.Name) and v.func.id == "getattr"
                and len(v.args) in (2, 3) and isinstance(v.args[0], ast.Name)
                and v.args[0].id == "self" and isinstance(v.args[1], ast.Constant)
                and v.args[1].value in fields):
            return v.args[1].value
    return None


def section_classes(code, cc):
    """ConfigContainer's fields -> (field, section class qual or None,
    other accepted type names, accepts str)."""
    out = []
    ci = code.cls(cc)
    mod = ci.module
    for f in code.fields(cc).values():
        decl = code.cls(f.cls)
        dmod = decl.module
        members = union_members(f.node.annotation)
        sec, others, accepts_str = None, [], False
        for m in members:
            if isinstance(m, ast.Constant) and m.value is None:
                continue
            txt = ast.unparse(m)
            if txt == "None":
                continue
            if txt == "str":
                accepts_str = True
                continue
            r = code.resolve_expr(dmod, m)
            q = r.qual if r is not None and r.kind == "class" else None
            if sec is None and q is not None:
                sec = q
            else:
                others.append(txt)
        out.append((f, sec, others, accepts_str))
    return out


def bridge_fields(code, flags, pinned=None, pinned_name=None, core_name="main"):
    cc = code.class_ref(BRIDGE_CONFIG, "ConfigContainer")
    if cc is None:
        sys.exit("extract-facts: no ConfigContainer in %s" % BRIDGE_CONFIG)
    setters = set_from_args(code, MLM_SETTERS, MLM_SETTER_MODULES, "Megatron-LM", flags)
    for k, v in set_from_args(code, BRIDGE_SETTERS, BRIDGE_SETTER_MODULES, "Bridge mlm_compat",
                              flags).items():
        setters.setdefault(k, []).extend(v)
    rows = []
    secs = section_classes(code, cc)
    for f, sec, others, accepts_str in secs:
        note = "section" if f.init else "init=False (computed, not settable); internal (init=False)"
        rows.append(dict(section="ConfigContainer", field=f.name, type=f.ann, default=f.default,
                         **{"class": f.cls}, flag="", note=note))
    for f, sec, others, accepts_str in secs:
        if not f.init:
            continue
        if sec is None or not code.cls(sec).is_dataclass:
            rows.append(dict(section=f.name, field="", type=f.ann, default=f.default,
                             **{"class": f.cls}, flag="",
                             note="not a dataclass section (plain mapping); no fields"))
            continue
        rows += section_rows(code, f, sec, others, accepts_str, flags, setters, pinned,
                             pinned_name, core_name)
    return rows


def field_flag(f, flags, setters_here):
    fl = flags.flags(f.name)
    if not fl:
        d = meta_dest(f)
        if d:
            fl = flags.flags(d)
    if not fl:
        for _, d in setters_here:
            if d:
                fl = flags.flags(d)
                break
    return ",".join(fl)


def section_rows(code, cf, sec, others, accepts_str, flags, setters, pinned, pinned_name,
                 core_name):
    sci = code.cls(sec)
    fields = code.fields(sec)
    intro = ["section class %s (%s)" % (sci.name, repo_path(sci.module.name, sci.module.is_pkg)),
             "dataclass MRO: " + " > ".join(code.dataclass_mro(sec))]
    if others:
        intro.append("other accepted types: " + ", ".join(others))
    if accepts_str:
        intro.append("also accepts a str (preset name)")
    pfields = None
    if pinned is not None:
        psec = sec if pinned.cls(sec) is not None else None
        pfields = pinned.fields(psec) if psec else OrderedDict()
    rows = []
    if not fields:
        intro.append("dataclass without fields")
        rows.append(dict(section=cf.name, field="", type=cf.ann, default=cf.default,
                         **{"class": sec}, flag="", note="; ".join(intro)))
        return rows
    for f in fields.values():
        notes = []
        decl = code.declarations(sec, f.name)
        mod = code.cls(f.cls).module
        if len(decl) > 1:
            base = decl[1]
            if base.default == f.default:
                notes.append("redeclared (same default as %s)" % base.cls)
            else:
                notes.append("overrides %s default %s" % (base.cls, base.default))
        if not f.init:
            notes.append("init=False (computed, not settable)")
        am = argparse_meta(mod, f)
        if am:
            notes.append("argparse_meta: " + am)
        here = setters.get((cf.name, f.name), [])
        notes += [n for n, _ in here]
        if pfields is not None:
            pf = pfields.get(f.name)
            if pf is None:
                notes.append("not in Bridge's pinned Megatron-LM %s" % pinned_name)
            elif (pf.ann, pf.default) != (f.ann, f.default):
                notes.append("at Bridge's pinned Megatron-LM %s: type %s, default %s"
                             % (pinned_name, pf.ann, pf.default))
        rows.append(dict(section=cf.name, field=f.name, type=f.ann, default=f.default,
                         **{"class": f.cls}, flag=field_flag(f, flags, here), note="; ".join(notes)))
    if pfields is not None:
        for pf in pfields.values():
            if pf.name not in fields:
                rows.append(dict(section=cf.name, field=pf.name, type=pf.ann, default=pf.default,
                                 **{"class": pf.cls}, flag=",".join(flags.flags(pf.name)),
                                 note="only in Bridge's pinned Megatron-LM %s (gone on %s)"
                                 % (pinned_name, core_name)))
    # properties that alias a field
    seen = set()
    for q in code.mro(sec):
        ci = None if q.startswith("?") else code.cls(q)
        if ci is None:
            continue
        for pname, (fn, setter) in ci.properties.items():
            if pname in seen:
                continue
            seen.add(pname)
            tgt = alias_target(ci, fn, fields)
            if tgt is None or pname in fields:
                continue
            fl = flags.flags(pname)
            d = pname
            if not fl:
                fl, d = flags.flags(tgt), tgt
            note = "alias: property for %s (%s)" % (tgt, "with setter" if setter else "read-only")
            if fl:
                note += "; Megatron-LM flag %s has dest %s" % (",".join(fl), d)
            rows.append(dict(section=cf.name, field=pname, type="property", default="",
                             **{"class": q}, flag=",".join(fl), note=note))
    rows[0]["note"] = "; ".join(intro + ([rows[0]["note"]] if rows[0]["note"] else []))
    return rows


BRIDGE_FIELDS_HEAD = ["section", "field", "type", "default", "class", "flag", "note"]


# --------------------------------------------------------------------------
# bridge-variants: the other classes a section can hold
# --------------------------------------------------------------------------
#
# For each section of ConfigContainer, every Bridge dataclass that is one of
# its accepted types or extends a class of its resolved MRO (for `model`: a
# class that can provide a model -- it extends ModelProviderMixin or
# megatron.training's ModelConfig, or is a *Provider on the section's MRO).
# base: the first class of its MRO on the section's MRO (else "abstract");
# its rows: every field whose type or default differs from what
# bridge-config-fields.tsv gives the base, or that the table does not give
# the base at all, plus hand-written __init__ parameters and settable
# properties.

VARIANT_HEAD = ["section", "class", "base", "field", "type", "default", "note"]
MODEL_ROOTS = ("megatron.bridge.models.model_provider.ModelProviderMixin",
               "megatron.training.models.base.ModelConfig")


def all_bridge_classes(code):
    out = []
    for mn in code.modules_under("megatron.bridge"):
        try:
            mod = code.module(mn)
        except SyntaxError:
            continue
        for name in mod.classes:
            out.append(mn + "." + name)
    return sorted(out)


def variant_classes(code, secname, sec, accepted, everything):
    smro = code.dataclass_mro(sec)
    targets = set(smro) | set(accepted)
    out = []
    for q in everything:
        ci = code.cls(q)
        if ci is None or not ci.is_dataclass or q in smro:
            continue
        mro = code.mro(q)
        if secname == "model":
            ok = any(r in mro for r in MODEL_ROOTS) or (
                ci.name.endswith("Provider") and any(c in mro for c in smro))
            if any(r == q for r in MODEL_ROOTS):
                ok = False
        else:
            ok = bool(targets & set(mro))
        if ok:
            out.append(q)
    return out


def init_params(code, q):
    """The hand-written __init__ of class q: [(name, annotation, default)]
    and attributes it sets that are neither parameters nor fields."""
    ci = code.cls(q)
    fn = ci.methods.get("__init__")
    if fn is None:
        return [], []
    mod = ci.module
    a = fn.args
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    params = []
    for p, d in list(zip(pos, defaults))[1:] + list(zip(a.kwonlyargs, a.kw_defaults)):
        params.append((p.arg, mod.seg(p.annotation) if p.annotation is not None else "",
                       mod.seg(d) if d is not None else "required"))
    attrs = []
    for n in ast.walk(fn):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                        and t.value.id == "self"):
                    attrs.append((t.attr, "", mod.seg(n.value)))
    return params, attrs


def bridge_variants(code, field_rows, previous=None):
    cc = code.class_ref(BRIDGE_CONFIG, "ConfigContainer")
    everything = all_bridge_classes(code)
    table = {}
    for r in field_rows:
        if r["field"]:
            table.setdefault(r["section"], {}).setdefault(r["field"], r)
    hand = {}
    if previous:
        _, prev = read_tsv(previous)
        for r in prev:
            if "class: " in r["note"]:
                head = r["note"].split(" | field: ")[0]
                parts = [p for p in head.split("; ") if not p.startswith((
                    "class: ", "also inherits fields from ", "custom __getattr__/__setattr__ in ",
                    "extends no class of bridge-config-fields.tsv"))]
                hand[(r["section"], r["class"])] = parts
    rows = []
    for f, sec, others, accepts_str in section_classes(code, cc):
        if sec is None or not f.init or not code.cls(sec).is_dataclass:
            continue
        dmod = code.cls(f.cls).module
        accepted = []
        for m in union_members(f.node.annotation):
            r = code.resolve_expr(dmod, m) if not isinstance(m, ast.Constant) else None
            if r is not None and r.kind == "class":
                accepted.append(r.qual)
        smro = code.dataclass_mro(sec)
        srows = table.get(f.name, {})
        # an accepted type Bridge re-exports from Megatron-LM counts as well
        pool = sorted(set(everything) | set(accepted))
        for q in variant_classes(code, f.name, sec, accepted, pool):
            rows += variant_rows(code, f.name, q, smro, srows, hand.get((f.name, q), []))
    return rows


def variant_rows(code, secname, q, smro, srows, hand_notes):
    ci = code.cls(q)
    mro = code.mro(q)
    base = next((c for c in mro if c in smro), None)
    ancestry = set(smro[smro.index(base):]) if base else set()
    fields = code.fields(q)
    out = []
    for f in fields.values():
        notes = []
        if f.cls != q:
            notes.append("declared in " + f.cls)
        t = srows.get(f.name)
        if base is None:
            if t is not None:
                notes.append("same name in bridge-config-fields.tsv (%s: %s = %s)"
                             % (t["class"], t["type"], t["default"]))
        elif t is None:
            pass
        elif t["class"] not in ancestry:
            notes.append("bridge-config-fields.tsv lists it under %s (%s = %s), which this class "
                         "does not extend" % (t["class"], t["type"], t["default"]))
        elif (f.ann, f.default) != (t["type"], t["default"]):
            parts = []
            if f.default != t["default"]:
                parts.append("default " + t["default"])
            if f.ann != t["type"]:
                parts.append("type " + t["type"])
            notes.append("redefines: bridge-config-fields.tsv has %s (%s)" % (", ".join(parts),
                                                                            t["class"]))
        else:
            continue
        if not f.init:
            notes.append("init=False (computed, not settable)")
        am = argparse_meta(code.cls(f.cls).module, f)
        if am:
            notes.append("argparse_meta: " + am)
        out.append(OrderedDict(section=secname, **{"class": q}, base=base or "abstract",
                               field=f.name, type=f.ann, default=f.default,
                               note="; ".join(notes)))
    params, attrs = init_params(code, q)
    pnames = set()
    for name, ann, dflt in params:
        pnames.add(name)
        if name in fields:
            continue
        out.append(OrderedDict(section=secname, **{"class": q}, base=base or "abstract",
                               field=name, type=ann, default=dflt,
                               note="parameter of the hand-written __init__ of %s (stored as an "
                                    "instance attribute, not a dataclass field)" % q))
    seen = set()
    for name, ann, val in attrs:
        if name in fields or name in pnames or name in seen:
            continue
        seen.add(name)
        out.append(OrderedDict(section=secname, **{"class": q}, base=base or "abstract",
                               field=name, type=ann, default=val,
                               note="attribute set by the hand-written __init__ of %s" % q))
    seenp = set()
    for c in mro:
        if c.startswith("?") or c in ancestry:
            continue
        cci = code.cls(c)
        if cci is None:
            continue
        for pname, (fn, setter) in cci.properties.items():
            if pname in seenp or pname in fields:
                continue
            seenp.add(pname)
            if not setter:
                continue
            tgt = alias_target(cci, fn, fields)
            note = ("alias: property for %s (with setter)" % tgt) if tgt else "property with setter"
            out.append(OrderedDict(section=secname, **{"class": q}, base=base or "abstract",
                                   field=pname, type="property", default="",
                                   note=note + " in " + c))
    cnotes = ["class: " + repo_path(ci.module.name, ci.module.is_pkg)]
    inherits = [c for c in mro[1:] if not c.startswith("?") and c not in ancestry and code.cls(c)
                and code.cls(c).is_dataclass]
    if inherits:
        cnotes.append("also inherits fields from " + ", ".join(inherits))
    cnotes += hand_notes
    custom = [c for c in mro if not c.startswith("?") and code.cls(c) and c not in ancestry and
              ("__getattr__" in code.cls(c).methods or "__setattr__" in code.cls(c).methods)]
    if custom:
        cnotes.append("custom __getattr__/__setattr__ in " + ", ".join(custom))
    if base is None:
        cnotes.append("extends no class of bridge-config-fields.tsv: all its fields are listed")
    if not out:
        out.append(OrderedDict(section=secname, **{"class": q}, base=base or "abstract",
                               field="", type="", default="", note="adds or redefines nothing"))
    first = out[0]
    first["note"] = "; ".join(cnotes) + (" | field: " + first["note"] if first["note"] else "")
    return out
