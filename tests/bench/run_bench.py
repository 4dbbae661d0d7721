#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""The benchmark suite against the peers (tests/bench/README.md): one command.

    /usr/bin/python3 tests/bench/run_bench.py --build BUILD_DIR [--sizes 64M,256M,1G] [--rounds 3]
        [--gc-nodes 1000,10000,100000] [--out bench-results.json] [--quick]

Generates its inputs deterministically into a temporary folder (ckpt-bench-gen), runs every
measurement --rounds times as its own process under /usr/bin/time (peak RSS), prints a table of
min / median and the ratio to each peer, checks the issue's targets, and writes bench-results.json.
--quick is the smoke version (tiny inputs, one round): it checks that every measurement produced a
number and never judges timings.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PY = "/usr/bin/python3"
MIB = 1 << 20


def parse_size(text):
    m = re.fullmatch(r"(\d+)([KMG]?)", text.strip().upper())
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (e.g. 64M, 1G)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2)]


def size_name(n):
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return str(n)


class Runner:
    def __init__(self, args):
        self.args = args
        self.results = []     # one dict per measurement (all rounds)
        self.failures = []

    def run(self, cmd, timeout=None, stdout_json=True):
        """One process under /usr/bin/time: (parsed JSON or {}, wall seconds, peak RSS bytes) or None."""
        with tempfile.NamedTemporaryFile("r", suffix=".time") as tf:
            full = ["/usr/bin/time", "-f", "%M %e", "-o", tf.name] + cmd
            t0 = time.perf_counter()
            try:
                p = subprocess.run(full, stdout=subprocess.PIPE if stdout_json else subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, timeout=timeout, text=True)
            except subprocess.TimeoutExpired:
                return {"timeout": timeout}
            wall = time.perf_counter() - t0
            if p.returncode != 0:
                self.failures.append(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr.strip()[-400:]}")
                return None
            fields = tf.read().split()
        data = {}
        if stdout_json:
            lines = [l for l in p.stdout.splitlines() if l.startswith("{")]
            data = json.loads(lines[-1]) if lines else {}
        data.setdefault("total_s", wall)
        data["process_wall_s"] = wall
        data["peak_rss_bytes_time"] = int(fields[0]) * 1024 if fields else None
        return data

    def measure(self, group, size, side, name, cmd, metric="total_s", rounds=None, timeout=None, stdout_json=True, extra=None):
        """Runs cmd `rounds` times; records min/median of `metric` and the worst memory figures."""
        rounds = rounds or self.args.rounds
        samples = []
        timed_out = None
        for _ in range(rounds):
            d = self.run(cmd, timeout=timeout, stdout_json=stdout_json)
            if d is None:
                break
            if "timeout" in d:
                timed_out = d["timeout"]
                break
            samples.append(d)
        entry = {"group": group, "size": size, "side": side, "name": name, "metric": metric,
                 "command": " ".join(os.path.basename(c) if i == 0 else c for i, c in enumerate(cmd)),
                 "rounds": len(samples)}
        if extra:
            entry.update(extra)
        if timed_out is not None:
            entry["gave_up_after_s"] = timed_out
        values = [s[metric] for s in samples if isinstance(s.get(metric), (int, float))]
        if values:
            entry["min"] = min(values)
            entry["median"] = statistics.median(values)
            entry["peak_rss_bytes"] = max(s["peak_rss_bytes_time"] or 0 for s in samples)
            anon = [s["peak_anon_bytes"] for s in samples if "peak_anon_bytes" in s]
            if anon:
                entry["peak_anon_bytes"] = max(anon)
            # every numeric field of the last round, for the record
            entry["detail"] = {k: v for k, v in samples[-1].items() if isinstance(v, (int, float))}
        self.results.append(entry)
        unit = "ms" if metric.endswith("_ms") else "s"
        shown = f"{entry['median']:.4f} {unit}" if "median" in entry else (
            f"gave up after {timed_out} s" if timed_out else "FAILED")
        print(f"  {group:<12} {size:>7} {side:<5} {name:<28} {shown}", flush=True)
        return entry

    def find(self, group, size, name):
        for e in self.results:
            if e["group"] == group and e["size"] == size and e["name"] == name:
                return e
        return None


def machine():
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) * 1024
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_bytes": mem, "kernel": platform.release(),
            "python": platform.python_version(), "hostname": platform.node()}


def build_peer(build, interop_src):
    """ckpt-interop at opt-level 3 (the peers at full speed; the test build uses opt-level 1)."""
    target_dir = os.path.join(build, "interop-peer-target")
    binary = os.path.join(target_dir, "release", "ckpt-interop")
    env = dict(os.environ, CARGO_PROFILE_RELEASE_OPT_LEVEL="3")
    cargo = "/usr/bin/cargo" if os.path.exists("/usr/bin/cargo") else shutil.which("cargo")
    if not cargo:
        return None
    cmd = ["cmake", f"-DCARGO={cargo}", f"-DSOURCE_DIR={interop_src}",
           f"-DWORK_DIR={os.path.join(build, 'interop-peer-src')}", f"-DTARGET_DIR={target_dir}"]
    if os.path.exists("/usr/bin/rustc"):
        cmd.append("-DRUSTC=/usr/bin/rustc")
    print("building ckpt-interop (opt-level 3) for the Rust peers ...", flush=True)
    p = subprocess.run(cmd + ["-P", os.path.join(interop_src, "cmake", "build_interop.cmake")], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        print(p.stdout[-2000:])
        return None
    return binary


def fmt_s(v):
    if v is None:
        return "-"
    return f"{v * 1000:.1f} ms" if v < 1 else f"{v:.2f} s"


def fmt_b(v):
    return "-" if not v else f"{v / MIB:.0f} MiB"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--build", default=os.environ.get("CKPT_BUILD", os.path.join(ROOT, "build")),
                    help="build directory with bin/ckpt-bench, bin/ckpt-bench-gen (default: $CKPT_BUILD or build)")
    ap.add_argument("--sizes", default="64M,256M,1G", help="parameter bytes of the records (default 64M,256M,1G)")
    ap.add_argument("--json-max", default="64M",
                    help="largest size also written as PrettyJson (a byte is ~20 bytes of pretty JSON; default 64M)")
    ap.add_argument("--gc-nodes", default="1000,10000,100000", help="GradientCheckpoint node counts")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dot-timeout", type=int, default=150, help="seconds before graphviz dot is given up")
    ap.add_argument("--out", default="bench-results.json")
    ap.add_argument("--workdir", help="where inputs go (default: a temporary folder, removed afterwards)")
    ap.add_argument("--interop", help="ckpt-interop binary to use for the Rust peers (default: build one at opt-level 3)")
    ap.add_argument("--no-rust", action="store_true", help="skip the Rust peers")
    ap.add_argument("--no-gui", action="store_true", help="skip the GUI stall measurement")
    ap.add_argument("--quick", action="store_true", help="smoke version: tiny inputs, one round, < 60 s")
    args = ap.parse_args()
    if args.quick:
        args.sizes, args.json_max, args.gc_nodes, args.rounds, args.dot_timeout = "2M", "2M", "300,1000", 1, 20

    bindir = os.path.join(os.path.abspath(args.build), "bin")
    gen, ours, gui, layout_bench, graph_gui = (os.path.join(bindir, n) for n in
                                               ("ckpt-bench-gen", "ckpt-bench", "ckpt-bench-gui", "ckpt-bench-layout",
                                                "ckpt-bench-graph-gui"))
    for exe in (gen, ours):
        if not os.access(exe, os.X_OK):
            sys.exit(f"run_bench: {exe} not found: build the project first (cmake --build {args.build})")
    have_gui = os.access(gui, os.X_OK) and not args.no_gui
    have_graph_gui = os.access(graph_gui, os.X_OK) and not args.no_gui
    interop = None
    if not args.no_rust:
        interop = args.interop or build_peer(os.path.abspath(args.build), os.path.join(ROOT, "tests", "interop"))
        if not interop or not os.access(interop, os.X_OK):
            sys.exit("run_bench: no ckpt-interop binary (pass --interop BIN or --no-rust)")

    sizes = [parse_size(s) for s in args.sizes.split(",") if s]
    json_max = parse_size(args.json_max)
    nodes = [int(n) for n in args.gc_nodes.split(",") if n]
    work = args.workdir or tempfile.mkdtemp(prefix="ckpt-bench-")
    os.makedirs(work, exist_ok=True)
    r = Runner(args)
    started = time.time()
    load_before = os.getloadavg()
    print(f"inputs in {work}; rounds: {args.rounds}; load average {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}")
    try:
        for size in sizes:
            name = size_name(size)
            base = os.path.join(work, f"rec-{name}")
            files = {"mpk": base + ".mpk", "mpk.gz": base + ".mpk.gz", "bin": base + ".bin"}
            if size <= json_max:
                files["json"] = base + ".json"
            other = os.path.join(work, f"rec-{name}-b.mpk")
            t0 = time.perf_counter()
            subprocess.run([gen, "record", str(size), "1"] + list(files.values()), check=True, stdout=subprocess.DEVNULL)
            subprocess.run([gen, "record", str(size), "2", other], check=True, stdout=subprocess.DEVNULL)
            print(f"generated {name} records in {time.perf_counter() - t0:.1f} s: "
                  + ", ".join(f"{k} {os.path.getsize(v) / MIB:.0f} MiB" for k, v in files.items()), flush=True)
            for f in list(files.values()) + [other]:  # from the page cache from here on
                subprocess.run(["cat", f], stdout=subprocess.DEVNULL, check=True)
            mpk = files["mpk"]
            schema = ["--schema-from", mpk]
            extra = {"file_bytes": os.path.getsize(mpk)}

            # 1. open + index, open + statistics
            for kind, f in files.items():
                r.measure("open", name, "ours", f"ckpt {kind}", [ours, "open", f] + (schema if kind == "bin" else []),
                          extra={"file_bytes": os.path.getsize(f)})
                if interop:
                    crate = {"mpk": "rmp-serde", "mpk.gz": "flate2+rmp-serde", "json": "serde_json", "bin": "bincode"}[kind]
                    r.measure("open", name, "peer", f"{crate} typed load", [interop, "bench-load", f], extra={"vs": f"ckpt {kind}"})
                if kind in ("mpk", "mpk.gz"):
                    r.measure("open", name, "peer", f"python3 msgpack {kind}", [PY, os.path.join(HERE, "peer_python.py"), "load", f],
                              extra={"vs": f"ckpt {kind}"})
            r.measure("stats", name, "ours", "ckpt stats", [ours, "stats", mpk], extra=extra)
            r.measure("stats", name, "ours", "ckpt stats (stats only)", [ours, "stats", mpk], metric="stats_s")
            r.measure("stats", name, "peer", "python3 msgpack + numpy", [PY, os.path.join(HERE, "peer_python.py"), "stats", mpk],
                      extra={"vs": "ckpt stats"})
            r.measure("stats", name, "peer", "numpy (stats only)", [PY, os.path.join(HERE, "peer_python.py"), "stats", mpk],
                      metric="stats_s", extra={"vs": "ckpt stats (stats only)"})

            # 2. the machine's limit
            r.measure("limit", name, "ref", "summing loop f32", [ours, "sum", mpk], metric="sum_f32_s",
                      extra=dict(extra, vs="ckpt stats (stats only)"))
            r.measure("limit", name, "ref", "summing loop u64", [ours, "sum", mpk], metric="sum_u64_s",
                      extra=dict(extra, vs="ckpt stats (stats only)"))
            r.measure("limit", name, "ref", "cat > /dev/null", ["cat", mpk], stdout_json=False, metric="process_wall_s",
                      extra=dict(extra, vs="ckpt stats (stats only)"))
            r.measure("limit", name, "ref", "dd bs=1M", ["dd", f"if={mpk}", "of=/dev/null", "bs=1M", "status=none"],
                      stdout_json=False, metric="process_wall_s",
                      extra=dict(extra, vs="ckpt stats (stats only)"))
            if interop:
                r.measure("inflate", name, "peer", "flate2 inflate .mpk.gz", [interop, "bench-inflate", files["mpk.gz"]],
                          extra={"vs": "ckpt mpk.gz"})

            # 4. convert / save
            out_mpk = os.path.join(work, f"out-{name}.mpk")
            r.measure("save", name, "ours", "ckpt open + save NamedMpk", [ours, "convert", mpk, out_mpk])
            r.measure("save", name, "ours", "ckpt save only", [ours, "convert", mpk, out_mpk], metric="save_s")
            if interop:
                r.measure("save", name, "peer", "rmp-serde load + save", [interop, "bench-save", mpk, out_mpk],
                          extra={"vs": "ckpt open + save NamedMpk"})
                r.measure("save", name, "peer", "rmp-serde save only", [interop, "bench-save", mpk, out_mpk], metric="save_s",
                          extra={"vs": "ckpt save only"})
            os.remove(out_mpk)

            # 6. diff
            r.measure("diff", name, "ours", "ckpt open both + diff", [ours, "diff", mpk, other])
            r.measure("diff", name, "ours", "ckpt diff only", [ours, "diff", mpk, other], metric="diff_s")

            # 7. GUI stall (one round: the figure is a maximum already)
            if have_gui:
                r.measure("gui", name, "ours", "max event-loop stall", [gui, mpk, "600"], metric="max_stall_ms", rounds=1,
                          extra=extra)
                r.measure("gui", name, "ours", "open + stats until idle", [gui, mpk, "600"], metric="idle_s", rounds=1)
            for f in list(files.values()) + [other]:
                os.remove(f)

        # 5. GradientCheckpoint
        for n in nodes:
            name = f"{n // 1000}k" if n % 1000 == 0 else str(n)
            f = os.path.join(work, f"gc-{n}.json")
            subprocess.run([gen, "gc", str(n), f], check=True, stdout=subprocess.DEVNULL)
            subprocess.run(["cat", f], stdout=subprocess.DEVNULL, check=True)
            extra = {"file_bytes": os.path.getsize(f)}
            r.measure("gc", name, "ours", "ckpt parse + topo order", [ours, "gc", f], extra=extra)
            if interop:
                r.measure("gc", name, "peer", "serde_json parse", [interop, "bench-gc", f], metric="parse_s",
                          extra={"vs": "ckpt parse + topo order"})
                r.measure("gc", name, "peer", "serde_json parse + Kahn", [interop, "bench-gc", f], extra={"vs": "ckpt parse + topo order"})
            r.measure("gc", name, "peer", "python3 json.load + Kahn", [PY, os.path.join(HERE, "peer_python.py"), "gc", f],
                      extra={"vs": "ckpt parse + topo order"})
            r.measure("layout", name, "ours", "ckpt layout", [ours, "layout", f], metric="layout_s")
            if os.access(layout_bench, os.X_OK) and shutil.which("dot"):
                dotfile = os.path.join(work, f"g{n}.dot")
                subprocess.run([layout_bench, str(n), dotfile], check=True, stdout=subprocess.DEVNULL)
                r.measure("layout", name, "peer", "graphviz dot -Tplain", ["dot", "-Tplain", "-o", "/dev/null", dotfile],
                          stdout_json=False, metric="process_wall_s", rounds=1, timeout=args.dot_timeout,
                          extra={"vs": "ckpt layout"})
            # 8. the app on the graph: first painted overview (rounds), then one process each for the
            # expand and frame figures (each already a median over several steps)
            if have_graph_gui:
                cmd = [graph_gui, f, "300"]
                r.measure("graph-gui", name, "ours", "app: first readable screen", cmd, metric="first_screen_s", extra=extra)
                for metric, label in (("expand_ms", "app: expand a group"), ("expand_cpu_ms", "app: expand a group (GUI CPU)"),
                                      ("frame_ms", "app: pan/zoom frame"), ("frame_cpu_ms", "app: pan/zoom frame (GUI CPU)")):
                    r.measure("graph-gui", name, "ours", label, cmd, metric=metric, rounds=1)
            os.remove(f)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

    load_after = os.getloadavg()
    targets = [] if args.quick else check_targets(r, sizes, nodes)
    report = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
              "machine": machine(), "load_average_before": load_before, "load_average_after": load_after,
              "rounds": args.rounds, "quick": args.quick, "elapsed_s": time.time() - started,
              "measurements": r.results, "targets": targets, "failures": r.failures}
    with open(args.out, "w") as f:
        json.dump(report, f, indent=1)
    print_table(r, report)
    missing = [f"{e['group']} {e['size']} {e['name']}" for e in r.results if "median" not in e and "gave_up_after_s" not in e]
    if missing or r.failures:
        print("\nmeasurements without a number:\n  " + "\n  ".join(missing + r.failures))
        return 1
    print(f"\nresults written to {args.out}")
    return 0


def print_table(r, report):
    m = report["machine"]
    print(f"\nmachine: {m['cpu']}, {m['cores']} cores, {m['memory_bytes'] / (1 << 30):.0f} GiB; load average "
          f"{report['load_average_before'][0]:.2f} before, {report['load_average_after'][0]:.2f} after; "
          f"{report['rounds']} round(s)\n")
    print("| group | size | side | measurement | min | median | peer ÷ ours (medians) | peak anon | peak RSS |")
    print("|---|---:|---|---|---:|---:|---:|---:|---:|")
    for e in r.results:
        if e["metric"].endswith("_ms"):
            lo = med = f"{e['median']:.1f} ms" if "median" in e else "-"
        elif "median" in e:
            lo, med = fmt_s(e["min"]), fmt_s(e["median"])
        else:
            lo = med = f"gave up after {e['gave_up_after_s']} s" if "gave_up_after_s" in e else "failed"
        vs = r.find(e["group"] if e["group"] not in ("limit", "inflate") else ("stats" if e["group"] == "limit" else "open"),
                    e["size"], e.get("vs", "")) if "vs" in e else None
        ratio = "-"
        if vs and "median" in vs and "median" in e and vs["median"] > 0:
            ratio = f"{e['median'] / vs['median']:.2f}x {vs['name']}"
        print(f"| {e['group']} | {e['size']} | {e['side']} | {e['name']} ({e['metric']}) | {lo} | {med} | {ratio} | "
              f"{fmt_b(e.get('peak_anon_bytes'))} | {fmt_b(e.get('peak_rss_bytes'))} |")
    if report["targets"]:
        print("\n| target | figure | met |")
        print("|---|---|---|")
        for t in report["targets"]:
            print(f"| {t['target']} | {t['figure']} | {'yes' if t['met'] else ('no' if t['met'] is False else 'n/a')} |")


def check_targets(r, sizes, nodes):
    """The issue's targets at the largest size / node count measured; `met` is None when not measured."""
    out = []
    size = size_name(max(sizes)) if sizes else None
    n = max(nodes) if nodes else None
    gname = (f"{n // 1000}k" if n % 1000 == 0 else str(n)) if n else None

    def med(group, sz, name):
        e = r.find(group, sz, name)
        return e.get("median") if e else None

    def add(target, figure, met):
        out.append({"target": target, "figure": figure, "met": met})

    def ratio(a, b):
        return a / b if a is not None and b else None

    ours_open = med("open", size, "ckpt mpk")
    for peer in ("python3 msgpack mpk", "rmp-serde typed load"):
        x = ratio(med("open", size, peer), ours_open)
        add(f"open + index {size} >= 100x faster than {peer}",
            f"{x:.0f}x ({fmt_s(ours_open)} vs {fmt_s(med('open', size, peer))})" if x else "not measured",
            None if x is None else x >= 100)
    e = r.find("open", size, "ckpt mpk")
    if e and "peak_anon_bytes" in e:
        limit = 64 * MIB + 0.02 * e["file_bytes"]
        add(f"open {size}: anonymous memory <= 64 MiB + 2% of the file ({fmt_b(limit)})",
            f"{fmt_b(e['peak_anon_bytes'])} (peak RSS incl. mapping {fmt_b(e.get('peak_rss_bytes'))})",
            e["peak_anon_bytes"] <= limit)
    e = r.find("stats", size, "ckpt stats")
    if e and "peak_anon_bytes" in e:
        limit = 64 * MIB + 0.02 * e["file_bytes"]
        add(f"open + stats {size}: anonymous memory <= 64 MiB + 2% of the file ({fmt_b(limit)})",
            fmt_b(e["peak_anon_bytes"]), e["peak_anon_bytes"] <= limit)
    stats_e = r.find("stats", size, "ckpt stats (stats only)")
    loop_e = r.find("limit", size, "summing loop f32")
    if stats_e and loop_e and "median" in stats_e and "median" in loop_e:
        ours_gbps = stats_e["detail"]["tensor_bytes"] / stats_e["median"] / 1e9
        loop_gbps = loop_e["detail"]["bytes"] / loop_e["median"] / 1e9
        add(f"stats {size} >= 0.5x the plain summing loop's throughput",
            f"{ours_gbps / loop_gbps:.2f}x ({ours_gbps:.2f} GB/s vs {loop_gbps:.2f} GB/s)", ours_gbps >= 0.5 * loop_gbps)
    x = ratio(med("stats", size, "numpy (stats only)"), med("stats", size, "ckpt stats (stats only)"))
    add(f"stats {size} >= 10x numpy (statistics only)",
        f"{x:.1f}x ({fmt_s(med('stats', size, 'ckpt stats (stats only)'))} vs {fmt_s(med('stats', size, 'numpy (stats only)'))})"
        if x else "not measured", None if x is None else x >= 10)
    x = ratio(med("stats", size, "python3 msgpack + numpy"), med("stats", size, "ckpt stats"))
    add(f"open + stats {size} vs python3 msgpack + numpy (information)", f"{x:.1f}x faster" if x else "not measured", None)
    gz, fl = med("open", size, "ckpt mpk.gz"), med("inflate", size, "flate2 inflate .mpk.gz")
    x = ratio(gz, fl)
    add(f"open .mpk.gz {size} <= 0.5x flate2's inflate time",
        f"{x:.2f}x ({fmt_s(gz)} vs {fmt_s(fl)})" if x else "not measured", None if x is None else x <= 0.5)
    jsizes = [s for s in (size_name(s) for s in sorted(sizes, reverse=True)) if r.find("open", s, "ckpt json")]
    if jsizes:
        js = jsizes[0]
        x = ratio(med("open", js, "serde_json typed load"), med("open", js, "ckpt json"))
        add(f"PrettyJson {js} parsed >= 2x faster than serde_json",
            f"{x:.1f}x ({fmt_s(med('open', js, 'ckpt json'))} vs {fmt_s(med('open', js, 'serde_json typed load'))})"
            if x else "not measured", None if x is None else x >= 2)
    ours_gc, serde_gc = med("gc", gname, "ckpt parse + topo order"), med("gc", gname, "serde_json parse")
    x = ratio(ours_gc, serde_gc)
    add(f"GradientCheckpoint {gname}: parse + topo order <= 0.5x serde_json's parse",
        f"{x:.2f}x ({fmt_s(ours_gc)} vs {fmt_s(serde_gc)})" if x else "not measured", None if x is None else x <= 0.5)
    lay = med("layout", gname, "ckpt layout")
    add(f"layout {gname} <= 2 s", fmt_s(lay) if lay is not None else "not measured", None if lay is None else lay <= 2)
    for nn in nodes:
        nm = f"{nn // 1000}k" if nn % 1000 == 0 else str(nn)
        d = r.find("layout", nm, "graphviz dot -Tplain")
        if d:
            add(f"graphviz dot {nm} (information)", fmt_s(d.get("median")) if "median" in d else
                f"gave up after {d.get('gave_up_after_s')} s", None)
    x = ratio(med("diff", size, "ckpt diff only"), med("stats", size, "ckpt stats (stats only)"))
    add(f"diff {size} <= 1.5x one statistics pass",
        f"{x:.2f}x ({fmt_s(med('diff', size, 'ckpt diff only'))} vs {fmt_s(med('stats', size, 'ckpt stats (stats only)'))})"
        if x else "not measured", None if x is None else x <= 1.5)
    for nn in nodes:
        nm = f"{nn // 1000}k" if nn % 1000 == 0 else str(nn)
        limit = {10000: 1.0, 100000: 3.0}.get(nn)
        fs = med("graph-gui", nm, "app: first readable screen")
        if limit is not None:
            add(f"app: {nm}-node graph, first readable screen <= {limit:g} s", fmt_s(fs) if fs is not None else "not measured",
                None if fs is None else fs <= limit)
    ex, fr = med("graph-gui", gname, "app: expand a group"), med("graph-gui", gname, "app: pan/zoom frame")
    exc, frc = med("graph-gui", gname, "app: expand a group (GUI CPU)"), med("graph-gui", gname, "app: pan/zoom frame (GUI CPU)")
    add(f"app: {gname}-node graph, expand of a group <= 100 ms",
        f"{ex:.1f} ms (GUI thread CPU {exc:.1f} ms)" if ex is not None and exc is not None else "not measured",
        None if ex is None else ex <= 100)
    add(f"app: {gname}-node graph, pan/zoom frame <= 16 ms",
        f"{fr:.1f} ms (GUI thread CPU {frc:.1f} ms)" if fr is not None and frc is not None else "not measured",
        None if fr is None else fr <= 16)
    st = med("gui", size, "max event-loop stall")
    add(f"GUI {size}: no event-loop stall above 50 ms", f"{st:.1f} ms" if st is not None else "not measured",
        None if st is None else st <= 50)
    return out


if __name__ == "__main__":
    sys.exit(main())
