# SPDX-License-Identifier: Apache-2.0
"""Fails when a Catch2 test case's name would not survive catch_discover_tests.

CatchAddTests.cmake reads `BINARY --list-test-names-only` into a CMake list and passes
each name back to the binary as a test spec. A ';' splits one case into two ctest
entries, each of which matches no case and (without -w NoTests) passed while running
nothing; '[' and ']' change how CMake splits the list; to Catch2 2's test-spec parser a
'\\' escapes the next character, a leading '~', '"' or "exclude:" means something else,
a '*' at either end is a wildcard, and blanks at either end are dropped.

    check_test_names.py BINARY...   (run after each test binary is linked)
"""
import subprocess
import sys

# Characters that CMake's list splitting or Catch2's test-spec parser take for something
# else anywhere in a name (discovery escapes ',', '[' and ']' for Catch2, not for CMake).
MANGLED_ANYWHERE = set(';[]\\')


def problems(name):
    found = sorted(set(name) & MANGLED_ANYWHERE)
    if found:
        yield "contains " + " ".join(repr(c) for c in found)
    if name[:1] in ('~', '"', '*') or name.startswith("exclude:"):
        yield "begins with " + repr(name[:1] if name[:1] != "e" else "exclude:")
    if name.endswith("*"):
        yield "ends with '*'"
    if name != name.strip():
        yield "begins or ends with a blank"


def main(binaries):
    bad = 0
    for binary in binaries:
        listing = subprocess.run([binary, "--list-test-names-only"], capture_output=True,
                                 text=True, check=False)
        names = [line for line in listing.stdout.split("\n") if line != ""]
        if not names:
            print(f"{binary}: --list-test-names-only listed no test case")
            bad += 1
        for name in names:
            for problem in problems(name):
                print(f"{binary}: test case name {name!r} {problem}: "
                      "catch_discover_tests would not run it as one ctest entry")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
