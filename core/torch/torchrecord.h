// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A parsed torch.save file as a Record: the unpickled object on the tape, one TensorEntry per tensor
// (path as written: `model.fc1.weight`, `optimizer.state.3.exp_avg`), the state dict's parameters, the
// optimizer's entries linked to them by order and shape, and the kind (cli-contract.md, "PyTorch and
// safetensors").

#include "core/model/record.h"
#include "core/torch/torchfile.h"

#include <memory>
#include <string>

namespace ckpt::torch {

/** The record \a file makes; \a name is the path for messages and Record::file. */
Result<std::shared_ptr<const Record>> torchRecordOf(const std::shared_ptr<TorchFile>& file, const std::string& name);

/** The parsed file behind one part of a record this family opened (a sharded set has one part per shard). */
const TorchFile& torchFileOf(const RecordPart& part);

} // namespace ckpt::torch
