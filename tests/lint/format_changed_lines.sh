#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# format_changed_lines.sh SOURCE_DIR [GIT-DIFF ARGUMENTS...]
# clang-format 19 (the project's .clang-format) over the C++ lines a change touches, not over whole
# files: old code keeps its layout, new and changed lines take the house style. The change is what
# `git diff` gives for the arguments: by default HEAD~1 (the newest commit, as CI checks it); as a
# pre-commit hook, --cached. Prints the reformatting it wants and fails when there is any.
set -euo pipefail
src=$1
shift
[ $# -gt 0 ] || set -- HEAD~1
cd "$src"
if ! git rev-parse --verify -q HEAD~1 >/dev/null && [ "$*" = "HEAD~1" ]; then
  echo "format_changed_lines: a single commit, nothing to compare it with"
  exit 0
fi
out=$(git diff -U0 --no-color "$@" -- '*.h' '*.cpp' ':!tests/interop*' | clang-format-diff-19 -p1 -style=file || true)
if [ -n "$out" ]; then
  printf '%s\n' "$out"
  echo "format_changed_lines: the changed lines above are not in the house style (.clang-format);" \
       "clang-format-diff-19 -p1 -i applies it" >&2
  exit 1
fi
echo "format_changed_lines: the changed C++ lines ($*) are in the house style"
