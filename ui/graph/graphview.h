// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/workspace/workspace.h"

#include <QGraphicsView>
#include <QWidget>

class QGraphicsScene;
class QLabel;
class QPlainTextEdit;

namespace ckpt::ui {

/** The view: wheel zoom around the cursor, drag to pan, fit. */
class GraphCanvas : public QGraphicsView
{
    Q_OBJECT
public:
    explicit GraphCanvas(QWidget* parent = nullptr);
    void zoomBy(double factor);
    void fit();

    /** Keep fitting the whole graph on resizes until the user zooms. */
    void setAutoFit(bool on) { m_autoFit = on; }

protected:
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    bool m_autoFit = true;
};

/**
 * A GradientCheckpoint's computation graph over core/graph's layout. Nodes are drawn as boxes with
 * their op; below a zoom threshold only plain boxes (no text). The loss's provenance chain is
 * highlighted; a clicked node highlights its consumers and shows its details.
 */
class GraphView : public QWidget
{
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;
    void setGraph(std::shared_ptr<const GraphData> graph);
    int nodeItemCount() const;
    /** Selects a node by id (also used by search); false if there is none. */
    bool selectNode(const QString& id);
    QString exportImage(const QString& path);

private:
    void showNode(int index);
    std::shared_ptr<const GraphData> m_graph;
    QGraphicsScene* m_scene;
    GraphCanvas* m_canvas;
    QLabel* m_info;
    QPlainTextEdit* m_detail;
};

} // namespace ckpt::ui
