// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt`: the command-line twin of the desktop app (cli-contract.md). Thin glue: parse arguments,
// call core, print. Links only ckpt_core.
#include "app/cli/args.h"
#include "app/cli/commands.h"
#include "app/cli/processheap.h"
#include "core/io/bytes.h"
#include "core/util/lastresort.h"

#include <ckpt_version.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace {

const char* kUsage = R"(usage: ckpt COMMAND [ARGS] [--json]

Inspect, validate, convert and edit Burn/Ruda training checkpoints and ipfrs GradientCheckpoints.

commands:
  info FILE                     what the file is: kind, recorder, precision, metadata, counts
  tree FILE [--depth N]         the record as an order-preserving tree
  tensors FILE [--filter GLOB]  every tensor in file order, with statistics
  show FILE PATH [--limit N]    one node or tensor by its path (a CID with --blocks FILE.car)
  state FILE                    the continuation state (item[4] of a TrainingRecord)
  validate FILE...              structure and meaning; exit 1 on the first invalid file
  convert IN OUT [--recorder R] [--precision P]
                                write IN in another recorder/precision
  resave IN OUT                 decode and re-encode in the same recorder and precision
  edit IN -o OUT --set PATH=JSON...
                                typed edit of continuation state, scheduler state or metadata
  diff A B [--tolerance X] [--map FROM=TO]...
                                structural and numeric differences
                                (two GradientCheckpoints: also [--blocks-a CAR] [--blocks-b CAR]);
                                a PyTorch/safetensors file and a Burn record are matched by Burn's
                                PyTorch rules, --map rewriting the PyTorch names (a regex, in order)
  graph FILE [--dot] [--layout] a GradientCheckpoint's computation graph
  blocks FILE.car               the blocks of a CAR file
  loss RUN_DIR                  loss and metric history of a run directory
  timeline RUN [--filter GLOB] [--no-cache] [--spike-threshold Z]
                                every checkpoint of a run: per-tensor norms, update ratios, NaN/Inf,
                                events (first NaN/Inf, spikes above Z robust sd, default 6); cached, so
                                a re-run reads only new files
  timeline RUN --shard I/N --partial OUT
                                share I of N of the work (by checkpoint, large ones by tensor ranges) into a partial
  timeline RUN --merge PARTIAL... [--json] [--filter GLOB] [--no-cache]
                                the timeline from the partials of all N shares (the --no-cache document)
  timeline RUN --slurm [--tasks N] [--partition P] [--time T] [--profile NAME] [--work DIR] [--retries R]
        [--node-ckpt PATH] [--filter GLOB] [--json] [--dry-run]
                                the shares as a Slurm array (sbatch) and the merge as a job depending on it;
                                followed until done, a failed task retried R times (default 1) or reported;
                                prints the timeline; the nodes run the ckpt at PATH (default: this one);
                                --dry-run prints the scripts and submits nothing
  bisect RUN --until PRED [--filter GLOB] [--scan]
                                the first bad checkpoint (PRED: nan, inf, nonfinite, max_abs>X,
                                update_ratio>X) by binary search, or every checkpoint with --scan
  schema FILE [-o S.json] [--scheduler NAME]
                                the type layout of a self-describing record (for bincode files),
                                or the layout a bincode FILE's bytes settled with --schema-from
  check-resume FILE [--against WHOLE]
                                the resume-readiness checklist; a partial module record (Burn 0.22
                                allow_partial) lists the parameters a resumption lacks, the whole
                                model known from the optimizer's module paths or from WHOLE
  optimizer FILE [--betas B1,B2] [--epsilon E]
                                optimizer-state forensics per parameter (moment norms, Adam's effective
                                step, v at the epsilon floor, dead and non-finite moments, g^2/v), suspects
                                first; betas/epsilon default to the recorded ones, else Burn's 0.9,0.999,1e-5
  export FILE OUT.safetensors|OUT.npz [--what params,optimizer,gradients,other]
                                the record's tensors for PyTorch/numpy, named by their paths
  export FILE OUT.pt [--what params|all] [--map FROM=TO]...
                                a Burn record for torch.load: its state dict (params, the default)
                                or {"model", "optimizer", "step"} with the Adam/SGD state (all)
  import FILE IN.safetensors -o OUT
                                IN's tensors (same paths, shapes, dtypes) put into FILE, written to OUT
  import FILE SOURCE.pt|.safetensors|.bin -o OUT [--optimizer] [--map FROM=TO]...
                                a PyTorch checkpoint's weights (--optimizer: and Adam moments and
                                step) put into the Burn record FILE by Burn's PyTorch rules
  migrate IN OUT_DIR [--epoch N]
                                a Burn <= 0.21 record (TrainingRecord, burn-train files, run directory)
                                as Burn 0.22's model/optim/scheduler-N.bpk; says what it cannot carry
  patch IN -o OUT [--reset-optimizer GLOB] [--zero-nonfinite] [--scheduler-step N] [--transplant FROM GLOB]
        [--set PATH=JSONVALUE]...   surgery, operations applied in the order given: drop the optimizer state of
                                matching parameters (Burn re-initialises it), zero NaN/Inf moment elements,
                                the scheduler at step N, tensors taken from FROM, typed edits; OUT written
                                atomically with OUT.patch.json (source and SHA-256, operations, tool); the
                                resume-readiness verdict on stderr
  patch --replay OUT.patch.json -o OUT2
                                the sidecar's operations applied to its (unchanged) source again: same bytes
  verify-resume RECORD --against LATER [--profile NAME | -- PROGRAM ARGS...] [--tolerance exact|strict|relaxed]
                                resume from RECORD up to LATER's step in a temporary directory under $TMPDIR
                                (default: ckpt-train --resume {record} --out {out} --steps {step}; NAME: one of
                                the app's resume profiles) and diff the checkpoint it writes against LATER:
                                identical, within tolerance or diverged; --keep leaves the directory; exit 1
                                when the resumption fails

Bincode records take --schema-from OTHER.mpk or --schema S.json on every reading command, and
--scheduler step|linear|cosine|noam|exponential|constant where the bytes cannot tell StepLr's i32
from a usize; `convert IN OUT.bin` writes with the layout they name (tuples stay tuples).
Records open only if the real typed decoders would accept them; info, tree, tensors, show,
state and export take --lenient to look at a damaged file anyway (the output says it is partial and why).
Exit codes: 0 success, 1 invalid input or failed operation, 2 usage error.
Environment: CKPT_HUGE_PAGE_HEAP=0 keeps ckpt's heap in 4 KiB pages (by default it is advised for
transparent huge pages: fewer page faults for a process that opens many checkpoints).
)";

} // namespace

namespace {
int run(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
        std::fputs(kUsage, args.empty() ? stderr : stdout);
        return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
        std::puts("ckpt " CKPT_VERSION);
        return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    const auto& table = ckpt::cli::commandTable();
    auto it = table.find(command);
    if (it == table.end()) {
        std::fprintf(stderr, "ckpt: unknown command '%s'\n\n%s", command.c_str(), kUsage);
        return 2;
    }
    return it->second(args);
}
} // namespace

int main(int argc, char** argv)
{
    // A record truncated by its writer while we read it gives zeros and a warning, not a SIGBUS death.
    ckpt::guardMappedFiles();
    if (const char* heap = std::getenv("CKPT_HUGE_PAGE_HEAP"); !heap || std::strcmp(heap, "0") != 0) // docs/guide/cli/runs.md, shards (cost)
        ckpt::cli::reserveHugePageHeap();
    return ckpt::runWithLastResort("ckpt", [&] { return run(argc, argv); });
}
