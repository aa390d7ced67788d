#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""docs/performance.md's stage profiles are what tools/device/stage_table.py makes of the
logs in docs/results that each one's section links before it: a table edited by hand, or
logs replaced without the table, fail.

    check_stage_table.py SOURCE_DIR
"""
import importlib.util
import os
import re
import sys


def main(root):
    spec = importlib.util.spec_from_file_location(
        "stage_table", os.path.join(root, "tools", "device", "stage_table.py"))
    stage_table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(stage_table)
    page = os.path.join(root, "docs", "performance.md")
    with open(page) as f:
        text = f.read()
    starts = [m.start() for m in re.finditer(re.escape(stage_table.TABLE_HEADER), text)]
    if not starts:
        sys.exit(f"check_stage_table: {page} has no stage profile table")
    rows = 0
    for start in starts:
        shown = []
        for line in text[start:].split("\n"):
            if not line.startswith("|"):
                break
            shown.append(line)
        # The logs: those its section links before it (results/ or a device's folder in
        # it), in the order of the table's rows.
        section = text[text.rfind("\n## ", 0, start):start]
        links = re.findall(r"\]\((results/(?:[\w-]+/)?stages-[^)]+\.log)\)", section)
        logs = [os.path.join(root, "docs", link) for link in links]
        if not logs:
            line = text.count("\n", 0, start) + 1
            sys.exit(f"check_stage_table: the stage profile on line {line} of {page} links no log")
        made = stage_table.table(logs)
        if shown != made:
            sys.exit("check_stage_table: docs/performance.md shows\n" + "\n".join(shown) +
                     "\nbut stage_table.py makes of " + ", ".join(logs) + "\n" + "\n".join(made))
        rows += len(made) - 2
    print(f"check_stage_table: {len(starts)} tables, {rows} rows, as the logs give them")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
