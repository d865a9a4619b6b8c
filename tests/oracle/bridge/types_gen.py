#!/usr/bin/env python3
"""types_gen.py [--fields TSV] [--dump FILE WS]... — judge_ovs.py lines that
give each field whose released annotation allows None, or is a Literal,
each value of its type's edges: null, every literal, a value of another
type that spells a literal (1 as "1", 1.0, true), and a non-member.  From
the facts (data/releases/bridge-0.6.2+core-0.19.2/bridge-config-fields.tsv:
Optional[...], X | None, Union[..., None], Literal[...]), not from a list
of cases.  Only fields of the sections that a dump holds as a mapping (a
None section is another kind of input: merge_apply.py's).

  types_gen.py | judge_ovs.py > rows.tsv      Bridge's verdicts, as
                                              mutations.tsv rows

--other: instead, each field whose annotation is a plain int, float, str
or bool (Optional[...] of one too) given values of the other types, which
Bridge's dataclasses keep unchecked (issue 38's class 3): a finite
non-integral float, inf, -inf, nan, 1e309 (written as JSON's Infinity,
NaN and 1e309, which judge_ovs.py and as-hydra-edit.py read as Python
floats), a numeric string, a non-numeric string, true.  --sample N
--seed S: N of those cases per dump, drawn at random.

Not part of the build."""
import argparse
import ast
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.join(HERE, "..", "..", "..")


def split_top(s, sep):
    out, depth, cur = [], 0, ""
    for c in s:
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
        if c == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
    out.append(cur)
    return [x.strip() for x in out if x.strip()]


def parts(ann):
    """(allows None, the literals or None) of an annotation."""
    ann = ann.strip()
    none, lits = False, None
    alts = split_top(ann, "|")
    if len(alts) > 1:
        for a in alts:
            n, l = parts(a)
            none |= n
            if l is not None:
                lits = (lits or []) + l
        return none, lits
    m = re.fullmatch(r"(\w+(?:\.\w+)*)\[(.*)\]", ann, re.S)
    if not m:
        return ann in ("None", "NoneType"), None
    head, inner = m.group(1).rsplit(".", 1)[-1], m.group(2)
    if head == "Optional":
        _, l = parts(inner)
        return True, l
    if head == "Union":
        for a in split_top(inner, ","):
            n, l = parts(a)
            none |= n
            if l is not None:
                lits = (lits or []) + l
        return none, lits
    if head == "Literal":
        vals = []
        for p in split_top(inner, ","):
            try:
                vals.append(ast.literal_eval(p))
            except (ValueError, SyntaxError):
                vals.append(p)
        return False, vals
    return False, None


def word(v):
    """A judge_ovs.py value: JSON, a plain string where JSON would not read it
    back as the same string."""
    if isinstance(v, str):
        try:
            json.loads(v)
        except ValueError:
            if v and " " not in v:
                return v
        return json.dumps(v)
    return json.dumps(v)


def cases(section, field, ann, choices=None):
    none, lits = parts(ann)
    if lits is None and choices:
        # a type the annotation names (an Enum, a str Megatron's flag limits
        # to choices): mcinit's field table knows its choices
        none, lits = True, choices
    out = []
    if none or lits is not None:
        out.append(("null", None))
    for v in lits or []:
        out.append(("lit_%s" % v, v))
    if lits:
        if all(isinstance(v, int) and not isinstance(v, bool) for v in lits):
            v = lits[-1]
            out += [("as_str", str(v)), ("as_float", float(v)), ("as_bool", bool(v)),
                    ("nonmember", max(lits) + 7)]
        else:
            out.append(("nonmember", "zz_not_a_choice"))
    return out


def plain(ann):
    """The plain scalar type of an annotation (int, float, str, bool), also
    under Optional[...] / X | None; None for any other annotation."""
    alts = [a for a in split_top(ann.strip(), "|") if a not in ("None", "NoneType")]
    if len(alts) == 1:
        a = alts[0]
        m = re.fullmatch(r"(?:typing\.)?Optional\[(.*)\]", a, re.S)
        if m:
            a = m.group(1).strip()
        if a in ("int", "float", "str", "bool"):
            return a
    return None


# (case name, JSON text judge_ovs.py reads, the Python type of the value)
OTHER = [("fraction", "1.5", "float"), ("inf", "Infinity", "float"),
         ("minf", "-Infinity", "float"), ("nan", "NaN", "float"),
         ("e309", "1e309", "float"), ("numstr", '"8"', "str"),
         ("word", "zz_word", "str"), ("true", "true", "bool"), ("int", "8", "int")]


def other_cases(ann):
    t = plain(ann)
    if t is None:
        return []
    # an int where a float is declared is a float to every reader; a bool
    # where an int is, an int (the cases of the other generator)
    same = {"int": ("int",), "float": ("float", "int"), "str": ("str",),
            "bool": ("bool",)}[t]
    return [(n, v) for n, v, ty in OTHER if ty not in same and not (t == "int" and ty == "bool")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fields", default=os.path.join(
        TOP, "data", "releases", "bridge-0.6.2+core-0.19.2", "bridge-config-fields.tsv"))
    ap.add_argument("--dir", default=os.path.join(TOP, "tests", "bridge", "0.6.2"))
    ap.add_argument("--dump", nargs=2, action="append", metavar=("FILE", "WS"))
    ap.add_argument("--fields-inc", metavar="INC",
                    help="mcinit's generated field table (_build/lib/config/fields.inc): "
                         "the choices of fields whose annotation names a class")
    ap.add_argument("--other", action="store_true")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    choices = {}
    if a.fields_inc:
        for line in open(a.fields_inc):
            m = re.match(r'MCINIT_FIELD_ROW\((\w+), (\w+), (\w+), "[^"]*", (?:"(?:[^"\\]|\\.)*"|NULL), '
                         r'(?:"[^"]*"|NULL), \w+, \w+, "([^"]*)"', line)
            if m:
                choices[(m.group(2), m.group(3))] = m.group(4).split("|")
    dumps = a.dump or [["llama3_8b_pretrain_2gpu_h100_bf16.yaml", "2"]]
    rows = []
    with open(a.fields) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            r = dict(zip(head, line.rstrip("\n").split("\t")))
            if r["section"] in ("ConfigContainer", "env_vars") or r["type"] == "property":
                continue
            rows.append(r)
    for dump, ws in dumps:
        d = yaml.safe_load(open(os.path.join(a.dir, dump)))
        tag = re.sub(r"_pretrain.*|_sft.*|_peft.*", "", dump)
        if a.other:
            out = []
            for r in rows:
                sec = d.get(r["section"])
                if not isinstance(sec, dict):
                    continue
                for name, v in other_cases(r["type"]):
                    out.append("ot_%s_%s_%s_%s %s %s %s.%s=%s" % (
                        tag, r["section"], r["field"], name, dump, ws, r["section"],
                        r["field"], v))
            if a.sample:
                import random
                out = sorted(random.Random(a.seed).sample(out, min(a.sample, len(out))))
            print("\n".join(out))
            continue
        for r in rows:
            sec = d.get(r["section"])
            if not isinstance(sec, dict):
                continue
            for name, v in cases(r["section"], r["field"], r["type"],
                                 choices.get((r["section"], r["field"]))):
                print("ty_%s_%s_%s_%s %s %s %s.%s=%s" % (
                    tag, r["section"], r["field"], name.replace(" ", "_"), dump, ws,
                    r["section"], r["field"], word(v)))


if __name__ == "__main__":
    main()
