#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""check_hf_run.py CKPT OUTDIR — ckpt on the Hugging Face Trainer output of make_hf_run.py, against
OUTDIR/expected.json (docs/cli-contract.md, "PyTorch and safetensors" and "Runs"; runs.md, "Layouts").

For every run OUTDIR/RUN:
  ckpt timeline RUN --json --no-cache   checkpoints (index, file, step, bytes, valid, error, loss, lr);
                                        every tensor's series (l2, max_abs, nan, inf, zeros, update_l2);
                                        first_nan events; cache {read: n, reused: 0}
  ckpt bisect RUN --until nan --json    first_bad (index, file, step, paths), last_good, opened (at most
                                        ceil(log2(n+1)), and the checkpoints the verdict rests on)
  ckpt loss RUN --json                  train/Loss, train/Learning_Rate, valid/Loss from log_history
  ckpt info --json FILE                 the sharded set's index and an optimizer.pt: kind, recorder,
  ckpt tensors --json FILE              tensor count and bytes, tensor paths
  ckpt info --json training_args.bin    refused: exit 1, one line naming the file and the global
and rng_state*.pth / training_args.bin appear in no document (no checkpoint file, no series, no
warning, no error, not opened by bisect). Last, the cache on a copy of the sharded run: a shard
rewritten after a cached timeline is read again (runs.md, "Cache": a checkpoint is read again when
one of its files changed).

One line per mismatch (RUN: what), exit 1 on any. Numbers: loss, lr, counts and steps exactly
(ckpt prints the value trainer_state.json holds); l2, max_abs, update_l2 to a relative 1e-9
(absolute 1e-12 near 0). Without expected.json because torch is missing: exit 77 (Not Run; under
CI=true a failure).
"""
import importlib.util
import json
import math
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True

SKIP = 77
NOT_CHECKPOINTS = ("rng_state", "training_args")


class Report:
    def __init__(self):
        self.mismatches = 0

    def bad(self, where, what):
        self.mismatches += 1
        print(f"{where}: {what}", flush=True)


def close(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, bool) or not isinstance(a, (int, float)):
        return False
    return abs(a - b) <= max(1e-9 * abs(b), 1e-12)


def exact(a, b):
    if a is None or b is None:
        return a is b
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return isinstance(a, (int, float)) and float(a) == float(b)


def strings(doc):
    """Every string of a JSON document, keys included."""
    out = []
    stack = [doc]
    while stack:
        x = stack.pop()
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, dict):
            out.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)
    return out


class Ckpt:
    def __init__(self, exe, report, env):
        self.exe = exe
        self.report = report
        self.env = env

    def run(self, *args):
        return subprocess.run([self.exe, *map(str, args)], capture_output=True, text=True, timeout=300, env=self.env,
                              errors="replace")

    def json(self, where, *args):
        cmd = "ckpt " + " ".join(os.path.basename(str(a)) if os.path.isabs(str(a)) else str(a) for a in args)
        try:
            r = self.run(*args)
        except subprocess.TimeoutExpired:
            self.report.bad(where, f"{cmd}: did not finish within 300 s")
            return None
        if r.returncode != 0:
            msg = r.stderr.strip().splitlines()
            self.report.bad(where, f"{cmd}: exit {r.returncode}: {msg[0] if msg else ''}")
            return None
        try:
            return json.loads(r.stdout)
        except ValueError as e:
            self.report.bad(where, f"{cmd}: printed no JSON document ({e})")
            return None


def no_side_files(report, where, doc, what):
    for s in strings(doc):
        if any(n in s for n in NOT_CHECKPOINTS):
            report.bad(where, f"{what} mentions {s[:160]!r}: rng_state*.pth and training_args.bin are not checkpoints")
            return


def check_timeline(ck, report, run_dir, run):
    where = f"{run['run']}: timeline"
    doc = ck.json(where, "timeline", run_dir, "--json", "--no-cache")
    if doc is None:
        return
    no_side_files(report, where, doc, "the timeline")
    got = doc.get("checkpoints") or []
    want = run["checkpoints"]
    if [c.get("file") for c in got] != [c["file"] for c in want]:
        report.bad(where, f"checkpoints {[c.get('file') for c in got]}, expected {[c['file'] for c in want]}")
        return  # not the run's checkpoints: the rest would only repeat it
    for c, e in zip(got, want):
        w = f"{where}: checkpoint {e['index']} ({e['file']})"
        for k in ("index", "step"):
            if c.get(k) != e[k]:
                report.bad(w, f"{k} {c.get(k)!r}, expected {e[k]!r}")
        if c.get("valid") is not True or c.get("error") is not None:
            report.bad(w, f"valid {c.get('valid')!r}, error {c.get('error')!r}; expected a valid checkpoint")
        if c.get("bytes") != e["bytes"]:
            report.bad(w, f"bytes {c.get('bytes')!r}, expected {e['bytes']} (the sizes of {', '.join(e['files'])})")
        for k in ("loss", "lr"):
            if not exact(c.get(k), e[k]):
                report.bad(w, f"{k} {c.get(k)!r}, expected {e[k]!r} (trainer_state.json's last value at or before step {e['step']})")
    cache = doc.get("cache") or {}
    if cache.get("read") != len(want) or cache.get("reused") != 0:
        report.bad(where, f"cache {cache!r} with --no-cache, expected read {len(want)}, reused 0")

    series = {}
    for s in doc.get("series") or []:
        series.setdefault(s.get("path"), s)
    missing = [e["path"] for e in run["series"] if e["path"] not in series]
    if missing:
        report.bad(where, f"no series for {len(missing)} tensors: {missing[:6]}{'...' if len(missing) > 6 else ''}")
    for exp in run["series"]:
        path = exp["path"]
        s = series.get(path)
        w = f"{where}: {path}"
        if s is None:
            continue
        pts = s.get("points") or []
        if [p.get("checkpoint") for p in pts] != [p["checkpoint"] for p in exp["points"]]:
            report.bad(w, f"points at checkpoints {[p.get('checkpoint') for p in pts]}, "
                          f"expected {[p['checkpoint'] for p in exp['points']]}")
            continue
        for p, e in zip(pts, exp["points"]):
            pw = f"{w}: checkpoint {e['checkpoint']}"
            for k in ("nan", "inf", "zeros"):
                if p.get(k) != e[k]:
                    report.bad(pw, f"{k} {p.get(k)!r}, expected {e[k]}")
            if e["nan"] == 0 and e["inf"] == 0:
                for k in ("l2", "max_abs"):
                    if not close(p.get(k), e[k]):
                        report.bad(pw, f"{k} {p.get(k)!r}, expected {e[k]!r}")
            if e["checkpoint"] == exp["points"][0]["checkpoint"]:
                if p.get("update_l2") is not None:
                    report.bad(pw, f"update_l2 {p.get('update_l2')!r} at the tensor's first checkpoint, expected null")
            elif e["update_l2"] is not None and not close(p.get("update_l2"), e["update_l2"]):
                report.bad(pw, f"update_l2 {p.get('update_l2')!r}, expected {e['update_l2']!r} (against checkpoint "
                               f"{e['checkpoint'] - 1})")
    extra = sorted(set(series) - {e["path"] for e in run["series"]})
    if extra:
        report.bad(where, f"series for tensors no checkpoint holds: {extra[:6]}")

    nan_events = sorted((ev.get("checkpoint"), ev.get("path")) for ev in doc.get("events") or []
                        if ev.get("kind") == "first_nan")
    bad = run["bisect_nan"]["first_bad"]
    want_events = sorted((bad["index"], p) for p in bad["paths"]) if bad else []
    if nan_events != want_events:
        report.bad(where, f"first_nan events {nan_events[:4]}{'...' if len(nan_events) > 4 else ''} ({len(nan_events)}), "
                          f"expected {want_events[:4]}{'...' if len(want_events) > 4 else ''} ({len(want_events)})")
    inf_events = [ev for ev in doc.get("events") or [] if ev.get("kind") == "first_inf"]
    if inf_events:
        report.bad(where, f"first_inf events {inf_events[:2]}: no checkpoint holds an Inf")


def check_bisect(ck, report, run_dir, run):
    where = f"{run['run']}: bisect --until nan"
    doc = ck.json(where, "bisect", run_dir, "--until", "nan", "--json")
    if doc is None:
        return
    no_side_files(report, where, doc, "bisect")
    exp_bad, exp_good = run["bisect_nan"]["first_bad"], run["bisect_nan"]["last_good"]
    got_bad = doc.get("first_bad")
    if exp_bad is None:
        if got_bad is not None:
            report.bad(where, f"first_bad {got_bad!r}, expected null (no checkpoint holds a NaN)")
    elif not isinstance(got_bad, dict):
        report.bad(where, f"first_bad {got_bad!r}, expected checkpoint {exp_bad['index']} ({exp_bad['file']})")
    else:
        for k in ("index", "file", "step"):
            if got_bad.get(k) != exp_bad[k]:
                report.bad(where, f"first_bad {k} {got_bad.get(k)!r}, expected {exp_bad[k]!r}")
        paths = sorted(got_bad.get("paths") or [])
        if paths != exp_bad["paths"]:
            missing = sorted(set(exp_bad["paths"]) - set(paths))
            extra = sorted(set(paths) - set(exp_bad["paths"]))
            report.bad(where, f"first_bad paths: missing {missing[:5]}, unexpected {extra[:5]}")
    got_good = doc.get("last_good")
    n = len(run["checkpoints"])
    if exp_bad is not None:
        if not isinstance(got_good, dict) or any(got_good.get(k) != exp_good[k] for k in ("index", "file", "step")):
            report.bad(where, f"last_good {got_good!r}, expected {exp_good!r}")
    elif got_good is not None and (not isinstance(got_good, dict) or got_good.get("index") != n - 1
                                   or got_good.get("file") != exp_good["file"]):
        report.bad(where, f"last_good {got_good!r}: with no bad checkpoint it can only be the last, {exp_good!r}")
    opened = doc.get("opened") or []
    files = [c["file"] for c in run["checkpoints"]]
    limit = math.ceil(math.log2(n + 1))
    if len(opened) > limit:
        report.bad(where, f"opened {len(opened)} checkpoints {opened}, at most {limit} for {n}")
    if any(f not in files for f in opened):
        report.bad(where, f"opened {opened}: not all of them are checkpoints of the run {files}")
    # a verdict rests on what was read: the first bad one and the last good one (or the last checkpoint)
    needed = [exp_bad["file"]] + ([exp_good["file"]] if exp_good else []) if exp_bad else [files[-1]]
    for f in needed:
        if f not in opened:
            report.bad(where, f"opened {opened} lacks {f}, which its verdict needs")
    if doc.get("warnings"):
        report.bad(where, f"warnings {doc['warnings']!r}: every checkpoint is readable")


def check_loss(ck, report, run_dir, run):
    where = f"{run['run']}: loss"
    doc = ck.json(where, "loss", run_dir, "--json")
    if doc is None:
        return
    got = {f"{s.get('split')}/{s.get('metric')}": s for s in doc.get("series") or []}
    for name, want in run["loss"].items():
        s = got.get(name)
        if s is None:
            report.bad(where, f"no series {name} (have {sorted(got)})")
            continue
        pts = s.get("points") or []
        have = [(p.get("epoch"), p.get("item"), p.get("value")) for p in pts]
        exp = [(p["epoch"], p["item"], p["value"]) for p in want]
        if len(have) != len(exp) or any(a[:2] != b[:2] or not exact(a[2], b[2]) for a, b in zip(have, exp)):
            report.bad(where, f"{name} (epoch, item, value) {have}, expected {exp}")
    if doc.get("warnings"):
        report.bad(where, f"warnings {doc['warnings']!r}: trainer_state.json is what the Trainer writes")


def check_files(ck, report, run_dir, run):
    for e in run["info"]:
        path = os.path.join(run_dir, e["file"])
        where = f"{run['run']}: {e['file']}"
        info = ck.json(where, "info", "--json", path)
        if info is not None:
            for k in ("kind", "recorder", "precision", "tensors", "tensor_bytes"):
                if k in e and info.get(k) != e[k]:
                    report.bad(where, f"info {k} {info.get(k)!r}, expected {e[k]!r}")
        rows = ck.json(where, "tensors", "--json", path)
        if isinstance(rows, list):
            paths = [r.get("path") for r in rows]
            if e["kind"] == "safetensors":
                paths = sorted(paths)  # shards in their own order: the set is what the index promises
            if paths != e["paths"]:
                report.bad(where, f"tensor paths {paths[:6]}..., expected {e['paths'][:6]}...")
    for e in run["refused"]:
        path = os.path.join(run_dir, e["file"])
        where = f"{run['run']}: {e['file']}"
        r = ck.run("info", "--json", path)
        lines = [line for line in r.stderr.splitlines() if line.strip()]
        if r.returncode != 1:
            report.bad(where, f"ckpt info exit {r.returncode}, expected 1 (a pickled object the safe machine refuses)")
        elif len(lines) != 1 or os.path.basename(path) not in r.stderr or \
                not all(n.lower() in r.stderr.lower() for n in e["names"]):
            report.bad(where, f"the message should name the file and {' '.join(e['names'])}: {r.stderr.strip()[:200]!r}")


def rewrite_shard(path, tensor):
    """Negates one F32 tensor of a safetensors file in place (same size), and moves its mtime on."""
    with open(path, "r+b") as f:
        data = bytearray(f.read())
        (n,) = struct.unpack("<Q", data[:8])
        header = json.loads(data[8:8 + n])
        begin, end = header[tensor]["data_offsets"]
        at = 8 + n
        count = (end - begin) // 4
        values = struct.unpack(f"<{count}f", data[at + begin:at + end])
        data[at + begin:at + end] = struct.pack(f"<{count}f", *(-v for v in values))
        f.seek(0)
        f.write(data)
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))


def check_cache(ck, report, outdir, run, tmp):
    """runs.md, "Cache": a checkpoint is read again when one of its files changed — a shard is one."""
    where = f"{run['run']}: cache"
    copy = os.path.join(tmp, "sharded-copy")
    shutil.copytree(os.path.join(outdir, run["run"]), copy)
    last = run["checkpoints"][-1]
    first = ck.json(where, "timeline", copy, "--json")
    if first is None:
        return
    ckdir = os.path.join(copy, os.path.dirname(last["file"]))
    with open(os.path.join(copy, last["file"])) as f:
        weight_map = json.load(f)["weight_map"]
    tensor = "lm_head.weight"
    rewrite_shard(os.path.join(ckdir, weight_map[tensor]), tensor)
    cached = ck.json(where, "timeline", copy, "--json")
    fresh = ck.json(where, "timeline", copy, "--json", "--no-cache")
    if cached is None or fresh is None:
        return

    def points(doc):
        for s in doc.get("series") or []:
            if s.get("path") == tensor:
                return [(p.get("checkpoint"), p.get("l2"), p.get("max_abs"), p.get("mean"), p.get("update_l2"))
                        for p in s.get("points") or []]
        return None

    if points(cached) != points(fresh):
        report.bad(where, f"after {weight_map[tensor]} of {os.path.dirname(last['file'])} was rewritten ({tensor} "
                          f"negated, mtime moved), the cached timeline says {points(cached)[-1:]} and --no-cache "
                          f"{points(fresh)[-1:]}; cache {cached.get('cache')!r}: the shard is not among the files "
                          f"the cache checks")


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    exe, outdir = sys.argv[1], sys.argv[2]
    if not os.access(exe, os.X_OK):
        print(f"check_hf_run: {exe} is not an executable", file=sys.stderr)
        return 2
    expected = os.path.join(outdir, "expected.json")
    if not os.path.exists(expected):
        if importlib.util.find_spec("torch") is None:
            if os.environ.get("CI") == "true":
                print("check_hf_run: nothing generated (no PyTorch); CI=true: a failure", file=sys.stderr)
                return 1
            print("SKIP: nothing generated (PyTorch is missing, install python3-torch)", file=sys.stderr)
            return SKIP
        print(f"check_hf_run: no {expected}: was make_hf_run.py run?", file=sys.stderr)
        return 1
    with open(expected) as f:
        doc = json.load(f)
    report = Report()
    with tempfile.TemporaryDirectory(prefix="ckpt-hf-") as tmp:
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))  # never the user's cache
        ck = Ckpt(exe, report, env)
        for run in doc["runs"]:
            run_dir = os.path.join(outdir, run["run"])
            check_timeline(ck, report, run_dir, run)
            check_bisect(ck, report, run_dir, run)
            check_loss(ck, report, run_dir, run)
            check_files(ck, report, run_dir, run)
        for run in doc["runs"]:
            if any(c["file"].endswith(".index.json") for c in run["checkpoints"]):
                check_cache(ck, report, outdir, run, tmp)
    print(f"checked {len(doc['runs'])} runs of {expected}: {report.mismatches} mismatch(es)", file=sys.stderr)
    return 1 if report.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
