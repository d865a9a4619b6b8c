"""mcinit: check a Megatron-LM / Megatron-Bridge training job without GPUs.

The functions here call libmcinit (the C library the ``mcinit`` program is
built on) through ctypes; every diagnostic, derived value and error comes
from the library's own structures, as JSON, never from re-reading printed
text.

>>> import mcinit
>>> r = mcinit.validate({"model": {"tensor_model_parallel_size": 2}}, world_size=8)
>>> r.ok
True

``validate`` and ``topology`` take ``config`` as

- a path (``str`` or ``os.PathLike``) to a ``.json``, ``.yaml``/``.yml``
  config, a ``.sh``/``.bash`` launch script or a ``.py`` file, or a list of
  them (merged left to right, as ``mcinit validate A B`` merges them);
- a ``dict`` (Megatron-Bridge's shape: ``{"model": {...}, "train": {...}}``);
- YAML or JSON text: a ``str`` that contains a newline or starts with ``{``
  (a ``str`` without either is a path);
- an object with ``to_dict()`` (Megatron-Bridge's ``ConfigContainer``) or
  ``to_yaml()`` returning the text.

A dict or text is written to a private temporary file that the library
reads; its diagnostics name it ``<dict>`` or ``<string>``.
"""

from __future__ import annotations

import enum
import json
import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass, field
from typing import (
    Any,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from . import _native

__all__ = [
    "Diagnostic",
    "Result",
    "Topology",
    "Error",
    "ConfigError",
    "InputError",
    "NoInputError",
    "ParseError",
    "UsageError",
    "validate",
    "topology",
    "schema",
    "explain",
    "library_version",
    "__version__",
]

try:  # the installed distribution's version (configure.ac's AC_INIT)
    from importlib.metadata import version as _dist_version

    __version__: str = _dist_version("mcinit")
except Exception:  # pragma: no cover - not installed (a checkout)
    __version__ = _native.library_version()

ConfigLike = Union[str, "os.PathLike[str]", Mapping[str, Any], Any]


class Error(Exception):
    """The base of every exception mcinit raises."""


class InputError(Error):
    """An input the library could not use at all (no job was checked).

    ``code`` is the library's error kind (``"noinput"``, ``"parse"``,
    ``"usage"`` ...), ``source``/``line``/``column`` its place when it has
    one, ``diagnostics`` what was found before.
    """

    def __init__(
        self,
        message: str,
        *,
        code: str,
        source: Optional[str] = None,
        line: Optional[int] = None,
        column: Optional[int] = None,
        diagnostics: Sequence["Diagnostic"] = (),
    ) -> None:
        self.message = message
        self.code = code
        self.source = source
        self.line = line
        self.column = column
        self.diagnostics: Tuple[Diagnostic, ...] = tuple(diagnostics)
        place = source or ""
        if source and line:
            place += f":{line}" + (f":{column}" if column else "")
        super().__init__(f"{place}: {message}" if place else message)


class NoInputError(InputError, FileNotFoundError):
    """An input file is missing or unreadable (code ``"noinput"``)."""


class ParseError(InputError, ValueError):
    """An input could not be parsed (code ``"parse"``)."""


class UsageError(InputError, ValueError):
    """A bad argument: a wrong kind of input, an unknown release (``"usage"``)."""


class ConfigError(Error, ValueError):
    """The job has errors: raised by :meth:`Result.raise_for_errors`.

    ``errors`` lists every error diagnostic; the message has one line each.
    """

    def __init__(self, errors: Sequence["Diagnostic"]) -> None:
        self.errors: Tuple[Diagnostic, ...] = tuple(errors)
        lines = [f"{len(self.errors)} error(s) in the job:"]
        lines += [str(d) for d in self.errors]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class Diagnostic:
    """One finding of the library (``mcinit_diagnostic``).

    ``path`` is the config key it is about (``model.tensor_model_parallel_size``),
    ``keys`` every key involved; ``file``/``line``/``column`` its place when it
    has one (``line``/``column`` 1-based), ``argv_index`` a command-line word's.
    """

    code: str
    severity: str
    message: str
    hint: Optional[str] = None
    path: Optional[str] = None
    keys: Tuple[str, ...] = ()
    file: Optional[str] = None
    line: Optional[int] = None
    column: Optional[int] = None
    argv_index: Optional[int] = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    @property
    def location(self) -> str:
        """``file:line:col`` (as much of it as is known), or ``""``."""
        if not self.file:
            return ""
        s = self.file
        if self.line:
            s += f":{self.line}"
            if self.column:
                s += f":{self.column}"
        return s

    def __str__(self) -> str:
        loc = self.location
        text = f"{self.severity}[{self.code}]: {self.message}"
        if self.hint:
            text += f" ({self.hint})"
        return f"{loc}: {text}" if loc else text


@dataclass(frozen=True)
class Result:
    """What :func:`validate` found.

    ``ok`` is true when the job has no error (warnings allowed, unless
    ``werror``); ``derived`` holds Megatron's derived values (world and
    data-parallel size, micro-batches, padded vocabulary ...) by name.
    """

    ok: bool
    diagnostics: Tuple[Diagnostic, ...]
    derived: Dict[str, Any] = field(default_factory=dict)
    raw: Dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def errors(self) -> Tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "error")

    @property
    def warnings(self) -> Tuple[Diagnostic, ...]:
        return tuple(d for d in self.diagnostics if d.severity == "warning")

    def raise_for_errors(self) -> "Result":
        """Raise :class:`ConfigError` listing every error; else return self."""
        if not self.ok:
            errs = self.errors or tuple(d for d in self.diagnostics if d.severity == "warning")
            raise ConfigError(errs)
        return self

    def __bool__(self) -> bool:
        return self.ok


@dataclass(frozen=True)
class Topology(Result):
    """What :func:`topology` found: a :class:`Result` and the rank layout.

    ``groups`` maps each communicator Megatron-Core creates (``"tp"``,
    ``"dp_cp"`` ...) to its groups as lists of ranks (``hcp``: a list per
    level); ``ranks`` each rank's coordinates, node, local rank and seeds;
    ``sizes`` the parallel sizes; ``order`` Megatron-Core's order string.
    """

    sizes: Dict[str, int] = field(default_factory=dict)
    order: Optional[str] = None
    groups: Dict[str, Any] = field(default_factory=dict)
    ranks: Tuple[Dict[str, Any], ...] = ()


# ---- turning the caller's config into inputs ----


def _jsonable(o: Any) -> Any:
    """json.dumps' default for what a ConfigContainer's to_dict() may hold."""
    if isinstance(o, enum.Enum):
        return o.value if isinstance(o.value, (str, int, float, bool)) else o.name
    if isinstance(o, (set, frozenset, tuple)):
        return list(o)
    if isinstance(o, os.PathLike):
        return os.fspath(o)
    return str(o)


class _Inputs:
    """The paths of a request; temporary files removed on exit."""

    def __init__(self, config: ConfigLike) -> None:
        self.paths: List[str] = []
        self.names: Dict[str, str] = {}
        self._dir: Optional[tempfile.TemporaryDirectory[str]] = None
        items = config if isinstance(config, (list, tuple)) else [config]
        if not items:
            raise TypeError("config: an empty list of inputs")
        for i, item in enumerate(items):
            self._add(item, i)

    def _temp(self, text: str, suffix: str, name: str, i: int) -> None:
        if self._dir is None:
            self._dir = tempfile.TemporaryDirectory(prefix="mcinit-")
        path = os.path.join(self._dir.name, f"config{i}{suffix}")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        self.paths.append(path)
        self.names[path] = name

    def _add(self, item: Any, i: int) -> None:
        if isinstance(item, os.PathLike):
            self.paths.append(os.fspath(item))
        elif isinstance(item, str):
            if "\n" in item or item.lstrip().startswith("{"):
                self._text(item, "<string>", i)
            else:
                self.paths.append(item)
        elif isinstance(item, bytes):
            self._text(item.decode("utf-8"), "<string>", i)
        elif isinstance(item, Mapping):
            self._temp(json.dumps(dict(item), default=_jsonable), ".json", "<dict>", i)
        elif callable(getattr(item, "to_dict", None)):
            d = item.to_dict()
            if not isinstance(d, Mapping):
                raise TypeError(
                    f"config: {type(item).__name__}.to_dict() returned "
                    f"{type(d).__name__}, not a dict"
                )
            self._temp(json.dumps(dict(d), default=_jsonable), ".json", "<dict>", i)
        elif callable(getattr(item, "to_yaml", None)):
            text = item.to_yaml()
            if not isinstance(text, str):
                raise TypeError(
                    f"config: {type(item).__name__}.to_yaml() returned "
                    f"{type(text).__name__}, not the YAML text"
                )
            self._temp(text, ".yaml", "<yaml>", i)
        else:
            raise TypeError(
                "config must be a path, a dict, YAML/JSON text, or an object with "
                f"to_dict()/to_yaml(); got {type(item).__name__}"
            )

    def _text(self, text: str, name: str, i: int) -> None:
        # JSON is a subset of the YAML mcinit reads, but a .json input gets
        # JSON's positions and messages: use it when the text is JSON.
        try:
            json.loads(text)
            suffix = ".json"
        except ValueError:
            suffix = ".yaml"
        self._temp(text, suffix, name, i)

    def name(self, source: Optional[str]) -> Optional[str]:
        if source is None:
            return None
        return self.names.get(source, source)

    def close(self) -> None:
        if self._dir is not None:
            self._dir.cleanup()
            self._dir = None

    def __enter__(self) -> "_Inputs":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _overrides(overrides: Union[Mapping[str, Any], Iterable[str]]) -> List[str]:
    if isinstance(overrides, str):
        raise TypeError("overrides: a list of 'section.field=value' strings or a dict, not a str")
    if isinstance(overrides, Mapping):
        out = []
        for k, v in overrides.items():
            if isinstance(v, bool):
                v = "true" if v else "false"
            elif v is None:
                v = "null"
            elif not isinstance(v, str):
                v = json.dumps(v, default=_jsonable)
            out.append(f"{k}={v}")
        return out
    out = list(overrides)
    for o in out:
        if not isinstance(o, str):
            raise TypeError(f"overrides: {o!r} is not a 'section.field=value' string")
    return out


def _request(
    inputs: _Inputs,
    world_size: Optional[int],
    megatron_version: Optional[str],
    bridge_version: Optional[str],
    overrides: Union[Mapping[str, Any], Iterable[str]],
    script_args: Union[None, str, Sequence[str]],
    megatron_flags: Sequence[str],
    extra: Mapping[str, Any],
) -> Dict[str, Any]:
    if world_size is not None and (
        isinstance(world_size, bool) or not isinstance(world_size, int)
    ):
        raise TypeError(f"world_size: an int, not {type(world_size).__name__}")
    req: Dict[str, Any] = {"inputs": inputs.paths}
    if world_size is not None:
        req["world_size"] = world_size
    if megatron_version is not None:
        req["megatron_version"] = str(megatron_version)
    if bridge_version is not None:
        req["bridge_version"] = str(bridge_version)
    ov = _overrides(overrides)
    if ov:
        req["overrides"] = ov
    if script_args is not None:
        req["script_args"] = (
            script_args if isinstance(script_args, str) else shlex.join(list(script_args))
        )
    if megatron_flags:
        req["megatron_flags"] = [str(w) for w in megatron_flags]
    req.update({k: v for k, v in extra.items() if v is not None})
    return req


def _diagnostic(d: Mapping[str, Any], inputs: _Inputs) -> Diagnostic:
    keys = tuple(d.get("keys") or ())
    return Diagnostic(
        code=d["code"],
        severity=d["severity"],
        message=d["message"],
        hint=d.get("hint"),
        path=keys[0] if keys else None,
        keys=keys,
        file=inputs.name(d.get("source")),
        line=d.get("line"),
        column=d.get("column"),
        argv_index=d.get("argv_index"),
    )


_ERRORS = {"noinput": NoInputError, "parse": ParseError, "usage": UsageError}


def _check(raw: Mapping[str, Any], inputs: _Inputs) -> Tuple[Diagnostic, ...]:
    diags = tuple(_diagnostic(d, inputs) for d in raw.get("diagnostics") or ())
    err = raw.get("error")
    if err is not None:
        cls = _ERRORS.get(err.get("code"), InputError)
        raise cls(
            err.get("message") or "unusable input",
            code=err.get("code") or "internal",
            source=inputs.name(err.get("source")),
            line=err.get("line"),
            column=err.get("column"),
            diagnostics=diags,
        )
    return diags


def validate(
    config: ConfigLike,
    *,
    world_size: Optional[int] = None,
    megatron_version: Optional[str] = None,
    bridge_version: Optional[str] = None,
    overrides: Union[Mapping[str, Any], Iterable[str]] = (),
    script_args: Union[None, str, Sequence[str]] = None,
    megatron_flags: Sequence[str] = (),
    bridge_defaults: Optional[bool] = None,
    werror: bool = False,
    memory_model: Optional[str] = None,
    gpu_memory: Union[None, int, str] = None,
) -> Result:
    """Check a job as ``mcinit validate`` does and return every finding.

    ``world_size`` is the number of ranks (else the config's, the
    environment's, nnodes x nproc_per_node, else 1); ``megatron_version`` a
    Megatron-Core release (``"r0.15"``, ``"0.15.2"``, ``"main"``);
    ``bridge_version`` a Megatron-Bridge release whose fields the config is
    checked against; ``overrides`` ``"section.field=value"`` strings or a
    dict of them; ``script_args`` the arguments a launch script is read as
    run with; ``megatron_flags`` Megatron-LM words (``["--foo", "1"]``);
    ``memory_model`` ``"megatron"`` puts the most loaded rank's memory per
    GPU in ``derived["memory"]`` (Megatron-LM's own estimate), ``"bridge"``
    Megatron-Bridge 0.6.2's (estimate_training_memory, for a
    ConfigContainer), ``"mcinit"`` mcinit's own peak of each kind of rank,
    term by term, low..high; ``gpu_memory``, GiB or a GPU's name
    (``"H100-80GB"``, ``"H200"``, ``"B200"``, ...), checks it against the
    GPU (MC063).

    Raises :class:`TypeError` for a config of the wrong type,
    :class:`NoInputError` (a :class:`FileNotFoundError`) for a missing file,
    :class:`ParseError` / :class:`UsageError` for an input that cannot be
    used at all.  Problems in the job itself are diagnostics: see
    :attr:`Result.ok` and :meth:`Result.raise_for_errors`.
    """
    with _Inputs(config) as inputs:
        req = _request(
            inputs,
            world_size,
            megatron_version,
            bridge_version,
            overrides,
            script_args,
            megatron_flags,
            {
                "bridge_defaults": bridge_defaults,
                "werror": werror or None,
                "memory_model": memory_model,
                "gpu_memory": gpu_memory,
            },
        )
        raw = _native.call("mcinit_json_validate", req)
        diags = _check(raw, inputs)
    return Result(
        ok=bool(raw.get("valid")), diagnostics=diags, derived=raw.get("derived") or {}, raw=raw
    )


def topology(
    config: ConfigLike,
    *,
    world_size: Optional[int] = None,
    rank: Optional[int] = None,
    megatron_version: Optional[str] = None,
    bridge_version: Optional[str] = None,
    overrides: Union[Mapping[str, Any], Iterable[str]] = (),
    script_args: Union[None, str, Sequence[str]] = None,
    nproc_per_node: Optional[int] = None,
    nnodes: Optional[int] = None,
) -> Topology:
    """The rank groups, placement and seeds of a job (``topology --format=json``'s data).

    ``rank`` restricts ``ranks`` to that rank (all ranks are listed up to a
    world of 4096).  An invalid job has ``ok`` false and no groups.  Raises
    as :func:`validate`, and :class:`UsageError` for a rank outside the world.
    """
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int) or rank < 0):
        raise ValueError(f"rank: an int >= 0, not {rank!r}")
    with _Inputs(config) as inputs:
        req = _request(
            inputs,
            world_size,
            megatron_version,
            bridge_version,
            overrides,
            script_args,
            (),
            {"rank": rank, "nproc_per_node": nproc_per_node, "nnodes": nnodes},
        )
        raw = _native.call("mcinit_json_topology", req)
        diags = _check(raw, inputs)
    return Topology(
        ok=bool(raw.get("valid")),
        diagnostics=diags,
        derived=raw.get("derived") or {},
        raw=raw,
        sizes=raw.get("sizes") or {},
        order=raw.get("order"),
        groups=raw.get("groups") or {},
        ranks=tuple(raw.get("ranks") or ()),
    )


def schema() -> Dict[str, Any]:
    """The job configuration's JSON Schema (what ``mcinit schema`` prints)."""
    return _native.schema()


def explain(code: str) -> str:
    """What a diagnostic code (``"MC010"``) means, as ``mcinit explain CODE`` says.

    Raises :class:`ValueError` for a code mcinit does not have.
    """
    if not isinstance(code, str) or not code or code.startswith("-"):
        raise ValueError(f"explain: not a diagnostic code: {code!r}")
    p = subprocess.run(
        [_native.program_path(), "explain", code],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
    )
    if p.returncode != 0:
        raise ValueError(p.stderr.strip() or f"mcinit explain {code}: status {p.returncode}")
    return p.stdout


def library_version() -> str:
    """The version of the libmcinit.so in use (``mcinit_version()``)."""
    return _native.library_version()
