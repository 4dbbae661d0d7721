// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/demorun.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace ckpt::ui {

DemoRunner::DemoRunner(QObject* parent)
    : QObject(parent)
{
    m_process.setProcessChannelMode(QProcess::MergedChannels);
    connect(&m_process, &QProcess::readyRead, this, [this] {
        while (m_process.canReadLine()) {
            const QString line = QString::fromUtf8(m_process.readLine()).trimmed();
            // one line per step is too much for a log panel; every 50th step and all other lines
            static const QLatin1String stepPrefix("step=");
            if (line.startsWith(stepPrefix)) {
                const int n = line.mid(5, line.indexOf(QLatin1Char(' ')) - 5).toInt();
                if (n % 50 != 0)
                    continue;
            }
            Q_EMIT output(line);
        }
    });
    connect(&m_process, &QProcess::errorOccurred, this, [this](QProcess::ProcessError e) {
        if (e == QProcess::FailedToStart)
            Q_EMIT failed(tr("could not start %1: %2").arg(trainerPath(), m_process.errorString()));
    });
    connect(&m_process, &QProcess::finished, this, [this](int code, QProcess::ExitStatus status) {
        if (status != QProcess::NormalExit)
            Q_EMIT failed(tr("ckpt-train crashed"));
        else if (code != 0)
            Q_EMIT failed(tr("ckpt-train exited with code %1").arg(code));
        else
            Q_EMIT finished(m_dir);
    });
}

QString DemoRunner::trainerPath()
{
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ckpt-train"));
}

QString DemoRunner::demoDirectory()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation)).filePath(QStringLiteral("demo-run"));
}

QStringList DemoRunner::demoArguments(const QString& outDir)
{
    return {QStringLiteral("--out"), outDir, QStringLiteral("--steps"), QStringLiteral("1200"),
        QStringLiteral("--checkpoint-every"), QStringLiteral("50"), QStringLiteral("--layout"), QStringLiteral("all"),
        // a model that looks like one: 16 residual blocks, 102 parameters, 306 tensors per TrainingRecord
        QStringLiteral("--blocks"), QStringLiteral("16"),
        // a run that goes bad late: lr x 10^6 from micro-batch 998 on, so checkpoints 50..950 are healthy,
        // 1000 holds the first inf (Adam moments) and NaN (parameters) beside huge finite values, and
        // 1050..1200 are NaN throughout (the loss logs say NaN from step 1001)
        QStringLiteral("--diverge-at"), QStringLiteral("998"),
        // a cosine schedule gives the Scheduler panel's learning-rate curve something to show (one decay
        // over the whole run: a restart at the divergence would look like its cause)
        QStringLiteral("--scheduler"), QStringLiteral("cosine"), QStringLiteral("--sched-iters"), QStringLiteral("1200")};
}

void DemoRunner::start()
{
    m_dir = demoDirectory();
    // a fresh run each time: the trainer appends metric logs to an existing directory
    QDir(m_dir).removeRecursively();
    QDir().mkpath(m_dir);
    if (!QFileInfo(trainerPath()).isExecutable()) {
        Q_EMIT failed(tr("%1 was not found next to checkpoint-inspector; build the ckpt-train target").arg(trainerPath()));
        return;
    }
    Q_EMIT output(tr("Running %1 %2").arg(trainerPath(), demoArguments(m_dir).join(QLatin1Char(' '))));
    m_process.start(trainerPath(), demoArguments(m_dir));
}

} // namespace ckpt::ui
