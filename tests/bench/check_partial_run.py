#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""bench_partial_run: `run_bench.py --only-probes graphview --merge-into FILE` on a copy of the stored
results replaces every row of that probe (older figure names included) with the fresh ones, leaves
every other row as it was, and the header line of docs/benchmarks.md names the later run.

    check_partial_run.py BUILD_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import run_bench  # noqa: E402


def main():
    build = sys.argv[1]
    with tempfile.TemporaryDirectory(prefix="ckpt-bench-partial-") as tmp:
        stored_path = os.path.join(tmp, "stored.json")
        shutil.copy(run_bench.DEFAULT_RESULTS, stored_path)
        with open(stored_path, encoding="utf-8") as f:
            before = json.load(f)
        # a row under a figure name the probe no longer reports: it must go
        before["measurements"].append({"key": "probe.graphview.retired_figure_s", "size": "1k", "side": "ours",
                                       "name": "retired", "metric": "retired_figure_s", "min": 1.0})
        with open(stored_path, "w", encoding="utf-8") as f:
            json.dump(before, f)
        subprocess.run([sys.executable, os.path.join(HERE, "run_bench.py"), "--build", build, "--sizes", "",
                        "--gc-nodes", "300", "--only-probes", "graphview", "--merge-into", stored_path,
                        "--workdir", os.path.join(tmp, "work")], check=True, stdout=subprocess.DEVNULL)
        with open(stored_path, encoding="utf-8") as f:
            after = json.load(f)

    def probe(e):
        return e["key"].startswith("probe.graphview.")
    others_before = [e for e in before["measurements"] if not probe(e)]
    others_after = [e for e in after["measurements"] if not probe(e)]
    assert others_after == others_before, "rows of other measurements changed"
    fresh = [e for e in after["measurements"] if probe(e)]
    assert fresh and all(e["size"] == "300" for e in fresh), f"stale graphview rows kept: {fresh}"
    assert {e["key"] for e in fresh} == {f"probe.graphview.{k}" for k in run_bench.PROBES["graphview"]["figures"]}
    assert all("min" in e for e in fresh), "a probe figure without a number"
    assert after["date"] == before["date"], "a partial run is not a new full run"
    runs = after.get("partial_runs", [])
    assert len(runs) == len(before.get("partial_runs", [])) + 1 and runs[-1]["probes"] == ["graphview"]
    header = run_bench.header_line(after)
    assert "later run of those probes alone" in header and runs[-1]["date"][:16].replace("T", " ") in header, header
    print(f"partial run merged: {len(fresh)} graphview rows replaced, {len(others_after)} others kept")
    return 0


if __name__ == "__main__":
    sys.exit(main())
