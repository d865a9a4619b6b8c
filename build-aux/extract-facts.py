#!/usr/bin/env python3
# extract-facts.py -- regenerate mcinit's data/*.tsv from a Megatron-LM /
# Megatron-Bridge release's source.  A maintainer tool: the build never runs
# it, and it needs nothing but the Python standard library (>= 3.9).
#
# Everything is read statically (ast): no Megatron, Bridge or torch module is
# ever imported, so a wheel for another Python version or platform is fine.
"""Regenerate mcinit's data tables from Megatron-LM / Megatron-Bridge sources.

A SRC is any of
  - a wheel or sdist file as the package registry serves it
      (pip download --no-deps --python-version 3.12 megatron-core==0.19.2)
  - an unpacked wheel/sdist or a git checkout (a directory)
  - GITDIR@REV: a commit of a git repository, bare or not, read with
      `git cat-file` (no checkout needed), e.g. ~/src/Megatron-LM@core_r0.19

The megatron-core wheel and sdist hold megatron/training as well as
megatron/core, so one --core SRC serves for --training too.

Subcommands (the first five write TSV on stdout, or to -o FILE):
  bridge-fields     data/bridge-config-fields.tsv
  bridge-variants   data/bridge-variant-fields.tsv
  checks            data/megatron-checks.tsv
  bridge-checks     the same columns for Megatron-Bridge's config validation
  flags             one release's rows of data/megatron-flags.tsv
  merge             fold one release's flag rows into the multi-release table
  release           all of the above for one megatron-core + Bridge release,
                    into a directory, compared with the current tables
  compare           what changed between two versions of a table, row by row
  rekey             move the file:line ids of the port and ledger tables to a
                    new checks table

Adding a release (see HACKING):
  pip download --no-deps --python-version 3.12 -d /tmp/rel \
      megatron-core==X megatron-bridge==Y
  build-aux/extract-facts.py release --core /tmp/rel/megatron_core-X-*.whl \
      --bridge /tmp/rel/megatron_bridge-Y-*.whl --name r0.NN \
      --into data/releases/bridge-Y+core-X
"""

import argparse
import ast
import json
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


# --------------------------------------------------------------------------
# TSV
# --------------------------------------------------------------------------


def read_tsv(path):
    rows = []
    with open(path, encoding="utf-8") as fh:
        head = None
        for line in fh:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            cells = line.split("\t")
            if head is None:
                head = cells
                continue
            cells += [""] * (len(head) - len(cells))
            rows.append(dict(zip(head, cells)))
    return head, rows


def cell(v):
    v = "" if v is None else str(v)
    return v.replace("\t", " ").replace("\n", " ")


def write_tsv(out, head, rows, comments=()):
    for c in comments:
        out.write("# %s\n" % c)
    out.write("\t".join(head) + "\n")
    for r in rows:
        out.write("\t".join(cell(r.get(h, "")) for h in head) + "\n")


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


NOTE_KINDS = ("raises ", "via ", "in loop: ", "inside try/except ", "reads locals: ",
              "depends on: ", "gate: ", "called from ")


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


def cmd_bridge_loader(a):
    code = Code(sources([a.bridge, a.core]))
    _, bf = read_tsv(a.fields)
    _, vf = read_tsv(a.variants)
    with open_out(a) as out:
        write_tsv(out, LOADER_HEAD, bridge_loader(code, loader_classes(bf, vf)))


def cmd_bridge_mixed_precision(a):
    rows = bridge_mixed_precision(Code(sources([a.bridge])))
    with open_out(a) as out:
        write_tsv(out, MIXED_PRECISION_HEAD, rows)


def note_groups(note):
    """A checks note as [(kind, text)]: kind is one of NOTE_KINDS for what
    this script writes, None for what a person added."""
    groups = []
    for seg in note.split("; ") if note else []:
        k = next((k for k in NOTE_KINDS if seg.startswith(k)), None)
        if k is None and groups and groups[-1][0] == "depends on: ":
            groups[-1] = (groups[-1][0], groups[-1][1] + "; " + seg)   # another dependency
        else:
            groups.append((k, seg))
    return groups


def merge_note(new, old):
    """`new`'s computed parts in `old`'s arrangement, keeping what a person
    added to `old` (extra notes, extra dependencies)."""
    ng, og = note_groups(new), note_groups(old)
    mine = OrderedDict()
    for k, t in ng:
        mine.setdefault(k, []).append(t)
    out, used = [], set()
    for k, t in og:
        if k is None:
            out.append(t)
        elif k == "depends on: ":
            have = mine.get(k, [""])[0][len(k):].split("; ") if k in mine else []
            old_items = t[len(k):].split("; ")
            known = set(w for _, w in DEPENDS)
            items = [i for i in old_items if i in have or i not in known] + \
                [i for i in have if i and i not in old_items]
            if items:
                out.append(k + "; ".join(items))
            used.add(k)
        elif k in mine and k not in used:
            news = mine[k]
            if len(news) == 1 and t.startswith(news[0] + " "):
                news = [t]      # a computed note a person extended ("... under: ...")
            out += news
            used.add(k)
    for k, ts in mine.items():
        if k not in used:
            pos = len(out)
            if k != "called from ":
                for i, t in enumerate(out):
                    if t.startswith("called from "):
                        pos = i
                        break
            out[pos:pos] = ts
    return "; ".join(out)


def carry_previous(rows, previous):
    """Take `offline` from an earlier table for the checks it already had
    (same function, kind, guard, condition and message), and the parts of
    its note that a person wrote; the computed parts stay this release's."""
    _, prev = read_tsv(previous)
    key = lambda r: (r["function"], r["kind"], r["guard"], r["condition"], r["message"])
    idx = {}
    for r in prev:
        idx.setdefault(key(r), []).append(r)
    n = 0
    for r in rows:
        c = idx.get(key(r))
        if c:
            p = c.pop(0)
            if r["offline"] != "target":    # a verdict of this script's, not a person's
                r["offline"] = p["offline"]
            r["note"] = merge_note(r["note"], p["note"])
            n += 1
    return n


# --------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------


def open_out(a):
    if getattr(a, "output", None) and a.output != "-":
        return open(a.output, "w", encoding="utf-8")
    return sys.stdout


def sources(specs):
    return [Source(s) for s in specs if s]


def cmd_bridge_fields(a):
    bridge, core = Source(a.bridge), Source(a.core)
    code = Code([bridge, core])
    flags = FlagIndex.from_args(a, Code([Source(a.training)]) if a.training else Code([core]))
    pinned = Code([bridge, Source(a.pinned_core)]) if a.pinned_core else None
    pname = a.pinned_name or (pinned.sources[1].commit or "")[:8] if pinned else None
    rows = bridge_fields(code, flags or FlagIndex([]), pinned, pname, a.core_name)
    if flags is None:
        keep_flags(rows, a.previous)
    with open_out(a) as out:
        write_tsv(out, BRIDGE_FIELDS_HEAD, rows)


def cmd_flags(a):
    code = Code(sources([a.training]))
    rows = extract_flags(code)
    for r in rows:
        r["refs"] = a.name
    with open_out(a) as out:
        write_tsv(out, FLAGS_HEAD + ["refs"], rows)


def merge_rows(head, table, new, name, order):
    """Fold `new` (one release's rows) into `table` (rows with a refs
    column): a row identical but for refs gains `name`; the release's
    old refs are dropped first, so re-running replaces it."""
    key = [h for h in head if h != "refs"]
    out, index = [], {}
    for r in table:
        refs = [x for x in r["refs"].split(",") if x and x != name]
        if not refs:
            continue
        r = dict(r, refs=",".join(refs))
        index[tuple(r[k] for k in key)] = r
        out.append(r)
    for r in new:
        k = tuple(r.get(c, "") for c in key)
        if k in index:
            index[k]["refs"] += "," + name
        else:
            nr = {c: r.get(c, "") for c in key}
            nr["refs"] = name
            index[k] = nr
            out.append(nr)
    names = list(order)
    for r in out:
        for x in r["refs"].split(","):
            if x not in names:
                names.append(x)
    pos = {n: i for i, n in enumerate(names)}
    for r in out:
        r["refs"] = ",".join(sorted(r["refs"].split(","), key=pos.get))
    sortkey = [c for c in ("entry", "flag") if c in head] or key[:1]
    out.sort(key=lambda r: tuple(r[c].encode() for c in sortkey) +
             (pos[r["refs"].split(",")[0]],))
    return out


def cmd_merge(a):
    head, table = read_tsv(a.table) if os.path.exists(a.table) else (None, [])
    nhead, new = read_tsv(a.rows)
    head = head or nhead
    name = a.name
    if name is None:
        names = {x for r in new for x in r.get("refs", "").split(",") if x}
        if len(names) != 1:
            sys.exit("extract-facts: merge: %s: say which release (--name)" % a.rows)
        name = names.pop()
    order = []
    if a.versions and os.path.exists(a.versions):
        order = [r["name"] for r in read_tsv(a.versions)[1]]
    rows = merge_rows(head, table, new, name, order)
    a.output = a.output or a.table
    with open_out(a) as out:
        write_tsv(out, head, rows)


def cmd_checks(a):
    srcs = sources([a.core, a.training])
    code = Code(srcs)
    roots = MCORE_CHECK_ROOTS
    if not a.training and not code.has_module("megatron.training.arguments"):
        roots = [r for r in roots if not r[0].startswith("megatron.training")]
    rows = extract_checks(code, roots, early_returns=a.early_returns)
    if a.previous:
        n = carry_previous(rows, a.previous)
        sys.stderr.write("extract-facts: checks: offline and note of %d of %d rows taken from %s\n"
                         % (n, len(rows), a.previous))
    with open_out(a) as out:
        write_tsv(out, CHECKS_HEAD, rows)


def cmd_bridge_checks(a):
    code = Code(sources([a.bridge, a.core]))
    rows = extract_bridge_checks(code, early_returns=not a.no_early_returns)
    if a.previous:
        n = carry_previous(rows, a.previous)
        sys.stderr.write("extract-facts: bridge-checks: offline and note of %d of %d rows taken "
                         "from %s\n" % (n, len(rows), a.previous))
    with open_out(a) as out:
        write_tsv(out, CHECKS_HEAD, rows)


def cmd_bridge_variants(a):
    bridge, core = Source(a.bridge), Source(a.core)
    code = Code([bridge, core])
    if a.fields:
        _, frows = read_tsv(a.fields)
    else:
        flags = FlagIndex.from_args(a, Code([Source(a.training)]) if a.training else Code([core]))
        frows = bridge_fields(code, flags or FlagIndex([]))
    rows = bridge_variants(code, frows, a.previous)
    with open_out(a) as out:
        write_tsv(out, VARIANT_HEAD, rows)


def table_kind(head):
    if head[:2] == ["section", "field"]:
        return "fields", ["section", "field"]
    if head[:3] == ["section", "class", "base"]:
        return "variants", ["section", "class", "field"]
    if head[:2] == ["id", "function"]:
        return "checks", ["function", "kind", "guard", "condition", "message"]
    if "flag" in head and "dest" in head:
        return "flags", [h for h in ("entry", "flag", "dest") if h in head]
    return "rows", head[:1]


def compare_tables(old_path, new_path, out, limit=0, ref=None):
    """Row by row: what the new table adds, drops and changes."""
    h1, a = read_tsv(old_path)
    h2, b = read_tsv(new_path)
    kind, key = table_kind(h1)
    if table_kind(h2)[0] != kind:
        sys.exit("extract-facts: compare: %s and %s are different tables" % (old_path, new_path))
    if kind == "flags" and "refs" in h1 and "refs" in h2:
        # one release against a multi-release table: that release's rows
        refs_a = {x for r in a for x in r["refs"].split(",")}
        refs_b = {x for r in b for x in r["refs"].split(",")}
        ref = ref or (refs_b.pop() if len(refs_b) == 1 and len(refs_a) > 1 else None)
        if ref:
            a = [r for r in a if ref in r["refs"].split(",")]
            b = [r for r in b if ref in r["refs"].split(",")]
            h1 = [h for h in h1 if h != "refs"]
            out.write("(rows of %s only)\n" % ref)

    def index(rows):
        idx = OrderedDict()
        for r in rows:
            idx.setdefault(tuple(r.get(k, "") for k in key), []).append(r)
        return idx
    ia, ib = index(a), index(b)
    cols = [h for h in h1 if h in h2 and h not in key]
    added = [k for k in ib if k not in ia]
    removed = [k for k in ia if k not in ib]
    changed, moved = [], 0
    lines_only = 0
    unline = lambda t: re.sub(r"(:|line )\d+", r"\1N", t)
    for k in ia:
        if k not in ib:
            continue
        for ra, rb in zip(ia[k], ib[k]):
            diff = [c for c in cols if ra.get(c, "") != rb.get(c, "")]
            if kind == "checks" and "id" in diff:
                diff.remove("id")
                if not diff:
                    moved += 1
                    continue
            if "note" in diff and unline(ra["note"]) == unline(rb["note"]):
                diff.remove("note")     # only source line numbers moved
                if not diff:
                    lines_only += 1
                    continue
            if diff:
                changed.append((k, ra, rb, diff))
    from collections import Counter
    cc = Counter(c for _, _, _, d in changed for c in d)
    out.write("%s: %d rows -> %d rows; key %s\n" % (kind, len(a), len(b), ",".join(key)))
    out.write("  added %d, removed %d, changed %d%s\n" % (
        len(added), len(removed), len(changed),
        (" (" + ", ".join("%s %d" % x for x in sorted(cc.items())) + ")") if cc else ""))
    if kind == "checks":
        out.write("  same check at another line: %d\n" % moved)
    if lines_only:
        out.write("  rows whose note differs only in source line numbers: %d\n" % lines_only)

    def show(tag, items):
        for n, line in enumerate(items):
            if limit and n >= limit:
                out.write("  ... %d more\n" % (len(items) - limit))
                break
            out.write(line + "\n")
    show("+", ["+ " + " | ".join(k) for k in added])
    show("-", ["- " + " | ".join(k) for k in removed])
    lines = []
    for k, ra, rb, diff in changed:
        for c in diff:
            lines.append("~ %s: %s: %s -> %s" % (" | ".join(k), c, ra.get(c, "") or "(empty)",
                                                 rb.get(c, "") or "(empty)"))
    show("~", lines)
    return len(added) + len(removed) + len(changed)


def cmd_rekey(a):
    """Rewrite the file:line ids of tables keyed by megatron-checks.tsv's id
    (megatron-checks-port.tsv, -ledger.tsv) for a new checks table."""
    _, old = read_tsv(a.old)
    _, new = read_tsv(a.new)
    key = lambda r: (r["function"], r["kind"], r["guard"], r["condition"], r["message"])
    by_key = {}
    for r in new:
        by_key.setdefault(key(r), []).append(r["id"])
    mapping, lost = {}, []
    for r in old:
        ids = by_key.get(key(r))
        if ids:
            mapping[r["id"]] = ids.pop(0)
        else:
            lost.append(r["id"])
    for path in a.files:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        out, gone, header = [], 0, True
        for line in lines:
            if not line or line.startswith("#"):
                out.append(line)
                continue
            if header:
                header = False
                out.append(line)
                continue
            cells = line.split("\t")
            if cells[0] in mapping:
                cells[0] = mapping[cells[0]]
            elif cells[0] in lost:
                gone += 1
                if a.drop:
                    continue
            out.append("\t".join(cells))
        with open(path, "w", encoding="utf-8") as fh:
            fh.write("\n".join(out))
        sys.stderr.write("extract-facts: rekey: %s: %d rows name a check the new table lacks%s\n"
                         % (path, gone, " (dropped)" if a.drop else ""))
    moved = sum(1 for k, v in mapping.items() if k != v)
    sys.stderr.write("extract-facts: rekey: %d checks kept (%d at another line), %d gone, "
                     "%d new\n" % (len(mapping), moved, len(lost), len(new) - len(mapping)))


def cmd_compare(a):
    n = compare_tables(a.old, a.new, sys.stdout, a.limit, a.ref)
    sys.exit(1 if (n and a.exit_code) else 0)


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


def cmd_release(a):
    os.makedirs(a.into, exist_ok=True)
    bsrc, csrc = Source(a.bridge), Source(a.core)
    srcs = [bsrc, csrc] + ([Source(a.training)] if a.training else [])
    code = Code(srcs)
    tcode = Code(srcs[2:] or [csrc])
    prev = lambda name: (os.path.join(a.previous_dir, name)
                         if a.previous_dir and os.path.exists(os.path.join(a.previous_dir, name))
                         else None)
    say = lambda m: sys.stderr.write("extract-facts: release: " + m + "\n")
    written = []

    def write(name, head, rows):
        p = os.path.join(a.into, name)
        with open(p, "w", encoding="utf-8") as out:
            write_tsv(out, head, rows)
        written.append(name)
        say("%s: %d rows" % (p, len(rows)))

    frows = extract_flags(tcode)
    for r in frows:
        r["refs"] = a.name
    # the project's data/ (it has megatron-versions.tsv): its megatron-flags.tsv holds
    # every release, so the release is merged into it rather than written over it
    into_data = os.path.exists(os.path.join(a.into, "megatron-versions.tsv"))
    if into_data:
        a.merge_flags = a.merge_flags or os.path.join(a.into, "megatron-flags.tsv")
        a.versions = os.path.join(a.into, "megatron-versions.tsv")
    else:
        write("megatron-flags.tsv", FLAGS_HEAD + ["refs"], frows)
    flags = FlagIndex(frows)
    pinned = Code([bsrc, Source(a.pinned_core)]) if a.pinned_core else None
    bf = bridge_fields(code, flags, pinned, a.pinned_name or (pinned.sources[1].commit or "")[:8]
                       if pinned else None, a.name)
    write("bridge-config-fields.tsv", BRIDGE_FIELDS_HEAD, bf)
    vrows = bridge_variants(code, bf, prev("bridge-variant-fields.tsv"))
    write("bridge-variant-fields.tsv", VARIANT_HEAD, vrows)
    ck = extract_checks(code, MCORE_CHECK_ROOTS)
    if prev("megatron-checks.tsv"):
        carry_previous(ck, prev("megatron-checks.tsv"))
    write("megatron-checks.tsv", CHECKS_HEAD, ck)
    bck = extract_bridge_checks(code)
    if prev("bridge-checks.tsv"):
        carry_previous(bck, prev("bridge-checks.tsv"))
    write("bridge-checks.tsv", CHECKS_HEAD, bck)
    write("bridge-mixed-precision.tsv", MIXED_PRECISION_HEAD, bridge_mixed_precision(code))
    write("bridge-loader.tsv", LOADER_HEAD, bridge_loader(code, loader_classes(bf, vrows)))
    info = [dict(source_info(a.bridge, bsrc), role="bridge"),
            dict(source_info(a.core, csrc), role="core")]
    if a.training:
        info.append(dict(source_info(a.training, srcs[2]), role="training"))
    if not into_data:
        write("SOURCES.tsv", ["role", "source", "kind", "version", "digest"], info)
    if a.merge_flags:
        head, table = read_tsv(a.merge_flags)
        order = [r["name"] for r in read_tsv(a.versions)[1]] if os.path.exists(a.versions) else []
        rows = merge_rows(head, table, frows, a.name, order)
        with open(a.merge_flags, "w", encoding="utf-8") as out:
            write_tsv(out, head, rows)
        say("%s: %s merged (%d rows)" % (a.merge_flags, a.name, len(rows)))
    if a.previous_dir and not a.quiet:
        for name in written:
            p = prev(name)
            if p and name.endswith(".tsv") and name != "SOURCES.tsv":
                sys.stdout.write("== %s -> %s\n" % (p, os.path.join(a.into, name)))
                compare_tables(p, os.path.join(a.into, name), sys.stdout, a.limit)


def main(argv=None):
    p = argparse.ArgumentParser(prog="extract-facts.py", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.required = True

    def common(sp):
        sp.add_argument("-o", "--output", metavar="FILE", help="write here, not to stdout")

    def flagsrc(sp):
        sp.add_argument("--flags", metavar="TSV",
                        help="take Megatron-LM's flags (dest -> flags) from this table "
                             "(data/megatron-flags.tsv) instead of the parser in --core")
        sp.add_argument("--flags-ref", metavar="NAME",
                        help="with --flags: only the rows of this release (refs column)")
        sp.add_argument("--training", metavar="SRC",
                        help="Megatron-LM's training code, when --core lacks megatron/training")

    sp = sub.add_parser("bridge-fields", help="data/bridge-config-fields.tsv",
                        description="ConfigContainer's fields and each section class's fields, "
                        "inheritance resolved into megatron-core / megatron.training.")
    sp.add_argument("--bridge", metavar="SRC", required=True, help="Megatron-Bridge")
    sp.add_argument("--core", metavar="SRC", required=True, help="megatron-core (Megatron-LM)")
    sp.add_argument("--pinned-core", metavar="SRC",
                    help="Bridge's pinned Megatron-LM (3rdparty/Megatron-LM): note where "
                         "its fields differ from --core's")
    sp.add_argument("--pinned-name", metavar="NAME", help="how notes name the pinned commit")
    sp.add_argument("--core-name", metavar="NAME", default="main",
                    help="how notes name --core (default: main)")
    sp.add_argument("--previous", metavar="TSV", default="data/bridge-config-fields.tsv",
                    help="when no source holds megatron/training/arguments.py and --flags is "
                         "not given, keep this table's flag column for the fields it has "
                         "(default: %(default)s)")
    flagsrc(sp)
    common(sp)
    sp.set_defaults(func=cmd_bridge_fields)

    sp = sub.add_parser("bridge-variants", help="data/bridge-variant-fields.tsv",
                        description="The other classes each ConfigContainer section can hold "
                        "(model providers, dataset configs, PEFT methods), as differences from "
                        "bridge-config-fields.tsv.")
    sp.add_argument("--bridge", metavar="SRC", required=True, help="Megatron-Bridge")
    sp.add_argument("--core", metavar="SRC", required=True, help="megatron-core (Megatron-LM)")
    sp.add_argument("--fields", metavar="TSV",
                    help="compare with this bridge-config-fields.tsv (default: compute it)")
    sp.add_argument("--previous", metavar="TSV",
                    help="carry the hand-written parts of each class's note over from this "
                         "bridge-variant-fields.tsv")
    flagsrc(sp)
    common(sp)
    sp.set_defaults(func=cmd_bridge_variants)

    sp = sub.add_parser("flags", help="one release's rows of data/megatron-flags.tsv",
                        description="Every flag of Megatron-LM's training parser "
                        "(megatron/training/arguments.py), read statically: see the comment "
                        "above FlagInterp in this script for the method.")
    sp.add_argument("--training", metavar="SRC", required=True,
                    help="Megatron-LM (a checkout, GITDIR@REV, or the megatron-core "
                         "wheel/sdist, which holds megatron/training)")
    sp.add_argument("--name", metavar="NAME", required=True,
                    help="the release's name in the refs column (r0.19, main, ...)")
    common(sp)
    sp.set_defaults(func=cmd_flags)

    sp = sub.add_parser("merge", help="fold one release's rows into a multi-release table",
                        description="Fold the rows of one release (the output of `flags`) "
                        "into a table with a refs column (data/megatron-flags.tsv): a row "
                        "identical but for refs gains the release, others are added; the "
                        "release's old refs are dropped first.  Rows stay sorted by flag, then "
                        "by their first release in --versions order.")
    sp.add_argument("--table", metavar="TSV", required=True,
                    help="the multi-release table (rewritten in place unless -o)")
    sp.add_argument("--rows", metavar="TSV", required=True, help="one release's rows")
    sp.add_argument("--name", metavar="NAME", help="the release (default: the refs of --rows)")
    sp.add_argument("--versions", metavar="TSV", default="data/megatron-versions.tsv",
                    help="release order for the refs column (default: %(default)s)")
    common(sp)
    sp.set_defaults(func=cmd_merge)

    sp = sub.add_parser("checks", help="data/megatron-checks.tsv",
                        description="Every assert, raise and warning of Megatron's config "
                        "validation: the __post_init__ of ModelParallelConfig, TransformerConfig, "
                        "MLATransformerConfig, OptimizerConfig, DistributedDataParallelConfig, "
                        "CheckpointConfig, the num-microbatches calculator's construction and "
                        "(with megatron/training) validate_args, with the same-module helpers "
                        "they call.")
    sp.add_argument("--core", metavar="SRC", required=True, help="megatron-core (Megatron-LM)")
    sp.add_argument("--training", metavar="SRC",
                    help="Megatron-LM checkout for megatron/training when --core lacks it")
    sp.add_argument("--previous", metavar="TSV",
                    help="carry offline and note (partly written by hand) over from this "
                         "table for the checks it already has")
    sp.add_argument("--early-returns", action="store_true",
                    help="an `if X: return` before a check adds \"not (X)\" to its guard (off: "
                         "data/megatron-checks.tsv has always been read without)")
    common(sp)
    sp.set_defaults(func=cmd_checks)

    sp = sub.add_parser("bridge-checks", help="Megatron-Bridge's checks, as data/megatron-checks.tsv",
                        description="Every assert, raise and warning of Megatron-Bridge's config "
                        "validation: runtime_config_update, ConfigContainer.validate, and the "
                        "__post_init__ / finalize / validate of each section class (the Bridge "
                        "classes of its MRO), with the same-module helpers they call.  Columns "
                        "as data/megatron-checks.tsv; fields are SECTION.FIELD.")
    sp.add_argument("--bridge", metavar="SRC", required=True, help="Megatron-Bridge")
    sp.add_argument("--core", metavar="SRC",
                    help="megatron-core, to resolve the section classes' bases (optional)")
    sp.add_argument("--previous", metavar="TSV",
                    help="carry offline and note over from this table for the checks it has")
    sp.add_argument("--no-early-returns", action="store_true",
                    help="do not turn an `if X: return` before a check into \"not (X)\" in its "
                         "guard (as `checks` reads Megatron)")
    common(sp)
    sp.set_defaults(func=cmd_bridge_checks)

    sp = sub.add_parser("bridge-mixed-precision", help="data/bridge-mixed-precision.tsv",
                        description="The mixed-precision presets a ConfigContainer may name "
                        "(mixed_precision: bf16_mixed): the fields each sets.")
    sp.add_argument("--bridge", metavar="SRC", required=True, help="Megatron-Bridge")
    common(sp)
    sp.set_defaults(func=cmd_bridge_mixed_precision)

    sp = sub.add_parser("bridge-loader", help="data/bridge-loader.tsv",
                        description="How Bridge's from_yaml treats what a config names: "
                        "the _target_ allow- and deny-lists, and the classes whose "
                        "constructor takes **kwargs (an unknown key is then refused, "
                        "not dropped).")
    sp.add_argument("--bridge", metavar="SRC", required=True, help="Megatron-Bridge")
    sp.add_argument("--core", metavar="SRC", required=True,
                    help="megatron-core (megatron.training.config)")
    sp.add_argument("--fields", metavar="TSV", required=True,
                    help="the release's bridge-config-fields.tsv (the sections' classes)")
    sp.add_argument("--variants", metavar="TSV", required=True,
                    help="the release's bridge-variant-fields.tsv")
    common(sp)
    sp.set_defaults(func=cmd_bridge_loader)

    sp = sub.add_parser("release", help="every table for one megatron-core + Bridge release",
                        description="Read one release (the megatron-core and megatron-bridge "
                        "wheels or sdists, or checkouts) and write all its tables into DIR: "
                        "megatron-flags.tsv (its rows, refs NAME), bridge-config-fields.tsv, "
                        "bridge-variant-fields.tsv, megatron-checks.tsv, bridge-checks.tsv, "
                        "bridge-mixed-precision.tsv, bridge-loader.tsv and "
                        "SOURCES.tsv (what was read, with digests); the hand-written notes of "
                        "--previous-dir's tables are carried over, and each table is compared "
                        "with --previous-dir's.")
    sp.add_argument("--core", metavar="SRC", required=True, help="megatron-core")
    sp.add_argument("--bridge", metavar="SRC", required=True, help="megatron-bridge")
    sp.add_argument("--training", metavar="SRC",
                    help="Megatron-LM checkout for megatron/training (when --core lacks it)")
    sp.add_argument("--name", metavar="NAME", required=True,
                    help="the Megatron-LM release in the refs column (r0.19, main, ...)")
    sp.add_argument("--into", metavar="DIR", required=True,
                    help="where to write (data/releases/bridge-0.6.2+core-0.19.2, or data)")
    sp.add_argument("--previous-dir", metavar="DIR", default="data",
                    help="tables to carry hand-written notes from and compare with "
                         "(default: %(default)s; '' for none)")
    sp.add_argument("--merge-flags", metavar="TSV",
                    help="also fold the flag rows into this multi-release table "
                         "(data/megatron-flags.tsv)")
    sp.add_argument("--versions", metavar="TSV", default="data/megatron-versions.tsv",
                    help="release order for --merge-flags (default: %(default)s)")
    sp.add_argument("--pinned-core", metavar="SRC", help="as for bridge-fields")
    sp.add_argument("--pinned-name", metavar="NAME", help="as for bridge-fields")
    sp.add_argument("--limit", type=int, default=0, metavar="N",
                    help="list at most N rows of each kind in the comparisons")
    sp.add_argument("-q", "--quiet", action="store_true", help="no comparisons")
    sp.set_defaults(func=cmd_release)

    sp = sub.add_parser("rekey", help="move file:line ids to a new checks table",
                        description="data/megatron-checks-port.tsv and -ledger.tsv name checks "
                        "by megatron-checks.tsv's id (file:line).  Given the old and the new "
                        "checks table, rewrite those ids in place: a check is the same when its "
                        "function, kind, guard, condition and message are.")
    sp.add_argument("--old", metavar="TSV", required=True, help="the checks table the ids are of")
    sp.add_argument("--new", metavar="TSV", required=True, help="the new checks table")
    sp.add_argument("--drop", action="store_true",
                    help="drop rows whose check the new table lacks (default: keep them)")
    sp.add_argument("files", metavar="FILE", nargs="+", help="tables keyed by id, rewritten")
    sp.set_defaults(func=cmd_rekey)

    sp = sub.add_parser("compare", help="what changed between two versions of a table",
                        description="Compare two versions of one table (bridge-config-fields, "
                        "bridge-variant-fields, megatron-checks / bridge-checks, megatron-flags) "
                        "row by row, by key (section+field; section+class+field; a check's "
                        "function, kind, guard, condition and message, so that a check that "
                        "only moved to another line is counted, not listed; flag+dest).")
    sp.add_argument("old", metavar="OLD.tsv")
    sp.add_argument("new", metavar="NEW.tsv")
    sp.add_argument("--limit", type=int, default=0, metavar="N",
                    help="list at most N rows of each kind (default: all)")
    sp.add_argument("--exit-code", action="store_true", help="exit 1 when they differ")
    sp.add_argument("--ref", metavar="NAME",
                    help="flags: compare only the rows of this release (default: the one "
                         "release of NEW when OLD has several)")
    sp.set_defaults(func=cmd_compare)

    a = p.parse_args(argv)
    try:
        import signal
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)     # | head
    except (ImportError, AttributeError, ValueError):
        pass
    a.func(a)


if __name__ == "__main__":
    main()
