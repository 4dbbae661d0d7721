// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/document/checkpointdocument.h"

#include "ui/async/statsjob.h"
#include "ui/commands/setvaluecommand.h"

#include "core/edit/edit.h"

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

QVariant scalarValue(const Tape& tape, uint32_t node)
{
    const Node& n = tape[node];
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
    case Kind::UInt: {
        const qulonglong v = t.toULongLong(&ok);
        if (!ok || t.startsWith(QLatin1Char('-'))) {
            *why = QObject::tr("expected an unsigned integer (u64), found \"%1\"").arg(t);
            return {};
        }
        return v;
    }
    case Kind::Int: {
        const qlonglong v = t.toLongLong(&ok);
        if (!ok) {
            *why = QObject::tr("expected a signed integer (i64), found \"%1\"").arg(t);
            return {};
        }
        return v;
    }
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

Result<Tape> CheckpointDocument::editedTape(int record) const
{
    const LoadedRecord& lr = m_workspace.records[size_t(record)];
    std::map<uint32_t, QVariant> byNode; // node order = file order, so edits apply deterministically
    for (auto it = m_overrides.cbegin(); it != m_overrides.cend(); ++it)
        if (int(it.key() >> 32) == record)
            byNode.emplace(uint32_t(it.key() & 0xffffffffu), it.value());
    std::vector<Edit> edits;
    for (const auto& [node, v] : byNode)
        edits.push_back(Edit{nodePath(lr, node), jsonOf(v)});
    return applyEdits(*lr.record, edits);
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
    const auto edited = editedRecords();
    if (edited.size() > 1)
        return tr("edits span %1 files; use Save to write each in place").arg(edited.size());
    const int r = edited.empty() ? m_workspace.stateRecord() : edited.front();
    if (r < 0)
        return tr("nothing to save: no opened record has editable state");
    if (QString error = writeRecord(r, path); !error.isEmpty())
        return error;
    m_undoStack->setClean();
    Q_EMIT saved(path);
    return {};
}

} // namespace ckpt::ui
