// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The Run panel offscreen on real ckpt-train runs: the checkpoint list and the heatmap of the
// timeline (series × checkpoints, grouped by parameter), the timeline cache on a second look, bisect
// on a run that stays finite and on one that diverges to NaN, a bad predicate said inline, a cell
// click that opens the diff of checkpoints i−1 and i, a double-click that opens a checkpoint, a run
// that grows while the panel watches it, and the GUI thread's longest piece of work while a run of
// 300 checkpoints × 500 tensors fills the views; the optimizer forensics of every checkpoint in the
// list (none suspect in a healthy run, every checkpoint after an Adam run's --diverge-at, the same
// counts and worst flags as core's optimizerForensics on each record, and a job cancelled by clear()).
// The timeline cache lives in a temporary XDG_CACHE_HOME.
#include "tests/ckptskip.h"

#include "core/optim/forensics.h"
#include "core/open/formats.h"
#include "core/record/record.h"
#include "ui/async/latencyprobe.h"
#include "ui/document/checkpointdocument.h"
#include "ui/mainwindow.h"
#include "ui/models/runcheckpointmodel.h"
#include "ui/widgets/diffpanel.h"
#include "ui/widgets/runpanel.h"

#include <qcustomplot.h>

#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QLineEdit>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

const QString kTrain = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");

bool train(const QStringList& args, QString* output = nullptr)
{
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start(kTrain, args);
    if (!p.waitForFinished(300000))
        return false;
    const QByteArray out = p.readAll();
    if (output)
        *output = QString::fromUtf8(out);
    if (p.exitCode() != 0)
        qWarning("%s", out.constData());
    return p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
}

/** CKPT_SHOT_DIR keeps a picture of what a test looked at. */
void keepPicture(QWidget* w, const QString& name)
{
    if (const QString dir = qEnvironmentVariable("CKPT_SHOT_DIR"); !dir.isEmpty()) {
        QCoreApplication::processEvents(); // queued replots
        w->grab().save(dir + QLatin1Char('/') + name);
    }
}

bool waitForTimeline(RunPanel& panel, int timeoutMs = 120000)
{
    return QTest::qWaitFor([&] { return panel.timeline() && !panel.isBusy(); }, timeoutMs);
}

bool openAndSettle(MainWindow& w, const QStringList& paths)
{
    QSignalSpy loaded(&w, &MainWindow::loadFinished);
    w.openPaths(paths);
    if (!loaded.wait(60000))
        return false;
    return QTest::qWaitFor([&] { return w.isIdle(); }, 120000);
}

/** record-STEP.mpk files of \a dir/checkpoint in step order. */
QStringList recordFiles(const QString& run)
{
    QStringList files = QDir(run + QStringLiteral("/checkpoint")).entryList({QStringLiteral("record-*.mpk")}, QDir::Files);
    std::ranges::sort(files, {}, [](const QString& f) { return f.mid(7).section(QLatin1Char('.'), 0, 0).toInt(); });
    return files;
}

} // namespace

class TestRunPanel : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_run;       ///< 300 steps, a checkpoint every 50: 6 checkpoints, all finite
    QString m_diverged;  ///< SGD blown up at step 160 by --diverge-at: NaN from the checkpoint at step 175 on

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        // the timeline cache and the settings stay inside the test's temporary directory
        qputenv("XDG_CACHE_HOME", m_dir.filePath(QStringLiteral("cache")).toUtf8());
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("CheckpointInspectorTests"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
        QVERIFY2(QFileInfo(kTrain).isExecutable(), "ckpt-train is built with the project");
        m_run = m_dir.filePath(QStringLiteral("run"));
        QVERIFY(train({QStringLiteral("--out"), m_run, QStringLiteral("--steps"), QStringLiteral("300"),
            QStringLiteral("--checkpoint-every"), QStringLiteral("50")}));
        QCOMPARE(recordFiles(m_run).size(), 6);
    }

    void listsTheCheckpointsAndFillsTheHeatmap()
    {
        RunPanel panel;
        panel.resize(1400, 800);
        panel.show();
        QAbstractItemModelTester tester(panel.checkpointModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.setRunDirectory(m_run);
        QVERIFY(waitForTimeline(panel));
        const auto t = panel.timeline();
        QCOMPARE(panel.run()->layout, RunLayout::Records);
        QCOMPARE(panel.checkpointModel()->rowCount(), 6);
        QCOMPARE(t->checkpoints.size(), size_t(6));
        // every checkpoint read and valid, its step, its loss from the metric logs
        for (int row = 0; row < 6; ++row) {
            QCOMPARE(panel.checkpointModel()->isValid(row), std::optional<bool>(true));
            QCOMPARE(panel.checkpointModel()->index(row, RunCheckpointModel::StepColumn).data().toString(), QString::number(50 * (row + 1)));
            QVERIFY(!panel.checkpointModel()->index(row, RunCheckpointModel::LossColumn).data().toString().isEmpty());
        }
        QCOMPARE(panel.checkpointModel()->headerData(RunCheckpointModel::StepColumn, Qt::Horizontal).toString(), QStringLiteral("step"));
        // one row per series, one column per checkpoint
        QCOMPARE(t->series.size(), size_t(18));
        QCOMPARE(panel.heatmap()->rowCount(), int(t->series.size()));
        QCOMPARE(panel.heatmap()->columnCount(), 6);
        QCOMPARE(panel.heatmap()->colorMap()->data()->keySize(), 6);
        QCOMPARE(panel.heatmap()->colorMap()->data()->valueSize(), 18);
        // grouped by parameter: the parameter first, then its two Adam moments
        QCOMPARE(panel.heatmap()->groupLabels().size(), 6);
        QCOMPARE(panel.heatmap()->groupLabels().front(), QStringLiteral("input.weight"));
        QCOMPARE(panel.heatmap()->rowLabel(0), QStringLiteral("input.weight"));
        QCOMPARE(panel.heatmap()->rowLabel(1), QStringLiteral("· moment_1"));
        QCOMPARE(panel.heatmap()->rowLabel(2), QStringLiteral("· moment_2"));
        QCOMPARE(t->series[panel.heatmap()->seriesOfRow(0)].role, TensorRole::Param);
        QCOMPARE(t->series[panel.heatmap()->seriesOfRow(1)].owner, t->series[panel.heatmap()->seriesOfRow(0)].owner);
        // the L2 norm of the first parameter, as the timeline has it
        const size_t s0 = panel.heatmap()->seriesOfRow(0);
        QCOMPARE(panel.heatmap()->cellValue(0, 5), t->series[s0].points[5].l2);
        // the update ratio has no value at the first checkpoint, one after it
        panel.setMetric(TimelineHeatmap::Metric::UpdateRatio);
        QCOMPARE(panel.heatmap()->metric(), TimelineHeatmap::Metric::UpdateRatio);
        QVERIFY(std::isnan(panel.heatmap()->cellValue(0, 0)));
        QVERIFY(panel.heatmap()->cellValue(0, 1) > 0);
        QCOMPARE(panel.metricBox()->currentData().toInt(), int(TimelineHeatmap::Metric::UpdateRatio));
        // the loss curve: one point per logged step; no events, nothing marked bad
        QCOMPARE(panel.heatmap()->lossPointCount(), 300);
        QCOMPARE(panel.heatmap()->markerCount(), 0);
        QVERIFY(!panel.heatmap()->firstBad());
        QVERIFY2(panel.summary().contains(QLatin1String("6 checkpoints")), qPrintable(panel.summary()));
        QVERIFY2(panel.summary().contains(QLatin1String("no NaN or Inf")), qPrintable(panel.summary()));
        QVERIFY2(panel.summary().contains(QLatin1String("records layout")), qPrintable(panel.summary()));
        // the optimizer forensics of every checkpoint: a healthy Adam run, nothing suspect
        QVERIFY(!panel.forensicsRunning());
        for (int row = 0; row < 6; ++row) {
            const RunCheckpointModel::Optimizer* o = panel.checkpointModel()->optimizerOf(row);
            QVERIFY(o && o->available);
            QCOMPARE(o->parameters, size_t(6));
            QCOMPARE(o->suspects, size_t(0));
            QCOMPARE(panel.checkpointModel()->index(row, RunCheckpointModel::OptimizerColumn).data().toString(), QStringLiteral("ok"));
        }
        QCOMPARE(panel.checkpointModel()->headerData(RunCheckpointModel::OptimizerColumn, Qt::Horizontal).toString(), QStringLiteral("optimizer"));
        QVERIFY2(panel.summary().contains(QLatin1String("optimizer state ok")), qPrintable(panel.summary()));
        // the run folders are watched
        QVERIFY(panel.watchedPaths().contains(QDir(m_run).filePath(QStringLiteral("checkpoint"))));
    }

    void aSecondLookComesFromTheCache()
    {
        {
            RunPanel first;
            first.setRunDirectory(m_run);
            QVERIFY(waitForTimeline(first));
        }
        RunPanel panel;
        panel.setRunDirectory(m_run);
        QVERIFY(waitForTimeline(panel));
        QCOMPARE(panel.timeline()->read, uint64_t(0));
        QCOMPARE(panel.timeline()->reused, uint64_t(6));
        QVERIFY2(panel.summary().contains(QLatin1String("0 read, 6 from cache")), qPrintable(panel.summary()));
        QVERIFY(QDir(m_dir.filePath(QStringLiteral("cache"))).exists());
    }

    void bisectOfAFiniteRunFindsNothing()
    {
        RunPanel panel;
        panel.setRunDirectory(m_run);
        QVERIFY(waitForTimeline(panel));
        QCOMPARE(panel.predicateEdit()->text(), QStringLiteral("nonfinite"));
        QVERIFY(panel.bisectButton()->isEnabled());
        QTest::mouseClick(panel.bisectButton(), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 60000);
        QVERIFY(!panel.firstBad());
        QVERIFY2(panel.bisectStatus().contains(QLatin1String("no checkpoint is bad by nonfinite")), qPrintable(panel.bisectStatus()));
        QVERIFY2(panel.bisectStatus().contains(QLatin1String("opened ")), qPrintable(panel.bisectStatus()));
    }

    void aBadPredicateIsSaidInline()
    {
        RunPanel panel;
        panel.setRunDirectory(m_run);
        QVERIFY(waitForTimeline(panel));
        for (const char* bad : {"max_abs>", "nans", "update_ratio>x"}) {
            panel.predicateEdit()->setText(QLatin1String(bad));
            panel.findFirstBad();
            QVERIFY(!panel.isBusy()); // nothing started
            QVERIFY2(panel.bisectStatus().contains(QLatin1String("color:#b00000")), qPrintable(panel.bisectStatus()));
            QVERIFY(!panel.firstBad());
        }
        panel.predicateEdit()->setText(QStringLiteral("max_abs>1e30"));
        panel.findFirstBad();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 60000);
        QVERIFY2(panel.bisectStatus().contains(QLatin1String("no checkpoint is bad by max_abs&gt;1e30")), qPrintable(panel.bisectStatus()));
    }

    void aDivergedRunIsBisectedToItsFirstNaN()
    {
        QString help;
        train({QStringLiteral("--help")}, &help);
        if (!help.contains(QLatin1String("--diverge-at")))
            CKPT_SKIP(QStringLiteral("this ckpt-train has no --diverge-at"));
        m_diverged = m_dir.filePath(QStringLiteral("diverged"));
        QVERIFY(train({QStringLiteral("--out"), m_diverged, QStringLiteral("--steps"), QStringLiteral("300"), QStringLiteral("--checkpoint-every"),
            QStringLiteral("25"), QStringLiteral("--optimizer"), QStringLiteral("sgd"), QStringLiteral("--diverge-at"), QStringLiteral("160")}));
        RunPanel panel;
        panel.resize(1400, 800);
        panel.show();
        panel.setRunDirectory(m_diverged);
        QVERIFY(waitForTimeline(panel));
        QCOMPARE(panel.checkpointModel()->rowCount(), 12);
        QCOMPARE(panel.heatmap()->columnCount(), 12);
        // the timeline's events: the first NaN of every tensor at checkpoint 6 (step 175), drawn as markers
        QVERIFY2(panel.summary().contains(QLatin1String("first NaN at record-175 (step 175)")), qPrintable(panel.summary()));
        QVERIFY(panel.heatmap()->markerCount() > 0);
        QCOMPARE(panel.heatmap()->firstBad(), std::optional<size_t>(6));
        QVERIFY(panel.heatmap()->cellNonFinite(0, 6) > 0);
        QCOMPARE(panel.heatmap()->cellNonFinite(0, 5), uint64_t(0));
        // bisect agrees, and selects it in the list and the heatmap
        panel.findFirstBad();
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 60000);
        QCOMPARE(panel.firstBad(), std::optional<size_t>(6));
        QVERIFY2(panel.bisectStatus().contains(QLatin1String("first bad:</b> record-175 (step 175)")), qPrintable(panel.bisectStatus()));
        QVERIFY2(panel.bisectStatus().contains(QLatin1String("last good: record-150 (step 150)")), qPrintable(panel.bisectStatus()));
        QVERIFY2(panel.bisectStatus().contains(QLatin1String(" of 12 files")), qPrintable(panel.bisectStatus()));
        QCOMPARE(panel.checkpointView()->currentIndex().row(), 6);
        QCOMPARE(panel.heatmap()->firstBad(), std::optional<size_t>(6));
        keepPicture(&panel, QStringLiteral("run-bisected.png"));
        // the count metric: NaN + Inf per cell
        panel.setMetric(TimelineHeatmap::Metric::NonFinite);
        QCOMPARE(panel.heatmap()->cellValue(0, 6), double(panel.heatmap()->cellNonFinite(0, 6)));
        QVERIFY(std::isnan(panel.heatmap()->cellValue(0, 5)));
    }

    /**
     * Adam with the lr × 1e6 from step 45 on: the checkpoints at steps 10 to 40 are healthy, those at
     * 50 to 80 exploded (then non-finite). The list says so checkpoint by checkpoint, as core's
     * optimizerForensics says it of each record opened here.
     */
    void optimizerForensicsAcrossADivergedRun()
    {
        QString help;
        train({QStringLiteral("--help")}, &help);
        if (!help.contains(QLatin1String("--diverge-at")))
            CKPT_SKIP(QStringLiteral("this ckpt-train has no --diverge-at"));
        const QString run = m_dir.filePath(QStringLiteral("adam-diverged"));
        QVERIFY(train({QStringLiteral("--out"), run, QStringLiteral("--steps"), QStringLiteral("80"), QStringLiteral("--checkpoint-every"),
            QStringLiteral("10"), QStringLiteral("--diverge-at"), QStringLiteral("45"), QStringLiteral("--layout"), QStringLiteral("training-record")}));
        RunPanel panel;
        panel.resize(1400, 800);
        panel.show();
        QAbstractItemModelTester tester(panel.checkpointModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy updated(&panel, &RunPanel::forensicsUpdated);
        panel.setRunDirectory(run);
        QVERIFY(waitForTimeline(panel));
        QCOMPARE(updated.size(), 1);
        const RunCheckpointModel* model = panel.checkpointModel();
        QCOMPARE(model->rowCount(), 8);
        for (int row = 0; row < 8; ++row) {
            const RunCheckpointModel::Optimizer* o = model->optimizerOf(row);
            QVERIFY(o && o->available);
            auto record = openRecord(QDir(run).filePath(QStringLiteral("checkpoint/record-%1.mpk").arg(10 * (row + 1))).toStdString());
            QVERIFY(record);
            auto f = optimizerForensics(**record);
            QVERIFY(f);
            QCOMPARE(o->parameters, f->parameters.size());
            QCOMPARE(o->suspects, f->suspects.size());
            const QString text = model->index(row, RunCheckpointModel::OptimizerColumn).data().toString();
            if (row < 4) {
                QCOMPARE(o->suspects, size_t(0)); // before the blow-up
                QCOMPARE(text, QStringLiteral("ok"));
                QVERIFY(!model->index(row, RunCheckpointModel::OptimizerColumn).data(Qt::BackgroundRole).isValid());
                continue;
            }
            QCOMPARE(o->suspects, size_t(6)); // after it, every parameter
            std::string_view worst;
            for (const ParamForensics& p : f->parameters)
                if (worst.empty() || flagSeverity(worstFlag(p)) > flagSeverity(worst))
                    worst = worstFlag(p);
            QCOMPARE(o->worstFlag, QString::fromUtf8(worst.data(), qsizetype(worst.size())));
            QVERIFY2(o->worstFlag == QLatin1String("exploded_parameter") || o->worstFlag == QLatin1String("nonfinite_moments"), qPrintable(o->worstFlag));
            QCOMPARE(text, QStringLiteral("6 · %1").arg(o->worstFlag));
            QVERIFY(model->index(row, RunCheckpointModel::OptimizerColumn).data(Qt::BackgroundRole).isValid());
            QVERIFY(model->index(row, RunCheckpointModel::OptimizerColumn).data(Qt::ToolTipRole).toString().contains(QLatin1String("6 of 6 parameters suspect")));
        }
        // the step-50 record is still finite: exploded, not NaN
        QCOMPARE(model->optimizerOf(4)->worstFlag, QStringLiteral("exploded_parameter"));
        // the plot under the list: the first moment against its parameter, under 1 before, far above 1e3 at step 50
        QCustomPlot* plot = panel.optimizerPlot();
        QCOMPARE(plot->graphCount(), 2);
        QVERIFY(plot->graph(0)->dataCount() >= 5 && plot->graph(1)->dataCount() >= 4);
        for (int k = 0; k < plot->graph(0)->dataCount(); ++k) {
            const auto point = plot->graph(0)->data()->at(k);
            const RunCheckpointModel::Optimizer* o = model->optimizerOf(int(point->key));
            QCOMPARE(point->value, *o->maxMomentRatio);
            QVERIFY(point->key < 4 ? point->value < 1 : true);
        }
        QCOMPARE(plot->graph(0)->data()->at(4)->key, 4.0);
        QVERIFY(plot->graph(0)->data()->at(4)->value > kExplodedMomentRatio);
        QVERIFY2(panel.summary().contains(QLatin1String("optimizer suspects in 4 checkpoints (first: record-50 (step 50))")), qPrintable(panel.summary()));
        keepPicture(&panel, QStringLiteral("run-optimizer.png"));

        // a second look: the timeline from the cache, the forensics again, the same
        panel.setRunDirectory(run);
        QVERIFY(waitForTimeline(panel));
        QCOMPARE(model->optimizerOf(7)->suspects, size_t(6));

        // cancelled with the rest: clear() while the forensics run leaves nothing running
        panel.setRunDirectory(run);
        QVERIFY(QTest::qWaitFor([&] { return panel.forensicsRunning() || !panel.isBusy(); }, 60000));
        panel.clear();
        QVERIFY(!panel.isBusy());
        QCOMPARE(model->rowCount(), 0);
        QTest::qWait(200); // a late delivery of the cancelled job must not come back
        QCOMPARE(model->rowCount(), 0);
        QVERIFY(!panel.forensicsRunning());
    }

    void aCellOpensTheDiffOfItsCheckpointAndTheOneBefore()
    {
        MainWindow w;
        w.resize(1600, 1000);
        w.show();
        QVERIFY(openAndSettle(w, {m_run}));
        RunPanel* panel = w.runPanel();
        QVERIFY(panel->timeline());
        QVERIFY(panel->isVisible()); // a run directory brings its Run panel to the front
        QCOMPARE(panel->runDirectory(), QFileInfo(m_run).absoluteFilePath());
        TimelineHeatmap* heat = panel->heatmap();
        heat->replot(); // lays the axes out for cellCentre()
        const int row = 0; // input.weight
        const QString path = QString::fromStdString(panel->timeline()->series[heat->seriesOfRow(row)].path);
        QSignalSpy asked(panel, &RunPanel::diffRequested);
        QTest::mouseClick(heat, Qt::LeftButton, {}, heat->cellCentre(row, 3));
        QCOMPARE(asked.size(), 1);
        QVERIFY(asked.front().at(0).toString().endsWith(QLatin1String("record-150.mpk")));
        QVERIFY(asked.front().at(1).toString().endsWith(QLatin1String("record-200.mpk")));
        QCOMPARE(asked.front().at(2).toString(), path);
        QTRY_VERIFY_WITH_TIMEOUT(w.isIdle() && w.diffPanel()->summary().contains(QLatin1String("record-200.mpk")), 60000);
        QVERIFY2(w.diffPanel()->summary().contains(QLatin1String("record-150.mpk")), qPrintable(w.diffPanel()->summary()));
        QVERIFY(w.diffPanel()->isVisible());
        const QTableView* table = w.diffPanel()->table();
        QVERIFY(table->currentIndex().isValid());
        QCOMPARE(table->model()->index(table->currentIndex().row(), 0).data().toString(), path);
        QCOMPARE(panel->checkpointView()->currentIndex().row(), 3);
        keepPicture(&w, QStringLiteral("run-cell-diff.png"));

        // a double-click on a checkpoint opens it as the window's record
        w.raisePanel(QStringLiteral("run"));
        QTableView* view = panel->checkpointView();
        QTRY_VERIFY(view->isVisible());
        const QRect rect = view->visualRect(panel->checkpointModel()->index(1, RunCheckpointModel::StepColumn));
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        QSignalSpy open(panel, &RunPanel::openCheckpointRequested);
        // as a user does it: QTest's double-click alone is a press and a double-click event, no first click
        QTest::mouseClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        QTest::mouseDClick(view->viewport(), Qt::LeftButton, {}, rect.center());
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.front().front().toStringList().size(), 1);
        QVERIFY(open.front().front().toStringList().front().endsWith(QLatin1String("record-100.mpk")));
        QVERIFY(loaded.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(w.isIdle(), 60000);
        QCOMPARE(w.document()->workspace().records.size(), size_t(1));
        QVERIFY(w.document()->workspace().records.front().path.endsWith(QLatin1String("record-100.mpk")));
        // the Run panel still shows the run
        QCOMPARE(panel->checkpointModel()->rowCount(), 6);
        QVERIFY(MainWindow::panelNames().contains(QStringLiteral("run")));
    }

    void aBurnTrainRunIsFollowedByEpoch()
    {
        // model-N / optim-N / scheduler-N: one checkpoint per epoch, an optimizer state's diff is of the optim files
        const QString burn = m_dir.filePath(QStringLiteral("burn"));
        QVERIFY(train({QStringLiteral("--out"), burn, QStringLiteral("--steps"), QStringLiteral("192"), QStringLiteral("--checkpoint-every"),
            QStringLiteral("64"), QStringLiteral("--layout"), QStringLiteral("burn-run")}));
        RunPanel panel;
        panel.resize(1400, 800);
        panel.show();
        panel.setRunDirectory(burn);
        QVERIFY(waitForTimeline(panel));
        QCOMPARE(panel.run()->layout, RunLayout::BurnEpochs);
        const int n = panel.checkpointModel()->rowCount();
        QVERIFY(n >= 2);
        QCOMPARE(panel.heatmap()->columnCount(), n);
        QCOMPARE(panel.checkpointModel()->headerData(RunCheckpointModel::StepColumn, Qt::Horizontal).toString(), QStringLiteral("epoch"));
        QVERIFY(panel.heatmap()->lossPointCount() > 0);
        QCOMPARE(panel.heatmap()->rowLabel(0), QStringLiteral("input.weight"));
        QCOMPARE(panel.heatmap()->rowLabel(1), QStringLiteral("· moment_1"));
        // optim-N analysed with model-N's parameters: every rule judged, nothing suspect
        for (int row = 0; row < n; ++row) {
            const RunCheckpointModel::Optimizer* o = panel.checkpointModel()->optimizerOf(row);
            QVERIFY2(o && o->available, o ? qPrintable(o->error) : "not computed");
            QCOMPARE(o->suspects, size_t(0));
            QVERIFY(o->maxMomentRatio); // the parameters were found
        }
        keepPicture(&panel, QStringLiteral("run-burn.png"));
        panel.heatmap()->replot();
        QSignalSpy asked(&panel, &RunPanel::diffRequested);
        QTest::mouseClick(panel.heatmap(), Qt::LeftButton, {}, panel.heatmap()->cellCentre(1, 1));
        QCOMPARE(asked.size(), 1);
        QVERIFY2(asked.front().at(0).toString().endsWith(QLatin1String("checkpoint/optim-1.mpk")), qPrintable(asked.front().at(0).toString()));
        QVERIFY2(asked.front().at(1).toString().endsWith(QLatin1String("checkpoint/optim-2.mpk")), qPrintable(asked.front().at(1).toString()));
        QTest::mouseClick(panel.heatmap(), Qt::LeftButton, {}, panel.heatmap()->cellCentre(0, 1));
        QCOMPARE(asked.size(), 2);
        QVERIFY(asked.back().at(1).toString().endsWith(QLatin1String("checkpoint/model-2.mpk")));
        // the first checkpoint has nothing before it: said, not asked
        QTest::mouseClick(panel.heatmap(), Qt::LeftButton, {}, panel.heatmap()->cellCentre(0, 0));
        QCOMPARE(asked.size(), 2);
    }

    void aGrowingRunIsFollowed()
    {
        // the run's records copied one by one into a new directory while the panel watches it
        const QString live = m_dir.filePath(QStringLiteral("live"));
        QVERIFY(QDir().mkpath(live + QStringLiteral("/checkpoint")));
        RunPanel panel;
        QAbstractItemModelTester tester(panel.checkpointModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        panel.setLiveTimings(200, 300);
        panel.setRunDirectory(live);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        QCOMPARE(panel.checkpointModel()->rowCount(), 0);
        QVERIFY(panel.watchedPaths().contains(live + QStringLiteral("/checkpoint")));
        const QStringList files = recordFiles(m_run);
        for (int i = 0; i < files.size(); ++i) {
            const QString src = m_run + QStringLiteral("/checkpoint/") + files[i];
            const QString dst = live + QStringLiteral("/checkpoint/") + files[i];
            if (i == 2) {
                // written in place in two halves with a pause: read once it stopped changing, not half-written
                QFile in(src);
                QVERIFY(in.open(QIODevice::ReadOnly));
                const QByteArray bytes = in.readAll();
                QFile out(dst);
                QVERIFY(out.open(QIODevice::WriteOnly));
                out.write(bytes.left(bytes.size() / 2));
                out.flush();
                QTest::qWait(150);
                out.write(bytes.mid(bytes.size() / 2));
                out.close();
            } else {
                QVERIFY(QFile::copy(src, dst));
            }
            QTest::qWait(250);
        }
        QTRY_COMPARE_WITH_TIMEOUT(panel.checkpointModel()->rowCount(), 6, 10000);
        QTRY_VERIFY_WITH_TIMEOUT(panel.timeline() && panel.timeline()->checkpoints.size() == 6 && !panel.isBusy(), 30000);
        for (int row = 0; row < 6; ++row)
            QCOMPARE(panel.checkpointModel()->isValid(row), std::optional<bool>(true));
        QCOMPARE(panel.heatmap()->columnCount(), 6);
        QCOMPARE(panel.heatmap()->rowCount(), 18);
        // a checkpoint rewritten in place is read again
        const QString last = live + QStringLiteral("/checkpoint/") + files.last();
        QVERIFY(QFile::remove(last));
        QVERIFY(QFile::copy(m_run + QStringLiteral("/checkpoint/") + files.first(), last));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy() && panel.timeline()->read >= 1, 30000);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        QCOMPARE(panel.checkpointModel()->rowCount(), 6);
    }

    void aLargeRunFillsTheViewsWithoutStallingTheGuiThread()
    {
        // 300 checkpoints of 504 tensors (28 residual blocks: 174 parameters and their two Adam moments)
        const QString big = m_dir.filePath(QStringLiteral("big"));
        QVERIFY(train({QStringLiteral("--out"), big, QStringLiteral("--steps"), QStringLiteral("300"), QStringLiteral("--checkpoint-every"),
            QStringLiteral("1"), QStringLiteral("--blocks"), QStringLiteral("28"), QStringLiteral("--hidden"), QStringLiteral("4"),
            QStringLiteral("--input-dim"), QStringLiteral("4"), QStringLiteral("--layout"), QStringLiteral("training-record")}));
        RunPanel panel;
        panel.resize(1400, 800);
        panel.show();
        LatencyProbe probe(5);
        probe.start();
        panel.setRunDirectory(big);
        QVERIFY(waitForTimeline(panel, 300000));
        probe.stop();
        QCOMPARE(panel.checkpointModel()->rowCount(), 300);
        QCOMPARE(panel.heatmap()->columnCount(), 300);
        QCOMPARE(panel.heatmap()->rowCount(), int(panel.timeline()->series.size()));
        QVERIFY(panel.timeline()->series.size() >= 500);
        // The probe's figures are reported, not judged: the stall and the time from the cache are measured
        // against their targets in tests/bench (section "Run timeline"), several rounds with the spread.
        QVERIFY(probe.ticks() > 0);
        qInfo("first look: %llu read; GUI thread: longest piece of work %.1f ms, worst lateness %.1f ms",
            qulonglong(panel.timeline()->read), probe.maxBusyMs(), probe.maxLatenessMs());

        // from the cache: listed and shown without reading a checkpoint again
        RunPanel again;
        again.resize(1400, 800);
        again.show();
        LatencyProbe probe2(5);
        probe2.start();
        QElapsedTimer clock;
        clock.start();
        again.setRunDirectory(big);
        QVERIFY(waitForTimeline(again, 60000));
        const qint64 ms = clock.elapsed();
        probe2.stop();
        QCOMPARE(again.timeline()->reused, uint64_t(300));
        qInfo("from the cache: shown in %lld ms; GUI thread: longest piece of work %.1f ms", ms, probe2.maxBusyMs());
        QCOMPARE(again.timeline()->read, uint64_t(0));
        QCOMPARE(again.heatmap()->columnCount(), 300);
    }
};

QTEST_MAIN(TestRunPanel)
#include "tst_runpanel.moc"
