// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/edit/edit.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ckpt {

/**
 * One operation of checkpoint surgery (`ckpt patch`, the app's Surgery menu; cli-contract.md, "Repair
 * and verify"). The operations are what published restart recipes do after a loss spike: reset the
 * optimizer state of the affected parameters, clear non-finite moments, rewind the learning-rate
 * schedule, take tensors back from an earlier checkpoint, move the data cursor past the bad batches.
 */
struct PatchOp {
    enum class Kind {
        ResetOptimizer, ///< remove the optimizer state of the parameters matching `glob` (Burn re-initialises it)
        ZeroNonFinite,  ///< every NaN/±Inf element of an optimizer state tensor becomes 0
        SchedulerStep,  ///< the scheduler at the position `step` scheduler steps from its start
        Transplant,     ///< tensors matching `glob` take their values from the record `from` (same shape and dtype)
        Set,            ///< a typed edit (edit.h): `path` becomes the JSON value `json`
    };
    Kind kind = Kind::Set;
    std::string glob;   ///< ResetOptimizer, Transplant
    std::string from;   ///< Transplant: the donor record's file
    uint64_t step = 0;  ///< SchedulerStep
    std::string path;   ///< Set
    std::string json;   ///< Set
    friend bool operator==(const PatchOp&, const PatchOp&) = default;
};

/** A typed edit as a `set` operation. */
inline PatchOp setOperation(const Edit& edit)
{
    PatchOp op;
    op.kind = PatchOp::Kind::Set;
    op.path = edit.path;
    op.json = edit.json;
    return op;
}

/** "reset_optimizer", "zero_nonfinite", "scheduler_step", "transplant", "set": the sidecar's `op`. */
std::string_view patchOpName(PatchOp::Kind kind);
/** One line for logs, menus and the undo stack, e.g. `reset optimizer state of item[0].input.*`. */
std::string describePatchOp(const PatchOp& op);

/** What one operation changed (for the CLI's stderr and the app's undo text). */
struct PatchOpReport {
    std::string summary;              ///< e.g. "removed the optimizer state of 2 parameters"
    std::vector<std::string> paths;   ///< the tensors, parameters or fields it touched
};

/** Opens the donor of a Transplant (the CLI: openRecord with its options; the app: the open workspace first). */
using PatchRecordSource = std::function<Result<std::shared_ptr<const Record>>(const std::string& file)>;

/**
 * Applies one operation to \a record and returns the patched record, indexed again (in memory; nothing
 * is written). Errors name the operation and, where one is at fault, the path:
 * - ResetOptimizer: Usage when no parameter matches; Unsupported for records without an optimizer map.
 *   The glob (`*`, `?`) is matched against a parameter's module path (`item[0].fc1.weight`), its
 *   parameter tensor's path (`...weight.param`) and its id.
 * - ZeroNonFinite: never fails on a record with optimizer tensors (zero changes is a valid outcome).
 * - SchedulerStep: Unsupported when the record does not say how its scheduler steps (a Burn record
 *   keeps only the position; a ckpt-train record keeps the configuration in its caller state), or the
 *   scheduler is constant; the `step` scheduler (i32 iter_idx) is set directly from its record.
 * - Transplant: Usage when nothing matches, a match is missing in the donor, or shape/dtype differ.
 * - Set: checkEdit's errors.
 * The record's format family applies the change (core/model/format.h): a container file (Burn >= 0.19)
 * through its tensor list; a checkpoint of several files is patched one file at a time.
 */
Result<std::shared_ptr<const Record>> applyPatchOp(const Record& record, const PatchOp& op, const PatchRecordSource& source,
    PatchOpReport* report = nullptr);

/** applyPatchOp for each operation in order; \a reports gets one entry per operation. */
Result<std::shared_ptr<const Record>> applyPatch(const Record& record, const std::vector<PatchOp>& ops, const PatchRecordSource& source,
    std::vector<PatchOpReport>* reports = nullptr);

/** Writes a patched record in its own format, atomically (saveEditedRecord of its own tape; a container file with its tensors). */
Result<void> savePatchedRecord(const Record& patched, const std::string& path);

/** The SHA-256 of a file's bytes as lowercase hex (read in chunks; the file is not mapped whole). */
Result<std::string> fileSha256(const std::string& path);

/**
 * The provenance sidecar `OUT.patch.json` (cli-contract.md): where the patched file came from and how.
 * `ckpt patch --replay` reads it, checks that the source (and every donor) still has the recorded
 * SHA-256, and applies the operations again: the same bytes.
 */
struct PatchProvenance {
    std::string source;                ///< the input file, as an absolute path
    std::string sourceSha256;
    std::vector<PatchOp> operations;
    std::vector<std::string> donorSha256; ///< one per operation: a Transplant's donor digest, else ""
    std::string output;                ///< the patched file (absolute)
    std::string outputSha256;
    std::string tool;                  ///< "ckpt 0.1.0" / "checkpoint-inspector 0.1.0"
    std::string readiness;             ///< checkResume's verdict of the output: "ok", "warning" or "error"
    /** How the source was opened when it needed more than its bytes (bincode: --schema-from, --schema, --scheduler). */
    std::string schemaFrom, schemaFile, scheduler;
};

/** The sidecar's path for a patched file: `OUT.patch.json`. */
std::string patchSidecarPath(const std::string& patchedFile);
/** The sidecar as JSON (stable key order: source, operations, output, readiness, tool). */
std::string patchProvenanceJson(const PatchProvenance& p);
/**
 * Operations written as the sidecar writes them, a JSON array of `{"op": "reset_optimizer", "glob":
 * ...}` objects (`import ckpt`'s ckpt.patch takes them so); `from_sha256` is ignored here.
 */
Result<std::vector<PatchOp>> parsePatchOperations(std::string_view json);
/** Parses a sidecar; errors give the file and line:column, or the key that is missing or mistyped. */
Result<PatchProvenance> readPatchProvenance(const std::string& sidecarFile);

/**
 * Completes \a p for the patched file just written at \a output (its absolute path and SHA-256, the
 * resume-readiness verdict of the file read back with \a options) and writes `OUTPUT.patch.json`
 * atomically. Returns the checks. The one sidecar writer of `ckpt patch`, the app and `import ckpt`.
 */
Result<std::vector<ResumeCheck>> finishPatchSidecar(PatchProvenance& p, const std::string& output, const OpenOptions& options);

/** What patchFile() did. */
struct PatchFileResult {
    PatchProvenance provenance;        ///< as written to the sidecar
    std::vector<PatchOpReport> reports; ///< one per operation
    std::vector<ResumeCheck> checks;    ///< of the output as written
};

/**
 * `ckpt patch IN -o OUT OP...`: opens \a input with \a options, records its SHA-256 and each donor's,
 * applies \a ops in order, writes \a output atomically and its sidecar (tool \a tool). Usage error
 * when \a output is \a input (the unpatched file is the provenance).
 */
Result<PatchFileResult> patchFile(const std::string& input, const std::string& output, std::vector<PatchOp> ops, const OpenOptions& options,
    const std::string& tool);

/**
 * `ckpt patch --replay SIDECAR -o OUT`: the sidecar's operations applied to its source again, after
 * checking that the source and every donor still have their recorded SHA-256 (Invalid naming the file
 * otherwise). Gives the same bytes as the patch that wrote the sidecar; OUT gets its own sidecar.
 */
Result<PatchFileResult> replayPatch(const std::string& sidecar, const std::string& output, const std::string& tool);

/** The worst status of checkResume: the verdict a patch prints ("ok", "warning", "error"). */
std::string_view resumeReadiness(const std::vector<ResumeCheck>& checks);

} // namespace ckpt
