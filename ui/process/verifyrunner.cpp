// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/process/verifyrunner.h"

#include <QCoreApplication>
#include <QDir>
#include <QTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QSettings>

#include <csignal>
#include <sys/types.h>
#include <unistd.h>

namespace ckpt::ui {

namespace {
/**
 * The app's settings file below XDG_CONFIG_HOME: ckpt reads the resume profiles beside it
 * (core/run/resumeprofiles.h resumeProfilesPath, ui ResumeProfiles::storePath).
 */
constexpr QLatin1StringView kCliSettingsSuffix("/CheckpointInspector/checkpoint-inspector.conf");

std::optional<double> optionalNumber(const QJsonValue& v)
{
    return v.isDouble() ? std::optional<double>(v.toDouble()) : std::nullopt;
}

/** A state field's side as the document spells it: JSON text, or null when the field is absent. */
QString sideText(const QJsonValue& v)
{
    return v.isString() ? v.toString() : QString();
}
} // namespace

VerifyRunner::VerifyRunner(QObject* parent)
    : QObject(parent)
    , m_program(defaultProgram())
{
}

VerifyRunner::~VerifyRunner()
{
    if (m_process && m_process->state() != QProcess::NotRunning) {
        m_process->disconnect(this);
        killGroup();
        m_process->waitForFinished(5000);
    }
}

QString VerifyRunner::defaultProgram()
{
    return QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("ckpt"));
}

QStringList VerifyRunner::arguments(const Request& r)
{
    return {QStringLiteral("verify-resume"), r.record, QStringLiteral("--against"), r.against, QStringLiteral("--profile"), r.profile,
        QStringLiteral("--tolerance"), r.tolerance, QStringLiteral("--json")};
}

std::optional<QString> VerifyRunner::configHomeFor(const QString& settingsFile)
{
    const QString file = QFileInfo(settingsFile).absoluteFilePath();
    if (!file.endsWith(kCliSettingsSuffix))
        return std::nullopt;
    return file.left(file.size() - kCliSettingsSuffix.size());
}

std::expected<VerifyRunner::Report, QString> VerifyRunner::parseReport(const QByteArray& json)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &error);
    if (doc.isNull())
        return std::unexpected(tr("its output is not JSON (%1 at byte %2)").arg(error.errorString()).arg(error.offset));
    if (!doc.isObject())
        return std::unexpected(tr("its output is not a verify-resume document (no object)"));
    const QJsonObject o = doc.object();
    Report r;
    r.verdict = o.value(QLatin1String("verdict")).toString();
    if (r.verdict != QLatin1String("identical") && r.verdict != QLatin1String("within_tolerance") && r.verdict != QLatin1String("diverged"))
        return std::unexpected(tr("its document has no verdict (identical, within_tolerance or diverged)"));
    if (!o.value(QLatin1String("differences")).isArray())
        return std::unexpected(tr("its document has no list of differences"));
    r.tolerance = o.value(QLatin1String("tolerance")).toString();
    r.step = quint64(o.value(QLatin1String("step")).toDouble());
    r.steps = quint64(o.value(QLatin1String("steps")).toDouble());
    r.produced = o.value(QLatin1String("produced")).toString();
    for (const QJsonValue& v : o.value(QLatin1String("differences")).toArray()) {
        const QJsonObject d = v.toObject();
        Difference diff;
        diff.path = d.value(QLatin1String("path")).toString();
        diff.status = d.value(QLatin1String("status")).toString();
        diff.aboveTolerance = d.value(QLatin1String("above_tolerance")).toBool(true);
        // Tensors carry max_abs/rel_l2 (null when not finite); state fields carry later/resumed instead.
        diff.isState = !d.contains(QLatin1String("max_abs")) && !d.contains(QLatin1String("rel_l2"));
        diff.maxAbs = optionalNumber(d.value(QLatin1String("max_abs")));
        diff.relL2 = optionalNumber(d.value(QLatin1String("rel_l2")));
        diff.later = sideText(d.value(QLatin1String("later")));
        diff.resumed = sideText(d.value(QLatin1String("resumed")));
        r.differences.push_back(std::move(diff));
    }
    return r;
}

bool VerifyRunner::isRunning() const { return m_process && m_process->state() != QProcess::NotRunning; }

bool VerifyRunner::start(const Request& request)
{
    if (isRunning()) {
        Q_EMIT failed(tr("A verification is already running."));
        return false;
    }
    if (request.record.isEmpty() || request.against.isEmpty() || request.profile.isEmpty()) {
        Q_EMIT failed(tr("Verifying a resumption needs a record, a later checkpoint to compare with and a resume profile."));
        return false;
    }
    if (!QFileInfo(m_program).isExecutable()) {
        Q_EMIT failed(tr("The command line tool %1 is missing or not executable: it runs the verification.").arg(m_program));
        return false;
    }
    const QString settingsFile = QSettings().fileName();
    const auto configHome = configHomeFor(settingsFile);
    if (!configHome) {
        Q_EMIT failed(tr("ckpt reads resume profiles beside $XDG_CONFIG_HOME%1, but this app keeps them beside %2.").arg(kCliSettingsSuffix, settingsFile));
        return false;
    }
    if (m_process)
        m_process->deleteLater();
    m_request = request;
    m_report.reset();
    m_pendingError.clear();
    m_firstErrorLine.clear();
    m_cancelled = false;
    m_process = new QProcess(this);
    connect(m_process, &QProcess::started, this, &VerifyRunner::started);
    connect(m_process, &QProcess::readyReadStandardError, this, [this] { readErrors(false); });
    connect(m_process, &QProcess::finished, this, &VerifyRunner::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &VerifyRunner::onError);
    // ckpt finds the profiles below XDG_CONFIG_HOME: point it at this app's settings, wherever QSettings keeps them.
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert(QStringLiteral("XDG_CONFIG_HOME"), *configHome);
    m_process->setProcessEnvironment(environment);
    // Its own process group: cancel() then reaches the trainer ckpt started too, not only ckpt.
    m_process->setChildProcessModifier([] { ::setpgid(0, 0); });
    m_process->start(m_program, arguments(request)); // argument list: no shell
    return true;
}

void VerifyRunner::killGroup()
{
    const qint64 pid = m_process ? m_process->processId() : 0;
    if (pid > 0)
        ::kill(-pid_t(pid), SIGKILL);
    if (m_process)
        m_process->kill(); // in case the group was not made
}

void VerifyRunner::cancel()
{
    if (!isRunning())
        return;
    m_cancelled = true;
    // SIGTERM first: ckpt passes it on to the resumption, removes its temporary directory and exits;
    // the group is killed only if that takes longer than a few seconds.
    const qint64 pid = m_process->processId();
    if (pid > 0)
        ::kill(-pid_t(pid), SIGTERM);
    QTimer::singleShot(5000, m_process, [this, pid] {
        if (m_process && m_process->state() != QProcess::NotRunning && m_process->processId() == pid) // not a later verify
            killGroup();
    });
}

void VerifyRunner::readErrors(bool flush)
{
    m_process->setReadChannel(QProcess::StandardError);
    m_pendingError += m_process->readAll();
    if (flush && !m_pendingError.isEmpty() && !m_pendingError.endsWith('\n'))
        m_pendingError += '\n';
    qsizetype nl;
    while ((nl = m_pendingError.indexOf('\n')) >= 0) {
        const QString line = QString::fromUtf8(m_pendingError.constData(), nl).trimmed();
        m_pendingError.remove(0, nl + 1);
        if (line.isEmpty())
            continue;
        if (m_firstErrorLine.isEmpty()) // ckpt's first line says what failed; the rest is the command and the trainer's tail
            m_firstErrorLine = line;
        Q_EMIT outputAvailable(line);
    }
}

void VerifyRunner::onError(QProcess::ProcessError error)
{
    if (error != QProcess::FailedToStart)
        return; // crashes and exits end in onFinished
    Q_EMIT failed(tr("Could not start %1: %2").arg(m_program, m_process->errorString()));
    Q_EMIT finished(false, false);
}

void VerifyRunner::onFinished(int exitCode, QProcess::ExitStatus status)
{
    readErrors(true);
    const QByteArray out = m_process->readAllStandardOutput();
    if (m_cancelled) {
        Q_EMIT finished(false, true);
        return;
    }
    const QString name = QFileInfo(m_program).fileName();
    if (status == QProcess::CrashExit) {
        Q_EMIT failed(tr("%1 crashed (%2).").arg(name, m_process->errorString()));
    } else if (exitCode != 0) {
        Q_EMIT failed(m_firstErrorLine.isEmpty() ? tr("%1 exited with code %2.").arg(name, QString::number(exitCode))
                                                 : tr("%1 exited with code %2: %3").arg(name, QString::number(exitCode), m_firstErrorLine));
    } else if (auto report = parseReport(out)) {
        m_report = std::move(*report);
        Q_EMIT verified(*m_report);
        Q_EMIT finished(true, false);
        return;
    } else {
        Q_EMIT failed(tr("%1 ended normally, but %2.").arg(name, report.error()));
    }
    Q_EMIT finished(false, false);
}

} // namespace ckpt::ui
