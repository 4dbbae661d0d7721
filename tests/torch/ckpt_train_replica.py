#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""ckpt_train_replica.py — a PyTorch replica of ckpt-train (app/train/) for its default family.

What it is: our own re-statement, in Python and torch, of what ckpt-train computes for a regression
run of the plain MLP (blocks 0: input Linear -> LayerNorm -> ReLU -> output Linear), dtype f32 (f64
works too), Adam or AdamW with the constant scheduler and grad_accum 1: the counter-based random
numbers (rng.h), the data set (Dataset::generate), the batches (Trainer::sampleBatch), the
initialisation (Mlp::create) and the loss (Mlp::lossOf). Those parts are a replica, not an oracle:
they are only as right as our reading of the C++, which `--self-check` holds to the real trainer.

What is independent: the arithmetic of a step. torch.nn.Linear, torch.nn.LayerNorm, autograd and
torch.optim.Adam / AdamW are PyTorch's own, so a step computed here agrees with ckpt-train's
hand-written forward, backward and Burn-style optimizer (model.cpp, optim.cpp) only if both are
right, to float32 rounding; they are never bit-identical. Same mathematics, different rounding:
  - LayerNorm: both use the biased variance (divide by hidden) with eps inside the square root;
    ckpt-train sums in index order and divides by sqrt(var + eps), torch uses its own reduction order
    and multiplies by rsqrt(var + eps). The loss: both the mean over batch x output_dim elements.
  - Adam: both put eps outside the square root, after bias correction. ckpt-train (as Burn) computes
    m / c1 / (sqrt(v / c2) + eps) * lr with c = 1 - powi(beta, t) in f32 (Rust's f32::powi);
    torch computes m / (sqrt(v) / sqrt(c2) + eps) * (lr / c1) with c1, c2 and lr / c1 in double. This
    is the larger of the two sources: with ckpt-train's formula emulated in float32 on torch's own
    gradients the parameters after 5 steps agree to <= 6e-8 absolute, with torch.optim.Adam to 2.4e-7.
  - AdamW: both decay first, p * (1 - lr * wd) with lr * wd in double, then subtract the Adam step;
    Adam's L2 penalty is grad + wd * p in both. A first step is m = (1 - beta1) g in ckpt-train and
    0 * beta1 + (1 - beta1) g in torch: the same number.

Usage as a module (no side effects at import):
    cfg = config_from_state(json.loads(`ckpt state RECORD --json`))
    data = make_dataset(cfg); model = Mlp(cfg); opt = torch_optimizer(model, cfg)
    counter = train_steps(model, opt, cfg, data, counter, n)
As a program:
    ckpt_train_replica.py --self-check --ckpt CKPT --ckpt-train CKPT_TRAIN --work DIR
runs ckpt-train for 10 steps (Adam; Adam with an L2 penalty; AdamW with decoupled decay), restores
record-5 into torch, trains 5 steps with the batches ckpt-train drew and compares parameters, Adam
moments, Adam's time, the batch counter and the five losses with record-10 and ckpt-train's metric
lines; it also trains from ckpt-train's initialisation to record-5. Exit 1 when a difference exceeds
the tolerances below.
"""
import argparse
import dataclasses
import json
import math
import os
import re
import subprocess
import sys

try:
    import numpy as np
    import torch
except ImportError as _missing:  # run as a test without torch: Not Run (77), under CI=true a failure
    if __name__ != "__main__":
        raise
    print(f"ckpt_train_replica: {_missing}: not run", file=sys.stderr)
    sys.exit(1 if os.environ.get("CI") == "true" else 77)

_M64 = (1 << 64) - 1

# rng.h's fixed streams.
STREAM_INIT = 100
STREAM_TEACHER = 200
STREAM_TRAIN_DATA = 300
STREAM_VALID_DATA = 400
STREAM_BATCHES = 500

TEACHER_HIDDEN = 16            # Dataset::generate's teacherHidden
LAYER_NORM_EPSILON = 1e-5      # Mlp::kLayerNormEpsilon (Burn's LayerNormConfig default)

# Burn's record names (item[0].<path>.param) against torch's state-dict names.
BURN_TO_TORCH = {
    "input.weight": "input.weight", "input.bias": "input.bias",
    "norm.gamma": "norm.weight", "norm.beta": "norm.bias",
    "output.weight": "output.weight", "output.bias": "output.bias",
}


# ---- rng.h ----------------------------------------------------------------------------------------

def _mix64(z):
    """SplitMix64's finaliser, with the C++ uint64_t wraparound made explicit by masking."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    return z ^ (z >> 31)


def counter_random(seed, stream, counter):
    """counterRandom: a pure function of (seed, stream, counter)."""
    key = _mix64((seed + 0x9E3779B97F4A7C15 * (stream + 1)) & _M64)
    return _mix64(key ^ ((counter * 0xD1B54A32D192ED03 + 0x632BE59BD9B4E019) & _M64))


def counter_uniform(seed, stream, counter):
    """counterUniform: 53 random bits scaled to [0, 1), exact in a double."""
    return (counter_random(seed, stream, counter) >> 11) * 2.0 ** -53


def counter_normal(seed, stream, counter):
    """counterNormal: Box-Muller from counters 2c and 2c+1. Python's math calls glibc's log, sqrt
    and cos as the C++ does, and evaluates (2.0 * pi) * u2 in the same order."""
    u1 = 1.0 - counter_uniform(seed, stream, (2 * counter) & _M64)
    u2 = counter_uniform(seed, stream, (2 * counter + 1) & _M64)
    return math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)


def _normals(seed, stream, start, count):
    return np.array([counter_normal(seed, stream, start + k) for k in range(count)], dtype=np.float64)


# ---- the configuration ----------------------------------------------------------------------------

def _f32(x):
    """The double a Rust f32 holds: Burn keeps Adam's betas, epsilon and weight decay as f32, and
    `ckpt state` prints them in f32's shortest spelling ("0.9"), so the decimal must be rounded back
    to f32. Handing torch that exact double (not the decimal 0.9) makes torch's float32 kernels see
    the very scalars ckpt-train multiplies by (a double rounds to the same f32 when torch casts it)."""
    return float(np.float32(x))


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """The part of ckpt-train's TrainConfig this replica covers; the defaults are ckpt-train's."""
    input_dim: int = 8
    hidden: int = 32
    output_dim: int = 1
    dtype: str = "f32"
    batch_size: int = 32
    dataset_size: int = 2048
    valid_size: int = 256
    seed: int = 42
    optimizer: str = "adam"
    lr: float = 3e-3
    beta_1: float = _f32(0.9)
    beta_2: float = _f32(0.999)
    epsilon: float = _f32(1e-5)
    weight_decay: float = 0.0


def _require(ok, what):
    if not ok:
        raise ValueError("outside the replica's family (regression MLP, Adam/AdamW, constant lr): " + what)


def _check_family(c):
    m, o = c["model"], c["optimizer"]
    _require(c["task"] == "regression", "task " + c["task"])
    _require(m["blocks"] == 0 and m["activation"] == "relu", "blocks/activation")
    _require(o["name"] in ("adam", "adamw") and not o["amsgrad"], "optimizer " + o["name"])
    _require(c["scheduler"]["name"] == "constant", "scheduler " + c["scheduler"]["name"])
    _require(c["grad_accum"] == 1, "grad_accum %d" % c["grad_accum"])
    _require(c.get("diverge_at") is None, "diverge_at")


def config_from_state(d):
    """The TrainConfig of a caller state as `ckpt state RECORD --json` prints it ({config, progress});
    raises ValueError for a configuration this replica does not reproduce."""
    c = d["config"]
    _check_family(c)
    m, o = c["model"], c["optimizer"]
    return TrainConfig(
        input_dim=m["input_dim"], hidden=m["hidden"], output_dim=m["output_dim"], dtype=c["dtype"],
        batch_size=c["batch_size"], dataset_size=c["dataset_size"], valid_size=c["valid_size"],
        seed=c["seed"], optimizer=o["name"], lr=float(o["lr"]),  # lr is an f64 in the record
        beta_1=_f32(o["beta_1"]), beta_2=_f32(o["beta_2"]), epsilon=_f32(o["epsilon"]),
        weight_decay=_f32(o["weight_decay"]))


def torch_dtype(cfg):
    return torch.float64 if cfg.dtype == "f64" else torch.float32


# ---- the data -------------------------------------------------------------------------------------

def _teacher(cfg):
    """The tanh teacher's two matrices, filled row-major from one counter (the blob centres that
    follow them on the stream only matter for classification)."""
    n1 = cfg.input_dim * TEACHER_HIDDEN
    t1 = _normals(cfg.seed, STREAM_TEACHER, 0, n1) / math.sqrt(cfg.input_dim)
    t2 = _normals(cfg.seed, STREAM_TEACHER, n1, TEACHER_HIDDEN * cfg.output_dim) / math.sqrt(TEACHER_HIDDEN)
    return t1.reshape(cfg.input_dim, TEACHER_HIDDEN), t2.reshape(TEACHER_HIDDEN, cfg.output_dim)


def _split(cfg, rows, stream, t1, t2):
    """One split: x's normals first, then the targets' noise on the same counter."""
    nx, ny = rows * cfg.input_dim, rows * cfg.output_dim
    x = _normals(cfg.seed, stream, 0, nx).reshape(rows, cfg.input_dim)
    y = np.tanh(x @ t1) @ t2 + 0.01 * _normals(cfg.seed, stream, nx, ny).reshape(rows, cfg.output_dim)
    return x, y


def make_dataset(cfg):
    """Dataset::generate for regression, in float64: {train_x, train_y, valid_x, valid_y}. numpy's
    GEMM and tanh may differ from Eigen's in the last bit of a double, which the cast of a batch to
    float32 absorbs (and the self-check's loss comparison would show otherwise)."""
    t1, t2 = _teacher(cfg)
    train_x, train_y = _split(cfg, cfg.dataset_size, STREAM_TRAIN_DATA, t1, t2)
    valid_x, valid_y = _split(cfg, cfg.valid_size, STREAM_VALID_DATA, t1, t2)
    return {"train_x": train_x, "train_y": train_y, "valid_x": valid_x, "valid_y": valid_y}


def batch_indices(cfg, rng_counter):
    """Trainer::sampleBatch's rows: one counter of stream Batches per sample, with replacement,
    modulo the data set; the counter runs on across epochs (an epoch's end does not touch it).
    Returns (indices, the counter after the batch)."""
    idx = [counter_random(cfg.seed, STREAM_BATCHES, (rng_counter + r) & _M64) % cfg.dataset_size
           for r in range(cfg.batch_size)]
    return np.array(idx, dtype=np.int64), (rng_counter + cfg.batch_size) & _M64


def batch_tensors(cfg, dataset, indices):
    """x and y in the training dtype: each double rounded to nearest, as static_cast<T> does."""
    dt = torch_dtype(cfg)
    return (torch.from_numpy(dataset["train_x"][indices]).to(dt),
            torch.from_numpy(dataset["train_y"][indices]).to(dt))


# ---- the model ------------------------------------------------------------------------------------

class Mlp(torch.nn.Module):
    """input: Linear -> norm: LayerNorm -> ReLU -> output: Linear, in the training dtype. The
    parameters come out of parameters() in ckpt-train's declaration order (input, norm, output)."""

    def __init__(self, cfg):
        super().__init__()
        dt = torch_dtype(cfg)
        self.input = torch.nn.Linear(cfg.input_dim, cfg.hidden, dtype=dt)
        self.norm = torch.nn.LayerNorm(cfg.hidden, eps=LAYER_NORM_EPSILON, dtype=dt)
        self.output = torch.nn.Linear(cfg.hidden, cfg.output_dim, dtype=dt)

    def forward(self, x):
        return self.output(torch.relu(self.norm(self.input(x))))


def _uniform_init(cfg, index, count, fan_in):
    """Mlp::create's Linear init: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) from stream Init + index."""
    bound = 1.0 / math.sqrt(fan_in)
    u = np.array([counter_uniform(cfg.seed, STREAM_INIT + index, k) for k in range(count)])
    return (2.0 * u - 1.0) * bound


def init_parameters(model, cfg):
    """The values Mlp::create gives (parameter indices W1 0, B1 1, W2 4, B2 5; gamma 1, beta 0).
    Burn stores a Linear weight [in, out] row-major; torch's is [out, in], hence the transposes."""
    w1 = _uniform_init(cfg, 0, cfg.input_dim * cfg.hidden, cfg.input_dim).reshape(cfg.input_dim, cfg.hidden)
    b1 = _uniform_init(cfg, 1, cfg.hidden, cfg.input_dim)
    w2 = _uniform_init(cfg, 4, cfg.hidden * cfg.output_dim, cfg.hidden).reshape(cfg.hidden, cfg.output_dim)
    b2 = _uniform_init(cfg, 5, cfg.output_dim, cfg.hidden)
    values = {"input.weight": w1.T, "input.bias": b1, "norm.weight": np.ones(cfg.hidden),
              "norm.bias": np.zeros(cfg.hidden), "output.weight": w2.T, "output.bias": b2}
    dt = torch_dtype(cfg)
    model.load_state_dict({k: torch.from_numpy(np.ascontiguousarray(v)).to(dt) for k, v in values.items()})


def loss_of(out, y):
    """Mlp::lossOf for regression: the mean of the squared error over all batch x output_dim
    elements (not a per-sample sum), so its gradient is 2 (out - y) / (n * out_dim)."""
    return torch.nn.functional.mse_loss(out, y, reduction="mean")


# ---- the optimizer and the loop -------------------------------------------------------------------

def torch_optimizer(model, cfg):
    """torch's Adam or AdamW with the record's hyperparameters. betas, eps and weight_decay are the
    exact doubles of the record's f32 values (see _f32); lr is the record's f64. foreach=False pins
    the single-tensor implementation whose formula the module docstring compares with Burn's.
    weight_decay is always passed: torch's AdamW would otherwise default to 1e-2."""
    kind = torch.optim.AdamW if cfg.optimizer == "adamw" else torch.optim.Adam
    return kind(model.parameters(), lr=cfg.lr, betas=(cfg.beta_1, cfg.beta_2), eps=cfg.epsilon,
                weight_decay=cfg.weight_decay, foreach=False)


def train_steps(model, optimizer, cfg, dataset, rng_counter, n, losses=None):
    """n optimizer steps (grad_accum 1: one batch each, as ckpt-train draws them from rng_counter).
    Returns the counter after them; appends each step's loss to `losses` when given."""
    for _ in range(n):
        indices, rng_counter = batch_indices(cfg, rng_counter)
        x, y = batch_tensors(cfg, dataset, indices)
        optimizer.zero_grad(set_to_none=True)
        loss = loss_of(model(x), y)
        loss.backward()
        optimizer.step()
        if losses is not None:
            losses.append(float(loss))
    return rng_counter


# ---- records through the ckpt CLI -----------------------------------------------------------------

def _run_json(cmd):
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def _times(node, out):
    """Every Adam `time` of `ckpt show RECORD item[1] --json`, keyed by its momentum path."""
    if node.get("key") == "time":
        out[node["path"].rsplit(".", 1)[0]] = node["value"]
    for child in node.get("children", []):
        _times(child, out)
    return out


def read_record(ckpt, record, work):
    """A TrainingRecord's caller state and tensors: {"state", "params": {burn path: array},
    "moments": {burn path: (moment_1, moment_2, time)}}, from `ckpt state`, `tensors`, `show`
    and `export` (the .npz names are the record's tensor paths)."""
    npz = os.path.join(work, os.path.basename(record) + ".npz")
    subprocess.run([ckpt, "export", record, npz], check=True, capture_output=True)
    arrays = np.load(npz)
    tensors = _run_json([ckpt, "tensors", record, "--json"])
    times = _times(_run_json([ckpt, "show", record, "item[1]", "--json"]), {})
    module_of = {t["param_id"]: t["path"][len("item[0]."):-len(".param")]
                 for t in tensors if t["role"] == "param"}
    rec = {"state": _run_json([ckpt, "state", record, "--json"]), "params": {}, "moments": {}}
    for t in tensors:
        if t["role"] == "param":
            rec["params"][module_of[t["param_id"]]] = arrays[t["path"]]
        elif t["role"] == "optimizer" and t["state"] == "moment_1":
            base = t["path"].rsplit(".", 1)[0]
            rec["moments"][module_of[t["param_id"]]] = (
                arrays[t["path"]], arrays[base + ".moment_2"], times[base])
    return rec


def _to_torch(array, dt):
    """Burn layout -> torch layout: a Linear weight [in, out] becomes [out, in]. Always a copy: the
    optimizer updates its state in place, which must not write through into the record's arrays."""
    return torch.tensor(array.T if array.ndim == 2 else array, dtype=dt)


def _to_burn(tensor):
    a = tensor.detach().cpu().numpy()
    return np.ascontiguousarray(a.T if a.ndim == 2 else a)


def load_record_into(model, optimizer, rec, cfg):
    """Parameters and Adam state of a record into torch: exp_avg = moment_1, exp_avg_sq = moment_2,
    step = time as a float scalar tensor (torch 1.13 keeps `step` as a tensor)."""
    dt = torch_dtype(cfg)
    model.load_state_dict({BURN_TO_TORCH[k]: _to_torch(v, dt) for k, v in rec["params"].items()})
    params = dict(model.named_parameters())
    for burn, (m1, m2, time) in rec["moments"].items():
        optimizer.state[params[BURN_TO_TORCH[burn]]] = {
            "step": torch.tensor(float(time)), "exp_avg": _to_torch(m1, dt), "exp_avg_sq": _to_torch(m2, dt)}


def snapshot(model, optimizer):
    """The torch state in the record's terms: the same shape as read_record's params and moments."""
    params, moments = {}, {}
    named = dict(model.named_parameters())
    for burn, name in BURN_TO_TORCH.items():
        p = named[name]
        params[burn] = _to_burn(p)
        s = optimizer.state.get(p)
        if s:
            moments[burn] = (_to_burn(s["exp_avg"]), _to_burn(s["exp_avg_sq"]), int(s["step"].item()))
    return {"params": params, "moments": moments}


# ---- the self-check -------------------------------------------------------------------------------

# Tolerances, scale-relative: max|torch - ckpt-train| / max|ckpt-train| per tensor (element-wise
# relative figures mean little for elements near 0; they are printed, not judged). Both sides compute
# in float32 and round differently (module docstring), by a few ulps (6e-8 at 1) per operation, and
# five steps compound them. Measured (torch 1.13, x86-64): parameters <= 3.2e-6, moments <= 4.6e-6
# (8.9e-6 with AdamW at weight decay 0.01), losses <= 1e-6 relative. The bounds leave 6x, 11x and
# 10x for other CPUs' kernels (torch picks its reductions by instruction set). What they catch, measured by mutating this replica: a batch one
# counter off 2.7e-2, unbiased LayerNorm variance 1.5e-3, Adam without eps 3.9e-4, a summed loss
# 0.24 (moments x30), Adam's L2 penalty left out 8.7e-3, AdamW's decay after the update 1.5e-3 with
# the case's weight decay 1.0 (1.3e-5 with 0.01: invisible at this size, hence 1.0). What they do not
# catch: the decimal 0.9 / 0.999 / 1e-5 instead of their f32 values (4e-6 parameters, 8e-6 moment_2).
TOL_PARAM = 2e-5
TOL_MOMENT = 1e-4
TOL_LOSS = 1e-5        # relative, per step: the forward pass alone


def _scale_rel(a, b):
    scale = float(np.max(np.abs(b))) if b.size else 0.0
    return float(np.max(np.abs(a.astype(np.float64) - b))) / scale if scale else 0.0


def _max_abs(a, b):
    return float(np.max(np.abs(a.astype(np.float64) - b)))


def _elem_rel(a, b):
    """Element-wise relative difference over elements not near 0 (|b| >= 1e-3 of the tensor's scale),
    where a relative figure means something."""
    b64 = b.astype(np.float64)
    keep = np.abs(b64) >= 1e-3 * np.max(np.abs(b64))
    return float(np.max(np.abs(a[keep] - b64[keep]) / np.abs(b64[keep]))) if keep.any() else 0.0


def compare(got, want):
    """Per group (params, moment_1, moment_2): max abs, max scale-relative and max element-wise
    relative difference, and a list of structural mismatches (missing tensor, wrong Adam time)."""
    groups = {"params": [], "moment_1": [], "moment_2": []}
    problems = []
    for k, b in want["params"].items():
        groups["params"].append((got["params"][k], b))
    for k, (m1, m2, time) in want["moments"].items():
        if k not in got["moments"]:
            problems.append("no Adam state for " + k)
            continue
        g1, g2, gt = got["moments"][k]
        if gt != time:
            problems.append("%s: Adam time %d, record %d" % (k, gt, time))
        groups["moment_1"].append((g1, m1))
        groups["moment_2"].append((g2, m2))
    stats = {g: {"max_abs": max(_max_abs(a, b) for a, b in pairs),
                 "max_scale_rel": max(_scale_rel(a, b) for a, b in pairs),
                 "max_elem_rel": max(_elem_rel(a, b) for a, b in pairs)}
             for g, pairs in groups.items() if pairs}
    return stats, problems


def _logged_losses(stdout):
    return {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^step=(\d+) loss=(\S+)", stdout, re.M)}


def _train(ckpt_train, out, flags):
    r = subprocess.run([ckpt_train, "--out", out, "--steps", "10", "--checkpoint-every", "5",
                        "--layout", "training-record"] + flags, check=True, capture_output=True, text=True)
    return _logged_losses(r.stdout)


def _loss_errors(losses, logged, first_step):
    return [abs(l - logged[first_step + i]) / abs(logged[first_step + i]) for i, l in enumerate(losses)]


def _replay(cfg, data, rec, start_rec):
    """Trains 5 steps in torch from start_rec (None: ckpt-train's initialisation at counter 0)."""
    model = Mlp(cfg)
    opt = torch_optimizer(model, cfg)
    if start_rec is None:
        init_parameters(model, cfg)
        counter = 0
    else:
        load_record_into(model, opt, start_rec, cfg)
        counter = start_rec["state"]["progress"]["rng_counter"]
    losses = []
    counter = train_steps(model, opt, cfg, data, counter, 5, losses)
    stats, problems = compare(snapshot(model, opt), rec)
    if counter != rec["state"]["progress"]["rng_counter"]:
        problems.append("rng_counter %d, record %d" % (counter, rec["state"]["progress"]["rng_counter"]))
    return stats, problems, losses


def _verdict(stats, loss_err, problems):
    bad = list(problems)
    for group, s in stats.items():
        tol = TOL_PARAM if group == "params" else TOL_MOMENT
        if s["max_scale_rel"] > tol:
            bad.append("%s: scale-relative %.3g > %.0e" % (group, s["max_scale_rel"], tol))
    if max(loss_err) > TOL_LOSS:
        bad.append("loss: relative %.3g > %.0e" % (max(loss_err), TOL_LOSS))
    return bad


def _check_case(args, name, flags):
    work = os.path.join(args.work, name)
    logged = _train(args.ckpt_train, work, flags)
    recs = {n: read_record(args.ckpt, os.path.join(work, "checkpoint", "record-%d.mpk" % n), work)
            for n in (5, 10)}
    cfg = config_from_state(recs[5]["state"])
    data = make_dataset(cfg)
    failures = []
    for label, start, end, first in (("init->5", None, recs[5], 1), ("5->10", recs[5], recs[10], 6)):
        stats, problems, losses = _replay(cfg, data, end, start)
        loss_err = _loss_errors(losses, logged, first)
        print("%s %s: loss rel %.3g" % (name, label, max(loss_err)))
        for group, s in stats.items():
            print("  %-8s max_abs %.3g  max_scale_rel %.3g  max_elem_rel %.3g"
                  % (group, s["max_abs"], s["max_scale_rel"], s["max_elem_rel"]))
        failures += ["%s %s: %s" % (name, label, b) for b in _verdict(stats, loss_err, problems)]
    return failures


CASES = (
    ("adam", ["--optimizer", "adam"]),
    ("adam-l2", ["--optimizer", "adam", "--weight-decay", "0.01"]),
    ("adamw", ["--optimizer", "adamw", "--weight-decay", "1.0"]),  # large: see the tolerances
)


def self_check(args):
    torch.set_num_threads(1)  # a fixed reduction order from run to run
    os.makedirs(args.work, exist_ok=True)
    failures = []
    for name, flags in CASES:
        failures += _check_case(args, name, flags)
    for f in failures:
        print("FAIL " + f, file=sys.stderr)
    return 1 if failures else 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--self-check", action="store_true", required=True,
                    help="compare the replica with ckpt-train's records")
    ap.add_argument("--ckpt", required=True, help="the ckpt program")
    ap.add_argument("--ckpt-train", required=True, help="the ckpt-train program")
    ap.add_argument("--work", required=True, help="scratch directory (one folder per case)")
    return self_check(ap.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
