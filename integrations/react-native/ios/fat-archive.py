#!/usr/bin/env python3
"""A universal ("fat") static archive for Apple's toolchains, as lipo makes one, without lipo
(LLVM 14's llvm-lipo crashes on Rust's archives): build-xcframework.sh joins the simulator's
arm64 and x86_64 slices with it, and the npm package's checks take a slice back out.

    fat-archive.py create OUTPUT ARCH=ARCHIVE...   ARCH: arm64 or x86_64
    fat-archive.py archs FAT                      prints the architectures, one a line
    fat-archive.py thin FAT ARCH OUTPUT           writes ARCH's slice
"""
import struct
import sys

FAT_MAGIC = 0xCAFEBABE
# Mach-O's cpu type and subtype of each architecture (<mach/machine.h>)
CPUS = {"arm64": (0x0100000C, 0), "x86_64": (0x01000007, 3)}
ALIGN = 14  # each slice starts on a 16 KiB boundary, as lipo aligns arm64 slices


def slices(path):
    """{arch: (offset, size)} of a fat file's slices."""
    with open(path, "rb") as fat:
        magic, count = struct.unpack(">II", fat.read(8))
        if magic != FAT_MAGIC:
            sys.exit(f"fat-archive: {path} is not a universal file")
        found = {}
        for _ in range(count):
            cpu, subtype, offset, size, _align = struct.unpack(">iiIII", fat.read(20))
            arch = next((name for name, ids in CPUS.items() if ids == (cpu, subtype)), f"cpu {cpu:#x}/{subtype}")
            found[arch] = (offset, size)
        return found


def create(output, pairs):
    parts = []
    for pair in pairs:
        arch, _, path = pair.partition("=")
        if arch not in CPUS or not path:
            sys.exit(f"fat-archive: expected ARCH=ARCHIVE with ARCH one of {', '.join(CPUS)}, got {pair!r}")
        with open(path, "rb") as archive:
            parts.append((arch, archive.read()))
    header = struct.pack(">II", FAT_MAGIC, len(parts))
    offset = len(header) + 20 * len(parts)
    entries, body = [], []
    for arch, data in parts:
        padding = -offset % (1 << ALIGN)
        offset += padding
        body.append(b"\0" * padding + data)
        entries.append(struct.pack(">iiIII", *CPUS[arch], offset, len(data), ALIGN))
        offset += len(data)
    with open(output, "wb") as fat:
        fat.write(header + b"".join(entries) + b"".join(body))


def main(argv):
    if len(argv) >= 3 and argv[0] == "create":
        create(argv[1], argv[2:])
    elif len(argv) == 2 and argv[0] == "archs":
        print("\n".join(slices(argv[1])))
    elif len(argv) == 4 and argv[0] == "thin":
        found = slices(argv[1])
        if argv[2] not in found:
            sys.exit(f"fat-archive: {argv[1]} has no {argv[2]} slice (it has {', '.join(found)})")
        offset, size = found[argv[2]]
        with open(argv[1], "rb") as fat, open(argv[3], "wb") as out:
            fat.seek(offset)
            out.write(fat.read(size))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
