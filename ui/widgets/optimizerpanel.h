// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/workspace/workspace.h"

#include <QWidget>

class QGridLayout;
class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTreeView;

namespace ckpt::ui {

class CheckpointDocument;
class HistogramPlot;
class OptimizerStateModel;

/**
 * Optimizer entries per parameter (step/time, moments, AMSGrad max) with their forensics (flags and
 * Adam's effective step, computed in the background: `ckpt optimizer`'s engine); the selected
 * parameter's histograms side by side with those of its state tensors and pending gradient.
 */
class OptimizerPanel : public QWidget
{
    Q_OBJECT
public:
    explicit OptimizerPanel(CheckpointDocument* doc, QWidget* parent = nullptr);
    /** Selects the entry of a parameter; false if the optimizer has none. */
    bool selectParam(const QString& id);
    QString selectedParam() const { return m_param; }
    OptimizerStateModel* model() const { return m_model; }
    QTreeView* view() const { return m_view; }
    int plotCount() const;
    bool isBusy() const { return m_pending > 0; }
    /** The text above the plots: the selected parameter and its forensics, or the suspects' count. */
    QString caption() const;
    /** The record holding the optimizer entry of parameter \a id, -1 if none. */
    int optimizerRecordOf(const QString& id) const;

public Q_SLOTS:
    /** Surgery: removes the selected parameter's optimizer state (Burn re-initialises it), an undoable step. */
    void resetSelectedOptimizerState();
    /** Surgery: every NaN/Inf element of the optimizer moments of the selected parameter's record becomes 0. */
    void zeroNonFiniteMoments();

Q_SIGNALS:
    void paramSelected(const QString& id);
    void tensorActivated(const ckpt::ui::TensorRef& ref);
    void idle();

private:
    void showParam(const QString& id);
    /** Starts the optimizer forensics of every open record with optimizer state, in the background. */
    void computeForensics();
    QString forensicsLine(int row) const;
    void showCaption(const QString& id);
    void showContextMenu(const QPoint& pos);
    QString idleCaption() const;
    CheckpointDocument* const m_doc;
    OptimizerStateModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTreeView* m_view;
    QLineEdit* m_filter;
    QLabel* m_caption;
    QWidget* m_plotsHost;
    QGridLayout* m_plots;
    QString m_param;
    quint64 m_generation = 0;
    quint64 m_workspaceGeneration = 0; ///< forensics of an older workspace are dropped
    int m_pending = 0;
};

} // namespace ckpt::ui
