#!/usr/bin/env python3
"""Differential of `mcinit validate` against Megatron-LM's own checks.

For one Megatron-LM release, every case of a corpus (a world size and a
Megatron-LM command line) is judged twice:

  Megatron   parse_args(), validate_args() and the TransformerConfig (or
             MLATransformerConfig) that core_transformer_config_from_args()
             builds from the result -- the checks a training script runs
             before it touches a GPU; each case in a forked child of one
             process that imported Megatron once; with
             --init-model-parallel, then _initialize_distributed over
             torch's fake process group, whose initialize_model_parallel
             refuses sizes that do not divide the world (launch-diff.sh
             always asks for it: a launch is judged whole);
  mcinit     mcinit validate --megatron-version R --world-size N
             launch.gpu_arch=90 [--te-version V --torch-version V] -- FLAGS

and the verdicts (accepted: no error) are compared.  Never part of the
build or of `make check`: it needs the release's source tree and a Python
with torch.  Run it with that Python, the release's checkout first on
PYTHONPATH:

    PYTHONPATH=/tmp/mlm-main VENV/bin/python tests/oracle/megatron-diff.py \
        --release main --mcinit _build/src/mcinit --corpus CORPUS.jsonl

A corpus line is {"name", "world", "flags": [...], "env": {...}} (see
corpus.py), or a launch script's case (launch-cases.py) with "script"
(mcinit then reads the script itself, without its arguments, and its
world size is compared too), with "te_version" / "torch_version" when the case declares
them: such a case is judged only by a run whose --te-version and torch
are those, and mcinit is told them.  Each record of --out also lists the
warnings each side gave (Megatron's warnings.warn, mcinit's warnings), to
vet a check that only warns; --ddp-config builds the
DistributedDataParallelConfig as well, as training.py does.  No GPU is needed: Transformer Engine is replaced by an inert
module of the version --te-version gives (absent when "none"), and the
device is reported as a Hopper (compute capability 9.0), which is why
mcinit is given launch.gpu_arch=90.  Output: one JSON line per case
(--out), and a summary on stdout.
"""
import argparse
import contextlib
import importlib.abc
import importlib.machinery
import io
import json
import os
import subprocess
import sys
import traceback
import types


class _Inert:
    """Stands for any Transformer Engine object: callable, subclassable,
    attribute-rich and falsy."""

    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return None

    def __bool__(self):
        return False

    def __iter__(self):
        return iter(())


class _InertMeta(type):
    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _inert_class(name)


def _inert_class(name):
    base = _Inert
    try:
        import torch

        base = type("_InertModule", (torch.nn.Module, _Inert), {"__init__": _Inert.__init__})
    except ImportError:
        pass
    return _InertMeta(name, (base,), {})


class _InertModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        v = _inert_class(name)
        setattr(self, name, v)
        return v


class _TEFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports of transformer_engine* give inert modules of one version."""

    def __init__(self, version):
        self.version = version

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in ("transformer_engine", "transformer_engine_torch"):
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = _InertModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        if module.__name__ in ("transformer_engine", "transformer_engine.pytorch"):
            module.__version__ = self.version


def install_stubs(te_version):
    if te_version != "none":
        sys.meta_path.insert(0, _TEFinder(te_version))
        # importlib.metadata.version("transformer-engine") is what
        # Megatron's get_te_version() asks first on some releases
        import importlib.metadata as md

        real = md.version

        def version(name):
            if name.replace("_", "-") in ("transformer-engine", "transformer-engine-torch"):
                return te_version
            return real(name)

        md.version = version


class _Props:
    name, major, minor, multi_processor_count = "NVIDIA H100 80GB HBM3", 9, 0, 132
    total_memory = 80 << 30


def install_gpu():
    import torch

    torch.cuda.get_device_properties = lambda device=None: _Props()
    torch.cuda.get_device_capability = lambda device=None: (9, 0)

    # r0.15 builds a CUDA extension when it is imported; its failure is
    # expected as RuntimeError, not the IndexError of a machine without CUDA
    import torch.utils.cpp_extension as ext

    def no_cuda_build(*a, **k):
        raise RuntimeError("no CUDA toolchain in the oracle")

    ext.load_inline = no_cuda_build


def megatron_judge(case, ddp=False):
    """(accepted, message, warnings) of Megatron-LM's checks on one case, in
    this process; with ddp, DistributedDataParallelConfig too, built as
    training.py builds it."""
    import warnings

    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ok, msg = megatron_checks(case, ddp)
    return ok, msg, sorted({str(w.message) for w in seen if "/megatron/" in w.filename})


def megatron_checks(case, ddp):
    import megatron.training.arguments as A

    if hasattr(A, "get_device_arch_version"):
        A.get_device_arch_version = lambda: 9
    try:
        from megatron.training.argument_utils import core_transformer_config_from_args
    except ImportError:
        core_transformer_config_from_args = A.core_transformer_config_from_args
    os.environ.update({"WORLD_SIZE": str(case["world"]), "RANK": "0", "LOCAL_RANK": "0"})
    os.environ.update(case.get("env", {}))
    sys.argv = ["pretrain_gpt.py"] + case["flags"]
    sink = io.StringIO()
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            args = A.parse_args()
            A.validate_args(args)
            core_transformer_config_from_args(args)
            if ddp:
                from megatron.training.training import get_megatron_ddp_config

                get_megatron_ddp_config(args)
            if INIT_MODEL_PARALLEL:
                init_model_parallel(args)
    except SystemExit as e:
        return False, "argparse: " + sink.getvalue().strip().splitlines()[-1:][0] \
            if sink.getvalue().strip() else "exit %s" % e.code
    except BaseException as e:  # noqa: BLE001 -- any failure is the verdict
        tb = traceback.extract_tb(e.__traceback__)
        where = next((f"{os.path.relpath(f.filename, os.environ.get('MLM_ROOT', '/'))}:{f.lineno}"
                      for f in reversed(tb) if "/megatron/" in f.filename), "?")
        return False, f"{type(e).__name__} at {where}: {str(e).splitlines()[0] if str(e) else ''}"
    return True, ""


INIT_MODEL_PARALLEL = False


def init_model_parallel(args):
    """Megatron-LM's own _initialize_distributed on the parsed args, as
    pretrain() calls it before any model is built: torch.distributed is
    initialized first with torch's fake process group (world size and rank
    0 as the case gives them, no network), so the function skips its own
    init_process_group and runs Megatron-Core's initialize_model_parallel,
    whose rank generator refuses the sizes that do not divide the world.
    Every group is a fake one: gloo and NCCL groups cannot be made of it."""
    import inspect

    import torch
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore

    import megatron.training.global_vars as G
    import megatron.training.initialize as I

    torch.cuda.device_count = lambda: 8  # a node of 8 GPUs: the model-parallel branch runs
    torch.cuda.set_device = lambda *a, **k: None
    dist.init_process_group(backend="fake", store=FakeStore(), rank=0,
                            world_size=args.world_size)
    real_new_group = dist.new_group

    def new_group(*a, **k):  # the fake backend stands for gloo and NCCL alike
        k.pop("backend", None)
        k.pop("pg_options", None)
        return real_new_group(*a, **k)

    dist.new_group = new_group
    G.set_args(args)
    params = inspect.signature(I._initialize_distributed).parameters
    I._initialize_distributed(*[None] * min(3, len(params)))


def run_forked(fn, failed, *args):
    """fn(*args) in a forked child (Megatron's state stays out of this
    process), its JSON result as a tuple; failed(why) when the child fails."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        try:
            out = fn(*args)
        except BaseException as e:  # noqa: BLE001
            out = failed("harness: %r" % e)
        os.write(w, json.dumps(out).encode())
        os._exit(0)
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return tuple(json.loads(data)) if data else tuple(failed("harness: child died"))


def judge_forked(case, ddp):
    return run_forked(megatron_judge, lambda why: (False, why, []), case, ddp)


def mcinit_judge(mcinit, release, case, extra):
    if "script" in case:  # a launch script (launch-cases.py): mcinit reads it, no arguments
        argv = [mcinit, "validate", "--format=json", "--megatron-version", release,
                "launch.gpu_arch=90"] + extra + [case["script"]]
    else:
        argv = [mcinit, "validate", "--format=json", "--megatron-version", release,
                "--world-size", str(case["world"]), "launch.gpu_arch=90"] + extra + \
            ["--"] + case["flags"]
    env = dict(os.environ, CUDA_DEVICE_MAX_CONNECTIONS="1")
    for k in ("WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE"):
        env.pop(k, None)
    env.update(case.get("env", {}))
    p = subprocess.run(argv, capture_output=True, text=True, env=env,
                       cwd=os.path.dirname(case["script"]) if "script" in case else None)
    try:
        doc = json.loads(p.stdout)
    except ValueError:
        return False, "mcinit exit %d: %s" % (p.returncode, p.stderr.strip()[-300:]), [], None
    if "error" in doc:
        return False, "%s %s" % (doc["error"].get("code"), doc["error"].get("message")), [], None
    errs = [d for d in doc.get("diagnostics", []) if d["severity"] == "error"]
    warns = ["%s %s" % (d["code"], d["message"]) for d in doc.get("diagnostics", [])
             if d["severity"] == "warning"]
    return (not errs, "; ".join("%s %s" % (d["code"], d["message"]) for d in errs)[:400], warns,
            doc.get("derived", {}).get("world_size"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--release", required=True)
    ap.add_argument("--mcinit", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--te-version", default="2.14.0",
                    help="Transformer Engine version Megatron sees (none: not installed)")
    ap.add_argument("--torch-version", help="the torch version Megatron sees (default: torch's)")
    ap.add_argument("--torch-version-late", action="store_true",
                    help="give --torch-version to Megatron's checks only, once Megatron is "
                    "imported with the real torch (a torch too old for Megatron's imports)")
    ap.add_argument("--declare", action="store_true",
                    help="give mcinit the TE and torch versions of the oracle")
    ap.add_argument("--ddp-config", action="store_true",
                    help="build DistributedDataParallelConfig too, as training.py does")
    ap.add_argument("--init-model-parallel", action="store_true",
                    help="run Megatron's _initialize_distributed too (torch's fake process "
                    "group, no GPU): initialize_model_parallel's refusals are Megatron's")
    ap.add_argument("--out", help="one JSON line per case here")
    ap.add_argument("--megatron-verdicts", metavar="OUT",
                    help="take Megatron's verdicts from an earlier --out (same release, TE and "
                    "torch), judge only mcinit again: no Megatron needed")
    a = ap.parse_args()

    earlier = {}
    if a.megatron_verdicts:
        for line in open(a.megatron_verdicts):
            r = json.loads(line)
            earlier[r["name"]] = (r["megatron"], r["megatron_msg"], r.get("megatron_warnings", []))
        return compare(a, earlier)
    os.environ.setdefault("CUDA_DEVICE_MAX_CONNECTIONS", "1")
    install_stubs(a.te_version)
    install_gpu()
    import torch

    if a.torch_version and not a.torch_version_late:
        torch.__version__ = torch.torch_version.TorchVersion(a.torch_version)

    import logging

    logging.disable(logging.CRITICAL)
    # once in this process, so that each fork finds every module imported
    megatron_judge({"world": 1, "flags": ["--num-layers", "2", "--hidden-size", "64",
                                          "--num-attention-heads", "4", "--multi-latent-attention",
                                          "--swiglu", "--seq-length", "64",
                                          "--max-position-embeddings", "64",
                                          "--micro-batch-size", "1", "--train-iters", "1"]})
    global INIT_MODEL_PARALLEL
    INIT_MODEL_PARALLEL = a.init_model_parallel  # after the warm-up: only forks initialize
    if a.torch_version and a.torch_version_late:
        import megatron.core.utils as U
        from packaging.version import Version

        U._torch_version = Version(a.torch_version)  # what is_torch_min_version reads

    return compare(a, None, torch.__version__.split("+")[0])


def case_versions(c):
    """mcinit's options for the versions a case declares."""
    return sum((["--%s-version" % k, c[k + "_version"]] for k in ("te", "torch")
                if k + "_version" in c), [])


def versions_match(c, a, torch_version):
    """Whether the versions a case declares are the ones Megatron sees in
    this run (the TE stub's, torch's own or --torch-version)."""
    torch_seen = a.torch_version or torch_version
    return c.get("te_version", a.te_version) == a.te_version and \
        (torch_seen is None or c.get("torch_version", torch_seen) == torch_seen)


def compare(a, earlier, torch_version=None):
    """Both verdicts of every case of the release; Megatron's from `earlier`
    (name -> verdict) when given."""
    extra = []
    if a.declare:
        extra += ["--te-version", a.te_version]
        extra += ["--torch-version", a.torch_version or torch_version or "2.9.1"]
    cases = [json.loads(line) for line in open(a.corpus) if line.strip()]
    out = open(a.out, "w") if a.out else None
    agree = disagree = worlds = world_same = 0
    for c in cases:
        if a.release not in c.get("releases", [a.release]):
            continue
        if not versions_match(c, a, torch_version):
            continue  # a case declaring other versions: another run judges it
        if earlier is not None:
            if c["name"] not in earlier:
                continue
            mok, mmsg, mwarn = earlier[c["name"]]
        else:
            mok, mmsg, mwarn = judge_forked(c, a.ddp_config)
        ook, omsg, owarn, oworld = mcinit_judge(a.mcinit, a.release, c, extra + case_versions(c))
        same = mok == ook
        if "script" in c:
            worlds += 1
            world_same += oworld == c["world"]
            if oworld != c["world"]:
                print("WORLD %s: bash %d / mcinit %s" % (c["name"], c["world"], oworld))
        agree += same
        disagree += not same
        if out:
            out.write(json.dumps({"name": c["name"], "megatron": mok, "mcinit": ook,
                                  "agree": same, "megatron_msg": mmsg,
                                  "mcinit_msg": omsg, "megatron_warnings": mwarn,
                                  "mcinit_world": oworld,
                                  "mcinit_warnings": owarn}) + "\n")
        if not same:
            print("DISAGREE %s: megatron %s (%s) / mcinit %s (%s)" % (
                c["name"], "accepts" if mok else "rejects", mmsg[:200],
                "accepts" if ook else "rejects", omsg[:200]))
    print("release %s: %d cases, %d agree, %d disagree" % (a.release, agree + disagree, agree,
                                                           disagree))
    if worlds:
        print("release %s: world size right for %d of %d scripts" % (a.release, world_same, worlds))


if __name__ == "__main__":
    main()
