"""campaign_cmp.py MCINIT ROWS.tsv — mcinit's verdict on each campaign row beside Bridge's."""
import subprocess, sys, os, collections
mc, rows = sys.argv[1], sys.argv[2]
REL = os.environ.get("BRIDGE_RELEASE", "0.6.2")  # as campaign.py
DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bridge", REL)
cnt = collections.Counter()
import re
LATER = {"MC042", "MC020", "MC018", "MC016", "MC019", "MC034"}
for line in open(rows):
    name, f, ws, ovs, verdict, err, pce = line.rstrip("\n").split("\t")
    strict = "accept" if verdict == "accept" and pce == "-" else "reject"
    r = subprocess.run([mc, "validate", "--bridge-version", REL, "--world-size", ws, f] + ovs.split(" "), cwd=DIR,
                       capture_output=True, text=True, env=dict(os.environ, HOME="/nonexistent"))
    m = {0: "accept", 1: "reject"}.get(r.returncode, "rc%d" % r.returncode)
    codes = set(re.findall(r"error\[(MC\d+)\]", r.stdout + r.stderr))
    # Refused after runtime_config_update, where the oracle stops: at initialize
    # (seed > 0), at model build (transformer_block: layers % PP; moe_layer:
    # experts % EP; TE attention: heads % query groups).
    if m == "reject" and strict == "accept" and codes and codes <= LATER:
        cnt["later_reject"] += 1
        continue
    cls = "agree" if m == strict else ("FALSE_ERROR" if m == "reject" else ("MISSED" if m == "accept" else "OTHER"))
    cnt[cls] += 1
    if cls != "agree" or "-v" in sys.argv:
        errs = [l for l in (r.stdout + r.stderr).splitlines() if "error[" in l or "warning[" in l][:4]
        print("%s %s ws=%s %s\n   bridge=%s (%s; post:%s)\n   mcinit=%s %s" % (cls, f, ws, ovs, verdict, err[:160], pce, m, " | ".join(errs)[:400]))
print(dict(cnt))
