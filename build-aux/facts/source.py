# build-aux/facts/source.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron's sources are parsed, never imported).
"""Sources (a wheel, an sdist, a directory or GITDIR@REV) and the static
namespace of their modules (Code): what every extractor reads through."""

import ast
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from collections import OrderedDict


# --------------------------------------------------------------------------
# Sources: a wheel, an sdist, a directory, or GITDIR@REV
# --------------------------------------------------------------------------


class Source:
    """One release's files: names() and read(name), names relative to the
    directory that holds the top-level `megatron` package."""

    def __init__(self, spec):
        self.spec = spec
        self.commit = None
        self._files = {}
        self._read = None
        self._load(spec)
        self.prefix = self._find_prefix()
        self.mods = {}
        for n in self._files:
            if not n.startswith(self.prefix) or not n.endswith(".py"):
                continue
            rel = n[len(self.prefix):]
            if not rel.startswith("megatron/"):
                continue
            parts = rel[:-3].split("/")
            if not all(p.isidentifier() for p in parts):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            self.mods[".".join(parts)] = n
        if not self.mods:
            sys.exit("extract-facts: %s: no megatron package found" % spec)

    def _load(self, spec):
        if "@" in spec and not os.path.exists(spec):
            gitdir, rev = spec.rsplit("@", 1)
            self._load_git(gitdir, rev)
        elif os.path.isdir(spec):
            for root, dirs, files in os.walk(spec):
                dirs[:] = [d for d in dirs if d not in (".git", "__pycache__", "node_modules")]
                for f in files:
                    p = os.path.join(root, f)
                    self._files[os.path.relpath(p, spec).replace(os.sep, "/")] = p

            def rd(n):
                with open(self._files[n], encoding="utf-8") as fh:
                    return fh.read()
            self._read = rd
        elif zipfile.is_zipfile(spec):
            z = zipfile.ZipFile(spec)
            for n in z.namelist():
                if not n.endswith("/"):
                    self._files[n] = n
            self._read = lambda n: z.read(n).decode("utf-8")
        elif tarfile.is_tarfile(spec):
            t = tarfile.open(spec)
            members = {m.name: m for m in t.getmembers() if m.isfile()}
            self._files = {n: n for n in members}
            self._read = lambda n: t.extractfile(members[n]).read().decode("utf-8")
        else:
            sys.exit("extract-facts: %s: not a wheel, sdist, directory or GITDIR@REV" % spec)

    def _load_git(self, gitdir, rev):
        def git(*a, **kw):
            return subprocess.run(["git", "--git-dir", gd] + list(a), check=True,
                                  stdout=subprocess.PIPE, **kw).stdout
        gd = gitdir
        if os.path.isdir(os.path.join(gitdir, ".git")):
            gd = os.path.join(gitdir, ".git")
        try:
            self.commit = git("rev-parse", "--verify", rev + "^{commit}").decode().strip()
        except subprocess.CalledProcessError:
            sys.exit("extract-facts: %s: no commit %s" % (gitdir, rev))
        out = git("ls-tree", "-r", "-z", self.commit).decode("utf-8", "replace")
        for ent in out.split("\0"):
            if not ent:
                continue
            meta, name = ent.split("\t", 1)
            mode, kind, sha = meta.split()
            if kind == "blob" and name.endswith(".py"):
                self._files[name] = sha
        shas = sorted(set(self._files.values()))
        data = git("cat-file", "--batch", input=("\n".join(shas) + "\n").encode())
        blobs, i = {}, 0
        while i < len(data):
            nl = data.index(b"\n", i)
            head = data[i:nl].split()
            size = int(head[2])
            blobs[head[0].decode()] = data[nl + 1:nl + 1 + size]
            i = nl + 1 + size + 1
        self._read = lambda n: blobs[self._files[n]].decode("utf-8")

    def _find_prefix(self):
        cands = set()
        for n in self._files:
            m = re.match(r"^(.*?)megatron/(core|training|bridge)/__init__\.py$", n)
            if m and m.group(1).count("/") <= 2:
                cands.add(m.group(1))
        if not cands:
            for n in self._files:
                m = re.match(r"^(.*?)megatron/(core|training|bridge)/", n)
                if m and m.group(1).count("/") <= 2:
                    cands.add(m.group(1))
        if not cands:
            sys.exit("extract-facts: %s: no megatron/core, megatron/training or megatron/bridge"
                     % self.spec)
        return min(cands, key=len)

    def read(self, name):
        return self._read(name)

    def read_rel(self, rel):
        """A file by its path below the package root (e.g. megatron/core/x.py)."""
        n = self.prefix + rel
        return self._read(n) if n in self._files else None

    def describe(self):
        if self.commit:
            return "%s (%s)" % (self.spec, self.commit[:10])
        return self.spec


def norm(text):
    """Source text on one line: backslash line continuations go, runs of
    white space become one space."""
    return " ".join(re.sub(r"\\\r?\n", " ", text).split())


def repo_path(modname, path_is_init=False):
    """The module's path in its project's git repository, as the tables cite
    it (Bridge keeps its package under src/)."""
    p = modname.replace(".", "/") + ("/__init__.py" if path_is_init else ".py")
    if modname.startswith("megatron.bridge"):
        return "Megatron-Bridge:src/" + p
    return "Megatron-LM:" + p


# --------------------------------------------------------------------------
# Modules, names and classes, statically
# --------------------------------------------------------------------------


class Module:
    def __init__(self, name, text, is_pkg, fname):
        self.name = name
        self.text = text
        self.is_pkg = is_pkg
        self.fname = fname
        self.tree = ast.parse(text)
        # split as the tokenizer does (not str.splitlines: no \f, \v, ...)
        self.lines = re.findall(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$", text)
        self.classes = {}
        self.functions = {}
        self.bindings = {}     # name -> ("import", mod, name|None) | ("assign", node)
        self.star = []
        self._scan(self.tree.body, override=True)

    def package(self):
        return self.name if self.is_pkg else self.name.rpartition(".")[0]

    def _abs(self, level, mod):
        if not level:
            return mod
        base = self.package().split(".")
        if level > 1:
            base = base[:len(base) - (level - 1)]
        return ".".join(base + ([mod] if mod else []))

    def _bind(self, name, what, override):
        if override or name not in self.bindings:
            self.bindings[name] = what

    def _scan(self, body, override):
        for st in body:
            if isinstance(st, ast.ClassDef):
                if override or st.name not in self.classes:
                    self.classes[st.name] = st
                self._bind(st.name, ("class", st), override)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if override or st.name not in self.functions:
                    self.functions[st.name] = st
                self._bind(st.name, ("func", st), override)
            elif isinstance(st, ast.Import):
                for a in st.names:
                    if a.asname:
                        self._bind(a.asname, ("import", a.name, None), override)
                    else:
                        top = a.name.split(".")[0]
                        self._bind(top, ("import", top, None), override)
            elif isinstance(st, ast.ImportFrom):
                mod = self._abs(st.level, st.module)
                for a in st.names:
                    if a.name == "*":
                        self.star.append(mod)
                    else:
                        self._bind(a.asname or a.name, ("import", mod, a.name), override)
            elif isinstance(st, (ast.Assign, ast.AnnAssign)):
                targets = st.targets if isinstance(st, ast.Assign) else [st.target]
                for t in targets:
                    if isinstance(t, ast.Name) and st.value is not None:
                        self._bind(t.id, ("assign", st.value), override)
            elif isinstance(st, ast.Try):
                self._scan(st.body, override)
                self._scan(st.orelse, override)
                for h in st.handlers:
                    self._scan(h.body, False)
                self._scan(st.finalbody, override)
            elif isinstance(st, ast.If):
                self._scan(st.body, override)
                self._scan(st.orelse, False)

    def raw(self, node):
        """The exact source text of a node (ast.get_source_segment, fast)."""
        if getattr(node, "end_lineno", None) is None:
            return None
        if not hasattr(self, "_enc"):
            self._enc = [l.encode("utf-8") for l in self.lines]
        a, b = node.lineno - 1, node.end_lineno - 1
        if a == b:
            return self._enc[a][node.col_offset:node.end_col_offset].decode("utf-8")
        parts = [self._enc[a][node.col_offset:]] + self._enc[a + 1:b] + \
            [self._enc[b][:node.end_col_offset]]
        return b"".join(parts).decode("utf-8")

    def seg(self, node):
        s = self.raw(node)
        return norm(s) if s is not None else ast.unparse(node)


class Ref:
    """What a name resolves to: kind is class / func / module / value /
    external; qual is the dotted name where it is defined."""

    def __init__(self, kind, qual, node=None, module=None):
        self.kind, self.qual, self.node, self.module = kind, qual, node, module

    def __repr__(self):
        return "Ref(%s, %s)" % (self.kind, self.qual)


class Field:
    def __init__(self, name, cls, ann, default, init=True, metadata=None, node=None,
                 kw_only=False, lineno=0):
        self.name, self.cls, self.ann, self.default = name, cls, ann, default
        self.init, self.metadata, self.node = init, metadata, node
        self.kw_only = kw_only
        self.lineno = lineno


class ClassInfo:
    def __init__(self, qual, module, node):
        self.qual, self.module, self.node = qual, module, node
        self.name = node.name
        self.bases = []           # qualified names (or external dotted text)
        self.is_dataclass = False
        self.own_fields = []
        self.properties = OrderedDict()   # name -> (getter node, has setter)
        self.methods = {}


class Code:
    """A namespace of modules from one or more Sources (later ones do not
    shadow earlier ones: pass the most specific first)."""

    def __init__(self, sources):
        self.sources = sources
        self._mods = {}
        self._classes = {}

    def has_module(self, name):
        return any(name in s.mods for s in self.sources)

    def module(self, name):
        if name in self._mods:
            return self._mods[name]
        m = None
        for s in self.sources:
            if name in s.mods:
                fname = s.mods[name]
                m = Module(name, s.read(fname), fname.endswith("__init__.py"), fname)
                m.source = s
                break
        self._mods[name] = m
        return m

    def modules_under(self, prefix):
        out = set()
        for s in self.sources:
            for n in s.mods:
                if n == prefix or n.startswith(prefix + "."):
                    out.add(n)
        return sorted(out)

    # -- names

    def lookup(self, modname, name, _seen=None):
        _seen = _seen or set()
        if (modname, name) in _seen:
            return None
        _seen.add((modname, name))
        mod = self.module(modname)
        if mod is None:
            if self.has_module(modname + "." + name):
                return Ref("module", modname + "." + name)
            return Ref("external", modname + "." + name)
        b = mod.bindings.get(name)
        if b is None:
            for sm in mod.star:
                r = self.lookup(sm, name, _seen)
                if r is not None and r.kind != "external":
                    return r
            if self.has_module(modname + "." + name):
                return Ref("module", modname + "." + name)
            return None
        if b[0] == "class":
            return Ref("class", modname + "." + name, b[1], mod)
        if b[0] == "func":
            return Ref("func", modname + "." + name, b[1], mod)
        if b[0] == "assign":
            return Ref("value", modname + "." + name, b[1], mod)
        _, tmod, tname = b
        if tname is None:
            if self.has_module(tmod) or self.module(tmod):
                return Ref("module", tmod)
            return Ref("external", tmod)
        if self.has_module(tmod + "." + tname):
            return Ref("module", tmod + "." + tname)
        r = self.lookup(tmod, tname, _seen)
        if r is None:
            return Ref("external", tmod + "." + tname)
        return r

    def resolve_expr(self, mod, node):
        """Resolve a Name / Attribute chain in module `mod` to a Ref."""
        if isinstance(node, ast.Name):
            if node.id in mod.bindings or mod.star:
                r = self.lookup(mod.name, node.id)
                if r is not None:
                    return r
            return Ref("external", node.id)
        if isinstance(node, ast.Attribute):
            base = self.resolve_expr(mod, node.value)
            if base is None:
                return None
            if base.kind == "module":
                r = self.lookup(base.qual, node.attr)
                return r or Ref("external", base.qual + "." + node.attr)
            if base.kind == "external":
                return Ref("external", base.qual + "." + node.attr)
            return Ref("attr", base.qual + "." + node.attr, node, mod)
        if isinstance(node, ast.Subscript):
            return self.resolve_expr(mod, node.value)
        if isinstance(node, ast.Call):
            return self.resolve_expr(mod, node.func)
        return None

    # -- classes

    def cls(self, qual):
        if qual in self._classes:
            return self._classes[qual]
        modname, _, name = qual.rpartition(".")
        mod = self.module(modname)
        ci = None
        if mod is not None and name in mod.classes:
            ci = self._build_class(qual, mod, mod.classes[name])
        self._classes[qual] = ci
        return ci

    def class_ref(self, modname, name):
        r = self.lookup(modname, name)
        if r is not None and r.kind == "class":
            return r.qual
        return None

    def _build_class(self, qual, mod, node):
        ci = ClassInfo(qual, mod, node)
        self._classes[qual] = ci
        for b in node.bases:
            r = self.resolve_expr(mod, b)
            if r is not None and r.kind == "class":
                ci.bases.append(r.qual)
            else:
                ci.bases.append("?" + mod.seg(b))
        dc_kw_only = False
        for d in node.decorator_list:
            fn = d.func if isinstance(d, ast.Call) else d
            r = self.resolve_expr(mod, fn)
            txt = mod.seg(fn)
            if (r is not None and r.qual in ("dataclasses.dataclass",)) or txt in (
                    "dataclass", "dataclasses.dataclass"):
                ci.is_dataclass = True
                if isinstance(d, ast.Call):
                    for k in d.keywords:
                        if k.arg == "kw_only" and isinstance(k.value, ast.Constant):
                            dc_kw_only = bool(k.value.value)
        kw_only = dc_kw_only
        for st in node.body:
            if isinstance(st, ast.AnnAssign) and isinstance(st.target, ast.Name):
                ann = mod.seg(st.annotation)
                if re.match(r"^(typing\.)?ClassVar\b", ann):
                    continue
                if re.match(r"^(dataclasses\.)?KW_ONLY$", ann):
                    kw_only = True
                    continue
                if re.match(r"^(dataclasses\.)?InitVar\b", ann):
                    continue
                f = Field(st.target.id, qual, ann, "required", node=st, kw_only=kw_only,
                          lineno=st.lineno)
                v = st.value
                if v is not None:
                    if isinstance(v, ast.Call) and mod.seg(v.func) in ("field", "dataclasses.field"):
                        f.default = "required"
                        for k in v.keywords:
                            if k.arg == "default":
                                f.default = mod.seg(k.value)
                            elif k.arg == "default_factory":
                                f.default = "factory:" + mod.seg(k.value)
                            elif k.arg == "init":
                                f.init = not (isinstance(k.value, ast.Constant) and k.value.value is False)
                            elif k.arg == "metadata":
                                f.metadata = k.value
                            elif k.arg == "kw_only" and isinstance(k.value, ast.Constant):
                                f.kw_only = bool(k.value.value)
                    else:
                        f.default = mod.seg(v)
                ci.own_fields.append(f)
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef)):
                ci.methods[st.name] = st
                for d in st.decorator_list:
                    t = mod.seg(d)
                    if t == "property":
                        ci.properties[st.name] = [st, False]
                    elif t.endswith(".setter") and t[:-7] in ci.properties:
                        ci.properties[t[:-7]][1] = True
        return ci

    def mro(self, qual):
        """C3 linearisation; unresolved bases are kept as opaque '?text'."""
        memo = {}

        def lin(q, stack=()):
            if q in memo:
                return memo[q]
            if q in stack:
                return [q]
            ci = self.cls(q) if not q.startswith("?") else None
            if ci is None:
                memo[q] = [q]
                return memo[q]
            seqs = [lin(b, stack + (q,)) for b in ci.bases] + [list(ci.bases)]
            seqs = [list(s) for s in seqs if s]
            out = [q]
            while True:
                seqs = [s for s in seqs if s]
                if not seqs:
                    break
                for s in seqs:
                    head = s[0]
                    if not any(head in t[1:] for t in seqs):
                        break
                else:
                    head = seqs[0][0]   # inconsistent: take the first
                out.append(head)
                for s in seqs:
                    if s and s[0] == head:
                        del s[0]
            memo[q] = out
            return out
        return lin(qual)

    def dataclass_mro(self, qual):
        return [q for q in self.mro(qual) if not q.startswith("?") and self.cls(q)
                and self.cls(q).is_dataclass]

    def fields(self, qual):
        """Dataclass fields in dataclasses.fields() order; each Field's cls
        is the most derived class that declares it."""
        out = OrderedDict()
        for q in reversed(self.mro(qual)):
            ci = None if q.startswith("?") else self.cls(q)
            if ci is None or not ci.is_dataclass:
                continue
            for f in ci.own_fields:
                out[f.name] = f
        return out

    def declarations(self, qual, name):
        """Every declaration of field `name` along the MRO, most derived first."""
        out = []
        for q in self.mro(qual):
            ci = None if q.startswith("?") else self.cls(q)
            if ci is None or not ci.is_dataclass:
                continue
            for f in ci.own_fields:
                if f.name == name:
                    out.append(f)
        return out


def union_members(node):
    """Optional[X] / Union[A, B] / A | B -> [nodes]."""
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return union_members(node.left) + union_members(node.right)
    if isinstance(node, ast.Subscript):
        base = ast.unparse(node.value)
        if base in ("Optional", "typing.Optional"):
            return union_members(node.slice) + [ast.Constant(None)]
        if base in ("Union", "typing.Union"):
            elts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            out = []
            for e in elts:
                out += union_members(e)
            return out
    return [node]


def sources(specs):
    return [Source(s) for s in specs if s]


def source_info(spec, src):
    """Provenance of a SRC: what it is, its version and digest or commit."""
    import hashlib
    kind = "git" if src.commit else ("dir" if os.path.isdir(spec) else "file")
    version = ""
    for rel in ("megatron/bridge/package_info.py", "megatron/core/package_info.py"):
        t = src.read_rel(rel)
        if t:
            m = {k: v for k, v in re.findall(r"^(MAJOR|MINOR|PATCH|PRE_RELEASE)\s*=\s*['\"]?([^'\"\n]*)",
                                              t, re.M)}
            if "MAJOR" in m:
                version = "%s.%s.%s%s" % (m.get("MAJOR"), m.get("MINOR"), m.get("PATCH"),
                                          m.get("PRE_RELEASE", ""))
            break
    digest = ""
    if kind == "file":
        h = hashlib.sha256()
        with open(spec, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
        digest = "sha256:" + h.hexdigest()
    return OrderedDict(source=os.path.basename(spec.rstrip("/")) if kind != "git" else spec,
                       kind=kind, version=version,
                       digest=digest or (("commit:" + src.commit) if src.commit else ""))
