#!/usr/bin/env python3
"""as-yaml-edit.py FACTS DUMP OUT WORD... — the `section.key=JSON` words of a
mutations.tsv row made in the dump's YAML text, as the oracle makes them
(tests/oracle/bridge/judge_ovs.py: the value at the key, then
yaml.safe_dump), when one of them names a field that Bridge's dataclass
declares init=False (FACTS: data/bridge-config-fields.tsv, its note).  For
those the override as-hydra-edit.py writes is not the same change: a
ConfigContainer's from_yaml drops a file's key of such a field, an override
sets it.  Writes OUT and exits 0; exits 3, writing nothing, when no word
names such a field (give the words as overrides then).  Text, not a YAML
library: the dumps are block mappings two spaces deep."""
import json
import math
import sys


def init_false(facts):
    keys = set()
    for line in open(facts):
        c = line.rstrip("\n").split("\t")
        if len(c) >= 7 and "init=False" in c[6]:
            keys.add("%s.%s" % (c[0], c[1]))
    return keys


def scalar(v):
    # as yaml.safe_dump writes it (a str always quoted: the same str)
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return ".nan"
        if math.isinf(v):
            return ".inf" if v > 0 else "-.inf"
        r = repr(v)
        if "." not in r and "e" in r:
            r = r.replace("e", ".0e", 1)
        return r
    if isinstance(v, str):
        return "'" + v.replace("'", "''") + "'"
    return json.dumps(v)


def edit(lines, sec, key, text):
    try:
        s = lines.index(sec + ":")
    except ValueError:
        lines += [sec + ":", "  %s: %s" % (key, text)]
        return
    i = s + 1
    while i < len(lines) and (lines[i].startswith(" ") or not lines[i].strip()):
        if lines[i].startswith("  %s:" % key):
            j = i + 1
            while j < len(lines) and lines[j].startswith("   "):
                j += 1
            lines[i:j] = ["  %s: %s" % (key, text)]
            return
        i += 1
    lines.insert(s + 1, "  %s: %s" % (key, text))


def main():
    facts, dump, out, words = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    computed = init_false(facts)
    if not any(w.split("=", 1)[0] in computed for w in words):
        sys.exit(3)
    lines = open(dump).read().split("\n")
    for w in words:
        k, v = w.split("=", 1)
        try:
            v = json.loads(v)
        except ValueError:
            pass
        sec, key = k.split(".", 1)
        edit(lines, sec, key, scalar(v))
    open(out, "w").write("\n".join(lines))


if __name__ == "__main__":
    main()
