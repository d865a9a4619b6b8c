"""judge_ovs.py [DIR] < LINES — each line: NAME FILE WS OVERRIDE...; the installed Bridge's
verdict on the recipe dump FILE (in DIR, default tests/bridge/0.6.2; tests/bridge/0.5.1 with the
0.5.1 venv; tests/bridge/main with Bridge main, README) changed by the overrides, as mutations.tsv
rows.  An override's key may go deeper than section.key (model.transformer.num_layers).
VERDICT: accept, reject, or accept-typeerror: Bridge accepts the config at load, but a field it
declares a number holds a str, whose first arithmetic raises TypeError (oraclelib's
typeerror_at_use, BRIDGE_ERROR names the field and the TypeError)."""
import sys, os, io, contextlib, warnings, yaml, json
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "..", "bridge", "0.6.2")
# the rows go to a copy of stdout's descriptor: a judged config may close
# sys.stdout (a logger field naming it), which must not end the run
OUT = os.fdopen(os.dup(1), "w")
with contextlib.redirect_stdout(io.StringIO()):
    import oraclelib
def clean(s):
    return (s or "-").replace("\n", " ").replace("\t", " ")[:200]
def val(v):
    try:
        return json.loads(v)
    except Exception:
        return v
for line in sys.stdin:
    p = line.split()
    if not p:
        continue
    name, f, ws, ovs = p[0], p[1], int(p[2]), p[3:]
    d = yaml.safe_load(open(os.path.join(DIR, f)))
    for kv in ovs:
        k, v = kv.split("=", 1)
        # section.key, or a key of a config nested in a field
        # (model.transformer.num_layers in Bridge main's builder-style models)
        *path, key = k.split(".")
        t = d
        for s in path:
            t = t.setdefault(s, {})
        t[key] = val(v)
    path = "/tmp/camp/%s.yaml" % name
    os.makedirs("/tmp/camp", exist_ok=True)
    yaml.safe_dump(d, open(path, "w"), default_flow_style=False, sort_keys=False)
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        j = oraclelib.judge_file(path, ws)
    pc = j.get("post_checks") or {}
    bad = [k for k in ("microbatches", "parallel_state") if isinstance(pc.get(k), dict) and not pc[k].get("ok", True)]
    err = clean(j.get("error"))
    v = "accept" if j.get("accepted") and not bad else "reject"
    if j.get("accepted") and bad:
        err = "post-check " + ",".join(bad)
    elif v == "accept" and j.get("typeerror_at_use"):
        v, err = "accept-typeerror", clean("; ".join(j["typeerror_at_use"]))
    print("%s\t%s\t%d\t%s\t%s\t%s\t-" % (name, f, ws, " ".join(ovs), v, err), file=OUT,
          flush=True)
