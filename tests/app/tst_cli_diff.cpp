// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// `ckpt diff` as scripts use it: the contract's keys stay, the new ones say what moved, for two
// records (a genuine fixture, a ckpt-train run, its half copy) and for two GradientCheckpoints.
#include "cliprocess.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

using clitest::Run;
using clitest::run;

QJsonObject diffJson(const QString& a, const QString& b)
{
    const Run r = run(QStringLiteral("ckpt"), {QStringLiteral("diff"), a, b, QStringLiteral("--json")});
    if (r.code != 0)
        qWarning("ckpt diff failed: %s", r.err.constData());
    return QJsonDocument::fromJson(r.out).object();
}

} // namespace

class TestCliDiff : public QObject {
    Q_OBJECT
    QTemporaryDir m_dir;
    QString m_run;

private Q_SLOTS:
    void initTestCase()
    {
        m_run = m_dir.filePath(QStringLiteral("run"));
        const Run t = run(QStringLiteral("ckpt-train"), {QStringLiteral("--out"), m_run, QStringLiteral("--steps"), QStringLiteral("6"),
            QStringLiteral("--checkpoint-every"), QStringLiteral("3"), QStringLiteral("--layout"), QStringLiteral("all")});
        QVERIFY2(t.code == 0, t.err.constData());
    }

    void recordDiffKeepsTheContractAndSaysWhatMoved()
    {
        const QString a = m_run + QStringLiteral("/checkpoint/record-3.mpk"), b = m_run + QStringLiteral("/checkpoint/record-6.mpk");
        const QJsonObject o = diffJson(a, b);
        for (const char* key : {"a", "b", "summary", "entries", "state", "precision"})
            QVERIFY2(o.contains(QLatin1String(key)), key);
        QVERIFY(o[QLatin1String("precision")].isNull());
        const QJsonArray entries = o[QLatin1String("entries")].toArray();
        QVERIFY(!entries.isEmpty());
        for (const auto& v : entries) {
            const QJsonObject e = v.toObject();
            for (const char* key : {"path", "status", "max_abs", "rel_l2", "cosine", "mean_abs", "above_tolerance", "match", "role", "histogram"})
                QVERIFY2(e.contains(QLatin1String(key)), key);
            QCOMPARE(e[QLatin1String("status")].toString(), QStringLiteral("changed"));
            QCOMPARE(e[QLatin1String("match")].toString(), QStringLiteral("path_and_id"));
            qint64 inHistogram = 0;
            for (const auto& bin : e[QLatin1String("histogram")].toArray())
                inHistogram += bin.toObject()[QLatin1String("count")].toInteger();
            QVERIFY(inHistogram > 0);
        }
        bool callerStep = false;
        for (const auto& v : o[QLatin1String("state")].toArray()) {
            const QJsonObject s = v.toObject();
            callerStep |= s[QLatin1String("path")].toString() == QLatin1String("item[4].progress.step") &&
                s[QLatin1String("section")].toString() == QLatin1String("caller_state") && s[QLatin1String("b")].toInt() == 6;
        }
        QVERIFY(callerStep);
        // The text form names the sections too.
        const Run text = run(QStringLiteral("ckpt"), {QStringLiteral("diff"), a, b});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("caller_state   item[4].progress.step"));
        QVERIFY(text.out.contains("mean_abs="));
    }

    void halfCopyIsAPrecisionChange()
    {
        const QString a = m_run + QStringLiteral("/checkpoint/record-6.mpk");
        const QString half = m_dir.filePath(QStringLiteral("half.mpk"));
        QCOMPARE(run(QStringLiteral("ckpt"), {QStringLiteral("convert"), a, half, QStringLiteral("--precision"), QStringLiteral("half")}).code, 0);
        const QJsonObject o = diffJson(a, half);
        const QJsonObject p = o[QLatin1String("precision")].toObject();
        QCOMPARE(p[QLatin1String("a")].toString(), QStringLiteral("full"));
        QCOMPARE(p[QLatin1String("b")].toString(), QStringLiteral("half"));
        QVERIFY(p[QLatin1String("rounding_only")].toBool());
        for (const auto& v : o[QLatin1String("entries")].toArray()) {
            QCOMPARE(v.toObject()[QLatin1String("status")].toString(), QStringLiteral("dtype_changed"));
            QVERIFY(v.toObject()[QLatin1String("precision_change")].toBool());
        }
        const Run text = run(QStringLiteral("ckpt"), {QStringLiteral("diff"), a, half});
        QVERIFY(text.out.contains("precision      full -> half"));
    }

    void twoGradientCheckpoints()
    {
        const QString a = m_run + QStringLiteral("/graph/step-3.json"), b = m_run + QStringLiteral("/graph/step-6.json");
        const QJsonObject self = diffJson(a, a);
        QCOMPARE(self[QLatin1String("kind")].toString(), QStringLiteral("gradient_checkpoint"));
        QCOMPARE(self[QLatin1String("summary")].toObject()[QLatin1String("changed")].toInt(), 0);
        QCOMPARE(self[QLatin1String("cars")].toObject()[QLatin1String("block_bytes_read")].toInt(), 0);
        const QJsonObject o = diffJson(a, b);
        const QJsonObject sum = o[QLatin1String("summary")].toObject();
        QCOMPARE(sum[QLatin1String("added")].toInt() + sum[QLatin1String("removed")].toInt(), 0);
        QVERIFY(sum[QLatin1String("changed")].toInt() > 0);
        QCOMPARE(o[QLatin1String("step")].toObject()[QLatin1String("b")].toInt(), 6);
        QVERIFY(o[QLatin1String("loss")].toObject()[QLatin1String("changed")].toBool());
        // The CARs next to the files were found and read.
        QVERIFY(o[QLatin1String("cars")].toObject()[QLatin1String("a")].toBool());
        QVERIFY(o[QLatin1String("loss")].toObject()[QLatin1String("values")].isObject());
        bool counter = false;
        for (const auto& v : o[QLatin1String("optimizer_state")].toArray())
            counter |= v.toObject()[QLatin1String("counter")].toObject()[QLatin1String("b")].toInt() == 6;
        QVERIFY(counter);
        // A record and a GradientCheckpoint are not comparable: a usage error, nothing on stdout.
        const Run mixed = run(QStringLiteral("ckpt"), {QStringLiteral("diff"), a, m_run + QStringLiteral("/checkpoint/record-3.mpk")});
        QCOMPARE(mixed.code, 2);
        QVERIFY(mixed.out.isEmpty());
        QVERIFY(mixed.err.startsWith("ckpt: diff compares two records or two GradientCheckpoints"));
    }
};

QTEST_GUILESS_MAIN(TestCliDiff)
#include "tst_cli_diff.moc"
