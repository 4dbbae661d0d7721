// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"

namespace ckpt {

/** One typed edit: the value at \a path becomes the JSON value \a json. */
struct Edit {
    std::string path;
    std::string json;
};

/** Which parts of a record may be edited: continuation state, scheduler state, metadata. */
enum class EditArea { CallerState, Scheduler, Metadata, Forbidden };
EditArea editAreaOf(const Record& record, uint32_t node);

/**
 * Checks one edit against the record without applying it: the path must exist inside an editable
 * area, and the new value must have the old value's type and fit its range (an unsigned counter stays
 * a non-negative integer, an i32 StepLr position stays within i32, an f32 stays finite in f32, a
 * string stays a string, an array keeps its length and element types). A nil (Option None) accepts
 * null or any scalar. The error names the path and what was expected.
 */
Result<void> checkEdit(const Record& record, const Edit& edit);

/** Applies edits (checked first) and returns the new envelope tape; the record is not changed. */
Result<Tape> applyEdits(const Record& record, const std::vector<Edit>& edits);

/** One line of the resume-readiness checklist. */
struct ResumeCheck {
    std::string name;                 ///< short id, e.g. "optimizer-shapes"
    enum class Status { Ok, Warning, Error } status = Status::Ok;
    std::string detail;
    std::string path;                 ///< where the first problem is (errors only; "" when not one place)
    uint32_t node = 0;                ///< its tape node (for the byte offset)
    std::vector<std::string> missing; ///< "partial-module": the module paths a resumption from this record lacks
};
std::string_view resumeStatusName(ResumeCheck::Status s); ///< "ok", "warning", "error"

/**
 * What a resumption from this record will restore, and what is missing or inconsistent: kind and
 * parts present, optimizer entries against parameters (ids, shapes, dtypes, step counters agree),
 * pending gradients against parameters, scheduler state, caller state, precision (half is lossy).
 * A partial module record (partialmodule.h) is a warning that lists what it lacks, and optimizer
 * state for those parameters is expected, not inconsistent. \a whole, if given, is the record the
 * resumption starts from: what the whole model is (otherwise only the optimizer's module paths say).
 */
std::vector<ResumeCheck> checkResume(const Record& record, const Record* whole = nullptr);

/** Semantic validation beyond decoding (used by `ckpt validate`); errors are the checkResume errors. */
Result<void> validateRecord(const Record& record);

} // namespace ckpt
