# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""`ckpt export` / `ckpt import`: safetensors read back by a reader written here from the published
format (byte-level header checks), .npz by numpy and zipfile, and export -> import round-trips to
byte-identical records."""
import json
import os
import struct
import sys
import unittest
import zipfile

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


def all_records():
    return common.fixture_records() + GEN.records()


class Safetensors(unittest.TestCase):
    def test_layout_and_values(self):
        for f in all_records():
            with self.subTest(f=os.path.basename(f)):
                out = GEN.path(os.path.basename(f) + ".safetensors")
                common.run_cli("export", f, out)
                r = ckpt.open(f)
                data = common.read_bytes(out)
                header, meta, tensors, raw = common.read_safetensors(out)
                # Byte-level: u64 LE length, '{' first, padding with spaces only, data start aligned to 8.
                (n,) = struct.unpack("<Q", data[:8])
                self.assertEqual(n, len(raw))
                self.assertEqual(data[8:9], b"{")
                self.assertEqual((8 + n) % 8, 0)
                stripped = raw.rstrip(b" ")
                self.assertTrue(stripped.endswith(b"}"))
                self.assertLess(len(raw) - len(stripped), 8)
                # Names are the record's paths, in file order, with safetensors' dtype names.
                self.assertEqual(list(header), r.paths())
                rows = {t["path"]: t for t in r.tensors()}
                for name, info in header.items():
                    t = rows[name]
                    self.assertEqual(info["shape"], t["shape"])
                    expected_dtype = {"Bool": "BOOL"}.get(t["dtype"], t["dtype"])
                    self.assertEqual(info["dtype"], expected_dtype)
                    begin = info["data_offsets"][0]
                    self.assertEqual(begin % common.ST_SIZES[info["dtype"]], 0, name)
                    a = r.array(name)
                    if t["dtype"] != "BF16":
                        self.assertEqual(tensors[name], a.tobytes(), name)
                    view = np.frombuffer(tensors[name], dtype=common.ST_NUMPY[info["dtype"]]).reshape(info["shape"])
                    np.testing.assert_array_equal(view, a)
                # Metadata: one JSON string with the record's metadata, scheduler and state.
                self.assertEqual(list(meta), ["ckpt"])
                doc = json.loads(meta["ckpt"])
                info = r.info()
                self.assertEqual(doc["kind"], info["kind"])
                self.assertEqual(doc["recorder"], info["recorder"])
                self.assertEqual(doc["precision"], info["precision"])
                self.assertEqual(doc["metadata"], info["metadata"])
                if r.kind == "training_record":
                    self.assertEqual(doc["state"], r.state())
                    self.assertIsNotNone(doc["scheduler"])
                    self.assertEqual(doc["scheduler"]["description"], info["scheduler"]["description"])
                self.assertEqual(sorted(doc["tensors"]), sorted(r.paths()))
                for p, t in doc["tensors"].items():
                    self.assertEqual(t["role"], rows[p]["role"])
                    self.assertEqual(t["param_id"], rows[p]["param_id"])
                    self.assertEqual(t["dtype"], rows[p]["dtype"])

    def test_what_selects_roles(self):
        f = GEN.records()[0]
        out = GEN.path("params.safetensors")
        common.run_cli("export", f, out, "--what", "params")
        header, meta, _, _ = common.read_safetensors(out)
        roles = {t["path"]: t["role"] for t in ckpt.open(f).tensors()}
        self.assertEqual(sorted(header), sorted(p for p, role in roles.items() if role == "param"))
        self.assertEqual(json.loads(meta["ckpt"])["what"], ["params"])
        out = GEN.path("optim.safetensors")
        common.run_cli("export", f, out, "--what", "optimizer,other")
        header, _, _, _ = common.read_safetensors(out)
        self.assertEqual(sorted(header), sorted(p for p, role in roles.items() if role in ("optimizer", "other")))
        self.assertTrue(header)
        code, _, err = common.run_cli("export", f, out, "--what", "weights", check=False)
        self.assertEqual(code, 2)
        self.assertIn("--what", err)
        code, _, err = common.run_cli("export", f, GEN.path("x.txt"), check=False)
        self.assertEqual(code, 2)
        code, _, err = common.run_cli("export", f, GEN.path("x.pt"), "--what", "optimizer", check=False)
        self.assertEqual(code, 2)
        self.assertIn("params or all", err)

    def test_round_trip_is_byte_identical(self):
        for f in all_records():
            with self.subTest(f=os.path.basename(f)):
                st = GEN.path(os.path.basename(f) + ".rt.safetensors")
                ext = os.path.basename(f).split(".", 1)[1]
                back = GEN.path(os.path.basename(f) + ".back." + ext)
                common.run_cli("export", f, st)
                _, out, _ = common.run_cli("import", f, st, "-o", back)
                self.assertIn("0 tensors replaced", out)
                if ext.endswith("gz"):
                    import gzip
                    self.assertEqual(gzip.decompress(common.read_bytes(back)), gzip.decompress(common.read_bytes(f)))
                else:
                    self.assertEqual(common.read_bytes(back), common.read_bytes(f))
                d = common.cli_json("diff", f, back)
                self.assertEqual(d["summary"]["changed"] + d["summary"]["added"] + d["summary"]["removed"], 0)
                self.assertEqual(d["state"], [])

    def test_edit_in_numpy_comes_back(self):
        f = GEN.records()[0]
        r = ckpt.open(f)
        header, meta, tensors, _ = common.read_safetensors(self.export(f))
        target = "item[0].input.weight.param"
        info = header[target]
        changed = (np.frombuffer(tensors[target], dtype="<f4") * 2).astype("<f4")
        edited = {name: (h["dtype"], h["shape"], changed.tobytes() if name == target else tensors[name]) for name, h in header.items()}
        st = GEN.path("edited.safetensors")
        common.write_safetensors(st, edited, meta)
        out = GEN.path("edited-back.mpk")
        _, text, _ = common.run_cli("import", f, st, "-o", out)
        self.assertIn("1 tensors replaced", text)
        b = ckpt.open(out)
        np.testing.assert_array_equal(b.array(target), r.array(target) * 2)
        self.assertEqual(info["shape"], list(b.array(target).shape))
        for p in r.paths():
            if p != target:
                np.testing.assert_array_equal(b.array(p), r.array(p))
        d = common.cli_json("diff", f, out)
        self.assertEqual(d["summary"]["changed"], 1)
        self.assertEqual([e["path"] for e in d["entries"] if e["status"] == "changed"], [target])
        common.run_cli("validate", out)
        # Only some tensors, in another order, without metadata (as torch's save_file may write them): fine.
        partial = GEN.path("partial.safetensors")
        common.write_safetensors(partial, {target: ("F32", info["shape"], changed.tobytes())})
        _, text, _ = common.run_cli("import", f, partial, "-o", GEN.path("partial.mpk"))
        self.assertIn("1 tensors replaced, 0 unchanged", text)
        # Python's own import gives the same record.
        again = GEN.path("edited-py.mpk")
        ckpt.open(f).import_safetensors(st).save(again)
        self.assertEqual(common.read_bytes(again), common.read_bytes(out))

    def export(self, f):
        out = GEN.path(os.path.basename(f) + ".x.safetensors")
        common.run_cli("export", f, out)
        return out

    def test_import_validates(self):
        f = GEN.records()[0]
        header, _, tensors, _ = common.read_safetensors(self.export(f))
        target = "item[0].input.weight.param"
        cases = {
            "shape": ({target: ("F32", [32, 8], tensors[target])}, "expected shape [8, 32], found [32, 8]"),
            "dtype": ({target: ("I32", header[target]["shape"], tensors[target])}, "expected dtype F32 (the record's F32), found I32"),
            # no name of the record's: read as a PyTorch state dict, by Burn's PyTorch rules
            "name": ({"item[0].nope.param": ("F32", [1], b"\0\0\0\0")}, "the target record has no tensor item[0].nope.param"),
        }
        for what, (content, message) in cases.items():
            with self.subTest(what=what):
                st = GEN.path(f"bad-{what}.safetensors")
                common.write_safetensors(st, content)
                out = GEN.path(f"bad-{what}.mpk")
                code, _, err = common.run_cli("import", f, st, "-o", out, check=False)
                self.assertEqual(code, 1)
                self.assertIn(st, err)
                self.assertIn(message, err)
                self.assertEqual(err.count("\n"), 1)
                self.assertFalse(os.path.exists(out))

    def test_malformed_files_are_refused_with_offsets(self):
        f = GEN.records()[0]
        good = common.read_bytes(self.export(f))
        (n,) = struct.unpack("<Q", good[:8])
        cases = {
            "short": (good[:5], "offset 0: expected an 8-byte little-endian header length"),
            "length": (struct.pack("<Q", len(good)) + good[8:], "offset 0: header length"),
            "json": (good[:8] + b"{\"a\" " + good[13:], "offset "),
            "tail": (good + b"\0\0\0\0", "data bytes after the last tensor belong to no tensor"),
            "truncated": (good[:-4], "lie outside the"),
        }
        for what, (content, message) in cases.items():
            with self.subTest(what=what):
                st = GEN.path(f"malformed-{what}.safetensors")
                with open(st, "wb") as out:
                    out.write(content)
                code, _, err = common.run_cli("import", f, st, "-o", GEN.path("m.mpk"), check=False)
                self.assertEqual(code, 1, err)
                self.assertTrue(err.startswith(f"ckpt: {st}: offset "), err)
                self.assertIn(message, err)
                with self.assertRaises(common.SafetensorsError if what != "json" else ValueError):
                    common.read_safetensors(st)
        # A hole between two tensors: the reader here and ours both refuse it.
        hole = GEN.path("hole.safetensors")
        common.write_safetensors(hole, {"item[0].output.bias.param": ("F32", [1], b"\0" * 4)})
        data = bytearray(common.read_bytes(hole))
        text = data[8:8 + struct.unpack("<Q", data[:8])[0]].replace(b"[0,4]", b"[4,8]")
        with open(hole, "wb") as out:
            out.write(data[:8] + text + b"\0" * 8)
        code, _, err = common.run_cli("import", f, hole, "-o", GEN.path("m.mpk"), check=False)
        self.assertEqual(code, 1)
        self.assertIn("a hole in the data", err)
        self.assertIn(f"offset {8 + len(text)}: at item[0].output.bias.param", err)
        with self.assertRaises(common.SafetensorsError):
            common.read_safetensors(hole)


class Npz(unittest.TestCase):
    def test_npz_holds_the_arrays(self):
        for f in all_records():
            with self.subTest(f=os.path.basename(f)):
                out = GEN.path(os.path.basename(f) + ".npz")
                common.run_cli("export", f, out)
                r = ckpt.open(f)
                with zipfile.ZipFile(out) as z:
                    self.assertIsNone(z.testzip())
                    self.assertTrue(all(i.compress_type == zipfile.ZIP_STORED for i in z.infolist()))
                    meta = json.loads(z.read("ckpt-metadata.json"))
                self.assertEqual(meta["kind"], r.kind)
                with np.load(out) as npz:
                    names = [k for k in npz.files if k != "ckpt-metadata.json"]
                    self.assertEqual(names, r.paths())
                    for p in names:
                        a = npz[p]
                        np.testing.assert_array_equal(a, r.array(p))
                        self.assertEqual(a.dtype, r.array(p).dtype)
                        self.assertEqual(list(a.shape), list(r.array(p).shape))

    def test_python_export(self):
        r = ckpt.open(GEN.records()[0])
        s = r.export(GEN.path("py.safetensors"), what="params")
        self.assertEqual(s["tensors"], sum(1 for t in r.tensors() if t["role"] == "param"))
        header, _, _, _ = common.read_safetensors(GEN.path("py.safetensors"))
        self.assertEqual(len(header), s["tensors"])
        common.run_cli("export", GEN.records()[0], GEN.path("cli.safetensors"), "--what", "params")
        self.assertEqual(common.read_bytes(GEN.path("py.safetensors")), common.read_bytes(GEN.path("cli.safetensors")))
        with self.assertRaises(ckpt.Error):
            r.export(GEN.path("py.txt"))


if __name__ == "__main__":
    unittest.main()
