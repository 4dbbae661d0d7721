#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""check_torch_files.py CKPT DIR...        ckpt against the oracle
check_torch_files.py --self-test DIR...    the oracle against torch, without ckpt

Each DIR holds expected.json (make_torch_files.py) and/or hostile.json (make_hostile.py).

Against ckpt, for every file of expected.json (and every DCP directory):
  ckpt info --json FILE      kind, recorder, the tensor count; an ambiguous link has a warning
  ckpt tensors --json FILE   every tensor in order: path, dtype, shape, numel, role, param_id,
                             shares_storage_with, offset, nan/inf/zeros, min/max (exact), sum/l2
                             (relative 1e-9, absolute 1e-12 near 0), DCP chunks
  ckpt show --json FILE PATH --limit 8   for a few tensors: the first values
and for every file of hostile.json: `ckpt tensors --json FILE` exits 1 (no signal) within 10 s with
one line on stderr that names the file and holds the case's keyword, prints nothing on stdout, and
the payload's PWNED file never appears.

An expected value of null is not compared (the oracle has nothing to say there), except param_id and
shares_storage_with, which the contract makes null; fields named in a tensor's "unchecked" are not
compared. One line per mismatch (file: path: what), exit 1 on any.

--self-test loads every generated file with torch.load (weights_only=True where 1.13's safe loader
can read the file) and checks expected.json against what torch finds, reads each tensor's elements
back from the file at its expected offset, reads the DCP directories with torch's own
load_state_dict; and for the hostile corpus proves each file well-formed up to its hostile operation
(pickletools.genops, an Unpickler that allows nothing, one that allows only inert stand-ins for
torch's rebuild functions, zipfile) and that torch's own safe loader refuses the forbidden globals.

Without torch, what needs it is Not Run (exit 77; under CI=true a failure).
"""
import itertools
import json
import math
import os
import pickle
import pickletools
import struct
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # nothing written into the source tree
import torchpickle as tp  # noqa: E402

SKIP = 77
TIMEOUT = 10
STAT_EXACT = ("nan", "inf", "zeros", "min", "max")
STAT_CLOSE = ("sum", "l2")
INFLATE_LIMIT = 256 * 1024 * 1024


def torch_or_none():
    try:
        import torch
        return torch
    except ImportError:
        return None


class Report:
    def __init__(self):
        self.mismatches = 0
        self.skipped = []

    def bad(self, where, what):
        self.mismatches += 1
        print(f"{where}: {what}", flush=True)

    def skip(self, why):
        self.skipped.append(why)
        print(f"SKIP: {why}", file=sys.stderr, flush=True)

    def exit_code(self):
        if self.mismatches:
            print(f"{self.mismatches} mismatch(es)", file=sys.stderr)
            return 1
        if self.skipped:
            if os.environ.get("CI") == "true":
                print("CI=true: a check that cannot run is a failure", file=sys.stderr)
                return 1
            return SKIP
        return 0


def close(a, b):
    return abs(a - b) <= max(1e-9 * abs(b), 1e-12)


def same_number(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


# ---------------------------------------------------------------------------------------------
# ckpt against the oracle


class Ckpt:
    def __init__(self, exe, report):
        self.exe = exe
        self.report = report

    def json(self, where, *args):
        try:
            r = subprocess.run([self.exe, *args], capture_output=True, text=True, timeout=120)
        except subprocess.TimeoutExpired:
            self.report.bad(where, f"ckpt {' '.join(args[:1])} did not finish within 120 s")
            return None
        if r.returncode != 0:
            msg = r.stderr.strip().splitlines()
            self.report.bad(where, f"ckpt {args[0]} exit {r.returncode}: {msg[0] if msg else ''}")
            return None
        try:
            return json.loads(r.stdout)
        except ValueError as e:
            self.report.bad(where, f"ckpt {args[0]} printed no JSON document ({e})")
            return None


# The hyper-parameters make_torch_files.py gives its Adam optimizers (AdamW's are not torch's defaults):
# `ckpt optimizer` must analyse each with the betas and eps of its param_groups, not Burn's defaults.
ADAM_HYPERPARAMETERS = {"optimizer_adam.pt": ([0.9, 0.999], 1e-8), "optimizer_adamw.pt": ([0.8, 0.99], 1e-6)}


def check_adam_hyperparameters(ck, report, d):
    for name, (betas, eps) in ADAM_HYPERPARAMETERS.items():
        path = os.path.join(d, name)
        if not os.path.exists(path):
            continue
        doc = ck.json(name, "optimizer", "--json", path)
        if doc is None:
            continue
        if doc.get("betas") != betas or doc.get("epsilon") != eps:
            report.bad(name, f"ckpt optimizer used betas {doc.get('betas')} and epsilon {doc.get('epsilon')}, "
                             f"the file's param_groups say {betas} and {eps}")


def compare_tensor(report, where, exp, got):
    unchecked = set(exp.get("unchecked", []))
    for k in ("path", "dtype", "shape", "numel"):
        if got.get(k) != exp[k]:
            report.bad(where, f"{k} {got.get(k)!r}, expected {exp[k]!r}")
    for k in ("role", "param_id", "shares_storage_with"):
        if k not in unchecked and got.get(k) != exp[k]:
            report.bad(where, f"{k} {got.get(k)!r}, expected {exp[k]!r}")
    if exp.get("offset") is not None and got.get("offset") != exp["offset"]:
        report.bad(where, f"offset {got.get('offset')!r}, expected {exp['offset']}")
    if exp["nan"] is None:  # complex / quantized: listed, no statistics
        for k in STAT_CLOSE + ("min", "max"):
            if got.get(k) is not None:
                report.bad(where, f"{k} {got.get(k)!r}: a {exp['dtype']} tensor has no statistics")
    for k in STAT_EXACT:
        if exp[k] is not None and not same_number(got.get(k), exp[k]):
            report.bad(where, f"{k} {got.get(k)!r}, expected {exp[k]!r}")
    for k in STAT_CLOSE:
        if exp[k] is not None:
            v = got.get(k)
            if not isinstance(v, (int, float)) or isinstance(v, bool) or not close(float(v), exp[k]):
                report.bad(where, f"{k} {v!r}, expected {exp[k]!r}")
    if "chunks" in exp:
        want = [{k: c[k] for k in ("offsets", "sizes", "file")} for c in exp["chunks"]]
        have = [{k: c.get(k) for k in ("offsets", "sizes", "file")} for c in got.get("chunks") or []]
        if have != want:
            report.bad(where, f"chunks {have!r}, expected {want!r}")


def show_picks(tensors):
    """The first and last tensor, and up to two with a view, a 0-dim shape or non-finite values."""
    picks = [0, len(tensors) - 1]
    for k, t in enumerate(tensors):
        contiguous = t.get("storage_offset", 0) == 0 and t.get("stride") == contiguous_strides(t["shape"])
        if not contiguous or t["shape"] == [] or (t["nan"] or 0) + (t["inf"] or 0):
            picks.append(k)
    out = []
    for k in picks:
        if 0 <= k < len(tensors) and k not in out:
            out.append(k)
    return out[:4]


def contiguous_strides(shape):
    out, n = [], 1
    for s in reversed(shape):
        out.append(n)
        n *= s
    return list(reversed(out))


def check_record(ck, report, directory, entry):
    path = os.path.join(directory, entry["file"])
    name = entry["file"]
    info = ck.json(name, "info", "--json", path)
    if info is not None:
        for k in ("kind", "recorder"):
            if info.get(k) != entry[k]:
                report.bad(name, f"info {k} {info.get(k)!r}, expected {entry[k]!r}")
        if info.get("tensors") != len(entry["tensors"]):
            report.bad(name, f"info tensors {info.get('tensors')!r}, expected {len(entry['tensors'])}")
        if entry.get("ambiguous") and not info.get("warnings"):
            report.bad(name, "the order-and-shape link is ambiguous but info gives no warning saying why")
    rows = ck.json(name, "tensors", "--json", path)
    if rows is None:
        return
    if not isinstance(rows, list):
        report.bad(name, "ckpt tensors --json is not an array")
        return
    if len(rows) != len(entry["tensors"]):
        report.bad(name, f"{len(rows)} tensors, expected {len(entry['tensors'])}")
    for exp, got in zip(entry["tensors"], rows):
        compare_tensor(report, f"{name}: {exp['path']}", exp, got)
    for k in show_picks(entry["tensors"]):
        exp = entry["tensors"][k]
        doc = ck.json(f"{name}: {exp['path']}", "show", "--json", path, exp["path"], "--limit", "8")
        if doc is None:
            continue
        where = f"{name}: {exp['path']}: show"
        for key in ("dtype", "shape"):
            if key in doc and doc[key] != exp[key]:
                report.bad(where, f"{key} {doc[key]!r}, expected {exp[key]!r}")
        if exp["first_values"] is not None:
            values = doc.get("values")
            if not isinstance(values, list) or len(values) != len(exp["first_values"]) or \
                    any(not same_number(a, b) for a, b in zip(values, exp["first_values"])):
                report.bad(where, f"values {values!r}, expected {exp['first_values']!r}")


def check_hostile(exe, report, directory, cases):
    pwned = {c.get("pwned") or os.path.join(directory, "PWNED") for c in cases}
    for p in pwned:
        if os.path.exists(p):
            report.bad(p, "exists before ckpt ran: remove it and generate the corpus again")
            os.remove(p)
    for c in cases:
        path = os.path.join(directory, c["file"])
        where = c["file"]
        start = time.monotonic()
        try:
            r = subprocess.run([exe, "tensors", "--json", path], capture_output=True, text=True, timeout=TIMEOUT,
                               errors="replace")
        except subprocess.TimeoutExpired:
            report.bad(where, f"ckpt did not finish within {TIMEOUT} s")
            continue
        took = time.monotonic() - start
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        if r.returncode < 0:
            report.bad(where, f"ckpt killed by signal {-r.returncode}: {lines[0] if lines else ''}")
            continue
        if r.returncode != 1:
            report.bad(where, f"exit {r.returncode}, expected 1 ({c['what']})")
        if len(lines) != 1:
            report.bad(where, f"{len(lines)} lines on stderr, expected one message: {r.stderr.strip()[:300]!r}")
        message = r.stderr.lower()
        if c["file"].lower() not in message:
            report.bad(where, f"the message does not name the file: {r.stderr.strip()[:200]!r}")
        if c["expect"] not in message:
            report.bad(where, f"the message lacks {c['expect']!r}: {r.stderr.strip()[:200]!r}")
        if r.stdout.strip():
            report.bad(where, f"printed on stdout although refused: {r.stdout.strip()[:100]!r}")
        if took > TIMEOUT / 2:
            print(f"{where}: note: {took:.1f} s", file=sys.stderr)
        for p in pwned:
            if os.path.exists(p):
                report.bad(where, f"{p} appeared: the payload ran")
                os.remove(p)
    time.sleep(0.5)  # a spawned process would touch the file a moment later
    for p in pwned:
        if os.path.exists(p):
            report.bad(p, "appeared after the hostile corpus: a payload ran")


def run_against_ckpt(exe, dirs):
    report = Report()
    if not os.access(exe, os.X_OK):
        print(f"check_torch_files: {exe} is not an executable", file=sys.stderr)
        return 2
    ck = Ckpt(exe, report)
    for d in dirs:
        expected = os.path.join(d, "expected.json")
        hostile = os.path.join(d, "hostile.json")
        if not os.path.exists(expected) and not os.path.exists(hostile):
            if torch_or_none() is None:
                report.skip(f"{d}: nothing generated (PyTorch is missing, install python3-torch)")
            else:
                report.bad(d, "neither expected.json nor hostile.json: was the generator run?")
            continue
        if os.path.exists(expected):
            with open(expected) as f:
                doc = json.load(f)
            for entry in doc["files"]:
                check_record(ck, report, d, entry)
            check_adam_hyperparameters(ck, report, d)
            for entry in doc.get("dcp", {}).get("directories", []):
                check_record(ck, report, d, entry)
            n = len(doc["files"]) + len(doc.get("dcp", {}).get("directories", []))
            print(f"checked {n} files of {expected}", file=sys.stderr)
        if os.path.exists(hostile):
            with open(hostile) as f:
                cases = json.load(f)
            check_hostile(exe, report, d, cases)
            print(f"checked {len(cases)} hostile files of {hostile}", file=sys.stderr)
    return report.exit_code()


# ---------------------------------------------------------------------------------------------
# The self-test: expected.json against torch


def torch_stats(torch, t):
    """The statistics again, the torch way (float64 reductions), to check the generator's fsum ones."""
    if t.is_complex() or t.is_quantized:
        return None
    x = t.detach().reshape(-1).to(torch.float64)
    s = {"nan": int(torch.isnan(x).sum()), "inf": int(torch.isinf(x).sum()), "zeros": int((x == 0).sum())}
    if x.numel() == 0:
        s.update({"sum": 0.0, "l2": 0.0, "min": None, "max": None})
    elif s["nan"] or s["inf"]:
        s.update({"sum": None, "l2": None, "min": None, "max": None})
    else:
        s.update({"sum": float(x.sum()), "l2": float(torch.linalg.vector_norm(x)), "min": float(x.min()),
                  "max": float(x.max())})
    s["first_values"] = [v if math.isfinite(v) else None for v in x[:8].tolist()]
    return s


def load_with_torch(torch, path, notes):
    try:
        return torch.load(path, weights_only=True)
    except Exception:  # noqa: BLE001 - 1.13's safe loader knows few opcodes (no BINFLOAT, no protocol 4)
        notes.append(os.path.basename(path))
        return torch.load(path, weights_only=False)


def storage_identity(t):
    s = t.storage()
    return getattr(s, "_storage", s)._cdata


def element_bytes(torch, t):
    flat = t.detach().reshape(-1).contiguous()
    if flat.numel() == 0:
        return b""
    return flat.view(torch.uint8).numpy().tobytes()


def selftest_record(torch, report, directory, entry, notes):
    name = entry["file"]
    path = os.path.join(directory, name)
    size = os.path.getsize(path)
    if size != entry["bytes"]:
        report.bad(name, f"{size} bytes, expected.json says {entry['bytes']}")
    with open(path, "rb") as f:
        raw = f.read()
    recorder = "PyTorch" if raw[:4] == b"PK\x03\x04" else "PyTorchLegacy"
    if recorder != entry["recorder"]:
        report.bad(name, f"the file is {recorder}, expected.json says {entry['recorder']}")
    obj = load_with_torch(torch, path, notes)
    found = tp.walk(obj)
    if [tp.path_text(p) for p, _ in found] != [t["path"] for t in entry["tensors"]]:
        report.bad(name, f"torch finds {[tp.path_text(p) for p, _ in found]}")
        return
    kinds = {"torch_state_dict": isinstance(obj, dict) and all(tp.is_tensor(v) for v in obj.values()),
             "torch_optimizer_state": isinstance(obj, dict) and set(obj) == {"state", "param_groups"}}
    kind = next((k for k, v in kinds.items() if v), "torch_checkpoint")
    if kind != entry["kind"]:
        report.bad(name, f"kind {kind}, expected.json says {entry['kind']}")
    first_of = {}
    for (p, t), exp in zip(found, entry["tensors"]):
        where = f"{name}: {exp['path']}"
        dt = str(t.dtype).replace("torch.", "")
        ours = {"float32": "F32", "float64": "F64", "float16": "F16", "bfloat16": "BF16", "int64": "I64",
                "int32": "I32", "int16": "I16", "int8": "I8", "uint8": "U8", "bool": "Bool"}.get(dt, dt)
        if ours != exp["dtype"] or list(t.shape) != exp["shape"] or t.numel() != exp["numel"]:
            report.bad(where, f"torch: {ours} {list(t.shape)}, expected.json: {exp['dtype']} {exp['shape']}")
        if list(t.stride()) != exp["stride"] or t.storage_offset() != exp["storage_offset"]:
            report.bad(where, f"torch: stride {list(t.stride())} +{t.storage_offset()}")
        ident = storage_identity(t) if t.numel() or t.storage().size() else ("empty", id(t))
        first = first_of.setdefault(ident, exp["path"])
        if (None if first == exp["path"] else first) != exp["shares_storage_with"]:
            report.bad(where, f"torch: shares storage with {first!r}, expected.json {exp['shares_storage_with']!r}")
        st = torch_stats(torch, t)
        if st is None:
            if exp["sum"] is not None or exp["first_values"] is not None:
                report.bad(where, "statistics for a tensor that has none")
        else:
            for k in ("nan", "inf", "zeros", "min", "max", "first_values"):
                if st[k] != exp[k]:
                    report.bad(where, f"{k}: torch {st[k]!r}, expected.json {exp[k]!r}")
            for k in STAT_CLOSE:
                if (st[k] is None) != (exp[k] is None) or (st[k] is not None and not close(st[k], exp[k])):
                    report.bad(where, f"{k}: torch {st[k]!r}, expected.json {exp[k]!r}")
        # every logical element, read from the file at the expected offset, strides and storage offset
        if exp["offset"] is not None:
            el = t.element_size()
            want = element_bytes(torch, t)
            base = exp["offset"] - t.storage_offset() * el
            got = bytearray()
            for idx in itertools.product(*[range(n) for n in t.shape]):
                at = base + (t.storage_offset() + sum(i * s for i, s in zip(idx, t.stride()))) * el
                got += raw[at:at + el]
            if bytes(got) != want:
                report.bad(where, f"the bytes at offset {exp['offset']} are not the tensor's elements")
        elif t.numel() > 0:
            report.bad(where, "no offset for a tensor with elements")
    # the optimizer link against the parameters the optimizer was really built on
    truth = entry.get("optimizer_parameters")
    if truth is not None and not entry.get("ambiguous"):
        opt = obj.get("optimizer") or obj.get("optimizer_state_dict") or (obj.get("optimizer_states") or [None])[0]
        ids = [i for g in opt["param_groups"] for i in g["params"]]
        name_of = dict(zip(ids, truth))
        for exp in entry["tensors"]:
            if exp["role"] == "optimizer":
                i = int(exp["path"].split(".state.")[1].split(".")[0])
                if exp["param_id"] != name_of[i]:
                    report.bad(f"{name}: {exp['path']}", f"param_id {exp['param_id']!r}, the optimizer's parameter {i} "
                               f"is {name_of[i]!r}")
    if entry.get("ambiguous"):
        for exp in entry["tensors"]:
            if exp["role"] == "optimizer" and exp["param_id"] is not None:
                report.bad(f"{name}: {exp['path']}", "an ambiguous link must leave param_id null")


def selftest_files(report, directory):
    torch = torch_or_none()
    if torch is None:
        report.skip("PyTorch is missing (install python3-torch): expected.json not checked against torch")
        return
    with open(os.path.join(directory, "expected.json")) as f:
        doc = json.load(f)
    notes = []
    for entry in doc["files"]:
        selftest_record(torch, report, directory, entry, notes)
    total = sum(e["bytes"] for e in doc["files"])
    big = [e["file"] for e in doc["files"] if e["bytes"] >= 200 * 1024]
    if big or total >= 3 * 1024 * 1024:
        report.bad(directory, f"too large: {big} / {total} bytes in all")
    if notes:
        print(f"note: torch 1.13's weights_only=True refuses {len(notes)} of the files (its safe loader knows no "
              f"BINFLOAT and none of protocol 4's opcodes); read with weights_only=False: {', '.join(notes)}",
              file=sys.stderr)
    if doc.get("dcp", {}).get("directories"):
        r = subprocess.run([sys.executable, os.path.join(HERE, "make_dcp.py"), "--verify", directory],
                           capture_output=True, text=True)
        if r.returncode != 0:
            report.bad(os.path.join(directory, "dcp"), f"torch's load_state_dict disagrees:\n{r.stdout}{r.stderr}")
    else:
        print(f"note: no DCP directory: {doc.get('dcp', {}).get('status')}", file=sys.stderr)
    print(f"self-test: {len(doc['files'])} files against torch {torch.__version__}", file=sys.stderr)


# ---------------------------------------------------------------------------------------------
# The self-test: the hostile corpus


class RefuseAll(pickle.Unpickler):
    """Python's own unpickler, allowing nothing: no global, no persistent id."""

    def find_class(self, module, name):
        raise tp.Refused(f"global {module} {name}")

    def persistent_load(self, pid):
        raise tp.Refused("persistent id")


def hostile_pickle(path, fmt):
    if fmt == "zip":
        with zipfile.ZipFile(path) as z:
            return z.read(next(n for n in z.namelist() if n.endswith("/data.pkl")))
    with open(path, "rb") as f:
        for _ in range(3):
            pickle.load(f)
        return f.read()


def genops_outcome(data):
    """(last opcode name, its position, error or None) of a structural walk that executes nothing."""
    last = (None, None)
    try:
        for op, _, pos in pickletools.genops(data):
            last = (op.name, pos)
        return last + (None,)
    except ValueError as e:
        return last + (str(e),)


def depth_of(o):
    best, stack = 0, [(o, 1)]
    while stack:
        x, d = stack.pop()
        if isinstance(x, (list, tuple, dict)):
            best = max(best, d)
            stack.extend((v, d + 1) for v in (x.values() if isinstance(x, dict) else x))
    return best


def selftest_pickle_case(report, where, case, data):
    want = case["selftest"]
    op, pos, err = genops_outcome(data)
    # 1. structure: every opcode up to the hostile one parses
    if "pickle_error" in want and want["pickle_error"] in ("opcode", "length"):
        if err is None:
            report.bad(where, f"pickletools parses the whole pickle, expected it to stop at the {want['pickle_error']}")
    elif err is not None or op != "STOP":
        report.bad(where, f"not a well-formed pickle: {err or op}")
    # 2. Python's own unpickler that allows nothing stops at the first global (or loads what has none)
    try:
        RefuseAll(__import__("io").BytesIO(data)).load()
        refused_all = None
    except tp.Refused as e:
        refused_all = str(e)
    except Exception as e:  # noqa: BLE001 - the hostile op itself (memo, opcode, length, BUILD on a list)
        refused_all = f"{type(e).__name__}: {e}"
    if refused_all is None or not (refused_all.startswith("global collections OrderedDict") or "pickle_error" in want):
        report.bad(where, f"the allow-nothing unpickler: {refused_all!r}, expected it to refuse the first global")
    # 3. with inert stand-ins for torch's own globals, the unpickler reaches the hostile operation
    try:
        obj = tp.stub_loads(data)
        outcome = ("loaded", obj)
    except tp.Refused as e:
        outcome = ("refused", str(e))
    except RecursionError as e:
        outcome = ("error", f"RecursionError: {e}")
    except Exception as e:  # noqa: BLE001
        outcome = ("error", f"{type(e).__name__}: {e}")
    if "refused_global" in want:
        if outcome != ("refused", f"global {want['refused_global']}"):
            report.bad(where, f"expected the stand-in unpickler to refuse {want['refused_global']}, got {outcome[:2]}")
    elif "build_refused" in want:
        if outcome[0] != "refused" or not outcome[1].startswith("BUILD"):
            report.bad(where, f"expected BUILD refused, got {outcome[:2]}")
    elif "stub_error" in want:
        if outcome[0] != "error" or not outcome[1].startswith(want["stub_error"]):
            report.bad(where, f"expected {want['stub_error']}, got {outcome[:2]}")
    elif "pickle_error" in want:
        kind = want["pickle_error"]
        text = outcome[1].lower() if outcome[0] == "error" else ""
        ok = {"memo": "memo" in text,
              "opcode": "unknown" in (err or "") and ("invalid load key" in text or text == "keyerror: 255"),
              "length": err is not None and "remain" in err}[kind]
        if not ok:
            report.bad(where, f"expected a {kind} error, got {outcome[:2]} / {err}")
    elif "deep" in want:
        if outcome[0] != "loaded" or depth_of(outcome[1]["fc.bias"]) != want["deep"]:
            report.bad(where, f"expected nesting {want['deep']} deep, got {outcome[0]}")
    return outcome


def selftest_tensor_case(report, where, case, path):
    kind = case["selftest"]["tensor_check"]
    try:
        tf = tp.TorchFile(path)
    except Exception as e:  # noqa: BLE001
        report.bad(where, f"the stand-in reader cannot even list it: {type(e).__name__}: {e}")
        return
    t = tf.tensors[0][1]
    entry_bytes = tf.storage_bytes.get(t.storage.key)
    ok = {"storage_key": ".." in t.storage.key and entry_bytes is not None,
          "short_view": entry_bytes is not None and t.numel > 0 and
          (t.storage_offset + sum((n - 1) * s for n, s in zip(t.size, t.stride)) + 1) * t.elsize > entry_bytes,
          "short_entry": entry_bytes is not None and t.storage.numel * t.elsize > entry_bytes,
          "negative_stride": any(s < 0 for s in t.stride),
          "shape_overflow": t.numel >= 2 ** 64}[kind]
    if not ok:
        report.bad(where, f"not the {kind} it should be")


def selftest_hostile(report, directory):
    with open(os.path.join(directory, "hostile.json")) as f:
        cases = json.load(f)
    for case in cases:
        where = case["file"]
        path = os.path.join(directory, case["file"])
        want = case["selftest"]
        if not case.get("expect") or case["expect"] != case["expect"].lower():
            report.bad(where, f"keyword {case.get('expect')!r} is not lowercase")
        if "pickle" in want and "tensor_check" not in want and "legacy_truncated" not in want:
            data = hostile_pickle(path, case["format"])
            if len(data) < want["pickle"]:
                report.bad(where, f"data.pkl holds {len(data)} bytes, expected {want['pickle']}")
            selftest_pickle_case(report, where, case, data[: want["pickle"]])
        elif "tensor_check" in want:
            selftest_tensor_case(report, where, case, path)
        elif "legacy_truncated" in want:
            try:
                tp.TorchFile(path)
                report.bad(where, "the legacy file reads whole")
            except ValueError as e:
                if "truncated" not in str(e):
                    report.bad(where, f"unexpected: {e}")
        elif want.get("zip_error") == "truncated":
            with open(path, "rb") as f:
                head = f.read(4)
            try:
                zipfile.ZipFile(path)
                report.bad(where, "zipfile opens it")
            except zipfile.BadZipFile:
                pass
            if head != b"PK\x03\x04":
                report.bad(where, "does not start like a zip")
        elif want.get("zip_error") == "local_offset":
            size = os.path.getsize(path)
            with zipfile.ZipFile(path) as z:
                if not all(i.header_offset > size for i in z.infolist()):
                    report.bad(where, "a local header offset inside the file")
        elif "bomb" in want:
            with zipfile.ZipFile(path) as z:
                info = z.getinfo("archive/data.pkl")
                if info.compress_type != zipfile.ZIP_DEFLATED or info.file_size != want["bomb"]:
                    report.bad(where, f"data.pkl: {info.compress_type} {info.file_size}")
                with z.open(info) as f:
                    head = f.read(11)
                    n = len(head)
                    while True:
                        block = f.read(1 << 22)
                        if not block:
                            break
                        n += len(block)
                if head[:3] != b"\x80\x04\x8e" or struct.unpack("<Q", head[3:11])[0] != want["bomb"] - 12:
                    report.bad(where, "data.pkl does not start with a BINBYTES8 of its length")
                if n <= INFLATE_LIMIT:
                    report.bad(where, f"inflates to {n} bytes only")
        else:
            report.bad(where, f"no self-test for {want}")
    torch_checks(report, directory, cases)
    pwned = {c.get("pwned") for c in cases if c.get("pwned")}
    for p in pwned:
        if os.path.exists(p):
            report.bad(p, "exists after the self-test")
    print(f"self-test: {len(cases)} hostile files", file=sys.stderr)


def torch_checks(report, directory, cases):
    """torch's own safe loader refuses every forbidden global; the wrappers themselves (the same
    zip and legacy containers around a benign state dict) load in torch."""
    torch = torch_or_none()
    if torch is None:
        report.skip("PyTorch is missing: the hostile corpus is not checked against torch's safe loader")
        return
    import io
    import make_hostile as mh
    for case in cases:
        if "refused_global" in case["selftest"]:
            try:
                torch.load(os.path.join(directory, case["file"]), weights_only=True)
                report.bad(case["file"], "torch.load(weights_only=True) accepts it")
            except Exception:  # noqa: BLE001 - refused, as it must be
                pass
    with tempfile.TemporaryDirectory() as tmp:
        c = mh.Corpus(tmp, os.path.join(tmp, "PWNED"))
        for form in ("zip", "legacy"):
            _, data = c.state_dict((2, 2), (2, 1), 0, 4, mh.floats(4), form)
            got = torch.load(io.BytesIO(data), weights_only=True)
            if got["weight"].tolist() != [[0.0, 0.25], [0.5, 0.75]]:
                report.bad(f"control ({form})", f"torch reads {got}")


def self_test(dirs):
    report = Report()
    for d in dirs:
        has_expected = os.path.exists(os.path.join(d, "expected.json"))
        has_hostile = os.path.exists(os.path.join(d, "hostile.json"))
        if has_expected:
            selftest_files(report, d)
        if has_hostile:
            selftest_hostile(report, d)
        if not has_expected and not has_hostile:
            if torch_or_none() is None:
                report.skip(f"{d}: nothing generated (PyTorch is missing)")
            else:
                report.bad(d, "neither expected.json nor hostile.json")
    return report.exit_code()


def main(argv):
    if len(argv) >= 3 and argv[1] == "--self-test":
        return self_test(argv[2:])
    if len(argv) >= 3 and not argv[1].startswith("-"):
        return run_against_ckpt(argv[1], argv[2:])
    print(__doc__.split("\n\n")[0], file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
