"""The ``mcinit`` command of the wheel: runs the program shipped in the package.

The program lives in ``mcinit/bin`` beside the libraries it opens at run time
(``mcinit/lib``, found through its RUNPATH), as cmake's and clang-format's
wheels keep theirs: a scripts directory has no fixed place relative to the
package, so the entry point on PATH is this small launcher.
"""

from __future__ import annotations

import os
import sys

from ._native import program_path


def main() -> None:
    """Replace this process with ``mcinit/bin/mcinit`` and the same arguments."""
    exe = program_path()
    argv = [exe] + sys.argv[1:]
    try:
        os.execv(exe, argv)
    except OSError as e:  # pragma: no cover - a broken install
        sys.stderr.write(f"mcinit: cannot run {exe}: {e.strerror}\n")
        sys.exit(127)


if __name__ == "__main__":  # pragma: no cover
    main()
