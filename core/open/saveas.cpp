// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/open/saveas.h"

#include "core/open/formats.h"

namespace ckpt {

Result<SaveAsResult> saveRecordAs(const Record& record, Recorder recorder, Precision precision, const std::string& path,
    const OpenOptions& layoutOptions)
{
    const RecordFormat& from = formatOf(record);
    const RecordFormat& to = formatFor(recorder);
    if (&from == &to)
        return to.saveAs(record, recorder, precision, path, layoutOptions);
    return to.importFrom(from, record, recorder, precision, path, layoutOptions);
}

} // namespace ckpt
