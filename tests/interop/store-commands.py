"""Every command of torch's TCPStore protocol, sent by torch's own client,
against `mcinit store` and against torch's own server side by side
(argv: mcinit binary).

The commands are read from the torch being run: its QueryType enum in the
TCPStoreBackend.hpp its wheel ships.  Each command has a scenario below,
run on a fresh server of each kind; the results must be equal (and what
the scenario asserts must hold).  A command of this torch without a
scenario fails, so a newer torch's new command cannot pass unseen.
Prints one line per command: "ok   CODE NAME: what" or "FAIL CODE NAME: why".
"""
import datetime
import glob
import os
import re
import subprocess
import sys
import threading

import torch
import torch.distributed as dist

MCINIT = sys.argv[1]
T = datetime.timedelta(seconds=10)
SHORT = datetime.timedelta(milliseconds=400)


def commands():
    """QueryType's names in order (their codes), from this torch's header."""
    root = os.path.join(os.path.dirname(torch.__file__), "include")
    hdrs = glob.glob(root + "/torch/csrc/distributed/c10d/**/TCPStoreBackend.hpp", recursive=True)
    if not hdrs:
        sys.exit("no TCPStoreBackend.hpp under %s: cannot tell this torch's commands" % root)
    text = open(hdrs[0]).read()
    body = re.search(r"enum class QueryType\s*:\s*uint8_t\s*\{([^}]*)\}", text).group(1)
    body = re.sub(r"//[^\n]*", "", body)
    return [n.strip().split("=")[0].strip() for n in body.split(",") if n.strip()]


class Mcinit:
    def __enter__(self):
        env = dict(os.environ)
        env.pop("MCINIT_STORE_TOKEN", None)
        self.p = subprocess.Popen([MCINIT, "store", "--host", "127.0.0.1", "--port", "0"],
                                  stderr=subprocess.PIPE, text=True, env=env)
        self.port = int(self.p.stderr.readline().rsplit(":", 1)[1])
        return self

    def client(self):
        return dist.TCPStore("127.0.0.1", self.port, is_master=False, timeout=T)

    def __exit__(self, *a):
        self.p.terminate()
        self.p.wait()


class Torch:
    def __enter__(self):
        self.master = dist.TCPStore("127.0.0.1", 0, is_master=True, timeout=T)
        self.port = self.master.port
        return self

    def client(self):
        return dist.TCPStore("127.0.0.1", self.port, is_master=False, timeout=T)

    def __exit__(self, *a):
        del self.master


def raises(f):
    try:
        f()
        return "returned"
    except Exception as e:  # DistStoreError, RuntimeError
        return "raised " + ("timeout" if "timeout" in str(e).lower() else type(e).__name__)


def in_thread(f):
    out = []
    th = threading.Thread(target=lambda: out.append(f()))
    th.start()
    return th, out


# Each scenario: srv -> a value to compare between the two servers.
def s_validate(srv):
    srv.client()  # VALIDATE (and PING) on connecting
    return "connected"


def s_set(srv):
    s = srv.client()
    s.set("k", "v")
    s.set("k", b"\x00w")
    return s.get("k")


def s_compare_set(srv):
    s = srv.client()
    s.set("a", "1")
    return [s.compare_set("a", "1", "2"), s.compare_set("a", "x", "3"),
            s.compare_set("zz", "x", "y"), s.compare_set("new", "", "n"), s.get("a")]


def s_get(srv):
    s, t = srv.client(), srv.client()
    th, out = in_thread(lambda: t.get("late"))  # WAIT, then GET once it is set
    s.set("late", "here")
    th.join(10)
    return [s.get("late"), out]


def s_add(srv):
    s = srv.client()
    s.set("t", "40")
    return [s.add("n", 5), s.add("n", -7), s.get("n"), s.add("t", 2)]


def s_check(srv):
    s = srv.client()
    s.set("a", "1")
    return [s.check(["a"]), s.check(["a", "nope"]), s.check([])]


def s_wait(srv):
    s, t = srv.client(), srv.client()
    s.set("a", "1")
    s.wait(["a"])
    th, out = in_thread(lambda: (t.wait(["b", "c"]), "woke")[1])
    s.set("b", "1")
    s.set("c", "1")
    th.join(10)
    return out


def s_getnumkeys(srv):
    s = srv.client()
    s.set("a", "1")
    s.set("b", "1")
    s.add("c", 1)
    s.delete_key("b")
    return s.num_keys()


def s_delete_key(srv):
    s = srv.client()
    s.set("a", "1")
    return [s.delete_key("a"), s.delete_key("a"), s.check(["a"])]


def s_append(srv):
    s = srv.client()
    s.append("m", "x")
    s.append("m", "yz")
    return s.get("m")


def s_multi_get(srv):
    s = srv.client()
    s.set("m1", "v1")
    s.set("m2", "")
    return s.multi_get(["m1", "m2", "m1"])


def s_multi_set(srv):
    s, t = srv.client(), srv.client()
    th, out = in_thread(lambda: t.multi_get(["x", "y"]))  # waits for both
    s.multi_set(["x", "y"], ["1", "2"])
    th.join(10)
    return [out, s.get("x"), s.get("y")]


def s_cancel_wait(srv):
    s = srv.client()
    r = raises(lambda: s.wait(["never"], SHORT))  # WAIT times out: CANCEL_WAIT
    s.set("a", "1")
    return [r, s.get("a")]


def s_ping(srv):
    s = srv.client()  # PING on connecting, as VALIDATE
    s.set("p", "1")
    return s.get("p")


def s_queue(srv):
    s, t = srv.client(), srv.client()
    s.queue_push("q", "x1")
    s.queue_push("q", "x2")
    n = s.queue_len("q")
    a, b = s.queue_pop("q"), s.queue_pop("q", block=False)
    th, out = in_thread(lambda: t.queue_pop("q"))  # waits for a push
    s.queue_push("q", "x3")
    th.join(10)
    return [n, a, b, out, s.queue_len("q"), raises(lambda: s.queue_pop("q", block=False))]


def s_list_keys(srv):
    s = srv.client()
    s.set("a", "1")
    s.add("n", 1)
    s.append("m", "x")
    s.queue_push("q", "x")  # a queue is no key
    return sorted(s.list_keys())


def s_barrier(srv):
    a, b = srv.client(), srv.client()
    th, out = in_thread(lambda: (a.barrier("b", 2), "passed")[1])
    b.barrier("b", 2)
    th.join(10)
    alone = raises(lambda: a.barrier("b2", 2, SHORT))  # times out: CANCEL_WAIT
    again = (b.barrier("b", 2), "passed")[1]  # a third arrival: already full
    return [out, alone, again, a.get("b"), a.get("b2"), a.check(["b"])]


SCENARIOS = {
    "VALIDATE": (s_validate, "a client connects"),
    "SET": (s_set, "set, overwrite, binary value"),
    "COMPARE_SET": (s_compare_set, "swap, wrong expected, missing key, create"),
    "GET": (s_get, "get of a present key, and one that waits until it is set"),
    "ADD": (s_add, "add to a new key, a negative delta, to a decimal value"),
    "CHECK": (s_check, "present, one missing, none"),
    "WAIT": (s_wait, "present key; two keys set later wake the waiter"),
    "GETNUMKEYS": (s_getnumkeys, "values counted after set, add and delete"),
    "DELETE_KEY": (s_delete_key, "present, then gone"),
    "APPEND": (s_append, "to a missing key, then to it"),
    "MULTI_GET": (s_multi_get, "values in order, an empty one, a repeated key"),
    "MULTI_SET": (s_multi_set, "sets both, wakes a multi_get waiting for them"),
    "CANCEL_WAIT": (s_cancel_wait, "a wait that times out, then the client goes on"),
    "PING": (s_ping, "a client connects and is served"),
    "QUEUE_PUSH": (s_queue, "push, len, pop, pop without blocking, a pop that waits"),
    "QUEUE_POP": (s_queue, "as QUEUE_PUSH"),
    "QUEUE_LEN": (s_queue, "as QUEUE_PUSH"),
    "LIST_KEYS": (s_list_keys, "keys set, added and appended; not a queue"),
    "BARRIER": (s_barrier, "two arrivals pass, one alone times out, a third passes"),
}


def main():
    failed = 0
    done = {}
    print("# torch %s" % torch.__version__)
    for code, name in enumerate(commands()):
        if name not in SCENARIOS:
            print("FAIL %d %s: a command of this torch with no scenario here" % (code, name))
            failed += 1
            continue
        fn, what = SCENARIOS[name]
        try:
            if fn not in done:
                with Torch() as t:
                    want = fn(t)
                with Mcinit() as m:
                    got = fn(m)
                done[fn] = (want, got)
            want, got = done[fn]
        except Exception as e:
            print("FAIL %d %s: %s: %s" % (code, name, type(e).__name__, e))
            failed += 1
            continue
        if want != got:
            print("FAIL %d %s: torch's server gave %r, mcinit's %r" % (code, name, want, got))
            failed += 1
        else:
            print("ok   %d %s: %s: %r" % (code, name, what, got))
    sys.exit(1 if failed else 0)


main()
