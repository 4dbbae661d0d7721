// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/graph/hierarchy.h"
#include "core/graph/layout.h"

#include <QColor>
#include <QGraphicsItem>
#include <QPen>
#include <QPolygonF>
#include <QRectF>
#include <QString>
#include <QStringList>

#include <vector>

/** The scene items of the graph view (GraphView's own: nothing else puts them in a scene). */
namespace ckpt::ui::graph_detail {

constexpr int UnitItemType = QGraphicsItem::UserType + 1;
constexpr double NodeHeight = 40, ClusterHeight = 56;

/** What one box says, from the most to the least important line. */
struct UnitText {
    QString title;
    QString count; ///< a group's node count, drawn after its title and never elided
    QStringList lines;
};

/**
 * One shown box: a single node or a closed group. Text is drawn at a fixed screen size; how many of
 * its lines are drawn depends on the box's height on screen (semantic zoom): none when it is a few
 * pixels, the title (a group's count and label), then the rest (a node's id, shape, CIDs).
 */
class UnitItem final : public QGraphicsItem
{
public:
    UnitItem(uint32_t visible, HierarchyItem item, const LayoutNode& box, UnitText text);
    int type() const override { return UnitItemType; }
    QRectF boundingRect() const override { return m_rect.adjusted(-2, -2, 2, 2); }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override;
    uint32_t visibleIndex() const { return m_visible; }
    HierarchyItem item() const { return m_item; }
    void setLook(bool provenance, QColor status)
    {
        m_provenance = provenance;
        m_status = status;
        update();
    }

private:
    uint32_t m_visible;
    HierarchyItem m_item;
    QRectF m_rect;
    UnitText m_text;
    bool m_provenance = false;
    QColor m_status;
};

/**
 * Polylines drawn with one pen, each culled against the exposed rectangle. One QGraphicsPathItem
 * holding all of them was far slower: Qt strokes a wide pen over the whole multi-subpath path on
 * every paint (80 ms a frame for a few hundred edges on this machine), while a polyline at a time
 * takes the fast path and the ones off screen are skipped.
 */
class PolylineItem final : public QGraphicsItem
{
public:
    explicit PolylineItem(QPen pen)
        : m_pen(std::move(pen))
    {
        setFlag(ItemUsesExtendedStyleOption);
    }
    void setLines(std::vector<QPolygonF> lines);
    void add(QPolygonF line) { m_pending.push_back(std::move(line)); }
    void commit() { setLines(std::move(m_pending)); m_pending.clear(); }
    QRectF boundingRect() const override { return m_all.adjusted(-4, -4, 4, 4); }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override;
    size_t lineCount() const { return m_lines.size(); }

private:
    QPen m_pen;
    std::vector<QPolygonF> m_lines, m_pending;
    std::vector<QRectF> m_bounds;
    QRectF m_all;
};

} // namespace ckpt::ui::graph_detail
