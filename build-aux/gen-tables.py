#!/usr/bin/env python3
"""gen-tables.py -- turns the facts in data/ and the overlay src/schema.def
into the C tables mcinit is built from.  Nothing here is a source of truth:
the facts say what Megatron-LM and Megatron-Bridge accept, schema.def says
what is mcinit's own (ranges, help, required fields, mcinit-only sections).

  gen-tables.py mversions VERSIONS.tsv                       > mversions.inc
  gen-tables.py mentries  VERSIONS.tsv ENTRIES.tsv            > mentries.inc
  gen-tables.py mflags    VERSIONS.tsv FLAGS.tsv ENTRIES.tsv ENTRY-FLAGS.tsv > mflags.inc
  gen-tables.py fields    VERSIONS.tsv FLAGS.tsv BRIDGE.tsv SCHEMA.def ENTRY-FLAGS.tsv
                                                              > fields.inc
  gen-tables.py variants  FIELDS-OUTPUT-IS-NOT-READ VARIANTS.tsv BRIDGE.tsv > variants.inc
  gen-tables.py recipes   RECIPES.tsv [NAME=RECIPES.tsv ...]  > recipes.inc
  gen-tables.py mchecks   CHECKS.tsv PORT.tsv LEDGER.tsv [EXTRA.tsv [LOCALS.tsv]] > mchecks.inc
  gen-tables.py bchecks   CHECKS.tsv PORT.tsv LEDGER.tsv LOCALS.tsv BRIDGE.tsv VARIANTS.tsv
                          [NAME=CHECKS.tsv ...]                > bchecks.inc
  gen-tables.py bprecision PRESETS.tsv [NAME=PRESETS.tsv ...] > bprecision.inc
  gen-tables.py bloader   LOADER.tsv [NAME=LOADER.tsv ...]    > bloader.inc

The field universe (`fields`): one field per schema.def row, one per field of
Bridge's ConfigContainer sections, and one per Megatron-LM flag dest that no
Bridge field carries (section `megatron`).  A field is the primary home of a
dest when schema.def puts the flag there, else when a Bridge field is set
straight from that dest (same name, or "set from args as X = args.DEST"); the
other Bridge fields set straight from it are mirrors that a flag also sets.

Entry points (`mentries`): the scripts Megatron-LM runs (pretrain_gpt.py,
pretrain_vlm.py, the inference examples, ModelOpt ...) each hand the training
parser an extra_args_provider and args_defaults.  A flag row of FLAGS.tsv
belongs to every entry point; a row of ENTRY-FLAGS.tsv to the entry points
that add it (identical rows of several entry points are one row).

Megatron-LM's configuration checks (`mchecks`): CHECKS.tsv (the facts: every
check in Megatron-LM main's configuration validation, with its guard and
condition as Python source) and EXTRA.tsv (optional, same columns: the checks
the facts do not list, kept by mcinit) are ported as PORT.tsv says where the
facts alone do not: a hand-written rule, a rewritten condition, a reason it
cannot be decided offline.  LEDGER.tsv says which rows are vetted against
Megatron (its implemented_by column names a code): only those are evaluated,
so a row that becomes evaluable (a new field, a new resolver name) changes
nothing until it is vetted and the ledger updated.  LOCALS.tsv (optional)
gives the locals of Megatron's checked functions that are plain functions
of the config (full_cudagraph, the uneven pipeline arithmetic of
TransformerConfig.__post_init__) as expressions, as Bridge's LOCALS.tsv
does; what needs more than an expression is lib/rules/mcheck-locals.c's.

Megatron-Bridge's own checks (`bchecks`): CHECKS.tsv (Bridge main's
ConfigContainer.validate, runtime_config_update and the sections'
finalize, fields as section.field) and each release's table (NAME=PATH,
oldest first) are one list: a check that is the same in several tables
(function, kind, guard, condition and message) is one row, named by main's
file:line (or NAME:file:line when main lacks it), with its file:line in
each release.  PORT.tsv and LEDGER.tsv work as for Megatron-LM's checks,
and a PORT.tsv row `dup ID` says that check ID, which Bridge runs first,
fails whenever this one does (it is reported once, as ID);
LOCALS.tsv gives the locals of Bridge's functions as expressions over what
the function reads (and "(call)", the condition its caller calls it
under), so that a row reading them is still one row.  BRIDGE.tsv (the
sections' classes and MROs) and VARIANTS.tsv (the classes a section can
hold) give isinstance its answers.

How Megatron-Bridge's loader treats what a config names (`bloader`): the
`_target_` allow- and deny-lists and the classes whose constructor takes
**kwargs, of main and each release.

Megatron-Bridge's mixed-precision presets (`bprecision`): the fields each
preset sets (extract-facts.py bridge-mixed-precision) of main and each
release, with the releases that have each.
"""
import ast
import json
import os
import re
import sys

# ---------------------------------------------------------------- helpers


def read_tsv(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    head = lines[0].split("\t")
    rows = []
    for ln in lines[1:]:
        if not ln:
            continue
        cells = ln.split("\t")
        cells += [""] * (len(head) - len(cells))
        rows.append(dict(zip(head, cells)))
    return rows


def cstr(s):
    if s is None:
        return "NULL"
    out = []
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif o < 0x20:
            out.append("\\%03o" % o)
        elif o > 0x7E:
            out.extend("\\%03o" % b for b in ch.encode("utf-8"))
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def fnv1a(data, h=2166136261):
    """FNV-1a (32 bits) over bytes, as mcinit_fnv1a in lib/core/util.h."""
    for b in data:
        h = ((h ^ b) * 16777619) & 0xFFFFFFFF
    return h


def print_hash(macro, keys):
    """The slot table of a hashed lookup (mcinit_hash_find): keys are the
    table's strings in table order, equal ones adjacent; a slot holds the
    position of the first of each, 0xffff none.  The size is the power of
    two at least twice the number of keys; collisions probe linearly."""
    first = {}
    for i, k in enumerate(keys):
        first.setdefault(k, i)
    if len(keys) >= 0xFFFF:
        sys.exit("gen-tables: %s: too many rows for 16-bit slots" % macro)
    size = 1
    while size < 2 * len(first):
        size *= 2
    slots = [0xFFFF] * size
    for k, i in first.items():
        h = fnv1a(k.encode()) & (size - 1)
        while slots[h] != 0xFFFF:
            h = (h + 1) & (size - 1)
        slots[h] = i
    print("#ifdef %s" % macro)
    for v in slots:
        print("%s(%d)" % (macro, v))
    print("#endif")


class Blob:
    """The strings of lookup tables as one C string blob: a row holds a
    string's offset (uint32_t) instead of a pointer, so the tables need no
    relocation and stay in read-only pages the loader never writes.  Equal
    strings are stored once."""

    def __init__(self):
        self.parts = []
        self.offsets = {}
        self.size = 0

    def add(self, s):
        if s not in self.offsets:
            self.offsets[s] = self.size
            self.parts.append(s)
            self.size += len(s.encode("utf-8")) + 1
            if self.size > 0xFFFFFFFF:
                sys.exit("gen-tables: string blob over 4 GiB")
        return self.offsets[s]

    def print(self, macro):
        """MACRO("str\\0") for each string, in offset order: adjacent
        literals concatenate into the blob."""
        print("#ifdef %s" % macro)
        for p in self.parts:
            print("%s(%s)" % (macro, cstr(p)[:-1] + '\\0"'))
        print("#endif")


def ccomment(s):
    """s as a C comment (a row's string beside its offset), when it can be."""
    return "" if "*/" in s or "\n" in s else " /* %s */" % s


def vid(name):
    """'r0.15' -> 'R015', 'main' -> 'MAIN'."""
    return re.sub(r"[^A-Za-z0-9]", "", name).upper()


def versions(path):
    return read_tsv(path)


def vmask(vers, refs):
    names = [v["name"] for v in vers]
    bits = []
    for r in refs.split(","):
        r = r.strip()
        if not r:
            continue
        if r not in names:
            sys.exit("gen-tables: unknown version %r" % r)
        bits.append("MCINIT_MV_" + vid(r))
    return "|".join(bits) if bits else "0"


# ---------------------------------------------------------------- versions


def gen_mversions(vpath):
    vers = versions(vpath)
    print("/* Generated by build-aux/gen-tables.py from %s: do not edit. */" % vpath)
    names = [v["name"] for v in vers]
    dflt = [v["name"] for v in vers if v.get("default") == "yes"]
    print("#ifndef MCINIT_MVERSION_NAMES")
    print("#define MCINIT_MVERSION_NAMES %s" % cstr(", ".join(names[:-1]) + " or " + names[-1]))
    print("#define MCINIT_MVERSION_DEFAULT_NAME %s" % cstr(dflt[0] if dflt else ""))
    print("#endif")
    print("#ifdef MCINIT_MVERSION")
    ndef = 0
    for v in vers:
        d = v.get("default", "") == "yes"
        ndef += d
        print("MCINIT_MVERSION(%s, %s, %s, %s, %d)" % (vid(v["name"]), cstr(v["name"]),
                                                       cstr(v["branch"]), cstr(v["commit"]),
                                                       int(d)))
    print("#endif")
    if ndef != 1:
        sys.exit("gen-tables: exactly one version must be the default")


# ---------------------------------------------------------------- flags

MTYPES = {"int": "INT", "float": "FLOAT", "str": "STR", "": "STR", "bool": "BOOL",
          "enum": "ENUM"}


def mtype(row):
    return MTYPES.get(row["type"], "CUSTOM")


def py_default(row):
    """The parser default as a Python value; None when None/absent."""
    d = row["default"]
    kind, ty = row["kind"], row["type"]
    if d == "" or d.startswith("env:"):
        return None  # None, or read from the environment at parse time
    if kind in ("store_true", "store_false", "boolean_optional", "legacy_type_bool"):
        if d in ("True", "False"):
            return d == "True"
    try:
        v = ast.literal_eval(d)
        if isinstance(v, tuple):
            v = list(v)
        if isinstance(v, (bool, int, float, str, list)) or v is None:
            if ty == "float" and isinstance(v, int) and not isinstance(v, bool):
                v = float(v)
            if ty == "str" and isinstance(v, (int, float)) and not isinstance(v, bool):
                v = d
            return v
    except (ValueError, SyntaxError):
        pass
    m = re.fullmatch(r"[A-Za-z_][A-Za-z_0-9]*\.([A-Za-z_][A-Za-z_0-9]*)", d)
    if m:  # AttnBackend.auto, signal.SIGTERM: the member's name
        return m.group(1)
    return d  # a bare word argparse keeps as the string it is


def json_text(v):
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return None
    return json.dumps(v, ensure_ascii=False, separators=(",", ":"))


def nargs_of(row):
    kind, n = row["kind"], row["nargs"]
    if kind in ("value", "legacy_type_bool"):
        return 1
    if kind == "list":
        return -1 if n == "+" else -2 if n == "*" else int(n)
    return 0


def entry_names(epath):
    names = []
    for r in read_tsv(epath):
        if r["entry"] not in names:
            names.append(r["entry"])
    if len(names) > 16:
        sys.exit("gen-tables: more than 16 entry points")
    return names


def entry_flag_rows(epath, efpath):
    """ENTRY-FLAGS.tsv rows, one per distinct flag definition, each with the
    entry points that add it as a C mask expression in "entries"."""
    names = entry_names(epath)
    merged = {}
    for r in read_tsv(efpath):
        if r["entry"] not in names:
            sys.exit("gen-tables: %s: unknown entry point %r" % (efpath, r["entry"]))
        key = tuple(r[k] for k in ("flag", "dest", "kind", "type", "nargs", "default",
                                   "choices", "refs"))
        if key not in merged:
            merged[key] = dict(r, entries=[])
        merged[key]["entries"].append(r["entry"])
    for r in merged.values():
        r["entries"] = "|".join("MCINIT_ME_%s" % vid(e) for e in r["entries"])
    return list(merged.values())


def gen_mentries(vpath, epath):
    vers = versions(vpath)
    names = entry_names(epath)
    print("/* Generated by build-aux/gen-tables.py from %s: do not edit. */" % epath)
    print("#ifndef MCINIT_MENTRY_NAMES")
    print("#define MCINIT_MENTRY_NAMES %s" % cstr(", ".join(names[:-1]) + " or " + names[-1]))
    print("#endif")
    print("#ifdef MCINIT_MENTRY")
    for n in names:
        print("MCINIT_MENTRY(%s, %s)" % (vid(n), cstr(n)))
    print("#endif")
    print("#ifdef MCINIT_MENTRY_ROW")
    for r in read_tsv(epath):
        d = json.loads(r["args_defaults"])
        if not isinstance(d, dict):
            sys.exit("gen-tables: %s: args_defaults of %s is not an object" % (epath, r["entry"]))
        print("MCINIT_MENTRY_ROW(MCINIT_MEI_%s, %s, %s, %s)" % (
            vid(r["entry"]), cstr(r["script"]), cstr(json_text(d)), vmask(vers, r["refs"])))
    print("#endif")


def gen_mflags(vpath, fpath, epath, efpath):
    vers = versions(vpath)
    rows = read_tsv(fpath)
    for r in rows:
        r["entries"] = "MCINIT_ME_ALL"
    rows += entry_flag_rows(epath, efpath)
    rows.sort(key=lambda r: r["flag"].encode())
    print("/* Generated by build-aux/gen-tables.py from %s and %s: do not edit. */" %
          (fpath, efpath))
    # the rows hold offsets into one blob of their strings (MCINIT_MSTR,
    # printed first; MCINIT_NOSTR for none): nothing to relocate
    blob = Blob()
    out = []
    for r in rows:
        d = py_default(r)
        dj = "null" if d is None else json_text(d)
        out.append("MCINIT_MFLAG(%d, %d, MCINIT_MK_%s, %d, %s, %s, MCINIT_MT_%s, %d, %s)%s" % (
            blob.add(r["flag"]), blob.add(r["dest"]), r["kind"].upper(), nargs_of(r),
            vmask(vers, r["refs"]),
            "%d" % blob.add(r["choices"]) if r["choices"] else "MCINIT_NOSTR", mtype(r),
            blob.add(dj), r["entries"], ccomment(r["flag"])))
    blob.print("MCINIT_MSTR")
    print("#ifdef MCINIT_MFLAG")
    for o in out:
        print(o)
    print("#endif")
    # flag -> its first row above, hashed
    print_hash("MCINIT_MFLAG_FLAG_HASH", [r["flag"] for r in rows])
    # dest -> the rows of that dest, sorted by dest (bytewise) and, within
    # a dest, in table order (by flag): the positions of the rows above;
    # and dest -> the first of them in that list, hashed
    by_dest = sorted(range(len(rows)), key=lambda i: (rows[i]["dest"].encode(), i))
    print("#ifdef MCINIT_MFLAG_DEST")
    for i in by_dest:
        print("MCINIT_MFLAG_DEST(%d)" % i)
    print("#endif")
    print_hash("MCINIT_MFLAG_DEST_HASH", [rows[i]["dest"] for i in by_dest])


# ---------------------------------------------------------------- schema.def

TOKEN = re.compile(r'\s+|/\*.*?\*/|//[^\n]*|"(?:[^"\\\n]|\\.)*"|[A-Za-z_][A-Za-z_0-9]*'
                   r"|-?[0-9]+|.", re.S)


def c_unquote(tokens):
    """Adjacent C string literals -> Python str; NULL -> None."""
    if tokens == ["NULL"]:
        return None
    s = ""
    for t in tokens:
        if not t.startswith('"'):
            sys.exit("gen-tables: schema.def: expected a string, got %r" % t)
        s += t[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return s.encode("latin-1").decode("utf-8") if any(ord(c) > 127 for c in s) else s


def parse_schema(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    toks = [t for t in TOKEN.findall(text)
            if not t.isspace() and not t.startswith("/*") and not t.startswith("//")]
    rows, i = [], 0
    while i < len(toks):
        if toks[i] != "MCINIT_FIELD" or toks[i + 1] != "(":
            i += 1
            continue
        i += 2
        args, cur, depth = [], [], 0
        while True:
            t = toks[i]
            i += 1
            if t == "(":
                depth += 1
            elif t == ")":
                if depth == 0:
                    args.append(cur)
                    break
                depth -= 1
            elif t == "," and depth == 0:
                args.append(cur)
                cur = []
                continue
            cur.append(t)
        if len(args) not in (9, 10):
            sys.exit("gen-tables: schema.def: MCINIT_FIELD(%s) has %d columns" %
                     (" ".join(args[1]) if len(args) > 1 else "?", len(args)))
        raw = [" ".join(a) for a in args]
        rows.append({
            "raw": raw,
            "args": args,
            "section": raw[0], "name": raw[1],
            "type": c_unquote(args[2]), "def": c_unquote(args[3]),
            "flags": c_unquote(args[4]),
            "choices": c_unquote(args[7]),
            "aliases": c_unquote(args[9]) if len(args) == 10 else None,
        })
    return rows


# ---------------------------------------------------------------- types

ORDER = ["null", "bool", "int", "float", "dtype", "signal", "enum", "str", "layout", "any"]


class Type:
    """A union of alternatives: scalars ('int', ...) and lists ('list[int]', 'list[int]{3}')."""

    def __init__(self):
        self.alts = []
        self.choices = []
        # some alternative takes any word (a flag with no choices on some
        # version: argparse takes any word there, so the choices of the
        # other versions do not bind the field)
        self.open = False

    def add(self, alt):
        if alt not in self.alts:
            self.alts.append(alt)

    def add_choices(self, cs):
        for c in cs:
            if c not in self.choices:
                self.choices.append(c)

    def merge(self, other):
        for a in other.alts:
            self.add(a)
        self.add_choices(other.choices)
        self.open = self.open or other.open

    def bound_choices(self):
        return [] if self.open else self.choices

    def text(self):
        def base(a):
            m = re.match(r"list\[(\w+)\]", a)
            return m.group(1) if m else a

        alts = list(self.alts)
        if "enum" in alts and "str" in alts:
            alts.remove("enum")  # str with choices says the same
        if "any" in alts:
            alts = [a for a in alts if a == "null"] + ["any"]
        # lists after scalars of the same base; null first is what the
        # loaders try first for an explicit null
        def key(a):
            return (ORDER.index(base(a)) if base(a) in ORDER else 99, a.startswith("list"))

        alts.sort(key=key)
        if len([a for a in alts]) > 6:
            sys.exit("gen-tables: too many alternatives: %s" % alts)
        return "|".join(alts)

    def allows(self, v):
        def scal(a, x):
            if a == "null":
                return x is None
            if a == "any":
                return True
            if a == "bool":
                return isinstance(x, bool)
            if a == "int":
                return isinstance(x, int) and not isinstance(x, bool) and self.ok_choice(x)
            if a == "float":
                return isinstance(x, (int, float)) and not isinstance(x, bool)
            if a in ("str", "enum"):
                return isinstance(x, str) and self.ok_choice(x)
            if a == "dtype":
                return isinstance(x, str)
            if a == "signal":
                return isinstance(x, (str, int))
            if a == "layout":
                return isinstance(x, (str, list))
            return False

        for a in self.alts:
            m = re.fullmatch(r"list\[(\w+)\](?:\{(\d+)\})?", a)
            if m:
                if isinstance(v, list) and (m.group(2) is None or len(v) == int(m.group(2))):
                    if all(scal(m.group(1), x) for x in v):
                        return True
            elif scal(a, v):
                return True
        return False

    def ok_choice(self, x):
        if not self.bound_choices():
            return True
        return str(x) in self.choices


def split_top(s, sep):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    out.append(cur.strip())
    return [x for x in out if x != ""]


SCALARS = {"int": "int", "float": "float", "str": "str", "bool": "bool", "Path": "str",
           "torch.dtype": "dtype", "signal.Signals": "signal", "None": "null",
           "NoneType": "null"}


def annotation_type(ann):
    """A Python annotation -> Type.  Anything mcinit cannot model is 'any'."""
    t = Type()

    def walk(a, in_list=False):
        a = a.strip()
        parts = split_top(a, "|")
        if len(parts) > 1:
            for p in parts:
                walk(p, in_list)
            return
        m = re.fullmatch(r"(\w+(?:\.\w+)?)\[(.*)\]", a, re.S)
        head, inner = (m.group(1), m.group(2)) if m else (a, None)
        if head == "Optional" and inner is not None:
            t.add("null")
            walk(inner, in_list)
        elif head == "Union" and inner is not None:
            for p in split_top(inner, ","):
                walk(p, in_list)
        elif head == "Literal" and inner is not None:
            vals = []
            for p in split_top(inner, ","):
                try:
                    vals.append(ast.literal_eval(p))
                except (ValueError, SyntaxError):
                    vals.append(p)
            if all(isinstance(v, int) and not isinstance(v, bool) for v in vals):
                base = "int"
            else:
                base = "str"
            t.add("list[%s]" % base if in_list else base)
            t.add_choices([str(v) for v in vals])
        elif head in ("list", "List", "set", "Set", "Sequence") and inner is not None:
            if in_list:
                t.add("any")
                return
            sub = annotation_type(inner)
            bases = [x for x in sub.alts if x != "null"]
            if len(bases) == 1 and bases[0] in ("int", "float", "str", "bool", "enum", "dtype"):
                t.add("list[%s]" % bases[0])
                t.add_choices(sub.choices)
            else:
                t.add("any")
        elif head in ("tuple", "Tuple") and inner is not None:
            items = split_top(inner, ",")
            if len(items) == 2 and items[1] == "...":
                walk("list[%s]" % items[0], in_list)
            elif items and all(x == items[0] for x in items) and items[0] in SCALARS:
                t.add("list[%s]{%d}" % (SCALARS[items[0]], len(items)))
            else:
                t.add("any")
        elif a in SCALARS:
            t.add(("list[%s]" % SCALARS[a]) if in_list else SCALARS[a])
        else:
            t.add("any")

    walk(ann)
    return t


def flag_type(row):
    """What one Megatron-LM flag row lets the field hold."""
    t = Type()
    kind, ty = row["kind"], mtype(row)
    base = {"INT": "int", "FLOAT": "float", "STR": "str", "BOOL": "bool",
            "ENUM": "str", "CUSTOM": "str"}[ty]
    if kind in ("store_true", "store_false", "boolean_optional", "legacy_type_bool"):
        t.add("bool")
    elif kind == "value":
        t.add(base)
    else:
        n = row["nargs"]
        t.add("list[%s]{%s}" % (base, n) if n.isdigit() else "list[%s]" % base)
        d = py_default(row)
        if d is not None and not isinstance(d, list):
            t.add(base)
    if row["choices"] and ty != "CUSTOM":
        t.add_choices(row["choices"].split(","))
    elif kind in ("value", "list") and ty in ("STR", "INT", "FLOAT"):
        t.open = True
    if py_default(row) is None or kind == "legacy_type_bool":
        t.add("null")
    return t


def bridge_default(d, t):
    """A Bridge default (source text) -> a JSON-able value, or KeyError."""
    if d in ("required", "None", ""):
        return None
    if d.startswith("factory:"):
        f = d[8:]
        if f in ("list", "set", "lambda: []", "tuple"):
            return []
        if f == "dict":
            return {}
        m = re.fullmatch(r"lambda: (\[.*\])", f)
        if m:
            return ast.literal_eval(m.group(1))
        raise KeyError(d)
    if re.fullmatch(r"[0-9 *+\-]+", d):
        return eval(d, {"__builtins__": {}})  # integer arithmetic only: 2**32, 1024 * 1024
    try:
        v = ast.literal_eval(d)
        if isinstance(v, tuple):
            v = list(v)
        return v
    except (ValueError, SyntaxError):
        pass
    m = re.fullmatch(r"torch\.(\w+)", d)
    if m and "dtype" in t.alts:
        return d
    m = re.fullmatch(r"[A-Za-z_]\w*\.(\w+)", d)
    if m and (m.group(1) in t.choices or "signal" in t.alts):
        return m.group(1)
    raise KeyError(d)


# ---------------------------------------------------------------- the universe

SECTION_FIRST = ["model", "train", "validation", "optimizer", "scheduler", "ddp", "dist", "rng"]


def direct_dest(b, flag_dests):
    """Dests a Bridge field is set from one-to-one."""
    out = []
    note = b["note"]
    for d in flag_dests:
        if d == b["field"]:
            out.append(d)
            continue
        m = re.search(r"set from args as %s = args\.%s(?=$|[ ;(])" % (re.escape(b["field"]),
                                                                       re.escape(d)), note)
        if m:
            out.append(d)
    return out


def bridge_releases(bridge, extras):
    """Megatron-Bridge's releases: the snapshot table (bridge, named main) and
    each NAME=PATH of extras (oldest first).  Rows of a release that the
    snapshot lacks join it; returns the names (oldest first, main last) and
    the releases each (section, field) is in."""
    rels = [(n, read_tsv(p)) for n, p in (e.split("=", 1) for e in extras)] + [("main", bridge)]
    names = [n for n, _ in rels]
    have, known = {}, {(b["section"], b["field"]) for b in bridge}
    for n, rows in rels:
        for b in rows:
            k = (b["section"], b["field"])
            have.setdefault(k, set()).add(n)
            if k not in known:
                known.add(k)
                bridge.append(b)
    return names, have


def release_aliases(bnames, bridge, extras):
    """[((section, field, target), mask)]: the fields each release has as a
    property of another ("alias: property for X"), bit i for release i."""
    got = {}
    tables = {n: read_tsv(p) for n, p in (e.split("=", 1) for e in extras)}
    tables["main"] = bridge
    for i, n in enumerate(bnames):
        for b in tables.get(n, []):
            m = re.match(r"alias: property for (\w+)", b["note"]) if b["type"] == "property" else None
            if m:
                k = (b["section"], b["field"], m.group(1))
                got[k] = got.get(k, 0) | 1 << i
    return sorted(got.items())


def bridge_core(name, extras):
    """The Megatron-Core release (a data/megatron-versions.tsv name, "r0.18")
    that Bridge release `name` pins: the core row of SOURCES.tsv in the
    directory of its tables; main's is main."""
    for e in extras:
        n, path = e.split("=", 1)
        if n != name:
            continue
        for r in read_tsv(os.path.join(os.path.dirname(path), "SOURCES.tsv")):
            if r["role"] == "core":
                return "r" + ".".join(r["version"].split(".")[:2])
        raise SystemExit("%s: no core row in SOURCES.tsv" % os.path.dirname(path))
    return "main"


def gen_fields(vpath, fpath, bpath, spath, efpath, extras=()):
    vers = versions(vpath)
    vnames = [v["name"] for v in vers]
    default_v = [v["name"] for v in vers if v.get("default") == "yes"][0]
    # the entry points' flags are fields like any other: a config file may
    # set them, and the checks read them
    flags = read_tsv(fpath) + read_tsv(efpath)
    bridge = read_tsv(bpath)
    bnames, bhave = bridge_releases(bridge, extras)
    schema = parse_schema(spath)

    by_flag, by_dest = {}, {}
    for r in flags:
        by_flag.setdefault(r["flag"], []).append(r)
        by_dest.setdefault(r["dest"], []).append(r)

    def dests_of(flaglist):
        out = []
        for fl in flaglist:
            for r in by_flag.get(fl, []):
                if r["dest"] not in out:
                    out.append(r["dest"])
        return out

    def newest_row(dest):
        """The flag row of the newest version that has dest (default first)."""
        rows = by_dest[dest]
        order = [default_v] + list(reversed(vnames))
        for v in order:
            for r in rows:
                if v in r["refs"].split(","):
                    return r
        return rows[0]

    sections = [b["field"] for b in bridge if b["section"] == "ConfigContainer"
                and b["note"].startswith("section")]
    secmeta = {b["field"]: b for b in bridge if b["section"] == "ConfigContainer"}

    fields = []  # dicts: id, section, name, type(Type or str), def, flags, dest, origin, ...
    used_ids = set()
    key_of = {}
    primary = {}  # dest -> field
    mirrors = {}  # dest -> [fields]

    # 1. schema.def rows, as written
    for s in schema:
        fl = s["flags"].split("|") if s["flags"] else []
        f = {"id": s["name"], "section": s["section"], "name": s["name"], "schema": s,
             "flags": fl, "origin": "SCHEMA", "aliases": [], "dest": None}
        if s["aliases"]:
            f["aliases"] = s["aliases"].split("|")
        ds = dests_of(fl)
        if ds:
            f["dest"] = ds[0]
        for d in ds:
            if d in primary:
                sys.exit("gen-tables: schema.def: %s and %s both claim dest %s" %
                         (primary[d]["name"], s["name"], d))
            primary[d] = f
        if s["name"] in used_ids:
            sys.exit("gen-tables: schema.def: field %s twice" % s["name"])
        used_ids.add(s["name"])
        key_of[(s["section"], s["name"])] = f
        fields.append(f)

    # 2. Bridge fields
    brows = [b for b in bridge if b["section"] not in ("ConfigContainer", "env_vars")
             and b["field"] != ""]
    aliases = []
    cand = {}  # dest -> [bridge field dicts] (direct)
    bfields = []
    for b in brows:
        sec, name = b["section"], b["field"]
        if b["type"] == "property":
            m = re.match(r"alias: property for (\w+)", b["note"])
            if m:
                aliases.append((sec, name, m.group(1)))
            continue
        fl = [x for x in b["flag"].split(",") if x]
        if (sec, name) in key_of:
            # a schema.def row: the facts add the flags it did not list
            f = key_of[(sec, name)]
            f["bridge"] = b
            for d in direct_dest(b, dests_of(fl)):
                if d in primary:
                    continue
                primary[d] = f
                f["dest"] = f["dest"] or d
                for r in by_dest[d]:
                    if r["flag"] not in f["flags"]:
                        f["flags"].append(r["flag"])
            continue
        f = {"section": sec, "name": name, "bridge": b, "flags": fl, "origin": "BRIDGE",
             "aliases": [], "dest": None}
        for d in direct_dest(b, dests_of(fl)):
            cand.setdefault(d, []).append(f)
        key_of[(sec, name)] = f
        bfields.append(f)

    def rank(f, d):
        sec = f["section"]
        so = SECTION_FIRST.index(sec) if sec in SECTION_FIRST else \
            len(SECTION_FIRST) + sections.index(sec)
        return (f["name"] != d, so)

    for d, fs in cand.items():
        fs.sort(key=lambda f: rank(f, d))
        if d not in primary:
            primary[d] = fs[0]
            fs[0]["dest"] = d
            fs = fs[1:]
        for f in fs:
            if f["dest"] is None:
                f["mirror_of"] = d
                mirrors.setdefault(d, []).append(f)
    # ids: primaries first (MCINIT_F_<dest>), then the rest by name
    for f in bfields:
        if f["dest"] is not None:
            if f["dest"] in used_ids:
                sys.exit("gen-tables: id %s twice" % f["dest"])
            f["id"] = f["dest"]
            used_ids.add(f["id"])
    # 3. Megatron-LM dests with no home
    mfields = []
    for d in sorted(by_dest):
        if d in primary:
            continue
        fl = sorted({r["flag"] for r in by_dest[d]})
        f = {"section": "megatron", "name": d, "flags": fl, "origin": "MEGATRON",
             "aliases": [], "dest": d, "id": d}
        if d in used_ids:
            sys.exit("gen-tables: id %s twice" % d)
        used_ids.add(d)
        primary[d] = f
        key_of[("megatron", d)] = f
        mfields.append(f)
    for f in bfields:
        if "id" in f:
            continue
        i = f["name"] if f["name"] not in used_ids else "%s_%s" % (f["section"], f["name"])
        if i in used_ids:
            sys.exit("gen-tables: id %s twice" % i)
        f["id"] = i
        used_ids.add(i)
    for sec, name, target in aliases:
        f = key_of.get((sec, target))
        if f is None:
            sys.exit("gen-tables: alias %s.%s of unknown %s" % (sec, name, target))
        f["aliases"].append("%s.%s" % (sec, name))

    order = {s: i for i, s in enumerate(sections)}
    bfields.sort(key=lambda f: order.get(f["section"], 999))
    allf = fields + bfields + mfields

    # types and defaults of generated fields
    for f in allf:
        if f["origin"] == "SCHEMA":
            continue
        t = Type()
        if "bridge" in f:
            t.merge(annotation_type(f["bridge"]["type"]))
        d = f["dest"]
        if d is not None:
            for r in by_dest[d]:
                t.merge(flag_type(r))
        if f.get("mirror_of"):
            for r in by_dest[f["mirror_of"]]:
                t.merge(flag_type(r))
        if not t.alts:
            t.add("any")
        if d is not None:
            dv = py_default(newest_row(d))
            if isinstance(dv, float) and (dv != dv or dv in (float("inf"), float("-inf"))):
                dv = None
        else:
            try:
                dv = bridge_default(f["bridge"]["default"], t)
            except KeyError:
                dv = None  # computed by Bridge at run time
        if isinstance(dv, float) and (dv != dv or dv in (float("inf"), float("-inf"))):
            dv = None
        if not t.allows(dv):
            if dv is not None and "list" in " ".join(t.alts) and not isinstance(dv, list) \
                    and t.allows([dv]):
                pass
            if isinstance(dv, str) and "str" not in t.alts and "enum" not in t.alts and \
                    "dtype" not in t.alts:
                dv = None
            if not t.allows(dv):
                dv = None
        if dv is None:
            t.add("null")
        f["type"] = t
        f["def"] = json_text(dv)
        if f["def"] is None:
            f["def"] = "null"
            t.add("null")

    print("/* Generated by build-aux/gen-tables.py from %s, %s and %s: do not edit. */" %
          (fpath, bpath, spath))
    # Each row twice: MCINIT_FIELD_ROW with its strings as C literals (the
    # enum of config.h, and what tests/oracle reads), and MCINIT_FIELD_OFFS
    # with each string as 1 + its offset in the MCINIT_FIELD_TEXT blob (0
    # for NULL): mcinit_field_rows holds those, so that the loader
    # relocates none of its 1,200-odd rows at start (config.h).
    text = Blob()
    offs = []

    def off(s):
        return 0 if s is None else 1 + text.add(s)

    print("#ifdef MCINIT_FIELD_ROW")
    for f in allf:
        if f["origin"] == "SCHEMA":
            raw = f["schema"]["raw"]
            args = f["schema"]["args"]
            print("MCINIT_FIELD_ROW(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                  "MCINIT_FO_SCHEMA)" % (f["id"], raw[0], raw[1], raw[2], raw[3],
                                         cstr("|".join(f["flags"]) or None),
                                         raw[5], raw[6], raw[7], raw[8],
                                         cstr("|".join(f["aliases"]) or None),
                                         cstr(f["dest"])))
            offs.append((f["id"], off(raw[0]), off(raw[1]), off(c_unquote(args[2])),
                         off(c_unquote(args[3])), off("|".join(f["flags"]) or None),
                         raw[5], raw[6], off(c_unquote(args[7])), off(c_unquote(args[8])),
                         off("|".join(f["aliases"]) or None), off(f["dest"]), "SCHEMA"))
            continue
        t = f["type"]
        if f["origin"] == "BRIDGE":
            b = f["bridge"]
            cls = b["class"].rsplit(".", 1)[-1]
            help_ = "Megatron-Bridge %s.%s: %s." % (cls, f["name"], b["type"])
            if f.get("mirror_of"):
                help_ += " Set from the same Megatron-LM argument as %s." % (
                    primary[f["mirror_of"]]["section"] + "." + primary[f["mirror_of"]]["name"])
        else:
            help_ = "Megatron-LM argument %s (no Megatron-Bridge field)." % f["dest"]
        choices = "|".join(t.bound_choices()) or None
        print("MCINIT_FIELD_ROW(%s, %s, %s, %s, %s, %s, MCINIT_NOLIM, MCINIT_NOLIM, %s, %s, "
              "%s, %s, MCINIT_FO_%s)" % (
                  f["id"], f["section"], f["name"], cstr(t.text()), cstr(f["def"]),
                  cstr("|".join(f["flags"]) or None), cstr(choices), cstr(help_),
                  cstr("|".join(f["aliases"]) or None), cstr(f["dest"] or f.get("mirror_of")),
                  f["origin"]))
        offs.append((f["id"], off(f["section"]), off(f["name"]), off(t.text()), off(f["def"]),
                     off("|".join(f["flags"]) or None), "MCINIT_NOLIM", "MCINIT_NOLIM",
                     off(choices), off(help_), off("|".join(f["aliases"]) or None),
                     off(f["dest"] or f.get("mirror_of")), f["origin"]))
    print("#endif")
    text.print("MCINIT_FIELD_TEXT")
    print("#ifdef MCINIT_FIELD_OFFS")
    for o in offs:
        print("MCINIT_FIELD_OFFS(%s, %d, %d, %d, %d, %d, %s, %s, %d, %d, %d, %d, MCINIT_FO_%s)" % o)
    print("#endif")

    # a field's default where a release's flag defaults it otherwise than
    # the row above says: as the flag table says it (mflag_find below), the
    # first of the field's flags, in its order, that is a flag of that
    # release with the field's dest
    table = sorted(flags, key=lambda r: r["flag"].encode())  # mflags.inc's order
    rows_of = {}
    for r in table:
        rows_of.setdefault(r["flag"], []).append(r)

    def find_exact(flag, v):
        for r in rows_of.get(flag, []):
            if v in [x.strip() for x in r["refs"].split(",")]:
                return r
        return None

    def mflag_find(flag, v):
        """mcinit_mflag_find(flag, v, NULL) of lib/config/mflags.c."""
        m = find_exact(flag, v)
        if not flag.startswith("--no-"):
            return m
        pos = find_exact("--" + flag[5:], v)
        if pos is None or pos["kind"] != "boolean_optional":
            return m
        if flag[5:].startswith("no-"):
            x = find_exact("--" + flag[8:], v)
            if x is not None and x["dest"] == pos["dest"]:
                return m
        return pos

    print("#ifdef MCINIT_FIELD_VDEF")
    for f in allf:
        if f["origin"] == "SCHEMA":
            continue
        flags_text = "|".join(f["flags"])
        dest = f["dest"] or f.get("mirror_of")
        if not flags_text or dest is None:
            continue
        texts = {}  # text -> versions
        for v in vnames:
            text = f["def"]
            for fl in flags_text.split("|"):
                m = mflag_find(fl, v)
                if m is not None and m["dest"] == dest:
                    d = py_default(m)
                    text = "null" if d is None else json_text(d)
                    break
            if text != f["def"]:
                texts.setdefault(text, []).append(v)
        for text, vs in texts.items():
            print("MCINIT_FIELD_VDEF(%s, %s, %s)" % (f["id"], vmask(vers, ",".join(vs)),
                                                     cstr(text)))
    print("#endif")

    # enum aliases: MCINIT_F_<dest> for a schema row named otherwise, and
    # MCINIT_F_<bridge name> for a primary named after its dest
    print("#ifdef MCINIT_FIELD_ALIAS")
    seen = set(used_ids)
    for f in allf:
        for other in ([f["dest"]] if f["origin"] == "SCHEMA" else [f["name"]]):
            if other and other not in seen and re.fullmatch(r"[A-Za-z_]\w*", other):
                seen.add(other)
                print("MCINIT_FIELD_ALIAS(%s, %s)" % (other, f["id"]))
        if f["origin"] == "SCHEMA":
            for d in dests_of(f["flags"])[1:]:
                if d not in seen:
                    seen.add(d)
                    print("MCINIT_FIELD_ALIAS(%s, %s)" % (d, f["id"]))
    print("#endif")

    # The four lookups below hold offsets into one blob of their strings
    # (MCINIT_FIELD_STR, printed first), not pointers.
    blob = Blob()

    # "section.name" (and aliases) -> field, sorted for bisection
    keys = []
    for f in allf:
        keys.append(("%s.%s" % (f["section"], f["name"]), f["id"], 0))
        for a in f["aliases"]:
            keys.append((a, f["id"], 1))
    keys.sort(key=lambda k: k[0].encode())
    for i in range(1, len(keys)):
        if keys[i][0] == keys[i - 1][0]:
            sys.exit("gen-tables: key %s twice" % keys[i][0])

    # bare name -> the first field of that name in table order, sorted
    first = {}
    for f in allf:
        first.setdefault(f["name"], f["id"])

    # dest -> fields a flag sets (primary first, then mirrors), sorted by dest
    rows = []
    for d, f in primary.items():
        rows.append((d, 0, f["id"]))
        for n, m in enumerate(mirrors.get(d, [])):
            rows.append((d, n + 1, m["id"]))
    rows.sort(key=lambda r: (r[0].encode(), r[1]))

    # the dest column of the rows above -> the first row (in table order)
    # that has it, sorted by dest
    home = {}
    for f in allf:
        d = f["dest"] if f["origin"] == "SCHEMA" else f["dest"] or f.get("mirror_of")
        if d is not None:
            home.setdefault(d, f["id"])

    for k, _, _ in keys:
        blob.add(k)
    for n in first:
        blob.add(n)
    for d, _, _ in rows:
        blob.add(d)
    for d in home:
        blob.add(d)
    blob.print("MCINIT_FIELD_STR")

    print("#ifdef MCINIT_FIELD_KEY")
    for k, i, a in keys:
        print("MCINIT_FIELD_KEY(%d, %s, %d)%s" % (blob.add(k), i, a, ccomment(k)))
    print("#endif")
    print_hash("MCINIT_FIELD_KEY_HASH", [k for k, _, _ in keys])

    print("#ifdef MCINIT_FIELD_NAME")
    for n in sorted(first, key=lambda k: k.encode()):
        print("MCINIT_FIELD_NAME(%d, %s)%s" % (blob.add(n), first[n], ccomment(n)))
    print("#endif")
    print_hash("MCINIT_FIELD_NAME_HASH", sorted(first, key=lambda k: k.encode()))

    print("#ifdef MCINIT_FIELD_DEST")
    for d, n, i in rows:
        print("MCINIT_FIELD_DEST(%d, %s)%s" % (blob.add(d), i, ccomment(d)))
    print("#endif")
    print_hash("MCINIT_FIELD_DEST_HASH", [d for d, _, _ in rows])

    print("#ifdef MCINIT_FIELD_DEST_COLUMN")
    for d in sorted(home, key=lambda k: k.encode()):
        print("MCINIT_FIELD_DEST_COLUMN(%d, %s)%s" % (blob.add(d), home[d], ccomment(d)))
    print("#endif")
    print_hash("MCINIT_FIELD_DEST_COLUMN_HASH", sorted(home, key=lambda k: k.encode()))

    # Megatron-Bridge's releases, oldest first, and the fields not in all
    # of them: bit i of the mask is release i
    print("#ifdef MCINIT_BRIDGE_RELEASE")
    for n in bnames:
        print("MCINIT_BRIDGE_RELEASE(%s)" % cstr(n))
    print("#endif")
    # the Megatron-Core release each one pins (its directory's SOURCES.tsv),
    # in the same order: selecting one release selects the other
    print("#ifdef MCINIT_BRIDGE_CORE")
    for n in bnames:
        print("MCINIT_BRIDGE_CORE(%s)" % cstr(bridge_core(n, extras)))
    print("#endif")
    # a field that is a property of another in some release (0.5.1's
    # dataset.seq_length reads and writes dataset.sequence_length), with
    # the releases where it is
    print("#ifdef MCINIT_BRIDGE_ALIAS")
    for (sec, name, target), mask in release_aliases(bnames, read_tsv(bpath), extras):
        a, t = key_of.get((sec, name)), key_of.get((sec, target))
        if a is not None and t is not None and a is not t:
            print("MCINIT_BRIDGE_ALIAS(%#x, %s, %s)" % (mask, a["id"], t["id"]))
    print("#endif")
    print("#ifdef MCINIT_FIELD_BRIDGE")
    for k in sorted(bhave):
        f = key_of.get(k)
        if f is None or len(bhave[k]) == len(bnames):
            continue
        mask = sum(1 << i for i, n in enumerate(bnames) if n in bhave[k])
        print("MCINIT_FIELD_BRIDGE(%s, %#x)" % (f["id"], mask))
    print("#endif")
    # schema.def's rows whose type has no null where Bridge's annotation
    # allows None (validation.eval_iters: int | None): a ConfigContainer
    # takes null there as a value of its type
    print("#ifdef MCINIT_FIELD_BRIDGE_NULL")
    for f in fields:
        if "bridge" not in f:
            continue
        stype = f["schema"]["type"] or ""
        if "null" in stype.split("|"):
            continue
        if "null" in annotation_type(f["bridge"]["type"]).alts:
            print("MCINIT_FIELD_BRIDGE_NULL(%s)" % f["id"])
    print("#endif")

    # The fields Bridge computes itself (a dataclass field(init=False), the
    # facts' note): a ConfigContainer's from_yaml drops a file's key of one
    # (sanitize_dataclass_config), while an override or a merged file sets
    # it as an attribute
    print("#ifdef MCINIT_FIELD_BRIDGE_INIT_FALSE")
    for f in allf:
        b = f.get("bridge")
        if b is not None and "init=False" in (b["note"] or ""):
            print("MCINIT_FIELD_BRIDGE_INIT_FALSE(%s)" % f["id"])
    print("#endif")

    # Bridge's own default of every Bridge field: what a ConfigContainer
    # leaves a field it does not write at, where a field's default is a
    # Megatron-LM flag's (per release) or schema.def's.  A required field,
    # one Bridge computes and a default JSON cannot hold (inf) have none.
    print("#ifdef MCINIT_FIELD_BDEF")
    for f in allf:
        b = f.get("bridge")
        if b is None or b["default"] in ("", "required"):
            continue
        if f["origin"] == "SCHEMA" and f["schema"]["def"] == "null":
            continue  # mcinit derives it when null, as Megatron-LM does (params_dtype)
        t = annotation_type(b["type"]) if f["origin"] == "SCHEMA" else f["type"]
        try:
            dv = bridge_default(b["default"], t)
        except KeyError:
            continue
        text = json_text(dv)
        if text is not None:
            print("MCINIT_FIELD_BDEF(%s, %s)" % (f["id"], cstr(text)))
    print("#endif")

    # sections: every ConfigContainer section, mcinit's launch, megatron
    print("#ifdef MCINIT_SECTION")
    seen = []
    for s in sections:
        m = secmeta[s]
        kind = "REQUIRED" if m["default"] == "required" else \
            "OPTIONAL" if m["default"] == "None" else "FACTORY"
        strok = int(re.search(r"\bstr\b", m["type"]) is not None)
        if s == "env_vars":
            kind = "MAP"
        print("MCINIT_SECTION(%s, MCINIT_SK_%s, %d, %s)" % (cstr(s), kind, strok,
                                                           cstr(m["type"])))
        seen.append(s)
    for f in allf:
        if f["section"] not in seen:
            seen.append(f["section"])
            print("MCINIT_SECTION(%s, MCINIT_SK_%s, 0, NULL)" % (
                cstr(f["section"]), "MEGATRON" if f["section"] == "megatron" else "MCINIT"))
    print("#endif")


# ---------------------------------------------------------------- variants


def section_mros(bridge):
    """Each section's dataclass MRO, as the field table's notes give it."""
    mro = {}
    for b in bridge:
        m = re.search(r"dataclass MRO: ([^;]*)", b["note"])
        if m and b["section"] not in mro:
            mro[b["section"]] = [c.strip() for c in m.group(1).split(">")]
    return mro


def mro_position(base, mro, rel):
    """Where class `base` sits in the snapshot's MRO of its section; for a
    variant of another release (its MRO `rel`), where the class at the same
    place of that release's MRO sits when the two MROs have the same shape:
    a class that moved between releases (0.5.1's
    training.config.DataloaderConfig is data.base.DataloaderConfig now)
    keeps the fields it defines.  -1 when it is in neither."""
    if base in mro:
        return mro.index(base)
    short = [c.rsplit(".", 1)[-1] for c in mro]
    if rel and base in rel and len(rel) == len(mro) and \
            [c.rsplit(".", 1)[-1] for c in rel] == short:
        return rel.index(base)
    return -1


def gen_variants(vpath, bpath, extras=()):
    """The classes a section can hold besides its default (model, dataset,
    peft), with the fields where each differs from bridge-config-fields.tsv,
    and for each Bridge field of those sections the position in the
    section's MRO of the class that defines it.  extras: NAME=PATH variant
    tables of other Bridge releases; their classes the snapshot lacks join."""
    rows = read_tsv(vpath)
    have = {(r["section"], r["class"]) for r in rows}
    rel_mro = {}  # (section, class) of a release's variant -> that release's MRO
    for e in extras:
        path = e.split("=", 1)[1]
        rmro = section_mros(read_tsv(os.path.join(os.path.dirname(path),
                                                  "bridge-config-fields.tsv")))
        for r in read_tsv(path):
            if (r["section"], r["class"]) not in have:
                rows.append(r)
                rel_mro[(r["section"], r["class"])] = rmro.get(r["section"], [])
    bridge = read_tsv(bpath)
    mro = section_mros(bridge)
    print("/* Generated by build-aux/gen-tables.py from %s and %s: do not edit. */" %
          (vpath, bpath))
    classes = [(sec, m[0]) for sec, m in mro.items() if sec in ("model", "dataset", "peft")]
    for r in rows:
        key = (r["section"], r["class"])
        if key not in classes:
            classes.append(key)
    base = {(sec, m[0]): m[0] for sec, m in mro.items()}
    for r in rows:
        base[(r["section"], r["class"])] = r["base"]
    print("#ifdef MCINIT_VCLASS")
    for sec, cls in classes:
        pos = mro_position(base[(sec, cls)], mro.get(sec, []), rel_mro.get((sec, cls)))
        print("MCINIT_VCLASS(%s, %s, %d)" % (cstr(sec), cstr(cls), pos))
    print("#endif")
    # The variant fields and the MRO rows hold offsets into one blob of
    # their strings (MCINIT_VSTR, printed first), NOSTR for none.
    blob = Blob()

    def off(text):
        return "MCINIT_NOSTR" if text is None else "%d" % blob.add(text)

    vfields = []
    for i, r in enumerate(rows):
        t = annotation_type(r["type"])
        try:
            dv = bridge_default(r["default"], t)
        except KeyError:
            dv = None
        if not t.alts:
            t.add("any")
        t.add("null")  # what Bridge computes at run time, mcinit leaves null
        if not t.allows(dv):
            dv = None
        dj = json_text(dv) or "null"
        vfields.append("MCINIT_VFIELD(%d, %s, %s, %s, %s)%s" % (
            classes.index((r["section"], r["class"])), off(r["field"]), off(t.text()),
            off("|".join(t.choices) if t.choices else None), off(dj), ccomment(r["field"])))
    vmro = []
    for b in bridge:
        if b["section"] in ("model", "dataset", "peft") and b["field"] and \
                b["type"] != "property" and b["class"] in mro[b["section"]]:
            chain = mro[b["section"]]
            pos = chain.index(b["class"])
            # A field a subclass redeclares is still a field of the ancestor
            # that declared it first (the extractor's "redeclared (same
            # default as X)"): a nested config of that ancestor's class
            # (a builder-style model's `transformer`) holds it.
            # ("overrides X default V": redeclared with another default,
            # V the one a config of X's class starts from)
            m = re.search(r"(?:redeclared \([^)]*?\b|overrides )(megatron\.[\w.]+)",
                          b["note"] or "")
            origin = chain.index(m.group(1)) if m and m.group(1) in chain else pos
            od = re.search(r"overrides megatron\.[\w.]+ default (\S+?)(?:;|$)", b["note"] or "")
            odj = None
            if od and origin != pos:
                try:
                    odj = json_text(bridge_default(od.group(1), annotation_type(b["type"])))
                except (KeyError, ValueError):
                    odj = None
            vmro.append("MCINIT_VMRO(%s, %s, %d, %d, %s)%s" % (
                off(b["section"]), off(b["field"]), pos, origin, off(odj),
                ccomment("%s.%s" % (b["section"], b["field"]))))
    # A class's field whose annotation names a class of its section's MRO
    # (a builder-style model config's `transformer: TransformerConfig`)
    # holds a config of that class: the fields declared there and further
    # down the chain.  The most derived class of that name (Bridge's
    # TransformerConfig, which extends Megatron-Core's).
    for r in rows:
        chain = mro.get(r["section"], [])
        words = set(re.findall(r"[A-Za-z_][\w.]*", r["type"] or ""))
        for i, c in enumerate(chain):
            if i > 0 and (c in words or c.rsplit(".", 1)[-1] in words):
                vmro.append("MCINIT_VNEST(%d, %s, %d)%s" % (
                    classes.index((r["section"], r["class"])), off(r["field"]), i,
                    ccomment("%s.%s" % (r["class"].rsplit(".", 1)[-1], r["field"]))))
                break
    blob.print("MCINIT_VSTR")
    print("#ifdef MCINIT_VFIELD")
    for v in vfields:
        print(v)
    print("#endif")
    print("#ifdef MCINIT_VMRO")
    for v in vmro:
        if v.startswith("MCINIT_VMRO("):
            print(v)
    print("#endif")
    print("#ifdef MCINIT_VNEST")
    for v in vmro:
        if v.startswith("MCINIT_VNEST("):
            print(v)
    print("#endif")


# ---------------------------------------------------------------- recipes


def gen_recipes(rpath, extras=()):
    """Bridge's recipes with the values they write as literals: main's
    (rpath) and each release's (NAME=PATH, oldest first, as the other
    per-release tables): one row per recipe and values, with the releases
    whose recipe of that name has them (a release's own recipes, not main's,
    answer --bridge-recipe under --bridge-version)."""
    rels = [tuple(e.split("=", 1)) for e in extras] + [("main", rpath)]
    print("/* Generated by build-aux/gen-tables.py from %s and the releases' tables: "
          "do not edit. */" % rpath)
    # the rows hold offsets into one blob of their strings (MCINIT_RSTR,
    # printed first), MCINIT_NOSTR for none: nothing to relocate
    blob = Blob()

    def off(text):
        return "MCINIT_NOSTR" if not text else "%d" % blob.add(text)

    masks, order = {}, []
    for i, (_, p) in enumerate(rels):
        rows = read_tsv(p)
        seen = set()
        for r in rows:
            if r["function"] in seen:
                continue
            seen.add(r["function"])

            def num(k):
                v = r[k].strip()
                if not re.fullmatch(r"[0-9]+", v):
                    return "-1"
                if int(v) > 0x7FFFFFFF:
                    sys.exit("gen-tables: recipe %s: %s %s is over an int" % (r["function"], k, v))
                return v

            # checkpoint.pretrained_checkpoint: -1 not known, 0 None, 1 the path
            pc = r.get("pretrained_checkpoint", "")
            ck = "-1" if pc == "" else "0" if pc == "None" else "1"
            k = (r["function"], r["provider"], r["hf_model"], num("tensor_parallel"),
                 num("pipeline_parallel"), num("context_parallel"), num("expert_parallel"),
                 num("seq_length"), num("dataset_seq_length"), num("global_batch_size"),
                 num("micro_batch_size"), r["dataset_class"], r["peft_class"], ck,
                 pc if ck == "1" else "")
            if k not in masks:
                masks[k] = 0
                order.append(k)
            masks[k] |= 1 << i
    order.sort(key=lambda k: k[0].encode())
    out = []
    for k in order:
        out.append("MCINIT_RECIPE(%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, "
                   "%#x)%s" % (off(k[0]), off(k[1]), off(k[2]), k[3], k[4], k[5], k[6], k[7],
                               k[8], k[9], k[10], off(k[11]), off(k[12]), k[13], off(k[14]),
                               masks[k], ccomment(k[0])))
    blob.print("MCINIT_RSTR")
    print("#ifdef MCINIT_RECIPE")
    for o in out:
        print(o)
    print("#endif")


# ---------------------------------------------------------------- Megatron-LM checks

# what a row of PORT.tsv can do to a check: replace its guard, condition or
# message, add a `when`, name the rule that implements it, the reason it
# cannot be decided (`no`), its severity, or the releases that have it
PORT_ACTIONS = ("guard", "cond", "when", "msg", "rule", "no", "sev", "versions")
RELEASE = re.compile(r"(r[0-9]+\.[0-9]+|main)\+?")


def tsv_body(path):
    """(line number, cells) for each row of PATH after its header line, with
    comment lines left out.  Unlike read_tsv: a blank line is a row (of one
    empty cell), so that a stray one in PORT.tsv is an unknown action rather
    than nothing; and lines end at "\n" alone, so a stray "\r" stays in its
    cell (where cstr shows it) instead of ending the row."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            lines = f.read().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        sys.exit("gen-tables: %s: %s" % (path, e))
    if lines[-1] == "":
        lines.pop()
    if not lines:
        # a file without even a header is a truncated file, not an empty table
        sys.exit("gen-tables: %s: no header line" % path)
    return [(i, ln.split("\t")) for i, ln in enumerate(lines[1:], 2)
            if not ln.startswith("#")]


def release_mask(s, where, cid):
    """A `versions` port text -> a mask of enum mcinit_mversion bits:
    "r0.18,r0.19,main" names each release, "r0.18+" reads "r0.18 and every
    newer one" (the bits grow with the version); no text, every release."""
    if s == "":
        return "MCINIT_MV_ALL"
    out = []
    for v in s.split(","):
        if not RELEASE.fullmatch(v):
            sys.exit("gen-tables: %s: bad release %r in the versions of %s" % (where, v, cid))
        b = "MCINIT_MV_" + vid(v)
        out.append("(MCINIT_MV_ALL & ~(%s - 1u))" % b if v.endswith("+") else b)
    return "(" + " | ".join(out) + ")"


# The code a row reports under: one per source file (or folder) of
# Megatron-LM, in this order, MC200 + i for errors, MC250 + i for warnings;
# a row of no listed source counts as the first.
MCHECK_SOURCES = ["megatron/training/arguments.py", "megatron/core/transformer/",
                  "megatron/core/model_parallel_config.py", "megatron/core/optimizer/",
                  "megatron/core/distributed/", "megatron/core/num_microbatches_calculator.py",
                  "megatron/training/config/"]


# offline verdicts of a check row that mcinit can decide: from the config
# ("yes"), or once the job declares its TE / torch versions ("target": the
# row's gates read launch.te_version / launch.torch_version, undeclared ones
# are noted)
OFFLINE = ("yes", "target")


def mcheck_code(cid, kind, sev):
    """kind: assert, raise or warn; sev: the port's severity ("" for none)."""
    warn = kind == "warn"
    if sev:
        warn = sev != "error"
    src = next((i for i, p in enumerate(MCHECK_SOURCES) if cid.startswith(p)), 0)
    return "MC%d" % ((250 if warn else 200) + src)


def gen_mlocals(locpath, fns):
    """The locals of Megatron's checked functions (LOCALS.tsv: function,
    name, value, versions), as MCINIT_MLOCAL rows grouped by function."""
    out = []
    for n, c in tsv_body(locpath):
        fn, name, value, rel = (c + [""] * 4)[:4]
        where = "%s:%d" % (locpath, n)
        if fn not in fns:
            sys.exit("gen-tables: %s: no check is in %s" % (where, fn))
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) or not value:
            sys.exit("gen-tables: %s: a local is a name and a value" % where)
        out.append((fn, "%" + name, value, release_mask(rel, where, name)))
    out.sort(key=lambda l: l[0].encode())
    print("#ifdef MCINIT_MLOCAL")
    for fn, name, value, mask in out:
        print("MCINIT_MLOCAL(%s, %s, %s, %s)" % (cstr(fn), cstr(name), cstr(value), mask))
    print("#endif")


def gen_mchecks(cpath, ppath, lpath, epath=None, locpath=None):
    port = {}  # (id, action) -> (text, "PORT:line")
    pids = {}  # id -> "PORT:line" of its first row, in file order
    for n, c in tsv_body(ppath):
        where = "%s:%d" % (ppath, n)
        cid, action, text = (c + ["", ""])[:3]
        pids.setdefault(cid, where)
        if action not in PORT_ACTIONS:
            sys.exit("gen-tables: %s: unknown action %r for %s" % (where, action, cid))
        if (cid, action) in port:
            sys.exit("gen-tables: %s: two %s rows for %s (the first at %s)" %
                     (where, action, cid, port[(cid, action)][1]))
        port[(cid, action)] = (text, where)
    vetted = {}
    for n, c in tsv_body(lpath):
        vetted[c[0]] = len(c) > 1 and re.fullmatch(r"MC[0-9]{3}", c[1]) is not None

    seen = set()
    fns = set()
    runs = []  # (code, row): the rows a table rule evaluates
    guards = {}  # guard text -> the first row with it, whose parsed tree all share
    nrows = 0
    print("#ifdef MCINIT_MCHECK")
    for path in [cpath] + ([epath] if epath else []):
        for n, c in tsv_body(path):
            cid, fn, kind, guard, cond, msg, _fields, offline, note = (c + [""] * 9)[:9]
            seen.add(cid)
            fns.add(fn)

            def ported(action, fact=""):
                # an empty guard, cond or msg in PORT.tsv replaces the fact
                return port[(cid, action)][0] if (cid, action) in port else fact

            ver, vwhere = port.get((cid, "versions"), ("", None))
            code = mcheck_code(cid, kind, ported("sev"))
            # a check missing from the ledger is not vetted, like one whose
            # row names no code
            vet = vetted.get(cid, False)
            gsame = guards.setdefault(ported("guard", guard), nrows)
            print("MCINIT_MCHECK(%s, %s, %s, %s, %s, %s, %s, %d, %s, %s, %s, %s, %s, %d, %s, %d)" % (
                cstr(cid), cstr(fn), cstr(kind), cstr(ported("guard", guard)),
                cstr(ported("cond", cond)), cstr(ported("when") or None),
                cstr(ported("msg", msg)), offline in OFFLINE, cstr(note),
                cstr(ported("rule") or None), cstr(ported("no") or None),
                cstr(ported("sev") or None), release_mask(ver, vwhere, cid), vet, cstr(code),
                gsame))
            # what mcinit_port_status can give the table's code: no rule
            # of its own, no reason it is not ported, decidable offline,
            # vetted, with a condition (whether its names resolve is the
            # C resolver's to say)
            if not ported("rule") and not ported("no") and offline in OFFLINE and vet and \
                    (ported("when") or ported("cond", cond)):
                runs.append((code, nrows))
            nrows += 1
    print("#endif")
    # code -> the rows above it may evaluate, by code, each code's in table order
    print("#ifdef MCINIT_MCHECK_RUN")
    for code, row in sorted(runs):
        print("MCINIT_MCHECK_RUN(%s, %d)" % (cstr(code), row))
    print("#endif")
    if locpath:
        gen_mlocals(locpath, fns)
    for cid, where in pids.items():
        if cid not in seen:
            sys.exit("gen-tables: %s: %s is not a check of %s" %
                     (where, cid, " or ".join([cpath] + ([epath] if epath else []))))


# ---------------------------------------------------------------- Bridge checks

def class_section_map(bridge):
    """Short class name -> the ConfigContainer section it is the class of."""
    out = {}
    for b in bridge:
        if b["section"] != "ConfigContainer" or not b["note"].startswith("section"):
            continue
        for w in re.findall(r"[A-Za-z_]\w*", b["type"]):
            if w[0].isupper() and w not in ("Optional", "Union"):
                out.setdefault(w, b["field"])
    return out


def section_mros(bridge):
    """section -> its default class's MRO (full names), from the notes."""
    mro = {}
    for b in bridge:
        m = re.search(r"dataclass MRO: ([^;]*)", b["note"])
        if m and b["section"] not in mro and b["section"] != "ConfigContainer":
            mro[b["section"]] = [c.strip() for c in m.group(1).split(">")]
    return mro


def class_ancestors(bridge, variant_paths):
    """(section, class) -> the short names of the class and its ancestors:
    a section's default class by its MRO, a variant class by its base's
    place in that MRO and the classes it "also inherits fields from"."""
    mro = section_mros(bridge)
    out = {}
    for sec, chain in mro.items():
        out[(sec, chain[0])] = [c.rsplit(".", 1)[-1] for c in chain]
    for path in variant_paths:
        for r in read_tsv(path):
            key = (r["section"], r["class"])
            chain = mro.get(r["section"], [])
            anc = [r["class"]]
            m = re.search(r"also inherits fields from ([^|;]*)", r["note"])
            if m:
                anc += [c.strip() for c in m.group(1).split(",")]
            if r["base"] in chain:
                anc += chain[chain.index(r["base"]):]
            elif r["base"]:
                anc.append(r["base"])
            names = []
            for c in anc:
                n = c.rsplit(".", 1)[-1]
                if n not in names:
                    names.append(n)
            old = out.get(key, [])
            out[key] = old + [n for n in names if n not in old]
    return out


def normal_local(name):
    """A local's name as the evaluator asks for it: `self.a.b` is "a.b",
    `config.a` is "a", a bare name is "%name"."""
    if name == "(call)":
        return name
    for p in ("self.", "config."):
        if name.startswith(p):
            return name[len(p):]
    return name if "." in name else "%" + name


def bcheck_code(kind, sev, sec):
    """The code a Bridge row reports under, as mcinit_bcheck_code: MC300
    (MC350 a warning) for ConfigContainer's and the module's functions,
    MC301 (MC351) for a section's own method."""
    warn = kind == "warn"
    if sev:
        warn = sev != "error"
    return "MC%d" % ((350 if warn else 300) + (1 if sec else 0))


def gen_bchecks(cpath, ppath, lpath, locpath, bpath, vpath, extras):
    rels = [tuple(e.split("=", 1)) for e in extras] + [("main", cpath)]
    names = [n for n, _ in rels]
    bit = {n: 1 << i for i, n in enumerate(names)}
    bridge = read_tsv(bpath)
    for n, p in rels[:-1]:
        bridge += read_tsv(os.path.join(os.path.dirname(p), "bridge-config-fields.tsv"))
    secof = class_section_map(bridge)

    port, pids = {}, {}
    for n, c in tsv_body(ppath):
        where = "%s:%d" % (ppath, n)
        cid, action, text = (c + ["", ""])[:3]
        pids.setdefault(cid, where)
        if action not in PORT_ACTIONS + ("dup",) or action == "versions":
            sys.exit("gen-tables: %s: unknown action %r for %s" % (where, action, cid))
        if (cid, action) in port:
            sys.exit("gen-tables: %s: two %s rows for %s" % (where, action, cid))
        port[(cid, action)] = text
    vetted = {}
    for n, c in tsv_body(lpath):
        vetted[c[0]] = len(c) > 1 and re.fullmatch(r"MC[0-9]{3}", c[1]) is not None

    # one row per distinct check, in main's order, then the older releases'
    rows, index = [], {}
    for rel, path in reversed(rels):
        for n, c in tsv_body(path):
            cid, fn, kind, guard, cond, msg, _fields, offline, note = (c + [""] * 9)[:9]
            key = (fn, kind, guard, cond, msg)
            if key not in index:
                index[key] = len(rows)
                rows.append({"id": cid if rel == "main" else "%s:%s" % (rel, cid), "fn": fn,
                             "kind": kind, "guard": guard, "cond": cond, "msg": msg,
                             "offline": offline == "yes", "note": note, "ids": {}})
            rows[index[key]]["ids"][rel] = cid
    seen = {r["id"] for r in rows}
    for cid, where in pids.items():
        if cid not in seen:
            sys.exit("gen-tables: %s: %s is not a check of %s" % (where, cid, cpath))
    for (cid, action), text in port.items():
        if action == "dup" and text not in seen:
            sys.exit("gen-tables: %s: dup of %s, which is no check" % (cid, text))

    print("/* Generated by build-aux/gen-tables.py from %s and the releases' tables: "
          "do not edit. */" % cpath)
    print("#ifndef MCINIT_BCHECK_NREL")
    print("#define MCINIT_BCHECK_NREL %d" % len(names))
    print("#endif")
    # the locals, grouped by function (each function's in file order), so
    # that a row looks among its own function's only
    fns = {r["fn"] for r in rows}
    locals_ = []
    for n, c in tsv_body(locpath):
        fn, name, value, rel = (c + [""] * 4)[:4]
        if fn not in fns:
            sys.exit("gen-tables: %s:%d: no check is in %s" % (locpath, n, fn))
        if rel and any(x not in bit for x in rel.split(",")):
            sys.exit("gen-tables: %s:%d: unknown release in %r" % (locpath, n, rel))
        locals_.append((fn, name, value, rel))
    locals_.sort(key=lambda l: l[0].encode())
    span = {}
    for i, l in enumerate(locals_):
        first, count = span.get(l[0], (i, 0))
        span[l[0]] = (first, count + 1)

    runs = []  # (code, row): the rows a table rule evaluates
    print("#ifdef MCINIT_BCHECK")
    for i, r in enumerate(rows):
        cid = r["id"]
        cls = r["fn"].split(".")[0] if "." in r["fn"] else ""
        sec = "" if cls in ("", "ConfigContainer") else secof.get(cls)
        if sec is None:
            sys.exit("gen-tables: %s: no section has class %s" % (cid, cls))

        def ported(action, fact=""):
            return port[(cid, action)] if (cid, action) in port else fact

        mask = "|".join("%#x" % bit[n] for n in names if n in r["ids"])
        ids = ", ".join(cstr(r["ids"].get(n)) for n in names)
        print("MCINIT_BCHECK(%s, %s, %s, %s, %s, %s, %s, %s, %s, %d, %s, %s, %s, %s, %s, %s, "
              "%d, MCINIT_BIDS(%s), %d, %d)" % (
                  cstr(cid), cstr(r["fn"]), cstr(sec), cstr(cls), cstr(r["kind"]),
                  cstr(ported("guard", r["guard"])), cstr(ported("cond", r["cond"])),
                  cstr(ported("when") or None), cstr(ported("msg", r["msg"])), r["offline"],
                  cstr(r["note"]), cstr(ported("rule") or None), cstr(ported("dup") or None),
                  cstr(ported("no") or None), cstr(ported("sev") or None), mask,
                  vetted.get(cid, False), ids, *span.get(r["fn"], (0, 0))))
        # what mcinit_port_status can give the table's code (as for
        # Megatron-LM's rows: whether its names resolve is the C resolver's
        # to say, and the ledger's test holds it to the vetted code)
        if not ported("rule") and not ported("dup") and not ported("no") and r["offline"] \
                and vetted.get(cid, False) and (ported("when") or ported("cond", r["cond"])):
            runs.append((bcheck_code(r["kind"], ported("sev"), sec), i))
    print("#endif")
    print("#ifdef MCINIT_BCHECK_RUN")
    for code, row in sorted(runs):
        print("MCINIT_BCHECK_RUN(%s, %d)" % (cstr(code), row))
    print("#endif")

    print("#ifdef MCINIT_BLOCAL")
    for fn, name, value, rel in locals_:
        mask = "|".join("%#x" % bit[x] for x in rel.split(",")) if rel else \
            "%#x" % ((1 << len(names)) - 1)
        print("MCINIT_BLOCAL(%s, %s, %s, %s)" % (cstr(fn), cstr(normal_local(name)),
                                                cstr(value), mask))
    print("#endif")

    print("#ifdef MCINIT_BISA")
    vpaths = [vpath] + [os.path.join(os.path.dirname(p), "bridge-variant-fields.tsv")
                        for _, p in rels[:-1]]
    mro = section_mros(bridge)
    for (sec, cls), anc in sorted(class_ancestors(bridge, vpaths).items()):
        print("MCINIT_BISA(%s, %s, %s, %d)" % (cstr(sec), cstr(cls), cstr("|".join(anc)),
                                               mro.get(sec, [None])[0] == cls))
    print("#endif")


# ---------------------------------------------------------------- mixed-precision presets

TORCH_DTYPES = {"torch.bfloat16": "bf16", "torch.float16": "fp16", "torch.half": "fp16",
                "torch.float32": "fp32", "torch.float": "fp32"}


def release_rows(path, extras, key):
    """The rows of main's table (path) and each release's (NAME=PATH,
    oldest first), one per key(path, row): [(key, mask of the releases
    that have it)] in the order first seen."""
    rels = [tuple(e.split("=", 1)) for e in extras] + [("main", path)]
    rows, order = {}, []
    for i, (_, p) in enumerate(rels):
        for r in read_tsv(p):
            k = key(p, r)
            if k not in rows:
                rows[k] = 0
                order.append(k)
            rows[k] |= 1 << i
    print("/* Generated by build-aux/gen-tables.py from %s and the releases' tables: "
          "do not edit. */" % path)
    return [(k, rows[k]) for k in order]


def gen_bprecision(path, extras):
    """Bridge's mixed-precision presets (extract-facts.py bridge-mixed-precision)
    of main (path) and each release (NAME=PATH, oldest first): one row per
    field a preset sets, its value as JSON, and the releases that have it."""
    def key(p, r):
        v = r["value"]
        if v in TORCH_DTYPES:
            return (r["preset"], r["field"], json.dumps(TORCH_DTYPES[v]))
        try:
            return (r["preset"], r["field"], json.dumps(ast.literal_eval(v)))
        except (ValueError, SyntaxError):
            sys.exit("gen-tables: %s: preset %s: %s = %s is no literal" %
                     (p, r["preset"], r["field"], v))
    for k, mask in release_rows(path, extras, key):
        print("MCINIT_BPRECISION(%s, %s, %s, %#x)" % (cstr(k[0]), cstr(k[1]), cstr(k[2]), mask))


LOADER_RULES = ("allow-prefix", "allow-exact", "allow-private", "deny-target", "deny-field",
                "keeps-unknown-keys", "etp-one-with-ep")


def gen_bloader(path, extras):
    """How Bridge's loader treats what a config names (extract-facts.py
    bridge-loader) in main (path) and each release (NAME=PATH, oldest
    first): one row per rule and value, with the releases that have it."""
    def key(p, r):
        if r["rule"] not in LOADER_RULES:
            sys.exit("gen-tables: %s: unknown rule %s" % (p, r["rule"]))
        return (r["rule"], r["value"])
    for k, mask in release_rows(path, extras, key):
        print("MCINIT_BLOADER(MCINIT_BL_%s, %s, %#x)" % (k[0].upper().replace("-", "_"),
                                                      cstr(k[1]), mask))


def main():
    what = sys.argv[1]
    if what == "mversions":
        gen_mversions(sys.argv[2])
    elif what == "mentries":
        gen_mentries(sys.argv[2], sys.argv[3])
    elif what == "mflags":
        gen_mflags(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5])
    elif what == "recipes":
        gen_recipes(sys.argv[2], sys.argv[3:])
    elif what == "variants":
        gen_variants(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif what == "fields":
        gen_fields(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], sys.argv[6], sys.argv[7:])
    elif what == "mchecks":
        if len(sys.argv) not in (5, 6, 7):
            sys.exit("usage: gen-tables.py mchecks CHECKS.tsv PORT.tsv LEDGER.tsv [EXTRA.tsv "
                     "[LOCALS.tsv]]")
        # EXTRA.tsv and LOCALS.tsv are optional; an empty argument is none
        gen_mchecks(sys.argv[2], sys.argv[3], sys.argv[4],
                    (sys.argv[5] if len(sys.argv) > 5 else None) or None,
                    (sys.argv[6] if len(sys.argv) > 6 else None) or None)
    elif what == "bprecision":
        gen_bprecision(sys.argv[2], sys.argv[3:])
    elif what == "bloader":
        gen_bloader(sys.argv[2], sys.argv[3:])
    elif what == "bchecks":
        if len(sys.argv) < 8:
            sys.exit("usage: gen-tables.py bchecks CHECKS.tsv PORT.tsv LEDGER.tsv LOCALS.tsv "
                     "BRIDGE.tsv VARIANTS.tsv [NAME=CHECKS.tsv ...]")
        gen_bchecks(*sys.argv[2:8], sys.argv[8:])
    else:
        sys.exit("gen-tables: unknown table %r" % what)


if __name__ == "__main__":
    main()
