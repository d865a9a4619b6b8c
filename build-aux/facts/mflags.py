# build-aux/facts/mflags.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron's sources are parsed, never imported).
"""Megatron-LM's training flags (data/megatron-flags.tsv): its argparse
parser interpreted over the AST."""

import ast
import json
import os
import re
import sys
from collections import OrderedDict

from .source import union_members
from .tables import read_tsv


# --------------------------------------------------------------------------
# Megatron-LM's flags: which flags share a dest
# --------------------------------------------------------------------------


class FlagIndex:
    """dest -> flags (sorted) for one Megatron-LM release."""

    def __init__(self, rows):
        self.by_dest = {}
        for r in rows:
            self.by_dest.setdefault(r["dest"], set()).add(r["flag"])

    def flags(self, dest):
        return sorted(self.by_dest.get(dest, ()))

    @classmethod
    def from_args(cls, a, code=None):
        """--flags TSV [--flags-ref NAME], else the parser in --training /
        --core (see `flags`)."""
        if getattr(a, "flags", None):
            _, rows = read_tsv(a.flags)
            ref = a.flags_ref
            if ref:
                rows = [r for r in rows if ref in r.get("refs", ref).split(",")]
            return cls(rows)
        if code is None or not code.has_module("megatron.training.arguments"):
            return None         # no parser to read: see keep_flags()
        return cls(extract_flags(code))


def keep_flags(rows, previous):
    """No Megatron-LM parser among the sources (a megatron-core without
    megatron/training, and no --flags): the flag column is taken from an
    earlier bridge-config-fields.tsv for the fields it already had, and left
    empty for new ones."""
    kept = {}
    if previous and os.path.exists(previous):
        for r in read_tsv(previous)[1]:
            kept[(r["section"], r["field"])] = r["flag"]
    n = 0
    for r in rows:
        k = (r["section"], r["field"])
        if k in kept:
            r["flag"] = kept[k]
            n += 1
    sys.stderr.write("extract-facts: no megatron/training/arguments.py among the sources: "
                     "flag column of %d of %d rows kept from %s, the rest empty\n"
                     % (n, len(rows), previous or "(nothing)"))


# --------------------------------------------------------------------------
# flags: Megatron-LM's argparse parser, by interpreting its construction
# --------------------------------------------------------------------------
#
# Megatron-LM builds its parser in megatron/training/arguments.py:
# add_megatron_arguments(parser) (parse_args(...) in older releases) calls
# _add_*_args(parser), which call group.add_argument(...) and, since r0.16,
# ArgumentGroupFactory(SomeConfig, exclude=[...]).build_group(parser, ...),
# which turns each dataclass field into an argument (argument_utils.py).
# Importing that needs torch, Transformer Engine and a GPU build of half of
# megatron.core; instead this walks those functions' ASTs with a small
# abstract interpreter: literals, local variables, lists, the enum classes
# and dataclasses of the release are evaluated; calls into the parser are
# recorded; ArgumentGroupFactory is re-implemented (type inference from the
# annotation: Optional[X] -> X, list[X] -> nargs "+", Literal -> choices,
# Enum -> choices, bool -> store_true / store_false with --no-/--disable-,
# then the field's argparse_meta wins).  An `if` whose test cannot be decided
# from the source (an optional package present, say) runs both branches, as
# on a machine where everything is installed.


class Unknown:
    def __init__(self, text=""):
        self.text = text

    def __repr__(self):
        return "Unknown(%s)" % self.text


class PObj:
    """The parser, or one of its groups: all record into one list."""


class FuncVal:
    def __init__(self, name, node=None, mod=None):
        self.name, self.node, self.mod = name, node, mod


class ClassVal:
    def __init__(self, qual, ci):
        self.qual, self.ci = qual, ci
        self.name = qual.rpartition(".")[2]


class EnumMember:
    def __init__(self, cls, name, text, value=None):
        self.cls, self.name, self.text, self.value = cls, name, text, value

    def __repr__(self):
        return self.text


class EnvVal:
    """A default read from the environment (os.getenv): printed env:NAME."""

    def __init__(self, name):
        self.name = name


class Factory:
    def __init__(self, cls, exclude):
        self.cls, self.exclude = cls, exclude


class Special:
    def __init__(self, name):
        self.name = name


class _Return(Exception):
    def __init__(self, value):
        self.value = value


# signal.Signals as Python 3.11+ has it on Linux (the parser's --exit-signal
# choices): fixed here, so that the table does not depend on the Python or
# the OS this script runs on.
LINUX_SIGNALS = [("SIGHUP", 1), ("SIGINT", 2), ("SIGQUIT", 3), ("SIGILL", 4), ("SIGTRAP", 5),
                 ("SIGABRT", 6), ("SIGBUS", 7), ("SIGFPE", 8), ("SIGKILL", 9), ("SIGUSR1", 10),
                 ("SIGSEGV", 11), ("SIGUSR2", 12), ("SIGPIPE", 13), ("SIGALRM", 14),
                 ("SIGTERM", 15), ("SIGSTKFLT", 16), ("SIGCHLD", 17), ("SIGCONT", 18),
                 ("SIGSTOP", 19), ("SIGTSTP", 20), ("SIGTTIN", 21), ("SIGTTOU", 22),
                 ("SIGURG", 23), ("SIGXCPU", 24), ("SIGXFSZ", 25), ("SIGVTALRM", 26),
                 ("SIGPROF", 27), ("SIGWINCH", 28), ("SIGIO", 29), ("SIGPWR", 30), ("SIGSYS", 31),
                 ("SIGRTMIN", 34), ("SIGRTMAX", 64)]
SIGNAL_VALUE = dict(LINUX_SIGNALS)

BUILTIN_TYPES = {"int": int, "float": float, "str": str, "bool": bool, "list": list,
                 "tuple": tuple, "dict": dict, "set": set}
ENUM_BASES = ("enum.Enum", "enum.IntEnum", "enum.StrEnum", "enum.Flag", "enum.IntFlag")


class FlagInterp:
    def __init__(self, code):
        self.code = code
        self.args = []          # (names, kwargs) in add order
        self.set_defaults = {}
        self.depth = 0

    # -- values

    def enum_class(self, qual):
        mro = self.code.mro(qual)
        return any(q.lstrip("?") in ENUM_BASES or q.lstrip("?") in ("Enum", "IntEnum", "StrEnum")
                   for q in mro)

    def enum_members(self, cv):
        if cv.qual == "signal.Signals":
            return [EnumMember(cv, n, "signal." + n, v) for n, v in LINUX_SIGNALS]
        out = []
        mod = cv.ci.module
        for st in cv.ci.node.body:
            if isinstance(st, ast.Assign) and len(st.targets) == 1 and \
                    isinstance(st.targets[0], ast.Name) and not st.targets[0].id.startswith("_"):
                v = st.value
                val = v.value if isinstance(v, ast.Constant) else None
                out.append(EnumMember(cv, st.targets[0].id, cv.name + "." + st.targets[0].id, val))
        return out

    def global_value(self, mod, name):
        if re.match(r"^HAVE_[A-Z0-9_]+$", name):
            # an optional package: build the parser as where it is installed
            return Unknown(name)
        if name in BUILTIN_TYPES:
            if name not in mod.bindings:
                return BUILTIN_TYPES[name]
        r = self.code.lookup(mod.name, name) if (name in mod.bindings or mod.star) else None
        if r is None:
            if name in ("None", "True", "False"):
                return {"None": None, "True": True, "False": False}[name]
            if name in ("print", "len", "sorted", "range", "isinstance", "getattr", "hasattr",
                        "partial", "enumerate", "zip", "map", "any", "all", "max", "min"):
                return Special(name)
            return Unknown(name)
        return self.ref_value(r, name)

    def ref_value(self, r, name):
        if r.kind == "class":
            return ClassVal(r.qual, self.code.cls(r.qual))
        if r.kind == "func":
            return FuncVal(r.qual.rpartition(".")[2], r.node, r.module)
        if r.kind == "value":
            if self.depth > 40:
                return Unknown(name)
            self.depth += 1
            try:
                return self.eval(r.node, r.module, {})
            finally:
                self.depth -= 1
        if r.kind == "module":
            return Special("module:" + r.qual)
        if r.kind == "external":
            if r.qual == "signal.Signals":
                return ClassVal("signal.Signals", None)
            if r.qual in ("argparse.BooleanOptionalAction",):
                return Special("BooleanOptionalAction")
            if r.qual in ("functools.partial",):
                return Special("partial")
            return Unknown(r.qual)
        return Unknown(name)

    def attr(self, base, name, node, mod):
        if isinstance(base, Special) and base.name.startswith("module:"):
            qual = base.name[7:]
            if qual == "signal" and name in SIGNAL_VALUE:
                return EnumMember(ClassVal("signal.Signals", None), name, "signal." + name,
                                  SIGNAL_VALUE[name])
            if qual == "signal" and name == "Signals":
                return ClassVal("signal.Signals", None)
            r = self.code.lookup(qual, name)
            if r is None:
                return Unknown(qual + "." + name)
            return self.ref_value(r, name)
        if isinstance(base, Unknown):
            t = base.text + "." + name
            if t == "argparse.BooleanOptionalAction":
                return Special("BooleanOptionalAction")
            if t.startswith("signal.") and name in SIGNAL_VALUE:
                return EnumMember(ClassVal("signal.Signals", None), name, t, SIGNAL_VALUE[name])
            if t == "signal.Signals":
                return ClassVal("signal.Signals", None)
            return Unknown(t)
        if isinstance(base, ClassVal) and base.ci is not None:
            if self.enum_class(base.qual):
                for m in self.enum_members(base):
                    if m.name == name:
                        return m
            if name == "__doc__":
                return None
            return Unknown(base.qual + "." + name)
        if isinstance(base, EnumMember):
            if name == "name":
                return base.name
            if name == "value":
                return base.value if base.value is not None else Unknown(base.text + ".value")
        if isinstance(base, (PObj, Factory)):
            return Special("method:" + name)
        if isinstance(base, str) and name in ("split", "strip", "replace", "join", "format",
                                             "lower", "upper"):
            return Special("str." + name + ":" + base)
        return Unknown(name)

    def eval(self, node, mod, env):
        try:
            return self._eval(node, mod, env)
        except (TypeError, ValueError, KeyError, IndexError, AttributeError, ZeroDivisionError,
                OverflowError):
            return Unknown(mod.seg(node))

    def _eval(self, node, mod, env):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            if node.id in env:
                return env[node.id]
            return self.global_value(mod, node.id)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            out = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    v = self.eval(e.value, mod, env)
                    if isinstance(v, (list, tuple)):
                        out += list(v)
                    else:
                        return Unknown(mod.seg(node))
                else:
                    out.append(self.eval(e, mod, env))
            return tuple(out) if isinstance(node, ast.Tuple) else out
        if isinstance(node, ast.Dict):
            d = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    vv = self.eval(v, mod, env)
                    if isinstance(vv, dict):
                        d.update(vv)
                    continue
                kk = self.eval(k, mod, env)
                if isinstance(kk, Unknown):
                    continue
                d[kk] = self.eval(v, mod, env)
            return d
        if isinstance(node, ast.UnaryOp):
            v = self.eval(node.operand, mod, env)
            if isinstance(v, Unknown):
                return v
            if isinstance(node.op, ast.USub):
                return -v
            if isinstance(node.op, ast.UAdd):
                return +v
            if isinstance(node.op, ast.Not):
                return not v
            return Unknown(mod.seg(node))
        if isinstance(node, ast.BinOp):
            a, b = self.eval(node.left, mod, env), self.eval(node.right, mod, env)
            if isinstance(a, Unknown) or isinstance(b, Unknown):
                return Unknown(mod.seg(node))
            if any(isinstance(x, (PObj, Factory, FuncVal, ClassVal, EnumMember, Special))
                   for x in (a, b)):
                return Unknown(mod.seg(node))
            ops = {ast.Add: lambda x, y: x + y, ast.Sub: lambda x, y: x - y,
                   ast.Mult: lambda x, y: x * y, ast.Div: lambda x, y: x / y,
                   ast.FloorDiv: lambda x, y: x // y, ast.Mod: lambda x, y: x % y,
                   ast.Pow: lambda x, y: x ** y, ast.BitOr: lambda x, y: x | y,
                   ast.BitAnd: lambda x, y: x & y, ast.LShift: lambda x, y: x << y}
            f = ops.get(type(node.op))
            return f(a, b) if f else Unknown(mod.seg(node))
        if isinstance(node, ast.BoolOp):
            vals = [self.eval(v, mod, env) for v in node.values]
            if any(isinstance(v, Unknown) for v in vals):
                return Unknown(mod.seg(node))
            if isinstance(node.op, ast.And):
                r = True
                for v in vals:
                    r = v
                    if not v:
                        break
                return r
            r = False
            for v in vals:
                r = v
                if v:
                    break
            return r
        if isinstance(node, ast.Compare):
            left = self.eval(node.left, mod, env)
            for op, c in zip(node.ops, node.comparators):
                right = self.eval(c, mod, env)
                if isinstance(left, Unknown) or isinstance(right, Unknown):
                    return Unknown(mod.seg(node))
                if isinstance(op, ast.In):
                    ok = left in right
                elif isinstance(op, ast.NotIn):
                    ok = left not in right
                elif isinstance(op, ast.Eq):
                    ok = left == right
                elif isinstance(op, ast.NotEq):
                    ok = left != right
                elif isinstance(op, ast.Is):
                    ok = left is right
                elif isinstance(op, ast.IsNot):
                    ok = left is not right
                else:
                    return Unknown(mod.seg(node))
                if not ok:
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            t = self.eval(node.test, mod, env)
            if isinstance(t, Unknown):
                return Unknown(mod.seg(node))
            return self.eval(node.body if t else node.orelse, mod, env)
        if isinstance(node, ast.Attribute):
            return self.attr(self.eval(node.value, mod, env), node.attr, node, mod)
        if isinstance(node, ast.Subscript):
            base = self.eval(node.value, mod, env)
            idx = self.eval(node.slice, mod, env)
            if isinstance(base, ClassVal) and isinstance(idx, str) and base.ci is not None:
                for m in self.enum_members(base):
                    if m.name == idx:
                        return m
            if isinstance(base, (list, tuple, dict, str)) and not isinstance(idx, Unknown):
                return base[idx]
            return Unknown(mod.seg(node))
        if isinstance(node, ast.Lambda):
            return FuncVal("lambda", node, mod)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            return self.comprehension(node, mod, env)
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                else:
                    x = self.eval(v.value, mod, env)
                    if isinstance(x, Unknown):
                        return Unknown(mod.seg(node))
                    parts.append(str(x))
            return "".join(parts)
        if isinstance(node, ast.Call):
            return self.call(node, mod, env)
        if isinstance(node, ast.Starred):
            return self.eval(node.value, mod, env)
        return Unknown(mod.seg(node))

    def iterate(self, v):
        if isinstance(v, (list, tuple, set, str)):
            return list(v)
        if isinstance(v, dict):
            return list(v)
        if isinstance(v, ClassVal) and (v.ci is not None or v.qual == "signal.Signals"):
            if v.qual == "signal.Signals" or self.enum_class(v.qual):
                return self.enum_members(v)
        return None

    def comprehension(self, node, mod, env):
        out = []

        def gen(i, env):
            if i == len(node.generators):
                out.append(self.eval(node.elt, mod, env))
                return True
            g = node.generators[i]
            it = self.iterate(self.eval(g.iter, mod, env))
            if it is None:
                return False
            for x in it:
                e = dict(env)
                if not self.bind(g.target, x, e):
                    return False
                ok = True
                for c in g.ifs:
                    t = self.eval(c, mod, e)
                    if isinstance(t, Unknown):
                        return False
                    ok = ok and bool(t)
                if ok and not gen(i + 1, e):
                    return False
            return True
        if not gen(0, dict(env)):
            return Unknown(mod.seg(node))
        return out

    def bind(self, target, value, env):
        if isinstance(target, ast.Name):
            env[target.id] = value
            return True
        if isinstance(target, (ast.Tuple, ast.List)):
            if not isinstance(value, (list, tuple)) or len(value) != len(target.elts):
                for t in target.elts:
                    self.bind(t, Unknown(), env)
                return False
            for t, v in zip(target.elts, value):
                self.bind(t, v, env)
            return True
        return False

    def call(self, node, mod, env):
        ftxt = mod.seg(node.func)
        if ftxt in ("os.getenv", "os.environ.get", "getenv") and node.args and \
                isinstance(node.args[0], ast.Constant):
            return EnvVal(node.args[0].value)
        fn = self.eval(node.func, mod, env)
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                v = self.eval(a.value, mod, env)
                if isinstance(v, (list, tuple)):
                    args += list(v)
                else:
                    args.append(Unknown(mod.seg(a)))
            else:
                args.append(self.eval(a, mod, env))
        kw = {}
        for k in node.keywords:
            v = self.eval(k.value, mod, env)
            if k.arg is None:
                if isinstance(v, dict):
                    kw.update(v)
            else:
                kw[k.arg] = v
        # methods of the parser / its groups / a factory
        if isinstance(node.func, ast.Attribute):
            owner = self.eval(node.func.value, mod, env)
            m = node.func.attr
            if isinstance(owner, PObj):
                if m == "add_argument":
                    self.args.append((args, kw, mod.seg(node)))
                    return Unknown("action")
                if m in ("add_argument_group", "add_mutually_exclusive_group"):
                    return owner
                if m == "set_defaults":
                    self.set_defaults.update(kw)
                    return None
                return Unknown(m)
            if isinstance(owner, Factory) and m == "build_group":
                parser = args[0] if args else kw.get("parser")
                if isinstance(parser, PObj):
                    self.build_group(owner)
                return parser
            if isinstance(owner, list) and m in ("append", "extend", "remove"):
                if m == "append":
                    owner.append(args[0])
                elif m == "extend" and isinstance(args[0], (list, tuple)):
                    owner.extend(args[0])
                elif m == "remove" and args[0] in owner:
                    owner.remove(args[0])
                return None
            if isinstance(owner, dict) and m in ("get", "items", "keys", "values", "update"):
                if m == "get":
                    return owner.get(args[0], args[1] if len(args) > 1 else None)
                if m == "items":
                    return list(owner.items())
                if m == "keys":
                    return list(owner.keys())
                if m == "values":
                    return list(owner.values())
                if m == "update" and args and isinstance(args[0], dict):
                    owner.update(args[0])
                return None
            if isinstance(owner, str) and m in ("replace", "split", "strip", "lower", "upper",
                                                "join", "format", "startswith", "endswith"):
                if any(isinstance(x, Unknown) for x in args):
                    return Unknown(mod.seg(node))
                if m == "join":
                    return owner.join(str(x) for x in args[0])
                return getattr(owner, m)(*args, **kw)
        if isinstance(fn, ClassVal):
            if fn.ci is not None and ("megatron.training.argument_utils.ArgumentGroupFactory"
                                      in self.code.mro(fn.qual)):
                cls = args[0] if args else kw.get("src_cfg_class")
                exclude = kw.get("exclude", args[1] if len(args) > 1 else None)
                return Factory(cls, exclude if isinstance(exclude, (list, tuple, set)) else [])
            return Unknown(fn.qual)
        if isinstance(fn, type) and fn in (int, float, str) and args and isinstance(args[0], EnvVal):
            return args[0]
        if isinstance(fn, type) and fn in (list, tuple, set, dict, str, int, float, bool):
            if fn in (list, tuple, set) and args:
                it = self.iterate(args[0])
                return fn(it) if it is not None else Unknown(mod.seg(node))
            if any(isinstance(x, Unknown) for x in args):
                return Unknown(mod.seg(node))
            return fn(*args, **kw)
        if isinstance(fn, Special):
            if fn.name == "sorted" and args:
                it = self.iterate(args[0])
                return sorted(it) if it is not None else Unknown(mod.seg(node))
            if fn.name == "range" and args and all(isinstance(x, int) for x in args):
                return list(range(*args))
            if fn.name == "len" and args and isinstance(args[0], (list, tuple, dict, str)):
                return len(args[0])
            if fn.name == "partial":
                return FuncVal("partial", node, mod)
            return Unknown(mod.seg(node))
        if isinstance(fn, FuncVal) and fn.node is not None and isinstance(fn.node, ast.FunctionDef):
            if any(isinstance(x, PObj) for x in args) or any(isinstance(x, PObj) for x in kw.values()):
                return self.run_function(fn.mod, fn.node, args, kw)
            return Unknown(mod.seg(node))
        return Unknown(mod.seg(node))

    # -- statements

    def run_function(self, mod, fn, args, kw):
        env = {}
        params = fn.args.posonlyargs + fn.args.args
        defaults = fn.args.defaults
        for i, p in enumerate(params):
            if i < len(args):
                env[p.arg] = args[i]
            elif p.arg in kw:
                env[p.arg] = kw[p.arg]
            else:
                j = i - (len(params) - len(defaults))
                env[p.arg] = self.eval(defaults[j], mod, {}) if j >= 0 else Unknown(p.arg)
        for p, d in zip(fn.args.kwonlyargs, fn.args.kw_defaults):
            env[p.arg] = kw.get(p.arg, self.eval(d, mod, {}) if d is not None else Unknown(p.arg))
        if self.depth > 30:
            return Unknown(fn.name)
        self.depth += 1
        try:
            self.run_block(fn.body, mod, env)
        except _Return as r:
            return r.value
        finally:
            self.depth -= 1
        return None

    def run_block(self, body, mod, env):
        for st in body:
            self.run_stmt(st, mod, env)

    def run_stmt(self, st, mod, env):
        if isinstance(st, ast.Expr):
            self.eval(st.value, mod, env)
        elif isinstance(st, ast.Assign):
            v = self.eval(st.value, mod, env)
            for t in st.targets:
                self.bind(t, v, env)
        elif isinstance(st, ast.AnnAssign):
            if st.value is not None:
                self.bind(st.target, self.eval(st.value, mod, env), env)
        elif isinstance(st, ast.AugAssign):
            if isinstance(st.target, ast.Name):
                cur = env.get(st.target.id, Unknown())
                v = self.eval(st.value, mod, env)
                if isinstance(cur, list) and isinstance(v, (list, tuple)) and isinstance(st.op, ast.Add):
                    cur.extend(v)
                elif not isinstance(cur, Unknown) and not isinstance(v, Unknown):
                    try:
                        env[st.target.id] = {ast.Add: lambda a, b: a + b,
                                             ast.Sub: lambda a, b: a - b}[type(st.op)](cur, v)
                    except Exception:
                        env[st.target.id] = Unknown()
                else:
                    env[st.target.id] = Unknown()
        elif isinstance(st, ast.If):
            t = self.eval(st.test, mod, env)
            if isinstance(t, (Unknown, PObj, Factory, FuncVal, ClassVal, Special)):
                self.run_block(st.body, mod, env)
                self.run_block(st.orelse, mod, env)
            elif t:
                self.run_block(st.body, mod, env)
            else:
                self.run_block(st.orelse, mod, env)
        elif isinstance(st, (ast.For, ast.AsyncFor)):
            it = self.iterate(self.eval(st.iter, mod, env))
            if it is None:
                self.bind(st.target, Unknown(), env)
                self.run_block(st.body, mod, env)
            else:
                for x in it:
                    self.bind(st.target, x, env)
                    self.run_block(st.body, mod, env)
            self.run_block(st.orelse, mod, env)
        elif isinstance(st, ast.While):
            pass
        elif isinstance(st, (ast.With, ast.AsyncWith)):
            self.run_block(st.body, mod, env)
        elif isinstance(st, ast.Try):
            self.run_block(st.body, mod, env)
            self.run_block(st.orelse, mod, env)
            self.run_block(st.finalbody, mod, env)
        elif isinstance(st, ast.Return):
            raise _Return(self.eval(st.value, mod, env) if st.value is not None else None)
        elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
            env[st.name] = FuncVal(st.name, st, mod)
        elif isinstance(st, ast.ClassDef):
            env[st.name] = Unknown(st.name)
        elif isinstance(st, ast.Import):
            for a in st.names:
                nm = a.asname or a.name.split(".")[0]
                env[nm] = Special("module:" + (a.name if a.asname else nm))
        elif isinstance(st, ast.ImportFrom):
            src = mod._abs(st.level, st.module)
            for a in st.names:
                if re.match(r"^HAVE_[A-Z0-9_]+$", a.asname or a.name):
                    env[a.asname or a.name] = Unknown(a.name)
                    continue
                r = self.code.lookup(src, a.name)
                env[a.asname or a.name] = self.ref_value(r, a.name) if r else Unknown(a.name)

    # -- ArgumentGroupFactory

    def field_default(self, f, mod):
        if f.default == "required":
            return Unknown("required")
        node = f.node.value
        if isinstance(node, ast.Call) and mod.seg(node.func) in ("field", "dataclasses.field"):
            for k in node.keywords:
                if k.arg == "default":
                    return self.eval(k.value, mod, {})
                if k.arg == "default_factory":
                    fac = self.eval(k.value, mod, {})
                    if fac in (list, dict, set, tuple):
                        return fac()
                    if isinstance(fac, FuncVal) and isinstance(fac.node, ast.Lambda):
                        return self.eval(fac.node.body, fac.mod, {})
                    return Unknown(mod.seg(k.value))
            return Unknown("required")
        return self.eval(node, mod, {})

    def infer_type(self, ann, mod):
        """ArgumentGroupFactory._extract_type on an annotation AST; None when
        it would raise TypeInferenceError."""
        if isinstance(ann, ast.Constant) and isinstance(ann.value, str):
            try:
                ann = ast.parse(ann.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(ann, ast.BinOp) and isinstance(ann.op, ast.BitOr):
            members = union_members(ann)
            if len(members) == 2 and mod.seg(members[1]) == "None":
                return self.infer_type(members[0], mod)
            return None
        if isinstance(ann, ast.Subscript):
            base = mod.seg(ann.value)
            elts = ann.slice.elts if isinstance(ann.slice, ast.Tuple) else [ann.slice]
            if base in ("Optional", "typing.Optional"):
                return self.infer_type(elts[0], mod)
            if base in ("Union", "typing.Union"):
                if len(elts) == 2 and mod.seg(elts[1]) == "None":
                    return self.infer_type(elts[0], mod)
                return None
            if base in ("list", "List", "typing.List"):
                if len(elts) != 1:
                    return None
                k = self.infer_type(elts[0], mod)
                if k is None:
                    return None
                k = dict(k)
                k["nargs"] = "+"
                return k
            if base in ("Literal", "typing.Literal"):
                vals = [self.eval(e, mod, {}) for e in elts]
                return {"type": type(vals[0]), "choices": tuple(vals)}
            return None
        v = self.eval(ann, mod, {})
        if isinstance(v, ClassVal) and (v.qual == "signal.Signals" or
                                        (v.ci is not None and self.enum_class(v.qual))):
            return {"type": Special("enum"), "choices": self.enum_members(v)}
        if isinstance(v, type):
            return {"type": v}
        if isinstance(v, ClassVal):
            return {"type": FuncVal(v.name)}
        return {"type": Unknown(mod.seg(ann))}

    def build_group(self, fac):
        cls = fac.cls
        if not isinstance(cls, ClassVal) or cls.ci is None:
            return
        for f in self.code.fields(cls.qual).values():
            if f.name in fac.exclude or not f.init:
                continue
            fmod = self.code.cls(f.cls).module
            kw = {"dest": f.name}
            names = ["--" + f.name.replace("_", "-")]
            default = self.field_default(f, fmod)
            kw["default"] = default
            meta = None
            if f.metadata is not None:
                md = self.eval(f.metadata, fmod, {})
                if isinstance(md, dict) and isinstance(md.get("argparse_meta"), dict):
                    meta = md["argparse_meta"]
            t = self.infer_type(f.node.annotation, fmod)
            if t is not None:
                kw.update(t)
                if kw.get("type") is bool:
                    kw["action"] = "store_true" if default is False or default == 0 else "store_false"
                    del kw["type"]
                    if kw["action"] == "store_false":
                        names = ["--no-" + f.name.replace("_", "-"),
                                 "--disable-" + f.name.replace("_", "-")]
            if meta is not None:
                meta = dict(meta)
                if "arg_names" in meta:
                    names = list(meta.pop("arg_names"))
                kw.update(meta)
            self.args.append((names, kw, "%s.%s" % (cls.name, f.name)))

    # -- result

    def rows(self):
        out = []
        for names, kw, where in self.args:
            opts = [n for n in names if isinstance(n, str)]
            longs = [n for n in opts if n.startswith("--")]
            if not longs:
                continue
            dest = kw.get("dest")
            if not isinstance(dest, str):
                dest = longs[0][2:].replace("-", "_")
            action = kw.get("action")
            nargs = kw.get("nargs")
            typ = kw.get("type")
            default = kw.get("default", Unknown("unset"))
            if isinstance(action, Special) and action.name == "BooleanOptionalAction":
                kind = "boolean_optional"
                opts = []
                for n in longs:
                    opts += [n, "--no-" + n[2:]]
                longs = opts
            elif action in ("store_true", "store_false"):
                kind = action
                if isinstance(default, Unknown) and default.text == "unset":
                    default = action == "store_true" and False or action == "store_false"
            elif nargs not in (None, "?") or action in ("append", "extend"):
                kind = "list"
            elif typ is bool and action is None:
                kind = "legacy_type_bool"
            else:
                kind = "value"
            if isinstance(default, Unknown) and default.text == "unset":
                default = None
            if dest in self.set_defaults:
                default = self.set_defaults[dest]
            choices = kw.get("choices")
            if isinstance(choices, (list, tuple)) and choices and \
                    all(isinstance(x, EnumMember) for x in choices):
                typ = Special("enum")     # Enum[...] by name, whatever the callable
            for n in longs:
                out.append(OrderedDict(flag=n, dest=dest, kind=kind, type=type_name(typ),
                                       nargs="" if nargs is None else str(nargs),
                                       default=value_text(default),
                                       choices=choices_text(choices)))
        return out


def type_name(t):
    if t is None:
        return ""
    if isinstance(t, type):
        return t.__name__
    if isinstance(t, Special):
        return t.name
    if isinstance(t, FuncVal):
        return t.name
    if isinstance(t, ClassVal):
        return t.name
    if isinstance(t, Unknown):
        return t.text.rpartition(".")[2]
    return str(t)


def value_text(v):
    if v is None:
        return ""
    if isinstance(v, Unknown):
        return "?" + v.text
    if isinstance(v, EnumMember):
        return v.text
    if isinstance(v, EnvVal):
        return "env:" + v.name
    if v == "":
        return "''"
    if isinstance(v, (list, tuple)):
        try:
            return json.dumps(list(v))
        except TypeError:
            return str(v)
    if isinstance(v, float):
        return repr(v)
    return str(v)


def choices_text(c):
    if c is None:
        return ""
    if isinstance(c, Unknown):
        return "?" + c.text
    if not isinstance(c, (list, tuple, set)):
        return str(c)
    return ",".join(x.name if isinstance(x, EnumMember) else str(x) for x in c if x is not None)


FLAGS_HEAD = ["flag", "dest", "kind", "type", "nargs", "default", "choices"]


def extract_flags(code):
    mod = code.module("megatron.training.arguments")
    if mod is None:
        sys.exit("extract-facts: no megatron/training/arguments.py in the sources")
    it = FlagInterp(code)
    fn = mod.functions.get("add_megatron_arguments")
    if fn is not None:
        it.run_function(mod, fn, [PObj()], {})
    else:
        fn = mod.functions["parse_args"]
        # parse_args builds the parser itself: bind it and run until parse
        env = {"extra_args_provider": None, "ignore_unknown_args": False}
        for st in fn.body:
            if isinstance(st, ast.Assign) and isinstance(st.value, ast.Call) and \
                    mod.seg(st.value.func) == "argparse.ArgumentParser":
                for t in st.targets:
                    it.bind(t, PObj(), env)
                continue
            if "parse_args" in mod.seg(st) or "parse_known_args" in mod.seg(st):
                break
            it.run_stmt(st, mod, env)
    rows = it.rows()
    rows.sort(key=lambda r: r["flag"])
    return rows
