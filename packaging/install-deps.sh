#!/usr/bin/env bash
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs everything the project needs on Debian bookworm, from Debian's archive only (run as root).
# Why each library: Qt 6 Widgets/Concurrent/Svg + QCustomPlot for the app; Eigen for the trainer and
# statistics; nlohmann_json for CLI reports and schema files; zlib + libdeflate for gzip (libdeflate
# inflates whole members ~2x faster than zlib, zlib streams the rest); libssl-dev for libcrypto's
# SHA-256 of CAR blocks (faster than our own portable code, issue 32); cargo + librust-*-dev build the
# Rust oracle that checks us against the real serializer crates (librust-ciborium-ll-dev: the CBOR
# encoder under ciborium, for burnpack files); python3-msgpack/numpy, graphviz and
# time are the peers of the benchmarks; xvfb and fonts let screenshots and GUI tests run headless;
# help2man makes the man pages from --help, and desktop-file-utils, appstream, shared-mime-info,
# bash-completion, zsh and man-db are what tests/packaging checks the installed desktop integration with;
# slurm-wlm + munge give tests/ui/tst_slurmresume a real single-node Slurm on localhost;
# pybind11-dev + python3-dev build the Python module `import ckpt` (python/), tested with python3-numpy;
# clang-tidy-19 runs the lint suite (tests/lint; 14, bookworm's default, cannot parse <expected>),
# clang-format-19 checks the changed lines against .clang-format (14 cannot read it),
# universal-ctags finds every function of ui/, app/ and python/ for the 150-line rule (function_sizes:
# under a second where clang-tidy took minutes; Exuberant Ctags writes no JSON), and
# python3-torch is real PyTorch, the oracle of tests/torch (torch.save writes the files the reader is
# checked against, torch.load reads them back).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  qt6-base-dev qt6-base-dev-tools qt6-svg-dev libgl-dev
  libqcustomplot-dev libqcustomplot2.1-qt6
  nlohmann-json3-dev libeigen3-dev zlib1g-dev libdeflate-dev libssl-dev
  cargo librust-serde-dev librust-serde-derive-dev librust-rmp-serde-dev librust-serde-json-dev
  librust-bincode-dev librust-flate2-dev librust-half-dev librust-serde-bytes-dev
  librust-data-encoding-dev librust-indexmap-dev librust-ciborium-ll-dev
  python3 python3-msgpack python3-numpy python3-torch graphviz time
  pybind11-dev python3-dev
  clang-tidy-19 clang-format-19 universal-ctags
  xvfb xauth fonts-dejavu-core
  help2man desktop-file-utils appstream shared-mime-info bash-completion zsh man-db
  slurm-wlm munge
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages are installed"
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing packages (${missing[*]}); run as root or install them with apt-get" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
