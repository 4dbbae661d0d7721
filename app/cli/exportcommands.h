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

} // namespace ckpt::cli
