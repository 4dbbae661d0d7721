// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/graph/graphitems.h"

#include <QFontMetrics>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>

namespace ckpt::ui::graph_detail {

UnitItem::UnitItem(uint32_t visible, HierarchyItem item, const LayoutNode& box, UnitText text)
    : m_visible(visible)
    , m_item(item)
    , m_rect(0, 0, box.width, box.height)
    , m_text(std::move(text))
{
    setPos(box.x, box.y);
    setFlag(ItemIsSelectable);
    setZValue(1);
    // a pan re-blits the box instead of laying out its text again; a zoom step renders it anew
    setCacheMode(DeviceCoordinateCache);
}

void UnitItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*)
{
    const qreal lod = option->levelOfDetailFromTransform(p->worldTransform());
    QColor fill = m_item.cluster ? QColor(232, 226, 248) : QColor(225, 235, 245);
    if (m_status.isValid())
        fill = m_status;
    else if (m_provenance && !m_item.cluster)
        fill = QColor(255, 200, 120);
    if (isSelected())
        fill = QColor(140, 185, 255);
    // Text shrinks with the zoom down to 8 px (boxes are sized for 11 px at zoom 1, so it still
    // fits them), then stays at 8 px
    const qreal textScale = std::clamp<qreal>(lod, 8.0 / 11.0, 1.0);
    const QSizeF screen = m_rect.size() * lod;
    if (screen.height() < 6) {
        p->fillRect(m_rect, fill);
        return;
    }
    QPen pen(m_item.cluster ? QColor(110, 80, 160) : QColor(60, 80, 110), m_item.cluster ? 1.5 : 1);
    pen.setCosmetic(true);
    if (m_provenance)
        pen = QPen(QColor(200, 110, 20), 2), pen.setCosmetic(true);
    p->setPen(pen);
    p->setBrush(fill);
    p->drawRoundedRect(m_rect, m_item.cluster ? 7 : 4, m_item.cluster ? 7 : 4);
    if (m_item.cluster) { // a second outline: a group is a stack of boxes
        QPen back(QColor(110, 80, 160, 120), 1);
        back.setCosmetic(true);
        p->setPen(back);
        p->drawLine(m_rect.topLeft() + QPointF(6, -3), m_rect.topRight() + QPointF(-6, -3));
    }
    if (screen.height() < 13)
        return;
    p->save();
    p->scale(textScale / lod, textScale / lod);
    const QRectF area = QRectF(QPointF(0, 0), screen / textScale).adjusted(5, 2, -5, -2);
    QFont font = p->font();
    font.setPixelSize(11);
    const int lineHeight = QFontMetrics(font).height();
    const int room = std::max(1, int(area.height() / lineHeight));
    QStringList shown{m_text.title};
    for (qsizetype i = 0; i < m_text.lines.size() && shown.size() < room; ++i)
        shown << m_text.lines[i];
    double y = area.top() + (area.height() - lineHeight * shown.size()) / 2;
    for (qsizetype i = 0; i < shown.size(); ++i) {
        font.setBold(i == 0);
        p->setFont(font);
        p->setPen(i == 0 ? QColor(20, 20, 40) : QColor(70, 70, 90));
        const QFontMetrics metrics(font);
        QString line;
        if (i == 0 && !m_text.count.isEmpty() && shown.size() == 1) { // the next line, when drawn, has the count
            const QString suffix = QStringLiteral(" · ") + m_text.count;
            line = metrics.elidedText(shown[i], Qt::ElideRight, std::max(0, int(area.width()) - metrics.horizontalAdvance(suffix))) + suffix;
        } else {
            line = metrics.elidedText(shown[i], Qt::ElideRight, int(area.width()));
        }
        p->drawText(QRectF(area.left(), y, area.width(), lineHeight), Qt::AlignCenter, line);
        y += lineHeight;
    }
    p->restore();
}

void PolylineItem::setLines(std::vector<QPolygonF> lines)
{
    prepareGeometryChange();
    m_lines = std::move(lines);
    m_bounds.clear();
    m_all = QRectF();
    for (const auto& l : m_lines) {
        m_bounds.push_back(l.boundingRect().adjusted(-1, -1, 1, 1)); // a vertical line has a zero-width box, which intersects nothing
        m_all = m_all.united(m_bounds.back());
    }
    update();
}

void PolylineItem::paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*)
{
    // the pen's width is in pixels: widen the test by it, in scene units
    const qreal lod = std::max<qreal>(option->levelOfDetailFromTransform(p->worldTransform()), 1e-9);
    const QRectF exposed = option->exposedRect.adjusted(-8 / lod, -8 / lod, 8 / lod, 8 / lod);
    p->setPen(m_pen);
    p->setBrush(Qt::NoBrush);
    // antialiased wide strokes cost the raster engine several ms a frame; bundles are drawn without
    p->setRenderHint(QPainter::Antialiasing, m_pen.widthF() <= 2);
    for (size_t i = 0; i < m_lines.size(); ++i)
        if (exposed.intersects(m_bounds[i]))
            p->drawPolyline(m_lines[i]);
}

} // namespace ckpt::ui::graph_detail
