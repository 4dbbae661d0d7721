// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/model/readonlyformat.h"

namespace ckpt {

std::unexpected<Error> ReadOnlyRecordFormat::notWritten(std::string_view what) const
{
    std::string message(description());
    message.append(" is read, not written: ").append(what).append(" (").append(instead()).append(")");
    return fail(ErrorCode::Unsupported, std::move(message));
}

Result<RecordPtr> ReadOnlyRecordFormat::edited(const Record& /*from*/, Tape /*edited*/) const
{
    return notWritten("edits are not saved into it");
}

Result<void> ReadOnlyRecordFormat::saveEdited(const Record& /*record*/, const Tape& /*edited*/, const std::string& /*path*/) const
{
    return notWritten("edits are not saved into it");
}

Result<RecordPtr> ReadOnlyRecordFormat::patched(const Record& /*record*/, const TensorPatch& /*patch*/, TensorPatchReport& /*report*/) const
{
    return notWritten("patches are not applied to it");
}

Result<void> ReadOnlyRecordFormat::savePatched(const Record& /*record*/, const TensorPatch& /*patch*/, const std::string& /*path*/) const
{
    return notWritten("patches are not applied to it");
}

std::optional<std::string> ReadOnlyRecordFormat::schedulerStepUnsupported() const
{
    return std::string(description()) + " is read, not written";
}

Result<SaveAsResult> ReadOnlyRecordFormat::saveAs(const Record& /*record*/, Recorder /*recorder*/, Precision /*precision*/, const std::string& /*path*/,
    const OpenOptions& /*layoutOptions*/) const
{
    return notWritten("no conversion writes this format");
}

Result<Tape> ReadOnlyRecordFormat::toEnvelope(const Record& /*record*/, std::vector<std::string>& /*lost*/) const
{
    return notWritten("a conversion into Burn's records needs `ckpt import`'s name mapping");
}

Result<SaveAsResult> ReadOnlyRecordFormat::importFrom(const RecordFormat& /*from*/, const Record& /*record*/, Recorder /*recorder*/, Precision /*precision*/,
    const std::string& /*path*/, const OpenOptions& /*layoutOptions*/) const
{
    return notWritten("no conversion writes this format");
}

} // namespace ckpt
