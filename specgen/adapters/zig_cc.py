"""``python -m specgen.adapters.zig_cc ARGS``: clang's command line for tinygrad's CPU compiler, run by
the clang inside the ``ziglang`` wheel (``zig cc``), for machines without a clang on PATH.

tinygrad's CPU device compiles each kernel with ``clang -c -x c ... --target=<arch>-none-unknown-elf
- -o -`` (C source on stdin, an ELF object on stdout). zig cc is clang, but it parses the target as
a zig triple and reads and writes files: this shim rewrites the target (``x86_64-freestanding-none``)
and passes the source and the object through temporary files. Everything else is passed unchanged.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile


def zig_arguments(argv: list[str], source: str, obj: str) -> list[str]:
    """zig cc's arguments for tinygrad's clang arguments, with stdin/stdout replaced by files."""
    out, skip = [], False
    for i, arg in enumerate(argv):
        if skip:
            skip = False
            continue
        if arg.startswith("--target="):
            arch = arg.split("=", 1)[1].split("-")[0]
            out += ["-target", f"{arch}-freestanding-none", "-g0"]  # zig cc adds debug info by default: its 32-bit relocations tinygrad cannot load
        elif arg == "-o":
            out += ["-o", obj]
            skip = True
        elif arg == "-":
            out.append(source)
        else:
            out.append(arg)
    return out


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="specgen-zigcc-") as tmp:
        source, obj = os.path.join(tmp, "kernel.c"), os.path.join(tmp, "kernel.o")
        with open(source, "wb") as f:
            f.write(sys.stdin.buffer.read())
        done = subprocess.run([sys.executable, "-m", "ziglang", "cc", *zig_arguments(argv, source, obj)])
        if done.returncode:
            return done.returncode
        with open(obj, "rb") as f:
            sys.stdout.buffer.write(f.read())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
