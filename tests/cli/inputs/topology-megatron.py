"""Checks `mcinit topology --format=json` (on stdin) against an independent
model of Megatron-Core's RankGenerator, written from its description:
a rank is a mixed-radix number over the order string (first token fastest);
a group kind varies its masked dimensions, groups are enumerated in
mixed-radix order of the unmasked coordinates.  Also checks the per-rank
entries (coordinates, node, local rank, seeds) and the partition properties.

Usage: python3 topology-megatron.py [--nproc-per-node N] [--seed S] [--dp-random-init]
       < topology.json
Exit status 0 when everything matches; the first mismatch is printed.
"""
import json
import sys

KINDS = [  # key, grid, dimensions (Megatron-Core creation order)
    ("dp_cp", "dense", "dp-cp"), ("dp", "dense", "dp"), ("cp", "dense", "cp"),
    ("mp", "dense", "tp-pp"), ("tp", "dense", "tp"), ("pp", "dense", "pp"),
    ("embd", "dense", "pp"), ("pos_embd", "dense", "pp"),
    ("tp_dp_cp", "dense", "tp-dp-cp"), ("tp_dp", "dense", "tp-dp"),
    ("tp_cp", "dense", "tp-cp"), ("ep", "expert", "ep"), ("ep_tp", "expert", "tp"),
    ("tp_ep_mp", "expert", "tp-ep"), ("tp_ep_pp", "expert", "tp-ep-pp"),
    ("ep_dp", "expert", "dp"),
]


def digits(value, radices):
    out = []
    for r in radices:
        out.append(value % r)
        value //= r
    return out


def orthogonal_groups(sizes, order, dims):
    names = order.split("-")
    radix = [sizes[n] for n in names]
    stride, s = [], 1
    for r in radix:
        stride.append(s)
        s *= r
    masked = [i for i, n in enumerate(names) if n in dims.split("-")]
    unmasked = [i for i in range(len(names)) if i not in masked]
    gsize = 1
    for i in masked:
        gsize *= radix[i]
    groups = []
    for g in range(s // gsize):
        gd = digits(g, [radix[i] for i in unmasked])
        base = sum(d * stride[i] for d, i in zip(gd, unmasked))
        groups.append([base + sum(d * stride[i] for d, i in
                                  zip(digits(m, [radix[i] for i in masked]), masked))
                       for m in range(gsize)])
    return groups


def expected(doc):
    s, order = doc["sizes"], doc["order"]
    dense = {"tp": s["tp"], "cp": s["cp"], "ep": 1, "dp": s["dp"], "pp": s["pp"]}
    expert = {"tp": s["etp"], "cp": 1, "ep": s["ep"], "dp": s["edp"], "pp": s["pp"]}
    out = {}
    for key, grid, dims in KINDS:
        groups = orthogonal_groups(dense if grid == "dense" else expert, order, dims)
        if key == "embd":
            groups = [[g[0], g[-1]] if len(g) > 1 else [g[0]] for g in groups]
        elif key == "pos_embd":
            groups = [[g[0]] for g in groups]
        out[key] = groups
    return out


def fail(msg):
    print("mismatch:", msg)
    sys.exit(1)


def main():
    npn, seed, dpri, args = None, 1234, False, sys.argv[1:]
    while args:
        opt = args.pop(0)
        if opt == "--nproc-per-node":
            npn = int(args.pop(0))
        elif opt == "--seed":
            seed = int(args.pop(0))
        elif opt == "--dp-random-init":
            dpri = True
        else:
            fail("unknown option " + opt)
    doc = json.load(sys.stdin)
    w, s = doc["world_size"], doc["sizes"]
    want = expected(doc)
    # The classic kinds, in this order; the other kinds a release creates
    # (gtp_remat, intra_dist_opt_instance, ...) are checked against
    # Megatron-Core itself by tests/unit/topo/test-topology-oracle.c.
    classic = [k for k, _, _ in KINDS]
    if [k for k in doc["groups"] if k in classic] != classic:
        fail("group keys %s" % list(doc["groups"]))
    for key, groups in want.items():
        if doc["groups"][key] != groups:
            fail("%s: got %s, want %s" % (key, doc["groups"][key][:4], groups[:4]))
        if key not in ("embd", "pos_embd"):
            seen = sorted(r for g in groups for r in g)
            if seen != list(range(w)):
                fail("%s is not a partition of the ranks" % key)
    if want["pp"] != orthogonal_groups(
            {"tp": s["etp"], "cp": 1, "ep": s["ep"], "dp": s["edp"], "pp": s["pp"]},
            doc["order"], "pp"):
        fail("dense and expert pp groups differ")
    if len(doc["ranks"]) != w:
        fail("%d rank entries for %d ranks" % (len(doc["ranks"]), w))
    # A rank's coordinate along a kind is its position in its group.
    pos = {}
    for key in ("tp", "cp", "dp", "pp", "ep", "ep_tp", "ep_dp"):
        for g in want[key]:
            for i, r in enumerate(g):
                pos[(key, r)] = i
    for e in doc["ranks"]:
        r = e["rank"]
        for field, key in (("tp", "tp"), ("cp", "cp"), ("dp", "dp"), ("pp", "pp"),
                           ("ep", "ep"), ("etp", "ep_tp"), ("edp", "ep_dp")):
            if e[field] != pos[(key, r)]:
                fail("rank %d: %s = %s, want %s" % (r, field, e[field], pos[(key, r)]))
        if npn is not None and (e["node"], e["local_rank"]) != (r // npn, r % npn):
            fail("rank %d: node/local_rank %s/%s" % (r, e["node"], e["local_rank"]))
        if e["seed"] != seed + 100 * e["pp"] + (10 * e["dp"] if dpri else 0):
            fail("rank %d: seed %d" % (r, e["seed"]))
        if e["model_parallel_seed"] != e["seed"] + 2718 + e["tp"]:
            fail("rank %d: model-parallel seed" % r)
        if e["expert_parallel_seed"] != e["seed"] + 1024 + 100 * e["ep"] + e["etp"]:
            fail("rank %d: expert-parallel seed" % r)
    print("ok: %d ranks, %d kinds" % (w, len(KINDS)))


main()
