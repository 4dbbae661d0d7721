#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""What `import ckpt` is for, in one script (docs/guide/python.md).

    PYTHONPATH=build-ci/python /usr/bin/python3 tests/python/example.py RUN_DIR_OR_RECORD [OUT_DIR]

Opens a record (or the newest one of a run directory), lists its tensors with statistics, looks at
an optimizer moment as a numpy array without copying it, reads the continuation state, edits it,
saves the edited record, and moves the weights to safetensors and back.
"""
import os
import sys
import tempfile

import numpy as np

import ckpt

path = sys.argv[1]
out_dir = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="ckpt-example-")

r = ckpt.open(path)  # a record of any recorder, a run directory, or a GradientCheckpoint
print(f"{r.file}: {r.kind}, {r.recorder}, {r.precision}, {len(r.paths())} tensors")

# The rows of `ckpt tensors --json`: path, role, param_id, dtype, shape, statistics ...
for t in r.tensors()[:8]:
    print(f"  {t['path']:<56} {t['role']:<9} {t['dtype']:<4} {str(t['shape']):<10} mean={t['mean']:.4g} std={t['std']:.4g}")

# A read-only numpy view of the mapped file: no copy of the payload, whatever its size.
moments = [t["path"] for t in r.tensors("*moment_2")]
if moments:
    v = r.array(moments[0])
    print(f"{moments[0]}: {v.dtype} {v.shape}, shares the file mapping: {v.base is r.buffer}, "
          f"sqrt(mean)={np.sqrt(v.mean()):.4g}")

# The continuation state as Python objects (u64 counters stay exact ints).
if r.kind == "training_record":
    state = r.state()
    step = state["progress"]["step"]
    print(f"state: step {step}, stop_step {state['progress']['stop_step']}")
    # A typed edit (rejected with ckpt.Error when the type or range does not fit) and an atomic save.
    edited = r.edit({"item[4].progress.stop_step": step + 100})
    target = os.path.join(out_dir, "edited" + os.path.splitext(r.file)[1])
    edited.save(target)
    print(f"saved {target}: stop_step {ckpt.open(target).state()['progress']['stop_step']}")

# Weights to safetensors (names are the record's paths) and back into the record.
st = os.path.join(out_dir, "weights.safetensors")
print(f"exported {r.export(st, what='params')['tensors']} tensors to {st}")
back = r.import_safetensors(st)
print("round trip unchanged:", ckpt.diff(r, back)["summary"]["changed"] == 0)

try:
    ckpt.open(os.path.join(out_dir, "no-such-file.mpk"))
except ckpt.Error as e:
    print(f"ckpt.Error ({e.code}): {e}")
