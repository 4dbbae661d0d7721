// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A family whose files are read and never written (PyTorch's, safetensors): every write verb of the
// format interface refuses in one place, in the family's words, and says what to do instead.

#include "core/model/format.h"

#include <string>
#include <string_view>

namespace ckpt {

class ReadOnlyRecordFormat : public RecordFormat {
public:
    Result<RecordPtr> edited(const Record& from, Tape edited) const override;
    Result<void> saveEdited(const Record& record, const Tape& edited, const std::string& path) const override;
    Result<RecordPtr> patched(const Record& record, const TensorPatch& patch, TensorPatchReport& report) const override;
    Result<void> savePatched(const Record& record, const TensorPatch& patch, const std::string& path) const override;
    std::optional<std::string> schedulerStepUnsupported() const override;
    Result<SaveAsResult> saveAs(const Record& record, Recorder recorder, Precision precision, const std::string& path,
        const OpenOptions& layoutOptions) const override;
    Result<Tape> toEnvelope(const Record& record, std::vector<std::string>& lost) const override;
    Result<SaveAsResult> importFrom(const RecordFormat& from, const Record& record, Recorder recorder, Precision precision, const std::string& path,
        const OpenOptions& layoutOptions) const override;

protected:
    /** What to do instead of writing, e.g. "export the tensors with `ckpt export FILE OUT.safetensors`". */
    virtual std::string_view instead() const = 0;
    /** The error of a write verb: "<description> is read, not written: <what> (<instead>)". */
    std::unexpected<Error> notWritten(std::string_view what) const;
};

} // namespace ckpt
