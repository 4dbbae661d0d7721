// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace ckpt::cli {

/** `ckpt export FILE OUT.safetensors|OUT.npz [--what params,optimizer,gradients,other]`. */
int cmdExport(const std::vector<std::string>& argv);

/** `ckpt import FILE IN.safetensors -o OUT`: IN's tensors put into FILE's record, written to OUT. */
int cmdImport(const std::vector<std::string>& argv);

/**
 * `ckpt migrate IN OUT_DIR [--epoch N] [--scheduler S]`: a Burn <= 0.21 record (a TrainingRecord, a
 * burn-train model/optim/scheduler file with its siblings, or a run directory) written as Burn 0.22's
 * model/optim/scheduler-N.bpk; one stderr line per thing that cannot be carried over.
 */
int cmdMigrate(const std::vector<std::string>& argv);

} // namespace ckpt::cli
