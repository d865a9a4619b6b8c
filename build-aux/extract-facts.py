#!/usr/bin/env python3
# extract-facts.py -- regenerate mcinit's data/*.tsv from a Megatron-LM /
# Megatron-Bridge release's source.  A maintainer tool: the build never runs
# it, and it needs nothing but the Python standard library (>= 3.9).  The
# code is the package beside it, build-aux/facts/ (one module per source of
# facts; its __init__.py lists them); `extract-facts.py --help` for the
# subcommands.
import os
import sys

sys.dont_write_bytecode = True      # nothing written into the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from facts.cli import main  # noqa: E402

if __name__ == "__main__":
    main()
