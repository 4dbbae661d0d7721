// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/workspace/loadedrecord.h"

#include <vector>

namespace ckpt::ui {

LoadedRecord loadedRecordOf(std::shared_ptr<const Record> record, const QString& path)
{
    std::vector<uint32_t> tensorNodes;
    tensorNodes.reserve(record->tensors.size());
    for (const TensorEntry& t : record->tensors)
        tensorNodes.push_back(t.node);
    LoadedRecord lr;
    lr.index = std::make_shared<const TapeIndex>(TapeIndex::build(record->tape, tensorNodes));
    lr.record = std::move(record);
    lr.path = path;
    return lr;
}

std::string nodePath(const LoadedRecord& lr, uint32_t node) { return lr.index->pathOf(lr.record->tape, node); }

} // namespace ckpt::ui
