// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Nothing the user owns is lost: programs that write records are SIGKILLed at many points while they
// write, and run out of disk, and afterwards every target is either its old bytes or the complete
// new file, and no temporary file is left behind that a later save could trip over.
#include <QCryptographicHash>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFile>
#include <QProcess>
#include <QScopeGuard>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <limits>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <unistd.h>

namespace {

const QString kCkpt = QStringLiteral(CKPT_BIN_DIR "/ckpt");
const QString kTrainer = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");
const QString kGenerator = QStringLiteral(CKPT_BIN_DIR "/ckpt-bench-gen");
constexpr int kKillPoints = 12;

QByteArray digest(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QCryptographicHash h(QCryptographicHash::Sha256);
    h.addData(&f);
    return h.result().toHex();
}

struct Finished {
    int exitCode = -1;
    QByteArray err;
};

Finished run(const QString& program, const QStringList& args, QProcess* p = nullptr)
{
    QProcess local;
    QProcess& proc = p ? *p : local;
    proc.start(program, args);
    proc.waitForFinished(120000);
    return {proc.exitStatus() == QProcess::NormalExit ? proc.exitCode() : -1, proc.readAllStandardError()};
}

// Files a killed writer may have left: everything in \a dir except the names we expect.
QStringList leftovers(const QString& dir, const QStringList& expected)
{
    QStringList out;
    for (const QString& name : QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot))
        if (!expected.contains(name))
            out << name;
    return out;
}

// Whether the kernel gives this directory unnamed temporary files: then nothing may be left at all.
bool hasUnnamedTemporaries(const QString& dir)
{
    const int fd = ::open(QFile::encodeName(dir).constData(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    ::close(fd);
    return true;
}

// Runs \a args, kills it with SIGKILL after \a delayMs (or lets it finish if it is faster).
bool killAfter(const QString& program, const QStringList& args, int delayMs)
{
    QProcess p;
    p.start(program, args);
    if (!p.waitForStarted(10000))
        return false;
    if (!p.waitForFinished(delayMs)) {
        p.kill(); // SIGKILL: no handler, no cleanup, as when the machine's OOM killer strikes
        p.waitForFinished(10000);
        return true;
    }
    return false;
}

} // namespace

class TestAtomicWrites : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QString m_big;        // a TrainingRecord of ~8 MB, made by the benchmark generator
    QString m_small;      // a genuine Burn file: the "old" content targets start with

    // Kills `program args` at kKillPoints points spread over one uncut run and checks \a target
    // after each: old bytes or the uncut run's bytes, nothing else in the directory.
    void killAtManyPoints(const QString& program, const QStringList& args, const QString& target)
    {
        const QString dir = QFileInfo(target).absolutePath();
        const QStringList expected = QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::NoDotAndDotDot) << QFileInfo(target).fileName();
        const bool strict = hasUnnamedTemporaries(dir);
        QVERIFY(QFile::copy(m_small, target));
        const QByteArray before = digest(target);

        // The kill points are fractions of the fastest of three uncut runs: timed once on a loaded
        // machine, a slow first run put most points after the end of the faster runs that followed.
        qint64 duration = std::numeric_limits<qint64>::max();
        for (int round = 0; round < 3; ++round) {
            QFile::remove(target);
            QVERIFY(QFile::copy(m_small, target));
            QElapsedTimer clock;
            clock.start();
            const Finished uncut = run(program, args);
            QVERIFY2(uncut.exitCode == 0, uncut.err.constData());
            duration = std::min(duration, clock.elapsed());
        }
        duration = std::max<qint64>(duration, 20);
        const QByteArray after = digest(target);
        QVERIFY(after != before);

        int killedWhileRunning = 0, old = 0, complete = 0;
        for (int i = 0; i < kKillPoints; ++i) {
            QFile::remove(target);
            QVERIFY(QFile::copy(m_small, target));
            const int delay = int(duration * (i + 1) / (kKillPoints + 1));
            killedWhileRunning += killAfter(program, args, delay);
            const QByteArray now = digest(target);
            QVERIFY2(now == before || now == after,
                     qPrintable(QStringLiteral("after a kill at %1 ms the target is neither the old nor the new file").arg(delay)));
            (now == before ? old : complete) += 1;
            // With unnamed temporaries the only thing a kill can leave is the complete new file under
            // its temporary name (killed between naming it and the rename); anything partial is a bug.
            if (strict)
                for (const QString& name : leftovers(dir, expected))
                    QVERIFY2(digest(QDir(dir).filePath(name)) == after,
                             qPrintable(QStringLiteral("kill at %1 ms left the partial file %2").arg(delay).arg(name)));
        }
        // The kills must really have hit the writer mid-way, or the test proves nothing.
        QVERIFY2(killedWhileRunning >= kKillPoints / 2, qPrintable(QStringLiteral("only %1 kills hit a running writer").arg(killedWhileRunning)));
        qInfo("%s: %d kills while running (uncut %lld ms): %d left the old file, %d the complete new one",
              qPrintable(QFileInfo(program).fileName()), killedWhileRunning, duration, old, complete);
        // Whatever a kill left behind, the next save goes through.
        // ... and cleans up what the killed writers left.
        const Finished again = run(program, args);
        QVERIFY2(again.exitCode == 0, again.err.constData());
        QCOMPARE(digest(target), after);
        QCOMPARE(leftovers(dir, expected), QStringList());
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_big = m_dir.filePath(QStringLiteral("big.mpk"));
        const Finished gen = run(kGenerator, {QStringLiteral("record"), QStringLiteral("8000000"), QStringLiteral("3"), m_big});
        QVERIFY2(gen.exitCode == 0, gen.err.constData());
        m_small = QStringLiteral(CKPT_FIXTURES "/models/burn-0.16.1_full_connect4.mpk");
    }

    void killDuringConvert()
    {
        const QString out = QDir(m_dir.filePath(QStringLiteral("convert"))).filePath(QStringLiteral("out.mpk.gz"));
        QVERIFY(QDir().mkpath(QFileInfo(out).path()));
        killAtManyPoints(kCkpt, {QStringLiteral("convert"), m_big, out, QStringLiteral("--recorder"), QStringLiteral("NamedMpkGz")}, out);
    }

    void killDuringEdit()
    {
        const QString out = QDir(m_dir.filePath(QStringLiteral("edit"))).filePath(QStringLiteral("edited.mpk"));
        QVERIFY(QDir().mkpath(QFileInfo(out).path()));
        killAtManyPoints(kCkpt, {QStringLiteral("edit"), m_big, QStringLiteral("-o"), out, QStringLiteral("--set"), QStringLiteral("item[4][0]=4")}, out);
    }

    void killDuringResave()
    {
        const QString out = QDir(m_dir.filePath(QStringLiteral("resave"))).filePath(QStringLiteral("resaved.mpk"));
        QVERIFY(QDir().mkpath(QFileInfo(out).path()));
        killAtManyPoints(kCkpt, {QStringLiteral("resave"), m_big, out}, out);
    }

    // The trainer killed at many points: every checkpoint it has written is complete and valid, and
    // no temporary file is left in the run directory.
    void killDuringTraining()
    {
        const QStringList args = {QStringLiteral("--steps"), QStringLiteral("24"), QStringLiteral("--checkpoint-every"), QStringLiteral("2"),
                                  QStringLiteral("--hidden"), QStringLiteral("384"), QStringLiteral("--input-dim"), QStringLiteral("256"),
                                  QStringLiteral("--layout"), QStringLiteral("all")};
        const QString probe = m_dir.filePath(QStringLiteral("train-uncut"));
        QElapsedTimer clock;
        clock.start();
        const Finished uncut = run(kTrainer, QStringList{QStringLiteral("--out"), probe} + args);
        QVERIFY2(uncut.exitCode == 0, uncut.err.constData());
        const qint64 duration = std::max<qint64>(clock.elapsed(), 20);
        for (int i = 0; i < 6; ++i) {
            const QString dir = m_dir.filePath(QStringLiteral("train-%1").arg(i));
            const bool strict = QDir().mkpath(dir) && hasUnnamedTemporaries(dir);
            killAfter(kTrainer, QStringList{QStringLiteral("--out"), dir} + args, int(duration * (i + 1) / 7));
            QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString f = it.next();
                const QString name = QFileInfo(f).fileName();
                // A temporary is only allowed where the kill fell between naming the complete file
                // and its rename: then it must be as valid as the checkpoint it was to become.
                if (!strict && name.endsWith(QLatin1String(".tmp")))
                    continue;
                if (name.endsWith(QLatin1String(".mpk")) || name.contains(QLatin1String(".mpk.ckpt-"))) {
                    const Finished v = run(kCkpt, {QStringLiteral("validate"), f});
                    QVERIFY2(v.exitCode == 0, qPrintable(f + QStringLiteral(": ") + QString::fromUtf8(v.err)));
                }
            }
        }
    }

    // The sweep after a save removes exactly the temporaries of this target whose writer on this host
    // is gone: not those of a live process, another host or another target.
    void nextSaveSweepsStaleTemporaries()
    {
        const QString dir = m_dir.filePath(QStringLiteral("sweep"));
        QVERIFY(QDir().mkpath(dir));
        const QString target = QDir(dir).filePath(QStringLiteral("target.mpk"));
        QProcess gone;
        gone.start(QStringLiteral("/bin/true"), {});
        QVERIFY(gone.waitForStarted());
        const qint64 deadPid = gone.processId();
        QVERIFY(gone.waitForFinished());
        QString host;
        for (QChar c : QSysInfo::machineHostName().left(32))
            host += (c.isLetterOrNumber() && c.unicode() < 128) || c == QLatin1Char('-') ? c : QLatin1Char('_');
        auto temporary = [&](const QString& targetName, const QString& hostName, qint64 pid) {
            const QString name = QStringLiteral(".%1.ckpt-%2-%3-0-0123456789abcdef.tmp").arg(targetName, hostName).arg(pid);
            QFile f(QDir(dir).filePath(name));
            f.open(QIODevice::WriteOnly);
            f.write("partial");
            return name;
        };
        const QString stale = temporary(QStringLiteral("target.mpk"), host, deadPid);
        const QStringList kept = {temporary(QStringLiteral("target.mpk"), host, QCoreApplication::applicationPid()),
                                  temporary(QStringLiteral("target.mpk"), QStringLiteral("elsewhere"), deadPid),
                                  temporary(QStringLiteral("other.mpk"), host, deadPid)};
        const Finished r = run(kCkpt, {QStringLiteral("convert"), m_small, target, QStringLiteral("--recorder"), QStringLiteral("NamedMpk")});
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(!QFile::exists(QDir(dir).filePath(stale)));
        QStringList left = leftovers(dir, {QStringLiteral("target.mpk")});
        left.sort();
        QStringList expectedLeft = kept;
        expectedLeft.sort();
        QCOMPARE(left, expectedLeft);
    }

    // Out of space (a small tmpfs where the test may mount one; RLIMIT_FSIZE otherwise and always):
    // one clear message naming the file and the reason, the original untouched, nothing left.
    void diskFullKeepsTheOriginal()
    {
        const QString dir = m_dir.filePath(QStringLiteral("full"));
        QVERIFY(QDir().mkpath(dir));
        const QString out = QDir(dir).filePath(QStringLiteral("target.mpk"));
        bool mounted = ::mount("tmpfs", QFile::encodeName(dir).constData(), "tmpfs", 0, "size=1m") == 0;
        if (!mounted)
            qInfo("no tmpfs could be mounted (%s): only the file-size limit below runs", std::strerror(errno));
        auto unmount = qScopeGuard([&] {
            if (mounted)
                ::umount2(QFile::encodeName(dir).constData(), MNT_DETACH);
        });
        QVERIFY(QFile::copy(m_small, out));
        const QByteArray before = digest(out);
        const QStringList args = {QStringLiteral("convert"), m_big, out, QStringLiteral("--recorder"), QStringLiteral("NamedMpk")};
        if (mounted) {
            const Finished r = run(kCkpt, args);
            QCOMPARE(r.exitCode, 1);
            QVERIFY2(r.err.contains("No space left on device") && r.err.contains(QFile::encodeName(out)), r.err.constData());
            QCOMPARE(r.err.count('\n'), 1);
            QCOMPARE(digest(out), before);
            QCOMPARE(leftovers(dir, {QStringLiteral("target.mpk")}), QStringList());
        }
        // The same with a file-size limit of 1 MiB on the child (EFBIG instead of ENOSPC), on the
        // test's ordinary file system.
        const QString limitedDir = m_dir.filePath(QStringLiteral("limited"));
        QVERIFY(QDir().mkpath(limitedDir));
        const QString limitedOut = QDir(limitedDir).filePath(QStringLiteral("target.mpk"));
        QVERIFY(QFile::copy(m_small, limitedOut));
        QProcess limited;
        limited.setChildProcessModifier([] {
            ::signal(SIGXFSZ, SIG_IGN);
            const rlimit limit{1 << 20, 1 << 20};
            ::setrlimit(RLIMIT_FSIZE, &limit);
        });
        const Finished r = run(kCkpt, {QStringLiteral("convert"), m_big, limitedOut, QStringLiteral("--recorder"), QStringLiteral("NamedMpk")}, &limited);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains("File too large") && r.err.contains(QFile::encodeName(limitedOut)), r.err.constData());
        QCOMPARE(r.err.count('\n'), 1);
        QCOMPARE(digest(limitedOut), before);
        QCOMPARE(leftovers(limitedDir, {QStringLiteral("target.mpk")}), QStringList());
    }
};

QTEST_GUILESS_MAIN(TestAtomicWrites)
#include "tst_atomic_writes.moc"
