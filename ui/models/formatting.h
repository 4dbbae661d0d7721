// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QString>

#include <cstdint>
#include <string>
#include <vector>

namespace ckpt::ui {

/** All number formatting of the UI lives here, so every panel shows numbers the same way. */
QString formatNumber(double v);
QString formatCount(uint64_t v);
QString formatBytes(uint64_t v);
QString formatShape(const std::vector<uint64_t>& shape);
inline QString qs(const std::string& s) { return QString::fromStdString(s); }
inline QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

} // namespace ckpt::ui
