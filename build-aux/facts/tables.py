# build-aux/facts/tables.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron's sources are parsed, never imported).
"""TSV tables: reading, writing, merging a release's rows, comparing two
versions of a table, and carrying hand-written notes over."""

import re
import sys
from collections import OrderedDict

from .mchecks import DEPENDS


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


NOTE_KINDS = ("raises ", "via ", "in loop: ", "inside try/except ", "reads locals: ",
              "depends on: ", "gate: ", "called from ")


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
