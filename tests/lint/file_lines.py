#!/usr/bin/env python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""file_lines.py ROOT LIMIT FOLDER...: exit 1 when a .h or .cpp file under a FOLDER has more than
LIMIT lines. A file does one job; past the limit it does several (the house rule, with functions'
150 lines held by clang-tidy's readability-function-size in core/ and function_sizes.py elsewhere)."""
import os
import sys


def main(argv):
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    root, limit, folders = argv[1], int(argv[2]), argv[3:]
    long_files = []
    count = 0
    for folder in folders:
        for dirpath, _, files in sorted(os.walk(os.path.join(root, folder))):
            for name in sorted(files):
                if name.endswith((".h", ".cpp")):
                    path = os.path.join(dirpath, name)
                    with open(path, encoding="utf-8", errors="replace") as f:
                        lines = sum(1 for _ in f)
                    count += 1
                    if lines > limit:
                        long_files.append((lines, os.path.relpath(path, root)))
    for lines, path in sorted(long_files, reverse=True):
        print(f"{path}: {lines} lines, over {limit}: split it by job", flush=True)
    if long_files:
        return 1
    print(f"{count} files under {' '.join(folders)}, none over {limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
