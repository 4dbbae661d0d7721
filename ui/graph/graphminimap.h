// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QGraphicsView>
#include <QImage>
#include <QRectF>

class QGraphicsRectItem;
class QGraphicsScene;

namespace ckpt::ui {

class GraphCanvas;

/**
 * Overview of the whole graph: a QGraphicsView over its own scene whose background is a cached
 * rendering of the main scene (re-rendered on demand, not per frame: 100,000 nodes stay cheap), with
 * the main view's visible rectangle drawn on top. Clicking or dragging centres the main view there.
 */
class GraphMinimap : public QGraphicsView
{
    Q_OBJECT
public:
    GraphMinimap(QGraphicsScene* source, GraphCanvas* canvas, QWidget* parent = nullptr);
    /** Re-renders the overview (after the graph, its collapsed groups or its highlights changed). */
    void refresh();
    /** Follows the main view's visible rectangle. */
    void updateViewRect();
    QRectF viewRect() const;
    const QImage& overview() const { return m_overview; }

protected:
    void drawBackground(QPainter* painter, const QRectF& rect) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

private:
    QGraphicsScene* m_source;
    GraphCanvas* m_canvas;
    QGraphicsRectItem* m_rect;
    QImage m_overview;
    QRectF m_bounds;
};

} // namespace ckpt::ui
