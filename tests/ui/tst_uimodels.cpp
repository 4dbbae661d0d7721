// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/open/formats.h"
#include "ui/async/deferredpaint.h"
#include "ui/async/latencyprobe.h"
#include "ui/document/checkpointdocument.h"
#include "ui/models/modelroles.h"
#include "ui/models/optimizerstatemodel.h"
#include "ui/models/recordtreemodel.h"
#include "ui/models/tensortablemodel.h"
#include "ui/run/metriclog.h"
#include "ui/widgets/aboutdialog.h"
#include "ui/widgets/optimizerpanel.h"

#include <ckpt_version.h>

#include <QAbstractItemModelTester>
#include <QColor>
#include <QFile>
#include <QTemporaryDir>
#include <QProgressBar>
#include <QVBoxLayout>
#include <QSortFilterProxyModel>
#include <QTest>
#include <QThread>
#include <QEventLoop>
#include <QTimer>

#include <qcustomplot.h>

#include <cstring>
#include <limits>

using namespace ckpt;
using namespace ckpt::ui;

class TestUiModels : public QObject
{
    Q_OBJECT
private:
    static QString fixture(const char* rel) { return QStringLiteral(CKPT_FIXTURES "/") + QLatin1String(rel); }

    static Workspace load(const QStringList& inputs)
    {
        Workspace ws = loadWorkspace(inputs, Progress::none());
        if (!ws.errors.isEmpty())
            qWarning() << ws.errors;
        return ws;
    }

    // Walks every index (bounded) so the tester and our parent()/index() agree everywhere.
    static int walk(QAbstractItemModel* m, const QModelIndex& parent, int budget)
    {
        int seen = 0;
        for (int r = 0; r < m->rowCount(parent) && seen < budget; ++r) {
            const QModelIndex i = m->index(r, 0, parent);
            if (i.parent() != parent)
                return -1000000;
            ++seen;
            seen += walk(m, i, budget - seen);
        }
        return seen;
    }

    /** Runs the event loop under \a probe while \a work blocks it once, 20 ms in; ends 50 ms after. */
    static void probeAround(LatencyProbe& probe, const std::function<void()>& work)
    {
        QEventLoop loop;
        probe.start();
        QTimer::singleShot(20, [&] {
            work();
            QTimer::singleShot(50, &loop, &QEventLoop::quit);
        });
        loop.exec();
        probe.stop();
    }

    /** Counts the paint events a widget receives. */
    struct PaintCounter : QObject {
        int paints = 0;
        bool eventFilter(QObject*, QEvent* e) override
        {
            if (e->type() == QEvent::Paint)
                ++paints;
            return false;
        }
    };

private Q_SLOTS:
    void progressAndReplotPaintWithTheWindowNotAtOnce()
    {
        QWidget window;
        auto* layout = new QVBoxLayout(&window);
        auto* bar = new QProgressBar(&window);
        bar->setRange(0, 1000);
        auto* deferred = new QCustomPlot(&window);
        auto* immediate = new QCustomPlot(&window);
        for (QWidget* w : {static_cast<QWidget*>(bar), static_cast<QWidget*>(deferred), static_cast<QWidget*>(immediate)})
            layout->addWidget(w);
        deferPlotRefresh(deferred);
        window.resize(400, 600);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTest::qWait(50);
        PaintCounter barPaints, deferredPaints, immediatePaints;
        bar->installEventFilter(&barPaints);
        deferred->installEventFilter(&deferredPaints);
        immediate->installEventFilter(&immediatePaints);

        // Qt's own calls paint synchronously (else this test could not tell the difference)
        bar->setValue(500);
        immediate->replot();
        QVERIFY(barPaints.paints > 0);
        QVERIFY(immediatePaints.paints > 0);
        QTest::qWait(50);
        barPaints.paints = 0;

        // the helpers: values and plots change, nothing is painted before control returns to the loop
        for (int v = 501; v <= 1000; v += 50)
            setProgressDeferred(bar, v);
        deferred->replot();
        QCOMPARE(bar->value(), 951);
        QCOMPARE(barPaints.paints, 0);
        QCOMPARE(deferredPaints.paints, 0);
        QVERIFY(bar->updatesEnabled());
        // ... and both are painted with the window's next update
        QTRY_VERIFY(barPaints.paints > 0);
        QTRY_VERIFY(deferredPaints.paints > 0);
    }

    void latencyProbeTellsWorkFromWaiting()
    {
        // Work on the GUI thread: 40 ms of its own CPU time inside one interval
        LatencyProbe busy(5);
        probeAround(busy, [] {
            const qint64 until = threadCpuNs() + 40'000'000;
            while (threadCpuNs() < until) {
            }
        });
        QVERIFY(busy.ticks() > 0);
        QVERIFY2(busy.maxBusyMs() >= 40.0, qPrintable(QString::number(busy.maxBusyMs())));
        QVERIFY2(busy.maxLatenessMs() >= 35.0, qPrintable(QString::number(busy.maxLatenessMs())));
        QVERIFY2(busy.worstCpuMs() >= 40.0 || busy.maxLatenessMs() > 40.0, "the worst lateness is the busy interval");
        // Blocked, not working: the timer is as late, but the thread used next to no CPU
        LatencyProbe blocked(5);
        probeAround(blocked, [] { QThread::msleep(60); });
        QVERIFY2(blocked.maxLatenessMs() >= 55.0, qPrintable(QString::number(blocked.maxLatenessMs())));
        QVERIFY2(blocked.maxBusyMs() < 30.0, qPrintable(QString::number(blocked.maxBusyMs())));
#ifdef __linux__
        // ... and it was not waiting for a core either: the scheduler says how long it was runnable
        QVERIFY(blocked.worstRunQueueMs() >= 0.0);
        QVERIFY(blocked.worstRunQueueMs() <= blocked.maxLatenessMs() + 5.0);
#endif
    }

    void recordTree_data()
    {
        QTest::addColumn<QString>("input");
        QTest::addRow("connect4 module") << fixture("models/burn-0.16.1_full_connect4.mpk");
        QTest::addRow("mechint optim") << fixture("runs/mechint-0.20.0-pre.6/checkpoint/optim-3.mpk");
        QTest::addRow("mlplay run dir") << fixture("runs/mlplay-0.16.1");
        QTest::addRow("legacy 0.12 half") << fixture("models/burn-0.12.1_half_nannou-mnist.mpk");
    }
    void recordTree()
    {
        QFETCH(QString, input);
        CheckpointDocument doc;
        RecordTreeModel model(&doc, RecordTreeModel::Mode::Records);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        doc.setWorkspace(load({input}));
        QVERIFY(!doc.workspace().records.empty());
        QCOMPARE(model.rowCount(), int(doc.workspace().records.size()));
        QVERIFY(walk(&model, {}, 20000) > 3);
        // every tensor of the record is reachable and carries its key
        const Record& rec = *doc.workspace().records[0].record;
        QVERIFY(!rec.tensors.empty());
        const QModelIndex t = model.indexOfNode(0, rec.tensors.front().node);
        QVERIFY(t.isValid());
        QCOMPARE(t.data(TensorKeyRole).toString(), (TensorRef{0, 0}.key()));
        QCOMPARE(model.pathOf(0, rec.tensors.front().node), QString::fromStdString(rec.tensors.front().path));
    }

    void tensorTableSortsNumerically()
    {
        CheckpointDocument doc;
        TensorTableModel model(&doc);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        doc.setWorkspace(load({fixture("runs/mlplay-0.16.1")}));
        QVERIFY(model.rowCount() > 3);
        const Workspace& ws = doc.workspace();
        size_t total = 0;
        for (const auto& r : ws.records)
            total += r.record->tensors.size();
        QCOMPARE(model.rowCount(), int(total));
        for (int row = 0; row < model.rowCount(); ++row) {
            const TensorRef ref = model.refAt(row);
            model.setStats(row, ws.records[size_t(ref.record)].record->stats(*ws.tensor(ref), StatsOptions{0, false}));
        }
        QCOMPARE(model.statsCount(), model.rowCount());
        QSortFilterProxyModel proxy;
        proxy.setSourceModel(&model);
        proxy.setSortRole(SortRole);
        for (int column : {int(TensorTableModel::NumelColumn), int(TensorTableModel::MeanColumn)}) {
            proxy.sort(column, Qt::AscendingOrder);
            double previous = -std::numeric_limits<double>::infinity();
            for (int r = 0; r < proxy.rowCount(); ++r) {
                const double v = proxy.index(r, column).data(SortRole).toDouble();
                if (std::isnan(v))
                    continue;
                QVERIFY2(v >= previous, qPrintable(QStringLiteral("column %1 row %2").arg(column).arg(r)));
                previous = v;
            }
        }
        // display text of a big count is grouped, the sort value is the number
        const int numelRow = proxy.rowCount() - 1;
        QVERIFY(proxy.index(numelRow, TensorTableModel::NumelColumn).data(SortRole).toULongLong() > 0);
    }

    void optimizerModel()
    {
        CheckpointDocument doc;
        OptimizerStateModel model(&doc);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        doc.setWorkspace(load({fixture("runs/mechint-0.20.0-pre.6")}));
        const Workspace& ws = doc.workspace();
        const int opt = ws.optimizerRecord();
        QVERIFY(opt >= 0);
        QCOMPARE(model.rowCount(), int(ws.records[size_t(opt)].record->optimizer.size()));
        QVERIFY(walk(&model, {}, 100000) > model.rowCount());
        // each entry's parameter is found in the model record of the same run (cross-link basis)
        const OptimizerEntry* e = model.entryAt(0);
        QVERIFY(e);
        QVERIFY(ws.findParam(e->paramId).has_value());
        QCOMPARE(model.rowOfParam(QString::fromStdString(e->paramId)), 0);
        QVERIFY(!model.index(0, 0).data(TensorKeyRole).toString().isEmpty());
    }

    // What a researcher reads first: optimizer states and gradients by the parameter they belong to,
    // resolved across the files of a run directory, never the record path of the adaptor map.
    void tensorsAndOptimizerEntriesAreNamedByTheirParameter()
    {
        CheckpointDocument doc;
        TensorTableModel tensors(&doc);
        OptimizerStateModel optimizer(&doc);
        doc.setWorkspace(load({fixture("runs/mechint-0.20.0-pre.6")}));
        const Workspace& ws = doc.workspace();
        const auto names = ws.parameterNames();
        QVERIFY(!names.empty());
        int optimizerRows = 0;
        for (int row = 0; row < tensors.rowCount(); ++row) {
            const TensorEntry& t = *ws.tensor(tensors.refAt(row));
            const QString name = tensors.index(row, TensorTableModel::NameColumn).data().toString();
            QVERIFY2(!name.startsWith(QLatin1String("item")), qPrintable(name));
            QCOMPARE(tensors.index(row, TensorTableModel::PathColumn).data(SortRole).toString(), QString::fromStdString(t.path));
            if (t.role == TensorRole::Param) {
                QCOMPARE(name, names.at(t.paramId));
                QVERIFY2(QString::fromStdString(t.path).endsWith(name + QLatin1String(".param")), qPrintable(name));
            } else if (t.role == TensorRole::Optimizer) {
                ++optimizerRows;
                QCOMPARE(name, names.at(t.paramId) + QStringLiteral(" · ") + QString::fromStdString(t.stateName));
            }
        }
        QVERIFY(optimizerRows > 0);
        const OptimizerEntry* e = optimizer.entryAt(0);
        QVERIFY(e);
        QCOMPARE(optimizer.index(0, OptimizerStateModel::NameColumn).data().toString(), names.at(e->paramId));

        // The optimizer file alone: no module names to borrow, so the id names the parameter.
        doc.setWorkspace(load({fixture("runs/mechint-0.20.0-pre.6/checkpoint/optim-3.mpk")}));
        const QString alone = tensors.index(0, TensorTableModel::NameColumn).data().toString();
        QVERIFY2(alone.startsWith(QLatin1String("param ")) && alone.contains(QStringLiteral(" · ")), qPrintable(alone));
    }

    // The Optimizer panel's forensics (`ckpt optimizer`'s engine) run in the background for each open
    // record: on a genuine burn-train optimizer file with one moment element made NaN, that parameter,
    // and only it, is flagged, tinted, and named in the caption's count.
    void optimizerForensicsFlagTheParameterWithANonFiniteMoment()
    {
        const QString src = fixture("runs/mechint-0.20.0-pre.6/checkpoint/optim-3.mpk");
        auto opened = openRecord(src.toStdString());
        QVERIFY(opened);
        const Record& genuine = **opened;
        QVERIFY(!genuine.optimizer.empty());
        const OptimizerEntry& victim = genuine.optimizer.front();
        const TensorEntry* moment = nullptr;
        for (size_t t : victim.tensors)
            if (genuine.tensors[t].stateName == "moment_1" && genuine.tensors[t].offset)
                moment = &genuine.tensors[t];
        QVERIFY2(moment && (moment->dtype == DType::F16 || moment->dtype == DType::F32), "the fixture's first optimizer entry has an f16 or f32 moment_1 with a byte offset");
        QFile in(src);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray bytes = in.readAll();
        if (moment->dtype == DType::F16) { // this fixture's moments are half precision: 0x7E00 is a quiet NaN
            bytes[qsizetype(*moment->offset)] = char(0x00);
            bytes[qsizetype(*moment->offset) + 1] = char(0x7E);
        } else {
            const float nan = std::numeric_limits<float>::quiet_NaN();
            std::memcpy(bytes.data() + *moment->offset, &nan, 4);
        }
        QTemporaryDir dir;
        const QString planted = dir.filePath(QStringLiteral("optim-3.mpk"));
        QFile out(planted);
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size());
        out.close();

        CheckpointDocument doc;
        OptimizerPanel panel(&doc);
        QAbstractItemModelTester tester(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        doc.setWorkspace(load({planted}));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        const OptimizerStateModel* model = panel.model();
        QCOMPARE(model->rowCount(), int(genuine.optimizer.size()));
        const int row = model->rowOfParam(QString::fromStdString(victim.paramId));
        QVERIFY(row >= 0);
        const QModelIndex flags = model->index(row, OptimizerStateModel::FlagsColumn);
        QVERIFY2(flags.data().toString().contains(QLatin1String("nonfinite_moments")), qPrintable(flags.data().toString()));
        QCOMPARE(flags.data(Qt::BackgroundRole).value<QColor>(), QColor(248, 212, 212));
        QCOMPARE(model->forensicsAt(row)->nonfinite, uint64_t(1));
        for (int other = 0; other < model->rowCount(); ++other)
            if (other != row)
                QVERIFY(!model->index(other, OptimizerStateModel::FlagsColumn).data().toString().contains(QLatin1String("nonfinite")));
        QVERIFY(panel.caption().contains(QLatin1String("suspect")));
        QVERIFY(panel.selectParam(QString::fromStdString(victim.paramId)));
        QVERIFY(panel.caption().contains(QLatin1String("nonfinite_moments")));
    }

    // A GradientCheckpoint's own fields are browsable in the Record tree like a record's.
    void gradientCheckpointFieldsInTheRecordTree()
    {
        CheckpointDocument doc;
        RecordTreeModel model(&doc, RecordTreeModel::Mode::Records);
        QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
        TensorTableModel tensors(&doc);
        doc.setWorkspace(load({QStringLiteral(CKPT_TEST_DATA "/graph/worked_example.json")}));
        QVERIFY(doc.workspace().graph);
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(tensors.rowCount(), 0);
        const QModelIndex root = model.index(0, 0);
        QStringList fields;
        for (int r = 0; r < model.rowCount(root); ++r)
            fields << model.index(r, RecordTreeModel::NameColumn, root).data().toString();
        QCOMPARE(fields, (QStringList{QStringLiteral("graph"), QStringLiteral("step"), QStringLiteral("loss_cid"),
                                      QStringLiteral("optimizer_state"), QStringLiteral("timestamp")}));
        const QModelIndex step = model.index(1, RecordTreeModel::ValueColumn, root);
        QCOMPARE(step.data().toString(), QString::number(doc.workspace().graph->checkpoint.step));
        QVERIFY(walk(&model, {}, 5000) > 10);
    }

    void buildInformationNamesVersionAndQt()
    {
        const QString info = buildInformation();
        QVERIFY(info.startsWith(QStringLiteral("Checkpoint Inspector " CKPT_VERSION "\n")));
        QVERIFY(info.contains(QStringLiteral("revision: " CKPT_GIT_REVISION)));
        QVERIFY(info.contains(QString::fromLatin1(qVersion())));
        QVERIFY(info.contains(QStringLiteral(CKPT_COMPILER)));
    }

    void schedulerAndStateModels()
    {
        CheckpointDocument doc;
        RecordTreeModel scheduler(&doc, RecordTreeModel::Mode::Scheduler);
        RecordTreeModel state(&doc, RecordTreeModel::Mode::CallerState);
        QAbstractItemModelTester t1(&scheduler, QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester t2(&state, QAbstractItemModelTester::FailureReportingMode::QtTest);
        doc.setWorkspace(load({fixture("runs/mlplay-0.16.1")}));
        QVERIFY(scheduler.rowCount() >= 1);
        QCOMPARE(state.rowCount(), 0); // burn-train runs keep no caller state
        walk(&scheduler, {}, 1000);
    }

    void lossHistory()
    {
        auto run = openRunDirectory(fixture("runs/mechint-0.20.0-pre.6").toStdString());
        QVERIFY2(run.has_value(), run ? "" : run.error().message().c_str());
        const LossHistory h = lossHistoryFrom(*run);
        QCOMPARE(h.curves.size(), 4); // train/valid x Loss/Accuracy
        for (const auto& c : h.curves) {
            QCOMPARE(c.x.size(), c.y.size());
            QVERIFY(c.x.size() >= 30); // three epochs of 10 or 15 lines
            QVERIFY(std::is_sorted(c.x.begin(), c.x.end()));
            QVERIFY(c.x.last() <= 3.0 + 1e-9);
        }
        const QVector<double> raw{1, 3, 3, 3};
        const QVector<double> s = smoothEma(raw, 0.5);
        QCOMPARE(s[0], 1.0);
        QCOMPARE(s[1], 2.0);
        QCOMPARE(s[2], 2.5);
        QCOMPARE(smoothEma(raw, 0), raw);
    }
};

QTEST_MAIN(TestUiModels)
#include "tst_uimodels.moc"
