#!/usr/bin/env python3
"""Black-box fuzzing of the mcinit command line (make fuzz).

Mutates the bundled examples (JSON text and Megatron flag lists), mixes in
overrides and odd bytes, and runs `mcinit validate` / `mcinit topology` on
them.  Any exit status outside the documented set (0, 1, 64, 65, 66), any
signal, any sanitizer report or any run longer than 10 s is a failure.
Usage: fuzz-cli.py MCINIT SRCDIR [SECONDS] [SEED]
"""
import glob
import os
import random
import subprocess
import sys
import tempfile
import time

ALLOWED = {0, 1, 64, 65, 66}
ODD = ["\xff", "", "-1", "0", "1e9", "9" * 30, "null", "[1,2]", "False", "--", "=", "é", "\x00x"]


def mutate_text(rng, text):
    b = bytearray(text.encode())
    for _ in range(rng.randint(1, 8)):
        op = rng.randrange(4)
        pos = rng.randrange(len(b) + 1)
        if op == 0 and b:
            del b[pos % len(b)]
        elif op == 1:
            b[pos:pos] = rng.choice([b"{", b"}", b"\"", b",", b"0", b"-", b"\\u00", b"\xff", b"[", b":"])
        elif op == 2 and b:
            b[pos % len(b)] = rng.randrange(256)
        else:
            i = rng.randrange(len(b) + 1)
            b[pos:pos] = b[i:i + rng.randint(1, 40)]
    return bytes(b)


def mutate_words(rng, words):
    words = list(words)
    for _ in range(rng.randint(1, 6)):
        op = rng.randrange(4)
        i = rng.randrange(len(words) + 1)
        if op == 0 and words:
            del words[i % len(words)]
        elif op == 1:
            words.insert(i, rng.choice(ODD))
        elif op == 2 and words:
            w = words[i % len(words)]
            words[i % len(words)] = w[: rng.randrange(len(w) + 1)] + rng.choice(ODD)
        else:
            words.insert(i, rng.choice(words) if words else "--seed")
    return [w.replace("\x00", "") for w in words]


def run(mcinit, args, stdin_path=None):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")
    t = time.time()
    try:
        p = subprocess.run([mcinit] + args, capture_output=True, timeout=10, env=env)
    except subprocess.TimeoutExpired:
        return "timeout", None
    err = p.stderr.decode("utf-8", "replace")
    if p.returncode not in ALLOWED or "Sanitizer" in err or "runtime error" in err:
        return f"exit {p.returncode}", err[-2000:]
    return None, time.time() - t


def main():
    mcinit, srcdir = sys.argv[1], sys.argv[2]
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 30
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 1)
    jsons = sorted(glob.glob(os.path.join(srcdir, "examples", "*.json")))
    argss = sorted(glob.glob(os.path.join(srcdir, "examples", "*.args")))
    deadline, runs, failures = time.time() + seconds, 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        while time.time() < deadline:
            runs += 1
            cmd = rng.choice(["validate", "validate", "topology"])
            if rng.random() < 0.5:
                path = os.path.join(tmp, "job.json")
                with open(path, "wb") as f:
                    f.write(mutate_text(rng, open(rng.choice(jsons)).read()))
                args = [cmd, path]
            else:
                words = open(rng.choice(argss)).read().split()
                args = [cmd, "--world-size", str(rng.choice([1, 8, 64, 1024, 12]))]
                args += ["--"] + mutate_words(rng, words)
            if cmd == "topology":
                args.insert(1, "--format=json")
            what, detail = run(mcinit, args)
            if what is not None:
                failures += 1
                print(f"FAIL ({what}): mcinit {' '.join(map(repr, args))}\n{detail or ''}")
                if failures >= 5:
                    break
    print(f"fuzz-cli: {runs} runs, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
