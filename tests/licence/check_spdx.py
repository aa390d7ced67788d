#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Every source file of the project names its licence in an SPDX line near its top.

    check_spdx.py SOURCE_DIR

Source files: C, C++, OpenCL C, CUDA, Fortran, Python, shell, CMake and the files
CMake configures (*.in), found with `git ls-files` in a checkout and by walking the tree
otherwise (a source tarball). Third-party-free by design: a file whose first five lines
lack `SPDX-License-Identifier: Apache-2.0` is listed, and the check fails.
"""
import os
import subprocess
import sys

SUFFIXES = (".c", ".h", ".cpp", ".hpp", ".cl", ".cu", ".f90", ".py", ".sh", ".cmake", ".in")
NAMES = ("CMakeLists.txt",)
SKIP_DIRS = {".git", "build", "__pycache__"}
TAG = "SPDX-License-Identifier: Apache-2.0"


def source_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"], check=True,
                             capture_output=True).stdout.decode()
        files = [f for f in out.split("\0") if f]
    except (OSError, subprocess.CalledProcessError):
        files = []
        for d, dirs, names in os.walk(root):
            dirs[:] = [x for x in dirs if x not in SKIP_DIRS and not x.startswith("build")]
            files += [os.path.relpath(os.path.join(d, n), root) for n in names]
    # A file git tracks but the tree no longer holds (deleted, not yet committed) has no line
    # to check.
    return sorted(f for f in files
                  if (f.endswith(SUFFIXES) or os.path.basename(f) in NAMES)
                  and os.path.isfile(os.path.join(root, f)))


def main(root):
    files = source_files(root)
    missing = []
    for f in files:
        with open(os.path.join(root, f), encoding="utf-8", errors="replace") as h:
            head = [h.readline() for _ in range(5)]
        if not any(TAG in line for line in head):
            missing.append(f)
    for f in missing:
        print(f"{f}: no '{TAG}' in its first five lines")
    print(f"{len(files)} source files, {len(missing)} without the licence line")
    return 1 if missing or not files else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1]))
