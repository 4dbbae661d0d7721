// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// A private Slurm cluster from Debian's slurm-wlm and munge, on this machine, for the tests: its own
// munge key and socket, its own ports, state and spool in a temporary directory, and the daemons in
// the foreground as children of the test (gone with it). With nodes = 2, two slurmd run side by side,
// each with its own node name, port, spool and log (Slurm's %n in the file names): an array job
// spreads over both, as over two machines. SLURM_CONF is set for every sbatch/squeue/scontrol after.

#include "tests/ckptskip.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <memory>
#include <vector>
#include <unistd.h>

namespace clustertest {

inline QString runTool(const QString& program, const QStringList& args)
{
    QProcess p;
    p.start(program, args);
    p.waitForFinished(30000);
    return QString::fromUtf8(p.readAllStandardOutput());
}

inline QByteArray fileText(const QString& path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

class PrivateCluster {
public:
    ~PrivateCluster() { stop(); }

    /** Why this machine cannot run the cluster (empty: it can). Under CI=true the caller fails instead of skipping. */
    static QString unavailable()
    {
        QStringList missing;
        for (const char* tool : {"munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo"})
            if (QStandardPaths::findExecutable(QLatin1String(tool), {QStringLiteral("/usr/sbin"), QStringLiteral("/usr/bin")}).isEmpty())
                missing << QLatin1String(tool);
        if (!missing.isEmpty())
            return QStringLiteral("Slurm is not installed (missing %1): packaging/install-deps.sh installs slurm-wlm and munge").arg(missing.join(u' '));
        if (::geteuid() != 0)
            return QStringLiteral("slurmd must run as root to start jobs; the private cluster is configured only when run as root (as CI does)");
        return {};
    }

    struct Options {
        int nodes = 1;           ///< slurmd daemons, node names cn1, cn2, ...
        int cpusPerNode = 1;
        int killWaitSeconds = 5; ///< between scancel's SIGTERM and SIGKILL (a trainer that checkpoints on SIGTERM needs time)
    };

    /** Starts munged, slurmctld and the nodes' slurmd, and waits until every node is idle. */
    bool start(const Options& o, QString* error)
    {
        const int nodes = o.nodes;
        if (!m_dir.isValid())
            return fail(error, QStringLiteral("no temporary directory"));
        const QDir c(m_dir.path());
        for (const char* sub : {"munge", "state", "spool", "log"})
            c.mkpath(QLatin1String(sub));
        QFile::setPermissions(c.filePath(QStringLiteral("munge")), QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        QFile key(c.filePath(QStringLiteral("munge/munge.key")));
        QFile random(QStringLiteral("/dev/urandom"));
        if (!key.open(QIODevice::WriteOnly) || !random.open(QIODevice::ReadOnly))
            return fail(error, QStringLiteral("cannot write the munge key"));
        key.write(random.read(1024));
        key.close();
        key.setPermissions(QFile::ReadOwner);
        const QString socket = c.filePath(QStringLiteral("munge/munge.socket"));
        startDaemon(QStringLiteral("/usr/sbin/munged"),
            {QStringLiteral("--foreground"), QStringLiteral("--key-file=") + key.fileName(), QStringLiteral("--socket=") + socket,
                QStringLiteral("--pid-file=") + c.filePath(QStringLiteral("munge/munged.pid")),
                QStringLiteral("--log-file=") + c.filePath(QStringLiteral("munge/munged.log")),
                QStringLiteral("--seed-file=") + c.filePath(QStringLiteral("munge/seed")), QStringLiteral("--force")});
        if (!QTest::qWaitFor([&] { return QFileInfo::exists(socket); }, 10000))
            return fail(error, QStringLiteral("munged did not start: ") + QString::fromUtf8(fileText(c.filePath(QStringLiteral("munge/munged.log")))));

        // Ports of our own (away from a real Slurm's 6817/6818, and from tst_slurmresume's), derived from the pid.
        const int port = 40000 + int(::getpid() % 10000) * 2;
        const QString host = QSysInfo::machineHostName();
        QString conf = QStringLiteral(
            "ClusterName=ckptscan\n"
            "SlurmctldHost=%1(127.0.0.1)\n"
            "SlurmctldPort=%2\n"
            "SlurmUser=root\nSlurmdUser=root\n"
            "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=%3\n"
            "StateSaveLocation=%4/state\nSlurmdSpoolDir=%4/spool/%n\n"
            "SlurmctldPidFile=%4/slurmctld.pid\nSlurmdPidFile=%4/slurmd.%n.pid\n"
            "SlurmctldLogFile=%4/log/slurmctld.log\nSlurmdLogFile=%4/log/slurmd.%n.log\n"
            "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
            "SelectType=select/cons_tres\nSelectTypeParameters=CR_Core\n"
            "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
            "JobCompType=jobcomp/filetxt\nJobCompLoc=%4/log/jobcomp.txt\n"
            "MpiDefault=none\nReturnToService=2\nKillWait=%5\nMinJobAge=600\n")
                           .arg(host)
                           .arg(port)
                           .arg(socket, m_dir.path())
                           .arg(o.killWaitSeconds);
        for (int n = 1; n <= nodes; ++n) {
            // Each slurmd its own port: two daemons on one address, as two machines would be on two.
            conf += QStringLiteral("NodeName=cn%1 NodeHostname=%2 NodeAddr=127.0.0.1 Port=%3 CPUs=%4 State=UNKNOWN\n")
                        .arg(n)
                        .arg(host)
                        .arg(port + n)
                        .arg(o.cpusPerNode);
            c.mkpath(QStringLiteral("spool/cn%1").arg(n));
        }
        conf += QStringLiteral("PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n");
        const QString confPath = c.filePath(QStringLiteral("slurm.conf"));
        QFile f(confPath);
        if (!f.open(QIODevice::WriteOnly))
            return fail(error, QStringLiteral("cannot write slurm.conf"));
        f.write(conf.toUtf8());
        f.close();
        qputenv("SLURM_CONF", confPath.toUtf8());
        startDaemon(QStringLiteral("/usr/sbin/slurmctld"), {QStringLiteral("-D"), QStringLiteral("-i"), QStringLiteral("-f"), confPath});
        for (int n = 1; n <= nodes; ++n)
            startDaemon(QStringLiteral("/usr/sbin/slurmd"), {QStringLiteral("-D"), QStringLiteral("-f"), confPath, QStringLiteral("-N"), QStringLiteral("cn%1").arg(n)});
        const bool idle = QTest::qWaitFor(
            [&] {
                const QStringList states = runTool(QStringLiteral("sinfo"), {QStringLiteral("-h"), QStringLiteral("-N"), QStringLiteral("-o"), QStringLiteral("%T")})
                                               .split(u'\n', Qt::SkipEmptyParts);
                return states.size() == nodes && states.count(QStringLiteral("idle")) == nodes;
            },
            30000);
        if (!idle)
            return fail(error, QStringLiteral("the nodes did not come up idle: ") + QString::fromUtf8(fileText(c.filePath(QStringLiteral("log/slurmctld.log"))).right(2000)));
        return true;
    }

    void stop()
    {
        for (auto& d : m_daemons) {
            d->terminate();
            if (!d->waitForFinished(10000)) {
                d->kill();
                d->waitForFinished(5000);
            }
        }
        m_daemons.clear();
    }

    QString path() const { return m_dir.path(); }

private:
    static bool fail(QString* error, const QString& why)
    {
        if (error)
            *error = why;
        return false;
    }
    void startDaemon(const QString& program, const QStringList& args)
    {
        auto p = std::make_unique<QProcess>();
        p->setStandardOutputFile(QProcess::nullDevice()); // the daemons log into the cluster's log directory
        p->setStandardErrorFile(QProcess::nullDevice());
        p->start(program, args);
        p->waitForStarted(10000);
        m_daemons.push_back(std::move(p));
    }

    QTemporaryDir m_dir;
    std::vector<std::unique_ptr<QProcess>> m_daemons;
};

} // namespace clustertest
