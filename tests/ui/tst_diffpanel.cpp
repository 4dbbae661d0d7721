// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The Diff panel offscreen on a real ckpt-train run: records at two steps, a half copy, two
// GradientCheckpoints; rows sorted by the size of the change, tinted by status, with a detail.
#include "ui/graph/graphview.h"
#include "ui/mainwindow.h"
#include "ui/models/diffmodel.h"
#include "ui/widgets/diffpanel.h"

#include "core/edit/edit.h"
#include "core/open/formats.h"
#include "core/record/record.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <qcustomplot.h>
#include <QSignalSpy>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include <functional>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

std::shared_ptr<const Record> open(const QString& path)
{
    auto r = openRecord(path.toStdString());
    return r ? *r : nullptr;
}

/// One cell of the table as the view shows it (row and column of the view, after sorting and filtering).
QVariant cell(const QTableView* t, int row, int column, int role = Qt::DisplayRole)
{
    return t->model()->index(row, column).data(role);
}

/// The max |b−a| column's numbers from the top, as the table shows them.
std::vector<double> maxAbsColumn(const QTableView* t)
{
    std::vector<double> v;
    for (int r = 0; r < t->model()->rowCount(); ++r)
        if (!cell(t, r, 3).toString().isEmpty())
            v.push_back(cell(t, r, 3, Qt::UserRole + 1).toDouble());
    return v;
}

/// Writes \a src's GradientCheckpoint edited by \a edit (its nodes object and edges array) to \a dst.
bool editGraph(const QString& src, const QString& dst, const std::function<void(QJsonObject&, QJsonArray&)>& edit)
{
    QFile in(src);
    if (!in.open(QIODevice::ReadOnly))
        return false;
    QJsonObject root = QJsonDocument::fromJson(in.readAll()).object();
    QJsonObject graph = root.value(QStringLiteral("graph")).toObject();
    QJsonObject nodes = graph.value(QStringLiteral("nodes")).toObject();
    QJsonArray edges = graph.value(QStringLiteral("edges")).toArray();
    edit(nodes, edges);
    graph.insert(QStringLiteral("nodes"), nodes);
    graph.insert(QStringLiteral("edges"), edges);
    root.insert(QStringLiteral("graph"), graph);
    QFile out(dst);
    return out.open(QIODevice::WriteOnly) && out.write(QJsonDocument(root).toJson()) > 0;
}

/// The key of the first node whose op is \a op.
QString nodeWithOp(const QJsonObject& nodes, const QString& op)
{
    for (auto it = nodes.begin(); it != nodes.end(); ++it)
        if (it.value().toObject().value(QStringLiteral("op")).toString() == op)
            return it.key();
    return {};
}

/// Pixels of exactly \a colour in the graph canvas as painted (box fills are solid).
int pixelsOf(GraphView* view, const QColor& colour)
{
    const QImage image = view->canvas()->viewport()->grab().toImage().convertToFormat(QImage::Format_RGB32);
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            n += QColor(image.pixel(x, y)) == colour;
    return n;
}

int rowOf(const QTableView* t, const QString& path)
{
    for (int r = 0; r < t->model()->rowCount(); ++r)
        if (cell(t, r, 0).toString() == path)
            return r;
    return -1;
}

} // namespace

class TestDiffPanel : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_run;

private Q_SLOTS:
    void initTestCase()
    {
        m_run = m_dir.filePath(QStringLiteral("run"));
        QProcess p;
        p.start(QStringLiteral(CKPT_BIN_DIR "/ckpt-train"), {QStringLiteral("--out"), m_run, QStringLiteral("--steps"), QStringLiteral("6"),
            QStringLiteral("--checkpoint-every"), QStringLiteral("3"), QStringLiteral("--layout"), QStringLiteral("all")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
    }

    void recordsAtTwoStepsSortedByChange()
    {
        DiffPanel panel;
        panel.resize(1200, 800);
        panel.show();
        // the rows' model and the sorted, filtered view of it keep Qt's model contract through the reset
        QAbstractItemModelTester rows(panel.model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        QAbstractItemModelTester shown(panel.table()->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto a = open(m_run + QStringLiteral("/checkpoint/record-3.mpk"));
        auto b = open(m_run + QStringLiteral("/checkpoint/record-6.mpk"));
        QVERIFY(a && b);
        panel.compare(a, b);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        QVERIFY2(panel.summary().contains(QLatin1String("changed 18")), qPrintable(panel.summary()));
        const auto column = maxAbsColumn(panel.table());
        QCOMPARE(column.size(), size_t(18));
        QVERIFY(std::is_sorted(column.rbegin(), column.rend())); // biggest change first
        // A changed tensor is tinted, a caller-state field is a grey "state" row in its section.
        const int tensor = rowOf(panel.table(), QStringLiteral("item[0].input.weight.param"));
        QVERIFY(tensor >= 0);
        QCOMPARE(cell(panel.table(), tensor, 1).toString(), QStringLiteral("changed"));
        QCOMPARE(cell(panel.table(), tensor, 1, Qt::BackgroundRole).value<QBrush>().color(), QColor(251, 232, 192));
        const int state = rowOf(panel.table(), QStringLiteral("item[4].progress.step"));
        QVERIFY(state >= 0);
        QCOMPARE(cell(panel.table(), state, 2).toString(), QStringLiteral("caller_state"));
        QCOMPARE(cell(panel.table(), state, 8).toString(), QStringLiteral("3 → 6"));
        // The detail of the selected tensor: its [8, 32] delta.
        QVERIFY(panel.selectPath(QStringLiteral("item[0].input.weight.param")));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        QVERIFY2(panel.detailTitle().contains(QStringLiteral("delta 8 × 32")), qPrintable(panel.detailTitle()));
    }

    void halfCopyShowsAPrecisionChange()
    {
        const QString full = m_run + QStringLiteral("/checkpoint/record-6.mpk"), half = m_dir.filePath(QStringLiteral("half.mpk"));
        auto a = open(full);
        QVERIFY(a);
        QVERIFY(convertRecord(*a, Recorder::NamedMpk, Precision::Half, half.toStdString()));
        DiffPanel panel;
        panel.compare(a, open(half));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        QVERIFY2(panel.summary().contains(QStringLiteral("precision full → half (rounding only)")), qPrintable(panel.summary()));
        const int row = rowOf(panel.table(), QStringLiteral("item[0].input.weight.param"));
        QCOMPARE(cell(panel.table(), row, 8).toString(), QStringLiteral("precision change"));
    }

    void twoGradientCheckpointsFromTheWindow()
    {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openDiff(m_run + QStringLiteral("/graph/step-3.json"), m_run + QStringLiteral("/graph/step-6.json"));
        QVERIFY(loaded.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(w.isIdle() && w.diffPanel()->table()->model()->rowCount() > 0, 60000);
        const QString s = w.diffPanel()->summary();
        QVERIFY2(s.contains(QLatin1String("(step 3)")) && s.contains(QLatin1String("(step 6)")), qPrintable(s));
        QVERIFY2(s.contains(QLatin1String("9 matched by op and position")), qPrintable(s));
        QVERIFY2(s.contains(QLatin1String("CARs both")), qPrintable(s));
        // The first row is the node whose output moved most; its blocks are read for the detail.
        QTRY_VERIFY_WITH_TIMEOUT(w.diffPanel()->detailTitle().contains(QLatin1String("delta")), 30000);
        QCOMPARE(cell(w.diffPanel()->table(), 0, 2).toString(), QStringLiteral("op_position"));
    }

    void aDamagedCarIsNamedAndTheGraphsAreStillCompared()
    {
        // B's CAR beside it is not a CAR: the graphs are compared (nodes by CID), B has no values, and
        // the summary names the file and what is wrong with it instead of passing it off as missing.
        QTemporaryDir dir;
        const QString a = m_run + QStringLiteral("/graph/step-3.json"), b = dir.filePath(QStringLiteral("step-6.json"));
        QVERIFY(QFile::copy(m_run + QStringLiteral("/graph/step-6.json"), b));
        QFile car(dir.filePath(QStringLiteral("step-6.car")));
        QVERIFY(car.open(QIODevice::WriteOnly) && car.write("not a CAR file") > 0);
        car.close();
        DiffPanel panel;
        panel.compareGraphs(a, b);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        const QString s = panel.summary();
        QVERIFY2(s.contains(QLatin1String("CARs one")), qPrintable(s));
        QVERIFY2(s.contains(dir.filePath(QStringLiteral("step-6.car"))), qPrintable(s));
        QCOMPARE(panel.table()->model()->rowCount() > 0, true);
    }

    void graphDiffColoursTheGraphByStatus()
    {
        // B: A's checkpoint with relu replaced by a new dropout node (added / removed) and the first
        // matmul's op changed in place (same id): four statuses in one graph.
        const QString a = m_run + QStringLiteral("/graph/step-6.json"), b = m_dir.filePath(QStringLiteral("edited.json"));
        QString relu, matmul;
        QVERIFY(editGraph(a, b, [&](QJsonObject& nodes, QJsonArray& edges) {
            relu = nodeWithOp(nodes, QStringLiteral("relu"));
            matmul = nodeWithOp(nodes, QStringLiteral("matmul"));
            QJsonObject drop = nodes.take(relu).toObject();
            drop.insert(QStringLiteral("id"), QStringLiteral("dropout-1"));
            drop.insert(QStringLiteral("op"), QStringLiteral("dropout"));
            nodes.insert(QStringLiteral("dropout-1"), drop);
            QJsonObject mm = nodes.value(matmul).toObject();
            mm.insert(QStringLiteral("op"), QStringLiteral("linear"));
            nodes.insert(matmul, mm);
            for (qsizetype i = 0; i < edges.size(); ++i) {
                QJsonArray e = edges[i].toArray();
                for (qsizetype j = 0; j < 2; ++j)
                    if (e[j].toString() == relu)
                        e[j] = QStringLiteral("dropout-1");
                edges[i] = e;
            }
        }));
        QVERIFY(!relu.isEmpty() && !matmul.isEmpty());
        DiffPanel panel;
        panel.resize(1400, 1000);
        panel.show();
        panel.compareGraphs(a, b);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 60000);
        QCOMPARE(panel.currentTab(), DiffPanel::Tab::Graph);
        const QString legend = panel.graphLegend();
        QVERIFY2(legend.contains(QLatin1String("added 1")) && legend.contains(QLatin1String("removed 1 (in A)"))
                     && legend.contains(QLatin1String("operation changed 1")) && legend.contains(QLatin1String("unchanged 7")),
            qPrintable(legend));
        // B's graph is shown: the dropout and the re-named op are painted in their colours, no removed node
        GraphView* view = panel.graphView();
        QVERIFY(panel.graphSideB());
        QVERIFY(view->nodeIndex(QStringLiteral("dropout-1")) >= 0);
        QCOMPARE(view->nodeIndex(relu), -1);
        QTest::qWait(50);
        QTRY_VERIFY(pixelsOf(view, DiffPanel::addedColour()) > 100);
        QVERIFY(pixelsOf(view, DiffPanel::opChangedColour()) > 100);
        QCOMPARE(pixelsOf(view, DiffPanel::removedColour()), 0);
        // A's graph holds the removed relu, painted as removed, and no added node
        panel.showGraphSide(false);
        QVERIFY(view->nodeIndex(relu) >= 0);
        QTRY_VERIFY(pixelsOf(view, DiffPanel::removedColour()) > 100);
        QCOMPARE(pixelsOf(view, DiffPanel::addedColour()), 0);
        QVERIFY(panel.graphLegend().startsWith(QLatin1String("Showing A")));
        // only what changed: the relu, the matmul and the ends of the edges that changed, with neighbours
        const int whole = view->nodeCount();
        panel.setGraphChangesOnly(true);
        QCOMPARE(view->breadcrumbs().size(), 2);
        // relu, the matmul, relu's edges' ends (layer_norm, the second matmul): four seeds
        QVERIFY2(view->breadcrumbs().back().contains(QLatin1String("4 node(s)")), qPrintable(view->breadcrumbs().back()));
        QVERIFY2(view->nodeCount() < whole && view->nodeCount() >= 3, qPrintable(QString::number(view->nodeCount())));
        QVERIFY(view->nodeIndex(relu) >= 0);
        panel.setGraphChangesOnly(false);
        QCOMPARE(view->breadcrumbs().size(), 1);
        QCOMPARE(view->nodeCount(), whole);
        // a node's row selects it in the graph
        QVERIFY(panel.selectPath(relu));
        QCOMPARE(view->selectedNode(), view->nodeIndex(relu));
    }

    void lossHistoriesOfBothRunsOverlaid()
    {
        // a second run (another seed): its record against the first run's, each with its metric logs
        const QString other = m_dir.filePath(QStringLiteral("run-b"));
        QProcess p;
        p.start(QStringLiteral(CKPT_BIN_DIR "/ckpt-train"), {QStringLiteral("--out"), other, QStringLiteral("--steps"), QStringLiteral("6"),
            QStringLiteral("--checkpoint-every"), QStringLiteral("3"), QStringLiteral("--layout"), QStringLiteral("all"), QStringLiteral("--seed"),
            QStringLiteral("9")});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        DiffPanel panel;
        panel.resize(1200, 800);
        panel.show();
        panel.compare(open(m_run + QStringLiteral("/checkpoint/record-3.mpk")), open(other + QStringLiteral("/checkpoint/record-6.mpk")));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        QCustomPlot* plot = panel.lossPlot();
        QStringList names;
        for (int i = 0; i < plot->graphCount(); ++i)
            names << plot->graph(i)->name();
        QVERIFY2(names.contains(QStringLiteral("A train/Loss")) && names.contains(QStringLiteral("B train/Loss")), qPrintable(names.join(u',')));
        // six steps, one train/Loss line each, per run
        for (int i = 0; i < plot->graphCount(); ++i)
            if (plot->graph(i)->name().endsWith(QLatin1String("train/Loss")))
                QCOMPARE(plot->graph(i)->dataCount(), 6);
        // where each record lies: step 3 of A, step 6 of B, as dotted lines
        QCOMPARE(plot->itemCount(), 4); // two lines, two labels
        QVERIFY2(panel.lossNote().contains(QLatin1String("step 3")) && panel.lossNote().contains(QLatin1String("step 6")), qPrintable(panel.lossNote()));
        // two records of one run share its history: drawn once
        panel.compare(open(m_run + QStringLiteral("/checkpoint/record-3.mpk")), open(m_run + QStringLiteral("/checkpoint/record-6.mpk")));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        int trainCurves = 0;
        for (int i = 0; i < plot->graphCount(); ++i)
            trainCurves += plot->graph(i)->name().endsWith(QLatin1String("train/Loss"));
        QCOMPARE(trainCurves, 1);
        QVERIFY(panel.lossNote().contains(QLatin1String("drawn once")));
    }

    void gradientCheckpointsCarryTheirLoss()
    {
        // graph/step-N.json of a run: its history, and each checkpoint's own loss from its CAR on it
        DiffPanel panel;
        panel.compareGraphs(m_run + QStringLiteral("/graph/step-3.json"), m_run + QStringLiteral("/graph/step-6.json"));
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 60000);
        QCustomPlot* plot = panel.lossPlot();
        QCPGraph* a = nullptr;
        QCPGraph* train = nullptr;
        for (int i = 0; i < plot->graphCount(); ++i) {
            if (plot->graph(i)->name() == QLatin1String("A checkpoint loss"))
                a = plot->graph(i);
            if (plot->graph(i)->name().endsWith(QLatin1String("train/Loss")))
                train = plot->graph(i);
        }
        QVERIFY(a && train);
        QCOMPARE(a->dataCount(), 1);
        // the checkpoint's loss is the logged loss of its step (the third train line), up to the log's print precision
        const double logged = (train->data()->constBegin() + 2)->value;
        QVERIFY2(std::abs(a->data()->constBegin()->value - logged) <= 1e-6 * std::max(1.0, std::abs(logged)),
            qPrintable(QStringLiteral("%1 vs %2").arg(a->data()->constBegin()->value).arg(logged)));
        QCOMPARE(a->data()->constBegin()->key, (train->data()->constBegin() + 2)->key);
    }

    void onlyWhatChanged()
    {
        // A record against itself with one caller-state field edited: every tensor row is unchanged,
        // the state row moved.
        auto a = open(m_run + QStringLiteral("/checkpoint/record-3.mpk"));
        auto edited = applyEdits(*a, {{"item[4].progress.step", "4"}});
        QVERIFY(edited);
        auto b = indexRecord(std::move(*edited), Recorder::NamedMpk, "b");
        QVERIFY(b);
        DiffPanel panel;
        panel.compare(a, *b);
        QTRY_VERIFY_WITH_TIMEOUT(!panel.isBusy(), 30000);
        QCOMPARE(panel.visibleRowCount(), int(a->tensors.size()) + 1);
        panel.setChangesOnly(true);
        QCOMPARE(panel.visibleRowCount(), 1);
        panel.setChangesOnly(false);
        QCOMPARE(panel.visibleRowCount(), int(a->tensors.size()) + 1);
    }
};

QTEST_MAIN(TestDiffPanel)
#include "tst_diffpanel.moc"
