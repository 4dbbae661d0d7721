// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/record/saveas.h"

#include "core/codec/schema.h"
#include "core/record/bincoderecord.h"

namespace ckpt {

Result<SaveAsResult> saveRecordAs(const Record& record, Recorder recorder, Precision precision, const std::string& path,
    const OpenOptions& layoutOptions)
{
    SaveAsResult result;
    // Writing bincode needs the exact Rust layout: the input's own, or the one --schema /
    // --schema-from / --scheduler name (tuples stay tuples, i32 stays i32), else derived from the input.
    std::optional<BincodeLayout> target;
    if (recorder == Recorder::Bin || recorder == Recorder::BinGz) {
        auto layout = bincodeTargetLayout(record, layoutOptions);
        if (!layout)
            return std::unexpected(std::move(layout.error()));
        result.notes = layout->notes;
        target = std::move(*layout);
    } else if ((recorder == Recorder::NamedMpk || recorder == Recorder::NamedMpkGz)
        && (record.recorder == Recorder::PrettyJson || record.recorder == Recorder::JsonGz)) {
        // JSON floats are all f64; the record's layout (named, or ckpt-train's own) says which are f32.
        auto layout = jsonFloatLayout(record, layoutOptions);
        if (!layout)
            return std::unexpected(std::move(layout.error()));
        if (*layout)
            target = std::move(**layout);
    }
    auto res = convertRecord(record, recorder, precision, path, target ? &target->schema : nullptr);
    if (!res)
        return std::unexpected(Error(res.error()).withFile(path));
    result.warnings = std::move(res->warnings);
    return result;
}

} // namespace ckpt
