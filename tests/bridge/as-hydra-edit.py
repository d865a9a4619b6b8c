#!/usr/bin/env python3
"""as-hydra-edit.py WORD... — each `section.key=JSON` word of mutations.tsv (a
change the oracle makes to the dump's YAML, tests/oracle/bridge/judge_ovs.py)
as the Hydra override that makes the same change on Bridge's command line:
`++section.key=VALUE` (add or override: a file's key, unlike a plain
override, may be one the config does not have), VALUE in Hydra's grammar
(strings quoted, so "64" stays a string).  One word a line."""
import json
import sys

ESC = "\\()[]{}:=, \t"


def key(k):
    # a dict key is unquoted in Hydra's grammar: escape its special characters
    return "".join("\\" + c if c in ESC else c for c in str(k))


def quoted(s):
    # Hydra's quoted value: backslashes matter only before a quote (or the end)
    out, run = [], 0
    for c in s:
        if c == "\\":
            run += 1
            continue
        if c == "'":
            out.append("\\" * (2 * run + 1) + c)
        else:
            out.append("\\" * run + c)
        run = 0
    out.append("\\" * (2 * run))
    return "'" + "".join(out) + "'"


def value(v):
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return quoted(v)
    if isinstance(v, list):
        return "[" + ",".join(value(x) for x in v) + "]"
    return "{" + ",".join("%s:%s" % (key(k), value(x)) for k, x in v.items()) + "}"


for w in sys.argv[1:]:
    k, v = w.split("=", 1)
    try:
        v = json.loads(v)
    except ValueError:
        pass
    print("++%s=%s" % (k, value(v)))
