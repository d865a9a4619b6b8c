"""torch's own TCPStore client against `mcinit store` (argv: mcinit binary).

Every Store method torch has for a TCPStore, checked against what torch's
own server answers; then the job token.  Prints one line per check."""
import datetime
import os
import subprocess
import sys

import torch.distributed as dist

MCINIT = sys.argv[1]
T = datetime.timedelta(seconds=10)


def serve(token=None):
    env = dict(os.environ)
    env.pop("MCINIT_STORE_TOKEN", None)
    if token:
        env["MCINIT_STORE_TOKEN"] = token
    p = subprocess.Popen([MCINIT, "store", "--host", "127.0.0.1", "--port", "0"],
                         stderr=subprocess.PIPE, text=True, env=env)
    line = p.stderr.readline()
    return p, int(line.rsplit(":", 1)[1])


def ok(name, cond):
    print(("ok   " if cond else "FAIL ") + name)
    if not cond:
        global failed
        failed += 1


failed = 0
srv, port = serve()
try:
    s = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=T)  # VALIDATE + PING
    s.set("a", "1")
    ok("set/get", s.get("a") == b"1")
    ok("add", s.add("n", 5) == 5 and s.add("n", -7) == -2 and s.get("n") == b"-2")
    s.wait(["a"])
    ok("wait (present)", True)
    ok("compare_set swap", s.compare_set("a", "1", "2") == b"2" and s.get("a") == b"2")
    ok("compare_set wrong expected", s.compare_set("a", "x", "3") == b"2")
    ok("compare_set missing key", s.compare_set("zz", "x", "y") == b"x")
    ok("compare_set create", s.compare_set("new", "", "n") == b"n")
    ok("num_keys", s.num_keys() == 3)  # a, n, new: as torch's own server counts
    s.multi_set(["m1", "m2"], ["v1", "v2"])
    ok("multi_set/multi_get", s.multi_get(["m1", "m2"]) == [b"v1", b"v2"])
    s.append("m1", "x")
    ok("append", s.get("m1") == b"v1x")
    ok("check", s.check(["m1", "m2"]) and not s.check(["m1", "nope"]))
    ok("delete_key", s.delete_key("m2") and not s.delete_key("m2"))
    try:
        s.wait(["never"], datetime.timedelta(milliseconds=500))
        ok("wait timeout", False)
    except Exception as e:  # DistStoreError / RuntimeError
        ok("wait timeout", "timeout" in str(e).lower())
    ok("usable after a cancelled wait", s.get("a") == b"2")
    if hasattr(s, "queue_push"):
        s.queue_push("q", "x1")
        s.queue_push("q", "x2")
        ok("queue", s.queue_len("q") == 2 and s.queue_pop("q") == b"x1"
           and s.queue_pop("q", block=False) == b"x2")
    # a second client waits; this one sets: the waiter wakes
    w = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=T)
    import threading
    got = []
    th = threading.Thread(target=lambda: got.append(w.get("late")))
    th.start()
    s.set("late", "here")
    th.join(10)
    ok("a waiting get wakes", got == [b"here"])
    # world_size: the ADD on init/ of torch's wait-for-workers
    dist.TCPStore("127.0.0.1", port, world_size=2, is_master=False, timeout=T)
    ok("init/ counter", True)
    p = dist.PrefixStore("/worker/attempt_0", s)
    p.set("k", "v")
    ok("PrefixStore", p.get("k") == b"v" and s.get("/worker/attempt_0/k") == b"v")
finally:
    srv.terminate()
    srv.wait()

# The job token.
srv, port = serve("sekrit")
try:
    s = dist.TCPStore("127.0.0.1", port, world_size=3, is_master=False, timeout=T)
    ok("token: VALIDATE, PING and init/ before auth", True)
    s.set("mcinit/auth", "sekrit")
    s.set("x", "1")
    ok("token: after auth", s.get("x") == b"1")
    bad = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=T)
    try:
        bad.set("y", "1")
        bad.get("y")
        ok("token: refused without auth", False)
    except Exception:
        ok("token: refused without auth", True)
    wrong = dist.TCPStore("127.0.0.1", port, is_master=False, timeout=T)
    try:
        wrong.set("mcinit/auth", "guess")
        wrong.get("x")
        ok("token: wrong token refused", False)
    except Exception:
        ok("token: wrong token refused", True)
    ok("token: the store lives on", s.get("x") == b"1")
finally:
    srv.terminate()
    srv.wait()
print("%d failed" % failed)
sys.exit(1 if failed else 0)
