#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# clang_tidy.sh RUN_CLANG_TIDY CLANG_TIDY SOURCE_DIR BUILD_DIR FOLDERS [CLANG-TIDY ARGUMENTS...]
# Runs clang-tidy with SOURCE_DIR/.clang-tidy over every translation unit under FOLDERS (a regex
# alternative such as "core" or "ui|app|python") in BUILD_DIR's compile_commands.json; extra
# arguments (e.g. -checks=...) go to clang-tidy. Prints the findings and fails when there is any.
set -euo pipefail
runner=$1 tidy=$2 src=$3 build=$4 folders=$5
shift 5
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json (CMAKE_EXPORT_COMPILE_COMMANDS)" >&2; exit 1; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# one process per core; the file pattern is a regex over the compile database's absolute paths
status=0
"$runner" -p "$build" -clang-tidy-binary "$tidy" -config-file "$src/.clang-tidy" -quiet -j "$(nproc)" \
  -header-filter "^$src/($folders)/.*" "$@" "^$src/($folders)/.*\.cpp$" >"$log" 2>&1 || status=$?
findings=$(grep -cE '(warning|error): .*\[[a-z0-9.,-]+\]$' "$log" || true)
grep -E '(warning|error): ' "$log" | sort -u || true
if [ "$status" -ne 0 ] || [ "$findings" -ne 0 ]; then
  echo "clang_tidy: $findings finding(s) over $folders (exit $status); the checks and why: $src/.clang-tidy" >&2
  exit 1
fi
echo "clang_tidy: $folders clean under $(basename "$tidy") ($(grep -c '"file"' "$build/compile_commands.json") units in the database)"
