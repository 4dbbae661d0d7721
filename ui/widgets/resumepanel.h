// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/process/resumerunner.h"
#include "ui/process/verifyrunner.h"
#include "ui/workspace/workspace.h"

#include <QElapsedTimer>
#include <QHash>
#include <QWidget>

class QComboBox;
class QFormLayout;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTimer;
class QToolButton;
class QTreeWidget;

namespace ckpt::ui {

/**
 * Resume training from the open TrainingRecord or GradientCheckpoint (graph/step-N.json with its
 * CAR): a checklist (core's checkResume() for records; CAR, continuation state and block hashes for a
 * GradientCheckpoint), the run directory and step target, the resume profile (how it is launched,
 * kept in QSettings, edited in ResumeProfileDialog), Start/Stop around a ResumeRunner, and the live
 * log. Errors of the checklist disable Start. Step lines are forwarded (stepReported) for the loss
 * plot; runFinished tells the window to reload the run directory.
 *
 * "Verify resume…" proves a resumption reproduces the run: `ckpt verify-resume` (a VerifyRunner)
 * resumes the source through the selected profile into a temporary directory up to the step of a
 * later checkpoint of the same run (the "against" chooser) and compares the two at the chosen
 * tolerance. The verdict and the first differences are shown under the buttons.
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
    /** What can be resumed from the workspace: TrainingRecords with caller state, then the GradientCheckpoint. */
    QComboBox* sourceBox() const { return m_source; }
    QComboBox* profileBox() const { return m_profile; }
    QPushButton* profilesButton() const { return m_editProfiles; }
    /** The selected profile (the default one when the settings hold none). */
    ResumeProfile currentProfile() const;
    /** Rereads the profiles from QSettings (after another window changed them). */
    void reloadProfiles();
    /** Opens the profile dialog; its result is saved to QSettings when accepted. */
    void editProfiles();
    /** The request Start would run now. */
    ResumeRunner::Request currentRequest() const;
    QString recordPath() const { return m_record; }
    /** Micro-batch steps per epoch of the record's run (dataset_size / batch_size), 0 if unknown. */
    quint64 stepsPerEpoch() const { return m_stepsPerEpoch; }
    /** Default run directory: DIR for DIR/checkpoint/record-N.* and DIR/graph/step-N.json, else the file's folder. */
    static QString runDirectoryOf(const QString& recordPath);

    VerifyRunner* verifyRunner() const { return m_verifyRunner; }
    QPushButton* verifyButton() const { return m_verify; }
    QPushButton* cancelVerifyButton() const { return m_cancelVerify; }
    /** The later checkpoints of the source's run (step greater than the source's), the path as item data. */
    QComboBox* againstBox() const { return m_against; }
    /** exact, strict, relaxed (the name as item data). */
    QComboBox* toleranceBox() const { return m_tolerance; }
    /** The last verification's verdict, or why it failed. */
    QLabel* verdictLabel() const { return m_verdict; }
    /** The last verification's first differences: name (the path as ckpt gives it in Qt::UserRole), max |Δ|, rel L2, status. */
    QTreeWidget* differencesView() const { return m_differences; }
    /** The request Verify would run now. */
    VerifyRunner::Request currentVerifyRequest() const;
    /** Lists the later checkpoints of the source's run again (after the run directory changed). */
    void refreshAgainst();
    /** Rows shown in the differences table at most; the rest is counted in a last row. */
    static constexpr int MaxDifferencesShown = 50;

public Q_SLOTS:
    void start();
    void stop();
    void startVerify();
    void cancelVerify();

Q_SIGNALS:
    void stepReported(quint64 step, double loss, double lr);
    void runStarted();
    /** The trainer ended (normally, stopped, or failed) and \a outDir may hold new checkpoints. */
    void runFinished(const QString& outDir, bool ok);
    void message(const QString& text, bool error);
    /** A verification ended: \a ok when ckpt gave its verdict (whatever it is), false when it failed or was cancelled. */
    void verifyFinished(bool ok);

private:
    struct Check {
        QString name, status, detail;
    };
    struct Source {
        QString path;
        QString label;
        quint64 step = 0;
        quint64 stepsPerEpoch = 0;
        bool blocked = false;
        std::vector<Check> checks;
        /** Tensor path -> the name a researcher reads ("input.weight · moment_1"), for the differences of a verification. */
        QHash<QString, QString> tensorNames;
    };
    static Source graphSource(const GraphData& graph);
    // The constructor's steps, in order (widget creation order is the tab order).
    void setUpControls();
    QFormLayout* createForm(QToolButton* browse);
    QHBoxLayout* createButtonRow();
    void layOut(QFormLayout* form, QHBoxLayout* buttons);
    void connectControls(QToolButton* browse);
    void connectRunner();
    void connectVerifier();
    void showSource(int index);
    void showChecks(const std::vector<Check>& checks);
    void updateButtons();
    void showVerifyReport(const VerifyRunner::Report& report);
    void showVerifyFailure(const QString& error);
    std::vector<Source> m_sources;
    QList<ResumeProfile> m_profiles;
    QComboBox* m_source;
    QComboBox* m_profile;
    QPushButton* m_editProfiles;
    ResumeRunner* m_runner;
    QLabel* m_title;
    QTreeWidget* m_checks;
    QLineEdit* m_outDir;
    QSpinBox* m_steps;
    QPushButton* m_start;
    QPushButton* m_stop;
    QLabel* m_status;
    QPlainTextEdit* m_log;
    VerifyRunner* m_verifyRunner;
    QPushButton* m_verify;
    QPushButton* m_cancelVerify;
    QComboBox* m_against;
    QComboBox* m_tolerance;
    QLabel* m_verdict;
    QTreeWidget* m_differences;
    QTimer* m_verifyTicker;       ///< elapsed time in the status line while ckpt works silently
    QElapsedTimer m_verifyClock;
    QString m_record;
    quint64 m_recordStep = 0;
    quint64 m_stepsPerEpoch = 0;
    bool m_blocked = true;     ///< no record, or a checklist error
    bool m_failed = false;
};

} // namespace ckpt::ui
