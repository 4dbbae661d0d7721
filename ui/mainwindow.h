// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/async/statsjob.h"
#include "ui/workspace/workspace.h"

#include <QFutureWatcher>
#include <QHash>
#include <QMainWindow>
#include <QSet>

class QDockWidget;
class QLabel;
class QLineEdit;
class QMenu;
class QFileSystemWatcher;
class QPlainTextEdit;
class QProgressBar;
class QSortFilterProxyModel;
class QTableView;
class QToolButton;
class QTreeView;

namespace ckpt::ui {

class CheckpointDocument;
class DiffPanel;
class GraphView;
class LearningRateCurveWidget;
class LossPlotWidget;
class OptimizerPanel;
class ResumePanel;
class RecordTreeModel;
class RunPanel;
class TensorDetailWidget;
class TensorTableModel;

/**
 * The main window: dockable panels over one CheckpointDocument. Loading and statistics run in
 * workers (progress + cancel in the status bar); the newest request wins and older results are
 * dropped. Errors are listed in the Messages panel with the core's full message.
 */
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /** Opens files and run directories together as one workspace (replacing the current one). */
    void openPaths(const QStringList& paths, bool lenient = false); ///< lenient: "Open Damaged File…"
    /** Opens two records and shows their differences in the Diff panel. */
    void openDiff(const QString& a, const QString& b);
    /**
     * Opens two checkpoints of a run in a worker and shows their diff, with \a tensorPath selected
     * when the table has it (the Run panel's heatmap cells). GradientCheckpoints are compared as graphs.
     */
    void compareCheckpoints(const QString& a, const QString& b, const QString& tensorPath);
    /** Raises a panel by its CLI name (tree, tensors, optimizer, scheduler, state, graph, loss, diff, resume, run). */
    bool raisePanel(const QString& name);
    static QStringList panelNames();
    /** No load, statistics or detail job is running. */
    bool isIdle() const;

    CheckpointDocument* document() const { return m_doc; }
    QTreeView* recordView() const { return m_recordView; }
    QTableView* tensorView() const { return m_tensorView; }
    TensorTableModel* tensorModel() const { return m_tensorModel; }
    TensorDetailWidget* detail() const { return m_detail; }
    OptimizerPanel* optimizerPanel() const { return m_optimizer; }
    QTreeView* stateView() const { return m_stateView; }
    LossPlotWidget* lossPlot() const { return m_loss; }
    LearningRateCurveWidget* learningRateCurve() const { return m_lrCurve; }
    DiffPanel* diffPanel() const { return m_diff; }
    ResumePanel* resumePanel() const { return m_resume; }
    RunPanel* runPanel() const { return m_run; }
    GraphView* graphView() const { return m_graph; }
    QPlainTextEdit* messages() const { return m_messages; }
    /** The watchdog's warning in the status bar: background work that made no progress for a while; empty when none. */
    QString watchdogText() const;
    QLineEdit* searchBox() const { return m_search; }

    /** Cross-links: every panel follows. */
    void selectParam(const QString& id);
    void selectTensor(TensorRef ref);
    /** Finds the next name, id, CID or value containing \a text; false if none. */
    bool find(const QString& text);
    /** Appends to the Messages panel and shows it. */
    void logMessage(const QString& text, bool error = false);

Q_SIGNALS:
    void idle();
    void loadFinished();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createActions();
    void createDocks();
    // createDocks' parts (mainwindowdocks.cpp), in this order
    void createRecordDocks();
    void createStateDocks();
    void createRunDocks();
    void createBottomDocks();
    void connectCrossLinks();
    /** Fills the panels' headers, the graph and the loss from the document's new workspace. */
    void showWorkspace();
    void onWorkspaceLoaded(Workspace ws);
    void startStats();
    void selectFirstTensor();
    void updateLearningRateCurve();
    void checkIdle();
    void checkWatchdog();
    /** Watches the opened files: a change on disk is said once, a mapping read past a truncation too. */
    void watchOpenedFiles();
    void onOpenedFileChanged(const QString& path);
    void reportTruncatedMappings();
    void updateTitle();
    void addRecent(const QStringList& paths);
    void rebuildRecentMenu();
    bool maybeSave();
    /** Edit ▸ Surgery: the operations of `ckpt patch` on the opened record, each an undoable step. */
    void buildSurgeryMenu(QMenu* surgery);
    void saveDocument(bool saveAs);
    QDockWidget* addPanel(const QString& name, const QString& title, QWidget* widget, Qt::DockWidgetArea area);
    /** Puts the Run panel in front with most of the height (a run directory was opened). */
    void showRunPanel();

    CheckpointDocument* m_doc;
    RecordTreeModel* m_recordModel;
    QSortFilterProxyModel* m_recordProxy;
    QTreeView* m_recordView;
    TensorTableModel* m_tensorModel;
    QSortFilterProxyModel* m_tensorProxy;
    QTableView* m_tensorView;
    TensorDetailWidget* m_detail;
    OptimizerPanel* m_optimizer;
    RecordTreeModel* m_schedulerModel;
    QTreeView* m_schedulerView;
    QLabel* m_schedulerInfo;
    LearningRateCurveWidget* m_lrCurve;
    RecordTreeModel* m_stateModel;
    QTreeView* m_stateView;
    QLabel* m_stateInfo;
    LossPlotWidget* m_loss;
    GraphView* m_graph;
    DiffPanel* m_diff;
    ResumePanel* m_resume;
    RunPanel* m_run;
    bool m_raiseRun = false;          ///< a run directory is being opened: its Run panel comes to the front once it is loaded
    bool m_raiseRunOnList = false;    ///< ... and once its checkpoints are listed (whichever is later raises it last)
    bool m_checkpointDiffLoading = false; ///< compareCheckpoints() is opening its two records
    quint64 m_checkpointDiffGeneration = 0;
    QString m_diffSelectPath;         ///< the tensor to select once the diff's rows are there
    bool m_diffPending = false;
    QStringList m_hiddenForGraph; ///< bottom panels that stepped aside for a graph-only workspace
    QStringList m_diffPaths; ///< the two files of --diff / File > Compare (GradientCheckpoints are compared from their files)
    QPlainTextEdit* m_messages;
    QLineEdit* m_search;
    QProgressBar* m_progress;
    QToolButton* m_cancel;
    QLabel* m_status;
    QLabel* m_watchdog;               ///< background work that stopped moving (ui/async/activity.h)
    QSet<QString> m_stallsReported;   ///< activities stalled now and already said in Messages
    QMenu* m_recentMenu;
    QHash<QString, QDockWidget*> m_panels;
    QFileSystemWatcher* m_fileWatcher;
    QSet<QString> m_changeReported;   ///< opened files whose change on disk was already said
    QSet<QString> m_zerosReported;    ///< opened files whose truncated mapping was already said
    QHash<QString, QString> m_ownWrites; ///< opened file -> size and time of our own last save over it

    QFutureWatcher<Workspace> m_loadWatcher;
    QFutureWatcher<StatsBatch> m_statsWatcher;
    quint64 m_loadGeneration = 0;
    bool m_loading = false;
    bool m_statsRunning = false;
    bool m_settling = false;        ///< a loaded workspace's later steps (statistics, first selection) are queued
    quint64 m_openGeneration = 0;   ///< which loaded workspace those queued steps belong to
    bool m_syncing = false;   ///< a cross-link update is in progress: do not echo it back
    QString m_lastSearch;
    int m_searchHit = -1;
};

} // namespace ckpt::ui
