#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""The run timeline as an analyst would compute it with python3-msgpack and numpy, written from the
format spec and the CLI contract, not from our C++: the independent computation the timeline's
numbers are checked against (tests/timeline/CMakeLists.txt) and the peer it is timed against (tests/bench).

  timeline_numpy.py RUN_DIR            prints {"series": {path: [point, ...]}} as JSON
  timeline_numpy.py RUN_DIR --quiet    computes the same and prints only a summary line (bench)

RUN_DIR/checkpoint/record-STEP.mpk[.gz] in step order (MessagePack records, the layout ckpt-train
writes). A tensor is a map with the keys bytes, shape and dtype (Burn's TensorData); its path is
built as ckpt builds paths: map keys joined with '.', array elements as [i]. Per tensor and
checkpoint: l2, max_abs, mean and population std over the finite values, NaN / Inf / zero counts,
and against the previous checkpoint with a tensor at the same path and of the same length, the L2
norm of the difference over the pairs finite on both sides and its ratio to the previous L2.
"""
import gzip
import json
import os
import re
import sys

import msgpack
import numpy as np

DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2", "I64": "<i8", "I32": "<i4", "I16": "<i2", "I8": "i1",
          "U64": "<u8", "U32": "<u4", "U16": "<u2", "U8": "u1", "Bool": "u1"}


def records(run):
    folder = os.path.join(run, "checkpoint")
    found = []
    for name in os.listdir(folder):
        m = re.fullmatch(r"record-(\d+)\.mpk(\.gz)?", name)
        if m:
            found.append((int(m.group(1)), os.path.join(folder, name)))
    return [path for _, path in sorted(found)]


def tensors(node, path, out):
    if isinstance(node, dict):
        if "bytes" in node and "shape" in node and "dtype" in node and isinstance(node["bytes"], (bytes, bytearray)):
            dtype = node["dtype"]
            if isinstance(dtype, str) and dtype in DTYPES:
                out[path] = np.frombuffer(node["bytes"], dtype=DTYPES[dtype]).astype(np.float64)
            elif dtype == "BF16":
                raw = np.frombuffer(node["bytes"], dtype="<u2").astype(np.uint32) << 16
                out[path] = raw.view(np.float32).astype(np.float64)
            return
        for k, v in node.items():
            tensors(v, f"{path}.{k}" if path else str(k), out)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            tensors(v, f"{path}[{i}]", out)


def load(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    out = {}
    tensors(msgpack.unpackb(data, raw=False, strict_map_key=False), "", out)
    return out


def point(x, prev):
    finite = np.isfinite(x)
    v = x[finite]
    p = {"l2": float(np.sqrt(np.sum(v * v))) if v.size else 0.0,
         "max_abs": float(np.max(np.abs(v))) if v.size else 0.0,
         "mean": float(np.mean(v)) if v.size else None,
         "std": float(np.std(v)) if v.size else None,
         "nan": int(np.count_nonzero(np.isnan(x))),
         "inf": int(np.count_nonzero(np.isinf(x))),
         "zeros": int(np.count_nonzero(x == 0)),
         "update_l2": None, "update_ratio": None}
    if prev is not None and prev.size == x.size:
        both = finite & np.isfinite(prev)
        d = x[both] - prev[both]
        p["update_l2"] = float(np.sqrt(np.sum(d * d)))
        pv = prev[np.isfinite(prev)]
        prev_l2 = float(np.sqrt(np.sum(pv * pv)))
        p["update_ratio"] = p["update_l2"] / prev_l2 if prev_l2 > 0 else None
    return p


def main():
    run = sys.argv[1]
    series = {}
    last = {}
    files = records(run)
    for index, path in enumerate(files):
        for name, x in load(path).items():
            p = point(x, last.get(name))
            p["checkpoint"] = index
            series.setdefault(name, []).append(p)
            last[name] = x
    if "--quiet" in sys.argv:
        print(f"{len(files)} checkpoints, {len(series)} tensors")
    else:
        json.dump({"series": series}, sys.stdout)


if __name__ == "__main__":
    main()
