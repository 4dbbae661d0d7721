// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Drives the real `ckpt` binary the way scripts do (cli-contract.md): keys, exit codes, messages.
#include "partialmodel.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>

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

QJsonObject jsonObject(const Run& r)
{
    return QJsonDocument::fromJson(r.out).object();
}

/** Runs ckpt-train with a small model into \a out; returns its stdout lines (empty on failure). */
QStringList train(const QString& out, const QStringList& extra)
{
    QProcess p;
    p.start(QStringLiteral(CKPT_BIN_DIR "/ckpt-train"),
        QStringList{QStringLiteral("--out"), out, QStringLiteral("--hidden"), QStringLiteral("8"), QStringLiteral("--dataset-size"),
            QStringLiteral("64"), QStringLiteral("--batch-size"), QStringLiteral("8"), QStringLiteral("--layout"), QStringLiteral("all")}
            + extra);
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return {};
    return QString::fromUtf8(p.readAllStandardOutput()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

/** Depth-first walk over a `ckpt tree --json` / `ckpt show --json` node. */
void walkTree(const QJsonObject& node, int depth, const std::function<void(const QJsonObject&, int)>& visit)
{
    visit(node, depth);
    for (const auto& c : node[QLatin1String("children")].toArray())
        walkTree(c.toObject(), depth + 1, visit);
}

QStringList childKeys(const QJsonObject& node)
{
    QStringList keys;
    for (const auto& c : node[QLatin1String("children")].toArray())
        keys << c.toObject()[QLatin1String("key")].toString();
    return keys;
}

QJsonObject child(const QJsonObject& node, const QString& key)
{
    for (const auto& c : node[QLatin1String("children")].toArray())
        if (c.toObject()[QLatin1String("key")].toString() == key)
            return c.toObject();
    return {};
}

/** The keys of \a keys ordered by where their MessagePack fixstr encodings first occur in \a file. */
QStringList inFileOrder(const QByteArray& file, QStringList keys)
{
    auto at = [&](const QString& k) {
        const QByteArray utf8 = k.toUtf8();
        return file.indexOf(QByteArray(QByteArray(1, char(0xa0 | utf8.size())) + utf8));
    };
    std::stable_sort(keys.begin(), keys.end(), [&](const QString& x, const QString& y) { return at(x) < at(y); });
    return keys;
}

/** A CIDv1 (raw codec, sha2-256) of \a data in base32 lower case with multibase prefix 'b', from RFC 4648. */
QString rawCid(const QByteArray& data)
{
    const QByteArray bytes = QByteArray::fromHex("01551220") + QCryptographicHash::hash(data, QCryptographicHash::Sha256);
    const char* alphabet = "abcdefghijklmnopqrstuvwxyz234567";
    QString out = QStringLiteral("b");
    uint32_t buffer = 0;
    int bits = 0;
    for (const char c : bytes) {
        buffer = (buffer << 8) | uint8_t(c);
        bits += 8;
        while (bits >= 5) {
            out += QLatin1Char(alphabet[(buffer >> (bits - 5)) & 31]);
            bits -= 5;
        }
    }
    if (bits > 0)
        out += QLatin1Char(alphabet[(buffer << (5 - bits)) & 31]);
    return out;
}

/**
 * The crate's topological order, re-implemented from format-ipfrs-gradient-checkpoint.md §
 * topological_order: Kahn over the map keys and the edge list, the start queue sorted, and each
 * expansion's newly freed nodes sorted and appended (a sorted BFS, not a min-heap).
 */
QStringList crateTopologicalOrder(const QJsonObject& graph)
{
    QMap<QString, int> inDegree;
    QMap<QString, QStringList> successors;
    for (const QString& id : graph[QLatin1String("nodes")].toObject().keys())
        inDegree[id] = 0;
    for (const auto& e : graph[QLatin1String("edges")].toArray()) {
        const QString from = e.toArray()[0].toString(), to = e.toArray()[1].toString();
        inDegree[to] += 1;
        successors[from] << to;
    }
    QStringList queue;
    for (auto it = inDegree.cbegin(); it != inDegree.cend(); ++it)
        if (it.value() == 0)
            queue << it.key();
    queue.sort();
    QStringList order;
    while (!queue.isEmpty()) {
        const QString u = queue.takeFirst();
        order << u;
        QStringList freed;
        for (const QString& s : successors.value(u))
            if (inDegree[s] > 0 && --inDegree[s] == 0)
                freed << s;
        freed.sort();
        queue << freed;
    }
    return order;
}

QStringList strings(const QJsonArray& a)
{
    QStringList out;
    for (const auto& v : a)
        out << v.toString();
    return out;
}

/// Burn 0.22's into_record_group: a model file of some parameters beside the whole optimizer (issue 44 item 5).
void partialModuleRecordResumes(const QString& triple, const QString& dir)
{
    const QString checkpoint = dir + QStringLiteral("/checkpoint");
    QVERIFY(QDir().mkpath(checkpoint));
    for (const char* f : {"optim-16.bpk", "scheduler-16.bpk"})
        QVERIFY(QFile::copy(triple + QLatin1Char('/') + QLatin1String(f), checkpoint + QLatin1Char('/') + QLatin1String(f)));
    const QString alone = checkpoint + QStringLiteral("/model-16.bpk");
    const QString lacking = testing::writeModelWithoutLastParameter(triple + QStringLiteral("/model-16.bpk"), alone);
    QVERIFY(!lacking.isEmpty());
    const QByteArray lacks = "lacks " + lacking.toUtf8();
    // a run directory of it: ready, and the parameter a resumption lacks is named
    const Run check = ckpt({QStringLiteral("check-resume"), dir});
    QVERIFY2(check.code == 0 && check.out.contains("partial-module") && check.out.contains(lacks), QByteArray(check.out + check.err).constData());
    const QJsonObject json = jsonObject(ckpt({QStringLiteral("check-resume"), dir, QStringLiteral("--json")}));
    QVERIFY(json[QLatin1String("ready")].toBool());
    bool listed = false;
    for (const auto& c : json[QLatin1String("checks")].toArray())
        listed = listed || c.toObject()[QLatin1String("missing")].toArray().contains(lacking);
    QVERIFY(listed);
    const Run valid = ckpt({QStringLiteral("validate"), dir});
    QVERIFY2(valid.code == 0 && valid.out.contains("partial module record"), QByteArray(valid.out + valid.err).constData());
    // the model file alone says nothing of the whole model; --against the whole one it does
    const Run against = ckpt({QStringLiteral("check-resume"), alone, QStringLiteral("--against"), triple + QStringLiteral("/model-16.bpk")});
    QVERIFY2(against.out.contains(lacks), against.out.constData());
    QVERIFY(!ckpt({QStringLiteral("check-resume"), alone}).out.contains("partial-module"));
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

    // Hostile arguments (issue 29): one line and exit 2, never an abort. A \\u escape in a record path
    // reached an uncaught std::stoi (SIGABRT, exit 134).
    void hostileArgumentsGetOneLine()
    {
        QTemporaryDir dir;
        const QString rec = fixture("models/burn-0.16.1_full_connect4.mpk");
        const QString outPath = dir.filePath(QStringLiteral("out.mpk"));
        const QList<QStringList> cases = {
            {QStringLiteral("show"), rec, QStringLiteral("item[4][\"\\uzzzz\"]")},
            {QStringLiteral("show"), rec, QStringLiteral("item[4][\"\\u12\"]")},
            {QStringLiteral("show"), rec, QStringLiteral("item[\"\\ud800\"]")},
            {QStringLiteral("show"), rec, QStringLiteral("item[\"\\udc00x\"]")},
            {QStringLiteral("edit"), rec, QStringLiteral("-o"), outPath, QStringLiteral("--set"), QStringLiteral("item[4][\"\\uzzzz\"]=1")},
            {QStringLiteral("show"), rec, QStringLiteral("item"), QStringLiteral("--limit"), QStringLiteral("12abc")},
            {QStringLiteral("show"), rec, QStringLiteral("item"), QStringLiteral("--limit"), QStringLiteral("-1")},
            {QStringLiteral("show"), rec, QStringLiteral("item"), QStringLiteral("--limit"), QStringLiteral("99999999999999999999999")},
            {QStringLiteral("tree"), rec, QStringLiteral("--depth"), QStringLiteral("1e9")},
            {QStringLiteral("diff"), rec, rec, QStringLiteral("--tolerance"), QStringLiteral("nan")},
            {QStringLiteral("diff"), rec, rec, QStringLiteral("--tolerance"), QStringLiteral("0.1x")},
        };
        for (const QStringList& args : cases) {
            const Run r = ckpt(args);
            QVERIFY2(r.code == 2, qPrintable(args.join(u' ') + QStringLiteral(" -> exit %1: ").arg(r.code) + QString::fromUtf8(r.err)));
            QVERIFY2(r.err.startsWith("ckpt: ") && r.err.count('\n') == 1, r.err.constData());
        }
        QVERIFY(!QFile::exists(outPath));
        // a \\u escape that is well formed names the key it spells, in UTF-8 (the MLP has no such key)
        const Run ok = ckpt({QStringLiteral("show"), rec, QStringLiteral("item[\"\\u00e9\\ud83d\\ude00\"]")});
        QCOMPARE(ok.code, 2);
        QVERIFY2(ok.err.contains("no such path") && ok.err.contains("\xc3\xa9\xf0\x9f\x98\x80"), ok.err.constData());
    }

    // FILE may be a run directory (cli-contract.md): the same record ckpt.open picks; a text file
    // that is no checkpoint says so first instead of advice about bincode schemas.
    void runDirectoriesAndTextFiles()
    {
        QTemporaryDir dir;
        QVERIFY(!train(dir.path(), {QStringLiteral("--steps"), QStringLiteral("20"), QStringLiteral("--checkpoint-every"), QStringLiteral("10")}).isEmpty());
        const QString newest = dir.filePath(QStringLiteral("checkpoint/record-20.mpk"));
        QVERIFY(QFile::exists(newest));
        for (const char* command : {"tensors", "tree", "state", "validate"}) {
            const Run viaDir = ckpt({QString::fromLatin1(command), dir.path(), QStringLiteral("--json")});
            const Run viaFile = ckpt({QString::fromLatin1(command), newest, QStringLiteral("--json")});
            QVERIFY2(viaDir.code == 0, qPrintable(QString::fromLatin1(command) + QStringLiteral(": ") + QString::fromUtf8(viaDir.err)));
            QCOMPARE(viaDir.code, viaFile.code);
            if (QByteArray(command) == "tensors") // the others name the path they were given
                QCOMPARE(viaDir.out, viaFile.out);
        }
        const Run plain = ckpt({QStringLiteral("tensors"), dir.filePath(QStringLiteral("checkpoint"))});
        QCOMPARE(plain.code, 1);
        QVERIFY2(plain.err.contains("is not a run directory"), plain.err.constData());

        const QString text = dir.filePath(QStringLiteral("passwd"));
        QFile f(text);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n");
        f.close();
        for (const char* command : {"info", "tensors", "validate"}) {
            const Run r = ckpt({QString::fromLatin1(command), text});
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.startsWith(QByteArray("ckpt: " + text.toUtf8() + ": offset 0: not a checkpoint")), r.err.constData());
            QVERIFY2(!r.err.contains("schema"), r.err.constData());
        }
    }

    // `ckpt timeline` and `ckpt bisect` (cli-contract.md, "Runs"): the documents' keys, exit codes, one-line errors.
    void timelineAndBisectContract()
    {
        QTemporaryDir dir, cache;
        QVERIFY(!train(dir.path(), {QStringLiteral("--steps"), QStringLiteral("80"), QStringLiteral("--checkpoint-every"), QStringLiteral("10")}).isEmpty());
        qputenv("XDG_CACHE_HOME", cache.path().toUtf8()); // inherited by ckpt: the user's cache stays untouched
        const Run first = ckpt({QStringLiteral("timeline"), dir.path(), QStringLiteral("--json")});
        QVERIFY2(first.code == 0, first.err.constData());
        const QJsonObject t = jsonObject(first);
        for (const char* key : {"run", "checkpoints", "series", "events", "cache"})
            QVERIFY2(t.contains(QLatin1String(key)), key);
        const QJsonArray cps = t[QLatin1String("checkpoints")].toArray();
        QCOMPARE(cps.size(), 8);
        const QJsonObject c0 = cps[0].toObject();
        for (const char* key : {"index", "file", "step", "epoch", "bytes", "valid", "error"})
            QVERIFY2(c0.contains(QLatin1String(key)), key);
        QCOMPARE(c0[QLatin1String("file")].toString(), QStringLiteral("checkpoint/record-10.mpk"));
        QCOMPARE(c0[QLatin1String("step")].toInt(), 10);
        QVERIFY(c0[QLatin1String("epoch")].isNull());
        const QJsonObject s0 = t[QLatin1String("series")].toArray()[0].toObject();
        for (const char* key : {"path", "role", "param_id", "dtype", "points"})
            QVERIFY2(s0.contains(QLatin1String(key)), key);
        const QJsonObject p1 = s0[QLatin1String("points")].toArray()[1].toObject();
        for (const char* key : {"checkpoint", "l2", "max_abs", "mean", "std", "nan", "inf", "zeros", "update_l2", "update_ratio"})
            QVERIFY2(p1.contains(QLatin1String(key)), key);
        QVERIFY(s0[QLatin1String("points")].toArray()[0].toObject()[QLatin1String("update_l2")].isNull());
        QCOMPARE(t[QLatin1String("cache")].toObject()[QLatin1String("read")].toInt(), 8);
        const QJsonObject again = jsonObject(ckpt({QStringLiteral("timeline"), dir.path(), QStringLiteral("--json")}));
        QCOMPARE(again[QLatin1String("cache")].toObject()[QLatin1String("read")].toInt(), 0);
        QCOMPARE(again[QLatin1String("cache")].toObject()[QLatin1String("reused")].toInt(), 8);
        const QJsonObject uncached = jsonObject(ckpt({QStringLiteral("timeline"), dir.path(), QStringLiteral("--json"), QStringLiteral("--no-cache")}));
        QCOMPARE(uncached[QLatin1String("cache")].toObject()[QLatin1String("read")].toInt(), 8);
        QCOMPARE(uncached[QLatin1String("series")], t[QLatin1String("series")]);
        // a threshold of a tenth of a robust sd flags a healthy run's ordinary wiggles: the option reaches the events
        const QJsonObject jumpy = jsonObject(ckpt({QStringLiteral("timeline"), dir.path(), QStringLiteral("--json"), QStringLiteral("--spike-threshold"),
            QStringLiteral("0.1")}));
        QVERIFY(!jumpy[QLatin1String("events")].toArray().isEmpty());
        QCOMPARE(jumpy[QLatin1String("cache")].toObject()[QLatin1String("read")].toInt(), 0); // events come from the cached scans
        const Run text = ckpt({QStringLiteral("timeline"), dir.path(), QStringLiteral("--filter"), QStringLiteral("item[0].*")});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains("checkpoint/record-80.mpk") && text.out.contains("no events"), text.out.constData());

        const Run b = ckpt({QStringLiteral("bisect"), dir.path(), QStringLiteral("--until"), QStringLiteral("nan"), QStringLiteral("--json")});
        QVERIFY2(b.code == 0, b.err.constData()); // exit 0 whether or not a bad checkpoint was found
        const QJsonObject bj = jsonObject(b);
        for (const char* key : {"run", "until", "first_bad", "last_good", "opened"})
            QVERIFY2(bj.contains(QLatin1String(key)), key);
        QVERIFY(bj[QLatin1String("first_bad")].isNull());
        QCOMPARE(bj[QLatin1String("last_good")].toObject()[QLatin1String("index")].toInt(), 7);
        QVERIFY(bj[QLatin1String("opened")].toArray().size() <= 4); // ceil(log2(8 + 1))
        const Run hit = ckpt({QStringLiteral("bisect"), dir.path(), QStringLiteral("--until=max_abs>0"), QStringLiteral("--scan")});
        QCOMPARE(hit.code, 0);
        QVERIFY2(hit.out.startsWith("first bad: checkpoint/record-10.mpk (step 10)"), hit.out.constData());

        const QList<QStringList> usage = {
            {QStringLiteral("timeline")},
            {QStringLiteral("timeline"), dir.path(), dir.path()},
            {QStringLiteral("timeline"), dir.path(), QStringLiteral("--cache")},
            {QStringLiteral("timeline"), dir.path(), QStringLiteral("--spike-threshold"), QStringLiteral("0")},
            {QStringLiteral("timeline"), dir.path(), QStringLiteral("--spike-threshold"), QStringLiteral("nan")},
            // --node-ckpt (the ckpt the Slurm nodes run): its value missing, swallowing the next option, empty, or without --slurm.
            {QStringLiteral("timeline"), dir.path(), QStringLiteral("--slurm"), QStringLiteral("--node-ckpt")},
            {QStringLiteral("timeline"), dir.path(), QStringLiteral("--slurm"), QStringLiteral("--node-ckpt"), QStringLiteral("--json")},
            {QStringLiteral("timeline"), dir.path(), QStringLiteral("--slurm"), QStringLiteral("--node-ckpt=")},
            {QStringLiteral("timeline"), dir.path(), QStringLiteral("--node-ckpt"), QStringLiteral("/opt/ckpt/bin/ckpt")},
            {QStringLiteral("bisect"), dir.path()},
            {QStringLiteral("bisect"), dir.path(), QStringLiteral("--until"), QStringLiteral("max_abs>1x")},
            {QStringLiteral("bisect"), dir.path(), QStringLiteral("--until"), QStringLiteral("loss>1")},
        };
        for (const QStringList& args : usage) {
            const Run r = ckpt(args);
            QVERIFY2(r.code == 2, qPrintable(args.join(u' ') + QStringLiteral(" -> exit %1").arg(r.code)));
            QVERIFY2(r.err.startsWith("ckpt: ") && r.err.count('\n') == 1, r.err.constData());
        }
        for (const QString& notARun : {dir.filePath(QStringLiteral("missing")), dir.filePath(QStringLiteral("train"))}) {
            const Run r = ckpt({QStringLiteral("timeline"), notARun});
            QCOMPARE(r.code, 1);
            QVERIFY2(r.err.startsWith("ckpt: ") && r.err.count('\n') == 1, r.err.constData());
        }
        qunsetenv("XDG_CACHE_HOME");
    }

    void burnpackContract()
    {
        // cli-contract.md "burnpack": the genuine file, then a migrated run directory
        const QString bpk = fixture("models/burn-0.22.0-pre_mnist-inference-web.bpk");
        const Run info = ckpt({QStringLiteral("info"), bpk, QStringLiteral("--json")});
        QVERIFY2(info.code == 0, info.err.constData());
        const QJsonObject i = jsonObject(info);
        QCOMPARE(i[QLatin1String("recorder")].toString(), QStringLiteral("Burnpack"));
        QCOMPARE(i[QLatin1String("kind")].toString(), QStringLiteral("module_record"));
        QCOMPARE(i[QLatin1String("precision")].toString(), QStringLiteral("full"));
        const QJsonObject b = i[QLatin1String("burnpack")].toObject();
        for (const char* key : {"layout", "metadata", "scalars", "warnings"})
            QVERIFY2(b.contains(QLatin1String(key)), key);
        QCOMPARE(b[QLatin1String("layout")].toString(), QStringLiteral("aligned-256"));
        const QJsonArray tensors = QJsonDocument::fromJson(ckpt({QStringLiteral("tensors"), bpk, QStringLiteral("--json")}).out).array();
        QCOMPARE(tensors.size(), 18);
        const QJsonObject t0 = tensors[0].toObject();
        QCOMPARE(t0[QLatin1String("path")].toString(), QStringLiteral("conv1.conv.weight"));
        QCOMPARE(t0[QLatin1String("param_id")].toString().size(), 13);
        QCOMPARE(t0[QLatin1String("offset")].toInt(), 1536); // absolute: the data section starts after 256-byte alignment
        QTemporaryDir dir;
        const QString copy = dir.filePath(QStringLiteral("copy.bpk"));
        QCOMPARE(ckpt({QStringLiteral("resave"), bpk, copy}).code, 0);
        QCOMPARE(fileBytes(copy), fileBytes(bpk));
        // a file Burn's reader rejects is exit 1 with the offset
        QFile bad(dir.filePath(QStringLiteral("bad.bpk")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write(fileBytes(bpk).left(9));
        bad.close();
        const Run rejected = ckpt({QStringLiteral("info"), bad.fileName()});
        QCOMPARE(rejected.code, 1);
        QVERIFY2(rejected.err.contains("bad.bpk") && rejected.err.contains("offset"), rejected.err.constData());

        // migrate: the triple of the record's step, one stderr line per thing not carried over
        const QString run = dir.filePath(QStringLiteral("run"));
        QVERIFY(!train(run, {QStringLiteral("--steps"), QStringLiteral("16"), QStringLiteral("--checkpoint-every"), QStringLiteral("8")}).isEmpty());
        const QString out = dir.filePath(QStringLiteral("run22/checkpoint"));
        const Run migrated = ckpt({QStringLiteral("migrate"), run + QStringLiteral("/checkpoint/record-16.mpk"), out});
        QVERIFY2(migrated.code == 0, migrated.err.constData());
        for (const char* f : {"model-16.bpk", "optim-16.bpk", "scheduler-16.bpk"})
            QVERIFY2(QFile::exists(out + QLatin1Char('/') + QLatin1String(f)), f);
        QVERIFY2(migrated.err.contains("not carried over") && migrated.err.contains("continuation state"), migrated.err.constData());
        QCOMPARE(ckpt({QStringLiteral("migrate"), run + QStringLiteral("/checkpoint/record-16.mpk"), out, QStringLiteral("--epoch"),
                     QStringLiteral("x")}).code, 2);
        // the run directory lists them as model/optim/scheduler checkpoints of epoch 16 ...
        const QJsonObject runInfo = jsonObject(ckpt({QStringLiteral("info"), dir.filePath(QStringLiteral("run22")), QStringLiteral("--json")}));
        const QJsonArray cps = runInfo[QLatin1String("checkpoints")].toArray();
        QCOMPARE(cps.size(), 3);
        for (const auto& c : cps)
            QCOMPARE(c.toObject()[QLatin1String("index")].toInt(), 16);
        // ... and reads the epoch as one record whose values are the record's
        const Run diff = ckpt({QStringLiteral("diff"), run + QStringLiteral("/checkpoint/record-16.mpk"), dir.filePath(QStringLiteral("run22")),
            QStringLiteral("--json")});
        QVERIFY2(diff.code == 0, diff.err.constData());
        const QJsonObject d = jsonObject(diff);
        QCOMPARE(d[QLatin1String("summary")].toObject()[QLatin1String("changed")].toInt(), 0);
        QCOMPARE(d[QLatin1String("summary")].toObject()[QLatin1String("added")].toInt(), 0);
        // a constant scheduler (ckpt-train's default) writes an empty scheduler file: still a scheduler record
        const Run ready = ckpt({QStringLiteral("check-resume"), dir.filePath(QStringLiteral("run22"))});
        QVERIFY2(ready.out.contains("ready to resume") && !ready.out.contains("NOT ready"), ready.out.constData());
        partialModuleRecordResumes(out, dir.filePath(QStringLiteral("partial")));
        // and back: an optimizer file as a 0.21 record
        const QString back = dir.filePath(QStringLiteral("optim-16.mpk"));
        QCOMPARE(ckpt({QStringLiteral("convert"), out + QStringLiteral("/optim-16.bpk"), back}).code, 0);
        QCOMPARE(jsonObject(ckpt({QStringLiteral("info"), back, QStringLiteral("--json")}))[QLatin1String("kind")].toString(),
            QStringLiteral("optimizer_record"));
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
        QVERIFY2(train.waitForStarted(10000), "ckpt-train did not start (it is built with tst_cli)");
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

    /** A PrettyJson caller state with a u128 / i128 beyond 64 bits: `state --json` digits, `resave`, `edit`, `diff`. */
    void wideIntegersStayExact()
    {
        QTemporaryDir dir;
        QVERIFY(!train(dir.path(),
            {QStringLiteral("--steps"), QStringLiteral("2"), QStringLiteral("--checkpoint-every"), QStringLiteral("2"), QStringLiteral("--recorder"),
                QStringLiteral("PrettyJson")})
                .isEmpty());
        QFile src(dir.filePath(QStringLiteral("checkpoint/record-2.json")));
        QVERIFY(src.open(QIODevice::ReadOnly));
        QList<QByteArray> lines = src.readAll().split('\n');
        const qsizetype at = std::find_if(lines.cbegin(), lines.cend(), [](const QByteArray& l) { return l.contains("\"stop_step\""); }) - lines.cbegin();
        QVERIFY(at < lines.size());
        const QByteArray indent = lines[at].left(lines[at].indexOf('"'));
        const QByteArray u128Max = "340282366920938463463374607431768211455", i128Min = "-170141183460469231731687303715884105728";
        lines.insert(at, indent + "\"offset\": " + i128Min + ",");
        lines.insert(at, indent + "\"rng\": " + u128Max + ",");
        const QString rec = dir.filePath(QStringLiteral("wide.json"));
        QFile out(rec);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(lines.join('\n'));
        out.close();

        const Run state = ckpt({QStringLiteral("state"), rec, QStringLiteral("--json")});
        QVERIFY2(state.code == 0, state.err.constData());
        QVERIFY2(state.out.contains(QByteArray("\"rng\": " + u128Max + ",")), state.out.constData());
        QVERIFY(state.out.contains(QByteArray("\"offset\": " + i128Min + ",")));
        const Run tree = ckpt({QStringLiteral("show"), rec, QStringLiteral("item[4].progress.rng"), QStringLiteral("--json")});
        QVERIFY2(tree.out.contains(u128Max), tree.out.constData());
        const QString copy = dir.filePath(QStringLiteral("copy.json"));
        QCOMPARE(ckpt({QStringLiteral("resave"), rec, copy}).code, 0);
        QCOMPARE(fileBytes(copy), fileBytes(rec));

        const QString edited = dir.filePath(QStringLiteral("edited.json"));
        const Run good = ckpt({QStringLiteral("edit"), rec, QStringLiteral("-o"), edited, QStringLiteral("--set"),
            QStringLiteral("item[4].progress.rng=340282366920938463463374607431768211454")});
        QVERIFY2(good.code == 0, good.err.constData());
        QVERIFY(fileBytes(edited).contains("\"rng\": 340282366920938463463374607431768211454,"));
        const Run diff = ckpt({QStringLiteral("diff"), rec, edited, QStringLiteral("--json")});
        QVERIFY2(diff.out.contains(u128Max) && diff.out.contains("340282366920938463463374607431768211454"), diff.out.constData());
        const Run beyond = ckpt({QStringLiteral("edit"), rec, QStringLiteral("-o"), dir.filePath(QStringLiteral("x.json")), QStringLiteral("--set"),
            QStringLiteral("item[4].progress.stop_step=18446744073709551616")});
        QCOMPARE(beyond.code, 2);
        QVERIFY2(beyond.err.contains("out of the u64 range"), beyond.err.constData());
    }

    /** `ckpt optimizer`: the contract's document on a ckpt-train record, its exit codes and usage errors. */
    void optimizerForensicsContract()
    {
        QTemporaryDir dir;
        // 2 micro-batches per optimizer step and an odd step count: the record carries pending gradients.
        QVERIFY(!train(dir.path(), {QStringLiteral("--steps"), QStringLiteral("5"), QStringLiteral("--checkpoint-every"), QStringLiteral("5"),
                                    QStringLiteral("--grad-accum"), QStringLiteral("2")})
                     .isEmpty());
        const QString rec = dir.filePath(QStringLiteral("checkpoint/record-5.mpk"));
        const Run r = ckpt({QStringLiteral("optimizer"), rec, QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject doc = jsonObject(r);
        QCOMPARE(doc[QLatin1String("file")].toString(), rec);
        QCOMPARE(doc[QLatin1String("optimizer")].toString(), QStringLiteral("adam"));
        QVERIFY(doc[QLatin1String("suspects")].isArray());
        const QJsonArray params = doc[QLatin1String("parameters")].toArray();
        QCOMPARE(params.size(), 6);
        for (const auto& v : params) {
            const QJsonObject p = v.toObject();
            QVERIFY(p[QLatin1String("param_id")].isString() && p[QLatin1String("path")].isString());
            QCOMPARE(p[QLatin1String("time")].toInt(), 2);
            for (const char* k : {"m_l2", "v_l2", "v_floor_fraction", "dead_fraction", "g2_over_v"})
                QVERIFY2(p[QLatin1String(k)].isDouble(), k);
            QVERIFY(p[QLatin1String("nonfinite")].isDouble());
            const QJsonObject step = p[QLatin1String("effective_step")].toObject();
            for (const char* k : {"mean", "max", "saturated"})
                QVERIFY2(step[QLatin1String(k)].isDouble(), k);
            QVERIFY(p[QLatin1String("flags")].isArray());
        }
        // The text form: a header line and a table row per parameter.
        const Run text = ckpt({QStringLiteral("optimizer"), rec, QStringLiteral("--betas"), QStringLiteral("0.8,0.99"), QStringLiteral("--epsilon"),
            QStringLiteral("1e-8")});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.contains("betas 0.8,0.99, epsilon 1e-08"));
        QCOMPARE(text.out.count('\n'), 2 + 6);
        // Usage errors: exit 2 with one line; a record without optimizer state: exit 1.
        for (const QString& bad : {QStringLiteral("0.9"), QStringLiteral("0.9,x"), QStringLiteral("1.5,0.999")}) {
            const Run u = ckpt({QStringLiteral("optimizer"), rec, QStringLiteral("--betas"), bad});
            QVERIFY2(u.code == 2, qPrintable(bad));
            QCOMPARE(u.err.count('\n'), 1);
        }
        QCOMPARE(ckpt({QStringLiteral("optimizer"), rec, QStringLiteral("--epsilon"), QStringLiteral("0")}).code, 2);
        QCOMPARE(ckpt({QStringLiteral("optimizer")}).code, 2);
        const Run model = ckpt({QStringLiteral("optimizer"), fixture("models/burn-0.16.1_full_connect4.mpk")});
        QCOMPARE(model.code, 1);
        QVERIFY(model.err.contains("no optimizer state"));
    }

    /** `ckpt tree`: the record as an order-preserving tree, tensors found where `ckpt tensors` lists them. */
    void treeIsTheRecordInFileOrder()
    {
        const QString file = fixture("models/burn-0.16.1_full_connect4.mpk");
        const QByteArray bytes = fileBytes(file);
        const Run r = ckpt({QStringLiteral("tree"), file, QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject root = jsonObject(r);
        QCOMPARE(root[QLatin1String("kind")].toString(), QStringLiteral("map"));
        QCOMPARE(root[QLatin1String("count")].toInt(), 3);
        // The order of the file's own bytes, found without our reader.
        const QStringList top = childKeys(root);
        QCOMPARE(top, inFileOrder(bytes, {QStringLiteral("_b"), QStringLiteral("item"), QStringLiteral("metadata")}));
        const QJsonObject metadata = child(root, QStringLiteral("metadata"));
        QCOMPARE(childKeys(metadata), inFileOrder(bytes, {QStringLiteral("version"), QStringLiteral("settings"), QStringLiteral("int"),
                                                          QStringLiteral("format"), QStringLiteral("float")}));
        QCOMPARE(child(metadata, QStringLiteral("version"))[QLatin1String("value")].toString(), QStringLiteral("0.16.1"));
        const QJsonObject item = child(root, QStringLiteral("item"));
        QCOMPARE(childKeys(item), inFileOrder(bytes, {QStringLiteral("activation"), QStringLiteral("layer_2"), QStringLiteral("layer_1"),
                                                      QStringLiteral("layer_0")}));

        // The tensor leaves, depth first, are `ckpt tensors` in file order, with the same facts.
        QJsonArray leaves;
        walkTree(root, 0, [&](const QJsonObject& n, int) {
            if (n[QLatin1String("kind")].toString() == QLatin1String("tensor"))
                leaves << n;
        });
        const QJsonArray tensors = QJsonDocument::fromJson(ckpt({QStringLiteral("tensors"), file, QStringLiteral("--json")}).out).array();
        QCOMPARE(leaves.size(), 6);
        QCOMPARE(leaves.size(), tensors.size());
        for (qsizetype i = 0; i < leaves.size(); ++i) {
            const QJsonObject a = leaves[i].toObject(), b = tensors[i].toObject();
            for (const char* key : {"path", "role", "param_id", "dtype", "shape", "bytes"})
                QVERIFY2(a[QLatin1String(key)] == b[QLatin1String(key)], qPrintable(a[QLatin1String("path")].toString() + QLatin1Char(' ') + QLatin1String(key)));
        }

        // --depth N: nodes at depth N keep their count, nothing below them is printed.
        const QJsonObject shallow = jsonObject(ckpt({QStringLiteral("tree"), file, QStringLiteral("--json"), QStringLiteral("--depth"), QStringLiteral("2")}));
        int deepest = 0;
        walkTree(shallow, 0, [&](const QJsonObject& n, int depth) {
            deepest = std::max(deepest, depth);
            if (depth == 2 && n[QLatin1String("kind")].toString() == QLatin1String("map"))
                QVERIFY(n.contains(QLatin1String("count")) && !n.contains(QLatin1String("children")));
        });
        QCOMPARE(deepest, 2);
        QCOMPARE(child(child(shallow, QStringLiteral("item")), QStringLiteral("layer_0"))[QLatin1String("count")].toInt(), 2);

        // For people: one line per node, indented by depth.
        const Run text = ckpt({QStringLiteral("tree"), file, QStringLiteral("--depth"), QStringLiteral("1")});
        QCOMPARE(text.code, 0);
        const QList<QByteArray> lines = text.out.trimmed().split('\n');
        QCOMPARE(lines.value(0), QByteArray("<record> {3}"));
        QVERIFY(lines.contains("  item {4}"));
        QVERIFY(!text.out.contains("layer_0"));
        QCOMPARE(ckpt({QStringLiteral("tree"), file, QStringLiteral("--depth"), QStringLiteral("x")}).code, 2);
    }

    /** `ckpt tree` of a TrainingRecord: module, optimizer entries, scheduler, pending gradients, caller state. */
    void treeOfTrainingRecord()
    {
        QTemporaryDir dir;
        // Step 5 with 2 micro-batches per optimizer step: one micro-batch of gradients is pending.
        QVERIFY(!train(dir.path(), {QStringLiteral("--steps"), QStringLiteral("5"), QStringLiteral("--grad-accum"), QStringLiteral("2")}).isEmpty());
        const Run r = ckpt({QStringLiteral("tree"), dir.filePath(QStringLiteral("checkpoint/record-5.mpk")), QStringLiteral("--json")});
        QCOMPARE(r.code, 0);
        const QJsonObject item = child(jsonObject(r), QStringLiteral("item"));
        QCOMPARE(item[QLatin1String("kind")].toString(), QStringLiteral("array"));
        QCOMPARE(childKeys(item), (QStringList{QStringLiteral("[0]"), QStringLiteral("[1]"), QStringLiteral("[2]"), QStringLiteral("[3]"), QStringLiteral("[4]")}));
        auto roles = [](const QJsonObject& n) {
            QMap<QString, int> count;
            walkTree(n, 0, [&](const QJsonObject& x, int) {
                if (x[QLatin1String("kind")].toString() == QLatin1String("tensor"))
                    ++count[x[QLatin1String("role")].toString()];
            });
            return count;
        };
        const QJsonObject module = child(item, QStringLiteral("[0]")), optim = child(item, QStringLiteral("[1]")),
                          grads = child(item, QStringLiteral("[3]")), state = child(item, QStringLiteral("[4]"));
        QCOMPARE(roles(module), (QMap<QString, int>{{QStringLiteral("param"), 6}}));
        QCOMPARE(roles(optim), (QMap<QString, int>{{QStringLiteral("optimizer"), 12}})); // Adam: two moments per parameter
        QCOMPARE(optim[QLatin1String("count")].toInt(), 6);
        QCOMPARE(roles(grads), (QMap<QString, int>{{QStringLiteral("gradient"), 6}}));
        // The default scheduler is the constant one, whose record is the unit () - MessagePack nil.
        QCOMPARE(child(item, QStringLiteral("[2]"))[QLatin1String("kind")].toString(), QStringLiteral("nil"));
        QCOMPARE(childKeys(state), (QStringList{QStringLiteral("config"), QStringLiteral("progress")}));
        QCOMPARE(child(child(state, QStringLiteral("progress")), QStringLiteral("step"))[QLatin1String("value")].toInt(), 5);
        QCOMPARE(child(child(state, QStringLiteral("progress")), QStringLiteral("pending_micro_batches"))[QLatin1String("value")].toInt(), 1);
    }

    /** `ckpt show`: a tensor's shape, statistics and first N values, checked against the raw bytes. */
    void showTensorAndNode()
    {
        const QString file = fixture("models/burn-0.16.1_full_connect4.mpk");
        const QString path = QStringLiteral("item.layer_2.bias.param");
        const Run r = ckpt({QStringLiteral("show"), file, path, QStringLiteral("--json"), QStringLiteral("--limit"), QStringLiteral("3")});
        QCOMPARE(r.code, 0);
        const QJsonObject o = jsonObject(r);
        QCOMPARE(o[QLatin1String("path")].toString(), path);
        QCOMPARE(o[QLatin1String("dtype")].toString(), QStringLiteral("F32"));
        QCOMPARE(o[QLatin1String("shape")].toArray(), QJsonArray({7}));
        QCOMPARE(o[QLatin1String("numel")].toInt(), 7);
        // The payload read straight from the file at the reported offset (little-endian f32).
        const QByteArray bytes = fileBytes(file);
        const qint64 offset = o[QLatin1String("offset")].toInteger();
        QVERIFY(offset > 0 && offset + 28 <= bytes.size());
        QCOMPARE(bytes.mid(offset - 2, 2), QByteArray::fromHex("c41c")); // the bin8 header of 28 bytes
        std::vector<double> raw(7);
        for (int i = 0; i < 7; ++i) {
            float f;
            std::memcpy(&f, bytes.constData() + offset + 4 * i, 4);
            raw[size_t(i)] = f;
        }
        const QJsonArray values = o[QLatin1String("values")].toArray();
        QCOMPARE(values.size(), 3);
        for (int i = 0; i < 3; ++i)
            QCOMPARE(values[i].toDouble(), raw[size_t(i)]);
        double sum = 0, sq = 0;
        for (double v : raw) {
            sum += v;
            sq += v * v;
        }
        const QJsonObject st = o[QLatin1String("stats")].toObject();
        QCOMPARE(st[QLatin1String("min")].toDouble(), *std::min_element(raw.begin(), raw.end()));
        QCOMPARE(st[QLatin1String("max")].toDouble(), *std::max_element(raw.begin(), raw.end()));
        QVERIFY(qAbs(st[QLatin1String("sum")].toDouble() - sum) < 1e-12);
        QVERIFY(qAbs(st[QLatin1String("mean")].toDouble() - sum / 7) < 1e-12);
        QVERIFY(qAbs(st[QLatin1String("l2")].toDouble() - std::sqrt(sq)) < 1e-12);
        QVERIFY(qAbs(st[QLatin1String("std")].toDouble() - std::sqrt(sq / 7 - (sum / 7) * (sum / 7))) < 1e-9);
        QCOMPARE(st[QLatin1String("zeros")].toInt(), 0);

        const Run text = ckpt({QStringLiteral("show"), file, path, QStringLiteral("--limit"), QStringLiteral("2")});
        QCOMPARE(text.code, 0);
        QVERIFY2(text.out.contains("F32 [7], 7 elements"), text.out.constData());
        QVERIFY(text.out.contains(QByteArray("values: " + QByteArray::number(raw[0], 'g', 7))));

        // A node that is not a tensor: its value, or its subtree.
        const QJsonObject version = jsonObject(ckpt({QStringLiteral("show"), file, QStringLiteral("metadata.version"), QStringLiteral("--json")}));
        QCOMPARE(version[QLatin1String("value")].toString(), QStringLiteral("0.16.1"));
        const QJsonObject layer = jsonObject(ckpt({QStringLiteral("show"), file, QStringLiteral("item.layer_2"), QStringLiteral("--json")}));
        QCOMPARE(childKeys(layer), (QStringList{QStringLiteral("weight"), QStringLiteral("bias")}));

        // A path that does not exist is the caller's mistake: exit 2, one line naming the path.
        const Run missing = ckpt({QStringLiteral("show"), file, QStringLiteral("item.nope")});
        QCOMPARE(missing.code, 2);
        QVERIFY2(missing.err.startsWith(QByteArray("ckpt: " + file.toUtf8() + ": ")) && missing.err.contains("'item.nope'"), missing.err.constData());
        QCOMPARE(missing.err.count('\n'), 1);
        QCOMPARE(ckpt({QStringLiteral("show"), file, QStringLiteral("item[[")}).code, 2);
    }

    /** `ckpt graph`: counts, the crate's topological order, cycles, provenance; `--dot` has every edge. */
    void graphJsonAndDot()
    {
        QTemporaryDir dir;
        // Two roots whose children come out in expansion order (a, b, d, c: a min-heap Kahn would give
        // a, b, c, d), plus a two-node cycle the crate's order silently omits.
        const QByteArray handmade = R"({"graph":{"nodes":{
 "b":{"id":"b","op":"input","input_cids":[],"output_cid":"cid-b","gradient_cid":null,"metadata":{}},
 "a":{"id":"a","op":"input","input_cids":[],"output_cid":"cid-a","gradient_cid":null,"metadata":{}},
 "d":{"id":"d","op":"relu","input_cids":["cid-a"],"output_cid":"cid-d","gradient_cid":null,"metadata":{}},
 "c":{"id":"c","op":"relu","input_cids":["cid-b"],"output_cid":"cid-c","gradient_cid":null,"metadata":{}},
 "x":{"id":"x","op":"add","input_cids":["cid-y"],"output_cid":"cid-x","gradient_cid":null,"metadata":{}},
 "y":{"id":"y","op":"add","input_cids":["cid-x"],"output_cid":"cid-y","gradient_cid":null,"metadata":{}}},
 "edges":[["a","d"],["b","c"],["x","y"],["y","x"]]},
 "step":7,"loss_cid":null,"optimizer_state":{},"timestamp":5})";
        const QString cyclic = dir.filePath(QStringLiteral("cyclic.json"));
        QFile f(cyclic);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(handmade);
        f.close();
        QTemporaryDir run;
        const QStringList lines = train(run.path(), {QStringLiteral("--steps"), QStringLiteral("4")});
        QVERIFY(!lines.isEmpty());
        const QString trained = run.filePath(QStringLiteral("graph/step-4.json"));

        for (const QString& file : {QStringLiteral(CKPT_TEST_DATA "/graph/worked_example.json"), cyclic, trained}) {
            const QJsonObject doc = QJsonDocument::fromJson(fileBytes(file)).object();
            const QJsonObject graph = doc[QLatin1String("graph")].toObject();
            const Run r = ckpt({QStringLiteral("graph"), file, QStringLiteral("--json")});
            QVERIFY2(r.code == 0, r.err.constData());
            const QJsonObject o = jsonObject(r);
            for (const char* key : {"node_count", "edge_count", "topological_order", "cycle", "loss_cid", "loss_provenance_chain", "step",
                     "timestamp", "optimizer_state"})
                QVERIFY2(o.contains(QLatin1String(key)), key);
            QCOMPARE(o[QLatin1String("node_count")].toInt(), graph[QLatin1String("nodes")].toObject().size());
            QCOMPARE(o[QLatin1String("edge_count")].toInt(), graph[QLatin1String("edges")].toArray().size());
            QCOMPARE(strings(o[QLatin1String("topological_order")].toArray()), crateTopologicalOrder(graph));
            QCOMPARE(o[QLatin1String("step")].toInteger(), doc[QLatin1String("step")].toInteger());
            QCOMPARE(o[QLatin1String("timestamp")].toInteger(), doc[QLatin1String("timestamp")].toInteger());
            QCOMPARE(o[QLatin1String("loss_cid")], doc[QLatin1String("loss_cid")]);
            const QJsonObject optimizerState = doc[QLatin1String("optimizer_state")].toObject();
            const QJsonArray reported = o[QLatin1String("optimizer_state")].toArray();
            QCOMPARE(reported.size(), optimizerState.size());
            for (const auto& e : reported) {
                const QString key = e.toObject()[QLatin1String("key")].toString();
                QCOMPARE(e.toObject()[QLatin1String("len")].toInt(), optimizerState[key].toArray().size());
            }
            // One DOT edge line per edge of the file.
            const Run dot = ckpt({QStringLiteral("graph"), file, QStringLiteral("--dot")});
            QCOMPARE(dot.code, 0);
            QVERIFY(dot.out.startsWith("digraph "));
            QVERIFY(dot.out.trimmed().endsWith('}'));
            for (const auto& e : graph[QLatin1String("edges")].toArray()) {
                const QByteArray edge = "\"" + e.toArray()[0].toString().toUtf8() + "\" -> \"" + e.toArray()[1].toString().toUtf8() + "\"";
                QVERIFY2(dot.out.contains(QByteArray(edge + ';')) || dot.out.contains(QByteArray(edge + " [")), edge.constData());
            }
            QCOMPARE(qsizetype(dot.out.count(" -> ")), graph[QLatin1String("edges")].toArray().size());
        }

        const QJsonObject c = jsonObject(ckpt({QStringLiteral("graph"), cyclic, QStringLiteral("--json")}));
        QCOMPARE(strings(c[QLatin1String("topological_order")].toArray()), (QStringList{QStringLiteral("a"), QStringLiteral("b"), QStringLiteral("d"), QStringLiteral("c")}));
        QStringList cycle = strings(c[QLatin1String("cycle")].toArray());
        cycle.sort();
        QCOMPARE(cycle, (QStringList{QStringLiteral("x"), QStringLiteral("y")}));
        // --dot marks the cycle's edges.
        const QByteArray cyclicDot = ckpt({QStringLiteral("graph"), cyclic, QStringLiteral("--dot")}).out;
        QVERIFY(cyclicDot.contains("\"x\" -> \"y\" [color=red];") && cyclicDot.contains("\"y\" -> \"x\" [color=red];"));
        QVERIFY(cyclicDot.contains("\"a\" -> \"d\";"));

        // Worked example (a linear chain): the loss's provenance is the chain from the input.
        const QJsonObject w = jsonObject(ckpt({QStringLiteral("graph"), QStringLiteral(CKPT_TEST_DATA "/graph/worked_example.json"), QStringLiteral("--json")}));
        QVERIFY(w[QLatin1String("cycle")].isNull());
        QCOMPARE(w[QLatin1String("loss_provenance_chain")].toArray(), w[QLatin1String("topological_order")].toArray());
        QCOMPARE(w[QLatin1String("loss_provenance_chain")].toArray().size(), 4);

        QCOMPARE(ckpt({QStringLiteral("graph"), cyclic, QStringLiteral("--json"), QStringLiteral("--dot")}).code, 2);
    }

    /** `ckpt blocks`: every block's CID is the SHA-256 of the bytes at its offset; a corrupted block fails. */
    void blocksAreVerified()
    {
        QTemporaryDir dir;
        const QStringList lines = train(dir.path(), {QStringLiteral("--steps"), QStringLiteral("4")});
        QVERIFY(!lines.isEmpty());
        const QString carPath = dir.filePath(QStringLiteral("graph/step-4.car"));
        const QByteArray car = fileBytes(carPath);
        const Run r = ckpt({QStringLiteral("blocks"), carPath, QStringLiteral("--json")});
        QVERIFY2(r.code == 0, r.err.constData());
        const QJsonObject o = jsonObject(r);
        const QJsonArray blocks = o[QLatin1String("blocks")].toArray();
        QVERIFY(blocks.size() > 10);
        QSet<QString> cids;
        for (const auto& v : blocks) {
            const QJsonObject b = v.toObject();
            const qint64 offset = b[QLatin1String("offset")].toInteger(), size = b[QLatin1String("size")].toInteger();
            QVERIFY(offset > 0 && size > 0 && offset + size <= car.size());
            QCOMPARE(b[QLatin1String("codec")].toString(), QStringLiteral("raw"));
            QCOMPARE(b[QLatin1String("check")].toString(), QStringLiteral("ok"));
            QCOMPARE(b[QLatin1String("cid")].toString(), rawCid(car.mid(offset, size)));
            cids << b[QLatin1String("cid")].toString();
        }
        // Every raw CID the GradientCheckpoint names is a block of its CAR; the root is the loss.
        const QByteArray json = fileBytes(dir.filePath(QStringLiteral("graph/step-4.json")));
        for (qsizetype at = json.indexOf("\"bafkrei"); at >= 0; at = json.indexOf("\"bafkrei", at + 1)) {
            const QString cid = QString::fromLatin1(json.mid(at + 1, json.indexOf('"', at + 1) - at - 1));
            QVERIFY2(cids.contains(cid), qPrintable(cid));
        }
        const QString lossCid = QJsonDocument::fromJson(json).object()[QLatin1String("loss_cid")].toString();
        QCOMPARE(strings(o[QLatin1String("roots")].toArray()), QStringList{lossCid});

        // The loss block holds the last step's loss as f32: `ckpt show` resolves it through --blocks.
        const Run shown = ckpt({QStringLiteral("show"), dir.filePath(QStringLiteral("graph/step-4.json")), lossCid, QStringLiteral("--blocks"),
            carPath, QStringLiteral("--json")});
        QVERIFY2(shown.code == 0, shown.err.constData());
        const QJsonObject block = jsonObject(shown);
        QCOMPARE(block[QLatin1String("cid")].toString(), lossCid);
        const QString lastLine = lines.last(); // step=4 loss=X lr=Y
        const float loss = lastLine.section(QLatin1Char(' '), 1, 1).mid(5).toFloat();
        QCOMPARE(block[QLatin1String("views")].toObject()[QLatin1String("f32")].toArray().first().toDouble(), double(loss));

        const Run text = ckpt({QStringLiteral("blocks"), carPath});
        QCOMPARE(text.code, 0);
        QVERIFY(text.out.startsWith(QByteArray(carPath.toUtf8() + ": CARv1, " + QByteArray::number(blocks.size()) + " blocks, roots: " + lossCid.toUtf8())));

        // One flipped byte inside the first block: listed as corrupted, exit 1, one message with its offset.
        QByteArray bad = car;
        const qint64 first = blocks[0].toObject()[QLatin1String("offset")].toInteger();
        bad[first + 3] = char(bad[first + 3] ^ 0xff);
        const QString badPath = dir.filePath(QStringLiteral("bad.car"));
        QFile out(badPath);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(bad);
        out.close();
        const Run corrupted = ckpt({QStringLiteral("blocks"), badPath, QStringLiteral("--json")});
        QCOMPARE(corrupted.code, 1);
        QCOMPARE(jsonObject(corrupted)[QLatin1String("blocks")].toArray()[0].toObject()[QLatin1String("check")].toString(), QStringLiteral("corrupted"));
        QVERIFY2(corrupted.err.startsWith(QByteArray("ckpt: " + badPath.toUtf8() + ": offset " + QByteArray::number(first) + ": ")), corrupted.err.constData());
        QCOMPARE(corrupted.err.count('\n'), 1);
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
