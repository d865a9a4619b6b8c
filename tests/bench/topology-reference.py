#!/usr/bin/env python3
"""The reference of bench-topology: Megatron-Core's own
initialize_model_parallel building every group of the benchmark's job
(TP 8, PP 16, CP 2, EP 8, ETP 1, hierarchical CP [2], two distributed
optimizer instances), with torch.distributed stubbed as
tests/oracle/topology-oracle.py does, so that no GPU or process group is
needed and the time is the generator's own.

    topology-reference.py PARALLEL_STATE.PY WORLD [--json]

Prints `memory WALL CPU GROUPS` (seconds of the call alone: wall clock and
this process's CPU time, which a loaded machine blurs less); with --json, also writes
every group as JSON to /dev/null, as a program handing them on would.  Not
part of the build: make bench runs it with MEGATRON_PYTHON when that
Python has megatron-core, numpy and einops.
"""
import importlib.util
import json
import os
import sys
import time


def oracle():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "oracle", "topology-oracle.py")
    spec = importlib.util.spec_from_file_location("topology_oracle", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: topology-reference.py PARALLEL_STATE.PY WORLD [--json]")
    path, world = sys.argv[1], int(sys.argv[2])
    groups = []
    ps = oracle().load(path, world, groups)
    t, cpu = time.perf_counter(), time.process_time()
    ps.initialize_model_parallel(
        tensor_model_parallel_size=8, pipeline_model_parallel_size=16,
        context_parallel_size=2, expert_model_parallel_size=8,
        expert_tensor_parallel_size=1, hierarchical_context_parallel_sizes=[2],
        num_distributed_optimizer_instances=2, order="tp-cp-ep-dp-pp")
    took, cpu = time.perf_counter() - t, time.process_time() - cpu
    print(f"memory {took:.3f} {cpu:.3f} {len(groups)}", flush=True)
    if "--json" in sys.argv[3:]:
        with open(os.devnull, "w") as null:
            json.dump([{"key": o, "ranks": r} for _, o, r in groups], null)


if __name__ == "__main__":
    main()
