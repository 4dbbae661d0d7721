#!/usr/bin/python3
# SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
# SPDX-License-Identifier: GPL-3.0-or-later
"""check_crossframework.py CKPT CKPT_TRAIN WORK — Burn <-> PyTorch with real PyTorch (issue 46).

The oracle is Debian's python3-torch: torch.save writes the PyTorch checkpoints, torch.load reads
what `ckpt export` wrote, torch's load_state_dict(strict=True) and torch.optim.Adam/AdamW's
load_state_dict take its parts, and torch.optim steps from them. The model on the torch side is
ckpt_train_replica.py's, our replica of ckpt-train's MLP (held to ckpt-train by its --self-check);
the arithmetic of a step (Linear, LayerNorm, autograd, Adam) is torch's own.

For Adam, Adam with an L2 penalty and AdamW with decoupled decay:
  export  ckpt-train's record-5 -> `ckpt export --what all` -> torch.load -> the values equal the
          record's (Linear weights transposed), the optimizer takes the state and the record's
          hyper-parameters -> one more step in torch against `ckpt-train --resume record-5 --steps 6`;
  import  torch trains 5 steps from its own initialisation -> torch.save -> `ckpt import record-5
          t5.pt --optimizer` -> the record holds torch's tensors and moments bit for bit, Adam's time
          is torch's step -> `ckpt diff t5.pt imported` matches every tensor, unchanged, weights
          transposed -> `ckpt-train --resume imported --steps 6` against one more step in torch.
One step on each side agrees to float32 rounding: ckpt_train_replica's tolerances (scale-relative
2e-5 on parameters, 1e-4 on moments), which that module measures and justifies (5 steps there:
the same two implementations round differently, by a few ulps per operation). Also --map both ways,
and the errors a user meets (an unmapped name, a shape that fits no layout).

torch 1.13 (Debian bookworm) reads no float in its weights_only loader (no BINFLOAT opcode): it
cannot load its own optimizer state dict so. There, the checkpoint with the optimizer is checked by
its opcodes and globals against that loader's lists (all allowed but BINFLOAT, which torch >= 2.0's
loader reads) and loaded with torch.load(weights_only=False); with torch >= 2.0, weights_only=True.
Without torch: exit 77 (Not Run); under CI=true, 1.
"""
import json
import os
import pickletools
import shutil
import subprocess
import sys
import zipfile

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

try:
    import numpy as np
    import torch
    import ckpt_train_replica as R
except ImportError as e:  # pragma: no cover - depends on the machine
    if os.environ.get("CI") == "true":
        print(f"check_crossframework: {e} (CI=true: a missing dependency is a failure)", file=sys.stderr)
        sys.exit(1)
    print(f"check_crossframework: {e}: not run", file=sys.stderr)
    sys.exit(SKIP)

FAILURES = []


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print("FAIL " + what, file=sys.stderr)


def run(*cmd, ok=True):
    r = subprocess.run([str(c) for c in cmd], capture_output=True, text=True)
    if ok and r.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: exit {r.returncode}\n{r.stderr}")
    return r


# ---- torch's safe loader ----------------------------------------------------------------------------

def weights_only_opcodes():
    """The opcodes torch's weights_only unpickler of this torch version knows (its module's names)."""
    import torch._weights_only_unpickler as w
    return {name for name in dir(w) if name.isupper() and isinstance(getattr(w, name), bytes)}


def safe_load(path):
    """torch.load(weights_only=True) where this torch can; on torch 1.13 the opcodes and globals are
    checked against its safe loader's lists (only BINFLOAT added: floats, which 1.13 cannot read at
    all) and the file is loaded with weights_only=False."""
    try:
        return torch.load(path, weights_only=True)
    except Exception as e:  # torch 1.13: "Unsupported operand 71" (BINFLOAT)
        check("operand 71" in str(e), f"{path}: torch.load(weights_only=True) failed otherwise than on BINFLOAT: {e}")
    import torch._weights_only_unpickler as w
    allowed = weights_only_opcodes() | {"BINFLOAT"}
    with zipfile.ZipFile(path) as z:
        pkl = z.read(next(n for n in z.namelist() if n.endswith("/data.pkl")))
    for op, arg, _ in pickletools.genops(pkl):
        check(op.name in allowed, f"{path}: opcode {op.name} is not one torch's safe loader reads")
        if op.name == "GLOBAL":
            name = arg.replace(" ", ".")
            check(name in w._get_allowed_globals(), f"{path}: global {name} is not allowed by torch's safe loader")
    return torch.load(path, weights_only=False)


# ---- both directions ----------------------------------------------------------------------------

def record(ckpt, path, work):
    return R.read_record(ckpt, path, work)


def torch_state(model, optimizer):
    return R.snapshot(model, optimizer)


def equal_exactly(got, want, what):
    for k, b in want["params"].items():
        check(np.array_equal(got["params"][k], b), f"{what}: parameter {k} differs")
    for k, (m1, m2, t) in want["moments"].items():
        g1, g2, gt = got["moments"][k]
        check(np.array_equal(g1, m1) and np.array_equal(g2, m2), f"{what}: moments of {k} differ")
        check(gt == t, f"{what}: step of {k} is {gt}, expected {t}")


def within_rounding(got, want, what):
    stats, problems = R.compare(got, want)
    for p in problems:
        check(False, f"{what}: {p}")
    for group, s in stats.items():
        tol = R.TOL_PARAM if group == "params" else R.TOL_MOMENT
        print(f"  {what}: {group} max_abs {s['max_abs']:.3g} scale-relative {s['max_scale_rel']:.3g} (tolerance {tol:.0e})")
        check(s["max_scale_rel"] <= tol, f"{what}: {group} differ by {s['max_scale_rel']:.3g} > {tol:.0e}")


def export_direction(args, case, work, burn, cfg, data):
    """Burn -> PyTorch: ckpt-train's record-5 exported, loaded, stepped once in torch."""
    r5 = os.path.join(burn, "checkpoint", "record-5.mpk")
    rec5 = record(args.ckpt, r5, work)
    params_pt = os.path.join(work, "r5-params.pt")
    run(args.ckpt, "export", r5, params_pt)
    sd = torch.load(params_pt, weights_only=True)  # a state dict holds no float: torch 1.13 reads it safely
    model = R.Mlp(cfg)
    model.load_state_dict(sd, strict=True)
    all_pt = os.path.join(work, "r5-all.pt")
    run(args.ckpt, "export", r5, all_pt, "--what", "all")
    ck = safe_load(all_pt)
    check(sorted(ck) == ["model", "optimizer", "step"], f"{case}: export --what all has keys {sorted(ck)}")
    check(ck["step"] == 5, f"{case}: exported step {ck['step']}, expected 5")
    model = R.Mlp(cfg)
    model.load_state_dict(ck["model"], strict=True)
    opt = R.torch_optimizer(model, cfg)
    opt.load_state_dict(ck["optimizer"])
    g = opt.param_groups[0]
    check((g["lr"], g["betas"], g["eps"], g["weight_decay"]) == (cfg.lr, (cfg.beta_1, cfg.beta_2), cfg.epsilon, cfg.weight_decay),
          f"{case}: exported hyper-parameters {g}")
    equal_exactly(torch_state(model, opt), rec5, f"{case} export")
    counter = R.train_steps(model, opt, cfg, data, rec5["state"]["progress"]["rng_counter"], 1)
    resumed = os.path.join(work, "burn-resumed")
    run(args.ckpt_train, "--resume", r5, "--out", resumed, "--steps", 6)
    rec6 = record(args.ckpt, os.path.join(resumed, "checkpoint", "record-6.mpk"), work)
    check(counter == rec6["state"]["progress"]["rng_counter"], f"{case}: batch counters differ after the step")
    within_rounding(torch_state(model, opt), rec6, f"{case} export+step")


def diff_matches_all(args, case, a, b, extra=()):
    d = json.loads(run(args.ckpt, "diff", a, b, "--json", *extra).stdout)
    s = d["summary"]
    check(d["across_frameworks"] and s["added"] == 0 and s["removed"] == 0 and s["changed"] == 0,
          f"{case}: diff {os.path.basename(a)} {os.path.basename(b)}: {s}")
    for e in d["entries"]:
        # the two Linear weights and their moments (param_id: the parameter's PyTorch name) are transposed
        want = "transposed" if (e["param_id"] or "").endswith(("input.weight", "output.weight")) else "same"
        check(e["match"] == "framework" and e["layout"] == want, f"{case}: diff entry {e['path']}: {e['match']} {e['layout']}, expected {want}")
    check(d["state"] == [], f"{case}: step counts differ: {d['state']}")
    return d


def import_direction(args, case, work, burn, cfg, data):
    """PyTorch -> Burn: trained in torch from its own initialisation, imported, resumed by ckpt-train."""
    torch.manual_seed(1)
    model = R.Mlp(cfg)  # torch's own initialisation: nothing of ckpt-train's
    opt = R.torch_optimizer(model, cfg)
    counter = R.train_steps(model, opt, cfg, data, 0, 5)
    t5 = os.path.join(work, "t5.pt")
    torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 0}, t5)
    r5 = os.path.join(burn, "checkpoint", "record-5.mpk")
    imported = os.path.join(work, "imported-5.mpk")
    run(args.ckpt, "import", r5, t5, "-o", imported, "--optimizer")
    equal_exactly(record(args.ckpt, imported, work), torch_state(model, opt), f"{case} import")
    diff_matches_all(args, case, t5, imported)
    resumed = os.path.join(work, "torch-resumed")
    run(args.ckpt_train, "--resume", imported, "--out", resumed, "--steps", 6)
    counter = R.train_steps(model, opt, cfg, data, counter, 1)
    rec6 = record(args.ckpt, os.path.join(resumed, "checkpoint", "record-6.mpk"), work)
    check(counter == rec6["state"]["progress"]["rng_counter"], f"{case}: batch counters differ after the step")
    within_rounding(torch_state(model, opt), rec6, f"{case} import+step")
    return t5, model, opt


def renamed_and_errors(args, work, burn, t5, model, opt):
    """--map both ways, and the messages of an import that cannot be made."""
    r5 = os.path.join(burn, "checkpoint", "record-5.mpk")
    prefixed = os.path.join(work, "net.pt")
    torch.save({"state_dict": {"net." + k: v for k, v in model.state_dict().items()}, "optimizer": opt.state_dict()}, prefixed)
    out = os.path.join(work, "mapped.mpk")
    r = run(args.ckpt, "import", r5, prefixed, "-o", out, ok=False)
    check(r.returncode == 1 and "net.input.weight" in r.stderr and "--map" in r.stderr and r.stderr.count("\n") == 1,
          f"an unmapped name: exit {r.returncode}, {r.stderr!r}")
    check(not os.path.exists(out), "a failed import left its output behind")
    run(args.ckpt, "import", r5, prefixed, "-o", out, "--optimizer", "--map", r"^net\.=")
    diff_matches_all(args, "mapped", prefixed, out, ("--map", r"^net\.="))
    exported = os.path.join(work, "mapped-export.pt")
    run(args.ckpt, "export", out, exported, "--map", "^=net.")
    check(sorted(torch.load(exported, weights_only=True)) == sorted("net." + k for k in model.state_dict()), "export --map names")
    # the step count is torch's, not the target's: 3 steps in torch into a record of step 5
    cfg = R.config_from_state(json.loads(run(args.ckpt, "state", r5, "--json").stdout))
    short = R.Mlp(cfg)
    short_opt = R.torch_optimizer(short, cfg)
    R.train_steps(short, short_opt, cfg, R.make_dataset(cfg), 0, 3)
    t3 = os.path.join(work, "t3.pt")
    torch.save({"model": short.state_dict(), "optimizer": short_opt.state_dict()}, t3)
    run(args.ckpt, "import", r5, t3, "-o", os.path.join(work, "imported-3.mpk"), "--optimizer")
    equal_exactly(record(args.ckpt, os.path.join(work, "imported-3.mpk"), work), torch_state(short, short_opt), "import of step 3")
    # param_groups that do not follow parameters(): the state cannot be linked, so --optimizer refuses
    grouped = R.Mlp(cfg)
    p = dict(grouped.named_parameters())
    grouped_opt = torch.optim.Adam([{"params": [p["input.bias"], p["norm.weight"], p["norm.bias"]]},
                                    {"params": [p["input.weight"], p["output.weight"], p["output.bias"]]}])
    R.train_steps(grouped, grouped_opt, cfg, R.make_dataset(cfg), 0, 1)
    unlinked = os.path.join(work, "unlinked.pt")
    torch.save({"model": grouped.state_dict(), "optimizer": grouped_opt.state_dict()}, unlinked)
    r = run(args.ckpt, "import", r5, unlinked, "-o", out + "4", "--optimizer", ok=False)
    check(r.returncode == 1 and "linked to no parameter" in r.stderr and r.stderr.count("\n") == 1,
          f"an unlinked optimizer state: exit {r.returncode}, {r.stderr!r}")
    run(args.ckpt, "import", r5, unlinked, "-o", out + "5")  # the weights alone still go in
    wrong = os.path.join(work, "wrong.pt")
    sd = dict(model.state_dict())
    sd["input.weight"] = torch.zeros(5, 3)
    torch.save(sd, wrong)
    r = run(args.ckpt, "import", r5, wrong, "-o", out + "2", ok=False)
    check(r.returncode == 1 and "[5, 3]" in r.stderr and "[8, 32]" in r.stderr and r.stderr.count("\n") == 1,
          f"a shape that fits no layout: exit {r.returncode}, {r.stderr!r}")
    r = run(args.ckpt, "import", r5, prefixed, "-o", out + "3", "--map", "(=x", ok=False)
    check(r.returncode == 2 and "regular expression" in r.stderr, f"a bad --map: exit {r.returncode}, {r.stderr!r}")


CASES = (
    ("adam", ["--optimizer", "adam"]),
    ("adam-l2", ["--optimizer", "adam", "--weight-decay", "0.01"]),
    ("adamw", ["--optimizer", "adamw", "--weight-decay", "1.0"]),
)


def main():
    if len(sys.argv) != 4:
        print(__doc__.split("\n")[0], file=sys.stderr)
        return 2

    class Args:
        ckpt, ckpt_train, work = sys.argv[1:4]

    torch.set_num_threads(1)
    shutil.rmtree(Args.work, ignore_errors=True)
    os.makedirs(Args.work)
    print(f"torch {torch.__version__}")
    for case, flags in CASES:
        work = os.path.join(Args.work, case)
        os.makedirs(work)
        burn = os.path.join(work, "burn")
        run(Args.ckpt_train, "--out", burn, "--steps", 5, "--checkpoint-every", 5, "--layout", "training-record", *flags)
        cfg = R.config_from_state(json.loads(run(Args.ckpt, "state", os.path.join(burn, "checkpoint", "record-5.mpk"), "--json").stdout))
        data = R.make_dataset(cfg)
        export_direction(Args, case, work, burn, cfg, data)
        t5, model, opt = import_direction(Args, case, work, burn, cfg, data)
        if case == "adam":
            renamed_and_errors(Args, work, burn, t5, model, opt)
    print(f"check_crossframework: {len(FAILURES)} failures")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
