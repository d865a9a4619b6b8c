#!/usr/bin/env python3
"""gen-store-corpus.py DIR — writes the seed corpora of the store's fuzz
targets: DIR/store-frame/ (one request each, the bytes torch's TCPStore
client sends: its "/" key prefix, u64 lengths, raw little-endian integers)
and DIR/store-session/ (sequences of them from three connections, in the
input format of fuzz-store-session.c).  The seeds are committed; this script
says where they came from."""
import os
import struct
import sys

MAGIC = 0x3C85F7CE


def s(b):
    b = b.encode() if isinstance(b, str) else b
    return struct.pack("<Q", len(b)) + b


def keys(ks):
    return struct.pack("<Q", len(ks)) + b"".join(s(k) for k in ks)


FRAMES = {
    "validate": b"\x00" + struct.pack("<I", MAGIC),
    "set": b"\x01" + s("/k") + s("v"),
    "compare-set": b"\x02" + s("/k") + s("v") + s("w"),
    "compare-set-missing": b"\x02" + s("/new") + s("") + s("first"),
    "get": b"\x03" + s("/k"),
    "add": b"\x04" + s("/counter") + struct.pack("<q", 1),
    "add-init": b"\x04" + s("init/") + struct.pack("<q", 1),
    "check": b"\x05" + keys(["/a", "/b"]),
    "wait": b"\x06" + keys(["/mcinit/rdzv/0", "/mcinit/rdzv/1"]),
    "numkeys": b"\x07",
    "delete": b"\x08" + s("/k"),
    "append": b"\x09" + s("/log") + s("line\n"),
    "multi-get": b"\x0a" + keys(["/a", "/b", "/c"]),
    "multi-set": b"\x0b" + struct.pack("<Q", 2) + s("/a") + s("1") + s("/b") + s("2"),
    "cancel-wait": b"\x0c",
    "ping": b"\x0d" + struct.pack("<I", 0x6D63696E),
    "queue-push": b"\x0e" + s("/q") + s("item"),
    "queue-pop": b"\x0f" + s("/q"),
    "queue-len": b"\x10" + s("/q"),
    "list-keys": b"\x11",  # torch >= 2.10
    "barrier": b"\x12" + s("/b") + struct.pack("<q", 2),  # torch >= 2.15
    "auth": b"\x01" + s("/mcinit/auth") + s("tok"),
    "agent-prefix-set": b"\x01" + s("//worker/attempt_0/mcinit/phase/1") + s("groups"),
}


def chunk(sel, data):
    out = b""
    while True:  # a chunk holds 255 bytes at most: longer data takes several
        out += bytes([sel, min(len(data), 255)]) + data[:255]
        data = data[255:]
        sel &= 3
        if not data:
            return out


F = FRAMES
hello = F["validate"] + F["ping"]
SESSIONS = {
    # torch >= 2.5 connects: VALIDATE, PING, then the init/ counter
    "torch-connect": b"\x00" + chunk(0, hello + F["add-init"]),
    # a rendezvous: 0 waits for both keys, 1 and 2 set one each, 0 reads
    "rendezvous": b"\x00"
    + chunk(0, hello + b"\x06" + keys(["/r/1", "/r/2"]))
    + chunk(1, hello + b"\x01" + s("/r/1") + s("x"))
    + chunk(2, hello + b"\x01" + s("/r/2") + s("y"))
    + chunk(0, b"\x0a" + keys(["/r/1", "/r/2"])),
    # a waiter dropped while waiting, a fresh connection in its place
    "wait-then-drop": b"\x00"
    + chunk(0, b"\x06" + keys(["/never"]))
    + chunk(0x80, hello + F["set"] + F["get"]),
    "cancel": b"\x00" + chunk(1, b"\x06" + keys(["/late"]) + F["cancel-wait"]),
    "token": b"\x01"
    + chunk(0, hello + F["add-init"] + F["auth"] + F["set"])
    + chunk(1, hello + F["set"]),
    "counters": b"\x00"
    + chunk(0, F["add"] * 3 + F["compare-set"] + F["compare-set-missing"] + F["numkeys"])
    + chunk(1, F["set"] + F["append"] * 2 + F["delete"] + F["check"]),
    "queues": b"\x00"
    + chunk(0, F["queue-pop"] + F["queue-len"])
    + chunk(1, F["queue-push"] * 2 + F["queue-len"] + F["queue-pop"]),
    "multi": b"\x00" + chunk(2, F["multi-set"] + F["multi-get"] + F["numkeys"]),
    # torch 2.15's server-side barrier: 0 waits, 1 completes it, 2 lists
    "barrier": b"\x00"
    + chunk(0, hello + F["barrier"])
    + chunk(1, hello + F["barrier"] + F["barrier"])
    + chunk(2, hello + F["set"] + F["list-keys"] + F["barrier"] + F["cancel-wait"]),
    "big-value": b"\x00" + chunk(0, b"\x01" + s("/big") + s(b"z" * 1000) + F["get"]),
}


def main():
    root = sys.argv[1]
    for name, table in (("store-frame", FRAMES), ("store-session", SESSIONS)):
        d = os.path.join(root, name)
        os.makedirs(d, exist_ok=True)
        for k, v in table.items():
            with open(os.path.join(d, "seed-" + k), "wb") as f:
                f.write(v)


main()
