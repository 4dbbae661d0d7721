// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QByteArray>
#include <QList>
#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <expected>
#include <optional>

namespace ckpt::ui {

/**
 * Runs `ckpt verify-resume RECORD --against LATER --profile NAME --tolerance T --json` (cli-contract.md,
 * "Repair and verify") as a child process and reads its JSON document. The app does not link the CLI:
 * the command is the `ckpt` installed beside the app, started as an argument list, never through a shell.
 *
 * `--profile` makes ckpt read the resume profiles from core's store, at
 * $XDG_CONFIG_HOME/CheckpointInspector/resume-profiles.json (core/run/resumeprofiles.h), which the app
 * keeps beside its settings file. The runner gives ckpt the XDG_CONFIG_HOME under which this app's
 * QSettings file actually lives, so the two read the same store wherever QSettings was pointed
 * (QSettings::setPath, test mode).
 *
 * Every start() that returns true ends in exactly one finished(); before it comes verified() with the
 * parsed document, or failed() with one message (ckpt could not start, crashed, exited non-zero, or
 * printed something that is not its document). cancel() kills ckpt and its resumption (they run in
 * their own process group) and is reported as cancelled, never as a failure.
 */
class VerifyRunner : public QObject
{
    Q_OBJECT
public:
    struct Request {
        QString record;   ///< the checkpoint to resume from
        QString against;  ///< the later checkpoint of the same run the resumption must reproduce
        QString profile;  ///< the resume profile's name (a local one: ckpt refuses Slurm profiles)
        QString tolerance = QStringLiteral("exact"); ///< exact, strict or relaxed
    };
    /** One entry of the document's `differences`: a tensor (max_abs, rel_l2) or a state field (later, resumed). */
    struct Difference {
        QString path;
        QString status;
        std::optional<double> maxAbs, relL2; ///< none for state fields, and where ckpt wrote null (non-finite)
        bool aboveTolerance = true;
        bool isState = false;
        QString later, resumed;              ///< a state field's JSON text on each side ("" when absent)
    };
    /** The verify-resume document. */
    struct Report {
        QString verdict;   ///< identical, within_tolerance or diverged
        QString tolerance;
        quint64 step = 0;  ///< LATER's step, where the resumption stopped
        quint64 steps = 0; ///< how many steps were trained
        QString produced;  ///< the resumed checkpoint, relative to its temporary run directory
        QList<Difference> differences;
    };

    explicit VerifyRunner(QObject* parent = nullptr);
    /** Kills a still running verification and waits for ckpt: no child outlives the runner. */
    ~VerifyRunner() override;

    /** ckpt beside the running executable (QCoreApplication::applicationDirPath()). */
    static QString defaultProgram();
    void setProgram(const QString& program) { m_program = program; }
    QString program() const { return m_program; }

    /** ckpt's arguments for \a request. */
    static QStringList arguments(const Request& request);
    /**
     * The XDG_CONFIG_HOME under which ckpt finds \a settingsFile (the app's QSettings file name), or
     * nullopt when ckpt cannot read it from anywhere (another organisation or application name, or a
     * format other than the native INI).
     */
    static std::optional<QString> configHomeFor(const QString& settingsFile);
    /** The document ckpt prints with --json, or why \a json is not one. */
    static std::expected<Report, QString> parseReport(const QByteArray& json);

    /** Starts ckpt; false (with failed() emitted, no finished()) if one is running or the request is incomplete. */
    bool start(const Request& request);
    /** Kills ckpt and the resumption it started. No-op when idle. */
    void cancel();
    bool isRunning() const;
    const Request& request() const { return m_request; }
    /** The document of the last verification that succeeded. */
    const std::optional<Report>& report() const { return m_report; }

Q_SIGNALS:
    void started();
    /** A line ckpt wrote on stderr (its failure explanation: the command, the trainer's last lines). */
    void outputAvailable(const QString& line);
    void verified(const ckpt::ui::VerifyRunner::Report& report);
    void failed(const QString& error);
    /** ckpt ended; \a ok when a document was read, \a cancelled when cancel() ended it. */
    void finished(bool ok, bool cancelled);

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void readErrors(bool flush);
    void killGroup();

    QProcess* m_process = nullptr;
    QString m_program;
    Request m_request;
    std::optional<Report> m_report;
    QByteArray m_pendingError;
    QString m_firstErrorLine;
    bool m_cancelled = false;
};

} // namespace ckpt::ui
