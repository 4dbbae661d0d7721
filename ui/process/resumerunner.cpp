// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/process/resumerunner.h"

#include "core/run/slurmjob.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QSaveFile>
#include <QDir>
#include <QFileInfo>
#include <QTimer>

#include <limits>

namespace ckpt::ui {

namespace {

/// A Slurm tool's arguments from core (core/run/slurmjob.h) as QProcess takes them.
QStringList toQt(const std::vector<std::string>& arguments)
{
    QStringList out;
    for (const auto& a : arguments)
        out << QString::fromStdString(a);
    return out;
}

} // namespace

ResumeRunner::ResumeRunner(QObject* parent)
    : QObject(parent)
    , m_killTimer(new QTimer(this))
    , m_program(defaultProgram())
    , m_pollTimer(new QTimer(this))
{
    connect(m_pollTimer, &QTimer::timeout, this, &ResumeRunner::pollJob);
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

bool ResumeRunner::isRunning() const { return m_jobActive || (m_process && m_process->state() != QProcess::NotRunning); }

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
    m_process = nullptr;
    m_request = request;
    m_pending[0].clear();
    m_pending[1].clear();
    m_lastErrorLine.clear();
    m_lastStep.reset();
    m_stopRequested = false;
    m_startFailed = false;
    m_slurm = request.profile.launcher == ResumeProfile::Launcher::Slurm;
    m_jobId.clear();
    m_jobState.clear();
    if (m_slurm)
        return startSlurm(request, cmd);
    m_process = new QProcess(this);
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
    if (m_slurm) {
        // scancel: SIGTERM to the job (the trainer checkpoints and exits), SIGKILL after Slurm's KillWait.
        if (!m_jobId.isEmpty())
            runTool(QStringLiteral("scancel"), {m_jobId}, [this](int code, const QString&, const QString& err) {
                if (code != 0)
                    Q_EMIT outputAvailable(tr("scancel %1 failed: %2").arg(m_jobId, err.trimmed()), true);
            });
        return;
    }
    m_process->terminate();
    m_killTimer->start(m_stopTimeoutMs);
}

void ResumeRunner::readChannel(QProcess::ProcessChannel channel)
{
    m_process->setReadChannel(channel);
    consume(channel == QProcess::StandardError ? 1 : 0, m_process->readAll());
}

void ResumeRunner::consume(int channel, const QByteArray& bytes, bool flush)
{
    const bool isError = channel == 1;
    QByteArray& pending = m_pending[channel];
    pending += bytes;
    if (flush && !pending.isEmpty() && !pending.endsWith('\n'))
        pending += '\n';
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
        m_process->setReadChannel(channel);
        consume(channel == QProcess::StandardError ? 1 : 0, m_process->readAll(), true);
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

// ---- Slurm ----------------------------------------------------------------------------------------

void ResumeRunner::runTool(const QString& program, const QStringList& args, std::function<void(int, const QString&, const QString&)> done)
{
    auto* p = new QProcess(this);
    p->setProcessEnvironment(m_slurmEnvironment);
    connect(p, &QProcess::finished, this, [p, done](int code, QProcess::ExitStatus status) {
        done(status == QProcess::NormalExit ? code : -1, QString::fromUtf8(p->readAllStandardOutput()), QString::fromUtf8(p->readAllStandardError()));
        p->deleteLater();
    });
    connect(p, &QProcess::errorOccurred, this, [p, program, done](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart)
            return;
        done(-1, QString(), tr("%1 could not be started: %2").arg(program, p->errorString()));
        p->deleteLater();
    });
    p->start(program, args);
}

QString ResumeRunner::errorPathOf(const QString& outputPath)
{
    return outputPath.left(outputPath.size() - 4) + QStringLiteral(".err");
}

bool ResumeRunner::startSlurm(const Request& request, const ResolvedCommand& cmd)
{
    // Slurm expands %j, %u, ... and backslashes in --output: a run directory with them would write elsewhere.
    if (request.outDir.contains(u'%') || request.outDir.contains(u'\\')) {
        Q_EMIT failed(tr("A Slurm job cannot write into %1: sbatch treats %% and \\ in file names as patterns.").arg(request.outDir));
        return false;
    }
    const QDir jobs(QDir(request.outDir).filePath(QStringLiteral("slurm")));
    if (!QDir().mkpath(jobs.path())) {
        Q_EMIT failed(tr("Cannot create %1 for the batch script and its output.").arg(jobs.path()));
        return false;
    }
    const QString stamp = QDateTime::currentDateTimeUtc().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz"));
    m_scriptPath = jobs.filePath(QStringLiteral("resume-%1.sh").arg(stamp));
    m_outputPath = jobs.filePath(QStringLiteral("resume-%1.out").arg(stamp));
    QSaveFile script(m_scriptPath);
    if (!script.open(QIODevice::WriteOnly) || script.write(slurmScript(cmd).toUtf8()) < 0 || !script.commit()) {
        Q_EMIT failed(tr("Cannot write the batch script %1.").arg(m_scriptPath));
        return false;
    }
    QFile::setPermissions(m_scriptPath, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner | QFile::ReadGroup | QFile::ExeGroup);
    m_tailOffset[0] = m_tailOffset[1] = 0;
    m_jobActive = true; // from submission on: isRunning(), and stop() cancels once the id is known
    m_slurmEnvironment = cmd.environment; // sbatch exports the submitting environment to the job
    m_runningProgram = QStringLiteral("sbatch");
    const QStringList args = sbatchArguments(request.profile, cmd, m_scriptPath, m_outputPath, errorPathOf(m_outputPath));
    Q_EMIT outputAvailable(QStringLiteral("sbatch ") + args.join(u' '), false);
    runTool(QStringLiteral("sbatch"), args, [this](int code, const QString& out, const QString& err) {
        const auto jobId = ckpt::sbatchJobId(out.toStdString());
        if (code != 0 || !jobId) {
            m_jobActive = false;
            Q_EMIT failed(tr("sbatch failed (exit code %1): %2").arg(code).arg(QString(err + out).trimmed()));
            Q_EMIT finished(-1, false);
            return;
        }
        const QString id = QString::fromStdString(*jobId);
        m_jobId = id;
        m_runningProgram = QStringLiteral("Slurm job %1").arg(id);
        Q_EMIT started();
        Q_EMIT outputAvailable(tr("submitted Slurm job %1; output: %2").arg(id, m_outputPath), false);
        if (m_stopRequested) // Stop pressed while sbatch ran
            runTool(QStringLiteral("scancel"), {id}, [](int, const QString&, const QString&) {});
        m_pollTimer->start(m_pollMs);
    });
    return true;
}

void ResumeRunner::tailOutput()
{
    // The job's stdout and stderr files, read from where the last poll stopped, as the two channels.
    const QString paths[2] = {m_outputPath, errorPathOf(m_outputPath)};
    for (int channel = 0; channel < 2; ++channel) {
        QFile f(paths[channel]);
        if (!f.open(QIODevice::ReadOnly) || f.size() <= m_tailOffset[channel])
            continue;
        f.seek(m_tailOffset[channel]);
        const QByteArray chunk = f.readAll();
        m_tailOffset[channel] += chunk.size();
        consume(channel, chunk);
    }
}

void ResumeRunner::pollJob()
{
    if (m_pollInFlight || !m_jobActive)
        return;
    tailOutput();
    m_pollInFlight = true;
    // What each answer means is core's (core/run/slurmjob.h), shared with `ckpt timeline --slurm`.
    runTool(QStringLiteral("squeue"), toQt(ckpt::squeueArguments(m_jobId.toStdString())), [this](int code, const QString& out, const QString&) {
        const ckpt::SlurmQueueState queue = ckpt::parseSqueue(code == 0, out.toStdString());
        if (queue.queued) {
            m_pollInFlight = false;
            if (const QString state = QString::fromStdString(queue.state); state != m_jobState) {
                m_jobState = state;
                Q_EMIT jobStateChanged(m_jobId, state);
            }
            return;
        }
        // Gone from the queue (or squeue says the id is unknown): ask accounting how it ended.
        runTool(QStringLiteral("sacct"), toQt(ckpt::sacctArguments(m_jobId.toStdString())), [this](int code, const QString& out, const QString&) {
            if (const auto end = ckpt::jobEndFromSacct(code == 0 ? out.toStdString() : std::string(), m_jobId.toStdString())) {
                finishJob(QString::fromStdString(end->state), end->exitCode.value_or(-1));
                return;
            }
            // No accounting: the controller still knows a finished job for MinJobAge seconds.
            runTool(QStringLiteral("scontrol"), toQt(ckpt::scontrolArguments(m_jobId.toStdString())), [this](int, const QString& out, const QString& err) {
                const auto end = ckpt::jobEndFromScontrol(out.toStdString());
                QString state = end ? QString::fromStdString(end->state) : QString();
                if (state.isEmpty())
                    state = tr("UNKNOWN (%1)").arg(err.trimmed());
                finishJob(state, end ? end->exitCode.value_or(-1) : -1);
            });
        });
    });
}

void ResumeRunner::finishJob(const QString& state, int exitCode)
{
    m_pollTimer->stop();
    m_pollInFlight = false;
    tailOutput();
    consume(0, {}, true);
    consume(1, {}, true);
    m_jobActive = false;
    m_jobState = state;
    Q_EMIT jobStateChanged(m_jobId, state);
    const bool ok = ckpt::slurmJobSucceeded(state.toStdString(), exitCode);
    if (!ok && !m_stopRequested)
        Q_EMIT failed(tr("Slurm job %1 ended %2 (exit code %3)%4")
                          .arg(m_jobId, state)
                          .arg(exitCode)
                          .arg(m_lastErrorLine.isEmpty() ? QString() : QStringLiteral(": ") + m_lastErrorLine));
    Q_EMIT finished(ok ? 0 : exitCode, m_stopRequested);
}

} // namespace ckpt::ui
