// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"
#include "core/value/tapeindex.h"

#include <QString>

#include <memory>
#include <string>

namespace ckpt::ui {

/** One opened record with its index. */
struct LoadedRecord {
    std::shared_ptr<const Record> record;
    std::shared_ptr<const TapeIndex> index;
    QString path;
};

/** The record with its tape index (tensor maps marked), built on the loading thread. */
LoadedRecord loadedRecordOf(std::shared_ptr<const Record> record, const QString& path);

/** The ckpt path of a tape node (item[0].fc1.weight), from the index's parent chain. */
std::string nodePath(const LoadedRecord& record, uint32_t node);

} // namespace ckpt::ui
