#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""`ckpt timeline --json --no-cache` against timeline_numpy.py (python3-msgpack + numpy) on the same
runs: every tensor's every point. Counts and max |x| must be equal; sums (l2, mean, std, the update
norm and ratio) agree to 1e-9 relative (both accumulate in double, in different orders).

  check_timeline_numpy.py CKPT CKPT_TRAIN TIMELINE_NUMPY
"""
import json
import math
import os
import subprocess
import sys
import tempfile

ckpt, trainer, oracle = sys.argv[1:4]


def compare(run, label):
    ours = json.loads(subprocess.run([ckpt, "timeline", run, "--json", "--no-cache"], check=True, capture_output=True).stdout)
    theirs = json.loads(subprocess.run(["/usr/bin/python3", oracle, run], check=True, capture_output=True).stdout)["series"]
    series = {s["path"]: s for s in ours["series"]}
    assert set(series) == set(theirs), f"{label}: tensors differ: {set(series) ^ set(theirs)}"
    compared = 0
    for path, points in theirs.items():
        mine = series[path]["points"]
        assert [p["checkpoint"] for p in mine] == [p["checkpoint"] for p in points], f"{label} {path}: checkpoints differ"
        for a, b in zip(mine, points):
            for key in ("nan", "inf", "zeros", "max_abs"):
                assert a[key] == b[key], f"{label} {path} @{b['checkpoint']}: {key} {a[key]} != {b[key]}"
            for key in ("l2", "mean", "std", "update_l2", "update_ratio"):
                x, y = a[key], b[key]
                if x is None or y is None:
                    assert x is None and y is None, f"{label} {path} @{b['checkpoint']}: {key} {x} vs {y}"
                    continue
                assert math.isclose(x, y, rel_tol=1e-9, abs_tol=1e-300), f"{label} {path} @{b['checkpoint']}: {key} {x!r} != {y!r}"
            compared += 1
    print(f"{label}: {len(theirs)} tensors, {compared} points equal")
    return ours


def poison(path, tensor, element):
    """NaN over one f32 element of a tensor, at the offset `ckpt show --json` would not tell: found by msgpack."""
    import msgpack
    with open(path, "rb") as f:
        data = bytearray(f.read())
    record = msgpack.unpackb(bytes(data), raw=False)
    payload = record["item"][0]["input"]["weight"]["param"]["bytes"]
    at = bytes(data).find(payload)
    assert at > 0 and bytes(data).find(payload, at + 1) < 0
    data[at + 4 * element: at + 4 * element + 4] = b"\x00\x00\xc0\x7f"
    with open(path, "wb") as f:
        f.write(data)


with tempfile.TemporaryDirectory() as tmp:
    os.environ["XDG_CACHE_HOME"] = os.path.join(tmp, "cache")
    healthy = os.path.join(tmp, "healthy")
    subprocess.run([trainer, "--out", healthy, "--steps", "400", "--checkpoint-every", "50", "--layout", "training-record"],
                   check=True, capture_output=True)
    compare(healthy, "healthy run")

    poisoned = os.path.join(tmp, "poisoned")
    subprocess.run([trainer, "--out", poisoned, "--steps", "400", "--checkpoint-every", "50", "--layout", "training-record"],
                   check=True, capture_output=True)
    for step in (300, 350, 400):
        poison(os.path.join(poisoned, "checkpoint", f"record-{step}.mpk"), "item[0].input.weight.param", 5)
    doc = compare(poisoned, "NaN from checkpoint 5")
    assert [e["checkpoint"] for e in doc["events"] if e["kind"] == "first_nan"] == [5], doc["events"]

    help_text = subprocess.run([trainer, "--help"], capture_output=True, text=True).stdout
    if "--diverge-at" in help_text:
        diverged = os.path.join(tmp, "diverged")
        subprocess.run([trainer, "--out", diverged, "--steps", "500", "--checkpoint-every", "50", "--layout", "training-record",
                        "--diverge-at", "300", "--blocks", "2"], check=True, capture_output=True)
        doc = compare(diverged, "diverging run")
        assert any(e["kind"] == "first_nan" for e in doc["events"]), "the diverging run never reached NaN"
    else:
        print("ckpt-train has no --diverge-at: diverging run not compared", file=sys.stderr)
        if os.environ.get("CI") == "true":
            sys.exit(1)
