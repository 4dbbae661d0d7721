// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// What the families of name -> tensor files (PyTorch state dicts, safetensors) share.

#include <string_view>

namespace ckpt {

/**
 * True for a state dict's buffers, which are not parameters (cli-contract.md, "PyTorch and
 * safetensors"): BatchNorm's running_mean, running_var and num_batches_tracked.
 */
inline bool isStateDictBuffer(std::string_view name)
{
    for (std::string_view b : {"running_mean", "running_var", "num_batches_tracked"})
        if (name == b || (name.size() > b.size() && name.ends_with(b) && name[name.size() - b.size() - 1] == '.'))
            return true;
    return false;
}

} // namespace ckpt
