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


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fields", default=os.path.join(
        TOP, "data", "releases", "bridge-0.6.2+core-0.19.2", "bridge-config-fields.tsv"))
    ap.add_argument("--dir", default=os.path.join(TOP, "tests", "bridge", "0.6.2"))
    ap.add_argument("--dump", nargs=2, action="append", metavar=("FILE", "WS"))
    ap.add_argument("--fields-inc", metavar="INC",
                    help="mcinit's generated field table (_build/lib/config/fields.inc): "
                         "the choices of fields whose annotation names a class")
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
