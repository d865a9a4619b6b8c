"""Finding and calling libmcinit through ctypes (ABI mode: no compiled module).

Only three functions of ``mcinit.h`` are used: ``mcinit_json_validate`` and
``mcinit_json_topology`` (JSON request in, JSON result out; interface 4.2) and
``mcinit_config_schema``.  Their results are C strings the caller frees with
the C library's ``free``.  ctypes releases the GIL around each call, so
threads validate in parallel; the library's calls are thread-safe (each has
its own job).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import shutil
import threading
from pathlib import Path
from typing import Any, Dict, Optional

_HERE = Path(__file__).resolve().parent
_SONAME = "libmcinit.so.4"

_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_free: Any = None


def library_path() -> str:
    """The libmcinit.so this package uses.

    ``$MCINIT_LIBRARY`` when set, else the wheel's own copy
    (``mcinit/lib/libmcinit.so.4``), else the system's (a Debian
    ``libmcinit4``), found by the dynamic loader.
    """
    env = os.environ.get("MCINIT_LIBRARY")
    if env:
        return env
    own = _HERE / "lib" / _SONAME
    if own.exists():
        return str(own)
    return _SONAME


def program_path() -> str:
    """The mcinit program: ``$MCINIT_PROGRAM``, the wheel's, else PATH's."""
    env = os.environ.get("MCINIT_PROGRAM")
    if env:
        return env
    own = _HERE / "bin" / "mcinit"
    if own.exists():
        return str(own)
    found = shutil.which("mcinit")
    if found is None:
        raise FileNotFoundError("the mcinit program is neither in the package nor on PATH")
    return found


def _load() -> ctypes.CDLL:
    global _lib, _free
    with _lock:
        if _lib is None:
            lib = ctypes.CDLL(library_path())
            for name in ("mcinit_json_validate", "mcinit_json_topology"):
                f = getattr(lib, name)
                f.argtypes = [ctypes.c_char_p]
                f.restype = ctypes.c_void_p
            lib.mcinit_config_schema.argtypes = []
            lib.mcinit_config_schema.restype = ctypes.c_void_p
            lib.mcinit_version.argtypes = []
            lib.mcinit_version.restype = ctypes.c_char_p
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            libc.free.argtypes = [ctypes.c_void_p]
            libc.free.restype = None
            _free = libc.free
            _lib = lib
        return _lib


def _take(ptr: Optional[int]) -> str:
    """The text at ptr, which is then freed; MemoryError for NULL."""
    if not ptr:
        raise MemoryError("libmcinit: out of memory")
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        _free(ptr)


def call(function: str, request: Dict[str, Any]) -> Dict[str, Any]:
    """One JSON call: request dict in, the library's result object out."""
    lib = _load()
    text = json.dumps(request).encode("utf-8")
    result: Dict[str, Any] = json.loads(_take(getattr(lib, function)(text)))
    return result


def schema() -> Dict[str, Any]:
    """mcinit_config_schema(), as a dict."""
    result: Dict[str, Any] = json.loads(_take(_load().mcinit_config_schema()))
    return result


def library_version() -> str:
    """mcinit_version(): the running library's version."""
    v: bytes = _load().mcinit_version()
    return v.decode()
