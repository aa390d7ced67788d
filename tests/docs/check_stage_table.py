#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""docs/performance.md's stage profile is what tools/device/stage_table.py makes of the logs
in docs/results that it links: a table edited by hand, or logs replaced without the
table, fail.

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
    start = text.find(stage_table.TABLE_HEADER)
    if start < 0:
        sys.exit(f"check_stage_table: {page} has no stage profile table")
    shown = []
    for line in text[start:].split("\n"):
        if not line.startswith("|"):
            break
        shown.append(line)
    # The logs: those the section links, in the order of the table's rows.
    section = text[text.rfind("\n## ", 0, start):start]
    logs = [os.path.join(root, "docs", link)
            for link in re.findall(r"\]\((results/stages-[^)]+\.log)\)", section)]
    if not logs:
        sys.exit("check_stage_table: the stage profile links no log")
    made = stage_table.table(logs)
    if shown != made:
        sys.exit("check_stage_table: docs/performance.md shows\n" + "\n".join(shown) +
                 "\nbut stage_table.py makes of " + ", ".join(map(os.path.basename, logs)) +
                 "\n" + "\n".join(made))
    print(f"check_stage_table: {len(made) - 2} rows, as the logs give them")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
