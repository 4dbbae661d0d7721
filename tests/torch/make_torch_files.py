#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""make_torch_files.py OUTDIR — real PyTorch checkpoints and what ckpt must find in them.

Every file is written by torch.save (Debian's python3-torch) from models, optimizers and
schedulers that really ran a few steps, seeded, so the values are the same on every run (legacy
files' storage keys are torch's pointer values, so their bytes are not). OUTDIR/expected.json holds,
for each file, its recorder and kind and every tensor in file order with the numbers computed by
torch itself (statistics in float64 over the logical elements) and the absolute byte offset of its
first element (located by torchpickle.py from the zip local headers or the legacy storage area).
The roles and param_ids follow docs/cli-contract.md ("PyTorch and safetensors"); where the model and
optimizer are both present, the link is checked against the real optimizer's parameters.

Also OUTDIR/dcp/ and OUTDIR/dcp_single/, Distributed Checkpoint directories (make_dcp.py).

Without torch the script says so and exits 77 (ctest's Not Run); under CI=true it exits 1.
"""
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # nothing written into the source tree
import torchpickle as tp  # noqa: E402


def skip(reason):
    # a stale expected.json from an earlier run must not be checked as if this run had made it
    if len(sys.argv) == 2 and os.path.exists(os.path.join(sys.argv[1], "expected.json")):
        os.remove(os.path.join(sys.argv[1], "expected.json"))
    if os.environ.get("CI") == "true":
        print(f"make_torch_files: {reason} (CI=true: a missing dependency is a failure)", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {reason}", file=sys.stderr)
    sys.exit(77)


try:
    import torch
    import torch.nn as nn
except ImportError as e:  # pragma: no cover - depends on the machine
    skip(f"PyTorch is not importable by {sys.executable} ({e}); install python3-torch")

torch.set_num_threads(1)

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.float16: "F16", torch.bfloat16: "BF16",
          torch.int64: "I64", torch.int32: "I32", torch.int16: "I16", torch.int8: "I8", torch.uint8: "U8",
          torch.bool: "Bool"}
BUFFER_NAMES = ("running_mean", "running_var", "num_batches_tracked")
MODEL_KEYS = ("model", "state_dict", "model_state_dict", "module")
OPTIMIZER_KEYS = ("optimizer", "optimizer_state_dict")
MAX_FILE = 200 * 1024
MAX_TOTAL = 3 * 1024 * 1024


def dtype_name(t):
    if t.dtype in DTYPES:
        return DTYPES[t.dtype]
    return str(t.dtype).replace("torch.", "")


def has_stats(t):
    return not (t.is_complex() or t.is_quantized)


def statistics(t):
    """sum, l2, min, max, nan, inf, zeros and the first 8 values, in float64 over the logical elements."""
    if not has_stats(t):
        return {"sum": None, "l2": None, "min": None, "max": None, "nan": None, "inf": None, "zeros": None,
                "first_values": None}
    x = t.detach().reshape(-1).to(torch.float64).tolist()
    nan = sum(1 for v in x if math.isnan(v))
    inf = sum(1 for v in x if math.isinf(v))
    zeros = sum(1 for v in x if v == 0)
    s = {"nan": nan, "inf": inf, "zeros": zeros}
    if not x:
        s.update({"sum": 0.0, "l2": 0.0, "min": None, "max": None})
    elif nan or inf:
        s.update({"sum": None, "l2": None, "min": None, "max": None})
    else:
        s.update({"sum": math.fsum(x), "l2": math.sqrt(math.fsum(v * v for v in x)), "min": min(x), "max": max(x)})
    s["first_values"] = [v if math.isfinite(v) else None for v in x[:8]]
    return s


def param_shapes(opt_sd):
    """The parameter ids in param_groups order, each with the shape its state reveals (None: no state)."""
    ids = [i for g in opt_sd["param_groups"] for i in g["params"]]
    shapes = []
    for i in ids:
        shape = None
        for k, v in opt_sd["state"].get(i, {}).items():
            if k != "step" and isinstance(v, torch.Tensor) and v.dim() > 0:
                shape = tuple(v.shape)
                break
        shapes.append(shape)
    return ids, shapes


def embeddings(pshapes, cshapes):
    """Every way of linking the parameters, in order, to candidate state-dict tensors of the same
    shape (a parameter without state matches any); stops counting at 2."""
    found = []

    def rec(i, j, acc):
        if len(found) >= 2:
            return
        if i == len(pshapes):
            found.append(list(acc))
            return
        for k in range(j, len(cshapes) - (len(pshapes) - i) + 1):
            if pshapes[i] is None or pshapes[i] == cshapes[k]:
                acc.append(k)
                rec(i + 1, k + 1, acc)
                acc.pop()
                if len(found) >= 2:
                    return

    rec(0, 0, [])
    return found


def parts(obj, kind):
    """(model prefix, model dict), (optimizer prefix, optimizer dict) as the contract finds them."""
    model = opt = None
    if kind == "torch_state_dict":
        model = ((), obj)
    elif kind == "torch_optimizer_state":
        opt = ((), obj)
    else:
        for k in MODEL_KEYS:
            if isinstance(obj.get(k), dict):
                model = ((k,), obj[k])
                break
        for k in OPTIMIZER_KEYS:
            if isinstance(obj.get(k), dict):
                opt = ((k,), obj[k])
                break
        if opt is None and isinstance(obj.get("optimizer_states"), list) and obj["optimizer_states"]:
            opt = (("optimizer_states", "0"), obj["optimizer_states"][0])
    return model, opt


def roles(obj, kind, truth):
    """path → (role, param_id, unchecked fields), and whether the link is ambiguous.

    truth: the names of the parameters the optimizer was really built on, in param_groups order (None
    when the file has no optimizer beside its model)."""
    model, opt = parts(obj, kind)
    out = {}
    ambiguous = None
    link = None  # optimizer id → state-dict name
    model_tensors = []
    if model:
        model_tensors = [(tp.path_text(p), t) for p, t in tp.walk(model[1])]
    if model and opt:
        ids, pshapes = param_shapes(opt[1])
        cands = [(n, t) for n, t in model_tensors if n.split(".")[-1] not in BUFFER_NAMES]
        found = embeddings(pshapes, [tuple(t.shape) for _, t in cands])
        ambiguous = len(found) != 1
        if not ambiguous:
            link = {i: cands[k][0] for i, k in zip(ids, found[0])}
            if truth is not None and [link[i] for i in ids] != list(truth):
                raise SystemExit(f"the contract's link {[link[i] for i in ids]} is not the truth {truth}")
    linked = set(link.values()) if link else set()
    if model:
        for name, t in model_tensors:
            full = tp.path_text(model[0] + (name,))
            if name.split(".")[-1] in BUFFER_NAMES:
                out[full] = ("other", None, [])
            elif not opt:
                out[full] = ("param", name, [])
            elif ambiguous:
                out[full] = (None, None, ["role", "param_id"])  # which of them are buffers cannot be decided
            elif name in linked:
                out[full] = ("param", name, [])
            else:
                out[full] = ("other", None, [])
    if opt:
        for p, t in tp.walk(opt[1].get("state", {})):
            full = tp.path_text(opt[0] + ("state",) + p)
            pid = link[int(p[0])] if link else None
            out[full] = ("optimizer", pid, [])
    return out, ambiguous


class Generator:
    def __init__(self, outdir):
        self.out = outdir
        self.files = []

    def save(self, name, obj, kind, legacy=False, protocol=2, truth=None, note=None):
        path = os.path.join(self.out, name)
        torch.save(obj, path, _use_new_zipfile_serialization=not legacy, pickle_protocol=protocol)
        size = os.path.getsize(path)
        if size > MAX_FILE:
            raise SystemExit(f"{name}: {size} bytes, more than {MAX_FILE}")
        parsed = tp.TorchFile(path)
        ours = tp.walk(obj)
        if [p for p, _ in ours] != [p for p, _ in parsed.tensors]:
            raise SystemExit(f"{name}: file order differs:\n {[p for p, _ in ours]}\n {[p for p, _ in parsed.tensors]}")
        role_of, ambiguous = roles(obj, kind, truth)
        first_of_storage = {}
        tensors = []
        for (p, t), (_, ref) in zip(ours, parsed.tensors):
            path_text = tp.path_text(p)
            if tuple(t.shape) != ref.size or tuple(t.stride()) != ref.stride or t.storage_offset() != ref.storage_offset:
                raise SystemExit(f"{name}: {path_text}: the pickle says {ref.size} {ref.stride} +{ref.storage_offset}")
            if dtype_name(t) != ref.dtype:
                raise SystemExit(f"{name}: {path_text}: dtype {dtype_name(t)} stored as {ref.dtype}")
            shares = first_of_storage.setdefault(ref.storage.key, path_text)
            role, param_id, unchecked = role_of.get(path_text, ("other", None, []))
            row = {"path": path_text, "dtype": dtype_name(t), "shape": list(t.shape), "numel": t.numel(),
                   "role": role, "param_id": param_id,
                   "shares_storage_with": None if shares == path_text else shares,
                   "offset": parsed.offset(ref) if t.numel() > 0 else None,
                   "stride": list(t.stride()), "storage_offset": t.storage_offset()}
            row.update(statistics(t))
            if unchecked:
                row["unchecked"] = unchecked
            tensors.append(row)
        entry = {"file": name, "recorder": "PyTorchLegacy" if legacy else "PyTorch", "kind": kind,
                 "format": parsed.format, "pickle_protocol": protocol, "bytes": size, "tensors": tensors}
        if kind == "torch_checkpoint":
            entry["ambiguous"] = bool(ambiguous)
        if truth is not None:
            entry["optimizer_parameters"] = list(truth)  # what the optimizer was really built on, in order
        if note:
            entry["note"] = note
        self.files.append(entry)
        return entry


# ---------------------------------------------------------------------------------------------
# Models and training


class MLP(nn.Module):
    def __init__(self, d_in=4, hidden=8, d_out=3):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class MLPBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.bn1 = nn.BatchNorm1d(8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn1(self.fc1(x))))


class Gate(nn.Module):
    """A parameter and a registered buffer of the same shape, side by side."""

    def __init__(self, n):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(n) + 0.1 * torch.randn(n))
        self.register_buffer("ema", torch.zeros(n))

    def forward(self, x):
        self.ema.mul_(0.9).add_(0.1 * x.detach().mean(0))
        return x * self.weight


class Gated(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 8)
        self.gate = Gate(8)
        self.fc2 = nn.Linear(8, 3)

    def forward(self, x):
        return self.fc2(self.gate(torch.relu(self.fc1(x))))


class LitNet(nn.Module):
    """The model a LightningModule would hold as self.model, with a buffer of its own shape."""

    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(4, 8)
        self.norm = nn.LayerNorm(8)
        self.head = nn.Linear(8, 3)
        self.register_buffer("pos_scale", torch.linspace(0.5, 1.0, 6))

    def forward(self, x):
        return self.head(torch.relu(self.norm(self.layer(x)))) * self.pos_scale[:3]


class Lit(nn.Module):
    def __init__(self):
        super().__init__()
        self.model = LitNet()

    def forward(self, x):
        return self.model(x)


class TiedLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.proj = nn.Linear(4, 4)
        self.head = nn.Linear(4, 10, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, idx):
        return self.head(torch.tanh(self.proj(self.embed(idx))))


def train(model, opt, steps=3, sched=None, d_in=4, d_out=3):
    g = torch.Generator().manual_seed(1234)
    for _ in range(steps):
        x = torch.randn(16, d_in, generator=g)
        y = torch.randn(16, d_out, generator=g)
        opt.zero_grad()
        loss = torch.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        if sched is not None:
            sched.step()
    return loss


def names_of(model, params):
    by_id = {id(p): n for n, p in model.named_parameters()}
    return [by_id[id(p)] for p in params]


def optimizer_truth(model, opt):
    return names_of(model, [p for g in opt.param_groups for p in g["params"]])


# ---------------------------------------------------------------------------------------------
# The files


def state_dict_files(gen):
    torch.manual_seed(1)
    gen.save("linear.pt", nn.Linear(4, 3).state_dict(), "torch_state_dict")
    torch.manual_seed(2)
    gen.save("conv2d.pt", nn.Conv2d(2, 3, 3).state_dict(), "torch_state_dict")
    torch.manual_seed(3)
    bn = nn.BatchNorm1d(4)
    bn.train()
    for _ in range(2):
        bn(torch.randn(8, 4) * 2 + 1)
    gen.save("batchnorm1d.pt", bn.state_dict(), "torch_state_dict")
    torch.manual_seed(4)
    gen.save("layernorm.pt", nn.LayerNorm(6).state_dict(), "torch_state_dict")
    torch.manual_seed(5)
    gen.save("embedding.pt", nn.Embedding(10, 4).state_dict(), "torch_state_dict")
    torch.manual_seed(6)
    gen.save("lstm.pt", nn.LSTM(3, 4, num_layers=2).state_dict(), "torch_state_dict")
    torch.manual_seed(7)
    gen.save("transformer_encoder_layer.pt", nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0).state_dict(),
             "torch_state_dict")
    torch.manual_seed(8)
    gen.save("tied.pt", TiedLM().state_dict(), "torch_state_dict")
    torch.manual_seed(9)
    ddp = {"module." + k: v for k, v in MLP().state_dict().items()}
    gen.save("ddp_prefixed.pt", ddp, "torch_state_dict", note="a state dict saved from DistributedDataParallel")


def dtype_files(gen):
    for i, (dt, label) in enumerate([(torch.float32, "float32"), (torch.float64, "float64"),
                                     (torch.float16, "float16"), (torch.bfloat16, "bfloat16")]):
        torch.manual_seed(20 + i)
        gen.save(f"dtype_{label}.pt", MLP(4, 6, 2).to(dt).state_dict(), "torch_state_dict")
    torch.manual_seed(30)
    ints = {"i64": torch.randint(-1000, 1000, (3, 4), dtype=torch.int64),
            "i64_wide": torch.tensor([2 ** 40, -(2 ** 40), 0, 1], dtype=torch.int64),
            "i32": torch.randint(-100000, 100000, (5,), dtype=torch.int32),
            "i16": torch.randint(-30000, 30000, (2, 3), dtype=torch.int16),
            "i8": torch.randint(-128, 128, (10,), dtype=torch.int8),
            "u8": torch.randint(0, 256, (4, 4), dtype=torch.uint8),
            "bool": torch.rand(3, 5) > 0.5}
    gen.save("integers.pt", ints, "torch_state_dict")
    gen.save("scalar.pt", {"f32": torch.tensor(3.5), "i64": torch.tensor(-7), "bool": torch.tensor(True),
                           "f64": torch.tensor(0.1, dtype=torch.float64)}, "torch_state_dict")
    gen.save("empty.pt", {"empty_0": torch.empty(0), "empty_3x0": torch.zeros(3, 0),
                          "empty_i64": torch.zeros(0, dtype=torch.int64), "after": torch.arange(3.0)},
             "torch_state_dict")
    torch.manual_seed(31)
    a = torch.randn(3, 5)
    b = torch.randn(4, 6)
    c = torch.randn(4, 4)
    views = {"transposed": a.T, "sliced": b[1:, ::2], "base": c, "row": c[2], "column": c[:, 1],
             "expanded": torch.randn(3, 1).expand(3, 4)}
    gen.save("views.pt", views, "torch_state_dict",
             note="t.T, x[1:, ::2] (storage offset 6, strides [6, 2]), views of a saved base, a stride-0 expand")
    torch.manual_seed(32)
    w = torch.randn(4, 5)
    w[0, 1] = float("nan")
    w[2, 3] = float("inf")
    w[3, 0] = float("-inf")
    h = torch.randn(6).half()
    h[5] = float("inf")
    gen.save("nonfinite.pt", {"weight": w, "half": h, "clean": torch.randn(3)}, "torch_state_dict")
    torch.manual_seed(33)
    gen.save("complex64.pt", {"spectrum": torch.randn(3, 2, dtype=torch.complex64), "real": torch.randn(3)},
             "torch_state_dict")
    torch.manual_seed(34)
    q = torch.quantize_per_tensor(torch.randn(2, 3), 0.1, 10, torch.quint8)
    gen.save("quint8.pt", {"quantized": q, "real": torch.randn(3)}, "torch_state_dict",
             note="a per-tensor affine quint8 tensor (torch._utils._rebuild_qtensor): listed, no statistics")


def optimizer_files(gen):
    makers = [("adam", lambda p: torch.optim.Adam(p, lr=0.01)),
              # betas and eps other than the defaults: ckpt's forensics must take the file's (check_torch_files.py)
              ("adamw", lambda p: torch.optim.AdamW(p, lr=0.01, weight_decay=0.1, betas=(0.8, 0.99), eps=1e-6)),
              ("sgd_momentum", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)),
              ("rmsprop", lambda p: torch.optim.RMSprop(p, lr=0.01)),
              ("adagrad", lambda p: torch.optim.Adagrad(p, lr=0.1))]
    out = {}
    for i, (label, make) in enumerate(makers):
        torch.manual_seed(40 + i)
        model = MLP()
        opt = make(model.parameters())
        train(model, opt, steps=3)
        gen.save(f"optimizer_{label}.pt", opt.state_dict(), "torch_optimizer_state")
        out[label] = (model, opt)
    return out


def checkpoint_files(gen):
    made = {}
    # research code: model, optimizer, scheduler, epoch, step, a float loss
    torch.manual_seed(50)
    model = MLPBN()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    train(model, opt, steps=3, sched=sched)
    obj = {"epoch": 3, "step": 120, "model": model.state_dict(), "optimizer": opt.state_dict(),
           "scheduler": sched.state_dict(), "loss": 0.25}
    made["research"] = (obj, optimizer_truth(model, opt))
    gen.save("checkpoint_research.pt", obj, "torch_checkpoint", truth=made["research"][1])

    # the PyTorch tutorial's keys; the loss is the last step's loss tensor, as the tutorial saves it
    torch.manual_seed(51)
    model = MLP()
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    loss = train(model, opt, steps=3)
    obj = {"epoch": 5, "model_state_dict": model.state_dict(), "optimizer_state_dict": opt.state_dict(),
           "loss": loss}
    made["tutorial"] = (obj, optimizer_truth(model, opt))
    gen.save("checkpoint_tutorial.pt", obj, "torch_checkpoint", truth=made["tutorial"][1],
             note="loss is the 0-dim result of mse_loss: its storage holds 48 floats, 47 of them uninitialised "
                  "memory torch wrote as it was (so this file's bytes differ from run to run)")

    # Lightning's layout, by hand: state_dict of the LightningModule (self.model.*), optimizer_states,
    # lr_schedulers, a ModelCheckpoint callback state holding a tensor
    torch.manual_seed(52)
    lit = Lit()
    opt = torch.optim.AdamW(lit.parameters(), lr=0.01)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)
    train(lit, opt, steps=3, sched=sched)
    callback = ("ModelCheckpoint{'monitor': 'val_loss', 'mode': 'min', 'every_n_train_steps': 0, "
                "'every_n_epochs': 1, 'train_time_interval': None}")
    obj = {"epoch": 2, "global_step": 40, "pytorch-lightning_version": "2.0.0", "state_dict": lit.state_dict(),
           "loops": {"fit_loop": {"state_dict": {}, "epoch_progress": {"total": {"ready": 3, "completed": 2}}}},
           "callbacks": {callback: {"monitor": "val_loss", "best_model_score": torch.tensor(0.4375),
                                    "best_model_path": "epoch=1-step=40.ckpt", "current_score": torch.tensor(0.5),
                                    "dirpath": "checkpoints"}},
           "optimizer_states": [opt.state_dict()], "lr_schedulers": [sched.state_dict()],
           "hparams_name": "kwargs", "hyper_parameters": {"lr": 0.01, "hidden": 8}}
    made["lightning"] = (obj, optimizer_truth(lit, opt))
    gen.save("checkpoint_lightning.pt", obj, "torch_checkpoint", truth=made["lightning"][1],
             note="model.pos_scale is a registered buffer whose shape links it to no parameter: role other")

    # a checkpoint without optimizer
    torch.manual_seed(53)
    gen.save("checkpoint_model_only.pt", {"epoch": 7, "model": MLP().state_dict(), "best_acc": 0.91},
             "torch_checkpoint")

    # the order-and-shape link cannot be decided: gate.weight [8] and the buffer gate.ema [8] sit
    # next to fc1.bias [8]
    torch.manual_seed(54)
    model = Gated()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    train(model, opt, steps=2)
    obj = {"epoch": 1, "model": model.state_dict(), "optimizer": opt.state_dict()}
    e = gen.save("checkpoint_ambiguous.pt", obj, "torch_checkpoint", truth=optimizer_truth(model, opt),
                 note="a registered buffer (gate.ema) of the same shape as its neighbours: the link is ambiguous")
    assert e["ambiguous"]

    # two parameter groups (no weight decay on biases): param_groups do not follow parameters()
    torch.manual_seed(55)
    model = MLP()
    decay = [p for n, p in model.named_parameters() if n.endswith("weight")]
    no_decay = [p for n, p in model.named_parameters() if n.endswith("bias")]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.1}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=0.01)
    train(model, opt, steps=2)
    obj = {"epoch": 1, "model": model.state_dict(), "optimizer": opt.state_dict()}
    e = gen.save("checkpoint_param_groups.pt", obj, "torch_checkpoint", truth=optimizer_truth(model, opt),
                 note="weights then biases in param_groups: no order-and-shape link exists, so it is ambiguous")
    assert e["ambiguous"]

    # fine-tuning: fc1 frozen, the optimizer built on the trainable parameters only
    torch.manual_seed(56)
    model = MLP()
    model.fc1.requires_grad_(False)
    opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.05, momentum=0.9)
    train(model, opt, steps=2)
    obj = {"epoch": 1, "model": model.state_dict(), "optimizer": opt.state_dict()}
    gen.save("checkpoint_frozen.pt", obj, "torch_checkpoint", truth=optimizer_truth(model, opt),
             note="fc1 frozen: the optimizer links no parameter to fc1.*, so the contract makes them role other")
    return made


def legacy_and_protocol_files(gen, made):
    def reload(name):
        # the same objects again: the tensors as the zip file holds them
        return torch.load(os.path.join(gen.out, name))

    for name, kind in [("linear.pt", "torch_state_dict"), ("batchnorm1d.pt", "torch_state_dict"),
                       ("views.pt", "torch_state_dict"), ("tied.pt", "torch_state_dict"),
                       ("empty.pt", "torch_state_dict"), ("dtype_bfloat16.pt", "torch_state_dict"),
                       ("integers.pt", "torch_state_dict"), ("optimizer_adam.pt", "torch_optimizer_state")]:
        gen.save("legacy_" + name, reload(name), kind, legacy=True)
    for key, name in [("research", "checkpoint_research.pt"), ("lightning", "checkpoint_lightning.pt")]:
        obj, truth = made[key]
        gen.save("legacy_" + name, obj, "torch_checkpoint", legacy=True, truth=truth)
    gen.save("protocol4_linear.pt", reload("linear.pt"), "torch_state_dict", protocol=4)
    gen.save("protocol4_views.pt", reload("views.pt"), "torch_state_dict", protocol=4)
    obj, truth = made["research"]
    gen.save("protocol4_checkpoint_research.pt", obj, "torch_checkpoint", protocol=4, truth=truth)
    gen.save("protocol4_legacy_tied.pt", reload("tied.pt"), "torch_state_dict", legacy=True, protocol=4)
    gen.save("protocol5_linear.pt", reload("linear.pt"), "torch_state_dict", protocol=5)


def dcp_files(outdir):
    """Distributed Checkpoint directories, written by make_dcp.py in a process of its own."""
    r = subprocess.run([sys.executable, os.path.join(HERE, "make_dcp.py"), outdir], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"make_dcp.py failed:\n{r.stderr}")
    return json.loads(r.stdout)


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        print("usage: make_torch_files.py OUTDIR", file=sys.stderr)
        return 2
    outdir = os.path.abspath(argv[1])
    os.makedirs(outdir, exist_ok=True)
    expected = os.path.join(outdir, "expected.json")
    if os.path.exists(expected):
        os.remove(expected)
    gen = Generator(outdir)
    state_dict_files(gen)
    dtype_files(gen)
    optimizer_files(gen)
    made = checkpoint_files(gen)
    legacy_and_protocol_files(gen, made)
    doc = {"torch": torch.__version__, "python": sys.version.split()[0], "files": gen.files}
    doc["dcp"] = dcp_files(outdir)
    total = sum(f["bytes"] for f in gen.files) + sum(d.get("bytes", 0) for d in doc["dcp"]["directories"])
    if total > MAX_TOTAL:
        raise SystemExit(f"{total} bytes in all, more than {MAX_TOTAL}")
    with open(expected + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)
        f.write("\n")
    os.replace(expected + ".tmp", expected)
    print(f"make_torch_files: {len(gen.files)} files, {sum(len(f['tensors']) for f in gen.files)} tensors, "
          f"{total} bytes; DCP: {doc['dcp']['status']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
