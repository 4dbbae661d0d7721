// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one interface every format family of records implements (Tiled's MapFormat is the model): open
// and index, re-save, save edited, the patch operations, import into and export from. A family lives
// in its own folder (core/record: the serde envelope formats; core/pack: the container of Burn >=
// 0.19) and the registry in core/open is the only other place that names it; every verb (edit,
// patch, import, convert, info) goes through this interface and never asks which format it holds.

#include "core/io/bytes.h"
#include "core/model/record.h"
#include "core/util/error.h"
#include "core/util/progress.h"
#include "core/value/tape.h"

#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ckpt {

using RecordPtr = std::shared_ptr<const Record>;

/** The file a family is asked to open: its bytes as stored and after gzip (the same buffer if not compressed). */
struct RecordInput {
    BytesPtr file;
    BytesPtr decoded;
    bool gzipped = false;
    std::string name;   ///< the path, for messages
};

/**
 * The input of \a bytes (named \a name in messages): inflated when gzip (sniffed from content, not from
 * the extension); an empty file is an error.
 */
Result<RecordInput> recordInputOf(const BytesPtr& bytes, const std::string& name, const InflateLimits& limits, const Progress& progress);

/** A tensor's new payload, same dtype and shape (a patch operation's, an import's). */
struct PayloadChange {
    size_t tensor = 0;                 ///< index into Record::tensors
    std::span<const uint8_t> bytes;    ///< alive until the family's call returns
    /**
     * A legacy tensor (Burn <= 0.13, values as numbers on the tape): the value list to put instead,
     * node \a legacyNode of \a legacyTape; \a bytes is then unused.
     */
    const Tape* legacyTape = nullptr;
    uint32_t legacyNode = 0;
};

/** What a patch operation changes in a record's tensors, worked out once for every family. */
struct TensorPatch {
    std::set<std::string> dropOptimizerOf; ///< parameter ids whose optimizer state goes (ResetOptimizer)
    std::vector<PayloadChange> payloads;   ///< tensors whose bytes are replaced (ZeroNonFinite, Transplant, import)
};
/** What applying a TensorPatch did that the patch's report names. */
struct TensorPatchReport {
    std::vector<std::string> removed;      ///< one path per optimizer state removed
};

/** What a save in another recorder, precision or family reports. */
struct SaveAsResult {
    std::vector<std::string> warnings; ///< precision loss, what the target cannot hold, ...
    std::vector<std::string> notes;    ///< how the bincode layout was settled, ...
};

/** One family of record formats. Stateless: the registry holds one instance of each. */
class RecordFormat {
public:
    virtual ~RecordFormat() = default;

    /** What a file of the family is, in messages: "a Burn <= 0.21 record", ... */
    virtual std::string_view description() const = 0;

    // --- open and index

    /** Whether the family reads \a decoded (a file's bytes after gzip), judged from the content. */
    virtual bool reads(std::span<const uint8_t> decoded) const = 0;
    /** Whether records of \a recorder belong to this family (what a save in that recorder writes). */
    virtual bool writes(Recorder recorder) const = 0;
    /** Decodes and indexes \a input. Honours OpenOptions::wholeCheckpoint where the family writes checkpoints as several files. */
    virtual Result<RecordPtr> open(const RecordInput& input, const OpenOptions& options, const Progress& progress) const = 0;
    /** True when \a path is the first file of a checkpoint written as several files (OpenOptions::wholeCheckpoint opens them as one). */
    virtual bool opensWhole(const std::string& /*path*/) const { return false; }

    // --- re-save and save edited

    /** Writes \a record again in its own format (byte-identical for files the real writers wrote). */
    virtual Result<void> resave(const Record& record, const std::string& path) const = 0;
    /** The record an edited tape of \a from makes (applyEdits', a patch's), in memory. */
    virtual Result<RecordPtr> edited(const Record& from, Tape edited) const = 0;
    /** Writes \a record with the edits of \a edited (its tape after applyEdits) in its own format. */
    virtual Result<void> saveEdited(const Record& record, const Tape& edited, const std::string& path) const = 0;

    // --- the patch operations (and an import's new payloads)

    /** The record \a patch makes of \a record, in memory. Errors say what the family cannot do. */
    virtual Result<RecordPtr> patched(const Record& record, const TensorPatch& patch, TensorPatchReport& report) const = 0;
    /** \a patch applied and written at \a path, without building the record (an import of large tensors). */
    virtual Result<void> savePatched(const Record& record, const TensorPatch& patch, const std::string& path) const = 0;
    /**
     * Why the scheduler's position cannot be set by stepping (ckpt patch --scheduler-step) in this
     * family; nullopt when the tape's scheduler item can be rewritten.
     */
    virtual std::optional<std::string> schedulerStepUnsupported() const { return std::nullopt; }

    // --- import into and export from (conversion)

    /**
     * Writes \a record, a record of this family, in \a recorder (one of this family's) and \a precision.
     * \a layoutOptions name a layout where the target needs one (bincode's --schema, --scheduler).
     */
    virtual Result<SaveAsResult> saveAs(const Record& record, Recorder recorder, Precision precision, const std::string& path,
        const OpenOptions& layoutOptions) const = 0;
    /**
     * Export from: \a record as a Burn 0.21 envelope tape in NamedMpk's tree (full precision), the
     * common tongue of the families; \a lost says what the envelope cannot hold.
     */
    virtual Result<Tape> toEnvelope(const Record& record, std::vector<std::string>& lost) const = 0;
    /**
     * Import into: writes \a record, of family \a from, in \a recorder (one of this family's) at \a path.
     */
    virtual Result<SaveAsResult> importFrom(const RecordFormat& from, const Record& record, Recorder recorder, Precision precision,
        const std::string& path, const OpenOptions& layoutOptions) const = 0;

    // --- description (ckpt info, the app's info pane)

    /** The lines `ckpt info` prints for the family's own containers (each ends in a newline); empty for none. */
    virtual std::string infoText(const Record& record) const = 0;
    /** The member `ckpt info --json` adds for them: its key and value (a tape whose root is the value); nullopt for none. */
    virtual std::optional<std::pair<std::string, Tape>> infoMember(const Record& record) const = 0;
};

} // namespace ckpt
