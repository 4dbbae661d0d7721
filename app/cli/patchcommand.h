// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <string>
#include <vector>

namespace ckpt::cli {

/**
 * `ckpt patch IN -o OUT OP...` and `ckpt patch --replay OUT.patch.json -o OUT2` (cli-contract.md,
 * "Repair and verify"): the operations of core/edit/patch.h in the order given, OUT written
 * atomically with its provenance sidecar OUT.patch.json, one line per operation and the
 * resume-readiness verdict of OUT on stderr. Exit 0 when OUT was written, 1 for bad input (a file
 * that cannot be read, an operation the record refuses, a replay whose source changed), 2 on a usage
 * error.
 */
int patchCommand(const std::vector<std::string>& argv);

} // namespace ckpt::cli
