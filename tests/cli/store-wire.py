"""TCPStore's wire, spoken byte by byte to `mcinit store` (no torch needed):
torch 2.15's LIST_KEYS and BARRIER, and commands the protocol lacks.

argv: PORT CASE.  Exits 0 when the case holds; prints what it got."""
import socket
import struct
import sys

PORT, CASE = int(sys.argv[1]), sys.argv[2]
SET, GET, ADD, CANCEL_WAIT, LIST_KEYS, BARRIER = 1, 3, 4, 12, 17, 18
STOP_WAITING, WAIT_CANCELED = 0, 1


def conn():
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    s.sendall(bytes([0]) + struct.pack("<I", 0x3C85F7CE))  # VALIDATE
    return s


def frame(cmd, *args):
    out = bytes([cmd])
    for a in args:
        if isinstance(a, int):
            out += struct.pack("<q", a)
        else:
            a = a.encode() if isinstance(a, str) else a
            out += struct.pack("<Q", len(a)) + a
    return out


def recv(s, n):
    b = b""
    while len(b) < n:
        c = s.recv(n - len(b))
        if not c:
            raise EOFError("closed after %d of %d bytes" % (len(b), n))
        b += c
    return b


def rd_u64(s):
    return struct.unpack("<Q", recv(s, 8))[0]


def rd_vec(s):
    return recv(s, rd_u64(s))


def get(s, k):
    s.sendall(frame(GET, k))
    return rd_vec(s)


def closed(s):
    s.settimeout(10)
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


def case_list_keys():
    s = conn()
    s.sendall(frame(SET, "/a", "1") + frame(ADD, "/n", 2))
    recv(s, 8)
    s.sendall(frame(LIST_KEYS))
    n = rd_u64(s)
    keys = sorted(rd_vec(s) for _ in range(n))
    print(n, keys)
    return keys == [b"/a", b"/n"]


def case_barrier():
    a, b = conn(), conn()
    a.sendall(frame(BARRIER, "/b", 2))
    a.settimeout(0.3)
    try:
        early = a.recv(1)
    except socket.timeout:
        early = None
    b.sendall(frame(BARRIER, "/b", 2))
    a.settimeout(10)
    got = recv(a, 1), recv(b, 1)
    # alone in a barrier of 2: cancelled, then the client goes on
    a.sendall(frame(BARRIER, "/c", 2))
    a.sendall(frame(CANCEL_WAIT))
    cancel = recv(a, 1)
    count = get(a, "/b"), get(a, "/c")
    print(early, got, cancel, count)
    return (early is None and got == (bytes([STOP_WAITING]),) * 2
            and cancel == bytes([WAIT_CANCELED]) and count == (b"2", b"1"))


def case_barrier_not_a_number():
    s = conn()
    s.sendall(frame(SET, "/x", "abc") + frame(BARRIER, "/x", 2))
    return closed(s)


def case_unknown(code):
    s = conn()
    s.sendall(frame(SET, "/k", "v") + bytes([code]) + b"\0" * 16)
    ok = closed(s)
    t = conn()  # the store goes on
    v = get(t, "/k")
    print(ok, v)
    return ok and v == b"v"


CASES = {"list-keys": case_list_keys, "barrier": case_barrier,
         "barrier-not-a-number": case_barrier_not_a_number,
         "unknown-19": lambda: case_unknown(19), "unknown-200": lambda: case_unknown(200)}
sys.exit(0 if CASES[CASE]() else 1)
