// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QPointer>
#include <QProcess>
#include <QStringList>
#include <QTimer>

namespace ckpt::ui {

/**
 * The Run panel's "Scan on cluster": `ckpt timeline RUN --slurm --profile NAME [--tasks N] --work DIR`
 * run by the `ckpt` beside the app (an argument vector; XDG_CONFIG_HOME pointing ckpt at the resume
 * profiles stored beside the app's settings), and the work directory watched once a second for the
 * shares' partial files, which partialsArrived() hands on as they come (the panel merges them so far).
 * finished() tells the end: ok (every partial in, the merge job done) or the error ckpt printed.
 */
class ClusterScan : public QObject
{
    Q_OBJECT
public:
    struct Request {
        QString run;       ///< the run directory
        QString profile;   ///< a Slurm resume profile's name
        int tasks = 0;     ///< 0: ckpt's default (one per checkpoint, at most 32)
    };
    explicit ClusterScan(QObject* parent = nullptr);
    ~ClusterScan() override;

    bool start(const Request& request);
    /** SIGTERM to ckpt, which cancels both Slurm jobs. */
    void cancel();
    bool isRunning() const;
    /** Where the scripts, logs and partials go: RUN/.ckpt-timeline-slurm/app-STAMP. */
    QString workDirectory() const { return m_work; }
    /** The partial files there so far, in share order. */
    QStringList partials() const { return m_partials; }
    /** ckpt's program (tests point it elsewhere). */
    void setProgram(const QString& program) { m_program = program; }

Q_SIGNALS:
    void progress(const QString& line);
    void partialsArrived(const QStringList& partials);
    void finished(bool ok, const QString& error);

private:
    void poll();
    QString m_program;
    QString m_work;
    QStringList m_partials;
    QPointer<QProcess> m_process;
    QTimer m_poll;
    QByteArray m_stderr;
};

} // namespace ckpt::ui
