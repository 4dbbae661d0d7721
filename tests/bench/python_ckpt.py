#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Our side of the Python rows (tests/bench/README.md): `import ckpt` from the build, then one JSON
line of seconds. Timing starts before `import ckpt`, as peer_python.py's includes `import msgpack`;
numpy is imported before it, as peer_python.py's statistics time starts after `import numpy`.

  python_ckpt.py MODULE_DIR open FILE      import ckpt + ckpt.open (lazy: no payload byte read)
  python_ckpt.py MODULE_DIR touch FILE     + r.array() of every tensor, every byte read once (numpy sum of
                                           the bytes): the peers' full decode puts every payload in memory
  python_ckpt.py MODULE_DIR tensors FILE   + r.tensors(): the rows of `ckpt tensors --json` (every payload
                                           read: counts, sum, l2, min, max, mean, std; no histogram)
  python_ckpt.py MODULE_DIR stats FILE     + r.stats(path, bins=256) of every tensor: the fields and the
                                           256-bin histogram peer_python.py's numpy statistics compute
"""
import json
import sys
import time

import numpy as np


def main():
    module_dir, mode, path = sys.argv[1], sys.argv[2], sys.argv[3]
    t0 = time.perf_counter()
    sys.path.insert(0, module_dir)
    import ckpt
    t1 = time.perf_counter()
    r = ckpt.open(path)
    t2 = time.perf_counter()
    result = {"import_s": t1 - t0, "open_s": t2 - t1, "total_s": t2 - t0, "tensors": len(r.paths())}
    if mode == "touch":
        checksum = 0
        for p in r.paths():
            a = r.array(p)
            checksum += int(np.frombuffer(a, dtype=np.uint8).sum(dtype=np.uint64))
        result["touch_s"] = time.perf_counter() - t2
        result["checksum"] = checksum
    elif mode == "tensors":
        rows = r.tensors()
        result["tensors_s"] = time.perf_counter() - t2
        result["checksum"] = sum(t["sum"] or 0 for t in rows)
    elif mode == "stats":
        checksum = 0.0
        for p in r.paths():
            s = r.stats(p, bins=256)
            checksum += s["sum"]
        result["stats_s"] = time.perf_counter() - t2
        result["checksum"] = checksum
    elif mode != "open":
        sys.exit("usage: python_ckpt.py MODULE_DIR open|touch|tensors|stats FILE")
    result["total_s"] = time.perf_counter() - t0
    print(json.dumps(result))


if __name__ == "__main__":
    main()
