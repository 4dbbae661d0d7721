// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The Diff panel offscreen on a real ckpt-train run: records at two steps, a half copy, two
// GradientCheckpoints; rows sorted by the size of the change, tinted by status, with a detail.
#include "ui/mainwindow.h"
#include "ui/widgets/diffpanel.h"

#include "core/edit/edit.h"
#include "core/record/record.h"

#include <QProcess>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

std::shared_ptr<const Record> open(const QString& path)
{
    auto r = openRecord(path.toStdString());
    return r ? *r : nullptr;
}

/// The max |b−a| column's numbers from the top, as the table shows them.
std::vector<double> maxAbsColumn(const QTableWidget* t)
{
    std::vector<double> v;
    for (int r = 0; r < t->rowCount(); ++r)
        if (const auto* item = t->item(r, 3); item && !item->text().isEmpty())
            v.push_back(item->data(Qt::UserRole + 1).toDouble());
    return v;
}

int rowOf(const QTableWidget* t, const QString& path)
{
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, 0)->text() == path)
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
        QCOMPARE(panel.table()->item(tensor, 1)->text(), QStringLiteral("changed"));
        QCOMPARE(panel.table()->item(tensor, 1)->background().color(), QColor(251, 232, 192));
        const int state = rowOf(panel.table(), QStringLiteral("item[4].progress.step"));
        QVERIFY(state >= 0);
        QCOMPARE(panel.table()->item(state, 2)->text(), QStringLiteral("caller_state"));
        QCOMPARE(panel.table()->item(state, 8)->text(), QStringLiteral("3 → 6"));
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
        QCOMPARE(panel.table()->item(row, 8)->text(), QStringLiteral("precision change"));
    }

    void twoGradientCheckpointsFromTheWindow()
    {
        MainWindow w;
        w.show();
        QSignalSpy loaded(&w, &MainWindow::loadFinished);
        w.openDiff(m_run + QStringLiteral("/graph/step-3.json"), m_run + QStringLiteral("/graph/step-6.json"));
        QVERIFY(loaded.wait(60000));
        QTRY_VERIFY_WITH_TIMEOUT(w.isIdle() && w.diffPanel()->table()->rowCount() > 0, 60000);
        const QString s = w.diffPanel()->summary();
        QVERIFY2(s.contains(QLatin1String("(step 3)")) && s.contains(QLatin1String("(step 6)")), qPrintable(s));
        QVERIFY2(s.contains(QLatin1String("9 matched by op and position")), qPrintable(s));
        QVERIFY2(s.contains(QLatin1String("CARs both")), qPrintable(s));
        // The first row is the node whose output moved most; its blocks are read for the detail.
        QTRY_VERIFY_WITH_TIMEOUT(w.diffPanel()->detailTitle().contains(QLatin1String("delta")), 30000);
        QCOMPARE(w.diffPanel()->table()->item(0, 2)->text(), QStringLiteral("op_position"));
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
