# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""Shared by the Python tests: the built tools, generated records, the genuine fixtures, and a
safetensors reader/writer written from the published format (https://github.com/huggingface/safetensors,
"Format" section), independent of the C++ code under test."""
import json
import os
import struct
import subprocess
import tempfile

BIN = os.environ.get("CKPT_BIN_DIR", "")
FIXTURES = os.environ.get("CKPT_FIXTURES", "")
CKPT = os.path.join(BIN, "ckpt")
TRAIN = os.path.join(BIN, "ckpt-train")


def run_cli(*args, check=True):
    """Runs ckpt; returns (exit code, stdout, stderr)."""
    p = subprocess.run([CKPT, *map(str, args)], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"ckpt {' '.join(map(str, args))} failed ({p.returncode}): {p.stderr}")
    return p.returncode, p.stdout, p.stderr


def cli_json(*args):
    return json.loads(run_cli(*args, "--json")[1])


def train(out, *flags):
    subprocess.run([TRAIN, "--out", out, *map(str, flags)], check=True, capture_output=True)
    return out


def fixture_records():
    """Every genuine record fixture that opens without a schema (the .bin needs its twin), burnpack included."""
    models = os.path.join(FIXTURES, "models")
    found = sorted(os.path.join(models, f) for f in os.listdir(models) if f.endswith((".mpk", ".bpk")))
    assert len(found) >= 5, f"expected the genuine fixtures in {models}"
    return found


class Generated:
    """Records the reference trainer writes: a run in every precision and a few recorders."""

    def __init__(self):
        self._dir = tempfile.TemporaryDirectory(prefix="ckpt-python-")
        self.root = self._dir.name
        self.run = train(os.path.join(self.root, "run"), "--steps", 12, "--checkpoint-every", 6, "--layout", "all",
                         "--optimizer", "adam")
        self.half = train(os.path.join(self.root, "half"), "--steps", 6, "--precision", "half", "--recorder", "NamedMpkGz",
                          "--optimizer", "adamw", "--scheduler", "cosine")
        self.f64 = train(os.path.join(self.root, "f64"), "--steps", 6, "--dtype", "f64", "--recorder", "PrettyJson",
                         "--optimizer", "sgd")
        self.bin = train(os.path.join(self.root, "bin"), "--steps", 6, "--recorder", "Bin")

    def records(self):
        return [os.path.join(self.run, "checkpoint", "record-12.mpk"), os.path.join(self.run, "checkpoint", "record-6.mpk"),
                os.path.join(self.half, "checkpoint", "record-6.mpk.gz"), os.path.join(self.f64, "checkpoint", "record-6.json"),
                os.path.join(self.bin, "checkpoint", "record-6.bin")]

    def path(self, *parts):
        return os.path.join(self.root, *parts)


# ------------------------------------------------------------------------------------------------
# safetensors from the published format

ST_SIZES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
            "I32": 4, "U32": 4, "F32": 4, "F64": 8, "I64": 8, "U64": 8}
ST_NUMPY = {"BOOL": "|b1", "U8": "|u1", "I8": "|i1", "I16": "<i2", "U16": "<u2", "F16": "<f2", "I32": "<i4", "U32": "<u4",
            "F32": "<f4", "F64": "<f8", "I64": "<i8", "U64": "<u8"}


class SafetensorsError(Exception):
    pass


def read_safetensors(path):
    """Returns (header dict, metadata dict, {name: bytes}, raw header bytes) and checks the layout rules."""
    data = read_bytes(path)
    if len(data) < 8:
        raise SafetensorsError("shorter than the 8-byte header length")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise SafetensorsError("header length beyond the file")
    raw = data[8:8 + n]
    if not raw.startswith(b"{"):
        raise SafetensorsError("header does not start with {")
    text = raw.decode("utf-8")
    pairs = json.loads(text, object_pairs_hook=lambda kv: kv)
    names = [k for k, _ in pairs]
    if len(names) != len(set(names)):
        raise SafetensorsError("duplicate names")
    header = dict(pairs)
    metadata = dict(header.pop("__metadata__", None) or {})
    for k, v in metadata.items():
        if not isinstance(v, str):
            raise SafetensorsError(f"metadata {k} is not a string")
    body = data[8 + n:]
    spans = []
    tensors = {}
    for name, info in header.items():
        info = dict(info)
        dtype, shape, (begin, end) = info["dtype"], info["shape"], info["data_offsets"]
        numel = 1
        for d in shape:
            assert isinstance(d, int) and d >= 0
            numel *= d
        if end - begin != numel * ST_SIZES[dtype]:
            raise SafetensorsError(f"{name}: {end - begin} bytes for shape {shape} of {dtype}")
        spans.append((begin, end, name))
        tensors[name] = body[begin:end]
    spans.sort()
    at = 0
    for begin, end, name in spans:
        if begin != at:
            raise SafetensorsError(f"{name}: hole or overlap at {begin} (expected {at})")
        at = end
    if at != len(body):
        raise SafetensorsError("data bytes after the last tensor")
    return {k: dict(v) for k, v in header.items()}, metadata, tensors, raw


def write_safetensors(path, tensors, metadata=None):
    """tensors: {name: (dtype, shape, bytes)}; writes them in the given order, header padded to 8."""
    header = {}
    at = 0
    for name, (dtype, shape, payload) in tensors.items():
        header[name] = {"dtype": dtype, "shape": list(shape), "data_offsets": [at, at + len(payload)]}
        at += len(payload)
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - (8 + len(text)) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for _, (_, _, payload) in tensors.items():
            f.write(payload)


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()
