// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The documents of `ckpt timeline` and `ckpt bisect` (cli-contract.md, "Runs"), JSON and text.

#include "core/run/timeline.h"

#include <functional>
#include <string>
#include <string_view>

namespace ckpt {

/** `ckpt timeline --json` (cli-contract.md, "Runs"). */
std::string timelineJson(const Timeline& t);
/** The same document handed to \a sink in pieces (the CLI writes a run's megabytes straight to stdout). */
void writeTimelineJson(const Timeline& t, const std::function<void(std::string_view)>& sink);
/** `ckpt timeline` text: the checkpoints, then the events. */
std::string timelineText(const Timeline& t);
/** `ckpt bisect --json`. */
std::string bisectJson(const BisectResult& r);
std::string bisectText(const BisectResult& r);

} // namespace ckpt
