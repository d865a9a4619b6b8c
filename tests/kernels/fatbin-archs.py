#!/usr/bin/env python3
"""Lists the device code in an object's .nv_fatbin section, one line per
entry: "elf sm_90" or "ptx sm_100" — what `cuobjdump --list-elf/--list-ptx`
shows, for machines whose CUDA toolkit has no cuobjdump.

Usage: fatbin-archs.py SECTION.bin   (from objcopy -O binary --only-section=.nv_fatbin)

The container: a 16-byte header (magic 0xBA55ED50, version, header size,
size of what follows), then entries, each with its own header: kind (1 PTX,
2 ELF) at 0, header size at 4, payload size at 8, and the SM number at 28.
Several containers may follow each other.
"""
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
            yield KINDS.get(kind, "kind%d" % kind), arch
            e += ehsize + psize
        pos = end


def main():
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    found = False
    for kind, arch in entries(data):
        print("%s sm_%d" % (kind, arch))
        found = True
    return 0 if found else 1


if __name__ == "__main__":
    sys.exit(main())
