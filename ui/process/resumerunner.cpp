// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/process/resumerunner.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include <limits>

namespace ckpt::ui {

ResumeRunner::ResumeRunner(QObject* parent)
    : QObject(parent)
    , m_killTimer(new QTimer(this))
    , m_program(defaultProgram())
{
    m_killTimer->setSingleShot(true);
    connect(m_killTimer, &QTimer::timeout, this, [this] {
        if (m_process && m_process->state() != QProcess::NotRunning)
            m_process->kill();
    });
}

ResumeRunner::~ResumeRunner()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(5000);
    }
}

QString ResumeRunner::defaultProgram()
{
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ckpt-train"));
}

PlaceholderValues ResumeRunner::placeholders(const Request& r)
{
    return {r.record, QFileInfo(r.record).absolutePath(), QString::number(r.recordStep), r.outDir};
}

QStringList ResumeRunner::arguments(const Request& r)
{
    return resolveProfile(r.profile, placeholders(r), defaultProgram(), r.steps).arguments;
}

ResolvedCommand ResumeRunner::command(const Request& r) const { return resolveProfile(r.profile, placeholders(r), m_program, r.steps); }

std::optional<ResumeRunner::StepLine> ResumeRunner::parseStepLine(QStringView line)
{
    line = line.trimmed();
    const auto parts = line.split(u' ', Qt::SkipEmptyParts);
    if (parts.size() != 3 || !parts[0].startsWith(u"step=") || !parts[1].startsWith(u"loss=") || !parts[2].startsWith(u"lr="))
        return std::nullopt;
    bool ok1 = false, ok2 = false, ok3 = false;
    StepLine s;
    s.step = parts[0].mid(5).toULongLong(&ok1);
    s.loss = parts[1].mid(5).toDouble(&ok2); // "NaN"/"inf" of a diverging run are not numbers here: still a line
    s.lr = parts[2].mid(3).toDouble(&ok3);
    if (!ok1 || !ok3)
        return std::nullopt;
    if (!ok2)
        s.loss = std::numeric_limits<double>::quiet_NaN();
    return s;
}

bool ResumeRunner::isRunning() const { return m_process && m_process->state() != QProcess::NotRunning; }

bool ResumeRunner::start(const Request& request)
{
    if (isRunning()) {
        Q_EMIT failed(tr("A resumption is already running."));
        return false;
    }
    if (request.record.isEmpty() || request.outDir.isEmpty()) {
        Q_EMIT failed(tr("Resuming needs a record and an output directory."));
        return false;
    }
    const ResolvedCommand cmd = command(request);
    if (!cmd.badEnvironment.isEmpty()) {
        Q_EMIT failed(tr("Profile \"%1\": environment entries must be NAME=VALUE: %2").arg(request.profile.name, cmd.badEnvironment.join(u", ")));
        return false;
    }
    // A bare name is looked up in PATH by QProcess; a path must exist.
    if (cmd.program.contains(u'/') && !QFileInfo(cmd.program).isExecutable()) {
        Q_EMIT failed(tr("The program %1 is missing or not executable.").arg(cmd.program));
        return false;
    }
    if (cmd.program.isEmpty()) {
        Q_EMIT failed(tr("Profile \"%1\" names no program.").arg(request.profile.name));
        return false;
    }
    if (!cmd.workingDirectory.isEmpty() && !QFileInfo(cmd.workingDirectory).isDir()) {
        Q_EMIT failed(tr("The working directory %1 does not exist.").arg(cmd.workingDirectory));
        return false;
    }
    if (m_process)
        m_process->deleteLater();
    m_process = new QProcess(this);
    m_request = request;
    m_pending[0].clear();
    m_pending[1].clear();
    m_lastErrorLine.clear();
    m_lastStep.reset();
    m_stopRequested = false;
    m_startFailed = false;
    connect(m_process, &QProcess::started, this, &ResumeRunner::started);
    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] { readChannel(QProcess::StandardOutput); });
    connect(m_process, &QProcess::readyReadStandardError, this, [this] { readChannel(QProcess::StandardError); });
    connect(m_process, &QProcess::finished, this, &ResumeRunner::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &ResumeRunner::onError);
    m_process->setProcessEnvironment(cmd.environment);
    if (!cmd.workingDirectory.isEmpty())
        m_process->setWorkingDirectory(cmd.workingDirectory);
    m_runningProgram = cmd.program;
    m_process->start(cmd.program, cmd.arguments); // argument list: no shell, no quoting issues
    return true;
}

void ResumeRunner::stop()
{
    if (!isRunning())
        return;
    m_stopRequested = true;
    m_process->terminate();
    m_killTimer->start(m_stopTimeoutMs);
}

void ResumeRunner::readChannel(QProcess::ProcessChannel channel)
{
    const bool isError = channel == QProcess::StandardError;
    QByteArray& pending = m_pending[isError ? 1 : 0];
    m_process->setReadChannel(channel);
    pending += m_process->readAll();
    qsizetype nl;
    while ((nl = pending.indexOf('\n')) >= 0) {
        const QString line = QString::fromUtf8(pending.constData(), nl).trimmed();
        pending.remove(0, nl + 1);
        if (line.isEmpty())
            continue;
        if (isError)
            m_lastErrorLine = line;
        Q_EMIT outputAvailable(line, isError);
        if (!isError)
            if (auto s = parseStepLine(line)) {
                m_lastStep = s;
                Q_EMIT stepReported(s->step, s->loss, s->lr);
            }
    }
}

void ResumeRunner::onError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart)
        return; // crashes and exits are handled in onFinished
    m_startFailed = true;
    m_killTimer->stop();
    Q_EMIT failed(tr("Could not start %1: %2").arg(m_runningProgram, m_process->errorString()));
    Q_EMIT finished(-1, false);
}

void ResumeRunner::onFinished(int exitCode, QProcess::ExitStatus status)
{
    m_killTimer->stop();
    // the last line may lack its newline
    for (auto channel : {QProcess::StandardOutput, QProcess::StandardError}) {
        readChannel(channel);
        QByteArray& pending = m_pending[channel == QProcess::StandardError ? 1 : 0];
        if (!pending.trimmed().isEmpty()) {
            pending += '\n';
            readChannel(channel);
        }
    }
    const bool crashed = status == QProcess::CrashExit;
    if (!m_stopRequested) {
        if (crashed)
            Q_EMIT failed(tr("%1 crashed (%2).").arg(QFileInfo(m_runningProgram).fileName(), m_process->errorString()));
        else if (exitCode != 0)
            Q_EMIT failed(tr("%1 exited with code %2: %3").arg(QFileInfo(m_runningProgram).fileName()).arg(exitCode).arg(m_lastErrorLine));
    }
    Q_EMIT finished(crashed ? -1 : exitCode, m_stopRequested);
}

} // namespace ckpt::ui
