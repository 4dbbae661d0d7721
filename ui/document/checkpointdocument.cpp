// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/checkpointdocument.h"

#include "ui/async/continuation.h"
#include "ui/async/executor.h"
#include "ui/async/statsjob.h"
#include "ui/commands/setvaluecommand.h"
#include "ui/commands/surgerycommand.h"

#include "core/edit/edit.h"
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/util/paths.h"

#include <ckpt_version.h>

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <QThreadPool>
#include <QUndoStack>

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include <cmath>
#include <limits>

namespace ckpt::ui {

namespace {
/// The spelling the sidecar uses for files, and what "the same file" is compared by: core's, as `ckpt patch` writes it.
QString absolutePath(const QString& path)
{
    return QFile::decodeName(QByteArray::fromStdString(absoluteNormalPath(QFile::encodeName(path).toStdString())));
}
} // namespace

namespace {
QVariant wideInteger(const std::string& digits)
{
    // The view shows a value through QVariant::toString: the digits, exactly.
    static const bool converterRegistered = QMetaType::registerConverter<WideInteger, QString>([](const WideInteger& w) { return w.digits; });
    (void)converterRegistered;
    return QVariant::fromValue(WideInteger{QString::fromStdString(digits)});
}

/// An integer typed for a UInt (\a isSigned false) or Int node, read exactly and kept within the field's range.
QVariant parseInteger(const Tape& tape, uint32_t node, const QString& t, bool isSigned, QString* why)
{
    const bool wideField = tape.isWide(node);
    const QString type = QLatin1String(isSigned ? (wideField ? "i128" : "i64") : (wideField ? "u128" : "u64"));
    const auto parsed = parseDecimalInteger(t.toStdString());
    if (!parsed || (!isSigned && parsed->negative)) {
        *why = QObject::tr("expected %1 (%2), found \"%3\"").arg(isSigned ? QObject::tr("a signed integer") : QObject::tr("an unsigned integer"), type, t);
        return {};
    }
    const UInt128 magnitude = parsed->magnitude;
    // The largest magnitude of the field's type: negative ones reach one further (-2^63, -2^127).
    const UInt128 limit = isSigned ? (UInt128(1) << (wideField ? 127 : 63)) - (parsed->negative ? 0 : 1) : (wideField ? kUInt128Max : UInt128(UINT64_MAX));
    if (magnitude > limit) {
        *why = QObject::tr("%1 is out of the %2 range").arg(t, type);
        return {};
    }
    if (!isSigned && magnitude <= UINT64_MAX)
        return qulonglong(magnitude);
    const UInt128 narrowLimit = (UInt128(1) << 63) - (parsed->negative ? 0 : 1);
    if (isSigned && magnitude <= narrowLimit)
        return parsed->negative ? qlonglong(-static_cast<Int128>(magnitude)) : qlonglong(magnitude);
    return wideInteger((parsed->negative ? "-" : "") + decimalText(magnitude));
}
} // namespace

QVariant scalarValue(const Tape& tape, uint32_t node)
{
    const Node& n = tape[node];
    if ((n.kind == Kind::UInt || n.kind == Kind::Int) && tape.isWide(node))
        return wideInteger(tape.integerText(node));
    switch (n.kind) {
    case Kind::Nil: return QVariant();
    case Kind::Bool: return tape.boolean(node);
    case Kind::UInt: return qulonglong(tape.u64(node));
    case Kind::Int: return qlonglong(tape.i64(node));
    case Kind::F32:
    case Kind::F64: return tape.f64(node);
    case Kind::Str: {
        const auto s = tape.str(node);
        return QString::fromUtf8(s.data(), qsizetype(s.size()));
    }
    default: return QVariant();
    }
}

QVariant parseScalar(const Tape& tape, uint32_t node, const QString& text, QString* why)
{
    const QString t = text.trimmed();
    bool ok = false;
    switch (tape[node].kind) {
    case Kind::Bool:
        if (t == QLatin1String("true"))
            return true;
        if (t == QLatin1String("false"))
            return false;
        *why = QObject::tr("expected true or false");
        return {};
    case Kind::UInt: return parseInteger(tape, node, t, false, why);
    case Kind::Int: return parseInteger(tape, node, t, true, why);
    case Kind::F32:
    case Kind::F64: {
        const double v = t.toDouble(&ok);
        if (!ok) {
            *why = QObject::tr("expected a number, found \"%1\"").arg(t);
            return {};
        }
        if (tape[node].kind == Kind::F32 && std::isfinite(v) && std::fabs(v) > double(std::numeric_limits<float>::max())) {
            *why = QObject::tr("%1 does not fit in an f32").arg(t);
            return {};
        }
        return v;
    }
    case Kind::Str: return text;
    default: *why = QObject::tr("only scalars (numbers, booleans, strings) can be edited"); return {};
    }
}

CheckpointDocument::CheckpointDocument(QObject* parent)
    : QObject(parent)
    , m_undoStack(new QUndoStack(this))
{
    connect(m_undoStack, &QUndoStack::cleanChanged, this, [this](bool clean) { Q_EMIT modifiedChanged(!clean); });
}

CheckpointDocument::~CheckpointDocument() = default;

void CheckpointDocument::setWorkspace(Workspace ws)
{
    m_undoStack->clear();
    m_overrides.clear();
    m_surgery.clear();
    ++m_workspaceGeneration;
    Workspace old = std::exchange(m_workspace, std::move(ws));
    Q_EMIT workspaceChanged();
    Q_EMIT modifiedChanged(false);
    // The views let go of the old workspace above; the last reference to its records is usually this
    // one. Releasing them unmaps their files (75 ms for a resident 1 GiB mapping, page by page) and
    // frees a large graph's nodes, so it happens on a background thread, not in the GUI's turn.
    if (!old.records.empty() || old.graph || old.loss)
        backgroundPool()->start([dying = std::make_shared<Workspace>(std::move(old))]() mutable {
            markBackgroundThread();
            dying.reset();
        });
}

QVariant CheckpointDocument::value(int record, uint32_t node) const
{
    const auto it = m_overrides.constFind(key(record, node));
    if (it != m_overrides.cend())
        return *it;
    return scalarValue(m_workspace.records[size_t(record)].record->tape, node);
}

bool CheckpointDocument::isEditable(int record, uint32_t node) const
{
    if (record < 0 || size_t(record) >= m_workspace.records.size())
        return false;
    const Record& rec = *m_workspace.records[size_t(record)].record;
    if (node >= rec.tape.nodes.size())
        return false;
    const Kind k = rec.tape[node].kind;
    const bool scalar = k == Kind::Bool || k == Kind::UInt || k == Kind::Int || k == Kind::F32 || k == Kind::F64
        || k == Kind::Str;
    return scalar && editAreaOf(rec, node) != EditArea::Forbidden;
}

QString CheckpointDocument::requestEdit(int record, uint32_t node, const QString& text, const QString& label)
{
    if (!isEditable(record, node))
        return tr("this value is not part of the continuation state and cannot be edited");
    QString why;
    const QVariant v = parseScalar(m_workspace.records[size_t(record)].record->tape, node, text, &why);
    if (!v.isValid())
        return why;
    const QVariant old = value(record, node);
    if (old == v)
        return {};
    // core has the last word on types and ranges (i32 positions, finite f32, ...)
    const LoadedRecord& lr = m_workspace.records[size_t(record)];
    auto checked = checkEdit(*lr.record, Edit{nodePath(lr, node), jsonOf(v)});
    if (!checked)
        return QString::fromStdString(checked.error().message());
    m_undoStack->push(new SetValueCommand(this, record, node, old, v, label.isEmpty() ? tr("node %1").arg(node) : label));
    return {};
}

void CheckpointDocument::applyValue(int record, uint32_t node, const QVariant& v)
{
    const QVariant original = scalarValue(m_workspace.records[size_t(record)].record->tape, node);
    if (v == original)
        m_overrides.remove(key(record, node));
    else
        m_overrides.insert(key(record, node), v);
    Q_EMIT valueChanged(record, node);
}

bool CheckpointDocument::isModified() const
{
    return !m_undoStack->isClean();
}

QString CheckpointDocument::editableFile() const
{
    const int r = m_workspace.stateRecord();
    return r < 0 ? QString() : m_workspace.records[size_t(r)].path;
}

std::string jsonOf(const QVariant& v)
{
    if (v.metaType() == QMetaType::fromType<WideInteger>())
        return v.value<WideInteger>().digits.toStdString(); // JSON digits, as serde_json writes a u128 / i128
    switch (v.typeId()) {
    case QMetaType::Bool: return v.toBool() ? "true" : "false";
    case QMetaType::ULongLong: return std::to_string(v.toULongLong());
    case QMetaType::LongLong: return std::to_string(v.toLongLong());
    case QMetaType::Double: {
        const double d = v.toDouble();
        if (!std::isfinite(d))
            return "null";
        return QString::number(d, 'g', 17).toStdString();
    }
    case QMetaType::QString: {
        // a one-element array gives a correctly escaped JSON string
        const QByteArray a = QJsonDocument(QJsonArray{v.toString()}).toJson(QJsonDocument::Compact);
        return a.mid(1, a.size() - 2).toStdString();
    }
    default: return "null";
    }
}

std::vector<Edit> CheckpointDocument::editsOf(int record) const
{
    const LoadedRecord& lr = m_workspace.records[size_t(record)];
    std::map<uint32_t, QVariant> byNode; // node order = file order, so edits apply deterministically
    for (auto it = m_overrides.cbegin(); it != m_overrides.cend(); ++it)
        if (int(it.key() >> 32) == record)
            byNode.emplace(uint32_t(it.key() & 0xffffffffu), it.value());
    std::vector<Edit> edits;
    for (const auto& [node, v] : byNode)
        edits.push_back(Edit{nodePath(lr, node), jsonOf(v)});
    return edits;
}

QHash<quint64, QVariant> CheckpointDocument::overridesOf(int record) const
{
    QHash<quint64, QVariant> out;
    for (auto it = m_overrides.cbegin(); it != m_overrides.cend(); ++it)
        if (int(it.key() >> 32) == record)
            out.insert(it.key(), it.value());
    return out;
}

Result<Tape> CheckpointDocument::editedTape(int record) const
{
    return applyEdits(*m_workspace.records[size_t(record)].record, editsOf(record));
}

std::vector<int> CheckpointDocument::editedRecords() const
{
    std::set<int> records;
    for (auto it = m_overrides.cbegin(); it != m_overrides.cend(); ++it)
        records.insert(int(it.key() >> 32));
    return {records.begin(), records.end()};
}

QString CheckpointDocument::writeRecord(int record, const QString& path)
{
    auto tape = editedTape(record);
    if (!tape)
        return QString::fromStdString(tape.error().message());
    auto written = saveEditedRecord(*m_workspace.records[size_t(record)].record, *tape, path.toStdString());
    if (!written)
        return QString::fromStdString(std::move(written.error()).withFile(path.toStdString()).message());
    return {};
}

int CheckpointDocument::exportRecord() const
{
    const auto edited = editedRecords();
    if (edited.size() == 1)
        return edited.front();
    if (edited.empty() && m_surgery.size() == 1)
        return m_surgery.begin()->first;
    if (const int r = m_workspace.stateRecord(); r >= 0)
        return r;
    return m_workspace.records.empty() ? -1 : 0;
}

Result<std::shared_ptr<const Record>> CheckpointDocument::editedRecord(int record) const
{
    const LoadedRecord& lr = m_workspace.records[size_t(record)];
    const auto edited = editedRecords();
    if (std::ranges::find(edited, record) == edited.end())
        return lr.record;
    auto tape = editedTape(record);
    if (!tape)
        return std::unexpected(tape.error());
    return indexRecord(std::move(*tape), lr.record->recorder, lr.record->file);
}

Result<ConvertResult> CheckpointDocument::previewExport(int record, Recorder recorder, Precision precision) const
{
    if (record < 0 || size_t(record) >= m_workspace.records.size())
        return fail(ErrorCode::Invalid, "no record to export");
    auto rec = editedRecord(record);
    if (!rec)
        return std::unexpected(rec.error());
    ConvertResult report;
    auto envelope = convertedEnvelope(**rec, recorder, precision, report);
    if (!envelope)
        return std::unexpected(envelope.error());
    return report;
}

QString CheckpointDocument::exportAs(int record, const QString& path, Recorder recorder, Precision precision, QStringList* warnings)
{
    if (record < 0 || size_t(record) >= m_workspace.records.size())
        return tr("nothing to export: no record is open");
    auto rec = editedRecord(record);
    if (!rec)
        return QString::fromStdString(rec.error().message());
    auto result = convertRecord(**rec, recorder, precision, path.toStdString());
    if (!result)
        return QString::fromStdString(std::move(result.error()).withFile(path.toStdString()).message());
    if (warnings)
        for (const auto& w : result->warnings)
            warnings->append(QString::fromStdString(w));
    Q_EMIT saved(path);
    return {};
}

QString CheckpointDocument::save()
{
    if (hasSurgery())
        return tr("a record with surgery is written to a new file, with its provenance beside it: use Save As");
    for (int r : editedRecords())
        if (QString error = writeRecord(r, m_workspace.records[size_t(r)].path); !error.isEmpty())
            return error;
    // Only committed atomic writes make the document clean.
    m_undoStack->setClean();
    Q_EMIT saved(QString());
    return {};
}

QString CheckpointDocument::saveAs(const QString& path)
{
    std::set<int> changed; // value edits or surgery
    for (int e : editedRecords())
        changed.insert(e);
    for (const auto& [record, log] : m_surgery)
        changed.insert(record);
    if (changed.size() > 1)
        return tr("edits span %1 files; use Save to write each in place").arg(changed.size());
    const int r = changed.empty() ? m_workspace.stateRecord() : *changed.begin();
    if (r < 0)
        return tr("nothing to save: no opened record has editable state");
    if (auto log = m_surgery.find(r); log != m_surgery.end() && absolutePath(path) == log->second.source)
        return tr("%1 is the source of the surgery: its provenance; write the patched record to a new file").arg(path);
    if (QString error = writeRecord(r, path); !error.isEmpty())
        return error;
    if (m_surgery.contains(r))
        if (QString error = writeSidecar(r, path); !error.isEmpty())
            return error;
    m_undoStack->setClean();
    Q_EMIT saved(path);
    return {};
}

// ---------------------------------------------------------------------------------------------
// Surgery

namespace {

/// What a surgery job hands back to the GUI thread.
struct SurgeryOutcome {
    LoadedRecord after;
    QString summary, readiness, error;
    QStringList checks;
    std::vector<std::string> donorSha256;
    std::string sourceSha256;
};

} // namespace

void CheckpointDocument::requestSurgery(int record, const PatchOp& op)
{
    if (record < 0 || size_t(record) >= m_workspace.records.size()) {
        Q_EMIT surgeryFinished(record, {}, {}, {}, tr("no record is open for this operation"));
        return;
    }
    if (m_surgeryRunning) {
        Q_EMIT surgeryFinished(record, {}, {}, {}, tr("another surgery operation is still running"));
        return;
    }
    const LoadedRecord before = m_workspace.records[size_t(record)];
    const QHash<quint64, QVariant> editsBefore = overridesOf(record);
    // The value edits made so far become `set` operations ahead of the surgery: node numbers do not
    // survive a patch, paths do, and the sidecar then replays the edits too.
    std::vector<PatchOp> ops;
    for (const Edit& e : editsOf(record))
        ops.push_back(setOperation(e));
    ops.push_back(op);
    if (op.kind == PatchOp::Kind::Transplant)
        ops.back().from = absolutePath(QString::fromStdString(op.from)).toStdString();
    const bool firstSurgery = !m_surgery.contains(record);
    const quint64 generation = m_workspaceGeneration;
    m_surgeryRunning = true;

    auto job = [before, ops, firstSurgery]() {
        SurgeryOutcome out;
        const PatchRecordSource donors = [](const std::string& file) { return openRecord(file); };
        std::vector<PatchOpReport> reports;
        auto patched = applyPatch(*before.record, ops, donors, &reports);
        if (!patched) {
            out.error = QString::fromStdString(patched.error().message());
            return out;
        }
        for (const PatchOp& o : ops) {
            std::string digest;
            if (o.kind == PatchOp::Kind::Transplant) {
                auto d = fileSha256(o.from);
                if (!d) {
                    out.error = QString::fromStdString(Error(d.error()).withFile(o.from).message());
                    return out;
                }
                digest = *d;
            }
            out.donorSha256.push_back(std::move(digest));
        }
        if (firstSurgery) {
            auto d = fileSha256(before.path.toStdString());
            if (!d) {
                out.error = QString::fromStdString(Error(d.error()).withFile(before.path.toStdString()).message());
                return out;
            }
            out.sourceSha256 = *d;
        }
        const auto checks = checkResume(**patched);
        out.readiness = QString::fromUtf8(resumeReadiness(checks).data(), qsizetype(resumeReadiness(checks).size()));
        for (const auto& c : checks)
            if (c.status != ResumeCheck::Status::Ok)
                out.checks << QStringLiteral("[%1] %2: %3").arg(QString::fromUtf8(resumeStatusName(c.status).data()), QString::fromStdString(c.name),
                    QString::fromStdString(c.detail));
        out.summary = reports.empty() ? QString() : QString::fromStdString(reports.back().summary);
        out.after = loadedRecordOf(std::move(*patched), before.path);
        return out;
    };
    whenReady(runInBackground(job), this, [this, record, before, editsBefore, ops, generation, op](SurgeryOutcome out) {
        m_surgeryRunning = false;
        // The workspace may have been replaced, or the record edited, while the job ran: a patch of what
        // is no longer shown must not land.
        if (generation != m_workspaceGeneration || size_t(record) >= m_workspace.records.size()
            || m_workspace.records[size_t(record)].record != before.record || overridesOf(record) != editsBefore) {
            Q_EMIT surgeryFinished(record, {}, {}, {}, tr("the record changed while the operation ran; nothing was applied"));
            return;
        }
        if (!out.error.isEmpty()) {
            Q_EMIT surgeryFinished(record, {}, {}, {}, out.error);
            return;
        }
        SurgeryCommand::Step step;
        step.record = record;
        step.before = before;
        step.after = std::move(out.after);
        step.editsBefore = editsBefore;
        step.ops = ops;
        step.donorSha256 = std::move(out.donorSha256);
        step.sourceSha256 = std::move(out.sourceSha256);
        m_undoStack->push(new SurgeryCommand(this, std::move(step), QString::fromStdString(describePatchOp(op))));
        Q_EMIT surgeryFinished(record, out.summary, out.readiness, out.checks, {});
    });
}

std::vector<PatchOp> CheckpointDocument::surgeryOf(int record) const
{
    auto it = m_surgery.find(record);
    return it == m_surgery.end() ? std::vector<PatchOp>() : it->second.ops;
}

void CheckpointDocument::applySurgery(const SurgeryCommand::Step& step)
{
    SurgeryLog& log = m_surgery[step.record];
    if (log.ops.empty()) {
        log.source = absolutePath(step.before.path);
        log.sourceSha256 = step.sourceSha256;
    }
    log.ops.insert(log.ops.end(), step.ops.begin(), step.ops.end());
    log.donorSha256.insert(log.donorSha256.end(), step.donorSha256.begin(), step.donorSha256.end());
    for (auto it = step.editsBefore.cbegin(); it != step.editsBefore.cend(); ++it)
        m_overrides.remove(it.key());
    m_workspace.records[size_t(step.record)] = step.after;
    Q_EMIT workspaceChanged();
}

void CheckpointDocument::revertSurgery(const SurgeryCommand::Step& step)
{
    // Undo runs in reverse order, so this step's operations are the last of the log.
    auto it = m_surgery.find(step.record);
    if (it != m_surgery.end()) {
        it->second.ops.resize(it->second.ops.size() - std::min(it->second.ops.size(), step.ops.size()));
        it->second.donorSha256.resize(it->second.ops.size());
        if (it->second.ops.empty())
            m_surgery.erase(it);
    }
    for (auto k = m_overrides.begin(); k != m_overrides.end();)
        k = int(k.key() >> 32) == step.record ? m_overrides.erase(k) : std::next(k);
    for (auto e = step.editsBefore.cbegin(); e != step.editsBefore.cend(); ++e)
        m_overrides.insert(e.key(), e.value());
    m_workspace.records[size_t(step.record)] = step.before;
    Q_EMIT workspaceChanged();
}

QString CheckpointDocument::writeSidecar(int record, const QString& path)
{
    const SurgeryLog& log = m_surgery.at(record);
    PatchProvenance p;
    p.source = log.source.toStdString();
    p.sourceSha256 = log.sourceSha256;
    p.operations = log.ops;
    p.donorSha256 = log.donorSha256;
    for (const Edit& e : editsOf(record)) { // value edits made after the last surgery step
        p.operations.push_back(setOperation(e));
        p.donorSha256.emplace_back();
    }
    p.tool = "checkpoint-inspector " CKPT_VERSION " (" CKPT_GIT_REVISION ")";
    if (auto checks = finishPatchSidecar(p, absolutePath(path).toStdString(), {}); !checks)
        return QString::fromStdString(checks.error().message());
    return {};
}

} // namespace ckpt::ui
