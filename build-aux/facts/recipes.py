# build-aux/facts/recipes.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron-Bridge's sources are parsed, never imported).
"""Megatron-Bridge's recipe functions (data/bridge-recipes.tsv, and each
release's data/releases/*/bridge-recipes.tsv): for each, the model it builds,
the parallelism, sequence and batch sizes it sets, and the
checkpoint.pretrained_checkpoint it leaves (what ConfigContainer.validate
asks of a PEFT recipe).

A recipe is a public top-level function of a module below
megatron.bridge.recipes (but recipes.utils) annotated `-> ConfigContainer`;
a legacy name is an `import RECIPE as NAME` or a `NAME = RECIPE` in such a
module (an alias row, with its target's values).  Each recipe is run by a small abstract
interpreter over the AST: literals, names (module constants too), the
arithmetic of known numbers, attribute assignments into the config objects,
and calls -- a function of megatron.bridge.recipes (the shared helpers of
common.py and utils/, other recipes, a module's private builders) is
entered with its arguments bound; a class is a constructor whose keywords
become the object's fields; AutoBridge.from_hf_pretrained(ID) ...
.to_megatron_provider() / .get_model_config() gives a model whose values
come from the Hugging Face config (unknown here).  An `if` whose condition
is not known takes neither branch.

Every value remembers where its literal was written.  The note, its parts
joined by "; ": "alias of TARGET (FILE)"; for a model made by its class's
constructor, the fields of CLASS_DEFAULTS it leaves unset ("not set by the
recipe (class defaults apply): ..."; for AutoBridge they are the Hugging
Face config's, left empty without a word); "Hugging Face id not literal";
"model built by F() annotated -> T" (the private builder that made the
model) and "model cast to T"; then, per place other than the recipe itself
(a helper, another recipe, "module NAME" for a module constant), in the
order of the columns, "COLUMNS from PLACE".  A recipe that raises has only
"raises EXCEPTION" (its first 120 characters).

Order: by file path (bytewise), and in a file by line: the recipes as
defined, the aliases as imported.  (gen-tables.py sorts by function: the
order is not mcinit's.)"""

import ast

from .source import Ref

RECIPES_HEAD = ["function", "file", "provider", "model_source", "hf_model", "tensor_parallel",
                "pipeline_parallel", "context_parallel", "expert_parallel", "seq_length",
                "dataset_seq_length", "global_batch_size", "micro_batch_size", "dataset_class",
                "peft_class", "pretrained_checkpoint", "note"]

PKG = "megatron.bridge.recipes"

# column -> (section, field)
NUMERIC = [("tensor_parallel", "model", "tensor_model_parallel_size"),
           ("pipeline_parallel", "model", "pipeline_model_parallel_size"),
           ("context_parallel", "model", "context_parallel_size"),
           ("expert_parallel", "model", "expert_model_parallel_size"),
           ("seq_length", "model", "seq_length"),
           ("dataset_seq_length", "dataset", "seq_length"),
           ("global_batch_size", "train", "global_batch_size"),
           ("micro_batch_size", "train", "micro_batch_size")]
# the model fields a constructed provider leaves to its class's defaults
CLASS_DEFAULTS = ["tensor_model_parallel_size", "pipeline_model_parallel_size",
                  "context_parallel_size", "expert_model_parallel_size", "seq_length"]


class Unknown:
    def __repr__(self):
        return "UNK"


UNK = Unknown()


class V:
    """A value and where its literal was written (a function's name, or
    "module NAME" for a module constant)."""
    __slots__ = ("v", "origin")

    def __init__(self, v, origin):
        self.v, self.origin = v, origin


class Obj:
    """A config object: its class (qualified, or None), its fields, and for
    a model how it was made."""

    def __init__(self, cls=None):
        self.cls = cls
        self.attrs = {}
        self.source = None          # model_source
        self.hf = None              # V of the Hugging Face id
        self.hf_literal = True
        self.built = []             # notes: "model built by ...", "model cast to ..."


class Handle:
    """AutoBridge.from_hf_pretrained(...) / from_hf_config(...), or a model
    method chain not yet called."""

    def __init__(self, kind, hf=None, hf_literal=True, base=None):
        self.kind, self.hf, self.hf_literal, self.base = kind, hf, hf_literal, base


class Raised(Exception):
    pass


class Return(Exception):
    def __init__(self, value):
        Exception.__init__(self)
        self.value = value


def short(modname):
    return modname.rpartition(".")[2]


class Interp:
    def __init__(self, code):
        self.code = code
        self.depth = 0

    # -- names

    def resolve(self, mod, name):
        r = self.code.lookup(mod.name, name)
        if r is None:
            return Ref("external", name)
        return r

    def module_value(self, r):
        """A module constant: its value, written in "module NAME"."""
        mod = r.module
        return self.expr(r.node, mod, {}, "module " + short(mod.name))

    # -- calls

    def call_function(self, fnode, mod, args, kwargs, caller):
        if self.depth > 40:
            return V(UNK, caller)
        env = {}
        a = fnode.args
        params = a.posonlyargs + a.args
        defaults = [None] * (len(params) - len(a.defaults)) + list(a.defaults)
        for i, p in enumerate(params):
            if i < len(args):
                env[p.arg] = args[i]
            elif p.arg in kwargs:
                env[p.arg] = kwargs[p.arg]
            elif defaults[i] is not None:
                env[p.arg] = self.expr(defaults[i], mod, {}, fnode.name)
            else:
                env[p.arg] = V(UNK, fnode.name)
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            if p.arg in kwargs:
                env[p.arg] = kwargs[p.arg]
            elif d is not None:
                env[p.arg] = self.expr(d, mod, {}, fnode.name)
            else:
                env[p.arg] = V(UNK, fnode.name)
        self.depth += 1
        try:
            self.block(fnode.body, mod, env, fnode.name)
        except Return as r:
            return r.value
        finally:
            self.depth -= 1
        return V(None, fnode.name)

    def call(self, node, mod, env, fn):
        f = node.func
        args = [self.expr(x, mod, env, fn) for x in node.args if not isinstance(x, ast.Starred)]
        kwargs = {k.arg: self.expr(k.value, mod, env, fn) for k in node.keywords if k.arg}
        # methods of what the recipe holds
        if isinstance(f, ast.Attribute):
            base = self.expr(f.value, mod, env, fn)
            b = base.v
            if isinstance(b, Ref) and b.kind in ("class", "external") and \
                    b.qual.rpartition(".")[2] == "AutoBridge":
                if f.attr == "from_hf_pretrained":
                    hf = args[0] if args else kwargs.get("hf_path") or V(UNK, fn)
                    return V(Handle("pretrained", hf, isinstance(hf.v, str)), fn)
                if f.attr == "from_hf_config":
                    return V(Handle("config", None, False), fn)
            if isinstance(b, Handle) and f.attr in ("to_megatron_provider", "get_model_config"):
                o = Obj()
                o.source = "AutoBridge." + f.attr + (" (from_hf_config)" if b.kind == "config"
                                                     else "")
                o.hf, o.hf_literal = b.hf, b.hf_literal
                return V(o, fn)
            if isinstance(b, Obj) and f.attr == "to_text_provider" and b.source:
                o = Obj()
                o.source = b.source + ".to_text_provider"
                o.hf, o.hf_literal, o.built = b.hf, b.hf_literal, list(b.built)
                return V(o, fn)
            if isinstance(b, str) and f.attr in ("lower", "upper", "strip") and not args:
                return V(getattr(b, f.attr)(), base.origin)
            if isinstance(b, Obj) and f.attr in ("copy", "deepcopy"):
                return base
            if isinstance(f.value, ast.Call) and isinstance(b, Obj) and \
                    b.source == "constructor" and (b.cls or "").endswith("Bridge"):
                # FluxBridge().provider_bridge(hf): a model from a bridge other than
                # AutoBridge, which takes no Hugging Face id this reader can see
                o = Obj()
                o.source = ast.unparse(f)
                o.hf_literal = False
                return V(o, fn)
            if isinstance(b, Ref) and b.kind == "module":
                r = self.code.lookup(b.qual, f.attr)
                if r is not None:
                    return self.call_ref(r, node, args, kwargs, mod, fn)
            return V(UNK, fn)
        if isinstance(f, ast.Name):
            if f.id in env:
                r = env[f.id].v
                if isinstance(r, Ref):
                    return self.call_ref(r, node, args, kwargs, mod, fn)
                return V(UNK, fn)
            r = self.resolve(mod, f.id)
            return self.call_ref(r, node, args, kwargs, mod, fn)
        return V(UNK, fn)

    def call_ref(self, r, node, args, kwargs, mod, fn):
        name = r.qual.rpartition(".")[2]
        if r.kind == "func" and (r.qual.startswith(PKG + ".")):
            out = self.call_function(r.node, r.module, args, kwargs, fn)
            if isinstance(out.v, Obj) and r.node.returns is not None and \
                    out.v.source is not None and r.node.name.startswith("_") and \
                    not _is_container(r.node.returns) and \
                    not any(n.startswith("model built by") for n in out.v.built):
                # the builder that made the model, not the wrappers around it
                out.v.built.insert(0, "model built by %s() annotated -> %s"
                                   % (r.node.name, ast.unparse(r.node.returns)))
            return out
        if name == "isinstance" and len(args) == 2 and _known(args[0].v):
            want = [x.v for x in args[1].v] if isinstance(args[1].v, tuple) else [args[1].v]
            have = type(args[0].v).__name__
            return V(any(isinstance(w, Ref) and w.qual == have for w in want), fn)
        if name == "cast" and len(args) == 2:
            o = args[1]
            if isinstance(o.v, Obj) and isinstance(node.args[0], (ast.Name, ast.Attribute)):
                o.v.built.append("model cast to %s" % ast.unparse(node.args[0]))
            return o
        if r.kind == "class" or (r.kind == "external" and name[:1].isupper()):
            o = Obj(r.qual)
            o.source = "constructor"
            for k, v in kwargs.items():
                o.attrs[k] = v
            return V(o, fn)
        return V(UNK, fn)

    # -- expressions

    def expr(self, node, mod, env, fn):
        if isinstance(node, ast.Constant):
            return V(node.value, fn)
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            r = self.resolve(mod, node.id)
            if r.kind == "value":
                return self.module_value(r)
            return V(r, fn)
        if isinstance(node, ast.Attribute):
            base = self.expr(node.value, mod, env, fn)
            b = base.v
            if isinstance(b, Obj):
                return b.attrs.get(node.attr, V(UNK, fn))
            if isinstance(b, Ref) and b.kind == "module":
                r = self.code.lookup(b.qual, node.attr)
                if r is not None and r.kind == "value":
                    return self.module_value(r)
                if r is not None:
                    return V(r, fn)
            if isinstance(b, Ref) and b.kind in ("external", "class"):
                return V(Ref("external", b.qual + "." + node.attr), fn)
            return V(UNK, fn)
        if isinstance(node, ast.Call):
            return self.call(node, mod, env, fn)
        if isinstance(node, ast.BinOp):
            l, r = self.expr(node.left, mod, env, fn), self.expr(node.right, mod, env, fn)
            if _num(l.v) and _num(r.v):
                try:
                    v = _BINOPS[type(node.op)](l.v, r.v)
                except (KeyError, ZeroDivisionError, TypeError):
                    return V(UNK, fn)
                return V(v, fn)
            return V(UNK, fn)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            o = self.expr(node.operand, mod, env, fn)
            return V(-o.v, fn) if _num(o.v) else V(UNK, fn)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            o = self.expr(node.operand, mod, env, fn)
            return V(not o.v, fn) if _known(o.v) else V(UNK, fn)
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            l = self.expr(node.left, mod, env, fn)
            r = self.expr(node.comparators[0], mod, env, fn)
            op = node.ops[0]
            if isinstance(op, (ast.Is, ast.IsNot)) and (l.v is None or r.v is None) and \
                    not isinstance(l.v, Unknown) and not isinstance(r.v, Unknown):
                same = l.v is None and r.v is None
                return V(same if isinstance(op, ast.Is) else not same, fn)
            if _known(l.v) and _known(r.v) and type(op) in _CMPOPS:
                try:
                    return V(_CMPOPS[type(op)](l.v, r.v), fn)
                except TypeError:
                    return V(UNK, fn)
            return V(UNK, fn)
        if isinstance(node, ast.BoolOp):
            vals = [self.expr(x, mod, env, fn) for x in node.values]
            if all(_known(x.v) for x in vals):
                if isinstance(node.op, ast.And):
                    return V(all(x.v for x in vals), fn)
                return V(any(x.v for x in vals), fn)
            return V(UNK, fn)
        if isinstance(node, ast.IfExp):
            t = self.expr(node.test, mod, env, fn)
            if _known(t.v):
                return self.expr(node.body if t.v else node.orelse, mod, env, fn)
            return V(UNK, fn)
        if isinstance(node, (ast.Tuple, ast.List)):
            return V(tuple(self.expr(x, mod, env, fn) for x in node.elts), fn)
        return V(UNK, fn)

    # -- statements

    def assign(self, target, val, mod, env, fn):
        if isinstance(target, ast.Name):
            env[target.id] = val
        elif isinstance(target, ast.Attribute):
            base = self.expr(target.value, mod, env, fn)
            if isinstance(base.v, Obj):
                base.v.attrs[target.attr] = val
        elif isinstance(target, (ast.Tuple, ast.List)):
            vals = val.v if isinstance(val.v, tuple) and len(val.v) == len(target.elts) else None
            for i, t in enumerate(target.elts):
                self.assign(t, vals[i] if vals else V(UNK, fn), mod, env, fn)

    def block(self, body, mod, env, fn):
        for st in body:
            self.stmt(st, mod, env, fn)

    def stmt(self, st, mod, env, fn):
        if isinstance(st, ast.Expr):
            if isinstance(st.value, ast.Call):
                self.expr(st.value, mod, env, fn)
        elif isinstance(st, ast.Assign):
            val = self.expr(st.value, mod, env, fn)
            for t in st.targets:
                self.assign(t, val, mod, env, fn)
        elif isinstance(st, ast.AnnAssign) and st.value is not None:
            self.assign(st.target, self.expr(st.value, mod, env, fn), mod, env, fn)
        elif isinstance(st, ast.AugAssign):
            cur = self.expr(st.target, mod, env, fn) if isinstance(
                st.target, (ast.Name, ast.Attribute)) else V(UNK, fn)
            inc = self.expr(st.value, mod, env, fn)
            v = V(UNK, fn)
            if _num(cur.v) and _num(inc.v) and type(st.op) in _BINOPS:
                v = V(_BINOPS[type(st.op)](cur.v, inc.v), fn)
            self.assign(st.target, v, mod, env, fn)
        elif isinstance(st, ast.Return):
            raise Return(self.expr(st.value, mod, env, fn) if st.value else V(None, fn))
        elif isinstance(st, ast.Raise):
            raise Raised(ast.unparse(st.exc) if st.exc is not None else "")
        elif isinstance(st, ast.If):
            t = self.expr(st.test, mod, env, fn)
            if _known(t.v):
                self.block(st.body if t.v else st.orelse, mod, env, fn)
        elif isinstance(st, ast.ImportFrom) and st.level == 0 and st.module:
            # an import inside the function
            for a in st.names:
                r = self.code.lookup(st.module, a.name)
                env[a.asname or a.name] = V(r or Ref("external", st.module + "." + a.name), fn)
        elif isinstance(st, (ast.With, ast.Try)):
            self.block(st.body, mod, env, fn)


_BINOPS = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b,
           ast.Mult: lambda a, b: a * b, ast.FloorDiv: lambda a, b: a // b,
           ast.Div: lambda a, b: a / b, ast.Pow: lambda a, b: a ** b,
           ast.Mod: lambda a, b: a % b}
_CMPOPS = {ast.Eq: lambda a, b: a == b, ast.NotEq: lambda a, b: a != b,
           ast.Lt: lambda a, b: a < b, ast.LtE: lambda a, b: a <= b,
           ast.Gt: lambda a, b: a > b, ast.GtE: lambda a, b: a >= b}


def _num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _known(v):
    return v is None or isinstance(v, (int, float, str, bool))


def _is_container(ann):
    """`-> ConfigContainer`, or the same as a string annotation."""
    text = ann.value if isinstance(ann, ast.Constant) and isinstance(ann.value, str) \
        else ast.unparse(ann)
    return text.strip().rpartition(".")[2] == "ConfigContainer"


def _file(modname, mod):
    return "src/" + modname.replace(".", "/") + ("/__init__.py" if mod.is_pkg else ".py")


def _cell(v):
    if v is None or isinstance(v, (Unknown, bool)) or not isinstance(v, int):
        return ""
    return str(v)


def recipe_row(interp, name, fnode, mod):
    """The row of one recipe function (without function and file)."""
    row = {k: "" for k in RECIPES_HEAD}
    try:
        out = interp.call_function(fnode, mod, [], {}, name)
    except Raised as e:
        row["note"] = "raises " + e.args[0][:120]
        return row
    cfg = out.v
    if not isinstance(cfg, Obj):
        row["note"] = "returns no ConfigContainer this reader can follow"
        return row
    sec = {s: cfg.attrs.get(s, V(UNK, name)).v
           for s in ("model", "dataset", "train", "peft", "checkpoint")}
    model = sec["model"] if isinstance(sec["model"], Obj) else None
    notes = []
    if model is not None:
        if model.source == "constructor":
            row["provider"] = model.cls
        row["model_source"] = model.source or ""
        if model.hf is not None and isinstance(model.hf.v, str):
            row["hf_model"] = model.hf.v
        if model.source == "constructor":
            unset = [f for f in CLASS_DEFAULTS if f not in model.attrs]
            if unset:
                notes.append("not set by the recipe (class defaults apply): " + ", ".join(unset))
        elif not model.hf_literal or (model.hf is not None and not isinstance(model.hf.v, str)):
            notes.append("Hugging Face id not literal")
        notes.extend(model.built)
    groups = []        # [origin, [columns]]
    for col, s, f in NUMERIC:
        o = sec[s]
        v = o.attrs.get(f) if isinstance(o, Obj) else None
        if v is None or _cell(v.v) == "":
            continue
        row[col] = _cell(v.v)
        if v.origin != name:
            for g in groups:
                if g[0] == v.origin:
                    g[1].append(col)
                    break
            else:
                groups.append([v.origin, [col]])
    if isinstance(sec["dataset"], Obj) and sec["dataset"].cls:
        row["dataset_class"] = sec["dataset"].cls
    if "peft" in cfg.attrs:
        p = sec["peft"]
        if p is None:
            row["peft_class"] = "none"
        elif isinstance(p, Obj) and p.cls:
            row["peft_class"] = p.cls
    # checkpoint.pretrained_checkpoint as the recipe leaves it: what
    # ConfigContainer.validate asks of a PEFT recipe ("None" when the recipe
    # writes None, a path as written, empty when not known)
    ck = sec["checkpoint"]
    v = ck.attrs.get("pretrained_checkpoint") if isinstance(ck, Obj) else None
    if v is not None and v.v is None:
        row["pretrained_checkpoint"] = "None"
    elif v is not None and isinstance(v.v, str):
        row["pretrained_checkpoint"] = v.v
    notes.extend("%s from %s" % (", ".join(cols), o) for o, cols in groups)
    row["note"] = "; ".join(notes)
    return row


def _recipe_modules(code):
    return [m for m in code.modules_under(PKG)
            if not (m == PKG + ".utils" or m.startswith(PKG + ".utils."))]


def bridge_recipes(code):
    """Every recipe and alias of Bridge's recipes package, as rows."""
    interp = Interp(code)
    mods = {m: code.module(m) for m in _recipe_modules(code)}
    done = {}       # qualified name -> row

    def row_of(qual, fnode, mod):
        if qual not in done:
            done[qual] = recipe_row(interp, fnode.name, fnode, mod)
        return done[qual]

    entries = []    # (file, line, row)
    for m, mod in mods.items():
        f = _file(m, mod)
        for st in mod.tree.body:
            if isinstance(st, ast.FunctionDef) and not st.name.startswith("_") and \
                    st.returns is not None and _is_container(st.returns):
                r = dict(row_of(m + "." + st.name, st, mod), function=st.name, file=f)
                entries.append((f, st.lineno, r))
            elif isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                    isinstance(st.targets[0], ast.Name) and isinstance(st.value, ast.Name) and \
                    not st.targets[0].id.startswith("_"):
                # NAME = RECIPE: a legacy name bound in the module itself
                # (nemotron_3_nano_gb200_pretrain_config in 0.6.2)
                target = code.lookup(m, st.value.id)
                if target is None or target.kind != "func" or \
                        target.node.returns is None or not _is_container(target.node.returns):
                    continue
                tmod = target.qual.rpartition(".")[0]
                tr = row_of(target.qual, target.node, target.module)
                r = dict(tr, function=st.targets[0].id, file=f)
                r["note"] = "alias of %s (%s)" % (st.value.id, _file(tmod, target.module)) + \
                    ("; " + tr["note"] if tr["note"] else "")
                entries.append((f, st.lineno, r))
            elif isinstance(st, ast.ImportFrom) and st.level == 0 and st.module and \
                    st.module.startswith(PKG + "."):
                for a in st.names:
                    if not a.asname or a.asname == a.name:
                        continue
                    target = code.lookup(st.module, a.name)
                    if target is None or target.kind != "func" or \
                            target.node.returns is None or not _is_container(target.node.returns):
                        continue
                    tmod = target.qual.rpartition(".")[0]
                    tr = row_of(target.qual, target.node, target.module)
                    r = dict(tr, function=a.asname, file=f)
                    r["note"] = "alias of %s (%s)" % (a.name, _file(tmod, target.module)) + \
                        ("; " + tr["note"] if tr["note"] else "")
                    entries.append((f, st.lineno, r))
    entries.sort(key=lambda e: (e[0].encode(), e[1]))
    return [e[2] for e in entries]
