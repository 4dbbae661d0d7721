// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Editing beyond the caller state: scheduler state and metadata fields of a real ckpt-train
// TrainingRecord through undo commands that core validates, undo/redo of interleaved edits, and Export
// to another recorder and precision (loss listed and accepted first); the exported record resumes.
#include "core/open/formats.h"
#include "ui/document/checkpointdocument.h"
#include "ui/widgets/exportdialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>
#include <QListWidget>
#include <QProcess>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace ckpt;
using namespace ckpt::ui;

namespace {
const QString kTrain = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");

QString train(const QString& dir, QString* error)
{
    QProcess p;
    p.start(kTrain, {QStringLiteral("--out"), dir, QStringLiteral("--steps"), QStringLiteral("6"), QStringLiteral("--checkpoint-every"),
                        QStringLiteral("6"), QStringLiteral("--scheduler"), QStringLiteral("cosine"), QStringLiteral("--sched-iters"),
                        QStringLiteral("50"), QStringLiteral("--layout"), QStringLiteral("training-record"), QStringLiteral("--dataset-size"),
                        QStringLiteral("64"), QStringLiteral("--batch-size"), QStringLiteral("8"), QStringLiteral("--hidden"), QStringLiteral("8")});
    if (!p.waitForFinished(60000) || p.exitCode() != 0) {
        *error = QString::fromUtf8(p.readAllStandardError());
        return {};
    }
    return QDir(dir).filePath(QStringLiteral("checkpoint/record-6.mpk"));
}

uint32_t metadataField(const Record& r, std::string_view name)
{
    const auto meta = r.tape.find(r.tape.root(), "metadata");
    const auto field = meta ? r.tape.find(*meta, name) : std::nullopt;
    return field.value_or(UINT32_MAX);
}
} // namespace

class TstUiEdits : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void schedulerAndMetadataUndoRedo()
    {
        QTemporaryDir dir;
        QString error;
        const QString path = train(dir.path(), &error);
        QVERIFY2(!path.isEmpty(), qPrintable(error));
        CheckpointDocument doc;
        doc.setWorkspace(loadWorkspace({path}, Progress::none()));
        const Record& rec = *doc.workspace().records[0].record;
        QVERIFY(rec.schedulerNode.has_value());
        const uint32_t sched = *rec.schedulerNode; // CosineAnnealingLrRecord: current_iter, a usize
        const uint32_t version = metadataField(rec, "version");
        QVERIFY(version != UINT32_MAX);
        QVERIFY(doc.isEditable(0, sched));
        QVERIFY(doc.isEditable(0, version));
        // whatever the trainer recorded after 6 steps (initialLrSchedulerState + 6 steps in core/record/schedule.cpp)
        const qulonglong recorded = doc.value(0, sched).toULongLong();
        QCOMPARE(recorded, 5ull);
        const QString originalVersion = doc.value(0, version).toString();

        // rejected by type before any command: the stack stays empty
        QVERIFY(!doc.requestEdit(0, sched, QStringLiteral("-1")).isEmpty());
        QVERIFY(!doc.requestEdit(0, sched, QStringLiteral("2.5")).isEmpty());
        QCOMPARE(doc.undoStack()->count(), 0);
        // tensors and parameter ids are not editable here
        QVERIFY(!doc.isEditable(0, rec.tensors.at(0).node));

        QCOMPARE(doc.requestEdit(0, sched, QStringLiteral("20"), QStringLiteral("scheduler")), QString());
        QCOMPARE(doc.requestEdit(0, version, QStringLiteral("0.21.0-edited"), QStringLiteral("metadata.version")), QString());
        QCOMPARE(doc.requestEdit(0, sched, QStringLiteral("21"), QStringLiteral("scheduler")), QString()); // not merged: another edit came between
        QCOMPARE(doc.undoStack()->count(), 3);
        QCOMPARE(doc.value(0, sched).toULongLong(), 21ull);
        QCOMPARE(doc.value(0, version).toString(), QStringLiteral("0.21.0-edited"));

        doc.undoStack()->undo();
        QCOMPARE(doc.value(0, sched).toULongLong(), 20ull);
        QCOMPARE(doc.value(0, version).toString(), QStringLiteral("0.21.0-edited"));
        doc.undoStack()->undo();
        QCOMPARE(doc.value(0, version).toString(), originalVersion);
        QCOMPARE(doc.value(0, sched).toULongLong(), 20ull);
        doc.undoStack()->undo();
        QCOMPARE(doc.value(0, sched).toULongLong(), recorded);
        QVERIFY(!doc.isModified());
        QVERIFY(doc.editedRecords().empty());
        doc.undoStack()->redo();
        doc.undoStack()->redo();
        QCOMPARE(doc.value(0, sched).toULongLong(), 20ull);
        QCOMPARE(doc.value(0, version).toString(), QStringLiteral("0.21.0-edited"));
        QVERIFY(doc.isModified());

        // the edited tape is what core writes: both edits, nothing else changed
        auto tape = doc.editedTape(0);
        QVERIFY2(tape.has_value(), tape ? "" : tape.error().message().c_str());
        auto reindexed = indexRecord(std::move(*tape), rec.recorder, "edited");
        QVERIFY(reindexed.has_value());
        QCOMPARE((*reindexed)->tape.asU64(*(*reindexed)->schedulerNode).value_or(0), 20ull);
        QCOMPARE((*reindexed)->metadata.version, std::string("0.21.0-edited"));
        QCOMPARE((*reindexed)->tensors.size(), rec.tensors.size());

        // Export (lossless: full -> double, NamedMpk -> JsonGz): the edits are in the new file, the
        // opened record keeps its unsaved edits, and ckpt-train resumes the export, honouring the edit.
        const QString exported = dir.filePath(QStringLiteral("exported.json.gz"));
        auto preview = doc.previewExport(doc.exportRecord(), Recorder::JsonGz, Precision::Double);
        QVERIFY(preview.has_value());
        QVERIFY2(preview->warnings.empty(), preview->warnings.empty() ? "" : preview->warnings.front().c_str());
        QStringList warnings;
        QCOMPARE(doc.exportAs(doc.exportRecord(), exported, Recorder::JsonGz, Precision::Double, &warnings), QString());
        QVERIFY(warnings.isEmpty());
        QVERIFY(doc.isModified());
        auto reopened = openRecord(exported.toStdString());
        QVERIFY2(reopened.has_value(), reopened ? "" : reopened.error().message().c_str());
        QCOMPARE((*reopened)->recorder, Recorder::JsonGz);
        QCOMPARE((*reopened)->precision, Precision::Double);
        QCOMPARE((*reopened)->tape.asU64(*(*reopened)->schedulerNode).value_or(0), 20ull);
        QCOMPARE((*reopened)->metadata.version, std::string("0.21.0-edited"));
        QProcess p;
        p.start(kTrain, {QStringLiteral("--resume"), exported, QStringLiteral("--out"), dir.filePath(QStringLiteral("resumed")), QStringLiteral("--steps"),
                            QStringLiteral("8")});
        QVERIFY(p.waitForFinished(60000));
        const QString out = QString::fromUtf8(p.readAllStandardOutput());
        QVERIFY2(p.exitCode() == 0, qPrintable(QString::fromUtf8(p.readAllStandardError())));
        QVERIFY2(out.contains(QLatin1String("scheduler state edited")) && out.contains(QLatin1String("double precision JsonGz")), qPrintable(out));
        QVERIFY(out.contains(QLatin1String("step=8 ")));
    }

    /** Half precision loses bits: the dialog lists it and exports only once the loss is accepted. */
    void exportWarnsBeforeLosingPrecision()
    {
        QTemporaryDir dir;
        QString error;
        const QString path = train(dir.path(), &error);
        QVERIFY2(!path.isEmpty(), qPrintable(error));
        CheckpointDocument doc;
        doc.setWorkspace(loadWorkspace({path}, Progress::none()));
        ExportDialog dialog(&doc, doc.exportRecord());
        // opens on the record's own recorder and precision: nothing lost, Export enabled
        QCOMPARE(dialog.recorder(), Recorder::NamedMpk);
        QCOMPARE(dialog.precision(), Precision::Full);
        QVERIFY(dialog.warnings().isEmpty());
        QVERIFY(dialog.exportButton()->isEnabled());

        dialog.precisionBox()->setCurrentIndex(dialog.precisionBox()->findData(int(Precision::Half)));
        QVERIFY(!dialog.warnings().isEmpty());
        QVERIFY2(dialog.warnings().join(u' ').contains(QLatin1String("F16"), Qt::CaseInsensitive) || dialog.warnings().join(u' ').contains(QLatin1String("half"), Qt::CaseInsensitive),
            qPrintable(dialog.warnings().join(u'\n')));
        QCOMPARE(dialog.warningList()->count(), dialog.warnings().size());
        QVERIFY(!dialog.exportButton()->isEnabled());
        const QString target = dir.filePath(QStringLiteral("half.bin"));
        dialog.recorderBox()->setCurrentIndex(dialog.recorderBox()->findData(int(Recorder::Bin)));
        dialog.pathEdit()->setText(target);
        QVERIFY(!dialog.exportNow().isEmpty()); // refused: the loss is not accepted
        QVERIFY(!QFileInfo::exists(target));
        dialog.acceptLossBox()->setChecked(true);
        QVERIFY(dialog.exportButton()->isEnabled());
        if (const QString shots = qEnvironmentVariable("CKPT_UI_SHOTS"); !shots.isEmpty()) {
            dialog.show();
            QVERIFY(QTest::qWaitForWindowExposed(&dialog));
            dialog.grab().save(QDir(shots).filePath(QStringLiteral("export-dialog.png")));
        }
        QCOMPARE(dialog.exportNow(), QString());
        QCOMPARE(dialog.result(), int(QDialog::Accepted));
        auto reopened = openRecord(target.toStdString());
        QVERIFY2(reopened.has_value(), reopened ? "" : reopened.error().message().c_str());
        QCOMPARE((*reopened)->precision, Precision::Half);
        QCOMPARE((*reopened)->recorder, Recorder::Bin);
        // back to a lossless choice: the acceptance does not carry over
        dialog.precisionBox()->setCurrentIndex(dialog.precisionBox()->findData(int(Precision::Double)));
        QVERIFY(dialog.warnings().isEmpty());
        QVERIFY(!dialog.acceptLossBox()->isChecked());
    }
};

QTEST_MAIN(TstUiEdits)
#include "tst_uiedits.moc"
