// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The app on what users have (issue 28): transformer-shaped TrainingRecords of 8, 64, 256 MiB and
// 1 GiB written by the real rmp-serde (ckpt-interop transformer; 532 tensors: parameters,
// both Adam moments and a pending gradient of each), opened in the real window with the background
// pool limited to 1, 2 and 8 threads. Each case opens the record and, while its statistics run,
// selects a parameter in the Optimizer panel and a tensor in the detail view (the overlap that hung
// the app), then diffs the record with itself. A hang fails within seconds: the app's own watchdog
// (ui/async/activity.h, CKPT_WATCHDOG_SECONDS=5 here) names work that stopped moving. The
// statistics of every tensor must arrive, and be the same for every thread count.
#include "core/record/record.h"
#include "tests/ckptskip.h"
#include "ui/async/activity.h"
#include "ui/async/executor.h"
#include "ui/document/checkpointdocument.h"
#include "ui/mainwindow.h"
#include "ui/models/tensortablemodel.h"
#include "ui/plots/histogramplot.h"
#include "ui/widgets/diffpanel.h"
#include "ui/widgets/optimizerpanel.h"
#include "ui/widgets/tensordetailwidget.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QHash>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QTableView>
#include <QTest>

#include <cstring>
#include <functional>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

constexpr int WatchdogSeconds = 5;

/**
 * Spins the event loop until \a done, failing at once when the app's watchdog reports background
 * work that made no progress for WatchdogSeconds (a deadlock shows as exactly that), or after
 * \a limitMs in all (work that moves but never ends).
 */
bool waitFor(const std::function<bool()>& done, const QString& what, int limitMs, QString* failure)
{
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        const auto stalled = ActivityBoard::instance().stalled(int64_t(WatchdogSeconds) * 1000);
        if (!stalled.empty()) {
            *failure = QStringLiteral("%1: no progress for %2 s in \"%3\" (%4 running activities)")
                           .arg(what)
                           .arg(stalled.front().idleMs / 1000)
                           .arg(stalled.front().what)
                           .arg(ActivityBoard::instance().running());
            return false;
        }
        if (clock.elapsed() > limitMs) {
            *failure = QStringLiteral("%1: not done after %2 s").arg(what).arg(limitMs / 1000);
            return false;
        }
        QTest::qWait(20);
    }
    return true;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool sameStats(const TensorStats& a, const TensorStats& b)
{
    return a.count == b.count && a.finite == b.finite && a.nan == b.nan && a.inf == b.inf && a.zeros == b.zeros
        && sameBits(a.sum, b.sum) && sameBits(a.l2, b.l2) && sameBits(a.min, b.min) && sameBits(a.max, b.max)
        && sameBits(a.mean, b.mean) && sameBits(a.std, b.std) && a.histogram == b.histogram && sameBits(a.histLo, b.histLo)
        && sameBits(a.histHi, b.histHi);
}

} // namespace

#define WAIT_FOR(cond, what, limitMs)                                                        \
    do {                                                                                     \
        QString failure_;                                                                    \
        if (!waitFor([&] { return bool(cond); }, (what), (limitMs), &failure_))              \
            QFAIL(qPrintable(failure_));                                                     \
    } while (false)

class TestLargeRecords : public QObject {
    Q_OBJECT

    QString m_dir;
    /// the statistics of every row with the pool at its first thread count, per file
    QHash<QString, std::vector<std::optional<TensorStats>>> m_reference;

    QString record(int mib) const { return QDir(m_dir).filePath(QStringLiteral("transformer-%1.mpk").arg(mib)); }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("CKPT_WATCHDOG_SECONDS", QByteArray::number(WatchdogSeconds));
        m_dir = qEnvironmentVariable("CKPT_TRANSFORMER_RECORDS", QStringLiteral(CKPT_TRANSFORMER_RECORDS));
        for (int mib : {8, 64, 256, 1024})
            if (!QFileInfo::exists(record(mib))) {
                const QString why = QStringLiteral("%1 is missing: the ctest fixture transformer_records writes it with "
                                                   "ckpt-interop (Debian's cargo and librust-*-dev, packaging/install-deps.sh)")
                                        .arg(record(mib));
                CKPT_SKIP(why);
            }
    }

    void cleanup() { setBackgroundThreadCount(0); }

    void openStatisticsOptimizerAndSelfDiff_data()
    {
        QTest::addColumn<int>("mib");
        QTest::addColumn<int>("threads");
        for (int mib : {8, 64, 256, 1024})
            for (int threads : {1, 2, 8}) // the first thread count of a size is the reference of the others
                QTest::addRow("%d MiB, %d threads", mib, threads) << mib << threads;
    }

    void openStatisticsOptimizerAndSelfDiff()
    {
        QFETCH(int, mib);
        QFETCH(int, threads);
        const QString path = record(mib);
        setBackgroundThreadCount(threads);
        QCOMPARE(backgroundPool()->maxThreadCount(), threads);
        const int limit = 180000; // far above the seconds this takes; the watchdog fails a hang long before

        MainWindow w;
        w.resize(1400, 900);
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openPaths({path});
        WAIT_FOR(loaded.count() > 0, QStringLiteral("opening %1").arg(path), limit);
        QCOMPARE(w.document()->workspace().records.size(), size_t(1));
        const auto rec = w.document()->workspace().records[0].record;
        QVERIFY2(rec->damage.empty(), rec->damage.c_str());
        QCOMPARE(rec->kind, RecordKind::TrainingRecord);
        QVERIFY2(rec->tensors.size() >= 500, qPrintable(QString::number(rec->tensors.size())));
        // the generator picks d_model in steps of 8: within 15 % of the size asked for (8 MiB gives 7.1)
        QVERIFY(rec->fileSize >= uint64_t(mib) * (85u << 20) / 100 && rec->fileSize <= uint64_t(mib) * (115u << 20) / 100);
        QVERIFY(!rec->optimizer.empty());
        QVERIFY(!rec->gradients.empty());

        // While the record's statistics run: a parameter's optimizer histograms and a tensor's detail,
        // each its own job on the same pool (the overlap that deadlocked Qt's nested blockingMap)
        // (after the window's own first selection, which follows loadFinished by two event-loop turns;
        // the selection is cross-linked: the parameter last, so that it is the one the panel keeps)
        WAIT_FOR(w.detail()->tensor().valid(), QStringLiteral("the first selection"), limit);
        w.selectTensor(TensorRef{0, int(rec->tensors.size() - 1)});
        // the last entry: the window selects the first parameter by itself
        const QString param = QString::fromStdString(rec->optimizer.back().paramId);
        w.raisePanel(QStringLiteral("optimizer"));
        QVERIFY(w.optimizerPanel()->selectParam(param));

        TensorTableModel* model = w.tensorModel();
        WAIT_FOR(model->statsCount() == model->rowCount() && w.isIdle(), QStringLiteral("statistics of %1").arg(path), limit);
        QCOMPARE(model->rowCount(), int(rec->tensors.size()));
        QVERIFY(w.watchdogText().isEmpty());

        // the Optimizer panel: the parameter, both moments and its pending gradient, each with a histogram
        QCOMPARE(w.optimizerPanel()->selectedParam(), param);
        QCOMPARE(w.optimizerPanel()->plotCount(), 4);
        for (const HistogramPlot* plot : w.optimizerPanel()->findChildren<HistogramPlot*>())
            QVERIFY2(plot->barCount() > 0, "an optimizer histogram never arrived");

        // the same statistics, bit for bit, for every thread count
        std::vector<std::optional<TensorStats>> stats;
        for (int row = 0; row < model->rowCount(); ++row) {
            QVERIFY(model->statsAt(row).has_value());
            stats.push_back(model->statsAt(row));
        }
        if (const auto ref = m_reference.constFind(path); ref == m_reference.cend()) {
            m_reference.insert(path, std::move(stats));
        } else {
            QCOMPARE(ref->size(), stats.size());
            for (size_t i = 0; i < stats.size(); ++i)
                QVERIFY2(sameStats(*(*ref)[i], *stats[i]), qPrintable(QStringLiteral("tensor %1 differs").arg(i)));
        }

        // the record against itself: every tensor compared, none changed
        loaded.clear();
        w.openDiff(path, path);
        WAIT_FOR(loaded.count() > 0, QStringLiteral("opening %1 twice").arg(path), limit);
        WAIT_FOR(w.isIdle() && w.diffPanel()->table()->model()->rowCount() > 0, QStringLiteral("self-diff of %1").arg(path), limit);
        QVERIFY2(w.diffPanel()->summary().contains(QLatin1String("changed 0")), qPrintable(w.diffPanel()->summary()));
        QVERIFY(w.watchdogText().isEmpty());
    }

    // The watchdog itself: an activity that stops ticking is named in the status bar and in
    // Messages, and the warning goes once the work is gone.
    void watchdogNamesStalledWork()
    {
        MainWindow w;
        w.show();
        QVERIFY(w.watchdogText().isEmpty());
        {
            const Activity stuck(QStringLiteral("statistics of a stuck thing"));
            QTRY_VERIFY_WITH_TIMEOUT(!w.watchdogText().isEmpty(), (WatchdogSeconds + 5) * 1000);
            QVERIFY2(w.watchdogText().contains(QLatin1String("statistics of a stuck thing")), qPrintable(w.watchdogText()));
            QVERIFY2(w.watchdogText().contains(QLatin1String("No progress for")), qPrintable(w.watchdogText()));
            QVERIFY(w.messages()->toPlainText().contains(QLatin1String("no progress for")));
            if (const QString shots = qEnvironmentVariable("CKPT_UI_SHOTS"); !shots.isEmpty()) // for looking at it
                w.grab().save(QDir(shots).filePath(QStringLiteral("watchdog.png")));
        }
        QTRY_VERIFY_WITH_TIMEOUT(w.watchdogText().isEmpty(), 5000);
    }
};

QTEST_MAIN(TestLargeRecords)
#include "tst_largerecords.moc"
