// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/commands/surgerycommand.h"
#include "ui/workspace/workspace.h"

#include "core/edit/patch.h"

#include <QHash>
#include <QObject>
#include <QVariant>

#include <map>

class QUndoStack;

namespace ckpt::ui {

/**
 * Owns the opened workspace and the edits of the caller's continuation state. The records stay
 * immutable snapshots; edits are overrides of scalar tape nodes, applied when saving. Surgery
 * (core/edit/patch.h: optimizer resets, zeroed moments, scheduler position, transplants) replaces a
 * record by its patched copy, one undoable step each, and is saved as a new file with its provenance
 * sidecar, exactly what `ckpt patch --replay` repeats. Modified means the undo stack is not clean.
 */
class CheckpointDocument : public QObject
{
    Q_OBJECT
public:
    explicit CheckpointDocument(QObject* parent = nullptr);
    ~CheckpointDocument() override;

    const Workspace& workspace() const { return m_workspace; }
    /** Replaces the workspace; the old one is released on a background thread (its files unmapped there). */
    void setWorkspace(Workspace ws);
    QUndoStack* undoStack() const { return m_undoStack; }

    /** The scalar at a tape node, with an edit applied if there is one. */
    QVariant value(int record, uint32_t node) const;
    /** Whether a node may be edited: a scalar in the caller state, scheduler state or metadata. */
    bool isEditable(int record, uint32_t node) const;
    /**
     * Validates \a text against the node's kind (u64, i64, float, bool, string) and pushes an undo
     * command. Returns an empty string, or why the value was rejected.
     */
    QString requestEdit(int record, uint32_t node, const QString& text, const QString& label = {});
    /** Used by the undo command only. */
    void applyValue(int record, uint32_t node, const QVariant& v);

    bool isModified() const;
    QString editableFile() const;
    /** Re-encodes every edited record in its own recorder and writes it over its file, atomically. */
    QString save();
    /**
     * Writes the edited record (there must be only one) to \a path, atomically; a record with surgery
     * also gets its sidecar `PATH.patch.json` (the operations from the opened file on, value edits
     * included, with the digests `ckpt patch --replay` checks).
     */
    QString saveAs(const QString& path);

    /**
     * Starts one surgery operation on \a record in the background (the record's value edits first, as
     * `set` operations, then \a op). surgeryFinished reports the outcome; on success the patched record
     * replaces the opened one as an undoable step. Refused while another surgery runs.
     */
    void requestSurgery(int record, const PatchOp& op);
    bool surgeryRunning() const { return m_surgeryRunning; }
    /** Whether an opened record carries surgery: it is saved to a new file (Save As), never over its source. */
    bool hasSurgery() const { return !m_surgery.empty(); }
    /** The operations applied to \a record since it was opened, in order (empty without surgery). */
    std::vector<PatchOp> surgeryOf(int record) const;
    /** Used by SurgeryCommand only. */
    void applySurgery(const SurgeryCommand::Step& step);
    void revertSurgery(const SurgeryCommand::Step& step);
    /** The record Save As and Export write: the one with edits, else the caller-state record, else the first; -1 if none. */
    int exportRecord() const;
    /**
     * What converting \a record (edits applied) to \a recorder and \a precision would lose, without
     * writing anything: core's convertRecord warnings (rounding, overflow, narrowing).
     */
    Result<ConvertResult> previewExport(int record, Recorder recorder, Precision precision) const;
    /**
     * Writes \a record (edits applied) converted to \a recorder and \a precision, atomically. The edits
     * stay unsaved in the opened file: an export is a new file, not a save. Returns the error text or "".
     */
    QString exportAs(int record, const QString& path, Recorder recorder, Precision precision, QStringList* warnings = nullptr);
    /** Records that have edits. */
    std::vector<int> editedRecords() const;
    /** The envelope tape of \a record with every edit applied. */
    Result<Tape> editedTape(int record) const;

Q_SIGNALS:
    void workspaceChanged();
    void valueChanged(int record, uint32_t node);
    void modifiedChanged(bool modified);
    void saved(const QString& path);
    /**
     * A surgery operation finished: \a error is empty on success, \a summary says what changed and
     * \a readiness is the resume-readiness verdict of the patched record ("ok", "warning", "error")
     * with its non-ok checks in \a checks.
     */
    void surgeryFinished(int record, const QString& summary, const QString& readiness, const QStringList& checks, const QString& error);

private:
    QString writeRecord(int record, const QString& path);
    /** \a record with every edit applied, indexed again (the original when unedited). */
    Result<std::shared_ptr<const Record>> editedRecord(int record) const;
    static quint64 key(int record, uint32_t node) { return (quint64(uint32_t(record)) << 32) | node; }
    /** The value edits of \a record as typed edits, in node (file) order. */
    std::vector<Edit> editsOf(int record) const;
    QHash<quint64, QVariant> overridesOf(int record) const;
    /** Writes \a record's provenance sidecar beside \a path (the record was just written there). */
    QString writeSidecar(int record, const QString& path);

    /** A record's surgery since it was opened: what its sidecar says. */
    struct SurgeryLog {
        QString source;
        std::string sourceSha256;
        std::vector<PatchOp> ops;
        std::vector<std::string> donorSha256;
    };
    Workspace m_workspace;
    QUndoStack* const m_undoStack;
    QHash<quint64, QVariant> m_overrides;
    std::map<int, SurgeryLog> m_surgery;
    bool m_surgeryRunning = false;
    quint64 m_workspaceGeneration = 0; ///< bumped by setWorkspace: a surgery result for an older workspace is dropped
};

/**
 * A u128 / i128 beyond 64 bits (a Wide128 node) in the editor: its exact digits, since no QVariant
 * number holds it and a double would round it. Converts to QString (the view shows the digits).
 */
struct WideInteger {
    QString digits;
    bool operator==(const WideInteger&) const = default;
};

/**
 * Parses \a text as a value of the node's kind; an invalid QVariant plus \a why on rejection. Integers
 * are read exactly: within 64 bits as qulonglong / qlonglong, beyond that (only where the node already
 * holds a 128-bit value) as a WideInteger; anything out of the field's range is refused.
 */
QVariant parseScalar(const Tape& tape, uint32_t node, const QString& text, QString* why);
/** JSON text of an edited scalar (what core's typed edits take). */
std::string jsonOf(const QVariant& v);
/** A tape scalar as a QVariant (UInt -> qulonglong, Int -> qlonglong, wide ones -> WideInteger, floats -> double, ...). */
QVariant scalarValue(const Tape& tape, uint32_t node);

} // namespace ckpt::ui

Q_DECLARE_METATYPE(ckpt::ui::WideInteger)
