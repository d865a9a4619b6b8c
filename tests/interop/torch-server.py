"""mcinit's store client against torch's own TCPStore server (argv: mcinit
binary, a job config).  The server plays torchrun's agent store: mcinit ranks
join it with TORCHELASTIC_USE_AGENT_STORE=True and its key prefix."""
import datetime
import json
import os
import subprocess
import sys

import torch.distributed as dist

MCINIT, JOB = sys.argv[1], sys.argv[2]
failed = 0


def ok(name, cond, detail=""):
    global failed
    print(("ok   " if cond else "FAIL ") + name + ("" if cond else ": " + detail))
    failed += 0 if cond else 1


master = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=datetime.timedelta(seconds=30))
port = master.port


def rank(r, world, *extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLURM_", "OMPI_"))}
    env.update(RANK=str(r), WORLD_SIZE=str(world), LOCAL_RANK=str(r),
               LOCAL_WORLD_SIZE=str(world), MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
               TORCHELASTIC_USE_AGENT_STORE="True", TORCHELASTIC_RESTART_COUNT="0")
    env.pop("MCINIT_STORE_TOKEN", None)
    return subprocess.Popen([MCINIT, "run", "--allow-no-cuda", "--timeout", "10", JOB,
                             "--format=json", *extra], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


ps = [rank(r, 3) for r in range(3)]
outs = [p.communicate(timeout=60) for p in ps]
ok("three ranks meet on torch's server", all(p.returncode == 0 for p in ps),
   " ".join(o[1] for o in outs))
rep = json.loads(outs[0][0]) if outs[0][0] else {}
ok("rank 0's report has the world", rep.get("ok") is True and len(rep.get("ranks", [])) == 3,
   str(rep)[:300])
pre = dist.PrefixStore("/worker/attempt_0", master)
info = json.loads(pre.get("mcinit/rdzv/1"))
ok("keys under the agent store's prefix", info.get("rank") == 1, str(info))

# A missing rank against torch's server: WAIT, CANCEL_WAIT, CHECK through it.
master2 = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=datetime.timedelta(seconds=30))
port = master2.port
p = rank(0, 2, "--timeout", "2")
out, err = p.communicate(timeout=60)
ok("a missing rank is named through torch's server",
   p.returncode == 75 and "rank 1 never arrived" in err, "%d %s" % (p.returncode, err))
print("%d failed" % failed)
sys.exit(1 if failed else 0)
