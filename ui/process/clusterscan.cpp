// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/process/clusterscan.h"

#include "ui/process/verifyrunner.h"

#include <QCollator>
#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QSettings>

#include <algorithm>

namespace ckpt::ui {

ClusterScan::ClusterScan(QObject* parent)
    : QObject(parent)
    , m_program(VerifyRunner::defaultProgram())
{
    m_poll.setInterval(1000);
    connect(&m_poll, &QTimer::timeout, this, &ClusterScan::poll);
}

ClusterScan::~ClusterScan()
{
    if (isRunning()) {
        m_process->disconnect(this);
        m_process->terminate(); // ckpt cancels its jobs
        m_process->waitForFinished(5000);
    }
}

bool ClusterScan::isRunning() const
{
    return m_process && m_process->state() != QProcess::NotRunning;
}

bool ClusterScan::start(const Request& request)
{
    if (isRunning()) {
        Q_EMIT finished(false, tr("A cluster scan is already running."));
        return false;
    }
    if (!QFileInfo(m_program).isExecutable()) {
        Q_EMIT finished(false, tr("The command line tool %1 is missing or not executable: it submits the scan.").arg(m_program));
        return false;
    }
    const auto configHome = VerifyRunner::configHomeFor(QSettings().fileName());
    if (!configHome) {
        Q_EMIT finished(false, tr("ckpt cannot find this app's resume profiles (%1).").arg(QSettings().fileName()));
        return false;
    }
    // A directory of the app's own inside the run: on the cluster's file system, where the nodes write.
    m_work = QDir(request.run).filePath(QStringLiteral(".ckpt-timeline-slurm/app-%1")
                                              .arg(QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"))));
    m_partials.clear();
    m_stderr.clear();
    QStringList args {QStringLiteral("timeline"), request.run, QStringLiteral("--slurm"), QStringLiteral("--json"), QStringLiteral("--work"), m_work};
    if (!request.profile.isEmpty())
        args << QStringLiteral("--profile") << request.profile;
    if (request.tasks > 0)
        args << QStringLiteral("--tasks") << QString::number(request.tasks);
    if (m_process)
        m_process->deleteLater();
    m_process = new QProcess(this);
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), *configHome);
    m_process->setProcessEnvironment(environment);
    m_process->setStandardOutputFile(QProcess::nullDevice()); // the timeline comes from the partials, merged here
    connect(m_process, &QProcess::readyReadStandardError, this, [this] {
        const QByteArray chunk = m_process->readAllStandardError();
        m_stderr += chunk;
        for (const QByteArray& line : chunk.split('\n'))
            if (!line.trimmed().isEmpty())
                Q_EMIT progress(QString::fromUtf8(line.trimmed()));
    });
    connect(m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        m_poll.stop();
        poll();
        const bool ok = status == QProcess::NormalExit && code == 0;
        QString error;
        if (!ok) {
            const QList<QByteArray> lines = m_stderr.trimmed().split('\n');
            error = status == QProcess::NormalExit ? QString::fromUtf8(lines.isEmpty() ? QByteArray() : lines.last())
                                                   : tr("ckpt ended without finishing the scan");
        }
        Q_EMIT finished(ok, error);
    });
    connect(m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart) {
            m_poll.stop();
            Q_EMIT finished(false, tr("%1 could not be started: %2").arg(m_program, m_process->errorString()));
        }
    });
    m_process->start(m_program, args); // an argument list: no shell
    m_poll.start();
    return true;
}

void ClusterScan::cancel()
{
    if (isRunning())
        m_process->terminate();
}

void ClusterScan::poll()
{
    QStringList found = QDir(m_work).entryList({QStringLiteral("partial-*.timeline-partial")}, QDir::Files);
    QCollator numeric;
    numeric.setNumericMode(true);
    std::sort(found.begin(), found.end(), numeric);
    for (QString& f : found)
        f = QDir(m_work).filePath(f);
    if (found != m_partials) {
        m_partials = found;
        Q_EMIT partialsArrived(m_partials);
    }
}

} // namespace ckpt::ui
