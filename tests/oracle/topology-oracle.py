#!/usr/bin/env python3
"""Differential oracle for `mcinit topology`: Megatron-Core's own
initialize_model_parallel, run with torch.distributed stubbed out.

Not part of the build and never run by `make check` (it needs numpy, einops
and a copy of Megatron-Core's parallel_state.py).  Run it by hand:

    pip install numpy einops
    pip download --no-deps megatron-core==0.15.3 -d wheels   # 0.17+: --python-version 3.12 --only-binary=:all:
    unzip -p wheels/megatron_core-0.15.3-*.whl megatron/core/parallel_state.py > ps-r0.15.py
    tests/oracle/topology-oracle.py ps-r0.15.py r0.15 > tests/oracle/golden/r0.15.txt

For main, take parallel_state.py from NVIDIA/Megatron-LM (branch main).
The output lists every NCCL communicator the function creates, in creation
order, one line each: `KEY: RANK RANK ...`, KEY being the name under which
Megatron looks up its NCCL options (the nccl_communicator_config_path key),
except for the all-gather twin of dp_cp (r0.16/r0.17 create_all_gather_group),
listed as dp_cp_ag.  Gloo groups are left out: they are not communicators
mcinit creates.  Each configuration starts with a `# config` line that
tests/unit/topo/test-topology-oracle.c parses.
"""
import importlib.util
import inspect
import random
import sys
import types


def stub_modules(world, groups):
    import einops  # noqa: F401 -- before the torch stub, which einops would probe
    import numpy  # noqa: F401

    torch = types.ModuleType("torch")
    dist = types.ModuleType("torch.distributed")

    def new_group(ranks=None, timeout=None, backend=None, pg_options=None, **kw):
        if backend != "gloo":
            groups.append((kw.get("group_desc"), pg_options, list(ranks)))
        return object()

    class ProcessGroupNCCL:
        class Options:
            def __init__(self, **kw):
                self.config = types.SimpleNamespace()

    dist.new_group = new_group
    dist.is_initialized = lambda: True
    dist.get_world_size = lambda *a, **k: world
    dist.get_rank = lambda *a, **k: 0
    dist.barrier = lambda *a, **k: None
    dist.ProcessGroupNCCL = ProcessGroupNCCL
    torch.distributed = dist
    torch.Tensor = type("Tensor", (), {})
    torch._C = types.SimpleNamespace(
        _distributed_c10d=types.SimpleNamespace(ProcessGroup=object))
    torch.cuda = types.SimpleNamespace(current_device=lambda: 0, synchronize=lambda: None)
    sys.modules["torch"] = torch
    sys.modules["torch.distributed"] = dist
    utils = types.ModuleType("megatron.core.utils")
    utils.GlobalMemoryBuffer = object
    utils.GlobalSymmetricMemoryBuffer = object
    utils.is_torch_min_version = lambda v: True
    for name in ("megatron", "megatron.core", "megatron.core.inference"):
        m = types.ModuleType(name)
        m.__path__ = []
        sys.modules[name] = m
    sm = types.ModuleType("megatron.core.inference.symmetric_memory")
    sm.SymmetricMemoryManager = object
    sys.modules["megatron.core.inference.symmetric_memory"] = sm
    sys.modules["megatron.core.utils"] = utils


def load(path, world, groups):
    stub_modules(world, groups)
    spec = importlib.util.spec_from_file_location("megatron.core.parallel_state", path)
    ps = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ps)
    # The communicator's name is what get_nccl_options is asked for.
    ps.get_nccl_options = lambda name, cfgs: name
    ps._set_global_memory_buffer = lambda *a, **k: None
    return ps


def key_of(desc, opt):
    if desc == "DATA_PARALLEL_GROUP_WITH_CP_AG":
        return "dp_cp_ag"
    return opt


def run(path, cfg):
    groups = []
    ps = load(path, cfg["world"], groups)
    params = inspect.signature(ps.initialize_model_parallel).parameters
    kw = dict(
        tensor_model_parallel_size=cfg["tp"],
        pipeline_model_parallel_size=cfg["pp"],
        context_parallel_size=cfg["cp"],
        expert_model_parallel_size=cfg["ep"],
        expert_tensor_parallel_size=cfg["etp"],
        num_distributed_optimizer_instances=cfg["ndoi"],
        hierarchical_context_parallel_sizes=cfg["hcp"] or None,
        order="tp-cp-ep-pp-dp" if cfg["mapping"] else "tp-cp-ep-dp-pp",
    )
    if "gtp_remat_size" in params:
        kw["gtp_remat_size"] = cfg["gtp"]
        kw["expert_gtp_remat_size"] = cfg["egtp"]
    elif cfg["gtp"] != 1 or cfg["egtp"] != 1:
        return None
    if "create_all_gather_group" in params:
        kw["create_all_gather_group"] = cfg["ag"]
    elif cfg["ag"]:
        return None
    try:
        ps.initialize_model_parallel(**kw)
    except (AssertionError, RuntimeError) as e:
        return "error: " + str(e).split("\n")[0].strip()
    return [(key_of(d, o), r) for d, o, r in groups]


def header(cfg):
    hcp = ",".join(map(str, cfg["hcp"])) if cfg["hcp"] else "-"
    etp = cfg["etp"] if cfg["etp"] is not None else "-"
    return (f"# config world={cfg['world']} tp={cfg['tp']} pp={cfg['pp']} cp={cfg['cp']} "
            f"ep={cfg['ep']} etp={etp} hcp={hcp} ndoi={cfg['ndoi']} gtp={cfg['gtp']} "
            f"egtp={cfg['egtp']} mapping={int(cfg['mapping'])} ag={int(cfg['ag'])}")


def cfg(world, tp=1, pp=1, cp=1, ep=1, etp=None, hcp=(), ndoi=1, gtp=1, egtp=1, mapping=0, ag=0):
    return dict(world=world, tp=tp, pp=pp, cp=cp, ep=ep, etp=etp, hcp=list(hcp), ndoi=ndoi,
                gtp=gtp, egtp=egtp, mapping=mapping, ag=ag)


FIXED = [
    cfg(16, tp=2, pp=2, cp=2),                      # spec example A
    cfg(16, tp=2, pp=2, ep=4, etp=1),               # spec example C
    cfg(8, tp=2, pp=2),                             # spec example D
    cfg(32, tp=2, cp=4, hcp=(2, 2), ndoi=2),        # issue 9's must-show example
    cfg(32, tp=2, cp=4, ep=4, hcp=(2, 2), ndoi=2),  # ... with EP
    cfg(16, tp=2, gtp=2),                           # TP 2, 4 weight shards
    cfg(32, tp=2, pp=2, gtp=2, egtp=2, ep=2),
    cfg(24, cp=4, ndoi=2),                          # dp*cp = 24 split 12/12 across dims
    cfg(24, cp=4, ndoi=4),
    cfg(48, cp=4, pp=1, ndoi=2, hcp=(4,)),
    cfg(48, cp=8, hcp=(2, 1, 4)),
    cfg(16, tp=2, pp=2, ep=2, etp=1, mapping=1),
    cfg(16, tp=2, pp=2, cp=2, gtp=2, mapping=1, ep=2, etp=2, egtp=2),
    cfg(16, tp=2, cp=2, ag=1, ndoi=2),
    cfg(32, tp=2, cp=2, hcp=(2, 3)),                # error: product != CP
    cfg(24, cp=4, ndoi=5),                          # error: divisibility
    cfg(16, tp=2, gtp=2, ndoi=2),                   # error: GTP with instances
    cfg(16, ep=4, etp=2, ndoi=4),                   # error: edp % instances
]


def random_cfgs(n, seed, gtp_on, ag_on):
    """Mostly valid configurations (the sizes' divisibility biased so)."""
    rnd = random.Random(seed)
    out = []
    while len(out) < n:
        tp, pp, cp, ep = (rnd.choice(c) for c in ([1, 2, 4], [1, 2, 3], [1, 2, 4], [1, 2, 4]))
        etp = rnd.choice([None, 1, 2])
        gtp = rnd.choice([1, 2, 2, 3]) if gtp_on else 1
        egtp = rnd.choice([1, 2, 2]) if gtp_on else 1
        dp = rnd.choice([1, 2, 3, 4, 6])
        world = tp * pp * cp * gtp * dp
        if world > 64 or world % ((etp or tp) * ep * pp * egtp) != 0:
            continue
        hcp = ()
        if cp > 1 and rnd.random() < 0.6:
            hcp = rnd.choice([(cp,), (2, cp // 2), (cp // 2, 2), (1, cp)])
        edp = world // ((etp or tp) * ep * pp * egtp)
        fits = [k for k in range(2, 7) if (dp * cp) % k == 0 and edp % k == 0]
        ndoi = rnd.choice(fits) if fits and gtp == egtp == 1 and rnd.random() < 0.7 else 1
        out.append(cfg(world, tp, pp, cp, ep, etp, hcp, ndoi, gtp, egtp,
                       rnd.random() < 0.25, ag_on and rnd.random() < 0.5))
    return out


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: topology-oracle.py PARALLEL_STATE.PY VERSION")
    path, version = sys.argv[1], sys.argv[2]
    print(f"# Megatron-Core {version} initialize_model_parallel, from tests/oracle/topology-oracle.py")
    for c in FIXED + random_cfgs(30, 9, 0, 0) + random_cfgs(15, 10, 1, 0) + random_cfgs(8, 11, 0, 1):
        res = run(path, c)
        if res is None:
            continue
        print(header(c))
        if isinstance(res, str):
            print(res)
            continue
        for key, ranks in res:
            print(f"{key}: {' '.join(map(str, ranks))}")


if __name__ == "__main__":
    main()
