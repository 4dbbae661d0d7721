// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "core/io/bytes.h"
#include "core/open/formats.h"
#include "core/record/record.h"
#include "core/model/recorder.h"
#include "core/value/tape.h"
#include "ui/async/latencyprobe.h"
#include "ui/document/checkpointdocument.h"
#include "ui/graph/graphview.h"
#include "ui/mainwindow.h"
#include "ui/models/formatting.h"
#include "ui/models/modelroles.h"
#include "ui/models/tensortablemodel.h"
#include "ui/plots/histogramplot.h"
#include "ui/plots/lossplotwidget.h"
#include "ui/widgets/aboutdialog.h"
#include "ui/widgets/diffpanel.h"
#include "ui/widgets/optimizerpanel.h"
#include "ui/widgets/tensordetailwidget.h"

#include <QAction>
#include <QDockWidget>
#include <QDropEvent>
#include <QHash>
#include <QImage>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUrl>

using namespace ckpt;
using namespace ckpt::ui;

class TestMainWindow : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_settingsDir;
    static QString fixture(const char* rel) { return QStringLiteral(CKPT_FIXTURES "/") + QLatin1String(rel); }
    static bool open(MainWindow& w, const QStringList& paths)
    {
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPaths(paths);
        if (!loaded.wait(60000))
            return false;
        return QTest::qWaitFor([&] { return w.isIdle(); }, 60000);
    }

    /**
     * A module record of \a small tensors of \a smallNumel f32 values (the per-row signal case) and
     * \a large ones of \a largeNumel (the chunked case), values 1 + U[-1, 1).
     */
    static QString writeManyTensorRecord(const QString& dir, int small, uint64_t smallNumel, int large, uint64_t largeNumel)
    {
        TapeBuilder b;
        beginEnvelope(b, makeMetadata(Recorder::NamedMpk, Precision::Full));
        b.beginMap();
        std::vector<uint8_t> payload;
        uint32_t state = 12345;
        for (int k = 0; k < small + large; ++k) {
            const uint64_t numel = k < small ? smallNumel : largeNumel;
            payload.resize(numel * 4);
            for (uint64_t i = 0; i < numel; ++i) {
                state = state * 1664525u + 1013904223u;
                const float v = 1.0f + float(int32_t(state >> 8) - (1 << 23)) / float(1 << 23);
                std::memcpy(payload.data() + 4 * i, &v, 4);
            }
            b.key("t" + std::to_string(k));
            b.beginMap();
            b.key("id");
            b.str(paramIdFromU64(uint64_t(k) + 1));
            b.key("param");
            b.beginMap();
            b.key("bytes");
            b.bin(payload);
            b.key("shape");
            b.beginArray();
            b.uinteger(numel);
            b.end();
            b.key("dtype");
            b.str("F32");
            b.end();
            b.end();
        }
        b.end();
        endEnvelope(b);
        const QString path = dir + QStringLiteral("/many.mpk");
        const Tape tape = std::move(b).finish();
        return saveRecord(tape, Recorder::NamedMpk, path.toStdString()) ? path : QString();
    }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("CheckpointInspectorTests"));
        QSettings::setDefaultFormat(QSettings::IniFormat);
        QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
    }

    // Help > About shows the build information a bug report needs; CKPT_SHOT_DIR keeps a picture.
    void aboutDialogShowsBuildInformation()
    {
        MainWindow w;
        w.show();
        auto* about = w.findChild<QAction*>(QStringLiteral("aboutAction"));
        QVERIFY(about);
        QString shown;
        QTimer::singleShot(0, &w, [&] {
            QWidget* dialog = QApplication::activeModalWidget();
            if (!dialog)
                return;
            if (auto* details = dialog->findChild<QPlainTextEdit*>(QStringLiteral("buildInformation")))
                shown = details->toPlainText();
            if (const QString dir = qEnvironmentVariable("CKPT_SHOT_DIR"); !dir.isEmpty())
                dialog->grab().save(dir + QStringLiteral("/about.png"));
            dialog->close();
        });
        about->trigger();
        QCOMPARE(shown, buildInformation());
    }

    // Opened files are remembered across sessions, newest first, and offered under File > Open Recent.
    void recentFilesSurviveARestart()
    {
        const QString a = fixture("models/burn-0.16.1_full_connect4.mpk");
        const QString b = fixture("models/burn-0.14.0_full_sysdesign.mpk");
        {
            MainWindow w;
            QVERIFY(open(w, {a}));
            QVERIFY(open(w, {b}));
            QVERIFY(open(w, {a}));
        }
        MainWindow again;
        QMenu* recent = nullptr;
        for (QAction* menu : again.menuBar()->actions())
            if (menu->menu())
                for (QAction* item : menu->menu()->actions())
                    if (item->menu() && item->text().contains(QLatin1String("Recent")))
                        recent = item->menu();
        QVERIFY(recent);
        QVERIFY(recent->actions().size() >= 2);
        QCOMPARE(recent->actions().at(0)->text(), QFileInfo(a).absoluteFilePath());
        QCOMPARE(recent->actions().at(1)->text(), QFileInfo(b).absoluteFilePath());
        QSignalSpy loaded(&again, &MainWindow::loadFinished);
        recent->actions().at(1)->trigger();
        QVERIFY(loaded.wait(60000));
        QCOMPARE(again.document()->workspace().inputs, QStringList{QFileInfo(b).absoluteFilePath()});
    }

    // Files and run directories dropped from a file manager open like File > Open.
    void droppedRunDirectoryOpens()
    {
        MainWindow w;
        w.show();
        QMimeData data;
        data.setUrls({QUrl::fromLocalFile(fixture("runs/mlplay-0.16.1"))});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &data, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &drop);
        QVERIFY(loaded.wait(60000));
        QCOMPARE(int(w.document()->workspace().records.size()), 3);
        QVERIFY(w.document()->workspace().loss.has_value());
    }

    // The dock layout a user arranged comes back in the next session.
    void windowLayoutIsRestored()
    {
        {
            MainWindow w;
            w.show();
            auto* messages = w.findChild<QDockWidget*>(QStringLiteral("dock_messages"));
            QVERIFY(messages);
            QVERIFY(messages->isVisible());
            messages->hide();
            QVERIFY(w.close());
        }
        MainWindow again;
        again.show();
        auto* messages = again.findChild<QDockWidget*>(QStringLiteral("dock_messages"));
        QVERIFY(messages);
        QVERIFY(!messages->isVisible());
        messages->show(); // leave the default layout for the tests after this one
        QVERIFY(again.close());
    }

    void runDirectoryCrossLinks()
    {
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(open(w, {fixture("runs/mechint-0.20.0-pre.6")}));
        const Workspace& ws = w.document()->workspace();
        QCOMPARE(int(ws.records.size()), 3); // model-3, optim-3, scheduler-3
        QVERIFY(ws.loss.has_value());
        QCOMPARE(w.lossPlot()->curveCount(), 4);
        QVERIFY(w.lossPlot()->visibleCurveCount() >= 2); // the Loss curves are on by default

        // statistics of every tensor arrived off-thread
        QCOMPARE(w.tensorModel()->statsCount(), w.tensorModel()->rowCount());

        // the first parameter is preselected everywhere
        const TensorRef first = w.detail()->tensor();
        QVERIFY(first.valid());
        const TensorEntry* t = ws.tensor(first);
        QCOMPARE(int(t->role), int(TensorRole::Param));
        const QString id = QString::fromStdString(t->paramId);
        QCOMPARE(w.optimizerPanel()->selectedParam(), id);
        QVERIFY(w.detail()->histogram()->barCount() > 0);

        // pick another parameter in the tensor table: detail, record tree and optimizer follow
        int otherRow = -1;
        for (int r = 0; r < w.tensorModel()->rowCount(); ++r) {
            const TensorEntry* e = ws.tensor(w.tensorModel()->refAt(r));
            if (e->role == TensorRole::Param && QString::fromStdString(e->paramId) != id) {
                otherRow = r;
                break;
            }
        }
        QVERIFY(otherRow >= 0);
        const TensorRef other = w.tensorModel()->refAt(otherRow);
        const QString otherId = QString::fromStdString(ws.tensor(other)->paramId);
        auto* proxy = w.tensorView()->model();
        QModelIndex cell;
        for (int r = 0; r < proxy->rowCount(); ++r)
            if (proxy->index(r, 0).data(TensorKeyRole).toString() == other.key())
                cell = proxy->index(r, 0);
        QVERIFY(cell.isValid());
        w.tensorView()->setCurrentIndex(cell);
        QCOMPARE(w.detail()->tensor(), other);
        QCOMPARE(w.optimizerPanel()->selectedParam(), otherId);
        QCOMPARE(w.recordView()->currentIndex().data(TensorKeyRole).toString(), other.key());
        QTRY_VERIFY_WITH_TIMEOUT(w.isIdle(), 30000);
        // parameter + its optimizer state tensors, histograms side by side
        const int attached = int(ws.tensorsOfParam(otherId.toStdString()).size());
        QVERIFY(attached >= 2);
        QCOMPARE(w.optimizerPanel()->plotCount(), attached);

        // and back: picking the optimizer entry of the first parameter selects its tensor
        auto* optView = w.optimizerPanel()->view();
        QModelIndex entry;
        for (int r = 0; r < optView->model()->rowCount(); ++r)
            if (optView->model()->index(r, 0).data(ParamIdRole).toString() == id)
                entry = optView->model()->index(r, 0);
        QVERIFY(entry.isValid());
        optView->setCurrentIndex(entry);
        QCOMPARE(w.detail()->tensor(), first);
        QCOMPARE(w.tensorView()->currentIndex().data(TensorKeyRole).toString(), first.key());

        // Ctrl+F search finds a parameter id and selects its tensor
        QVERIFY(w.find(otherId));
        QCOMPARE(w.optimizerPanel()->selectedParam(), otherId);
        QVERIFY(!w.find(QStringLiteral("no-such-name-anywhere")));
    }

    void moduleRecordDetail()
    {
        MainWindow w;
        w.show();
        QVERIFY(open(w, {fixture("models/burn-0.16.1_full_connect4.mpk")}));
        const Workspace& ws = w.document()->workspace();
        QCOMPARE(int(ws.records.size()), 1);
        QCOMPARE(w.tensorModel()->rowCount(), int(ws.records[0].record->tensors.size()));
        // a 2-D weight: heatmap slice and a value matrix
        int row = -1;
        for (int r = 0; r < w.tensorModel()->rowCount(); ++r)
            if (ws.tensor(w.tensorModel()->refAt(r))->shape.size() == 2) {
                row = r;
                break;
            }
        QVERIFY(row >= 0);
        const TensorRef ref = w.tensorModel()->refAt(row);
        w.selectTensor(ref);
        QTRY_VERIFY_WITH_TIMEOUT(w.isIdle(), 30000);
        const TensorEntry* t = ws.tensor(ref);
        QCOMPARE(w.detail()->valueTable()->columnCount(), int(std::min<uint64_t>(t->shape[1], 512)));
        QVERIFY(w.detail()->valueTable()->rowCount() > 0);
        // the first shown value is the tensor's first element
        const auto first = ws.records[0].record->values(*t, 0, 1);
        QCOMPARE(w.detail()->valueTable()->item(0, 0)->text(), formatNumber(first.at(0)));
    }

    void errorsStayInTheWindow()
    {
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("broken.mpk"));
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(QByteArray::fromHex("83a86d65746164617461")); // a map that ends early
        f.close();
        MainWindow w;
        w.show();
        QVERIFY(open(w, {bad}));
        QVERIFY(w.document()->workspace().records.empty());
        const QString text = w.messages()->toPlainText();
        QVERIFY2(text.contains(QLatin1String("broken.mpk")), qPrintable(text));
        QVERIFY2(text.contains(QLatin1String("offset")), qPrintable(text));
    }

    // A record cut short on disk while open (a run rewriting its checkpoint in place): the window says
    // the file changed, reads zeros past the new end instead of dying of SIGBUS, and says that too.
    void recordTruncatedWhileOpen()
    {
        QVERIFY(guardMappedFiles());
        QTemporaryDir dir;
        const QString path = writeManyTensorRecord(dir.path(), 0, 0, 2, uint64_t(1) << 20); // two 4 MiB tensors
        QVERIFY(!path.isEmpty());
        MainWindow w;
        w.show();
        QVERIFY(open(w, {path}));
        QCOMPARE(w.tensorModel()->statsCount(), 2); // every payload page has been read once
        QVERIFY(QFile::resize(path, 4096));          // in place, as ftruncate: the mapping loses its pages
        QTRY_VERIFY_WITH_TIMEOUT(w.messages()->toPlainText().contains(QLatin1String("changed on disk")), 10000);
        // Showing a tensor reads its payload again, now past the file's end.
        w.selectTensor(w.tensorModel()->refAt(1));
        QTRY_VERIFY_WITH_TIMEOUT(w.messages()->toPlainText().contains(QLatin1String("truncated on disk while open")), 30000);
        QVERIFY(w.document()->workspace().records.front().record->tape.source->truncatedWhileMapped());
        QVERIFY(w.isVisible());
    }

    void gradientCheckpointGraph()
    {
        MainWindow w;
        w.show();
        QVERIFY(open(w, {QStringLiteral(CKPT_TEST_DATA "/graph/worked_example.json")}));
        const auto& graph = w.document()->workspace().graph;
        QVERIFY2(graph != nullptr, qPrintable(w.messages()->toPlainText()));
        QCOMPARE(w.graphView()->nodeCount(), int(graph->names.size()));
        QVERIFY(!graph->analysis.lossProvenanceChain.empty());
        QVERIFY(w.graphView()->selectNode(QString::fromStdString(graph->names.front())));
        QVERIFY(!w.graphView()->selectNode(QStringLiteral("no-such-node")));
        // Find (Ctrl+F) reaches the graph's nodes when no record holds the text
        const int last = int(graph->names.size()) - 1;
        QVERIFY(w.find(QString::fromStdString(graph->names.back())));
        QCOMPARE(w.graphView()->selectedNode(), last);
        QVERIFY(!w.find(QStringLiteral("no-such-node")));
        QTemporaryDir dir;
        QCOMPARE(w.graphView()->exportImage(dir.filePath(QStringLiteral("g.png"))), QString());
        QCOMPARE(w.graphView()->exportImage(dir.filePath(QStringLiteral("g.svg"))), QString());
        // The exports show the graph, not only a file: the PNG has the drawing's colours beside the
        // white background, the SVG names every node's op.
        const QImage png(dir.filePath(QStringLiteral("g.png")));
        QVERIFY(!png.isNull());
        QVERIFY2(png.width() >= 100 && png.height() >= 100, qPrintable(QStringLiteral("%1x%2").arg(png.width()).arg(png.height())));
        QHash<QRgb, qint64> colours;
        for (int y = 0; y < png.height(); ++y)
            for (int x = 0; x < png.width(); ++x)
                ++colours[png.pixel(x, y)];
        const double white = double(colours.value(qRgb(255, 255, 255))) / (double(png.width()) * png.height());
        qInfo("graph PNG %dx%d: %lld colours, %.1f%% white", png.width(), png.height(), static_cast<long long>(colours.size()), 100 * white);
        QVERIFY2(colours.size() >= 16 && white < 0.97, "the exported PNG is (nearly) blank");
        QFile svg(dir.filePath(QStringLiteral("g.svg")));
        QVERIFY(svg.open(QIODevice::ReadOnly));
        const QByteArray svgText = svg.readAll();
        for (const auto& [key, node] : graph->checkpoint.graph.nodes)
            QVERIFY2(svgText.contains(QByteArray::fromStdString(node.op)), node.op.c_str());
    }

    void diffOfTwoRecords()
    {
        MainWindow w;
        w.show();
        const QString a = fixture("runs/mechint-0.20.0-pre.6/checkpoint/model-3.mpk");
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openDiff(a, a);
        QVERIFY(loaded.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(w.isIdle(), 60000);
        QVERIFY(w.diffPanel()->table()->model()->rowCount() > 0);
        QVERIFY2(w.diffPanel()->summary().contains(QLatin1String("changed 0")), qPrintable(w.diffPanel()->summary()));

        // Against a copy with one element of the first tensor nudged (the top mantissa bit of its f16,
        // in the payload bytes), exactly that tensor is reported changed: a panel that always says
        // "changed 0" cannot pass.
        auto rec = openRecord(a.toStdString());
        QVERIFY(rec.has_value());
        const TensorEntry& first = (*rec)->tensors.at(0);
        QCOMPARE(first.dtype, DType::F16);
        QVERIFY(first.offset.has_value());
        QFile in(a);
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray bytes = in.readAll();
        bytes[qsizetype(*first.offset) + 1] = char(bytes[qsizetype(*first.offset) + 1] ^ 0x01);
        QTemporaryDir dir;
        const QString b = dir.filePath(QStringLiteral("model-3-nudged.mpk"));
        QFile out(b);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bytes);
        out.close();
        w.openDiff(a, b);
        QVERIFY(loaded.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(w.isIdle(), 60000);
        const QString summary = w.diffPanel()->summary();
        QVERIFY2(summary.contains(QLatin1String("changed 1 ")) && summary.contains(QStringLiteral("unchanged %1 ").arg((*rec)->tensors.size() - 1)),
            qPrintable(summary));
        const QAbstractItemModel* table = w.diffPanel()->table()->model();
        int changedRows = 0;
        for (int row = 0; row < table->rowCount(); ++row) {
            if (table->index(row, 1).data().toString() != QLatin1String("changed"))
                continue;
            ++changedRows;
            QCOMPARE(table->index(row, 0).data().toString(), QString::fromStdString(first.path));
            QVERIFY(table->index(row, 3).data().toDouble() > 0); // max |b - a| (after Path, Status, Matched by), as shown
        }
        QCOMPARE(changedRows, 1);
    }

    void statisticsArriveInBatchesWhileTheEventLoopRuns()
    {
        // 3000 small tensors would be 3000 model updates (and proxy re-sorts) if results came one by
        // one; two 4M-element tensors are split into chunks over the pool.
        QTemporaryDir dir;
        const int small = 3000, large = 2;
        const QString path = writeManyTensorRecord(dir.path(), small, 256, large, uint64_t(4) << 20);
        QVERIFY(!path.isEmpty());
        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // sorted by a statistics column, the worst case for a dynamically sorting proxy
        w.tensorView()->sortByColumn(TensorTableModel::MeanColumn, Qt::DescendingOrder);
        int updates = 0;
        connect(w.tensorModel(), &QAbstractItemModel::dataChanged, this, [&] { ++updates; });
        LatencyProbe probe(5);
        probe.start();
        QVERIFY(open(w, {path}));
        probe.stop();
        QCOMPARE(w.tensorModel()->rowCount(), small + large);
        QCOMPARE(w.tensorModel()->statsCount(), small + large);
        // batched: at most one update per 256 tensors or 32 MiB (plus the rows of the large tensors)
        QVERIFY2(updates <= (small + large) / 256 + 2 * large + 2, qPrintable(QStringLiteral("%1 model updates").arg(updates)));
        // the table shows what core computes
        const Workspace& ws = w.document()->workspace();
        for (int row : {0, small - 1, small, small + large - 1}) {
            const TensorRef ref = w.tensorModel()->refAt(row);
            const TensorStats direct = ws.records[size_t(ref.record)].record->stats(*ws.tensor(ref), StatsOptions{0, false});
            QCOMPARE(w.tensorModel()->statsAt(row)->mean, direct.mean);
            QCOMPARE(w.tensorModel()->statsAt(row)->std, direct.std);
        }
        // the sort followed the statistics: descending means
        auto* proxy = w.tensorView()->model();
        double previous = std::numeric_limits<double>::infinity();
        for (int r = 0; r < proxy->rowCount(); ++r) {
            const double mean = proxy->index(r, TensorTableModel::MeanColumn).data(SortRole).toDouble();
            QVERIFY(mean <= previous);
            previous = mean;
        }
        // The probe's figures are reported, not judged: timings belong to tests/bench.
        QVERIFY(probe.ticks() > 0);
        qInfo("latency probe (5 ms timer) while %d tensors opened and their statistics arrived: %lld ticks, "
              "max lateness %.1f ms (at %.2f s), p99 %.1f ms, %d model updates",
            small + large, static_cast<long long>(probe.ticks()), probe.maxLatenessMs(), probe.worstAtSeconds(),
            probe.quantileMs(0.99), updates);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
