#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Python peers of the benchmark suite (tests/bench/README.md); prints one JSON line of seconds.

  peer_python.py load FILE     read + msgpack.unpackb (gzip.decompress first for .gz)
  peer_python.py stats FILE    load, then numpy statistics of every f32 tensor as an analyst writes
                               them, the fields ckpt computes: sum, l2, min, max, mean, std, NaN/Inf/zero
                               counts, 256-bin histogram
  peer_python.py gc FILE       json.load + Kahn topological order of the graph's edges
  peer_python.py load-mmap FILE    mmap + msgpack.unpackb over the mapping (no read() copy of the file;
                                   msgpack still makes a bytes object of every payload)
  peer_python.py stats-mmap FILE   numpy.memmap of the file, the payloads' offsets from a walk over the
                                   MessagePack headers (payloads skipped, never copied), then the same
                                   numpy statistics on views into the mapping
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


def load_mmap(path):
    import mmap
    import msgpack
    t0 = time.perf_counter()
    with open(path, "rb") as f:
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    obj = msgpack.unpackb(mm, raw=False, strict_map_key=False)
    return obj, 0.0, time.perf_counter() - t0


def payload_offsets(buf):
    """(offset, length, shape, dtype) of every TensorData {bytes: bin, shape, dtype: str} of a
    MessagePack buffer, found by walking the headers only (a bin is skipped by its length)."""
    import struct
    out = []
    pos = 0

    def value():
        nonlocal pos
        m = buf[pos]
        pos += 1
        if m <= 0x7f:
            return m
        if m >= 0xe0:
            return m - 0x100
        if 0xa0 <= m <= 0xbf or m in (0xd9, 0xda, 0xdb):
            n = m & 0x1f if m <= 0xbf else struct.unpack_from({0xd9: ">B", 0xda: ">H", 0xdb: ">I"}[m], buf, pos)[0]
            pos += {0xd9: 1, 0xda: 2, 0xdb: 4}.get(m, 0)
            text = bytes(buf[pos:pos + n]).decode("utf-8")
            pos += n
            return text
        if m in (0xc4, 0xc5, 0xc6):
            w = {0xc4: 1, 0xc5: 2, 0xc6: 4}[m]
            n = int.from_bytes(buf[pos:pos + w], "big")
            pos += w
            at = pos
            pos += n
            return ("bin", at, n)
        if 0x90 <= m <= 0x9f or m in (0xdc, 0xdd):
            n = m & 0x0f if m <= 0x9f else int.from_bytes(buf[pos:pos + (2 if m == 0xdc else 4)], "big")
            pos += 0 if m <= 0x9f else (2 if m == 0xdc else 4)
            return [value() for _ in range(n)]
        if 0x80 <= m <= 0x8f or m in (0xde, 0xdf):
            n = m & 0x0f if m <= 0x8f else int.from_bytes(buf[pos:pos + (2 if m == 0xde else 4)], "big")
            pos += 0 if m <= 0x8f else (2 if m == 0xde else 4)
            d = {}
            for _ in range(n):
                k = value()
                d[k] = value()
            if isinstance(d.get("bytes"), tuple) and "shape" in d and "dtype" in d:
                out.append((d["bytes"][1], d["bytes"][2], d["shape"], d["dtype"]))
                return None
            return d
        if m == 0xc0:
            return None
        if m in (0xc2, 0xc3):
            return m == 0xc3
        widths = {0xcc: (1, False), 0xcd: (2, False), 0xce: (4, False), 0xcf: (8, False),
                  0xd0: (1, True), 0xd1: (2, True), 0xd2: (4, True), 0xd3: (8, True), 0xca: (4, None), 0xcb: (8, None)}
        w, signed = widths[m]
        raw = bytes(buf[pos:pos + w])
        pos += w
        if signed is None:
            return struct.unpack(">f" if w == 4 else ">d", raw)[0]
        return int.from_bytes(raw, "big", signed=signed)

    value()
    return out


def numpy_stats(x, np):
    """The fields ckpt computes, as an analyst writes them with numpy: returns the sum."""
    nan = int(np.isnan(x).sum())
    inf = int(np.isinf(x).sum())
    zeros = int((x == 0).sum())  # ckpt's statistics count zeros too: equal work
    finite = x if nan + inf == 0 else x[np.isfinite(x)]
    s = float(finite.sum(dtype=np.float64))
    l2 = float(np.linalg.norm(finite))
    lo, hi = float(finite.min()), float(finite.max())
    mean, std = float(finite.mean(dtype=np.float64)), float(finite.std(dtype=np.float64))
    hist, _ = np.histogram(finite, bins=256, range=(lo, hi))
    return s


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
    if mode == "stats-mmap":
        import numpy as np
        t0 = time.perf_counter()
        mm = np.memmap(path, dtype=np.uint8, mode="r")
        found = payload_offsets(memoryview(mm))
        t1 = time.perf_counter()
        count, checksum = 0, 0.0
        for offset, length, shape, dtype in found:
            if dtype != "F32":
                continue
            checksum += numpy_stats(mm[offset:offset + length].view("<f4"), np)
            count += 1
        t2 = time.perf_counter()
        print(json.dumps({"walk_s": t1 - t0, "stats_s": t2 - t1, "total_s": t2 - t0, "tensors": count, "checksum": checksum}))
        return
    obj, read_s, decode_s = load_mmap(path) if mode == "load-mmap" else load(path)
    result = {"read_s": read_s, "decode_s": decode_s, "total_s": read_s + decode_s}
    if mode == "stats":
        import numpy as np
        t0 = time.perf_counter()
        count = 0
        checksum = 0.0
        for t in tensors(obj):
            if t["dtype"] != "F32":
                continue
            checksum += numpy_stats(np.frombuffer(t["bytes"], dtype="<f4"), np)
            count += 1
        result["stats_s"] = time.perf_counter() - t0
        result["total_s"] += result["stats_s"]
        result["tensors"] = count
        result["checksum"] = checksum
    elif mode not in ("load", "load-mmap"):
        sys.exit("usage: peer_python.py load|load-mmap|stats|stats-mmap|gc FILE")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
