// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/graph/graphminimap.h"

#include "ui/graph/graphcanvas.h"

#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QMouseEvent>
#include <QPainter>
#include <QResizeEvent>

#include <algorithm>

namespace ckpt::ui {

GraphMinimap::GraphMinimap(QGraphicsScene* source, GraphCanvas* canvas, QWidget* parent)
    : QGraphicsView(parent)
    , m_source(source)
    , m_canvas(canvas)
{
    setObjectName(QStringLiteral("graphMinimap"));
    setScene(new QGraphicsScene(this));
    m_rect = scene()->addRect(QRectF(), QPen(QColor(214, 39, 40), 0), QColor(214, 39, 40, 40));
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setInteractive(false);
    setFrameShape(QFrame::Box);
    setMinimumSize(120, 90);
    setToolTip(tr("Overview: click or drag to move the view"));
    connect(canvas, &GraphCanvas::viewportChanged, this, &GraphMinimap::updateViewRect);
}

void GraphMinimap::refresh()
{
    m_bounds = m_source->itemsBoundingRect();
    m_overview = QImage();
    if (m_bounds.isEmpty()) {
        scene()->setSceneRect(QRectF(0, 0, 1, 1));
        viewport()->update();
        return;
    }
    // one rendering at about the widget's resolution; the nodes paint as plain rects at this scale
    const double longest = std::max(m_bounds.width(), m_bounds.height());
    const double scale = std::min(1.0, 480.0 / longest);
    m_overview = QImage((m_bounds.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32_Premultiplied);
    m_overview.fill(Qt::white);
    QPainter p(&m_overview);
    m_source->render(&p, QRectF(m_overview.rect()), m_bounds);
    p.end();
    scene()->setSceneRect(m_bounds);
    fitInView(m_bounds, Qt::KeepAspectRatio);
    updateViewRect();
    viewport()->update();
}

void GraphMinimap::updateViewRect()
{
    m_rect->setRect(m_canvas->visibleSceneRect().intersected(m_bounds.isEmpty() ? QRectF() : m_bounds.adjusted(-1e6, -1e6, 1e6, 1e6)));
}

QRectF GraphMinimap::viewRect() const
{
    return m_rect->rect();
}

void GraphMinimap::drawBackground(QPainter* painter, const QRectF& rect)
{
    painter->fillRect(rect, palette().base());
    if (!m_overview.isNull())
        painter->drawImage(m_bounds, m_overview);
}

void GraphMinimap::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (!m_bounds.isEmpty())
        fitInView(m_bounds, Qt::KeepAspectRatio);
}

void GraphMinimap::mousePressEvent(QMouseEvent* event)
{
    m_canvas->setAutoFit(false);
    m_canvas->centerOn(mapToScene(event->pos()));
    event->accept();
}

void GraphMinimap::mouseMoveEvent(QMouseEvent* event)
{
    if (event->buttons() & Qt::LeftButton)
        m_canvas->centerOn(mapToScene(event->pos()));
    event->accept();
}

} // namespace ckpt::ui
