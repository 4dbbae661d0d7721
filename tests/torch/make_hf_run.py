#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""make_hf_run.py OUTDIR — Hugging Face Trainer output directories, written with real torch, and what
ckpt must report on them (docs/cli-contract.md, "PyTorch and safetensors" and "Runs";
docs/guide/cli/runs.md, "Layouts").

transformers is not installed, so this script writes the files the Trainer writes (transformers 4.40's
layout, `save_steps=10`, `logging_steps=10/2`, `eval_steps=10`), from a small causal LM that really
trains: 30 steps of torch.optim.AdamW in the Trainer's two parameter groups (weight decay on the
weights, none on biases and LayerNorm), gradients clipped to norm 1, a LambdaLR linear warm-up and
decay built on functools.partial (as transformers' get_linear_schedule_with_warmup), the Trainer's
loss bookkeeping (the mean since the last log, rounded to 4 places; a NaN or Inf step loss replaced
by the running average, `logging_nan_inf_filter`). Each OUTDIR/RUN/checkpoint-N holds:

  pytorch_model.bin | model.safetensors | model-0000K-of-00002.safetensors + model.safetensors.index.json
  optimizer.pt        torch.save(optimizer.state_dict())
  scheduler.pt        torch.save(lr_scheduler.state_dict())   (floats, ints, lr_lambdas [{}, {}]: no tensor)
  trainer_state.json  TrainerState.save_to_json: sorted keys, indent 2, NaN written as NaN
  rng_state.pth       torch.save({"python", "numpy", "cpu"}): numpy arrays, a Python tuple — no checkpoint
  training_args.bin   torch.save(argparse.Namespace(...)): a pickled object — no checkpoint
  config.json, generation_config.json

The runs:
  bin          pytorch_model.bin in every checkpoint; the end of training as run_clm.py leaves it:
               trainer.save_model() and trainer.save_state() in OUTDIR/bin itself (a model, a
               training_args.bin and a trainer_state.json with the train summary beside the checkpoints)
  safetensors  checkpoint-30's model is model.safetensors, written by hand from the safetensors spec
  sharded      checkpoint-30's model is two safetensors shards and model.safetensors.index.json
  nan          a weight multiplied by NaN before step 28: checkpoint-30 holds NaN, its eval_loss is NaN

OUTDIR/expected.json: {"torch", "runs": [{"run", "checkpoints": [{"index", "file", "step", "bytes",
"loss", "lr"}], "not_checkpoints": [...], "series": [{"path", "points": [{"checkpoint", "l2",
"max_abs", "nan", "inf", "zeros", "update_l2"}]}], "bisect_nan": {"first_bad", "last_good"},
"loss": {"train/Loss": [{"epoch", "item", "value"}], ...}, "info": [...], "refused": [...]}]}.
A checkpoint's loss and lr are the last values logged at or before its step (runs.md); its bytes
are the sizes of the files it is made of: the model (the index and its shards), optimizer.pt,
scheduler.pt. Statistics are float64 (math.fsum) over the finite elements; update_l2 is
||w_i - w_{i-1}||_2 over the pairs finite on both sides (null at the first checkpoint, and where a
side has non-finite elements, which the contract leaves open).

Without torch the script says so and exits 77 (ctest's Not Run); under CI=true it exits 1.
"""
import argparse
import copy
import functools
import json
import math
import os
import random
import shutil
import struct
import sys

sys.dont_write_bytecode = True  # nothing written into the source tree


def skip(reason):
    # a stale expected.json from an earlier run must not be checked as if this run had made it
    if len(sys.argv) == 2 and os.path.exists(os.path.join(sys.argv[1], "expected.json")):
        os.remove(os.path.join(sys.argv[1], "expected.json"))
    if os.environ.get("CI") == "true":
        print(f"make_hf_run: {reason} (CI=true: a missing dependency is a failure)", file=sys.stderr)
        sys.exit(1)
    print(f"SKIP: {reason}", file=sys.stderr)
    sys.exit(77)


try:
    import numpy as np
    import torch
    import torch.nn as nn
except ImportError as e:  # pragma: no cover - depends on the machine
    skip(f"PyTorch or numpy is not importable by {sys.executable} ({e}); install python3-torch")

torch.set_num_threads(1)

VOCAB, HIDDEN, FFN, LAYERS, SEQ = 32, 8, 16, 2, 8
TRAIN_SAMPLES, EVAL_SAMPLES, BATCH = 40, 8, 4
STEPS_PER_EPOCH = TRAIN_SAMPLES // BATCH
EPOCHS = 3
MAX_STEPS = STEPS_PER_EPOCH * EPOCHS
LOGGING_STEPS, SAVE_STEPS, EVAL_STEPS, WARMUP = 5, 10, 10, 5
LR = 5e-3
NAN_STEP = 28  # the step whose forward pass first sees the NaN weight (nan run)
NAN_WEIGHT = "model.layers.1.mlp.fc2.weight"
TRANSFORMERS = "4.40.0"
ST_DTYPES = {torch.float32: ("F32", "<f4"), torch.float16: ("F16", "<f2"), torch.float64: ("F64", "<f8")}


# ---------------------------------------------------------------------------------------------
# The model and the Trainer's loop


class MLPBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(HIDDEN, FFN)
        self.fc2 = nn.Linear(FFN, HIDDEN)

    def forward(self, x):
        return self.fc2(torch.nn.functional.gelu(self.fc1(x)))


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.mlp = MLPBlock()

    def forward(self, x):
        return x + self.mlp(x)


class Body(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed_tokens = nn.Embedding(VOCAB, HIDDEN)
        self.layers = nn.ModuleList([Layer() for _ in range(LAYERS)])
        self.norm = nn.LayerNorm(HIDDEN)

    def forward(self, ids):
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x)


class TinyCausalLM(nn.Module):
    """model.embed_tokens, model.layers.N.mlp.fc1/fc2, model.norm, lm_head: the names of a Hugging
    Face causal LM's state dict (untied head)."""

    def __init__(self):
        super().__init__()
        self.model = Body()
        self.lm_head = nn.Linear(HIDDEN, VOCAB, bias=False)

    def forward(self, ids):
        logits = self.lm_head(self.model(ids))
        return torch.nn.functional.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), ids[:, 1:].reshape(-1))


def dataset(g, n):
    """Sequences of a noisy affine recurrence: something a model can learn in 30 steps."""
    start = torch.randint(0, VOCAB, (n, 1), generator=g)
    rows = [start]
    for _ in range(SEQ - 1):
        nxt = (rows[-1] * 5 + 3) % VOCAB
        noise = torch.rand(n, 1, generator=g) < 0.1
        rows.append(torch.where(noise, torch.randint(0, VOCAB, (n, 1), generator=g), nxt))
    return torch.cat(rows, dim=1)


def linear_lr_lambda(current_step, *, num_warmup_steps, num_training_steps):
    """transformers' _get_linear_schedule_with_warmup_lr_lambda."""
    if current_step < num_warmup_steps:
        return float(current_step) / float(max(1, num_warmup_steps))
    return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))


def decay_groups(model):
    """Trainer.create_optimizer: weight decay on every weight but biases and LayerNorm's."""
    no_decay = {n for n, _ in model.named_parameters() if n.endswith("bias") or ".norm." in n}
    decay = [p for n, p in model.named_parameters() if n not in no_decay]
    rest = [p for n, p in model.named_parameters() if n in no_decay]
    return [{"params": decay, "weight_decay": 0.01}, {"params": rest, "weight_decay": 0.0}]


def training_args(output_dir):
    return argparse.Namespace(
        output_dir=output_dir, overwrite_output_dir=False, do_train=True, do_eval=True, eval_strategy="steps",
        per_device_train_batch_size=BATCH, per_device_eval_batch_size=BATCH, gradient_accumulation_steps=1,
        learning_rate=LR, weight_decay=0.01, adam_beta1=0.9, adam_beta2=0.999, adam_epsilon=1e-8, max_grad_norm=1.0,
        num_train_epochs=float(EPOCHS), max_steps=-1, lr_scheduler_type="linear", warmup_steps=WARMUP,
        logging_steps=LOGGING_STEPS, logging_nan_inf_filter=True, save_steps=SAVE_STEPS, eval_steps=EVAL_STEPS,
        save_safetensors=False, seed=42, report_to=[], run_name=output_dir)


def train(nan_at=None):
    """Runs the Trainer's loop; returns {step: snapshot} at every save_steps. A snapshot holds the
    model, optimizer and scheduler state dicts (deep copies), the log history so far, the RNG states
    and the epoch."""
    random.seed(42)
    np.random.seed(42)
    torch.manual_seed(42)
    g = torch.Generator().manual_seed(1234)
    train_data = dataset(g, TRAIN_SAMPLES)
    eval_data = dataset(g, EVAL_SAMPLES)
    model = TinyCausalLM()
    opt = torch.optim.AdamW(decay_groups(model), lr=LR, betas=(0.9, 0.999), eps=1e-8)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, functools.partial(linear_lr_lambda, num_warmup_steps=WARMUP, num_training_steps=MAX_STEPS))
    log_history = []
    snapshots = {}
    tr_loss = 0.0
    last_logged = 0
    global_step = 0
    grad_norm = None
    for epoch in range(EPOCHS):
        order = torch.randperm(TRAIN_SAMPLES, generator=g)
        for b in range(STEPS_PER_EPOCH):
            model.train()
            if nan_at is not None and global_step + 1 == nan_at:
                with torch.no_grad():
                    dict(model.named_parameters())[NAN_WEIGHT].mul_(float("nan"))
            ids = train_data[order[b * BATCH:(b + 1) * BATCH]]
            loss = model(ids)
            loss.backward()
            step_loss = loss.item()
            if math.isnan(step_loss) or math.isinf(step_loss):
                # logging_nan_inf_filter: the average of the losses since the last log instead
                tr_loss = tr_loss + tr_loss / (1 + global_step - last_logged)
            else:
                tr_loss = tr_loss + step_loss
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
            opt.step()
            sched.step()
            opt.zero_grad()
            global_step += 1
            epoch_f = epoch + (b + 1) / STEPS_PER_EPOCH
            if global_step % LOGGING_STEPS == 0:
                log_history.append({"epoch": round(epoch_f, 4), "grad_norm": grad_norm,
                                    "learning_rate": sched.get_last_lr()[0],
                                    "loss": round(tr_loss / (global_step - last_logged), 4), "step": global_step})
                tr_loss = 0.0
                last_logged = global_step
            if global_step % EVAL_STEPS == 0:
                model.eval()
                with torch.no_grad():
                    losses = [model(eval_data[k:k + BATCH]).item() for k in range(0, EVAL_SAMPLES, BATCH)]
                log_history.append({"epoch": round(epoch_f, 4), "eval_loss": sum(losses) / len(losses),
                                    "eval_runtime": 0.0123, "eval_samples_per_second": 650.4,
                                    "eval_steps_per_second": 162.6, "step": global_step})
            if global_step % SAVE_STEPS == 0:
                snapshots[global_step] = {
                    "model": copy.deepcopy(model.state_dict()),
                    "optimizer": copy.deepcopy(opt.state_dict()),
                    "scheduler": copy.deepcopy(sched.state_dict()),
                    "log_history": copy.deepcopy(log_history),
                    "epoch": round(epoch_f, 4),
                    "rng": {"python": random.getstate(), "numpy": np.random.get_state(),
                            "cpu": torch.random.get_rng_state()},
                }
    return snapshots


# ---------------------------------------------------------------------------------------------
# The files of a checkpoint


def trainer_state(snap, step):
    params = sum(t.numel() for t in snap["model"].values())
    return {
        "best_metric": None, "best_model_checkpoint": None, "epoch": snap["epoch"], "eval_steps": EVAL_STEPS,
        "global_step": step, "is_hyper_param_search": False, "is_local_process_zero": True,
        "is_world_process_zero": True, "log_history": snap["log_history"], "logging_steps": LOGGING_STEPS,
        "max_steps": MAX_STEPS, "num_input_tokens_seen": 0, "num_train_epochs": EPOCHS, "save_steps": SAVE_STEPS,
        "stateful_callbacks": {"TrainerControl": {"args": {
            "should_epoch_stop": False, "should_evaluate": False, "should_log": False, "should_save": True,
            "should_training_stop": step == MAX_STEPS}, "attributes": {}}},
        "total_flos": float(6 * params * SEQ * BATCH * step), "train_batch_size": BATCH, "trial_name": None,
        "trial_params": None,
    }


def write_json(path, doc):
    # TrainerState.save_to_json and PretrainedConfig.to_json_file: sorted keys, indent 2; NaN stays NaN
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")


def config_json():
    return {"architectures": ["TinyCausalLM"], "hidden_size": HIDDEN, "intermediate_size": FFN,
            "model_type": "tiny-causal-lm", "num_hidden_layers": LAYERS, "tie_word_embeddings": False,
            "torch_dtype": "float32", "transformers_version": TRANSFORMERS, "vocab_size": VOCAB}


def safetensors_bytes(tensors):
    """The safetensors format (github.com/huggingface/safetensors, "Format"): u64 little-endian header
    length, the JSON header {"__metadata__": {...}, NAME: {"dtype", "shape", "data_offsets": [begin,
    end]}} padded with spaces to 8 bytes, then the raw little-endian bytes, tensors in name order."""
    header = {"__metadata__": {"format": "pt"}}
    payload = []
    at = 0
    for name in sorted(tensors):
        t = tensors[name].detach().contiguous()
        dtype, descr = ST_DTYPES[t.dtype]
        data = t.numpy().astype(descr, copy=False).tobytes()
        header[name] = {"dtype": dtype, "shape": list(t.shape), "data_offsets": [at, at + len(data)]}
        payload.append(data)
        at += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(payload)


def read_safetensors(path):
    """Our own reading back (independent of ckpt): {name: numpy array}."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + n])
    header.pop("__metadata__", None)
    body = data[8 + n:]
    descr = {v[0]: v[1] for v in ST_DTYPES.values()}
    out = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        out[name] = np.frombuffer(body[begin:end], dtype=descr[info["dtype"]]).reshape(info["shape"])
    return out


def write_model(ckdir, state_dict, form):
    """Writes the model as the Trainer's save_pretrained does; returns the files it wrote (model first)."""
    if form == "bin":
        path = os.path.join(ckdir, "pytorch_model.bin")
        torch.save(state_dict, path)
        return [path]
    if form == "safetensors":
        path = os.path.join(ckdir, "model.safetensors")
        with open(path, "wb") as f:
            f.write(safetensors_bytes(state_dict))
        return [path]
    assert form == "sharded"
    names = list(state_dict)
    first = [n for n in names if n.startswith("model.embed_tokens.") or n.startswith("model.layers.0.")]
    shards = [first, [n for n in names if n not in first]]
    files, weight_map = [], {}
    for k, shard in enumerate(shards):
        fname = f"model-{k + 1:05d}-of-{len(shards):05d}.safetensors"
        with open(os.path.join(ckdir, fname), "wb") as f:
            f.write(safetensors_bytes({n: state_dict[n] for n in shard}))
        files.append(os.path.join(ckdir, fname))
        weight_map.update({n: fname for n in shard})
    total = sum(t.numel() * t.element_size() for t in state_dict.values())
    index = os.path.join(ckdir, "model.safetensors.index.json")
    write_json(index, {"metadata": {"total_size": total}, "weight_map": dict(sorted(weight_map.items()))})
    return [index] + files


def write_checkpoint(run_dir, step, snap, form):
    ckdir = os.path.join(run_dir, f"checkpoint-{step}")
    os.makedirs(ckdir)
    model_files = write_model(ckdir, snap["model"], form)
    write_json(os.path.join(ckdir, "config.json"), config_json())
    write_json(os.path.join(ckdir, "generation_config.json"), {"_from_model_config": True,
                                                                "transformers_version": TRANSFORMERS})
    torch.save(snap["optimizer"], os.path.join(ckdir, "optimizer.pt"))
    torch.save(snap["scheduler"], os.path.join(ckdir, "scheduler.pt"))
    torch.save(snap["rng"], os.path.join(ckdir, "rng_state.pth"))
    torch.save(training_args(run_dir), os.path.join(ckdir, "training_args.bin"))
    write_json(os.path.join(ckdir, "trainer_state.json"), trainer_state(snap, step))
    return model_files + [os.path.join(ckdir, "optimizer.pt"), os.path.join(ckdir, "scheduler.pt")]


def write_end_of_training(run_dir, snap):
    """run_clm.py after trainer.train(): save_model() (the model, config, training_args.bin into the
    output directory) and save_state() (trainer_state.json with the train summary logged last)."""
    torch.save(snap["model"], os.path.join(run_dir, "pytorch_model.bin"))
    write_json(os.path.join(run_dir, "config.json"), config_json())
    torch.save(training_args(run_dir), os.path.join(run_dir, "training_args.bin"))
    state = trainer_state(snap, MAX_STEPS)
    losses = [e["loss"] for e in snap["log_history"] if "loss" in e]
    state["log_history"] = state["log_history"] + [{
        "epoch": snap["epoch"], "step": MAX_STEPS, "total_flos": state["total_flos"],
        "train_loss": sum(losses) / len(losses), "train_runtime": 1.234, "train_samples_per_second": 97.2,
        "train_steps_per_second": 24.3}]
    write_json(os.path.join(run_dir, "trainer_state.json"), state)
    write_json(os.path.join(run_dir, "train_results.json"), {"epoch": snap["epoch"], "train_loss": losses[-1]})


# ---------------------------------------------------------------------------------------------
# What ckpt must report


def tensors_of(snap):
    """(path, tensor) of a checkpoint in ckpt's paths: the state dict's names, then optimizer.pt's
    `state.I.NAME` (the key path as written); scheduler.pt holds no tensor."""
    out = [(n, t) for n, t in snap["model"].items()]
    for i, st in snap["optimizer"]["state"].items():
        for k, v in st.items():
            if isinstance(v, torch.Tensor):
                out.append((f"state.{i}.{k}", v))
    return out


def point_stats(t):
    x = t.detach().reshape(-1).to(torch.float64).tolist()
    finite = [v for v in x if math.isfinite(v)]
    return {"l2": math.sqrt(math.fsum(v * v for v in finite)), "max_abs": max((abs(v) for v in finite), default=0.0),
            "nan": sum(1 for v in x if math.isnan(v)), "inf": sum(1 for v in x if math.isinf(v)),
            "zeros": sum(1 for v in x if v == 0)}


def update_l2(prev, cur):
    a = prev.detach().reshape(-1).to(torch.float64).tolist()
    b = cur.detach().reshape(-1).to(torch.float64).tolist()
    if len(a) != len(b) or not all(map(math.isfinite, a + b)):
        return None  # a non-finite side: the contract leaves the value open
    return math.sqrt(math.fsum((y - x) ** 2 for x, y in zip(a, b)))


def value_at(log, step, key):
    value = None
    for e in log:
        if e["step"] <= step and key in e:
            value = e[key]
    return value


def json_number(v):
    return None if v is None or not math.isfinite(v) else v


def loss_series(log):
    """`ckpt loss --json`'s series of a Trainer's log_history: epochs floored, items counted per epoch."""
    out = {}
    for key, name in (("loss", "train/Loss"), ("learning_rate", "train/Learning_Rate"), ("eval_loss", "valid/Loss")):
        points = []
        for e in log:
            if key not in e:
                continue
            epoch = int(math.floor(e["epoch"]))
            item = points[-1]["item"] + 1 if points and points[-1]["epoch"] == epoch else 0
            points.append({"epoch": epoch, "item": item, "value": json_number(e[key])})
        out[name] = points
    return out


def expected_run(outdir, name, snapshots, forms):
    run_dir = os.path.join(outdir, name)
    os.makedirs(run_dir)
    steps = sorted(snapshots)
    checkpoints, series, not_checkpoints, info, refused = [], {}, [], [], []
    for index, step in enumerate(steps):
        snap = snapshots[step]
        files = write_checkpoint(run_dir, step, snap, forms[index])
        log = snap["log_history"]
        checkpoints.append({"index": index, "file": os.path.relpath(files[0], run_dir), "step": step,
                            "bytes": sum(os.path.getsize(f) for f in files),
                            "loss": json_number(value_at(log, step, "loss")),
                            "lr": json_number(value_at(log, step, "learning_rate")),
                            "files": [os.path.relpath(f, run_dir) for f in files]})
        for extra in ("rng_state.pth", "training_args.bin"):
            not_checkpoints.append(f"checkpoint-{step}/{extra}")
        prev = snapshots[steps[index - 1]] if index else None
        prev_tensors = dict(tensors_of(prev)) if prev else {}
        for path, t in tensors_of(snap):
            p = {"checkpoint": index}
            p.update(point_stats(t))
            p["update_l2"] = update_l2(prev_tensors[path], t) if path in prev_tensors else None
            series.setdefault(path, []).append(p)
        if forms[index] == "sharded":
            total = sum(t.numel() * t.element_size() for t in snap["model"].values())
            info.append({"file": os.path.relpath(files[0], run_dir), "kind": "safetensors", "recorder": "Safetensors",
                         "precision": "full", "tensors": len(snap["model"]), "tensor_bytes": total,
                         "paths": sorted(snap["model"])})
    # optimizer.pt of the last checkpoint, by itself
    last = snapshots[steps[-1]]
    opt_tensors = tensors_of({"model": {}, "optimizer": last["optimizer"]})
    info.append({"file": f"checkpoint-{steps[-1]}/optimizer.pt", "kind": "torch_optimizer_state", "recorder": "PyTorch",
                 "tensors": len(opt_tensors), "tensor_bytes": sum(t.numel() * t.element_size() for _, t in opt_tensors),
                 "paths": [p for p, _ in opt_tensors]})
    # what the safe machine refuses, naming the global
    refused.append({"file": f"checkpoint-{steps[0]}/training_args.bin", "names": ["argparse", "Namespace"]})
    first_bad = last_good = None
    for c in checkpoints:
        bad = sorted(path for path, points in series.items() for p in points
                     if p["checkpoint"] == c["index"] and p["nan"] > 0)
        if bad:
            first_bad = {"index": c["index"], "file": c["file"], "step": c["step"], "paths": bad}
            break
        last_good = {"index": c["index"], "file": c["file"], "step": c["step"]}
    for points in series.values():
        for p in points:
            if p["nan"] or p["inf"]:
                p["update_l2"] = None
    return run_dir, {
        "run": name, "checkpoints": checkpoints, "not_checkpoints": not_checkpoints,
        "series": [{"path": k, "points": v} for k, v in series.items()],
        "bisect_nan": {"first_bad": first_bad, "last_good": last_good},
        "loss": loss_series(snapshots[steps[-1]]["log_history"]), "info": info, "refused": refused,
    }


# ---------------------------------------------------------------------------------------------
# The generator's own checks (torch and our safetensors reader, no ckpt)


def self_check(run_dir, run, snapshots):
    steps = sorted(snapshots)
    for c, step in zip(run["checkpoints"], steps):
        want = snapshots[step]["model"]
        model_file = os.path.join(run_dir, c["file"])
        if model_file.endswith(".bin"):
            got = {k: v.numpy() for k, v in torch.load(model_file).items()}
        elif model_file.endswith(".index.json"):
            with open(model_file) as f:
                index = json.load(f)
            got = {}
            for shard in sorted(set(index["weight_map"].values())):
                part = read_safetensors(os.path.join(os.path.dirname(model_file), shard))
                for k in part:
                    if index["weight_map"][k] != shard:
                        raise SystemExit(f"{model_file}: {k} is in {shard}, the index says {index['weight_map'][k]}")
                got.update(part)
            if index["metadata"]["total_size"] != sum(a.nbytes for a in got.values()):
                raise SystemExit(f"{model_file}: total_size {index['metadata']['total_size']} is not the tensors' bytes")
        else:
            got = read_safetensors(model_file)
        if sorted(got) != sorted(want):
            raise SystemExit(f"{model_file}: names {sorted(got)} are not the state dict's {sorted(want)}")
        for k, t in want.items():
            if not np.array_equal(got[k], t.numpy(), equal_nan=True):
                raise SystemExit(f"{model_file}: {k} differs from the model's")
        opt = torch.load(os.path.join(run_dir, f"checkpoint-{step}", "optimizer.pt"))
        if [[i for i in g["params"]] for g in opt["param_groups"]] != \
                [[i for i in g["params"]] for g in snapshots[step]["optimizer"]["param_groups"]]:
            raise SystemExit(f"checkpoint-{step}/optimizer.pt: param_groups differ")
        sched = torch.load(os.path.join(run_dir, f"checkpoint-{step}", "scheduler.pt"))
        if sched["last_epoch"] != step or sched["lr_lambdas"] != [{}] * len(opt["param_groups"]):
            raise SystemExit(f"checkpoint-{step}/scheduler.pt: {sched}")
        with open(os.path.join(run_dir, f"checkpoint-{step}", "trainer_state.json")) as f:
            state = json.load(f)  # Python's json reads NaN, as transformers does when it resumes
        if state["global_step"] != step:
            raise SystemExit(f"checkpoint-{step}/trainer_state.json: global_step {state['global_step']}")
    for t in run["not_checkpoints"]:
        try:
            torch.load(os.path.join(run_dir, t), weights_only=True)
        except Exception:  # noqa: BLE001 - torch's safe loader refuses them: what ckpt's must do too
            continue
        raise SystemExit(f"{t}: torch.load(weights_only=True) accepted it; it should hold objects a safe reader refuses")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    outdir = sys.argv[1]
    if os.path.exists(outdir):
        shutil.rmtree(outdir)
    os.makedirs(outdir)
    clean = train()
    diverged = train(nan_at=NAN_STEP)
    steps = sorted(clean)
    assert steps == [10, 20, 30], steps
    # the two runs are one run up to the NaN
    for k, t in clean[20]["model"].items():
        assert torch.equal(t, diverged[20]["model"][k]), k
    assert any(t.isnan().any() for t in diverged[30]["model"].values())
    runs = []
    for name, snaps, forms in (("bin", clean, ["bin", "bin", "bin"]),
                               ("safetensors", clean, ["bin", "bin", "safetensors"]),
                               ("sharded", clean, ["bin", "bin", "sharded"]),
                               ("nan", diverged, ["bin", "bin", "bin"])):
        run_dir, run = expected_run(outdir, name, snaps, forms)
        if name == "bin":
            write_end_of_training(run_dir, snaps[steps[-1]])
        self_check(run_dir, run, snaps)
        runs.append(run)
    doc = {"torch": torch.__version__, "python": sys.version.split()[0], "runs": runs}
    with open(os.path.join(outdir, "expected.json"), "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)
        f.write("\n")
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(outdir) for f in fs)
    print(f"make_hf_run: {len(runs)} runs, {total} bytes in {outdir}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
