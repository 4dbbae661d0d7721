#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Python peers of the benchmark suite (tests/bench/README.md); prints one JSON line of seconds.

  peer_python.py load FILE     read + msgpack.unpackb (gzip.decompress first for .gz)
  peer_python.py stats FILE    load, then numpy statistics of every f32 tensor as an analyst writes
                               them, the fields ckpt computes: sum, l2, min, max, mean, std, NaN/Inf/zero
                               counts, 256-bin histogram
  peer_python.py gc FILE       json.load + Kahn topological order of the graph's edges
"""
import collections
import gzip
import json
import sys
import time


def load(path):
    t0 = time.perf_counter()
    with open(path, "rb") as f:
        data = f.read()
    t1 = time.perf_counter()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    import msgpack
    obj = msgpack.unpackb(data, raw=False, strict_map_key=False)
    t2 = time.perf_counter()
    return obj, t1 - t0, t2 - t1


def tensors(obj):
    """Every TensorData map {bytes, shape, dtype} of the decoded record, iteratively."""
    stack = [obj]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if isinstance(v.get("bytes"), bytes) and "shape" in v and "dtype" in v:
                yield v
                continue
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "gc":
        t0 = time.perf_counter()
        with open(path, "rb") as f:
            c = json.load(f)
        t1 = time.perf_counter()
        graph = c["graph"]
        indegree = {k: 0 for k in graph["nodes"]}
        out = collections.defaultdict(list)
        for a, b in graph["edges"]:
            indegree[b] = indegree.get(b, 0) + 1
            indegree.setdefault(a, 0)
            out[a].append(b)
        queue = collections.deque(k for k, d in indegree.items() if d == 0)
        order = []
        while queue:
            n = queue.popleft()
            order.append(n)
            for m in out.get(n, ()):
                indegree[m] -= 1
                if indegree[m] == 0:
                    queue.append(m)
        t2 = time.perf_counter()
        print(json.dumps({"parse_s": t1 - t0, "topo_s": t2 - t1, "total_s": t2 - t0,
                          "nodes": len(graph["nodes"]), "ordered": len(order)}))
        return
    obj, read_s, decode_s = load(path)
    result = {"read_s": read_s, "decode_s": decode_s, "total_s": read_s + decode_s}
    if mode == "stats":
        import numpy as np
        t0 = time.perf_counter()
        count = 0
        checksum = 0.0
        for t in tensors(obj):
            if t["dtype"] != "F32":
                continue
            x = np.frombuffer(t["bytes"], dtype="<f4")
            nan = int(np.isnan(x).sum())
            inf = int(np.isinf(x).sum())
            zeros = int((x == 0).sum())  # ckpt's statistics count zeros too: equal work
            finite = x if nan + inf == 0 else x[np.isfinite(x)]
            s = float(finite.sum(dtype=np.float64))
            l2 = float(np.linalg.norm(finite))
            lo, hi = float(finite.min()), float(finite.max())
            mean, std = float(finite.mean(dtype=np.float64)), float(finite.std(dtype=np.float64))
            hist, _ = np.histogram(finite, bins=256, range=(lo, hi))
            checksum += s
            count += 1
        result["stats_s"] = time.perf_counter() - t0
        result["total_s"] += result["stats_s"]
        result["tensors"] = count
        result["checksum"] = checksum
    elif mode != "load":
        sys.exit("usage: peer_python.py load|stats|gc FILE")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
