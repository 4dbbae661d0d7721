// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/process/resumerunner.h"
#include "ui/workspace/workspace.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTreeWidget;

namespace ckpt::ui {

/**
 * Resume training from the open TrainingRecord: core's checkResume() checklist, the run directory
 * and step target, Start/Stop around a ResumeRunner, and the trainer's live log. Errors of the
 * checklist disable Start. Step lines are forwarded (stepReported) for the loss plot; runFinished
 * tells the window to reload the run directory.
 */
class ResumePanel : public QWidget
{
    Q_OBJECT
public:
    explicit ResumePanel(QWidget* parent = nullptr);
    /** Shows the checks of the workspace's resumable record (the first TrainingRecord with caller state). */
    void setWorkspace(const Workspace& ws);

    ResumeRunner* runner() const { return m_runner; }
    QTreeWidget* checks() const { return m_checks; }
    QPlainTextEdit* log() const { return m_log; }
    QPushButton* startButton() const { return m_start; }
    QPushButton* stopButton() const { return m_stop; }
    QLineEdit* outDirEdit() const { return m_outDir; }
    QSpinBox* stepsBox() const { return m_steps; }
    QString recordPath() const { return m_record; }
    /** Micro-batch steps per epoch of the record's run (dataset_size / batch_size), 0 if unknown. */
    quint64 stepsPerEpoch() const { return m_stepsPerEpoch; }
    /** Default run directory for a record: DIR for DIR/checkpoint/record-N.*, else the record's folder. */
    static QString runDirectoryOf(const QString& recordPath);

public Q_SLOTS:
    void start();
    void stop();

Q_SIGNALS:
    void stepReported(quint64 step, double loss, double lr);
    void runStarted();
    /** The trainer ended (normally, stopped, or failed) and \a outDir may hold new checkpoints. */
    void runFinished(const QString& outDir, bool ok);
    void message(const QString& text, bool error);

private:
    void updateButtons();
    ResumeRunner* m_runner;
    QLabel* m_title;
    QTreeWidget* m_checks;
    QLineEdit* m_outDir;
    QSpinBox* m_steps;
    QPushButton* m_start;
    QPushButton* m_stop;
    QLabel* m_status;
    QPlainTextEdit* m_log;
    QString m_record;
    quint64 m_recordStep = 0;
    quint64 m_stepsPerEpoch = 0;
    bool m_blocked = true;     ///< no record, or a checklist error
    bool m_failed = false;
};

} // namespace ckpt::ui
