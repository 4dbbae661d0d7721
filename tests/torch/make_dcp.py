#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""make_dcp.py OUTDIR — PyTorch Distributed Checkpoint directories, and what they hold (JSON on stdout).
make_dcp.py --verify OUTDIR — reads them back with torch's own load_state_dict and compares.

torch 1.13 has no torch.distributed.checkpoint: its DCP is torch.distributed._shard.checkpoint
(the same FileSystemWriter / save_state_dict / .metadata + __RANK_N.distcp layout the later module
kept). On Python 3.11 that package does not even import, because of a dataclass field whose default
is a mutable dataclass instance (Python 3.11 refuses what 3.10 accepted); the shim below gives the
field a default_factory returning that same instance, which is what 3.10 did in effect, and changes
nothing else. Run as a process of its own so that the shim never touches the other generators.

One process, a one-rank gloo group (a HashStore, no network): two ShardedTensors with two chunks
each (split along dim 0 and along dim 1), plain tensors of several dtypes, and a non-tensor value.
dcp/ has one .distcp file per item; dcp_single/ one file for the rank (items at offsets in it).
In 1.13 every chunk is stored as a torch.save zip stream inside the .distcp file.
"""
import dataclasses
import json
import math
import os
import shutil
import sys

_get_field = dataclasses._get_field


def _get_field_310(cls, a_name, a_type, *rest):
    try:
        return _get_field(cls, a_name, a_type, *rest)
    except ValueError as e:
        if "mutable default" not in str(e):
            raise
        default = cls.__dict__.get(a_name)
        setattr(cls, a_name, dataclasses.field(default_factory=lambda: default))
        return _get_field(cls, a_name, a_type, *rest)


dataclasses._get_field = _get_field_310

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402

torch.set_num_threads(1)

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16",
          torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
          torch.bool: "Bool"}


def stats(t):
    x = t.reshape(-1).to(torch.float64).tolist()
    s = {"nan": sum(1 for v in x if math.isnan(v)), "inf": sum(1 for v in x if math.isinf(v)),
         "zeros": sum(1 for v in x if v == 0)}
    if not x:
        s.update({"sum": 0.0, "l2": 0.0, "min": None, "max": None})
    elif s["nan"] or s["inf"]:
        s.update({"sum": None, "l2": None, "min": None, "max": None})
    else:
        s.update({"sum": math.fsum(x), "l2": math.sqrt(math.fsum(v * v for v in x)), "min": min(x), "max": max(x)})
    s["first_values"] = [v if math.isfinite(v) else None for v in x[:8]]
    return s


def full_tensors():
    """The global tensors, in state-dict order, and how each is split (None: not sharded)."""
    torch.manual_seed(70)
    return [("model.fc1.weight", torch.randn(8, 4), [(0, 5), (5, 8)], 0),
            ("model.fc1.bias", torch.randn(8), None, None),
            ("model.fc2.weight", torch.randn(3, 8), [(0, 3), (3, 8)], 1),
            ("model.fc2.bias", torch.randn(3).to(torch.bfloat16), None, None),
            ("model.running_count", torch.arange(5, dtype=torch.int64), None, None),
            ("model.scale", torch.tensor(0.5, dtype=torch.float64), None, None)]


def state_dict():
    from torch.distributed._shard.metadata import ShardMetadata
    from torch.distributed._shard.sharded_tensor import Shard, init_from_local_shards
    sd = {}
    for name, t, split, dim in full_tensors():
        if split is None:
            sd[name] = t
            continue
        shards = []
        for lo, hi in split:
            offsets = [0] * t.dim()
            offsets[dim] = lo
            sizes = list(t.shape)
            sizes[dim] = hi - lo
            shards.append(Shard(t.narrow(dim, lo, hi - lo).clone(), ShardMetadata(offsets, sizes, "rank:0/cpu")))
        sd[name] = init_from_local_shards(shards, *t.shape)
    sd["epoch"] = 3
    return sd


def init_group():
    if not dist.is_initialized():
        dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)


def describe(directory, metadata):
    full = {name: t for name, t, _, _ in full_tensors()}
    where = {}
    for index, info in metadata.storage_data.items():
        where[(index.fqn, tuple(index.offset or ()))] = info
    tensors = []
    for fqn, md in metadata.state_dict_metadata.items():
        if not hasattr(md, "chunks"):
            continue
        t = full[fqn]
        chunks = []
        for c in md.chunks:
            info = where[(fqn, tuple(c.offsets))]
            chunks.append({"offsets": list(c.offsets), "sizes": list(c.sizes), "file": info.relative_path,
                           "storage_offset": info.offset, "length": info.length})
        row = {"path": fqn, "dtype": DTYPES[md.properties.dtype], "shape": list(md.size), "numel": t.numel(),
               "role": None, "param_id": None, "shares_storage_with": None, "offset": None, "chunks": chunks,
               "unchecked": ["role", "param_id", "shares_storage_with"]}
        row.update(stats(t))
        tensors.append(row)
    nbytes = sum(os.path.getsize(os.path.join(directory, f)) for f in os.listdir(directory))
    return {"file": os.path.basename(directory), "recorder": "DCP", "kind": "torch_dcp", "bytes": nbytes,
            "non_tensors": [k for k, md in metadata.state_dict_metadata.items() if not hasattr(md, "chunks")],
            "tensors": tensors}


def write(outdir):
    import torch.distributed._shard.checkpoint as dcp
    init_group()
    out = []
    for name, single in [("dcp", False), ("dcp_single", True)]:
        directory = os.path.join(outdir, name)
        shutil.rmtree(directory, ignore_errors=True)
        dcp.save_state_dict(state_dict(), dcp.FileSystemWriter(directory, single_file_per_rank=single))
        out.append(describe(directory, dcp.FileSystemReader(directory).read_metadata()))
    return out


def verify(outdir, expected):
    import torch.distributed._shard.checkpoint as dcp
    init_group()
    bad = 0
    for d in expected["directories"]:
        directory = os.path.join(outdir, d["file"])
        target = {t["path"]: torch.zeros(t["shape"], dtype={v: k for k, v in DTYPES.items()}[t["dtype"]])
                  for t in d["tensors"]}
        dcp.load_state_dict(target, dcp.FileSystemReader(directory))
        for t in d["tensors"]:
            got = stats(target[t["path"]])
            for k in ("sum", "l2", "min", "max", "nan", "inf", "zeros", "first_values"):
                if got[k] != t[k] and not (isinstance(got[k], float) and math.isclose(got[k], t[k], rel_tol=1e-12)):
                    print(f"{d['file']}: {t['path']}: {k} {got[k]!r} != expected {t[k]!r}")
                    bad += 1
    return bad


def main(argv):
    if len(argv) == 3 and argv[1] == "--verify":
        with open(os.path.join(argv[2], "expected.json")) as f:
            expected = json.load(f)["dcp"]
        if not expected["directories"]:
            print("no DCP directories to verify")
            return 0
        return 1 if verify(argv[2], expected) else 0
    if len(argv) != 2:
        print("usage: make_dcp.py OUTDIR | --verify OUTDIR", file=sys.stderr)
        return 2
    try:
        dirs = write(argv[1])
        status = ("written by torch.distributed._shard.checkpoint (torch 1.13 has no torch.distributed.checkpoint): "
                  "FileSystemWriter + save_state_dict in one process, a one-rank gloo group; "
                  "Python 3.11 needs a dataclasses shim to import the package")
    except Exception as e:  # noqa: BLE001 - reported, not hidden: expected.json says why there is no DCP
        dirs = []
        status = f"not written: {type(e).__name__}: {e}"
    print(json.dumps({"status": status, "torch": torch.__version__, "directories": dirs}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
