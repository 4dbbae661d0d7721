// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/open/formats.h"
#include "ui/document/checkpointdocument.h"
#include "ui/models/recordtreemodel.h"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUndoStack>

#include <atomic>

using namespace ckpt;
using namespace ckpt::ui;

class TestUiDocument : public QObject
{
    Q_OBJECT
private:
    static QString scheduler() { return QStringLiteral(CKPT_FIXTURES "/runs/mechint-0.20.0-pre.6/checkpoint/scheduler-3.mpk"); }

private Q_SLOTS:
    void replacedWorkspaceIsReleasedOffTheGuiThread()
    {
        // The record's deleter says where the last reference went: unmapping a large record's file
        // takes tens of milliseconds, which must not be spent in the GUI's turn.
        Workspace ws = loadWorkspace({scheduler()}, Progress::none());
        QVERIFY2(ws.errors.isEmpty(), qPrintable(ws.errors.join(QLatin1Char('\n'))));
        QVERIFY(!ws.records.empty());
        auto released = std::make_shared<std::atomic<QThread*>>(nullptr);
        const Record* raw = new Record(*ws.records[0].record);
        ws.records[0].record = std::shared_ptr<const Record>(raw, [released](const Record* r) {
            released->store(QThread::currentThread());
            delete r;
        });
        CheckpointDocument doc;
        doc.setWorkspace(std::move(ws));
        QCOMPARE(released->load(), nullptr);
        QSignalSpy changed(&doc, &CheckpointDocument::workspaceChanged);
        doc.setWorkspace(Workspace{});
        QCOMPARE(changed.size(), 1);
        QVERIFY(doc.workspace().records.empty());
        QTRY_VERIFY(released->load() != nullptr);
        QVERIFY(released->load() != QThread::currentThread());
    }

    void editUndoRedoSave()
    {
        CheckpointDocument doc;
        RecordTreeModel model(&doc, RecordTreeModel::Mode::Scheduler);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        Workspace ws = loadWorkspace({scheduler()}, Progress::none());
        QVERIFY2(ws.errors.isEmpty(), qPrintable(ws.errors.join(QLatin1Char('\n'))));
        doc.setWorkspace(std::move(ws));
        const Record& rec = *doc.workspace().records[0].record;
        QVERIFY(rec.schedulerNode.has_value());
        const uint32_t node = *rec.schedulerNode;
        QCOMPARE(doc.value(0, node).toULongLong(), 0ull);
        QVERIFY(doc.isEditable(0, node));
        QVERIFY(!doc.isModified());

        // through the model, as the view edits: setData pushes a command, never mutates directly
        const QModelIndex idx = model.index(0, RecordTreeModel::ValueColumn);
        QVERIFY(model.flags(idx) & Qt::ItemIsEditable);
        QSignalSpy changed(&model, &QAbstractItemModel::dataChanged);
        QVERIFY(model.setData(idx, QStringLiteral("7")));
        QCOMPARE(changed.count(), 1);
        QCOMPARE(doc.value(0, node).toULongLong(), 7ull);
        QCOMPARE(idx.data().toString(), QStringLiteral("7"));
        QVERIFY(doc.isModified());
        QCOMPARE(doc.undoStack()->count(), 1);

        // a second edit of the same value merges into one undo step
        QVERIFY(model.setData(idx, QStringLiteral("9")));
        QCOMPARE(doc.undoStack()->count(), 1);
        QCOMPARE(doc.value(0, node).toULongLong(), 9ull);

        // wrong type / range is rejected with a message and changes nothing
        QVERIFY(!model.setData(idx, QStringLiteral("-1")));
        QVERIFY(model.lastError().contains(QLatin1String("unsigned")));
        QVERIFY(!model.setData(idx, QStringLiteral("abc")));
        QCOMPARE(doc.value(0, node).toULongLong(), 9ull);

        doc.undoStack()->undo();
        QCOMPARE(doc.value(0, node).toULongLong(), 0ull);
        QVERIFY(!doc.isModified());
        doc.undoStack()->redo();
        QCOMPARE(doc.value(0, node).toULongLong(), 9ull);
        QVERIFY(doc.isModified());

        // Save As re-encodes atomically; the stack becomes clean only then
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("scheduler-edited.mpk"));
        QSignalSpy modified(&doc, &CheckpointDocument::modifiedChanged);
        QCOMPARE(doc.saveAs(out), QString());
        QVERIFY(!doc.isModified());
        QVERIFY(modified.count() >= 1);
        auto reopened = openRecord(out.toStdString());
        QVERIFY2(reopened.has_value(), reopened ? "" : reopened.error().message().c_str());
        QVERIFY((*reopened)->schedulerNode.has_value());
        QCOMPARE((*reopened)->tape.asU64(*(*reopened)->schedulerNode).value_or(0), 9ull);
        QCOMPARE((*reopened)->metadata.version, rec.metadata.version);
        // the original file is untouched
        auto original = openRecord(scheduler().toStdString());
        QVERIFY(original.has_value());
        QCOMPARE((*original)->tape.asU64(*(*original)->schedulerNode).value_or(99), 0ull);
    }

    void metadataIsEditableAsString()
    {
        CheckpointDocument doc;
        doc.setWorkspace(loadWorkspace({scheduler()}, Progress::none()));
        const Record& rec = *doc.workspace().records[0].record;
        const auto meta = rec.tape.find(rec.tape.root(), "metadata");
        QVERIFY(meta.has_value());
        const auto version = rec.tape.find(*meta, "version");
        QVERIFY(version.has_value());
        QCOMPARE(doc.requestEdit(0, *version, QStringLiteral("0.20.0")), QString());
        QCOMPARE(doc.value(0, *version).toString(), QStringLiteral("0.20.0"));
        doc.undoStack()->undo();
        QCOMPARE(doc.value(0, *version).toString(), QStringLiteral("0.20.0-pre.6"));
    }

    void parseScalarByKind_data()
    {
        QTest::addColumn<int>("kind");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("accepted");
        QTest::addRow("u64 ok") << int(Kind::UInt) << QStringLiteral("42") << true;
        QTest::addRow("u64 negative") << int(Kind::UInt) << QStringLiteral("-3") << false;
        QTest::addRow("i64 negative") << int(Kind::Int) << QStringLiteral("-3") << true;
        QTest::addRow("f32 overflow") << int(Kind::F32) << QStringLiteral("1e39") << false;
        QTest::addRow("f64 ok") << int(Kind::F64) << QStringLiteral("1e39") << true;
        QTest::addRow("bool word") << int(Kind::Bool) << QStringLiteral("true") << true;
        QTest::addRow("bool digit") << int(Kind::Bool) << QStringLiteral("1") << false;
        QTest::addRow("string") << int(Kind::Str) << QStringLiteral("anything") << true;
        // A 64-bit field keeps to 64 bits; beyond is refused, not rounded.
        QTest::addRow("u64 max") << int(Kind::UInt) << QStringLiteral("18446744073709551615") << true;
        QTest::addRow("u64 + 1") << int(Kind::UInt) << QStringLiteral("18446744073709551616") << false;
        QTest::addRow("i64 min") << int(Kind::Int) << QStringLiteral("-9223372036854775808") << true;
        QTest::addRow("i64 min - 1") << int(Kind::Int) << QStringLiteral("-9223372036854775809") << false;
        QTest::addRow("i64 fraction") << int(Kind::Int) << QStringLiteral("1.5") << false;
    }

    void parseScalarByKind()
    {
        QFETCH(int, kind);
        QFETCH(QString, text);
        QFETCH(bool, accepted);
        TapeBuilder b;
        switch (Kind(kind)) {
        case Kind::UInt: b.uinteger(1); break;
        case Kind::Int: b.integer(-1); break;
        case Kind::F32: b.f32(1); break;
        case Kind::F64: b.f64(1); break;
        case Kind::Bool: b.boolean(false); break;
        default: b.str("x"); break;
        }
        const Tape tape = std::move(b).finish();
        QString why;
        const QVariant v = parseScalar(tape, 0, text, &why);
        QCOMPARE(v.isValid(), accepted);
        QCOMPARE(why.isEmpty(), accepted);
    }

    void wideIntegersExactly_data()
    {
        QTest::addColumn<bool>("isSigned");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shown"); // empty: refused
        QTest::addRow("u128 max") << false << QStringLiteral("340282366920938463463374607431768211455")
                                  << QStringLiteral("340282366920938463463374607431768211455");
        QTest::addRow("u128 small") << false << QStringLiteral("5") << QStringLiteral("5");
        QTest::addRow("u128 + 1") << false << QStringLiteral("340282366920938463463374607431768211456") << QString();
        QTest::addRow("u128 negative") << false << QStringLiteral("-1") << QString();
        QTest::addRow("i128 min") << true << QStringLiteral("-170141183460469231731687303715884105728")
                                  << QStringLiteral("-170141183460469231731687303715884105728");
        QTest::addRow("i128 max") << true << QStringLiteral("170141183460469231731687303715884105727")
                                  << QStringLiteral("170141183460469231731687303715884105727");
        QTest::addRow("i128 max + 1") << true << QStringLiteral("170141183460469231731687303715884105728") << QString();
        QTest::addRow("i128 min - 1") << true << QStringLiteral("-170141183460469231731687303715884105729") << QString();
        QTest::addRow("i128 -2^64") << true << QStringLiteral("-18446744073709551616") << QStringLiteral("-18446744073709551616");
    }
    void wideIntegersExactly()
    {
        // A node that holds a u128 / i128 beyond 64 bits: shown with every digit, edited exactly.
        QFETCH(bool, isSigned);
        QFETCH(QString, text);
        QFETCH(QString, shown);
        TapeBuilder b;
        if (isSigned)
            b.integer128(kInt128Min);
        else
            b.uinteger128(kUInt128Max);
        const Tape tape = std::move(b).finish();
        QCOMPARE(scalarValue(tape, 0).toString(),
            isSigned ? QStringLiteral("-170141183460469231731687303715884105728") : QStringLiteral("340282366920938463463374607431768211455"));
        QString why;
        const QVariant v = parseScalar(tape, 0, text, &why);
        QCOMPARE(v.isValid(), !shown.isEmpty());
        if (shown.isEmpty()) {
            QVERIFY2(why.contains(QStringLiteral("128")), qPrintable(why)); // names the field's type
            return;
        }
        QCOMPARE(v.toString(), shown);
        QCOMPARE(QString::fromStdString(jsonOf(v)), shown);
        QCOMPARE(v == scalarValue(tape, 0), shown == scalarValue(tape, 0).toString());
    }
};

QTEST_MAIN(TestUiDocument)
#include "tst_uidocument.moc"
