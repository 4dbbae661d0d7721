// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/process/resumeprofile.h"

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

class QTimer;

namespace ckpt::ui {

/**
 * Runs a resume profile (by default `ckpt-train --resume RECORD --out RUN_DIR [--steps N]`,
 * cli-contract.md) as a child process: an argument list, never a shell. Output arrives line by line; the trainer's `step=N loss=X lr=Y`
 * lines are parsed and reported as steps.
 *
 * A Slurm profile submits the same argument list as a batch job instead (sbatch, script and output
 * files in RUN_DIR/slurm/), follows it with squeue, tails its .out and .err files as stdout and stderr, reads
 * the final state with sacct (scontrol when the cluster keeps no accounting), and stop() is scancel.
 *
 * Every start() that returns true ends in exactly one finished(); a run that could not start,
 * crashed or exited non-zero reports failed() first. stop() asks politely (SIGTERM: ckpt-train writes
 * a checkpoint at its current step and exits 0) and kills after a timeout; a run ended by stop() is
 * reported as stopped, never as a crash.
 */
class ResumeRunner : public QObject
{
    Q_OBJECT
public:
    struct Request {
        QString record;                ///< the TrainingRecord or GradientCheckpoint to resume from
        QString outDir;                ///< run directory to write into
        std::optional<quint64> steps;  ///< total step count to reach (ckpt-train's --steps)
        ResumeProfile profile = ResumeProfile::defaultProfile();
        quint64 recordStep = 0;        ///< the {step} placeholder
    };
    struct StepLine {
        quint64 step = 0;
        double loss = 0;
        double lr = 0;
    };

    explicit ResumeRunner(QObject* parent = nullptr);
    /** Kills a still running trainer and waits for it: no child outlives the runner. */
    ~ResumeRunner() override;

    /** ckpt-train beside the running executable (QCoreApplication::applicationDirPath()). */
    static QString defaultProgram();
    void setProgram(const QString& program) { m_program = program; }
    QString program() const { return m_program; }
    /** How long stop() waits after SIGTERM before it kills. */
    void setStopTimeout(int ms) { m_stopTimeoutMs = ms; }
    /** How often a Slurm job is polled (squeue, output file). */
    void setPollInterval(int ms) { m_pollMs = ms; }
    /** The Slurm job id of the current or last run (empty for local runs). */
    QString jobId() const { return m_jobId; }
    /** The batch script and output file of the current or last Slurm run. */
    QString slurmScriptPath() const { return m_scriptPath; }
    QString slurmOutputPath() const { return m_outputPath; }
    QString slurmErrorPath() const { return errorPathOf(m_outputPath); }

    /** The exact argument list for \a request. */
    static QStringList arguments(const Request& request);
    /** The placeholder values of \a request ({dir} is the record's folder). */
    static PlaceholderValues placeholders(const Request& request);
    /** Program, arguments, environment and working directory the request runs with. */
    ResolvedCommand command(const Request& request) const;
    /** Parses one `step=N loss=X lr=Y` line (nullopt for any other line). */
    static std::optional<StepLine> parseStepLine(QStringView line);

    /** Starts a run; false (with failed() emitted) if one is running or the request is incomplete. */
    bool start(const Request& request);
    /** Terminates the run (SIGTERM), then kills it after the stop timeout. No-op when idle. */
    void stop();
    bool isRunning() const;
    /** Whether the current or last run was ended by stop(). */
    bool stopRequested() const { return m_stopRequested; }
    const Request& request() const { return m_request; }
    /** The last step line of the current or last run. */
    std::optional<StepLine> lastStep() const { return m_lastStep; }

Q_SIGNALS:
    void started();
    /** A Slurm job changed state (PENDING, RUNNING, COMPLETING, then its final state). */
    void jobStateChanged(const QString& jobId, const QString& state);
    /** One line of the trainer's output (stdout, or stderr when \a isError). */
    void outputAvailable(const QString& line, bool isError);
    void stepReported(quint64 step, double loss, double lr);
    /** The run ended: exit code (-1 after a kill), and whether stop() ended it. */
    void finished(int exitCode, bool stoppedByUser);
    /** The run could not start, crashed, or exited non-zero; \a error says which, with the trainer's last error line. */
    void failed(const QString& error);

private:
    void readChannel(QProcess::ProcessChannel channel);
    /** Splits \a bytes into lines for channel 0 (stdout) or 1 (stderr); \a flush ends a last partial line. */
    void consume(int channel, const QByteArray& bytes, bool flush = false);
    bool startSlurm(const Request& request, const ResolvedCommand& cmd);
    /** Runs a Slurm tool asynchronously (argument list); \a done gets its exit code, stdout and stderr. */
    void runTool(const QString& program, const QStringList& args, std::function<void(int, const QString&, const QString&)> done);
    void pollJob();
    void tailOutput();
    void finishJob(const QString& state, int exitCode);
    /** The job's stderr file beside its stdout file (resume-STAMP.out -> resume-STAMP.err). */
    static QString errorPathOf(const QString& outputPath);
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);

    QProcess* m_process = nullptr;
    QTimer* m_killTimer;
    QString m_program;
    QString m_runningProgram;
    Request m_request;
    QByteArray m_pending[2];     ///< partial lines per channel
    QString m_lastErrorLine;
    std::optional<StepLine> m_lastStep;
    int m_stopTimeoutMs = 5000;
    bool m_stopRequested = false;
    bool m_startFailed = false;
    // Slurm
    QTimer* m_pollTimer;
    int m_pollMs = 1000;
    bool m_slurm = false;
    bool m_jobActive = false;
    bool m_pollInFlight = false;
    QString m_jobId, m_jobState, m_scriptPath, m_outputPath;
    qint64 m_tailOffset[2] = {0, 0};
    QProcessEnvironment m_slurmEnvironment;
};

} // namespace ckpt::ui
