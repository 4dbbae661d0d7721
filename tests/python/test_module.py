# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""`import ckpt` against the CLI: the same files open, the same documents come back, arrays hold the
values `ckpt show` prints and view the mapped bytes without copying."""
import gc
import json
import math
import os
import shutil
import sys
import tempfile
import unittest

import msgpack
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import ckpt  # noqa: E402

GEN = None


def setUpModule():
    global GEN
    GEN = common.Generated()


def tearDownModule():
    GEN._dir.cleanup()


def show_values(path, tensor, limit):
    """`ckpt show --json` values (null for non-finite) as floats."""
    doc = common.cli_json("show", path, tensor, "--limit", limit)
    return [math.nan if v is None else v for v in doc["values"]]


class Values(unittest.TestCase):
    def check_file(self, path, limit=4096):
        r = ckpt.open(path)
        rows = common.cli_json("tensors", path)
        self.assertEqual([t["path"] for t in rows], r.paths())
        checked = 0
        for row in rows:
            a = r.array(row["path"])
            self.assertEqual(list(a.shape), row["shape"], row["path"])
            self.assertEqual(a.size, row["numel"])
            expected = np.array(show_values(path, row["path"], min(limit, row["numel"])), dtype=np.float64)
            got = a.reshape(-1)[: len(expected)].astype(np.float64)
            np.testing.assert_array_equal(got, expected, err_msg=f"{path} {row['path']}")
            checked += 1
        self.assertGreater(checked, 0)
        return r

    def test_fixtures_equal_show(self):
        for f in common.fixture_records():
            with self.subTest(f=os.path.basename(f)):
                self.check_file(f)

    def test_generated_equal_show(self):
        for f in GEN.records()[:4]:
            with self.subTest(f=os.path.basename(f)):
                self.check_file(f)

    def test_bincode_with_schema_options(self):
        f = GEN.records()[4]
        r = ckpt.open(f)  # the trainer's layout is built in, as for the CLI
        self.assertEqual(r.recorder, "Bin")
        self.assertEqual(r.tensors(), common.cli_json("tensors", f))

    def test_dtypes(self):
        r = ckpt.open(os.path.join(common.FIXTURES, "models", "burn-0.16.0_half_glyphtool.mpk"))
        self.assertEqual(r.array(r.paths()[0]).dtype, np.float16)
        r = ckpt.open(GEN.records()[3])
        self.assertEqual(r.array(r.paths()[0]).dtype, np.float64)

    def test_tensors_are_the_cli_document(self):
        for f in common.fixture_records() + GEN.records()[:4]:
            with self.subTest(f=os.path.basename(f)):
                self.assertEqual(ckpt.open(f).tensors(), common.cli_json("tensors", f))
        f = GEN.records()[0]
        self.assertEqual(ckpt.open(f).tensors("*moment_2"), common.cli_json("tensors", f, "--filter", "*moment_2"))

    def test_stats_match_tensors(self):
        r = ckpt.open(GEN.records()[0])
        for row in r.tensors():
            s = r.stats(row["path"])
            for k in ("sum", "l2", "min", "max", "mean", "std", "nan", "inf", "zeros"):
                self.assertEqual(s[k], row[k], k)
            self.assertEqual(s["count"], row["numel"])
        h = r.stats(r.paths()[0], bins=16)
        self.assertEqual(int(h["histogram"].sum()), h["count"])
        self.assertEqual(h["histogram_range"], (h["min"], h["max"]))

    def test_info_tree_show_check_resume(self):
        f = GEN.records()[0]
        r = ckpt.open(f)
        self.assertEqual(r.info(), common.cli_json("info", f))
        self.assertEqual(r.tree(2), common.cli_json("tree", f, "--depth", 2))
        self.assertEqual(r.show("item[4].progress"), common.cli_json("show", f, "item[4].progress"))
        p = r.paths()[0]
        self.assertEqual(r.show(p, 5), common.cli_json("show", f, p, "--limit", 5))
        self.assertEqual(r.check_resume(), common.cli_json("check-resume", f))
        self.assertEqual(r.kind, "training_record")
        self.assertEqual(r.metadata, common.cli_json("info", f)["metadata"])
        r.validate()


def file_mappings(path):
    """The address ranges the kernel maps from \a path into this process (/proc/self/maps), with the
    file offset of each range's start: what the module says about its own buffer is not the witness."""
    st = os.stat(path)
    out = []
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) < 6:
                continue
            lo, hi = (int(x, 16) for x in fields[0].split("-"))
            major, minor = (int(x, 16) for x in fields[3].split(":"))
            if int(fields[4]) == st.st_ino and os.makedev(major, minor) == st.st_dev:
                out.append((lo, hi, int(fields[2], 16)))
    return out


class Views(unittest.TestCase):
    def test_arrays_lie_in_the_files_mapping(self):
        """Zero copy, witnessed by the kernel: every array's bytes lie inside a mapping of the record's
        file, at the file offset of its payload (as `ckpt tensors` reports it)."""
        f = GEN.records()[0]
        r = ckpt.open(f)
        rows = {t["path"]: t for t in r.tensors()}
        arrays = [(p, r.array(p)) for p in r.paths()]
        maps = file_mappings(f)
        self.assertTrue(maps, f"no mapping of {f} in /proc/self/maps")
        self.assertTrue(any(a.nbytes for _, a in arrays))
        for p, a in arrays:
            if a.nbytes == 0:
                continue  # an empty array has no bytes to place
            start, end = a.ctypes.data, a.ctypes.data + a.nbytes
            inside = [(lo, hi, off) for lo, hi, off in maps if lo <= start and end <= hi]
            self.assertTrue(inside, f"{p}: [{start:#x}, {end:#x}) is in no mapping of the file")
            lo, _, off = inside[0]
            self.assertEqual(off + (start - lo), rows[p]["offset"], p)

    def test_array_views_the_mapping(self):
        f = GEN.records()[0]
        r = ckpt.open(f)
        buf = r.buffer
        self.assertEqual(buf.kind, "mapping")
        self.assertEqual(buf.size, os.path.getsize(f))
        rows = {t["path"]: t for t in r.tensors()}
        for p in r.paths():
            a = r.array(p)
            self.assertIs(a.base, buf, p)
            self.assertFalse(a.flags.writeable)
            self.assertFalse(a.flags.owndata)
            # The data pointer is the payload's offset in the mapped file: no copy was made.
            self.assertEqual(a.ctypes.data, buf.address + rows[p]["offset"], p)
            b = r.array(p)
            self.assertTrue(np.shares_memory(a, b))
            self.assertEqual(a.ctypes.data, b.ctypes.data)
        with self.assertRaises(ValueError):
            r.array(r.paths()[0])[0, 0] = 1.0

    def test_mapping_outlives_the_record(self):
        f = GEN.records()[0]
        r = ckpt.open(f)
        p = r.paths()[0]
        expected = r.array(p).copy()
        a = r.array(p)
        del r
        gc.collect()
        np.testing.assert_array_equal(a, expected)
        self.assertEqual(a.base.kind, "mapping")

    def test_gzip_views_the_inflated_stream(self):
        f = GEN.records()[2]
        r = ckpt.open(f)
        self.assertEqual(r.precision, "half")
        self.assertEqual(r.buffer.kind, "inflated")
        for t in r.tensors():
            a = r.array(t["path"])
            self.assertEqual(a.dtype, np.float16)
            self.assertIs(a.base, r.buffer)
            self.assertEqual(a.ctypes.data, r.buffer.address + t["offset"])

    def test_bf16_is_widened(self):
        # A genuine half record with one F16 tensor relabelled BF16 (same bytes, same length).
        src = os.path.join(common.FIXTURES, "models", "burn-0.16.0_half_glyphtool.mpk")
        doc = msgpack.unpackb(common.read_bytes(src), raw=False)
        param = doc["item"]["embedding"]["weight"]["param"]
        self.assertEqual(param["dtype"], "F16")
        param["dtype"] = "BF16"
        out = GEN.path("bf16.mpk")
        with open(out, "wb") as f:
            f.write(msgpack.packb(doc, use_bin_type=True))
        r = ckpt.open(out)
        a = r.array("item.embedding.weight.param")
        self.assertEqual(a.dtype, np.float32)
        self.assertFalse(a.flags.writeable)
        bits = np.frombuffer(param["bytes"], dtype="<u2").astype(np.uint32) << 16
        np.testing.assert_array_equal(a.reshape(-1), bits.view(np.float32))
        np.testing.assert_array_equal(a.reshape(-1)[:64], np.array(show_values(out, "item.embedding.weight.param", 64), dtype=np.float32))


class State(unittest.TestCase):
    def test_state_exact(self):
        f = GEN.records()[0]
        r = ckpt.open(f)
        self.assertEqual(r.state(), common.cli_json("state", f))
        big = 2**64 - 1
        e = r.edit({"item[4].progress.stop_step": big})
        self.assertEqual(e.state()["progress"]["stop_step"], big)
        self.assertIsInstance(e.state()["progress"]["stop_step"], int)
        out = GEN.path("edited.mpk")
        self.assertEqual(e.save(out), [])
        self.assertEqual(ckpt.open(out).state()["progress"]["stop_step"], big)
        # The same bytes as `ckpt edit` writes.
        cli_out = GEN.path("edited-cli.mpk")
        common.run_cli("edit", f, "-o", cli_out, "--set", f"item[4].progress.stop_step={big}")
        self.assertEqual(common.read_bytes(out), common.read_bytes(cli_out))
        self.assertEqual(r.state()["progress"]["stop_step"], 12)  # the original is unchanged

    def test_wide_integers_are_python_ints(self):
        # A PrettyJson caller state with a u128 and an i128 beyond 64 bits, as serde_json writes them.
        src = GEN.records()[3]
        with open(src, encoding="utf-8") as f:
            lines = f.read().split("\n")
        at = next(i for i, line in enumerate(lines) if '"stop_step"' in line)
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        u128_max, i128_min = 2**128 - 1, -(2**127)
        lines[at:at] = [f'{indent}"rng": {u128_max},', f'{indent}"offset": {i128_min},']
        wide = GEN.path("wide.json")
        with open(wide, "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
        r = ckpt.open(wide)
        progress = r.state()["progress"]
        self.assertEqual(progress["rng"], u128_max)
        self.assertEqual(progress["offset"], i128_min)
        self.assertIsInstance(progress["rng"], int)
        self.assertEqual(r.state(), common.cli_json("state", wide))
        self.assertIn(str(u128_max), common.run_cli("state", wide, "--json")[1])
        same = GEN.path("wide-resaved.json")
        r.save(same)
        self.assertEqual(common.read_bytes(same), common.read_bytes(wide))
        e = r.edit({"item[4].progress.rng": u128_max - 1, "item[4].progress.offset": i128_min + 1})
        self.assertEqual(e.state()["progress"]["rng"], u128_max - 1)
        self.assertEqual(e.state()["progress"]["offset"], i128_min + 1)
        with self.assertRaises(ckpt.Error):
            r.edit({"item[4].progress.offset": 2**127})
        with self.assertRaises(ckpt.Error):
            r.edit({"item[4].progress.stop_step": 2**64})

    def test_edit_rejected_like_the_cli(self):
        f = GEN.records()[0]
        r = ckpt.open(f)
        code, _, err = common.run_cli("edit", f, "-o", GEN.path("x.mpk"), "--set", 'item[4].progress.stop_step="soon"', check=False)
        self.assertNotEqual(code, 0)
        with self.assertRaises(ckpt.Error) as cm:
            r.edit({"item[4].progress.stop_step": "soon"})
        self.assertEqual("ckpt: " + str(cm.exception) + "\n", err)
        with self.assertRaises(ckpt.Error):
            r.edit({"item[0].input.weight.param.shape": [1]})
        self.assertFalse(os.path.exists(GEN.path("x.mpk")))

    def test_patch_matches_the_cli(self):
        """ckpt.patch writes what `ckpt patch` writes (byte for byte) with its sidecar; r.patch is the same in memory."""
        src = GEN.records()[0]
        donor = GEN.records()[1]
        ops = [{"op": "reset_optimizer", "glob": "item[0].output.*"}, {"op": "zero_nonfinite"},
               {"op": "transplant", "from": donor, "glob": "item[0].norm.*"},
               {"op": "set", "path": "item[4].progress.data_cursor", "value": 0}]
        out = GEN.path("patched-py.mpk")
        result = ckpt.patch(src, out, ops)
        self.assertEqual(result["sidecar"], out + ".patch.json")
        self.assertEqual(result["readiness"], "warning")  # two parameters restart from zero moments
        self.assertEqual(len(result["operations"]), 4)
        common.run_cli("patch", src, "-o", GEN.path("patched-cli.mpk"), "--reset-optimizer", "item[0].output.*", "--zero-nonfinite",
                       "--transplant", donor, "item[0].norm.*", "--set", "item[4].progress.data_cursor=0")
        with open(out, "rb") as a, open(GEN.path("patched-cli.mpk"), "rb") as b:
            self.assertEqual(a.read(), b.read())
        with open(out + ".patch.json") as f:
            sidecar = json.load(f)
        self.assertEqual([o["op"] for o in sidecar["operations"]], ["reset_optimizer", "zero_nonfinite", "transplant", "set"])
        self.assertTrue(sidecar["tool"].startswith("import ckpt "))
        again = GEN.path("patched-again.mpk")
        ckpt.replay_patch(out + ".patch.json", again)
        with open(out, "rb") as a, open(again, "rb") as b:
            self.assertEqual(a.read(), b.read())
        r = ckpt.open(src).patch(ops)
        np.testing.assert_array_equal(r.array("item[0].norm.gamma.param"), ckpt.open(donor).array("item[0].norm.gamma.param"))
        self.assertEqual(r.info()["optimizer_entries"], ckpt.open(src).info()["optimizer_entries"] - 2)
        with self.assertRaises(ckpt.Error) as cm:
            ckpt.patch(src, GEN.path("never.mpk"), [{"op": "frobnicate"}])
        self.assertIn("unknown operation", str(cm.exception))
        self.assertFalse(os.path.exists(GEN.path("never.mpk")))

    def test_save_converts(self):
        r = ckpt.open(GEN.records()[0])
        out = GEN.path("converted.bin")
        warnings = r.save(out)
        self.assertIsInstance(warnings, list)
        b = ckpt.open(out)
        self.assertEqual(b.recorder, "Bin")
        for p in r.paths():
            np.testing.assert_array_equal(b.array(p), r.array(p))
        half = GEN.path("converted-half.mpk")
        self.assertTrue(any("precision" in w or "round" in w for w in r.save(half, precision="half")))
        self.assertEqual(ckpt.open(half).precision, "half")
        # The same recorder and precision re-save byte-identically, as `ckpt resave`.
        same = GEN.path("resaved.mpk")
        r.save(same)
        self.assertEqual(common.read_bytes(same), common.read_bytes(GEN.records()[0]))
        with self.assertRaises(ckpt.Error):
            r.save(GEN.path("y.mpk"), recorder="Nope")


class Errors(unittest.TestCase):
    def test_messages_are_the_cli_messages(self):
        src = common.read_bytes(GEN.records()[0])
        bad = GEN.path("truncated.mpk")
        with open(bad, "wb") as f:
            f.write(src[: len(src) // 2])
        code, _, err = common.run_cli("tensors", bad, check=False)
        self.assertEqual(code, 1)
        with self.assertRaises(ckpt.Error) as cm:
            ckpt.open(bad)
        e = cm.exception
        self.assertIsInstance(e, Exception)
        self.assertEqual("ckpt: " + str(e) + "\n", err)
        self.assertEqual(e.file, bad)
        self.assertIsInstance(e.offset, int)
        self.assertIn(f"offset {e.offset}", str(e))
        with self.assertRaises(ckpt.Error) as cm:
            ckpt.open(GEN.path("missing.mpk"))
        self.assertEqual(cm.exception.code, "io")
        r = ckpt.open(GEN.records()[0])
        with self.assertRaises(ckpt.Error):
            r.array("item[0].nope")
        code, _, err = common.run_cli("show", GEN.records()[0], "item[9]", check=False)
        with self.assertRaises(ckpt.Error) as cm:
            r.show("item[9]")
        self.assertEqual("ckpt: " + str(cm.exception) + "\n", err)

    def test_lenient(self):
        # A parameter without its id: the typed decoders reject it, --lenient shows it.
        src = os.path.join(common.FIXTURES, "models", "burn-0.16.0_half_glyphtool.mpk")
        with open(src, "rb") as f:
            doc = msgpack.unpackb(f.read(), raw=False)
        bias = doc["item"]["fc2"]["bias"]
        bias["idx"] = bias.pop("id")
        bad = GEN.path("damaged.mpk")
        with open(bad, "wb") as f:
            f.write(msgpack.packb(doc, use_bin_type=True))
        code, _, err = common.run_cli("tensors", bad, check=False)
        self.assertEqual(code, 1)
        with self.assertRaises(ckpt.Error) as cm:
            ckpt.open(bad)
        self.assertEqual("ckpt: " + str(cm.exception) + "\n", err)
        r = ckpt.open(bad, lenient=True)
        self.assertTrue(r.partial)
        self.assertTrue(r.damage)
        self.assertEqual(r.tensors(), common.cli_json("tensors", bad, "--lenient"))


class Diff(unittest.TestCase):
    def test_diff_is_the_cli_document(self):
        a, b = GEN.records()[1], GEN.records()[0]
        self.assertEqual(ckpt.diff(a, b), common.cli_json("diff", a, b))
        self.assertEqual(ckpt.open(a).diff(ckpt.open(b), tolerance=1e-3), common.cli_json("diff", a, b, "--tolerance", 1e-3))
        same = ckpt.diff(a, a)
        self.assertEqual(same["summary"]["changed"], 0)

    def test_graph_diff(self):
        a, b = GEN.path("run", "graph", "step-6.json"), GEN.path("run", "graph", "step-12.json")
        self.assertEqual(ckpt.diff(a, b), common.cli_json("diff", a, b))
        with self.assertRaises(ckpt.Error):
            ckpt.diff(a, GEN.records()[0])


class Runs(unittest.TestCase):
    def test_run_directory_opens_its_newest_record(self):
        r = ckpt.open(GEN.run)
        self.assertEqual(os.path.basename(r.file), "record-12.mpk")
        self.assertEqual(r.run, GEN.run)
        self.assertEqual(ckpt.run(GEN.run), common.cli_json("info", GEN.run))
        self.assertEqual(ckpt.loss(GEN.run), common.cli_json("loss", GEN.run))
        inside = ckpt.open(os.path.join(GEN.run, "checkpoint", "optim-1.mpk"))
        self.assertEqual(inside.kind, "optimizer_record")
        for run in sorted(os.listdir(os.path.join(common.FIXTURES, "runs"))):
            with self.subTest(run=run):
                r = ckpt.open(os.path.join(common.FIXTURES, "runs", run))
                self.assertTrue(r.paths())
        with self.assertRaises(ckpt.Error):
            ckpt.open(GEN.root)

    def test_burnpack_triple_migrate_edit(self):
        """Burn 0.22: `ckpt migrate` of the run's newest record, the triple through `ckpt.open(run)`,
        a scheduler scalar edited and saved, the genuine file's arrays in its mapping."""
        with tempfile.TemporaryDirectory() as d:
            run22 = os.path.join(d, "run22")
            record = os.path.join(GEN.run, "checkpoint", "record-12.mpk")
            _, _, err = common.run_cli("migrate", record, os.path.join(run22, "checkpoint"))
            self.assertIn("not carried over", err)
            r = ckpt.open(run22)
            self.assertEqual(r.kind, "burn_train_checkpoint")
            original = ckpt.open(record)
            by_id = {t["param_id"]: t for t in original.tensors() if t["role"] == "param"}
            for t in r.tensors():
                if t["role"] == "param":
                    np.testing.assert_array_equal(r.array(t["path"]), original.array(by_id[t["param_id"]]["path"]))
            sched = ckpt.open(os.path.join(run22, "checkpoint", "scheduler-12.bpk"))
            self.assertEqual(sched.kind, "scheduler_record")
            scalars = sched.info()["burnpack"]["scalars"]
            if scalars:  # ckpt-train's default scheduler is constant: nothing to edit then
                name = sorted(scalars)[0]
                variant = next(iter(scalars[name]))
                edited = sched.edit({f'scalars["{name}"].{variant}': 3})
                out = os.path.join(d, "scheduler-edited.bpk")
                edited.save(out)
                self.assertEqual(ckpt.open(out).info()["burnpack"]["scalars"][name], {variant: 3})
        genuine = os.path.join(common.FIXTURES, "models", "burn-0.22.0-pre_mnist-inference-web.bpk")
        g = ckpt.open(genuine)
        self.assertEqual(g.info()["recorder"], "Burnpack")
        maps = file_mappings(genuine)
        rows = {t["path"]: t for t in g.tensors()}
        for p in g.paths():
            a = g.array(p)
            inside = [(lo, hi, off) for lo, hi, off in maps if lo <= a.ctypes.data and a.ctypes.data + a.nbytes <= hi]
            self.assertTrue(inside, p)
            lo, _, off = inside[0]
            self.assertEqual(off + (a.ctypes.data - lo), rows[p]["offset"], p)

    def test_timeline_and_bisect_are_the_cli_documents(self):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["XDG_CACHE_HOME"] = cache  # read by the module and inherited by ckpt
            try:
                t = ckpt.timeline(GEN.run, cache=False)
                cli = common.cli_json("timeline", GEN.run, "--no-cache")
                self.assertEqual(t, cli)
                self.assertEqual(ckpt.timeline(GEN.run)["cache"], {"read": len(t["checkpoints"]), "reused": 0})
                self.assertEqual(ckpt.timeline(GEN.run)["cache"], {"read": 0, "reused": len(t["checkpoints"])})
                only = ckpt.timeline(GEN.run, filter="item[0].*.param")
                self.assertTrue(only["series"])
                self.assertTrue(all(s["role"] == "param" for s in only["series"]))
                b = ckpt.bisect(GEN.run, until="max_abs>0")
                self.assertEqual(b, common.cli_json("bisect", GEN.run, "--until", "max_abs>0"))
                self.assertEqual(b["first_bad"]["index"], 0)
                self.assertIsNone(ckpt.bisect(GEN.run, until="nan", scan=True)["first_bad"])
                with self.assertRaises(ValueError):
                    ckpt.bisect(GEN.run, until="loss>1")
                with self.assertRaises(ValueError):
                    ckpt.timeline(GEN.run, spike_threshold=0)
                self.assertEqual(ckpt.timeline(GEN.run, spike_threshold=3.5, cache=False)["series"], t["series"])
                with self.assertRaises(ckpt.Error):
                    ckpt.timeline(cache)  # no checkpoints in it
            finally:
                del os.environ["XDG_CACHE_HOME"]

    def test_gradient_checkpoint(self):
        g_path = GEN.path("run", "graph", "step-12.json")
        g = ckpt.open(g_path)
        self.assertEqual(g.kind, "gradient_checkpoint")
        self.assertEqual(g.car, GEN.path("run", "graph", "step-12.car"))
        self.assertEqual(g.step, 12)
        self.assertEqual(g.info(), common.cli_json("info", g_path))
        self.assertEqual(g.graph(), common.cli_json("graph", g_path))
        with open(g_path) as f:
            doc = json.load(f)
        self.assertEqual(len(g.nodes()), len(doc["graph"]["nodes"]))
        state = g.optimizer_state()
        self.assertEqual(sorted(state), sorted(doc["optimizer_state"]))
        for key, arr in state.items():
            raw = bytes(doc["optimizer_state"][key])
            self.assertEqual(arr.tobytes(), raw, key)
            self.assertFalse(arr.flags.writeable)
        # A tensor block by CID: a view of the CAR mapping, equal to `ckpt show --blocks`.
        cid = next(n["output_cid"] for n in g.nodes() if n["output_cid"])
        block = g.array(cid)
        shown = common.cli_json("show", g.car, cid, "--limit", 100000)
        self.assertEqual(block.dtype, np.float32)
        self.assertEqual(block.base.kind, "mapping")
        self.assertTrue(block.base.address <= block.ctypes.data < block.base.address + block.base.size)
        self.assertEqual(block.base.size, os.path.getsize(g.car))
        np.testing.assert_array_equal(block.astype(np.float64), np.array(shown["views"]["f32"], dtype=np.float64))
        self.assertTrue(np.shares_memory(block, g.array(cid)))
        self.assertEqual(g.array(cid, view="u8").nbytes, block.nbytes)
        # Without the CAR beside it, a CID cannot be resolved.
        lone = GEN.path("lone.json")
        shutil.copy(g_path, lone)
        with self.assertRaises(ckpt.Error):
            ckpt.open(lone).array(cid)


if __name__ == "__main__":
    unittest.main()
