"""Attacks on `mcinit store`, spoken byte by byte (no torch needed): the
token bypass matrix, replies that would not fit the memory bound, and
connections past the open-file limit.

argv: PORT CASE [ARGS].  Exits 0 when the case holds; prints what it got."""
import os
import select
import socket
import struct
import sys
import time

PORT, CASE = int(sys.argv[1]), sys.argv[2]
ARGS = sys.argv[3:]
(VALIDATE, SET, COMPARE_SET, GET, ADD, CHECK, WAIT, GETNUMKEYS, DELETE_KEY, APPEND,
 MULTI_GET, MULTI_SET, CANCEL_WAIT, PING, QUEUE_PUSH, QUEUE_POP, QUEUE_LEN, LIST_KEYS,
 BARRIER) = range(19)
MAGIC = 0x3C85F7CE
MIB = 1 << 20


def u64(v):
    return struct.pack("<Q", v)


def vec(b):
    b = b.encode() if isinstance(b, str) else b
    return u64(len(b)) + b


def conn(validate=True):
    s = socket.create_connection(("127.0.0.1", PORT), timeout=10)
    if validate:
        s.sendall(bytes([VALIDATE]) + struct.pack("<I", MAGIC))
    return s


def recv(s, n):
    b = bytearray()
    while len(b) < n:
        c = s.recv(min(n - len(b), 1 << 20))
        if not c:
            raise EOFError("closed after %d of %d bytes" % (len(b), n))
        b += c
    return bytes(b)


def rd_u64(s):
    return struct.unpack("<Q", recv(s, 8))[0]


def closed(s, timeout=10):
    """True when the store closes s without a byte of reply."""
    s.settimeout(timeout)
    try:
        return s.recv(1) == b""
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def send(s, data):
    """sendall that tolerates the store closing the connection first."""
    try:
        s.sendall(data)
    except (ConnectionResetError, BrokenPipeError):
        pass


def auth(s, token):
    s.sendall(bytes([SET]) + vec("/mcinit/auth") + vec(token))


def ping(s, nonce=0x1234):
    s.sendall(bytes([PING]) + struct.pack("<I", nonce))
    return struct.unpack("<I", recv(s, 4))[0] == nonce


def key_of(n):
    """A key of n bytes; from 12 bytes on it ends in /mcinit/open, the
    suffix whose SET lifts the token."""
    if n < len("/mcinit/open"):
        return b"k" * n
    return b"k" * (n - len("/mcinit/open")) + b"/mcinit/open"


def request(cmd, key):
    """A whole request of command cmd naming key (when it names one)."""
    k = vec(key)
    if cmd == VALIDATE:
        return bytes([cmd]) + struct.pack("<I", MAGIC)
    if cmd == PING:
        return bytes([cmd]) + struct.pack("<I", 7)
    if cmd in (SET, APPEND, QUEUE_PUSH):
        return bytes([cmd]) + k + vec("v")
    if cmd == COMPARE_SET:
        return bytes([cmd]) + k + vec("") + vec("v")
    if cmd in (GET, DELETE_KEY, QUEUE_POP, QUEUE_LEN):
        return bytes([cmd]) + k
    if cmd in (ADD, BARRIER):
        return bytes([cmd]) + k + struct.pack("<q", 1)
    if cmd in (CHECK, WAIT, MULTI_GET):
        return bytes([cmd]) + u64(1) + k
    if cmd == MULTI_SET:
        return bytes([cmd]) + u64(1) + k + vec("v")
    return bytes([cmd])  # GETNUMKEYS, CANCEL_WAIT, LIST_KEYS, unknown codes


def case_token_matrix():
    """Every command, without the token and with a wrong one, naming keys of
    0, 64, 65, 4096 and 1 MiB bytes: refused, its connection closed without a
    reply (VALIDATE and PING excepted: they need no token), and nothing
    stored; the token still holds after."""
    token = ARGS[0]
    bad = []
    for mode in ("missing", "wrong"):
        for cmd in list(range(19)) + [19, 200]:
            for n in (0, 64, 65, 4096, MIB):
                s = conn()
                if mode == "wrong":
                    send(s, bytes([SET]) + vec("/mcinit/auth") + vec(token[:-1] + "x"))
                send(s, request(cmd, key_of(n)))
                if cmd in (VALIDATE, PING) and mode == "missing":
                    ok = cmd == VALIDATE or recv(s, 4) == struct.pack("<I", 7)
                    ok = ok and ping(s)  # still served
                else:
                    ok = closed(s, 3)
                if not ok:
                    bad.append((mode, cmd, n))
                s.close()
    # the right token: nothing was stored, the store is still closed
    s = conn()
    auth(s, token)
    s.sendall(bytes([GETNUMKEYS]))
    nkeys = struct.unpack("<q", recv(s, 8))[0]
    t = conn()
    t.sendall(bytes([GET]) + vec("/x"))
    still = closed(t)
    print("refused wrongly:", bad, "keys:", nkeys, "token still holds:", still)
    return not bad and nkeys == 0 and still


def case_token_prefix():
    """Half a request that can no longer be an allowed one (a key length
    other than the auth key's) is refused at once, not held for later; half
    of the auth key waits, and the token completes it."""
    token = ARGS[0]
    s = conn()
    s.sendall(bytes([SET]) + u64(65) + b"k" * 10)
    t0 = time.monotonic()
    quick = closed(s, 5) and time.monotonic() - t0 < 2
    a = conn()
    whole = bytes([SET]) + vec("/mcinit/auth") + vec(token)
    a.sendall(whole[:12])
    a.settimeout(0.3)
    try:
        early = a.recv(1)
    except socket.timeout:
        early = None
    a.settimeout(10)
    a.sendall(whole[12:])
    a.sendall(bytes([SET]) + vec(b"k" * 65) + vec("v") + bytes([GET]) + vec(b"k" * 65))
    v = recv(a, 9)
    print("refused at once:", quick, "early:", early, "value:", v)
    return quick and early is None and v == u64(1) + b"v"


def vm_hwm(pid):
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def well_behaved(big):
    """A client that reads its replies: served, the large value intact."""
    s = conn()
    s.sendall(bytes([SET]) + vec("/small") + vec("ok") + bytes([GET]) + vec("/small"))
    small = recv(s, 10) == u64(2) + b"ok"
    s.sendall(bytes([GET]) + vec("/big"))
    v = recv(s, 8 + big)
    return small and v == u64(big) + b"b" * big


def case_multi_get():
    """One MULTI_GET of ~20 KB naming an 8 MiB value 1,000 times: refused
    (its reply would be 8 GB), and the store goes on."""
    pid, big = ARGS[0], 8 * MIB
    s = conn()
    s.sendall(bytes([SET]) + vec("/big") + vec(b"b" * big) + bytes([PING]) + struct.pack("<I", 1))
    recv(s, 4)
    req = bytes([MULTI_GET]) + u64(1000) + vec("/big") * 1000
    a = conn()
    send(a, req)
    refused = closed(a, 30)
    served = well_behaved(big)
    print("request bytes:", len(req), "refused:", refused, "served after:", served,
          "store VmHWM kB:", vm_hwm(pid))
    return refused and served


def case_slow_reader():
    """A client that pipelines GETs of an 8 MiB value and never reads: the
    store stops reading from it, its memory stays bounded, and a client that
    reads is served meanwhile."""
    pid, big = ARGS[0], 8 * MIB
    s = conn()
    s.sendall(bytes([SET]) + vec("/big") + vec(b"b" * big) + bytes([PING]) + struct.pack("<I", 1))
    recv(s, 4)
    r = conn()
    r.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    r.settimeout(0.2)
    get = bytes([GET]) + vec("/big")
    sent = 0
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline and sent < 4000 * len(get):
        try:
            sent += r.send(get * 100)
        except socket.timeout:
            break  # the store stopped reading: the sockets are full
        except (ConnectionResetError, BrokenPipeError):
            break
    time.sleep(1)
    served = well_behaved(big)
    hwm = vm_hwm(pid)
    print("GETs sent:", sent // len(get), "(%d MiB of replies asked)" % (sent // len(get) * 8),
          "served meanwhile:", served, "store VmHWM kB:", hwm)
    r.close()
    time.sleep(0.5)
    return served and well_behaved(big)


def cpu_ticks(pid):
    with open("/proc/%s/stat" % pid) as f:
        f = f.read().rsplit(")", 1)[1].split()
    return int(f[11]) + int(f[12])  # utime + stime


def case_fd_limit():
    """More connections than the store's open-file limit allows: each is
    served or closed, the store does not spin while they wait (CPU time over
    2 s stays small), and it serves again once they are gone."""
    pid, n = ARGS[0], int(ARGS[1])
    socks, served, closed_n = [], 0, 0
    for _ in range(n):
        s = conn(validate=False)
        send(s, bytes([VALIDATE]) + struct.pack("<I", MAGIC) + bytes([PING]) +
             struct.pack("<I", 5))
        socks.append(s)
    pending = {s.fileno(): s for s in socks}
    deadline = time.monotonic() + 5
    while pending and time.monotonic() < deadline:
        ready, _, _ = select.select(list(pending), [], [], 0.2)
        for fd in ready:
            s = pending.pop(fd)
            try:
                b = s.recv(4)
            except (ConnectionResetError, BrokenPipeError):
                b = b""
            if b == struct.pack("<I", 5):
                served += 1
            elif b == b"":
                closed_n += 1
    hz = os.sysconf("SC_CLK_TCK")
    t0 = cpu_ticks(pid)
    time.sleep(2)
    spent = (cpu_ticks(pid) - t0) / hz
    for s in socks:
        s.close()
    time.sleep(0.3)
    again = ping(conn())
    print("connections:", n, "served:", served, "closed:", closed_n,
          "store CPU over 2 s: %.2f s" % spent, "serves after:", again)
    return served + closed_n == n and spent < 0.5 and again


def case_token_ok():
    """A long token (argv) opens the store; one cut short does not."""
    token = ARGS[0]
    s = conn()
    auth(s, token)
    ok = ping(s)
    t = conn()
    auth(t, token[:127])
    cut = closed(t)
    print("token of", len(token), "bytes accepted:", ok, "cut one refused:", cut)
    return ok and cut


CASES = {"token-matrix": case_token_matrix, "token-prefix": case_token_prefix,
         "multi-get": case_multi_get, "slow-reader": case_slow_reader,
         "fd-limit": case_fd_limit, "token-ok": case_token_ok}
sys.exit(0 if CASES[CASE]() else 1)
