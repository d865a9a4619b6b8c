"""Shared oracle logic: load a Bridge YAML with Bridge's own loader and judge it as pretrain() does.

Verdict (`accepted`) = `runtime_config_update(cfg)` from megatron.bridge.training.config
(mixed precision -> set_data_parallel_size -> comm_overlap -> cfg.validate(), which runs every
sub-config finalize() including the model provider's finalize / TransformerConfig.__post_init__).

`typeerror_at_use` (NOT part of `accepted`): where the accepted config holds a str in a field that
Bridge's dataclass declares a number (int or float, Optional too), which its dataclasses keep
unchecked; the first arithmetic on the value raises TypeError when training uses it.  Each entry
is the field, its value and the TypeError that Python raises on that arithmetic (`value / 1`),
run here on the config's own value.  judge_ovs.py and judge_words.py make it the verdict
`accept-typeerror`: accepted at load, refused at use (mcinit refuses it on purpose, issue 38).

`post_checks` (informational, NOT part of `accepted`) repeat the pure-arithmetic checks that
pretrain() hits next, in setup()/initialize_megatron(), using Megatron-Core's own code where it
is importable:
  * microbatches: megatron.core.num_microbatches_calculator._build_num_microbatches_calculator
    (GBS % (MBS*DP) etc.)
  * expert_grid: parallel_state.initialize_model_parallel's
    `world_size % (ETP*EP*PP)` RuntimeError and "VP needs PP>1" RuntimeError (re-stated, as
    initialize_model_parallel itself needs torch.distributed).
  * tokenizer/vocab: for NullTokenizer, Bridge's build_tokenizer + setup's
    _validate_and_set_vocab_size + calculate_padded_vocab_size (exactly as setup()/provide()).
"""
from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import math
import os
import sys
import traceback
import types
import typing
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import oraclestub  # noqa: E402,F401  (must precede megatron imports)

from megatron.bridge.training.config import ConfigContainer, runtime_config_update  # noqa: E402

_LOG_CAPTURE = []


class _ListHandler(logging.Handler):
    def emit(self, record):
        if record.levelno >= logging.WARNING:
            try:
                _LOG_CAPTURE.append(f"{record.name}: {record.getMessage()}")
            except Exception:
                pass


logging.getLogger().addHandler(_ListHandler())


def _short(e: BaseException) -> str:
    msg = str(e).strip()
    return f"{type(e).__name__}: {msg}" if msg else type(e).__name__


def _where(e: BaseException) -> str | None:
    """file:line:function of the innermost frame inside megatron.* that raised."""
    tb = traceback.extract_tb(e.__traceback__)
    for fr in reversed(tb):
        if "/megatron/" in fr.filename:
            p = fr.filename.split("site-packages/")[-1]
            return f"{p}:{fr.lineno}:{fr.name}"
    if tb:
        fr = tb[-1]
        return f"{fr.filename}:{fr.lineno}:{fr.name}"
    return None


def load_yaml(path: str):
    """Bridge's own loader (ConfigContainer.from_yaml, LENIENT mode as default)."""
    return ConfigContainer.from_yaml(path)


@contextlib.contextmanager
def _isolated_env(world_size: int, rank: int = 0):
    saved = dict(os.environ)
    os.environ["WORLD_SIZE"] = str(world_size)
    os.environ["RANK"] = str(rank)
    os.environ["LOCAL_RANK"] = str(rank)
    os.environ.setdefault("LOCAL_WORLD_SIZE", str(min(world_size, 8)))
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)
        try:
            import torch

            torch.use_deterministic_algorithms(False)
        except Exception:
            pass


def _g(obj, name, default=None):
    try:
        return getattr(obj, name, default)
    except Exception:
        return default


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, str)):
        return v
    if isinstance(v, float):
        if math.isinf(v) or math.isnan(v):
            return str(v)
        return v
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    return str(v)


def _stage_layers(model) -> dict:
    """Per-pipeline-stage layer counts (harness arithmetic following mcore's rules)."""
    out = {}
    L = _g(model, "num_layers")
    pp = _g(model, "pipeline_model_parallel_size", 1) or 1
    vp = _g(model, "virtual_pipeline_model_parallel_size")
    layout = _g(model, "pipeline_model_parallel_layout")
    out["virtual_pipeline_model_parallel_size"] = vp
    if layout is not None:
        out["pipeline_model_parallel_layout"] = _jsonable(_g(layout, "input_data", layout))
        try:
            lay = layout.layout  # [pp][vp] list of layer-type lists
            out["layout_layers_per_stage"] = [
                [sum(1 for t in chunk if str(t).endswith("decoder") or str(t) in ("LayerType.decoder", "t", "decoder"))
                 for chunk in stage] for stage in lay]
        except Exception:
            pass
        return out
    if L is None:
        return out
    first = _g(model, "num_layers_in_first_pipeline_stage")
    last = _g(model, "num_layers_in_last_pipeline_stage")
    extra = int(bool(_g(model, "account_for_embedding_in_pipeline_split"))) + int(
        bool(_g(model, "account_for_loss_in_pipeline_split")))
    total = L + extra
    if pp == 1:
        stages = [total]
    else:
        n_uneven = (first is not None) + (last is not None)
        rest = total - (first or 0) - (last or 0)
        n_mid = pp - n_uneven
        mid = rest / n_mid if n_mid else None
        stages = []
        for i in range(pp):
            if i == 0 and first is not None:
                stages.append(first)
            elif i == pp - 1 and last is not None:
                stages.append(last)
            else:
                stages.append(mid if mid is None or mid != int(mid) else int(mid))
    out["layers_per_pipeline_stage"] = stages
    if vp:
        out["layers_per_virtual_stage"] = [s / vp if isinstance(s, (int, float)) else None for s in stages]
    if extra:
        out["note"] = "stage counts include the embedding/loss pseudo-layers (account_for_*_in_pipeline_split)"
    return out


def _derived(cfg, world_size: int) -> dict:
    m = cfg.model
    t = cfg.train
    d = {
        "world_size": world_size,
        "data_parallel_size": _g(cfg, "data_parallel_size"),
        "global_batch_size": _g(t, "global_batch_size"),
        "micro_batch_size": _g(t, "micro_batch_size"),
        "num_microbatches": None,
        "train_iters": _g(t, "train_iters"),
        "seq_length": _g(m, "seq_length"),
        "dataset_seq_length": _g(cfg.dataset, "seq_length"),
        "num_layers": _g(m, "num_layers"),
        "hidden_size": _g(m, "hidden_size"),
        "num_attention_heads": _g(m, "num_attention_heads"),
        "num_query_groups": _g(m, "num_query_groups"),
        "tensor_model_parallel_size": _g(m, "tensor_model_parallel_size"),
        "pipeline_model_parallel_size": _g(m, "pipeline_model_parallel_size"),
        "context_parallel_size": _g(m, "context_parallel_size"),
        "expert_model_parallel_size": _g(m, "expert_model_parallel_size"),
        "expert_tensor_parallel_size": _g(m, "expert_tensor_parallel_size"),
        "sequence_parallel": _g(m, "sequence_parallel"),
        "num_moe_experts": _g(m, "num_moe_experts"),
        "model_vocab_size": _g(m, "vocab_size"),
        "make_vocab_size_divisible_by": _g(m, "make_vocab_size_divisible_by"),
        "tokenizer_type": _g(cfg.tokenizer, "tokenizer_type"),
        "tokenizer_vocab_size_cfg": _g(cfg.tokenizer, "vocab_size"),
        "use_tokenizer_vocab_size": _g(cfg.tokenizer, "use_tokenizer_vocab_size", False),
        "padded_vocab_size": None,
        "lr_warmup_steps": _g(cfg.scheduler, "lr_warmup_steps"),
        "lr_decay_steps": _g(cfg.scheduler, "lr_decay_steps"),
        "lr_decay_iters": _g(cfg.scheduler, "lr_decay_iters"),
        "wd_incr_steps": _g(cfg.scheduler, "wd_incr_steps"),
        "eval_global_batch_size": _g(cfg.validation, "eval_global_batch_size"),
        "eval_micro_batch_size": _g(cfg.validation, "eval_micro_batch_size"),
        "model_provider": type(m).__name__,
        "dataset_type": type(cfg.dataset).__name__,
        "mixed_precision": (cfg.mixed_precision if isinstance(cfg.mixed_precision, (str, type(None)))
                            else type(cfg.mixed_precision).__name__),
        "bf16": _g(m, "bf16"),
        "fp16": _g(m, "fp16"),
        "fp8": _g(m, "fp8"),
        "fp8_recipe": _g(m, "fp8_recipe"),
        "peft": type(cfg.peft).__name__ if cfg.peft is not None else None,
    }
    try:
        d.update(_stage_layers(m))
    except Exception as e:  # pragma: no cover
        d["stage_layers_error"] = _short(e)
    return {k: _jsonable(v) for k, v in d.items()}


def _post_checks(cfg, world_size: int, derived: dict) -> dict:
    res = {}
    m, t = cfg.model, cfg.train
    tp = _g(m, "tensor_model_parallel_size", 1) or 1
    pp = _g(m, "pipeline_model_parallel_size", 1) or 1
    cp = _g(m, "context_parallel_size", 1) or 1
    ep = _g(m, "expert_model_parallel_size", 1) or 1
    etp = _g(m, "expert_tensor_parallel_size") or tp
    dp = _g(cfg, "data_parallel_size")
    if dp is None and world_size % (tp * pp * cp) == 0:
        dp = world_size // (tp * pp * cp)
    # microbatch calculator (megatron.core code)
    try:
        from megatron.core import num_microbatches_calculator as nmc

        if dp is None:
            raise RuntimeError("data_parallel_size unknown")
        # Bridge 0.6.2 (training/initialize.py) hands rampup_batch_size to core 0.19's
        # init_num_microbatches_calculator, which logs a deprecation and ignores it: the
        # calculator is the constant one either way (no step_batch_size_schedule is passed).
        calc = nmc._build_num_microbatches_calculator(
            0, t.global_batch_size, t.micro_batch_size, dp, _g(t, "decrease_batch_size_if_needed", False))
        derived["num_microbatches"] = calc.get()
        res["microbatches"] = {"ok": True, "num_microbatches": calc.get()}
        if _g(t, "rampup_batch_size"):
            res["microbatches"]["note"] = "rampup_batch_size ignored by core 0.19 (deprecated)"
    except Exception as e:
        res["microbatches"] = {"ok": False, "error": _short(e)}
    # initialize_model_parallel arithmetic
    errs = []
    if world_size % (tp * pp * cp) != 0:
        errs.append(f"RuntimeError: world_size ({world_size}) is not divisible by {tp * pp * cp}")
    if _g(m, "virtual_pipeline_model_parallel_size") is not None and not pp > 1:
        errs.append("RuntimeError: pipeline-model-parallel size should be greater than 1 with interleaved schedule")
    etmp = etp * ep * pp
    if world_size % etmp != 0:
        errs.append(f"RuntimeError: world_size ({world_size}) is not divisible by "
                    f"expert_tensor_model_pipeline_parallel size ({etmp})")
    res["parallel_state"] = {"ok": not errs, "errors": errs,
                             "expert_data_parallel_size": world_size // etmp if world_size % etmp == 0 else None}
    # tokenizer / padded vocab (as setup() + provider.provide())
    try:
        from megatron.bridge.training.setup import _validate_and_set_vocab_size
        from megatron.bridge.utils.vocab_utils import calculate_padded_vocab_size

        tok_type = _g(cfg.tokenizer, "tokenizer_type")
        use_tok = bool(_g(cfg.tokenizer, "use_tokenizer_vocab_size", False))
        tok_vocab = None
        if tok_type == "NullTokenizer":
            from megatron.bridge.training.tokenizers.tokenizer import build_tokenizer

            tok_vocab = build_tokenizer(cfg.tokenizer).vocab_size
        if tok_vocab is not None:
            vocab, pad = _validate_and_set_vocab_size(_g(m, "vocab_size"), tok_vocab, use_tok)
            padded = calculate_padded_vocab_size(vocab, m.make_vocab_size_divisible_by, tp) if pad else vocab
            res["vocab"] = {"ok": True, "tokenizer_vocab_size": tok_vocab, "unpadded": vocab,
                            "should_pad_vocab": pad, "padded_vocab_size": padded}
            derived["padded_vocab_size"] = padded
        elif _g(m, "vocab_size") is not None and not use_tok:
            # HF tokenizer not loadable offline: preset model vocab wins (no padding) provided the
            # tokenizer is not larger.
            res["vocab"] = {"ok": None, "note": "HF tokenizer not loaded; model.vocab_size preset => no padding",
                            "padded_vocab_size": m.vocab_size, "should_pad_vocab": False}
            derived["padded_vocab_size"] = m.vocab_size
        else:
            res["vocab"] = {"ok": None, "note": "depends on HF tokenizer vocab (not available offline)"}
    except Exception as e:
        res["vocab"] = {"ok": False, "error": _short(e)}
    return res


def _hints(cls) -> dict:
    """The annotations of a dataclass and its bases, resolved where they can be (a string
    annotation that does not evaluate is left out: nothing is judged by it)."""
    out = {}
    for base in reversed(cls.__mro__):
        try:
            out.update(typing.get_type_hints(base))
            continue
        except Exception:
            pass
        ns = vars(sys.modules[base.__module__]) if base.__module__ in sys.modules else {}
        for name, ann in vars(base).get("__annotations__", {}).items():
            if isinstance(ann, str):
                try:
                    ann = eval(ann, dict(ns))  # noqa: S307 -- the class's own annotation
                except Exception:
                    continue
            out[name] = ann
    return out


def _is_number(tp) -> bool:
    """An annotation of int or float, or a union of those and None (not bool, not a union
    with a str or another type, which a str may satisfy)."""
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return bool(args) and all(_is_number(a) for a in args)
    return tp in (int, float)


def _typeerror_at_use(obj, prefix: str, out: list, seen: set) -> None:
    """Appends, for each field of the dataclass obj (and of the dataclasses it holds) declared
    a number and holding a str, the field, its value and the TypeError of its arithmetic."""
    if id(obj) in seen:
        return
    seen.add(id(obj))
    hints = _hints(type(obj))
    for f in dataclasses.fields(obj):
        v = _g(obj, f.name)
        tp = hints.get(f.name, f.type)
        if isinstance(v, str) and _is_number(tp):
            try:
                v / 1  # arithmetic, which any use of the number does
            except TypeError as e:
                decl = tp.__name__ if isinstance(tp, type) else str(tp).replace("typing.", "")
                out.append(f"{prefix}{f.name}={v!r} declared {decl}: TypeError: {e}")
        elif dataclasses.is_dataclass(v) and not isinstance(v, type):
            _typeerror_at_use(v, f"{prefix}{f.name}.", out, seen)


def typeerror_at_use(cfg) -> list:
    """The str values of fields declared a number in the ConfigContainer (see the top)."""
    out = []
    _typeerror_at_use(cfg, "", out, set())
    return out


def judge_cfg(cfg, world_size: int) -> dict:
    """Run runtime_config_update on an already-loaded ConfigContainer."""
    global _LOG_CAPTURE
    _LOG_CAPTURE = []
    out = {"world_size": world_size, "accepted": False, "error": None, "error_where": None,
           "warnings": [], "derived": None, "post_checks": None}
    with _isolated_env(world_size):
        with warnings.catch_warnings(record=True) as wlist:
            warnings.simplefilter("always")
            buf = io.StringIO()
            try:
                with contextlib.redirect_stdout(buf):
                    runtime_config_update(cfg)
                out["accepted"] = True
                out["typeerror_at_use"] = typeerror_at_use(cfg)
            except BaseException as e:  # noqa: BLE001 - AssertionError/ValueError/...
                if isinstance(e, KeyboardInterrupt):
                    raise
                out["error"] = _short(e)
                out["error_where"] = _where(e)
            try:
                out["derived"] = _derived(cfg, world_size)
                out["post_checks"] = _post_checks(cfg, world_size, out["derived"])
            except Exception as e:
                out["derived_error"] = _short(e)
        seen = set()
        for w in wlist:
            s = f"{w.category.__name__}: {w.message}"
            if s not in seen and "Apex is not installed" not in s:
                seen.add(s)
                out["warnings"].append(s)
        out["warnings"] += [s for s in _LOG_CAPTURE if s not in seen]
    return out


def judge_file(path: str, world_size: int) -> dict:
    global _LOG_CAPTURE
    out = {"file": os.path.abspath(path), "world_size": world_size}
    _LOG_CAPTURE = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                cfg = load_yaml(path)
            finally:
                out["load_warnings"] = list(_LOG_CAPTURE)
    except BaseException as e:  # noqa: BLE001
        if isinstance(e, KeyboardInterrupt):
            raise
        cause = e.__cause__
        out.update({"accepted": False, "stage": "from_yaml", "error": _short(e),
                    "error_cause": _short(cause) if cause else None,
                    "error_where": _where(e), "derived": None})
        return out
    res = judge_cfg(cfg, world_size)
    res["stage"] = "runtime_config_update"
    out.update(res)
    return out


def write_dump(dump, overrides, path):
    """The dump with each (section.key, value) of overrides set in it,
    written to path as YAML (a section that is null becomes a mapping)."""
    import copy

    import yaml
    d = yaml.safe_load(open(dump))
    for k, v in overrides:
        sec, key = k.split(".", 1)
        if d.get(sec) is None:
            d[sec] = {}
        d[sec][key] = copy.deepcopy(v)
    with open(path, "w") as f:
        yaml.safe_dump(d, f, sort_keys=False)
