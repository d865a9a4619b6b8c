#!/usr/bin/env python3
"""The corpus megatron-diff.py judges, as JSON lines on stdout.

    corpus.py SRCDIR [--ci RELEASE=MEGATRON_TREE ...]

Cases: the .args files of SRCDIR's examples/ and tests/configs/ whose words
are only --world-size, --megatron-version, --te-version, --torch-version
and Megatron-LM flags (overrides
and config files have no Megatron-LM spelling); Megatron-LM's own CI cases
of each tree given (tests/functional_tests/test_cases/**/model_config.yaml,
MODEL_ARGS), for that release only; and mutations of the examples, one
flag each, chosen where mcinit's checks and Megatron's could part: the
rope and MLA flags, the version-gated ones, the parallel sizes.  Needs
PyYAML for --ci.
"""
import argparse
import glob
import json
import math
import os
import shlex

MUTATIONS = [
    ["--multi-latent-attention"],
    ["--multi-latent-attention", "--position-embedding-type", "rope"],
    ["--multi-latent-attention", "--position-embedding-type", "rope", "--rope-type", "rope"],
    ["--multi-latent-attention", "--position-embedding-type", "rope", "--rope-type", "yarn"],
    ["--multi-latent-attention", "--position-embedding-type", "rope", "--no-rope-fusion"],
    ["--position-embedding-type", "rope", "--rotary-interleaved"],
    ["--position-embedding-type", "rope", "--rope-type", "yarn"],
    ["--fp4-format", "e2m1", "--bf16"],
    ["--fp8-format", "hybrid", "--bf16"],
    ["--qk-clip", "--qk-clip-alpha", "0.5", "--qk-clip-threshold", "100"],
    ["--log-max-attention-logit"],
    ["--use-torch-fsdp2", "--no-gradient-accumulation-fusion"],
    ["--delay-wgrad-compute"],
    ["--symmetric-ar-type", "two_shot"],
    ["--tensor-model-parallel-size", "3"],
    ["--context-parallel-size", "2"],
    ["--sequence-parallel"],
    ["--recompute-granularity", "selective", "--recompute-modules", "moe_act"],
]


def args_case(path):
    """A case from an .args file, or None when it needs what flags cannot say."""
    words = shlex.split(open(path).read(), comments=False)
    if os.path.basename(os.path.dirname(path)) == "examples":
        return {"name": os.path.relpath(path), "world": ci_world(words),
                "flags": words}  # flags only: the smallest world they fit
    world, release, flags, versions = 1, None, None, {}
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            flags = words[i + 1:]
            break
        if w in ("--world-size", "--megatron-version") and i + 1 < len(words):
            if w == "--world-size":
                world = int(words[i + 1])
            else:
                release = words[i + 1]
            i += 2
            continue
        if w in ("--te-version", "--torch-version") and i + 1 < len(words):
            versions[w[2:].replace("-", "_")] = words[i + 1]  # the run of those judges it
            i += 2
            continue
        if w.startswith("--world-size="):
            world = int(w.split("=", 1)[1])
        elif w.startswith("--megatron-version="):
            release = w.split("=", 1)[1]
        else:
            return None  # an override, a config file or another option
        i += 1
    if flags is None:
        return None
    c = {"name": os.path.relpath(path), "world": world, "flags": flags, **versions}
    envf = path[:-len(".args")] + ".env"
    if os.path.exists(envf):
        env = {}
        for w in shlex.split(open(envf).read()):
            if "=" not in w:
                return None  # -u VAR: not an environment to set
            k, v = w.split("=", 1)
            env[k] = v
        c["env"] = env
    if release:
        c["releases"] = [release]
    return c


def ci_flags(model_args):
    """MODEL_ARGS of a CI model_config.yaml as argv words."""
    out = []
    for k, v in model_args.items():
        if not str(k).startswith("--"):
            continue
        if v is True or (isinstance(v, str) and v.lower() == "true"):
            out.append(k)
        elif v is False or v is None or (isinstance(v, str) and v.lower() == "false"):
            continue
        elif isinstance(v, list):
            out += [k] + [str(x) for x in v]
        else:
            s = str(v)
            if "$" in s:
                s = "/tmp/ci-placeholder"  # a path the CI machine fills in
            out += [k] + s.split()  # nargs='+' values are written space-separated
    return out


def flag_value(flags, name, default):
    if name in flags:
        i = flags.index(name)
        if i + 1 < len(flags):
            try:
                return int(flags[i + 1])
            except ValueError:
                pass
    return default


def ci_world(flags):
    """The smallest world of at least 8 GPUs (one CI node) the sizes fit."""
    tp = flag_value(flags, "--tensor-model-parallel-size", 1)
    pp = flag_value(flags, "--pipeline-model-parallel-size", 1)
    cp = flag_value(flags, "--context-parallel-size", 1)
    ep = flag_value(flags, "--expert-model-parallel-size", 1)
    etp = flag_value(flags, "--expert-tensor-parallel-size", tp)
    mp, emp = tp * pp * cp, etp * ep * pp
    w = mp * emp // math.gcd(mp, emp)
    while w < 8:
        w *= 2
    return w


def ci_cases(release, tree):
    import yaml

    root = os.path.join(tree, "tests/functional_tests/test_cases")
    for path in sorted(glob.glob(root + "/**/model_config.yaml", recursive=True)):
        try:
            doc = yaml.safe_load(open(path))
        except yaml.YAMLError:
            continue
        ma = (doc or {}).get("MODEL_ARGS")
        if not isinstance(ma, dict):
            continue
        flags = ci_flags(ma)
        yield {"name": "ci/%s/%s" % (release, os.path.relpath(os.path.dirname(path), root)),
               "world": ci_world(flags), "flags": flags, "releases": [release]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("srcdir")
    ap.add_argument("--ci", action="append", default=[], metavar="RELEASE=TREE")
    a = ap.parse_args()
    cases = []
    for p in sorted(glob.glob(os.path.join(a.srcdir, "examples/*.args")) +
                    glob.glob(os.path.join(a.srcdir, "tests/configs/*/*.args"))):
        c = args_case(p)
        if c:
            cases.append(c)
    base = [c for c in cases if "/examples/" in "/" + c["name"]]
    for c in base:
        for i, m in enumerate(MUTATIONS):
            cases.append({"name": "%s+m%d(%s)" % (c["name"], i, " ".join(m)), "world": c["world"],
                          "flags": c["flags"] + m})
    for spec in a.ci:
        rel, tree = spec.split("=", 1)
        cases += list(ci_cases(rel, tree))
    for c in cases:
        print(json.dumps(c))


if __name__ == "__main__":
    main()
