#!/usr/bin/env python3
"""Lists the device code in an object's .nv_fatbin section, one line per
entry: "elf sm_90" or "ptx sm_100" — what `cuobjdump --list-elf/--list-ptx`
shows, for machines whose CUDA toolkit has no cuobjdump.

Usage: fatbin-archs.py [--detail] FATBIN   (a fatbin file, or an object's
       section: objcopy -O binary --only-section=.nv_fatbin)

--detail adds what an image needs of a driver: a cubin's ELF ABI version
("abi 7": a CUDA 12.x ptxas made it, "abi 8": 13.x; e_ident[8]) and a PTX
image's ISA ("isa 7.0", its .version line).  Compressed payloads say
"compressed".

The container: a 16-byte header (magic 0xBA55ED50, version, header size,
size of what follows), then entries, each with its own header: kind (1 PTX,
2 ELF) at 0, header size at 4, payload size at 8, and the SM number at 28.
Several containers may follow each other.
"""
import re
import struct
import sys

MAGIC = 0xBA55ED50
KINDS = {1: "ptx", 2: "elf"}


def entries(data):
    pos = 0
    while pos + 16 <= len(data):
        magic, _version, hsize, fsize = struct.unpack_from("<IHHQ", data, pos)
        if magic != MAGIC:
            # Containers are padded to 8 bytes; skip zeros between them.
            pos += 8
            continue
        end = pos + hsize + fsize
        e = pos + hsize
        while e + 32 <= end:
            kind, _unk, ehsize, psize = struct.unpack_from("<HHIQ", data, e)
            arch = struct.unpack_from("<I", data, e + 28)[0]
            yield KINDS.get(kind, "kind%d" % kind), arch, data[e + ehsize:e + ehsize + psize]
            e += ehsize + psize
        pos = end


def detail(kind, payload):
    if kind == "elf":
        if payload[:4] != b"\x7fELF":
            return " compressed"
        return " abi %d" % payload[8]
    if kind == "ptx":
        m = re.search(rb"^\.version (\d+\.\d+)\s*$", payload, re.M)
        return " isa %s" % m.group(1).decode() if m else " compressed"
    return ""


def main():
    args = sys.argv[1:]
    more = args[:1] == ["--detail"]
    if more:
        args = args[1:]
    with open(args[0], "rb") as f:
        data = f.read()
    found = False
    for kind, arch, payload in entries(data):
        print("%s sm_%d%s" % (kind, arch, detail(kind, payload) if more else ""))
        found = True
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
