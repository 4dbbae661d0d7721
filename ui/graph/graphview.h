// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/workspace/workspace.h"

#include <QGraphicsView>
#include <QImage>
#include <QWidget>

class QGraphicsRectItem;
class QGraphicsScene;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTimer;

namespace ckpt::ui {

/** The view: wheel zoom around the cursor, drag to pan, fit. Reports every change of the visible area. */
class GraphCanvas : public QGraphicsView
{
    Q_OBJECT
public:
    explicit GraphCanvas(QWidget* parent = nullptr);
    void zoomBy(double factor);
    void fit();
    /** Keep fitting the whole graph on resizes until the user zooms. */
    void setAutoFit(bool on) { m_autoFit = on; }
    /** The scene rectangle currently visible. */
    QRectF visibleSceneRect() const;

Q_SIGNALS:
    void viewportChanged();
    void itemDoubleClicked(QGraphicsItem* item);

protected:
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void scrollContentsBy(int dx, int dy) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;

private:
    bool m_autoFit = true;
};

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

/**
 * A GradientCheckpoint's computation graph over core/graph's layout. Nodes are drawn as boxes with
 * their op; below a zoom threshold only plain boxes (no text). The loss's provenance chain is
 * highlighted; a clicked node highlights its consumers and shows its details, with its output and
 * gradient tensors resolved through the CAR file beside the JSON (or one the user opens). Chains the
 * layout reports (core's LayoutGroup) collapse into one box and expand again.
 */
class GraphView : public QWidget
{
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;
    void setGraph(std::shared_ptr<const GraphData> graph);
    /** Node boxes in the scene (hidden members of collapsed chains included). */
    int nodeItemCount() const;
    /** Node boxes currently shown. */
    int visibleNodeItemCount() const;
    /** Selects a node by id (also used by search), expanding its chain; false if there is none. */
    bool selectNode(const QString& id);
    /** Selects the node whose `weight` metadata is \a modulePath (e.g. "input.weight"); false if none. */
    bool selectNodeForParameter(const QString& modulePath);
    QString exportImage(const QString& path);

    /** The block store CIDs resolve through; the graph's own CAR by default. */
    void setCar(std::shared_ptr<const CarStore> car, const QString& path);
    /** Opens a CAR file for the current graph; the error text, or empty. */
    QString openCar(const QString& path);
    QString carPath() const { return m_carPath; }
    /** The detail text of the selected node. */
    QString nodeDetail() const;

    int groupCount() const;
    bool isGroupCollapsed(int group) const;
    void setGroupCollapsed(int group, bool collapsed);
    void setAllGroupsCollapsed(bool collapsed);
    /** The chain a layout node belongs to, -1 if none. */
    int groupOfNode(int node) const;

    GraphCanvas* canvas() const { return m_canvas; }
    GraphMinimap* minimap() const { return m_minimap; }

    /** Values listed in the node detail per tensor (stats cover all of them). */
    static constexpr size_t DetailValues = 48;

private:
    void showNode(int index);
    QString tensorText(const QString& what, const std::optional<std::string>& cid, const std::string& dtype) const;
    void updateInfo();
    std::shared_ptr<const GraphData> m_graph;
    std::shared_ptr<const CarStore> m_car;
    QString m_carPath;
    QGraphicsScene* m_scene;
    GraphCanvas* m_canvas;
    GraphMinimap* m_minimap;
    QTimer* m_minimapTimer;
    QLabel* m_info;
    QPlainTextEdit* m_detail;
    QPushButton* m_collapse;
    QPushButton* m_expand;
    std::vector<QGraphicsItem*> m_nodeItems;   ///< by layout node index
    std::vector<QGraphicsItem*> m_groupItems;  ///< by layout group index
    std::vector<int> m_groupOf;                ///< layout node -> group, -1
    int m_selected = -1;
};

} // namespace ckpt::ui
