#!/bin/sh
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# Compares core/graph/layout with graphviz `dot` on generated graphs of 10k and 100k nodes.
# usage: [SIZES="1000 10000 100000"] tests/bench/graph/run_bench.sh [BUILD_DIR] [DOT_TIMEOUT_SECONDS]
# BUILD_DIR must contain core/libckpt_core.a (default: build). Not part of ctest.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
build=${1:-$root/build}
limit=${2:-300}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
qt=$(pkg-config --cflags Qt6Core 2>/dev/null || echo "-I/usr/include/x86_64-linux-gnu/qt6 -I/usr/include/x86_64-linux-gnu/qt6/QtCore")
g++ -std=c++23 -O2 -fPIC -I"$root" $qt "$here/bench_layout.cpp" "$build/core/libckpt_core.a" -lQt6Core -lz -ldeflate -o "$work/bench_layout"
for n in ${SIZES:-10000 100000}; do
    "$work/bench_layout" $n "$work/g$n.dot"
    start=$(date +%s.%N)
    if timeout "$limit" dot -Tplain "$work/g$n.dot" > "$work/g$n.plain" 2>"$work/dot$n.err"; then
        end=$(date +%s.%N)
        echo "dot:  $n nodes: $(echo "($end - $start) * 1000" | bc | cut -d. -f1) ms wall"
    else
        echo "dot:  $n nodes: did not finish within ${limit} s"
    fi
done
