"""CPU-only harness for the real Megatron-Bridge 0.6.2 / megatron-core 0.19.2.

`import oraclestub` (before anything imports megatron.*) installs:
  * a meta-path finder that stubs every `transformer_engine*` module (inert placeholder
    classes; transformer_engine.__version__ = "2.14.0"; FusedAdam placeholder with the
    TE 2.x keyword arguments so OptimizerConfig's precision-aware-optimizer check passes);
  * torch.cuda.get_device_properties faked (ORACLE_GPU=H100 (default) | GB200 | B200 | A100)
    while torch.cuda.is_available() stays False;
  * HF_HUB_OFFLINE=1 + HF_HOME pointing at $BRIDGE_ORACLE_WORK/hf (offline cache of config.json files
    written by make_hf_cache.py).
"""
from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ORACLE = os.environ.get("BRIDGE_ORACLE_WORK", os.path.dirname(HERE))

# ---------------------------------------------------------------- HF offline cache
os.environ.setdefault("HF_HOME", os.path.join(ORACLE, "hf"))
os.environ["HF_HUB_CACHE"] = os.path.join(os.environ["HF_HOME"], "hub")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
os.environ.setdefault("OMP_NUM_THREADS", "1")

TE_VERSION = "2.14.0"


# ---------------------------------------------------------------- placeholders
class _PlaceholderMeta(type):
    """Class-level attribute access yields further placeholders (enums, nested classes)."""

    def __getattr__(cls, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        sub = _make_placeholder(f"{cls.__name__}.{name}")
        setattr(cls, name, sub)
        return sub

    def __repr__(cls):
        return f"<te-placeholder {cls.__qualname__}>"


import torch as _torch  # noqa: E402


class _Placeholder(_torch.nn.Module, metaclass=_PlaceholderMeta):
    """Inert stand-in for any Transformer Engine class/function/constant (an nn.Module subclass,
    so that modelopt / mcore subclass-registration checks accept it)."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        return None

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return _make_placeholder(name)

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())


def _make_placeholder(name: str):
    return _PlaceholderMeta(name.split(".")[-1], (_Placeholder,), {"__qualname__": name, "__module__": "transformer_engine"})


class FusedAdam(_Placeholder):
    """Signature of transformer_engine.pytorch.optimizers.FusedAdam (TE 2.x)."""

    def __init__(
        self,
        params,
        lr=1e-3,
        bias_correction=True,
        betas=(0.9, 0.999),
        eps=1e-8,
        adam_w_mode=True,
        weight_decay=0.0,
        amsgrad=False,
        set_grad_none=True,
        capturable=False,
        master_weights=False,
        master_weight_dtype=None,
        exp_avg_dtype=None,
        exp_avg_sq_dtype=None,
        use_decoupled_grad=False,
        store_param_remainders=False,
    ):
        pass


class FusedSGD(_Placeholder):
    def __init__(self, params, lr=0.0, momentum=0, dampening=0, weight_decay=0, nesterov=False,
                 wd_after_momentum=False, materialize_master_grads=True, set_grad_none=False):
        pass


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        ph = _make_placeholder(f"{self.__name__}.{name}")
        setattr(self, name, ph)
        return ph


_STUB_ROOTS = ("transformer_engine", "transformer_engine_torch", "transformer_engine_jax")


class _TEFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in _STUB_ROOTS:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        mod = _StubModule(spec.name)
        mod.__path__ = []
        mod.__file__ = os.path.join(HERE, "_te_stub", *spec.name.split("."), "__init__.py")
        return mod

    def exec_module(self, module):
        name = module.__name__
        if name == "transformer_engine":
            module.__version__ = TE_VERSION
        if name == "transformer_engine.pytorch.optimizers":
            module.FusedAdam = FusedAdam
            module.FusedSGD = FusedSGD
        if name == "transformer_engine.pytorch":
            module.__version__ = TE_VERSION


def _install_te():
    if not any(isinstance(f, _TEFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _TEFinder())


# ---------------------------------------------------------------- fake GPU
_GPUS = {
    "H100": ("NVIDIA H100 80GB HBM3", 9, 0, 132),
    "H200": ("NVIDIA H200", 9, 0, 132),
    "A100": ("NVIDIA A100-SXM4-80GB", 8, 0, 108),
    "B200": ("NVIDIA B200", 10, 0, 148),
    "GB200": ("NVIDIA GB200", 10, 0, 152),
    "GB300": ("NVIDIA GB300", 10, 3, 160),
}


class _FakeProps:
    def __init__(self, name, major, minor, sms):
        self.name = name
        self.major = major
        self.minor = minor
        self.multi_processor_count = sms
        self.total_memory = 80 * 1024**3

    def __repr__(self):
        return f"_CudaDeviceProperties(name='{self.name}', major={self.major}, minor={self.minor})"


def _install_gpu():
    import torch

    gpu = os.environ.get("ORACLE_GPU", "H100").upper()
    props = _FakeProps(*_GPUS.get(gpu, _GPUS["H100"]))
    torch.cuda.get_device_properties = lambda device=None: props
    # is_available() stays False (real value on this CPU machine).


_install_te()
_install_gpu()
