# build-aux/facts/cli.py -- part of build-aux/extract-facts.py (standard
# library only; Megatron's sources are parsed, never imported).
"""The command line of build-aux/extract-facts.py: one function per
subcommand, and the parser."""

import argparse
import os
import sys

from . import __doc__ as USAGE
from .source import Code, Source, source_info, sources
from .tables import carry_previous, compare_tables, merge_rows, open_out, read_tsv, write_tsv
from .mchecks import CHECKS_HEAD, MCORE_CHECK_ROOTS, extract_checks
from .mflags import FLAGS_HEAD, FlagIndex, extract_flags, keep_flags
from .bridge_fields import BRIDGE_FIELDS_HEAD, VARIANT_HEAD, bridge_fields, bridge_variants
from .bchecks import extract_bridge_checks
from .mixed_precision import MIXED_PRECISION_HEAD, bridge_mixed_precision
from .loader import LOADER_HEAD, bridge_loader, loader_classes
from .entries import ENTRY_FLAGS_HEAD, ENTRY_POINTS_HEAD, entry_tables
from .recipes import RECIPES_HEAD, bridge_recipes


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


def cmd_bridge_recipes(a):
    rows = bridge_recipes(Code(sources([a.bridge])))
    with open_out(a) as out:
        write_tsv(out, RECIPES_HEAD, rows)


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
    # the release's own recipes (--bridge-recipe NAME with --bridge-version
    # NAME): from Bridge alone, as `bridge-recipes` reads them
    write("bridge-recipes.tsv", RECIPES_HEAD, bridge_recipes(Code([bsrc])))
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


def cmd_entries(a):
    releases = []
    for r in a.releases:
        name, eq, spec = r.partition("=")
        if not eq or not name or not spec:
            sys.exit("extract-facts: entries: %r is not NAME=SRC" % r)
        releases.append((name, spec))
    points, flags = entry_tables(releases)
    for path, head, rows in ((a.points, ENTRY_POINTS_HEAD, points),
                             (a.flags_out, ENTRY_FLAGS_HEAD, flags)):
        with open(path, "w", encoding="utf-8") as out:
            write_tsv(out, head, rows)
        sys.stderr.write("extract-facts: entries: %s: %d rows\n" % (path, len(rows)))


def A(*names, **options):
    """An argument of a subcommand: add_argument's arguments."""
    return names, options


# what several subcommands take: where to write, and where Megatron-LM's
# flags come from
OUTPUT = [
    A("-o", "--output", metavar="FILE", help="write here, not to stdout"),
]
FLAGSRC = [
    A("--flags",
      metavar="TSV",
      help="take Megatron-LM's flags (dest -> flags) from this table (data/megatron-flags.tsv) "
           "instead of the parser in --core"),
    A("--flags-ref",
      metavar="NAME",
      help="with --flags: only the rows of this release (refs column)"),
    A("--training",
      metavar="SRC",
      help="Megatron-LM's training code, when --core lacks megatron/training"),
]

# Every subcommand: (name, function, help, description, arguments), in the
# order --help lists them
COMMANDS = [
    ("bridge-fields", cmd_bridge_fields,
     "data/bridge-config-fields.tsv",
     "ConfigContainer's fields and each section class's fields, inheritance resolved into "
     "megatron-core / megatron.training.",
     [A("--bridge", metavar="SRC", required=True, help="Megatron-Bridge"),
      A("--core", metavar="SRC", required=True, help="megatron-core (Megatron-LM)"),
      A("--pinned-core",
        metavar="SRC",
        help="Bridge's pinned Megatron-LM (3rdparty/Megatron-LM): note where its fields differ "
             "from --core's"),
      A("--pinned-name", metavar="NAME", help="how notes name the pinned commit"),
      A("--core-name",
        metavar="NAME",
        default="main",
        help="how notes name --core (default: main)"),
      A("--previous",
        metavar="TSV",
        default="data/bridge-config-fields.tsv",
        help="when no source holds megatron/training/arguments.py and --flags is not given, keep"
             " this table's flag column for the fields it has (default: %(default)s)"),
      *FLAGSRC,
      *OUTPUT]),
    ("bridge-variants", cmd_bridge_variants,
     "data/bridge-variant-fields.tsv",
     "The other classes each ConfigContainer section can hold (model providers, dataset configs,"
     " PEFT methods), as differences from bridge-config-fields.tsv.",
     [A("--bridge", metavar="SRC", required=True, help="Megatron-Bridge"),
      A("--core", metavar="SRC", required=True, help="megatron-core (Megatron-LM)"),
      A("--fields",
        metavar="TSV",
        help="compare with this bridge-config-fields.tsv (default: compute it)"),
      A("--previous",
        metavar="TSV",
        help="carry the hand-written parts of each class's note over from this "
             "bridge-variant-fields.tsv"),
      *FLAGSRC,
      *OUTPUT]),
    ("flags", cmd_flags,
     "one release's rows of data/megatron-flags.tsv",
     "Every flag of Megatron-LM's training parser (megatron/training/arguments.py), read "
     "statically: see the comment above FlagInterp in this script for the method.",
     [A("--training",
        metavar="SRC",
        required=True,
        help="Megatron-LM (a checkout, GITDIR@REV, or the megatron-core wheel/sdist, which holds"
             " megatron/training)"),
      A("--name",
        metavar="NAME",
        required=True,
        help="the release's name in the refs column (r0.19, main, ...)"),
      *OUTPUT]),
    ("merge", cmd_merge,
     "fold one release's rows into a multi-release table",
     "Fold the rows of one release (the output of `flags`) into a table with a refs column "
     "(data/megatron-flags.tsv): a row identical but for refs gains the release, others are "
     "added; the release's old refs are dropped first.  Rows stay sorted by flag, then by their "
     "first release in --versions order.",
     [A("--table",
        metavar="TSV",
        required=True,
        help="the multi-release table (rewritten in place unless -o)"),
      A("--rows", metavar="TSV", required=True, help="one release's rows"),
      A("--name", metavar="NAME", help="the release (default: the refs of --rows)"),
      A("--versions",
        metavar="TSV",
        default="data/megatron-versions.tsv",
        help="release order for the refs column (default: %(default)s)"),
      *OUTPUT]),
    ("checks", cmd_checks,
     "data/megatron-checks.tsv",
     "Every assert, raise and warning of Megatron's config validation: the __post_init__ of "
     "ModelParallelConfig, TransformerConfig, MLATransformerConfig, OptimizerConfig, "
     "DistributedDataParallelConfig, CheckpointConfig, the num-microbatches calculator's "
     "construction and (with megatron/training) validate_args, with the same-module helpers they"
     " call.",
     [A("--core", metavar="SRC", required=True, help="megatron-core (Megatron-LM)"),
      A("--training",
        metavar="SRC",
        help="Megatron-LM checkout for megatron/training when --core lacks it"),
      A("--previous",
        metavar="TSV",
        help="carry offline and note (partly written by hand) over from this table for the "
             "checks it already has"),
      A("--early-returns",
        action="store_true",
        help="an `if X: return` before a check adds \"not (X)\" to its guard (off: "
             "data/megatron-checks.tsv has always been read without)"),
      *OUTPUT]),
    ("bridge-checks", cmd_bridge_checks,
     "Megatron-Bridge's checks, as data/megatron-checks.tsv",
     "Every assert, raise and warning of Megatron-Bridge's config validation: "
     "runtime_config_update, ConfigContainer.validate, and the __post_init__ / finalize / "
     "validate of each section class (the Bridge classes of its MRO), with the same-module "
     "helpers they call.  Columns as data/megatron-checks.tsv; fields are SECTION.FIELD.",
     [A("--bridge", metavar="SRC", required=True, help="Megatron-Bridge"),
      A("--core",
        metavar="SRC",
        help="megatron-core, to resolve the section classes' bases (optional)"),
      A("--previous",
        metavar="TSV",
        help="carry offline and note over from this table for the checks it has"),
      A("--no-early-returns",
        action="store_true",
        help="do not turn an `if X: return` before a check into \"not (X)\" in its guard (as "
             "`checks` reads Megatron)"),
      *OUTPUT]),
    ("bridge-mixed-precision", cmd_bridge_mixed_precision,
     "data/bridge-mixed-precision.tsv",
     "The mixed-precision presets a ConfigContainer may name (mixed_precision: bf16_mixed): the "
     "fields each sets.",
     [A("--bridge", metavar="SRC", required=True, help="Megatron-Bridge"),
      *OUTPUT]),
    ("bridge-recipes", cmd_bridge_recipes,
     "data/bridge-recipes.tsv",
     "Every recipe function of megatron.bridge.recipes (and each legacy alias of one): the model"
     " it builds, its parallelism, sequence and batch sizes, dataset and PEFT classes, read by "
     "following the recipe and the helpers it calls over the AST (build-aux/facts/recipes.py).  "
     "Rows by file path, then by line.",
     [A("--bridge", metavar="SRC", required=True, help="Megatron-Bridge"),
      *OUTPUT]),
    ("bridge-loader", cmd_bridge_loader,
     "data/bridge-loader.tsv",
     "How Bridge's from_yaml treats what a config names: the _target_ allow- and deny-lists, and"
     " the classes whose constructor takes **kwargs (an unknown key is then refused, not "
     "dropped).",
     [A("--bridge", metavar="SRC", required=True, help="Megatron-Bridge"),
      A("--core", metavar="SRC", required=True, help="megatron-core (megatron.training.config)"),
      A("--fields",
        metavar="TSV",
        required=True,
        help="the release's bridge-config-fields.tsv (the sections' classes)"),
      A("--variants", metavar="TSV", required=True, help="the release's bridge-variant-fields.tsv"),
      *OUTPUT]),
    ("release", cmd_release,
     "every table for one megatron-core + Bridge release",
     "Read one release (the megatron-core and megatron-bridge wheels or sdists, or checkouts) "
     "and write all its tables into DIR: megatron-flags.tsv (its rows, refs NAME), "
     "bridge-config-fields.tsv, bridge-variant-fields.tsv, megatron-checks.tsv, "
     "bridge-checks.tsv, bridge-mixed-precision.tsv, bridge-loader.tsv, bridge-recipes.tsv and "
     "SOURCES.tsv (what was"
     " read, with digests); the hand-written notes of --previous-dir's tables are carried over, "
     "and each table is compared with --previous-dir's.",
     [A("--core", metavar="SRC", required=True, help="megatron-core"),
      A("--bridge", metavar="SRC", required=True, help="megatron-bridge"),
      A("--training",
        metavar="SRC",
        help="Megatron-LM checkout for megatron/training (when --core lacks it)"),
      A("--name",
        metavar="NAME",
        required=True,
        help="the Megatron-LM release in the refs column (r0.19, main, ...)"),
      A("--into",
        metavar="DIR",
        required=True,
        help="where to write (data/releases/bridge-0.6.2+core-0.19.2, or data)"),
      A("--previous-dir",
        metavar="DIR",
        default="data",
        help="tables to carry hand-written notes from and compare with (default: %(default)s; ''"
             " for none)"),
      A("--merge-flags",
        metavar="TSV",
        help="also fold the flag rows into this multi-release table (data/megatron-flags.tsv)"),
      A("--versions",
        metavar="TSV",
        default="data/megatron-versions.tsv",
        help="release order for --merge-flags (default: %(default)s)"),
      A("--pinned-core", metavar="SRC", help="as for bridge-fields"),
      A("--pinned-name", metavar="NAME", help="as for bridge-fields"),
      A("--limit",
        type=int,
        default=0,
        metavar="N",
        help="list at most N rows of each kind in the comparisons"),
      A("-q", "--quiet", action="store_true", help="no comparisons")]),
    ("entries", cmd_entries,
     "data/megatron-entry-points.tsv and data/megatron-entry-flags.tsv",
     "Megatron-LM's entry scripts (build-aux/facts/entries.py's ENTRIES) in each release: "
     "the args_defaults each hands the training parser and the flags its "
     "extra_args_provider adds.  Scripts of r0.15 need Python >= 3.12 to parse.",
     [A("releases", metavar="NAME=SRC", nargs="+",
        help="each release (refs name and Megatron-LM source), oldest first"),
      A("--points", metavar="TSV", required=True, help="write the entry points here"),
      A("--flags-out", metavar="TSV", required=True, help="write the entry flags here")]),
    ("rekey", cmd_rekey,
     "move file:line ids to a new checks table",
     "data/megatron-checks-port.tsv and -ledger.tsv name checks by megatron-checks.tsv's id "
     "(file:line).  Given the old and the new checks table, rewrite those ids in place: a check "
     "is the same when its function, kind, guard, condition and message are.",
     [A("--old", metavar="TSV", required=True, help="the checks table the ids are of"),
      A("--new", metavar="TSV", required=True, help="the new checks table"),
      A("--drop",
        action="store_true",
        help="drop rows whose check the new table lacks (default: keep them)"),
      A("files", metavar="FILE", nargs="+", help="tables keyed by id, rewritten")]),
    ("compare", cmd_compare,
     "what changed between two versions of a table",
     "Compare two versions of one table (bridge-config-fields, bridge-variant-fields, "
     "megatron-checks / bridge-checks, megatron-flags) row by row, by key (section+field; "
     "section+class+field; a check's function, kind, guard, condition and message, so that a "
     "check that only moved to another line is counted, not listed; flag+dest).",
     [A("old", metavar="OLD.tsv"),
      A("new", metavar="NEW.tsv"),
      A("--limit",
        type=int,
        default=0,
        metavar="N",
        help="list at most N rows of each kind (default: all)"),
      A("--exit-code", action="store_true", help="exit 1 when they differ"),
      A("--ref",
        metavar="NAME",
        help="flags: compare only the rows of this release (default: the one release of NEW when"
             " OLD has several)")]),
]


def main(argv=None):
    p = argparse.ArgumentParser(prog="extract-facts.py", description=USAGE,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", metavar="COMMAND")
    sub.required = True
    for name, func, help_, description, arguments in COMMANDS:
        sp = sub.add_parser(name, help=help_, description=description)
        for names, options in arguments:
            sp.add_argument(*names, **options)
        sp.set_defaults(func=func)

    a = p.parse_args(argv)
    try:
        import signal
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)     # | head
    except (ImportError, AttributeError, ValueError):
        pass
    a.func(a)
