#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""make_fuzz_seeds.py [REPO] — the fuzz seeds of the PyTorch reader, written into the checkout:

  tests/fuzz/corpus/torch/    six real torch.save files (zip and legacy, < 8 KB each), picked from
                              what make_torch_files.py writes (fixed seeds)
  tests/fuzz/corpus/pickle/   the data.pkl of those zip files, and the raw pickle of every hostile
                              case of make_hostile.py (zip form; the 100000-deep one left out: 300 KB)

The values are the same on every run and the zip files byte-identical; the legacy files' storage keys
are torch's pointer values, so their bytes differ from run to run (regenerate only to change the seeds). The hostile payloads run
`touch PWNED` (a relative path) if ever executed.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
TORCH_SEEDS = ["views.pt", "checkpoint_frozen.pt", "protocol4_linear.pt", "integers.pt",
               "legacy_tied.pt", "legacy_batchnorm1d.pt"]
MAX_SEED = 8 * 1024


def data_pkl(path):
    with zipfile.ZipFile(path) as z:
        return z.read(next(n for n in z.namelist() if n.endswith("/data.pkl")))


def main(argv):
    repo = os.path.abspath(argv[1] if len(argv) > 1 else os.path.join(HERE, "..", ".."))
    torch_dir = os.path.join(repo, "tests", "fuzz", "corpus", "torch")
    pickle_dir = os.path.join(repo, "tests", "fuzz", "corpus", "pickle")
    os.makedirs(torch_dir, exist_ok=True)
    os.makedirs(pickle_dir, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        files, hostile = os.path.join(tmp, "files"), os.path.join(tmp, "hostile")
        subprocess.run([sys.executable, os.path.join(HERE, "make_torch_files.py"), files], check=True)
        subprocess.run([sys.executable, os.path.join(HERE, "make_hostile.py"), hostile, "--pwned", "PWNED"], check=True)
        for name in TORCH_SEEDS:
            src = os.path.join(files, name)
            if os.path.getsize(src) > MAX_SEED:
                raise SystemExit(f"{name}: {os.path.getsize(src)} bytes, more than {MAX_SEED}")
            shutil.copyfile(src, os.path.join(torch_dir, name))
            if not name.startswith("legacy_"):
                with open(os.path.join(pickle_dir, name[:-3] + ".data.pkl"), "wb") as f:
                    f.write(data_pkl(src))
        import json
        with open(os.path.join(hostile, "hostile.json")) as f:
            cases = json.load(f)
        for c in cases:
            if c["format"] != "zip" or "pickle" not in c["selftest"] or c["file"].startswith("deep_lists_100000"):
                continue
            with open(os.path.join(pickle_dir, "hostile_" + c["file"][:-3] + ".pkl"), "wb") as f:
                f.write(data_pkl(os.path.join(hostile, c["file"])))
    print(f"make_fuzz_seeds: {len(os.listdir(torch_dir))} files in {torch_dir}, {len(os.listdir(pickle_dir))} in {pickle_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
