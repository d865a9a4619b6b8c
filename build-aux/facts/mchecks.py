# build-aux/facts/mchecks.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron's sources are parsed, never imported).
"""Megatron's configuration checks (data/megatron-checks.tsv): the asserts,
raises and warnings of its validation functions; the reader Bridge's checks
share."""

import ast
import re
from collections import OrderedDict


# --------------------------------------------------------------------------
# checks: asserts, raises and warnings of the config validation
# --------------------------------------------------------------------------
#
# A row per `assert`, `raise` and warning call (warnings.warn, warn_rank_0,
# logger.warning, log_single_rank, and print / print_rank_0 of a message
# that starts with "warning") in the functions below and in every function
# or method of the same module they call (self.method(), a module-level
# function, a class of the module -> its __init__).  guard: the enclosing
# `if` tests joined with " && " (an else branch adds "not (TEST)", an except
# handler "except TYPE"); condition: the assert's test, or for a raise or a
# warning its innermost guard (then not repeated in guard).  fields: the
# config attributes the guard and condition read (args.X, getattr(args,
# "X"), self.X, or a plain function's parameters), following local
# variables back to their assignments.

MCORE_CHECK_ROOTS = [
    ("megatron.training.arguments", "validate_args", "args"),
    ("megatron.core.model_parallel_config", "ModelParallelConfig.__post_init__", "self"),
    ("megatron.core.transformer.transformer_config", "TransformerConfig.__post_init__", "self"),
    ("megatron.core.transformer.transformer_config", "MLATransformerConfig.__post_init__", "self"),
    ("megatron.core.optimizer.optimizer_config", "OptimizerConfig.__post_init__", "self"),
    ("megatron.core.distributed.distributed_data_parallel_config",
     "DistributedDataParallelConfig.__post_init__", "self"),
    ("megatron.training.config.training_config", "CheckpointConfig.__post_init__", "self"),
    ("megatron.core.num_microbatches_calculator", "init_num_microbatches_calculator", "params"),
]

WARN_CALLS = ("warnings.warn", "warn_rank_0", "logger.warning", "logging.warning", "log.warning",
              "_logger.warning", "warning", "print_rank_0", "print", "log_single_rank",
              "print_rank_last", "logger.warn")

DEPENDS = [
    (r"\bexcept (ImportError|ModuleNotFoundError)\b", "package installed (import)"),
    (r"\b(is_te_min_version|get_te_version|HAVE_TE)\b", "Transformer Engine installed/version"),
    (r"\b(is_torch_min_version|torch\.__version__|get_torch_version)\b", "torch version"),
    (r"\b(get_device_arch_version|get_device_capability|torch\.cuda\.|device_count|"
     r"get_device_properties)", "GPU capability/device"),
    (r"\bos\.(environ|getenv)\b", "environment variable"),
    (r"\b(is_\w+_min_version|HAVE_\w+)\b", "optional package installed/version"),
]


class FuncCtx:
    """What the checks of one function need to know about it."""

    def __init__(self, code, mod, fn, label, style, cls=None, prefix=""):
        self.code, self.mod, self.fn, self.label = code, mod, fn, label
        self.style, self.cls, self.prefix = style, cls, prefix
        params = [a.arg for a in fn.args.posonlyargs + fn.args.args + fn.args.kwonlyargs]
        if fn.args.vararg:
            params.append(fn.args.vararg.arg)
        if fn.args.kwarg:
            params.append(fn.args.kwarg.arg)
        self.params = params
        self.defs = {}
        self.globals = set()
        self._collect_defs(fn.body)
        for n in ast.walk(fn):
            if isinstance(n, (ast.Global, ast.Nonlocal)):
                self.globals |= set(n.names)
        # a plain parameter of an args-style helper (_check_arg_is_not_none(args,
        # arg)) names a field; one with a default (validate_args' defaults) not
        nd = len(fn.args.defaults)
        pos = fn.args.posonlyargs + fn.args.args
        self.field_params = set(a.arg for a in pos[1:len(pos) - nd]) if style == "args" else set()

    def _add(self, name, lineno, nodes):
        self.defs.setdefault(name, []).append((lineno, nodes))

    def _targets(self, t, roots=False):
        if isinstance(t, ast.Name):
            return [t.id]
        if roots and isinstance(t, (ast.Attribute, ast.Subscript)):
            # x.attr = v / x[k] = v: counted as an assignment to x
            while isinstance(t, (ast.Attribute, ast.Subscript)):
                t = t.value
            return [t.id] if isinstance(t, ast.Name) else []
        if isinstance(t, (ast.Tuple, ast.List)):
            out = []
            for e in t.elts:
                out += self._targets(e.value if isinstance(e, ast.Starred) else e)
            return out
        return []

    def _collect_defs(self, body):
        for st in body:
            for n in self._walk_stmt(st):
                if isinstance(n, ast.Assign):
                    for t in n.targets:
                        for nm in self._targets(t, True):
                            self._add(nm, n.lineno, [n.value])
                elif isinstance(n, ast.AnnAssign) and n.value is not None:
                    for nm in self._targets(n.target, True):
                        self._add(nm, n.lineno, [n.value])
                elif isinstance(n, ast.AugAssign):
                    for nm in self._targets(n.target, True):
                        self._add(nm, n.lineno, [n.value])
                elif isinstance(n, (ast.For, ast.AsyncFor)):
                    for nm in self._targets(n.target):
                        self._add(nm, n.lineno, [n.iter])
                elif isinstance(n, (ast.With, ast.AsyncWith)):
                    for it in n.items:
                        if it.optional_vars is not None:
                            for nm in self._targets(it.optional_vars):
                                self._add(nm, n.lineno, [it.context_expr])
                elif isinstance(n, ast.ExceptHandler) and n.name:
                    self._add(n.name, n.lineno, [])
                elif isinstance(n, ast.NamedExpr):
                    self._add(n.target.id, n.lineno, [n.value])

    def _walk_stmt(self, st):
        """ast.walk, but not into nested functions, classes or lambdas."""
        todo = [st]
        while todo:
            n = todo.pop(0)
            yield n
            for c in ast.iter_child_nodes(n):
                if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                    continue
                todo.append(c)

    def alias(self, name):
        """The field path a local stands for when its only assignment is one
        (x = self.model / x = getattr(self, "model", None)), else None."""
        defs = self.defs.get(name, [])
        if len(defs) != 1 or len(defs[0][1]) != 1:
            return None
        v = defs[0][1][0]
        if isinstance(v, (ast.Attribute, ast.Call)):
            f = self.field_of(v)
            if f is not None:
                return f
        return None

    def is_local(self, name, line=None):
        """A name the function assigns (before `line`, when given)."""
        if name not in self.defs or name in self.params or name in self.globals:
            return False
        return line is None or any(d[0] < line for d in self.defs[name])

    # -- fields an expression reads

    def field_of(self, n):
        """The config field an Attribute / getattr / Name node names, or None."""
        if self.style in ("args", "self", "bridge"):
            root = "args" if self.style == "args" else "self"
            if self.style == "bridge" and self.params and self.cls is None:
                root = self.params[0]
            depth = 2 if (self.style == "bridge" and self.prefix == "") else 1
            chain = []
            cur = n
            while True:
                if isinstance(cur, ast.Attribute):
                    chain.append(cur.attr)
                    cur = cur.value
                elif (isinstance(cur, ast.Call) and isinstance(cur.func, ast.Name)
                      and cur.func.id in ("getattr", "hasattr") and len(cur.args) >= 2
                      and isinstance(cur.args[1], ast.Constant) and isinstance(cur.args[1].value, str)):
                    chain.append(cur.args[1].value)
                    cur = cur.args[0]
                else:
                    break
            if isinstance(cur, ast.Name) and cur.id == root and chain:
                chain.reverse()
                return self.prefix + ".".join(chain[:depth])
            if (self.style == "bridge" and isinstance(cur, ast.Name) and chain
                    and self.is_local(cur.id)):
                # model_cfg = self.model; model_cfg.x -> model.x
                base = self.alias(cur.id)
                if base is not None:
                    chain.reverse()
                    parts = base.split(".") + chain
                    if self.prefix:
                        return ".".join(parts[:2])
                    return ".".join(parts[:depth])
            if isinstance(n, ast.Name) and n.id in self.field_params:
                return n.id
            return None
        if self.style == "params":
            if isinstance(n, ast.Name) and n.id in self.params and n.id != "self":
                return n.id
            if (isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
                    and n.value.id == "self"):
                return n.attr
        return None

    def direct(self, node, line=None):
        """Fields and local names one expression reads directly, in source
        order."""
        fs, ls = [], []

        def visit(n, bound):
            if n is None:
                return
            f = self.field_of(n)
            if f is not None:
                fs.append((getattr(n, "lineno", 0), getattr(n, "col_offset", 0), f))
                if isinstance(n, ast.Call):          # getattr(args, "x", DEFAULT)
                    for x in n.args[2:]:
                        visit(x, bound)
                return
            if isinstance(n, ast.Name) and self.is_local(n.id, line):
                ls.append((n.lineno, n.col_offset, n.id))
            if isinstance(n, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
                b = set(bound)
                for g in n.generators:
                    b |= set(self._targets(g.target))
                for c in ast.iter_child_nodes(n):
                    visit(c, b)
                return
            if isinstance(n, ast.Lambda):
                return
            for c in ast.iter_child_nodes(n):
                visit(c, bound)
        visit(node, frozenset())
        return [f for _, _, f in sorted(fs)], [l for _, _, l in sorted(ls)]

    def scan(self, nodes, fields, locs, line, seen):
        """Fields (direct ones first) and locals (depth first, each through
        its latest assignment before `line`) that `nodes` read."""
        pending = []
        for node in nodes:
            fs, ls = self.direct(node, line)
            for f in fs:
                if f not in fields:
                    fields.append(f)
            pending += ls
        for nm in pending:
            if nm in seen:
                continue
            seen.add(nm)
            locs.append(nm)
            defs = [d for d in self.defs.get(nm, []) if d[0] < line]
            if defs:
                defs = [max(defs, key=lambda d: d[0])]
            else:
                defs = self.defs.get(nm, [])
            self.scan([x for _, xs in defs for x in xs], fields, locs, line, seen)

    def seg(self, node):
        return self.mod.seg(node)


def test_text(mod, test):
    """An `if` test as the tables write it: its source, in parentheses when
    it is an `or` (so that joined with && it still reads right)."""
    t = mod.seg(test)
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        t = "(%s)" % t
    return t


def call_name(mod, call):
    return mod.seg(call.func) if isinstance(call, ast.Call) else None


def warn_message(mod, call):
    """The message of a warning call, or None if the call is no warning."""
    name = call_name(mod, call)
    if name not in WARN_CALLS and not name.endswith(".warning"):
        return None
    args = call.args
    if name == "log_single_rank":
        if len(args) < 3 or "WARNING" not in mod.seg(args[1]):
            return None
        return args[2]
    if not args:
        return None
    msg = args[0]
    if name in ("print", "print_rank_0", "print_rank_last"):
        txt = mod.seg(msg).lstrip("fFrRbBuU").lstrip("'\"( ")
        if not txt.lower().startswith("warning"):
            return None
    return msg


def exits(body):
    """A block that always leaves the function (or the loop iteration)."""
    return bool(body) and isinstance(body[-1], (ast.Return, ast.Continue))


def checks_of_function(ctx, early_returns=False):
    rows = []
    mod = ctx.mod

    def emit(st, kind, cond_node, cond_text, guards, loops, trys, extra):
        line = st.lineno
        guard_elems = [g for g in guards]
        fields, locs, seen = [], [], set()
        nodes = [g[1] for g in guard_elems if g[1] is not None]
        if cond_node is not None:
            nodes.append(cond_node)
        ctx.scan(nodes, fields, locs, line, seen)
        return dict(line=line, kind=kind, guard=" && ".join(g[0] for g in guard_elems),
                    condition=cond_text, fields=fields, locals=locs, loops=list(loops),
                    trys=list(trys), extra=extra, guard_nodes=[g[1] for g in guard_elems],
                    cond_node=cond_node)

    def split_cond(guards):
        """raise / warn: the innermost guard becomes the condition."""
        if guards:
            return guards[:-1], guards[-1][1], guards[-1][0]
        return guards, None, ""

    def walk(body, guards, loops, trys):
        guards = list(guards)
        for st in body:
            if early_returns and isinstance(st, ast.If) and exits(st.body) and not st.orelse:
                walk(st.body, guards + [(test_text(mod, st.test), st.test)], loops, trys)
                guards.append(("not (%s)" % test_text(mod, st.test), st.test))
                continue
            if isinstance(st, ast.Assert):
                r = emit(st, "assert", st.test, ctx.seg(st.test), guards, loops, trys, {})
                r["message"] = ctx.seg(st.msg) if st.msg is not None else ""
                rows.append(r)
                warn_calls(st.test, st, guards, loops, trys)
            elif isinstance(st, ast.Raise):
                if st.exc is None:
                    continue
                exc = st.exc
                ename = mod.seg(exc.func if isinstance(exc, ast.Call) else exc)
                msg = exc.args[0] if isinstance(exc, ast.Call) and exc.args else None
                g, cn, ct = split_cond(guards)
                r = emit(st, "raise", cn, ct, g, loops, trys, {"raises": ename.rpartition(".")[2]})
                r["message"] = ctx.seg(msg) if msg is not None else ""
                rows.append(r)
            elif isinstance(st, ast.If):
                warn_calls(st.test, st, guards, loops, trys)
                t = test_text(mod, st.test)
                walk(st.body, guards + [(t, st.test)], loops, trys)
                if st.orelse:
                    walk(st.orelse, guards + [("not (%s)" % t, st.test)], loops, trys)
            elif isinstance(st, (ast.For, ast.AsyncFor)):
                loop = "for %s in %s" % (ctx.seg(st.target), ctx.seg(st.iter))
                walk(st.body, guards, loops + [loop], trys)
                walk(st.orelse, guards, loops, trys)
            elif isinstance(st, ast.While):
                walk(st.body, guards, loops + ["while %s" % ctx.seg(st.test)], trys)
                walk(st.orelse, guards, loops, trys)
            elif isinstance(st, (ast.With, ast.AsyncWith)):
                walk(st.body, guards, loops, trys)
            elif isinstance(st, ast.Try):
                types = []
                for h in st.handlers:
                    types.append(ctx.seg(h.type) if h.type is not None else "Exception")
                walk(st.body, guards, loops, trys + ["/".join(types)])
                for h in st.handlers:
                    ht = ctx.seg(h.type) if h.type is not None else "Exception"
                    walk(h.body, guards + [("except " + ht, None)], loops, trys)
                walk(st.orelse, guards, loops, trys)
                walk(st.finalbody, guards, loops, trys)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            else:
                for n in ast.walk(st):
                    if isinstance(n, (ast.Lambda, ast.FunctionDef)):
                        break
                warn_calls(st, st, guards, loops, trys)

    def warn_calls(node, st, guards, loops, trys):
        if not isinstance(st, ast.Expr):
            return
        call = st.value
        if not isinstance(call, ast.Call):
            return
        msg = warn_message(mod, call)
        if msg is None:
            return
        g, cn, ct = split_cond(guards)
        r = emit(call, "warn", cn, ct, g, loops, trys, {"via": call_name(mod, call)})
        r["message"] = ctx.seg(msg)
        rows.append(r)

    walk(ctx.fn.body, [], [], [])
    return rows


# The version gates of Megatron's checks: a check whose only dependency on
# the machine is the Transformer Engine or torch version (and the job's
# environment variables) is decidable for a declared target (offline "target"; mcinit's launch.te_version and
# launch.torch_version), and the note records each gate ("gate: te>=2.9.0").
GATES = [(r'\bis_te_min_version\(\s*"([^"]+)"', "te>=%s"),
         (r'\bis_torch_min_version\(\s*"([^"]+)"', "torch>=%s")]
TARGET_DEPENDS = ("Transformer Engine installed/version", "torch version",
                  "environment variable")   # the job's, which mcinit reads


def version_gates(texts):
    out = []
    for t in texts:
        for pat, fmt in GATES:
            for v in re.findall(pat, t):
                if fmt % v not in out:
                    out.append(fmt % v)
    return out


def offline_verdict(dep, gates):
    """yes, target (decidable once the TE / torch versions are declared) or no."""
    if not dep:
        return "yes"
    return "target" if gates and all(d in TARGET_DEPENDS for d in dep) else "no"


def depends_on(texts):
    out = []
    for t in texts:
        for pat, what in DEPENDS:
            if re.search(pat, t) and what not in out:
                if what == "optional package installed/version" and \
                        ("Transformer Engine installed/version" in out or "torch version" in out) \
                        and not re.search(r"\bHAVE_\w+|is_(?!te_|torch_)\w+_min_version", t):
                    continue
                out.append(what)
    return out


def function_index(code, modname):
    """name -> (label, fn node, class name or None) for a module's functions
    and methods."""
    mod = code.module(modname)
    out = {}
    for name, fn in mod.functions.items():
        out[name] = (name, fn, None)
    for cname, cnode in mod.classes.items():
        for st in cnode.body:
            if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[cname + "." + st.name] = (cname + "." + st.name, st, cname)
    return out


def calls_in(mod, fn, cls, index, want_init=True):
    """The functions / methods of the module `fn` calls: (label, line)."""
    out = []
    for n in ast.walk(fn):
        if not isinstance(n, ast.Call):
            continue
        f = n.func
        tgt = None
        if isinstance(f, ast.Name):
            if f.id in index and index[f.id][2] is None:
                tgt = f.id
            elif f.id + ".__init__" in index:
                tgt = f.id + ".__init__"
                if not want_init:
                    tgt = None
        elif (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
              and f.value.id in ("self", "cls") and cls is not None):
            if cls + "." + f.attr in index:
                tgt = cls + "." + f.attr
        if tgt is not None:
            out.append((tgt, n.lineno))
    return out


def extract_checks(code, roots, style_of=None, fields_prefix=None, early_returns=False,
                   version_gated=True):
    """Rows for the functions in `roots` ((module, label, style)) and the
    same-module functions they reach."""
    by_file = OrderedDict()
    for modname, label, style in roots:
        mod = code.module(modname)
        if mod is None:
            continue
        index = function_index(code, modname)
        if label not in index:
            continue
        todo, reached = [label], OrderedDict()
        while todo:
            lb = todo.pop(0)
            if lb in reached:
                continue
            reached[lb] = True
            _, fn, cls = index[lb]
            for tgt, _ in calls_in(mod, fn, cls, index):
                if tgt not in reached:
                    todo.append(tgt)
        callers = {}
        for lb, (_, fn, cls) in index.items():
            for tgt, line in calls_in(mod, fn, cls, index, want_init=False):
                if tgt != lb:
                    callers.setdefault(tgt, []).append((lb, line))
        entry = by_file.setdefault(modname, {"mod": mod, "funcs": OrderedDict()})
        for lb in reached:
            st = style
            _, fn, cls = index[lb]
            if style_of is not None:
                st = style_of(modname, lb, fn, cls)
            elif lb != label:
                args0 = [a.arg for a in fn.args.args]
                st = "args" if args0[:1] == ["args"] else ("self" if cls and style == "self" and
                                                           args0[:1] == ["self"] else "params")
                if cls and lb.endswith(".__init__") or (cls and style == "params"):
                    st = "params"
            entry["funcs"][lb] = (fn, cls, st, [c for c in callers.get(lb, []) if lb != label])
    rows = []
    for modname, entry in by_file.items():
        mod = entry["mod"]
        path = modname.replace(".", "/") + ("/__init__.py" if mod.is_pkg else ".py")
        frows = []
        for lb, (fn, cls, st, callers) in entry["funcs"].items():
            prefix = fields_prefix(modname, lb, cls) if fields_prefix else ""
            ctx = FuncCtx(code, mod, fn, lb, st, cls, prefix)
            for r in checks_of_function(ctx, early_returns):
                r["function"] = lb
                r["callers"] = callers
                r["id"] = "%s:%d" % (path, r["line"])
                texts = [g for g in [r["guard"], r["condition"]]]
                for nm in r["locals"]:
                    for _, nodes in ctx.defs.get(nm, []):
                        texts += [mod.seg(x) for x in nodes]
                if r["trys"] and any("ImportError" in t or "ModuleNotFoundError" in t
                                     for t in r["trys"]):
                    texts.append("except ImportError")
                dep = depends_on(texts)
                notes = []
                if r["extra"].get("raises"):
                    notes.append("raises " + r["extra"]["raises"])
                if r["extra"].get("via"):
                    notes.append("via " + r["extra"]["via"])
                for lp in r["loops"]:
                    notes.append("in loop: " + lp)
                for t in r["trys"]:
                    notes.append("inside try/except " + t)
                if r["locals"]:
                    notes.append("reads locals: " + ",".join(r["locals"]))
                if dep:
                    notes.append("depends on: " + "; ".join(dep))
                gates = version_gates(texts) if version_gated else []
                if gates:
                    notes.append("gate: " + ", ".join(gates))
                for c, line in callers:
                    notes.append("called from %s at line %d" % (c, line))
                frows.append(OrderedDict(
                    id=r["id"], function=lb, kind=r["kind"], guard=r["guard"],
                    condition=r["condition"], message=r["message"], fields=",".join(r["fields"]),
                    offline=offline_verdict(dep, gates), note="; ".join(notes)))
        frows.sort(key=lambda x: int(x["id"].rpartition(":")[2]))
        rows += frows
    return rows


CHECKS_HEAD = ["id", "function", "kind", "guard", "condition", "message", "fields", "offline",
               "note"]
