// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/graph/graphcanvas.h"

#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QStyle>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace ckpt::ui {

GraphCanvas::GraphCanvas(QWidget* parent)
    : QGraphicsView(parent)
{
    setDragMode(QGraphicsView::ScrollHandDrag);
    setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    setRenderHint(QPainter::Antialiasing);
    setViewportUpdateMode(QGraphicsView::BoundingRectViewportUpdate);
}

void GraphCanvas::zoomBy(double factor)
{
    m_autoFit = false;
    scale(factor, factor);
    Q_EMIT viewportChanged();
}

void GraphCanvas::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    Q_EMIT resized();
    if (m_autoFit)
        fit();
    Q_EMIT viewportChanged();
}

void GraphCanvas::scrollContentsBy(int dx, int dy)
{
    QGraphicsView::scrollContentsBy(dx, dy);
    Q_EMIT viewportChanged();
}

void GraphCanvas::mouseDoubleClickEvent(QMouseEvent* event)
{
    if (QGraphicsItem* item = itemAt(event->pos())) {
        Q_EMIT itemDoubleClicked(item);
        event->accept();
        return;
    }
    QGraphicsView::mouseDoubleClickEvent(event);
}

QRectF GraphCanvas::visibleSceneRect() const
{
    return mapToScene(viewport()->rect()).boundingRect();
}

void GraphCanvas::fit()
{
    if (scene()) {
        const QRectF all = scene()->itemsBoundingRect();
        // fitInView() would fit into the viewport as the scroll bars leave it. Called from resizeEvent,
        // that loops when the new scale makes the bars come or go: they resize the viewport, which
        // fits anew, and so on forever (as Qt's documentation of fitInView warns). The fit here is
        // into a room the bars do not change: the viewport's largest size less both bars, so the
        // whole graph shows whether they are there or not. The 2-pixel margin is fitInView's own.
        const int bar = style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
        const QSizeF room = QSizeF(maximumViewportSize()) - QSizeF(bar + 4, bar + 4);
        if (!all.isEmpty() && room.width() > 0 && room.height() > 0) {
            const double fitted = std::min(room.width() / all.width(), room.height() / all.height());
            setTransform(QTransform::fromScale(fitted, fitted));
            centerOn(all.center());
        }
        // A graph of a few boxes fitted into a short canvas shrinks its labels until they are elided
        // ("matm…"): such a graph is shown at a readable scale from its top and scrolls instead. A
        // larger one keeps the whole-graph fit; its overview reads through groups and semantic zoom.
        constexpr double ReadableScale = 0.75;
        constexpr qsizetype SmallSceneItems = 150;
        // Text is drawn at screen size: a graph of three boxes fitted into a large canvas would be three
        // huge boxes with small text in their middles. Such a graph stays at about its natural size.
        constexpr double LargestFitScale = 1.25;
        if (transform().m11() > LargestFitScale) {
            setTransform(QTransform::fromScale(LargestFitScale, LargestFitScale));
            centerOn(all.center());
        }
        if (transform().m11() < ReadableScale && scene()->items().size() <= SmallSceneItems) {
            setTransform(QTransform::fromScale(ReadableScale, ReadableScale));
            const QRectF seen = visibleSceneRect();
            centerOn(all.center().x(), all.top() + seen.height() / 2 - 10);
        }
    }
    Q_EMIT viewportChanged();
}

void GraphCanvas::wheelEvent(QWheelEvent* event)
{
    zoomBy(std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

} // namespace ckpt::ui
