#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Resolves the frames of a test binary's stack dump (tests/helpers/stack_dump.hpp).

backtrace_symbols_fd writes each frame as "module(symbol+offset)[address]" or, where it
knows no symbol, "module(+offset)[address]". Frames of modules that exist here get
addr2line's function, file and line (inlined callers too, innermost first); named
symbols are demangled. Other lines pass through unchanged.

    python3 tools/device/symbolize_stacks.py < stacks-1234.txt
"""
import os
import re
import shutil
import subprocess
import sys

FRAME = re.compile(r"^(?P<module>[^(\s]+)\((?P<symbol>[^+)]*)\+(?P<offset>0x[0-9a-f]+)\)")


def resolve(module, offsets):
    """{offset: "function at file:line <- its inlining callers"} from one addr2line run."""
    if shutil.which("addr2line") is None or not os.path.isfile(module):
        return {}
    try:
        lines = subprocess.run(["addr2line", "-a", "-f", "-C", "-i", "-e", module, *offsets],
                               capture_output=True, text=True, timeout=120).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return {}
    found, address, pairs = {}, None, []
    for line in lines + ["0x"]:  # -a heads each address's lines with the address itself
        if line.startswith("0x"):
            if address is not None and pairs and not pairs[0].startswith("??"):
                found[address] = " <- ".join(pairs)
            address, pairs, function = line, [], None
        elif function is None:
            function = line
        else:
            pairs.append(f"{function} at {os.path.basename(line)}")
            function = None
    # addr2line writes addresses in full width: key them as the dump wrote them.
    return {f"0x{int(a, 16):x}": where for a, where in found.items()}


def demangle(symbols):
    if not symbols or shutil.which("c++filt") is None:
        return {}
    try:
        out = subprocess.run(["c++filt"], input="\n".join(symbols), capture_output=True,
                             text=True, timeout=120).stdout.splitlines()
    except (OSError, subprocess.SubprocessError):
        return {}
    return dict(zip(symbols, out)) if len(out) == len(symbols) else {}


def main():
    lines = [line.rstrip("\n") for line in sys.stdin]
    frames = [FRAME.match(line) for line in lines]
    offsets = {}
    for frame in frames:
        if frame is not None and not frame["symbol"]:
            offsets.setdefault(frame["module"], set()).add(frame["offset"])
    resolved = {module: resolve(module, sorted(wanted)) for module, wanted in offsets.items()}
    names = demangle(sorted({f["symbol"] for f in frames if f is not None and f["symbol"]}))
    for line, frame in zip(lines, frames):
        where = None
        if frame is not None:
            where = (names.get(frame["symbol"]) if frame["symbol"]
                     else resolved[frame["module"]].get(frame["offset"]))
        print(f"{line}  {where}" if where else line)


if __name__ == "__main__":
    main()
