// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Drives the real `ckpt` binary the way scripts do (cli-contract.md): keys, exit codes, messages.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Run {
    int code = -1;
    QByteArray out, err;
};

Run ckpt(const QStringList& args)
{
    QProcess p;
    p.start(QStringLiteral(CKPT_BIN_DIR "/ckpt"), args);
    p.waitForFinished(120000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

QString fixture(const char* rel)
{
    return QStringLiteral(CKPT_FIXTURES "/") + QString::fromUtf8(rel);
}

QByteArray fileBytes(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

} // namespace

class TestCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void infoJsonKeys()
    {
        const Run r = ckpt({QStringLiteral("info"), fixture("runs/mechint-0.20.0-pre.6/checkpoint/optim-3.mpk"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(r.out).object();
        for (const char* key : {"kind", "recorder", "precision", "metadata", "params", "optimizer_entries", "pending_gradients", "tensors", "tensor_bytes"})
            QVERIFY2(o.contains(QLatin1String(key)), key);
        QCOMPARE(o[QLatin1String("kind")].toString(), QStringLiteral("optimizer_record"));
        QCOMPARE(o[QLatin1String("recorder")].toString(), QStringLiteral("NamedMpk"));
        QCOMPARE(o[QLatin1String("precision")].toString(), QStringLiteral("half"));
        QCOMPARE(o[QLatin1String("optimizer_entries")].toInt(), 16);
        const QJsonObject m = o[QLatin1String("metadata")].toObject();
        QCOMPARE(m[QLatin1String("version")].toString(), QStringLiteral("0.20.0-pre.6"));
        QCOMPARE(m[QLatin1String("float")].toString(), QStringLiteral("half::binary16::f16"));
    }

    void tensorsJsonContract()
    {
        const Run r = ckpt({QStringLiteral("tensors"), fixture("models/burn-0.16.1_full_connect4.mpk"), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonArray a = QJsonDocument::fromJson(r.out).array();
        QCOMPARE(a.size(), 6);
        const QJsonObject t = a[0].toObject();
        for (const char* key : {"path", "role", "param_id", "dtype", "shape", "numel", "bytes", "offset", "sum", "l2", "min", "max", "mean", "std", "nan", "inf", "zeros"})
            QVERIFY2(t.contains(QLatin1String(key)), key);
        QCOMPARE(t[QLatin1String("role")].toString(), QStringLiteral("param"));
        QCOMPARE(t[QLatin1String("dtype")].toString(), QStringLiteral("F32"));
        QVERIFY(t[QLatin1String("path")].toString().endsWith(QStringLiteral(".weight.param")));
        const qint64 offset = t[QLatin1String("offset")].toInteger();
        // The offset points at the payload: the bytes there are the first weight.
        const QByteArray file = fileBytes(fixture("models/burn-0.16.1_full_connect4.mpk"));
        QVERIFY(offset > 0 && offset + t[QLatin1String("bytes")].toInteger() <= file.size());
        // --filter keeps only matching paths.
        const Run f = ckpt({QStringLiteral("tensors"), fixture("models/burn-0.16.1_full_connect4.mpk"), QStringLiteral("--json"), QStringLiteral("--filter"), QStringLiteral("*.bias.param")});
        QCOMPARE(QJsonDocument::fromJson(f.out).array().size(), 3);
    }

    void errorsNameFileAndOffset()
    {
        QTemporaryDir dir;
        const QString cut = dir.filePath(QStringLiteral("cut.mpk"));
        QFile out(cut);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(fileBytes(fixture("models/burn-0.16.1_full_connect4.mpk")).left(5000));
        out.close();
        const Run r = ckpt({QStringLiteral("info"), cut});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.startsWith(QByteArray("ckpt: " + cut.toUtf8() + ": offset ")), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1); // one message
        QCOMPARE(ckpt({QStringLiteral("info")}).code, 2);
        QCOMPARE(ckpt({QStringLiteral("frobnicate")}).code, 2);
        QCOMPARE(ckpt({QStringLiteral("info"), cut, QStringLiteral("--bogus")}).code, 2);
        const Run missing = ckpt({QStringLiteral("info"), dir.filePath(QStringLiteral("nope.mpk"))});
        QCOMPARE(missing.code, 1);
        QVERIFY(missing.err.contains("No such file"));
    }

    void failedWritesLeaveNothing()
    {
        QTemporaryDir dir;
        const QString outPath = dir.filePath(QStringLiteral("out.mpk"));
        // A bincode record without schema is only scanned: re-saving it must fail without an output file.
        const Run r = ckpt({QStringLiteral("resave"), fixture("models/burn-0.18.0_full_binbytes_lab-vision-mnist.bin"), outPath});
        QCOMPARE(r.code, 1);
        QVERIFY(!QFile::exists(outPath));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot).size(), 0);
    }

    void resaveConvertAndDiff()
    {
        QTemporaryDir dir;
        const QString src = fixture("runs/mlplay-0.16.1/checkpoint/model-10.mpk");
        const QString same = dir.filePath(QStringLiteral("same.mpk"));
        QCOMPARE(ckpt({QStringLiteral("resave"), src, same}).code, 0);
        QCOMPARE(fileBytes(same), fileBytes(src));
        const QString json = dir.filePath(QStringLiteral("m.json.gz"));
        QCOMPARE(ckpt({QStringLiteral("convert"), src, json, QStringLiteral("--precision"), QStringLiteral("full")}).code, 0);
        const Run info = ckpt({QStringLiteral("info"), json, QStringLiteral("--json")});
        QCOMPARE(QJsonDocument::fromJson(info.out).object()[QLatin1String("recorder")].toString(), QStringLiteral("JsonGz"));
        // Half -> full is exact, so the diff shows dtype changes with zero difference.
        const Run d = ckpt({QStringLiteral("diff"), src, json, QStringLiteral("--json")});
        QCOMPARE(d.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(d.out).object();
        for (const char* key : {"a", "b", "summary", "entries", "state"})
            QVERIFY2(o.contains(QLatin1String(key)), key);
        const QJsonArray entries = o[QLatin1String("entries")].toArray();
        QCOMPARE(entries.size(), 8);
        for (const auto& e : entries) {
            QCOMPARE(e.toObject()[QLatin1String("status")].toString(), QStringLiteral("dtype_changed"));
            QCOMPARE(e.toObject()[QLatin1String("max_abs")].toDouble(), 0.0);
        }
        // Full -> half rounds: the user is warned on stderr.
        const QString half = dir.filePath(QStringLiteral("h.mpk"));
        QCOMPARE(ckpt({QStringLiteral("convert"), json, half, QStringLiteral("--precision"), QStringLiteral("half")}).code, 0);
        QCOMPARE(fileBytes(half).size() > 0, true);
        const QString lossy = dir.filePath(QStringLiteral("lossy.mpk"));
        const Run l = ckpt({QStringLiteral("convert"), fixture("models/burn-0.16.1_full_connect4.mpk"), lossy, QStringLiteral("--precision"), QStringLiteral("half")});
        QCOMPARE(l.code, 0);
        QVERIFY2(l.err.contains("warning") && l.err.contains("rounded"), l.err.constData());
    }

    void schemaFromAndSchemaFile()
    {
        QTemporaryDir dir;
        const QString bin = fixture("models/burn-0.18.0_full_binbytes_lab-vision-mnist.bin");
        const QString mpk = fixture("models/burn-0.18.0_half_lab-vision-mnist.mpk");
        const QString schema = dir.filePath(QStringLiteral("s.json"));
        QCOMPARE(ckpt({QStringLiteral("schema"), mpk, QStringLiteral("-o"), schema}).code, 0);
        const QString out = dir.filePath(QStringLiteral("out.bin"));
        QCOMPARE(ckpt({QStringLiteral("resave"), bin, out, QStringLiteral("--schema"), schema}).code, 0);
        QCOMPARE(fileBytes(out), fileBytes(bin));
        const Run partial = ckpt({QStringLiteral("info"), bin, QStringLiteral("--json")});
        QCOMPARE(QJsonDocument::fromJson(partial.out).object()[QLatin1String("partial")].toBool(), true);
        const Run full = ckpt({QStringLiteral("info"), bin, QStringLiteral("--json"), QStringLiteral("--schema-from"), mpk});
        QCOMPARE(QJsonDocument::fromJson(full.out).object()[QLatin1String("partial")].toBool(), false);
    }

    void validateAndLoss()
    {
        const Run v = ckpt({QStringLiteral("validate"), fixture("runs/mlplay-0.16.1/checkpoint/optim-10.mpk"), fixture("models/burn-0.14.0_full_sysdesign.mpk")});
        QCOMPARE(v.code, 0);
        const Run loss = ckpt({QStringLiteral("loss"), fixture("runs/mechint-0.20.0-pre.6"), QStringLiteral("--json")});
        QCOMPARE(loss.code, 0);
        const QJsonArray series = QJsonDocument::fromJson(loss.out).object()[QLatin1String("series")].toArray();
        QCOMPARE(series.size(), 4);
        const Run info = ckpt({QStringLiteral("info"), fixture("runs/mlplay-0.16.1"), QStringLiteral("--json")});
        QCOMPARE(QJsonDocument::fromJson(info.out).object()[QLatin1String("kind")].toString(), QStringLiteral("run_directory"));
    }

    void validateRejectsWhatTheDecodersRejectAndLenientShowsIt()
    {
        QTemporaryDir dir;
        // A 4 KiB file of zeros is no record; every genuine fixture is one.
        const QString zeros = dir.filePath(QStringLiteral("zeros.bin"));
        {
            QFile f(zeros);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray(4096, '\0'));
        }
        const Run v = ckpt({QStringLiteral("validate"), zeros});
        QCOMPARE(v.code, 1);
        QVERIFY2(v.err.contains("zeros.bin: offset 0: ") && v.err.contains("metadata strings are empty"), v.err.constData());
        QCOMPARE(ckpt({QStringLiteral("info"), zeros}).code, 1);
        const Run salvage = ckpt({QStringLiteral("info"), zeros, QStringLiteral("--lenient"), QStringLiteral("--json")});
        QCOMPARE(salvage.code, 0);
        const QJsonObject o = QJsonDocument::fromJson(salvage.out).object();
        QVERIFY(o[QLatin1String("partial")].toBool());
        QVERIFY2(o[QLatin1String("damage")].toString().contains(QLatin1String("metadata strings are empty")), salvage.out.constData());
        QVERIFY(ckpt({QStringLiteral("info"), zeros, QStringLiteral("--lenient")}).out.contains("DAMAGED"));
        // A genuine file opened leniently is not marked.
        const Run fine = ckpt({QStringLiteral("info"), fixture("models/burn-0.16.1_full_connect4.mpk"), QStringLiteral("--lenient"), QStringLiteral("--json")});
        QCOMPARE(fine.code, 0);
        QVERIFY(!QJsonDocument::fromJson(fine.out).object().contains(QLatin1String("damage")));
    }

    void trainEditResumeCheck()
    {
        // A record written by the reference trainer: state, edit, check-resume.
        QTemporaryDir dir;
        QProcess train;
        train.start(QStringLiteral(CKPT_BIN_DIR "/ckpt-train"),
            {QStringLiteral("--out"), dir.path(), QStringLiteral("--steps"), QStringLiteral("20"), QStringLiteral("--checkpoint-every"),
                QStringLiteral("10"), QStringLiteral("--layout"), QStringLiteral("training-record")});
        if (!train.waitForStarted(10000))
            QSKIP("ckpt-train is not built");
        QVERIFY(train.waitForFinished(120000));
        QCOMPARE(train.exitCode(), 0);
        const QString rec = dir.filePath(QStringLiteral("checkpoint/record-20.mpk"));
        QVERIFY(QFile::exists(rec));
        const Run state = ckpt({QStringLiteral("state"), rec});
        QCOMPARE(state.code, 0);
        QVERIFY(QJsonDocument::fromJson(state.out).isObject());
        const Run check = ckpt({QStringLiteral("check-resume"), rec, QStringLiteral("--json")});
        QCOMPARE(check.code, 0);
        QCOMPARE(QJsonDocument::fromJson(check.out).object()[QLatin1String("ready")].toBool(), true);
        // Edits: a wrong type is refused (exit 2, no output file), a right one is written.
        const QString edited = dir.filePath(QStringLiteral("edited.mpk"));
        const QString key = QStringLiteral("item[4].progress.stop_step");
        const Run bad = ckpt({QStringLiteral("edit"), rec, QStringLiteral("-o"), edited, QStringLiteral("--set"), key + QStringLiteral("=\"x\"")});
        QCOMPARE(bad.code, 2);
        QVERIFY(!QFile::exists(edited));
        const Run good = ckpt({QStringLiteral("edit"), rec, QStringLiteral("-o"), edited, QStringLiteral("--set"), key + QStringLiteral("=30")});
        QVERIFY2(good.code == 0, good.err.constData());
        const Run diff = ckpt({QStringLiteral("diff"), rec, edited, QStringLiteral("--json")});
        const QJsonArray st = QJsonDocument::fromJson(diff.out).object()[QLatin1String("state")].toArray();
        QCOMPARE(st.size(), 1);
        QCOMPARE(st[0].toObject()[QLatin1String("path")].toString(), key);
        QCOMPARE(st[0].toObject()[QLatin1String("b")].toInt(), 30);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
