// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Checkpoint surgery in the app (issue 33, part 2): the operations of `ckpt patch` on an opened
// ckpt-train record as undoable steps, value edits made before a surgery carried through it, undo and
// redo back to the very records, Save As writing the patched record with its sidecar, and the CLI's
// `ckpt patch --replay` of that sidecar giving the app's bytes (the app and the CLI agree).
#include "core/optim/forensics.h"
#include "ui/document/checkpointdocument.h"
#include "ui/graph/graphview.h"
#include "ui/mainwindow.h"
#include "ui/models/modelroles.h"
#include "ui/models/optimizerstatemodel.h"
#include "ui/widgets/optimizerpanel.h"
#include "ui/widgets/tensordetailwidget.h"
#include "core/open/formats.h"

#include "core/codec/json.h"

#include <QDir>

#include <cstring>
#include <limits>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUndoStack>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

int runProgram(const QString& program, const QStringList& args, QByteArray* err = nullptr)
{
    QProcess p;
    p.start(QStringLiteral(CKPT_BIN_DIR "/") + program, args);
    if (!p.waitForFinished(120000))
        return -1;
    if (err)
        *err = p.readAllStandardError();
    return p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
}

QByteArray contents(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

uint32_t nodeAt(const Record& r, std::string_view path)
{
    auto steps = parsePath(path);
    auto node = steps ? resolvePath(r.tape, *steps) : Result<uint32_t>(std::unexpected(Error {}));
    return node ? *node : UINT32_MAX;
}

/// Waits for one surgeryFinished and returns its error ("" on success).
QString waitForSurgery(QSignalSpy& spy)
{
    if (!spy.wait(60000) && spy.isEmpty())
        return QStringLiteral("timed out");
    const QList<QVariant> args = spy.takeFirst();
    return args.at(4).toString();
}

} // namespace

class TstSurgery : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_run;
    QString record(int step) const { return m_run + QStringLiteral("/checkpoint/record-%1.mpk").arg(step); }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("CheckpointInspectorTests"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
        m_run = m_dir.filePath(QStringLiteral("run"));
        QByteArray err;
        QCOMPARE(runProgram(QStringLiteral("ckpt-train"), {QStringLiteral("--out"), m_run, QStringLiteral("--steps"), QStringLiteral("8"),
                     QStringLiteral("--checkpoint-every"), QStringLiteral("4"), QStringLiteral("--scheduler"), QStringLiteral("cosine"),
                     QStringLiteral("--layout"), QStringLiteral("training-record")},
                     &err),
            0);
    }

    void surgeryIsUndoableAndReplaysInTheCli()
    {
        CheckpointDocument doc;
        doc.setWorkspace(loadWorkspace({record(8)}, Progress::none()));
        QCOMPARE(doc.workspace().records.size(), size_t(1));
        const auto original = doc.workspace().records[0].record;
        QSignalSpy finished(&doc, &CheckpointDocument::surgeryFinished);

        // A value edit first: it must come through the surgery (as a `set` operation), and come back on undo.
        const uint32_t cursor = nodeAt(*original, "item[4].progress.data_cursor");
        QVERIFY(cursor != UINT32_MAX);
        QCOMPARE(doc.requestEdit(0, cursor, QStringLiteral("0")), QString());

        doc.requestSurgery(0, PatchOp {PatchOp::Kind::ResetOptimizer, "item[0].output.*"});
        QVERIFY(doc.surgeryRunning());
        QCOMPARE(waitForSurgery(finished), QString());
        const auto reset = doc.workspace().records[0].record;
        QVERIFY(reset != original);
        QCOMPARE(reset->optimizer.size(), original->optimizer.size() - 2);
        QCOMPARE(reset->tape.asU64(nodeAt(*reset, "item[4].progress.data_cursor")).value_or(99), uint64_t(0)); // the edit, now in the tape
        QVERIFY(doc.editedRecords().empty());

        PatchOp rewind;
        rewind.kind = PatchOp::Kind::SchedulerStep;
        rewind.step = 4;
        doc.requestSurgery(0, rewind);
        QCOMPARE(waitForSurgery(finished), QString());
        PatchOp transplant;
        transplant.kind = PatchOp::Kind::Transplant;
        transplant.from = record(4).toStdString();
        transplant.glob = "item[0].norm.*";
        doc.requestSurgery(0, transplant);
        QCOMPARE(waitForSurgery(finished), QString());
        const auto patched = doc.workspace().records[0].record;
        QCOMPARE(doc.undoStack()->count(), 4); // the edit and three surgery steps
        QCOMPARE(doc.surgeryOf(0).size(), size_t(4)); // set, reset, scheduler, transplant

        // A failing operation changes nothing and says why.
        doc.requestSurgery(0, PatchOp {PatchOp::Kind::ResetOptimizer, "no.such.*"});
        QVERIFY(waitForSurgery(finished).contains(QLatin1String("no parameter matches no.such.*")));
        QCOMPARE(doc.undoStack()->count(), 4);
        QCOMPARE(doc.workspace().records[0].record, patched);

        // Undo walks back to the very records, with the value edit as it was.
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QCOMPARE(doc.workspace().records[0].record, reset);
        doc.undoStack()->undo();
        QCOMPARE(doc.workspace().records[0].record, original);
        QCOMPARE(doc.value(0, cursor).toULongLong(), 0ull);
        QVERIFY(!doc.hasSurgery());
        for (int i = 0; i < 3; ++i)
            doc.undoStack()->redo();
        QCOMPARE(doc.workspace().records[0].record, patched);
        QVERIFY(doc.hasSurgery());

        // Saved beside the source, never over it; with its provenance.
        QVERIFY(!doc.save().isEmpty());
        QVERIFY(!doc.saveAs(record(8)).isEmpty());
        QCOMPARE(contents(record(8)), contents(QString::fromStdString(original->file)));
        const QString out = m_dir.filePath(QStringLiteral("patched.mpk"));
        QCOMPARE(doc.saveAs(out), QString());
        QVERIFY(!doc.isModified());
        const QJsonObject sidecar = QJsonDocument::fromJson(contents(out + QStringLiteral(".patch.json"))).object();
        QCOMPARE(sidecar[QLatin1String("source")].toObject()[QLatin1String("file")].toString(), record(8));
        QCOMPARE(sidecar[QLatin1String("operations")].toArray().size(), 4);
        QVERIFY(sidecar[QLatin1String("tool")].toString().startsWith(QLatin1String("checkpoint-inspector ")));

        // The CLI repeats the app's surgery from the sidecar: the same bytes.
        const QString again = m_dir.filePath(QStringLiteral("again.mpk"));
        QByteArray err;
        QCOMPARE(runProgram(QStringLiteral("ckpt"), {QStringLiteral("patch"), QStringLiteral("--replay"), out + QStringLiteral(".patch.json"),
                     QStringLiteral("-o"), again},
                     &err),
            0);
        QCOMPARE(contents(again), contents(out));
    }

    /** Zeroing non-finite moments from the panel: the NaN planted in a moment is gone, and back after undo. */
    void zeroNonFiniteIsUndoable()
    {
        auto rec = openRecord(record(8).toStdString());
        QVERIFY(rec.has_value());
        const TensorEntry* moment = nullptr;
        for (const auto& t : (*rec)->tensors)
            if (t.role == TensorRole::Optimizer && t.dtype == DType::F32 && t.offset)
                moment = &t;
        QVERIFY(moment);
        QByteArray bytes = contents(record(8));
        const float nan = std::numeric_limits<float>::quiet_NaN();
        std::memcpy(bytes.data() + *moment->offset, &nan, sizeof nan);
        const QString damaged = m_dir.filePath(QStringLiteral("nan.mpk"));
        {
            QFile f(damaged);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(bytes);
        }
        CheckpointDocument doc;
        doc.setWorkspace(loadWorkspace({damaged}, Progress::none()));
        OptimizerPanel panel(&doc);
        QSignalSpy finished(&doc, &CheckpointDocument::surgeryFinished);
        const auto before = doc.workspace().records[0].record;
        const std::string path = moment->path;
        auto nanCount = [&](const Record& r) { return r.stats(r.tensors[*r.findTensor(path)]).nan; };
        QCOMPARE(nanCount(*before), uint64_t(1));
        panel.zeroNonFiniteMoments();
        QCOMPARE(waitForSurgery(finished), QString());
        QCOMPARE(finished.isEmpty(), true);
        QCOMPARE(nanCount(*doc.workspace().records[0].record), uint64_t(0));
        doc.undoStack()->undo();
        QCOMPARE(doc.workspace().records[0].record, before);
        QCOMPARE(nanCount(*doc.workspace().records[0].record), uint64_t(1));
    }

    /** The Optimizer panel's context actions act on the selected parameter's record. */
    void optimizerPanelResetsTheSelectedParameter()
    {
        CheckpointDocument doc;
        doc.setWorkspace(loadWorkspace({record(8)}, Progress::none()));
        OptimizerPanel panel(&doc);
        const auto original = doc.workspace().records[0].record;
        const std::string id = original->optimizer.front().paramId;
        QVERIFY(panel.selectParam(QString::fromStdString(id)));
        QSignalSpy finished(&doc, &CheckpointDocument::surgeryFinished);
        panel.resetSelectedOptimizerState();
        QCOMPARE(waitForSurgery(finished), QString());
        const auto after = doc.workspace().records[0].record;
        QCOMPARE(after->optimizer.size(), original->optimizer.size() - 1);
        for (const auto& oe : after->optimizer)
            QVERIFY(oe.paramId != id);
        QCOMPARE(panel.model()->rowCount(), int(after->optimizer.size()));
        doc.undoStack()->undo();
        QCOMPARE(panel.model()->rowCount(), int(original->optimizer.size()));
    }

    /**
     * A suspect leads to its tensors and its graph node: with a diverged record and the GradientCheckpoint
     * of the same step open, picking the first suspect in the Optimizer panel selects its parameter
     * tensor and the graph node whose `weight` is that parameter.
     */
    void suspectLeadsToItsTensorAndGraphNode()
    {
        const QString run = m_dir.filePath(QStringLiteral("diverged"));
        QByteArray err;
        QCOMPARE(runProgram(QStringLiteral("ckpt-train"), {QStringLiteral("--out"), run, QStringLiteral("--steps"), QStringLiteral("8"),
                     QStringLiteral("--checkpoint-every"), QStringLiteral("8"), QStringLiteral("--diverge-at"), QStringLiteral("5"),
                     QStringLiteral("--layout"), QStringLiteral("all")},
                     &err),
            0);
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPaths({run + QStringLiteral("/checkpoint/record-8.mpk"), run + QStringLiteral("/graph/step-8.json")});
        QVERIFY(loaded.wait(60000));
        QVERIFY(QTest::qWaitFor([&] { return w.isIdle(); }, 60000));
        OptimizerPanel* panel = w.optimizerPanel();
        QVERIFY(QTest::qWaitFor([&] { return !panel->isBusy(); }, 60000));
        int suspectRow = -1;
        for (int row = 0; row < panel->model()->rowCount() && suspectRow < 0; ++row)
            if (const ParamForensics* f = panel->model()->forensicsAt(row); f && !f->flags.empty())
                suspectRow = row;
        QVERIFY2(suspectRow >= 0, "a record 3 steps after lr x 10^6 has suspects");
        const QString id = panel->model()->index(suspectRow, 0).data(ParamIdRole).toString();
        auto* proxy = qobject_cast<QSortFilterProxyModel*>(panel->view()->model());
        QVERIFY(proxy);
        const Workspace& ws = w.document()->workspace();
        auto param = ws.findParam(id.toStdString());
        QVERIFY(param);
        const std::string modulePath = ws.records[size_t(param->first)].record->params[param->second].modulePath; // item[0].input.weight
        const QString nodeName = QString::fromStdString(modulePath.substr(modulePath.find("].") + 2));
        // Another parameter first, so that the suspect's selection is seen to move the graph.
        const int otherRow = suspectRow == 0 ? 1 : 0;
        panel->view()->setCurrentIndex(proxy->mapFromSource(panel->model()->index(otherRow, 0)));
        QVERIFY(!w.graphView()->nodeDetail().contains(nodeName));
        panel->view()->setCurrentIndex(proxy->mapFromSource(panel->model()->index(suspectRow, 0))); // as a click does
        const TensorEntry* shown = ws.tensor(w.detail()->tensor());
        QVERIFY(shown);
        QCOMPARE(shown->paramId, id.toStdString()); // its tensors
        QVERIFY2(w.graphView()->nodeDetail().contains(nodeName), qPrintable(w.graphView()->nodeDetail()));
    }

    /** A result for a workspace that was replaced while the job ran is dropped, not applied to the new one. */
    void staleResultIsDropped()
    {
        CheckpointDocument doc;
        doc.setWorkspace(loadWorkspace({record(8)}, Progress::none()));
        QSignalSpy finished(&doc, &CheckpointDocument::surgeryFinished);
        doc.requestSurgery(0, PatchOp {PatchOp::Kind::ResetOptimizer, "item[0].*"});
        doc.setWorkspace(loadWorkspace({record(4)}, Progress::none()));
        const auto reopened = doc.workspace().records[0].record;
        QVERIFY(waitForSurgery(finished).contains(QLatin1String("changed while the operation ran")));
        QCOMPARE(doc.workspace().records[0].record, reopened);
        QCOMPARE(doc.undoStack()->count(), 0);
    }
};

QTEST_MAIN(TstSurgery)
#include "tst_surgery.moc"
