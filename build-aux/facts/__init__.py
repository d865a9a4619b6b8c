# build-aux/facts/ -- the package behind build-aux/extract-facts.py, one module
# per source of facts.  A maintainer tool: the build never runs it, and it
# needs nothing but the Python standard library (>= 3.9).
#
# Everything is read statically (ast): no Megatron, Bridge or torch module is
# ever imported, so a wheel for another Python version or platform is fine.
#
#   source.py           wheels, sdists, directories, GITDIR@REV; Code, the
#                       static namespace of their modules
#   tables.py           TSV in and out, merge, compare, notes carried over
#   mflags.py           Megatron-LM's training flags
#   mchecks.py          Megatron's configuration checks (and the reader
#                       Bridge's share)
#   bridge_fields.py    Bridge's ConfigContainer fields and variant classes
#   bchecks.py          Bridge's configuration checks
#   mixed_precision.py  Bridge's mixed-precision presets
#   loader.py           Bridge's config loader (_target_ lists, **kwargs)
#   entries.py          Megatron-LM's entry scripts: args_defaults, extra flags
#   recipes.py          Bridge's recipe functions, followed into their helpers
#   cli.py              the subcommands and their parser
"""Regenerate mcinit's data tables from Megatron-LM / Megatron-Bridge sources.

A SRC is any of
  - a wheel or sdist file as the package registry serves it
      (pip download --no-deps --python-version 3.12 megatron-core==0.19.2)
  - an unpacked wheel/sdist or a git checkout (a directory)
  - GITDIR@REV: a commit of a git repository, bare or not, read with
      `git cat-file` (no checkout needed), e.g. ~/src/Megatron-LM@core_r0.19

The megatron-core wheel and sdist hold megatron/training as well as
megatron/core, so one --core SRC serves for --training too.

Subcommands (the first six write TSV on stdout, or to -o FILE):
  bridge-fields     data/bridge-config-fields.tsv
  bridge-variants   data/bridge-variant-fields.tsv
  checks            data/megatron-checks.tsv
  bridge-checks     the same columns for Megatron-Bridge's config validation
  bridge-recipes    data/bridge-recipes.tsv (main's recipes; a release's: `release`)
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
