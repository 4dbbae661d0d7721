# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""`import ckpt` on PyTorch and safetensors files (docs/cli-contract.md, "PyTorch and safetensors";
docs/guide/python.md): what torch.save writes here — a state dict, a checkpoint with its optimizer, the
legacy format, tied weights and a strided view — and safetensors files and a sharded set written from
the published format. Every array equals what torch.load reads from the same file, every document is
the CLI's, and a pickle that would run os.system raises ckpt.Error naming the global and runs nothing.

Needs Debian's python3-torch: without it the test exits 77 (ctest's Not Run), under CI=true it fails."""
import gc
import json
import os
import pickletools
import struct
import sys
import tempfile
import time
import unittest
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

try:
    import torch
    import torch.nn as nn
except ImportError as e:  # pragma: no cover - depends on the machine
    if os.environ.get("CI") == "true":
        print(f"test_torch: PyTorch is not importable ({e}); CI=true: a missing dependency is a failure", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: PyTorch is not importable by {sys.executable} ({e}); install python3-torch", file=sys.stderr)
    sys.exit(77)

import numpy as np  # noqa: E402

import ckpt  # noqa: E402

torch.set_num_threads(1)
DIR = None
ST_DTYPES = {torch.float32: "F32", torch.int64: "I64", torch.float16: "F16"}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.norm = nn.LayerNorm(8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.norm(self.fc1(x))))


class NetBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


def trained(model, opt=None, steps=3):
    g = torch.Generator().manual_seed(7)
    opt = opt or torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(steps):
        x, y = torch.randn(16, 4, generator=g), torch.randn(16, 3, generator=g)
        opt.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        opt.step()
    return model, opt


def st_entry(t):
    t = t.detach().contiguous()
    return ST_DTYPES[t.dtype], list(t.shape), t.numpy().tobytes()


def path(name):
    return os.path.join(DIR.name, name)


def pickle_str(text):
    b = text.encode()
    return b"X" + struct.pack("<I", len(b)) + b  # BINUNICODE


def os_system(marker):
    """GLOBAL os system, called by REDUCE on ("touch MARKER",)."""
    return b"cos\nsystem\n" + pickle_str("touch " + marker) + b"\x85R"


def hand_written_pt(dest, value):
    """A zip .pt as torch 1.13 writes one, by hand: {"fc.weight": <a real 2x2 tensor>, "fc.bias": VALUE}
    (VALUE: pickle opcodes); returns the pickle."""
    s = pickle_str
    storage = b"(" + s("storage") + b"ctorch\nFloatStorage\n" + s("0") + s("cpu") + b"K\x04tQ"
    tensor = (b"ctorch._utils\n_rebuild_tensor_v2\n(" + storage + b"K\x00K\x02K\x02\x86K\x02K\x01\x86\x89"
              + b"ccollections\nOrderedDict\n)RtR")
    pkl = b"\x80\x02" + b"ccollections\nOrderedDict\n)R" + b"(" + s("fc.weight") + tensor + s("fc.bias") + value + b"u."
    with zipfile.ZipFile(dest, "w", zipfile.ZIP_STORED) as z:
        for name, data in (("data.pkl", pkl), ("data/0", struct.pack("<4f", 1, 2, 3, 4)), ("version", b"3\n")):
            z.writestr(zipfile.ZipInfo(f"archive/{name}", date_time=(1980, 1, 1, 0, 0, 0)), data)
    return pkl


def setUpModule():
    global DIR
    DIR = tempfile.TemporaryDirectory(prefix="ckpt-python-torch-")
    torch.manual_seed(1)
    bn, _ = trained(NetBN())
    torch.save(bn.state_dict(), path("state_dict.pt"))
    torch.save(bn.state_dict(), path("legacy.pt"), _use_new_zipfile_serialization=False)

    torch.manual_seed(2)
    net = Net()
    opt = torch.optim.AdamW(net.parameters(), lr=0.01)
    trained(net, opt)
    torch.save({"epoch": 2, "step": 30, "model": net.state_dict(), "optimizer": opt.state_dict()}, path("checkpoint.pt"))

    torch.manual_seed(3)
    embed = nn.Embedding(10, 4)
    w = embed.weight.detach()
    torch.save({"embed.weight": w, "head.weight": w, "embed_t": w.T, "rows": w[2:5, 1:]}, path("tied.pt"))

    sd = bn.state_dict()
    common.write_safetensors(path("model.safetensors"), {k: st_entry(v) for k, v in sd.items()}, {"format": "pt"})
    names = list(sd)
    shards = [names[:3], names[3:]]
    weight_map = {}
    for k, shard in enumerate(shards):
        fname = f"model-{k + 1:05d}-of-00002.safetensors"
        common.write_safetensors(path(fname), {n: st_entry(sd[n]) for n in shard}, {"format": "pt"})
        weight_map.update({n: fname for n in shard})
    total = sum(t.numel() * t.element_size() for t in sd.values())
    with open(path("model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))}, f, indent=2)


def tearDownModule():
    DIR.cleanup()


def torch_tensors(obj, prefix=()):
    """(path, tensor) in file order, as the contract names them: dict keys and list indices joined by dots."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += torch_tensors(v, prefix + (str(k),))
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            out += torch_tensors(v, prefix + (str(i),))
    elif isinstance(obj, torch.Tensor):
        out.append((".".join(prefix), obj))
    return out


class TorchFiles(unittest.TestCase):
    def check_values(self, r, expected):
        """Every tensor of the record against torch's, bit for bit (NaN where NaN)."""
        for p, t in expected.items():
            with self.subTest(tensor=p):
                a = r.array(p)
                self.assertEqual(list(a.shape), list(t.shape))
                self.assertFalse(a.flags.writeable)
                np.testing.assert_array_equal(a, t.detach().numpy(), err_msg=f"{r.file}: {p}")

    def check_documents(self, f, r):
        self.assertEqual(r.info(), common.cli_json("info", f))
        self.assertEqual(r.tensors(), common.cli_json("tensors", f))

    def check_views(self, r, names):
        """docs/guide/python.md: an array views the bytes in place, at the offset `ckpt tensors` reports."""
        rows = {t["path"]: t for t in r.tensors()}
        for p in names:
            a = r.array(p)
            if a.nbytes == 0 or rows[p]["offset"] is None:
                continue
            self.assertIs(a.base, r.buffer, p)
            self.assertEqual(a.ctypes.data, r.buffer.address + rows[p]["offset"], p)

    def test_state_dict(self):
        f = path("state_dict.pt")
        r = ckpt.open(f)
        sd = torch.load(f)
        self.assertEqual(r.kind, "torch_state_dict")
        self.assertEqual(r.recorder, "PyTorch")
        self.assertEqual(r.paths(), list(sd))
        self.check_values(r, sd)
        self.check_documents(f, r)
        self.check_views(r, list(sd))
        roles = {t["path"]: (t["role"], t["param_id"]) for t in r.tensors()}
        self.assertEqual(roles["fc1.weight"], ("param", "fc1.weight"))
        for buffer in ("bn.running_mean", "bn.running_var", "bn.num_batches_tracked"):
            self.assertEqual(roles[buffer], ("other", None), buffer)
        self.assertEqual(r.array("bn.num_batches_tracked").dtype, np.int64)

    def test_checkpoint_with_optimizer(self):
        f = path("checkpoint.pt")
        r = ckpt.open(f)
        obj = torch.load(f)
        self.assertEqual(r.kind, "torch_checkpoint")
        self.assertEqual(r.recorder, "PyTorch")
        expected = dict(torch_tensors(obj))
        self.assertEqual(r.paths(), list(expected))
        self.assertIn("optimizer.state.0.exp_avg", expected)
        self.check_values(r, expected)
        self.check_documents(f, r)
        rows = {t["path"]: t for t in r.tensors()}
        names = list(obj["model"])  # Net has no buffer: parameters() is the state dict's order
        for i, name in enumerate(names):
            for state in ("exp_avg", "exp_avg_sq"):
                row = rows[f"optimizer.state.{i}.{state}"]
                self.assertEqual((row["role"], row["param_id"]), ("optimizer", name), f"state.{i}.{state}")
            self.assertEqual((rows[f"model.{name}"]["role"], rows[f"model.{name}"]["param_id"]), ("param", name))

    def test_legacy_format(self):
        f = path("legacy.pt")
        r = ckpt.open(f)
        sd = torch.load(f)
        self.assertEqual(r.kind, "torch_state_dict")
        self.assertEqual(r.recorder, "PyTorchLegacy")
        self.assertEqual(r.paths(), list(sd))
        self.check_values(r, sd)
        self.check_documents(f, r)
        self.check_views(r, list(sd))

    def test_shared_storage_and_views(self):
        f = path("tied.pt")
        r = ckpt.open(f)
        obj = torch.load(f)
        self.assertEqual(r.paths(), list(obj))
        self.check_values(r, obj)  # the strided views too: the logical elements, as torch reads them
        self.check_documents(f, r)
        shares = {t["path"]: t["shares_storage_with"] for t in r.tensors()}
        self.assertEqual(shares, {"embed.weight": None, "head.weight": "embed.weight", "embed_t": "embed.weight",
                                  "rows": "embed.weight"})

    def test_safetensors(self):
        f = path("model.safetensors")
        r = ckpt.open(f)
        sd = torch.load(path("state_dict.pt"))
        self.assertEqual(r.kind, "safetensors")
        self.assertEqual(r.recorder, "Safetensors")
        self.assertEqual(r.paths(), list(sd))  # written in the state dict's order
        self.check_values(r, sd)
        self.check_documents(f, r)
        self.check_views(r, list(sd))

    def test_sharded_index(self):
        f = path("model.safetensors.index.json")
        r = ckpt.open(f)
        sd = torch.load(path("state_dict.pt"))
        self.assertEqual(r.kind, "safetensors")
        self.assertEqual(r.recorder, "Safetensors")
        self.assertEqual(sorted(r.paths()), sorted(sd))
        self.check_values(r, sd)
        self.check_documents(f, r)
        self.assertEqual(r.info()["tensor_bytes"], sum(t.numel() * t.element_size() for t in sd.values()))
        # Arrays of both shards keep their bytes alive after the record is gone (python.md: .base keeps the mapping).
        arrays = {p: r.array(p) for p in r.paths()}
        del r
        gc.collect()
        for p, a in arrays.items():
            np.testing.assert_array_equal(a, sd[p].numpy(), err_msg=p)


class CrossFramework(unittest.TestCase):
    """Burn <-> PyTorch through the module (docs/guide/cli/pytorch.md, "Burn ⇄ PyTorch"): ckpt-train's
    records exported to .pt and read by torch, imported back with their Adam state, diffed across.
    tests/torch/check_crossframework.py proves the resumption both ways with the CLI."""

    @classmethod
    def setUpClass(cls):
        cls.adam = common.train(path("adam"), "--steps", 4, "--optimizer", "adam")
        cls.half = common.train(path("half"), "--steps", 4, "--optimizer", "sgd", "--precision", "half")

    def record(self, run):
        return ckpt.open(os.path.join(run, "checkpoint", "record-4.mpk"))

    def test_export_reads_in_torch(self):
        r = self.record(self.adam)
        s = r.export(path("params.pt"))
        sd = torch.load(path("params.pt"), weights_only=True)
        self.assertEqual(s["tensors"], len(sd))
        self.assertEqual(list(sd), ["input.weight", "input.bias", "norm.weight", "norm.bias", "output.weight", "output.bias"])
        np.testing.assert_array_equal(sd["input.weight"].numpy(), r.array("item[0].input.weight.param").T)
        np.testing.assert_array_equal(sd["norm.weight"].numpy(), r.array("item[0].norm.gamma.param"))
        r.export(path("all.pt"), what="all")
        ck = torch.load(path("all.pt"))  # floats in param_groups: torch 1.13's weights_only reads none
        self.assertEqual(ck["step"], 4)
        state = ck["optimizer"]["state"]
        self.assertEqual(sorted(state), list(range(6)))
        self.assertEqual(float(state[0]["step"]), 4.0)
        m1 = next(p for p in r.paths() if p.endswith("moment_1") and r.array(p).shape == (8, 32))
        np.testing.assert_array_equal(state[0]["exp_avg"].numpy(), r.array(m1).T)
        with self.assertRaises(ckpt.Error):
            r.export(path("all.pt"), what="optimizer")

    def test_genuine_fixtures_export_and_diff_back(self):
        # Burn files from public projects (burnpack, 0.16-0.21 records): torch reads the state dict,
        # and the diff across frameworks finds every tensor unchanged, Linear weights transposed.
        for f in common.fixture_records():
            with self.subTest(f=os.path.basename(f)):
                out = path(os.path.basename(f) + ".pt")
                ckpt.open(f).export(out)
                sd = torch.load(out, weights_only=True)
                d = ckpt.diff(out, f)
                s = d["summary"]
                self.assertEqual((s["added"], s["removed"], s["changed"]), (0, 0, 0))
                self.assertEqual(s["unchanged"], len(sd))
                linear = any(k.endswith("weight") and t.dim() == 2 for k, t in sd.items())
                self.assertEqual(any(e["layout"] == "transposed" for e in d["entries"]), linear)

    def test_import_from_safetensors_with_pytorch_names(self):
        # a Hugging Face-style safetensors file (PyTorch names and layouts) goes in by the same rules
        r = self.record(self.adam)
        r.export(path("for-st.pt"))
        sd = torch.load(path("for-st.pt"), weights_only=True)
        common.write_safetensors(path("pt-names.safetensors"), {k: st_entry(v * 2) for k, v in sd.items()}, {"format": "pt"})
        t = r.import_torch(path("pt-names.safetensors"))
        np.testing.assert_array_equal(t.array("item[0].input.weight.param"), r.array("item[0].input.weight.param") * 2)
        np.testing.assert_array_equal(t.array("item[0].norm.beta.param"), r.array("item[0].norm.beta.param") * 2)

    def test_half_precision_and_sgd(self):
        r = self.record(self.half)
        r.export(path("half.pt"), what="all")
        ck = torch.load(path("half.pt"))
        self.assertEqual(ck["model"]["input.weight"].dtype, torch.float16)
        self.assertEqual(sorted(ck["optimizer"]["state"][0]), ["momentum_buffer"])
        self.assertIn("momentum", ck["optimizer"]["param_groups"][0])

    def test_import_and_diff_across(self):
        r = self.record(self.adam)
        r.export(path("own.pt"))
        net = {"net." + k: v for k, v in torch.load(path("own.pt"), weights_only=True).items()}
        torch.save({"state_dict": {k: v + 1 for k, v in net.items()}}, path("net.pt"))
        with self.assertRaises(ckpt.Error) as cm:
            r.import_torch(path("net.pt"))
        self.assertIn("--map", str(cm.exception))
        t = r.import_torch(path("net.pt"), map=[r"^net\.="])
        np.testing.assert_array_equal(t.array("item[0].input.weight.param"), r.array("item[0].input.weight.param") + 1)
        d = ckpt.diff(path("net.pt"), t, map=[r"^net\.="])
        self.assertTrue(d["across_frameworks"])
        self.assertEqual((d["summary"]["added"], d["summary"]["removed"], d["summary"]["changed"]), (12, 0, 0))  # t's moments: not in net.pt
        layouts = {e["path"]: e["layout"] for e in d["entries"] if e["status"] == "unchanged"}
        self.assertEqual(layouts["state_dict.net.input.weight"], "transposed")
        self.assertEqual(layouts["state_dict.net.norm.weight"], "same")


class Hostile(unittest.TestCase):
    def test_os_system_is_refused_and_never_runs(self):
        marker = path("PWNED")
        # The wrapper is sound: with a harmless value (the int 7) torch's safe loader reads the same file.
        benign = path("benign.pt")
        hand_written_pt(benign, b"K\x07")
        loaded = torch.load(benign, weights_only=True)
        self.assertEqual(loaded["fc.bias"], 7)
        np.testing.assert_array_equal(ckpt.open(benign).array("fc.weight"), loaded["fc.weight"].numpy())
        f = path("hostile.pt")
        pkl = hand_written_pt(f, os_system(marker))
        ops = [(op.name, arg) for op, arg, _ in pickletools.genops(pkl)]  # well-formed up to its end
        self.assertIn(("GLOBAL", "os system"), ops)
        with self.assertRaises(ckpt.Error) as cm:
            ckpt.open(f)
        e = cm.exception
        self.assertRegex(str(e), r"\bos\b")
        self.assertIn("system", str(e))
        self.assertEqual(e.file, f)
        code, _, err = common.run_cli("tensors", f, check=False)
        self.assertEqual(code, 1)
        self.assertEqual("ckpt: " + str(e) + "\n", err)
        time.sleep(0.2)  # a spawned shell would touch it a moment later
        self.assertFalse(os.path.exists(marker), "the payload ran")


if __name__ == "__main__":
    unittest.main()
