# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Runs example.py on a run ckpt-train makes, as docs/guide/python.md shows it, and checks what it prints."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

with tempfile.TemporaryDirectory(prefix="ckpt-example-test-") as tmp:
    run = common.train(os.path.join(tmp, "run"), "--steps", 8, "--checkpoint-every", 4)
    p = subprocess.run([sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "example.py"), run, tmp],
                       capture_output=True, text=True)
    sys.stdout.write(p.stdout)
    sys.stderr.write(p.stderr)
    assert p.returncode == 0, f"example.py exited {p.returncode}"
    for expected in ["record-8.mpk: training_record, NamedMpk, full", "shares the file mapping: True",
                     "state: step 8, stop_step 8", "stop_step 108", "round trip unchanged: True", "ckpt.Error (io)"]:
        assert expected in p.stdout, f"example.py did not print {expected!r}"
    assert os.path.exists(os.path.join(tmp, "weights.safetensors"))
print("example.py: ok")
