// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/graph/graphcanvas.h"
#include "ui/graph/graphminimap.h"
#include "ui/workspace/workspace.h"

#include "core/graph/hierarchy.h"
#include "core/graph/layout.h"

#include <functional>
#include <memory>

#include <QColor>
#include <QHash>
#include <QPolygonF>
#include <QWidget>

class QGraphicsScene;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace ckpt::ui {

namespace graph_detail {
class PolylineItem;
struct UnitText;
}

/**
 * A GradientCheckpoint's computation graph, readable at 100,000 nodes. The view never lays out the
 * whole graph: it shows a cut through core's GraphHierarchy (modules, chains, same-op runs, blocks;
 * the first screen at most a few hundred boxes), lays out just those boxes (core layout, folded to
 * the window's shape) and re-lays them out when a group opens (double-click) or closes, keeping the
 * camera on the group. Semantic zoom: text is drawn at screen size, and what a box says grows with
 * the room it has on screen (count; label; op, id, shape, CIDs). Edges between groups are bundled
 * (thicker with their count) and carry arrowheads; the paths through the selection are highlighted,
 * the loss's provenance is coloured. Focus views (a node's k-hop neighbourhood, the loss's
 * provenance) are subgraphs with their own grouping, stacked as breadcrumbs back to the whole graph.
 */
class GraphView : public QWidget
{
    Q_OBJECT
public:
    explicit GraphView(QWidget* parent = nullptr);
    ~GraphView() override;
    void setGraph(std::shared_ptr<const GraphData> graph);

    /** Nodes of the graph in the current view (the whole graph or a focus subgraph). */
    int nodeCount() const;
    /** Boxes currently shown (groups and single nodes). */
    int visibleItemCount() const;
    /** Nodes currently shown as their own box. */
    int visibleNodeItemCount() const;
    /** Edges drawn between the shown boxes (a bundle of many counts once) and the arrowheads drawn on them. */
    int drawnEdgeCount() const { return int(m_shownEdges.size()); }
    int arrowheadCount() const { return m_arrowheads; }
    /** Selects a node by exact id, opening its groups and centring it; false if there is none. */
    bool selectNode(const QString& id);
    /** Selects the node whose `weight` metadata is \a modulePath (e.g. "input.weight"); false if none. */
    bool selectNodeForParameter(const QString& modulePath);
    /** Next node whose id, op or a CID contains \a text (case-insensitive), selected and centred; false if none. */
    bool search(const QString& text);
    QString exportImage(const QString& path);

    /** The block store CIDs resolve through; the graph's own CAR by default. */
    void setCar(std::shared_ptr<const CarStore> car, const QString& path);
    /** Opens a CAR file for the current graph; the error text, or empty. */
    QString openCar(const QString& path);
    QString carPath() const { return m_carPath; }
    /** The detail text of the selected node or group. */
    QString nodeDetail() const;

    // ---- groups of the current view (indices into its GraphHierarchy::clusters; 0 is the root)
    const GraphHierarchy* hierarchy() const;
    bool isClusterOpen(int cluster) const;
    /** Opens a shown group in place; false if it is not one. */
    bool expandCluster(int cluster);
    /** Closes an open group (and what is open inside it). */
    bool collapseCluster(int cluster);
    /** Back to the overview's cut. */
    void collapseAll();
    /** The shown group holding \a node, -1 when the node is shown by itself or not in this view. */
    int visibleClusterOf(int node) const;
    /** Scene rectangle of the box showing \a node (a group's box while it is closed). */
    QRectF itemRectOfNode(int node) const;

    // ---- focus
    /** A subgraph of the nodes within \a hops edges up and down from \a node; pushed as a breadcrumb. */
    bool showNeighbourhood(int node, int hops);
    /** A subgraph of the loss's provenance chain; false without one. */
    bool showLossProvenance();
    /**
     * A subgraph of \a nodes (graph node indices) and everything within \a contextHops edges up or
     * down of them (e.g. a diff's changed nodes with their neighbours); pushed as a breadcrumb
     * titled \a title. False when \a nodes holds no node of the graph.
     */
    bool showNodes(const QString& title, const std::vector<int>& nodes, int contextHops);
    /** Breadcrumb titles, the whole graph first. */
    QStringList breadcrumbs() const;
    /** Returns to breadcrumb \a depth (0: the whole graph). */
    void popTo(int depth);
    /** Graph node index of the selection, -1 if none or a group. */
    int selectedNode() const { return m_selected; }
    int nodeIndex(const QString& id) const;

    /**
     * Per-node colours from elsewhere (e.g. a diff's status), by node id; a group takes the colour
     * its members agree on, or the first one. An empty map clears them.
     */
    void setNodeStatus(const QHash<QString, QColor>& colourById);
    /**
     * Whether the loss's provenance is coloured (on by default). A view coloured by other statuses
     * turns it off: its orange would read as one of them.
     */
    void setProvenanceShown(bool on);

    GraphCanvas* canvas() const { return m_canvas; }
    GraphMinimap* minimap() const { return m_minimap; }

    /** Values listed in the node detail per tensor (stats cover all of them). */
    static constexpr size_t DetailValues = 48;
    /** Boxes the first screen of a view shows at most (fewer when the canvas is small: see overviewBudget). */
    static constexpr uint32_t OverviewBudget = 240;
    /** Edges over more layers than this are drawn as stubs unless highlighted (they would cover everything). */
    static constexpr uint32_t FarEdgeSpan = 1;
    /** Pixels kept between the boxes a group opened into and the window's edge when they are slid on screen. */
    static constexpr double OpenMargin = 20;

Q_SIGNALS:
    /** After every re-layout of the shown boxes (open, close, focus, new graph). */
    void relaidOut();

private:
    struct Scope;
    Scope& scope() const;
    uint32_t globalOf(uint32_t local) const;
    void pushScope(QString title, std::vector<uint32_t> nodes);
    void rebuildScene();
    /** The text of every shown box; sizes \a in's nodes to fit them. */
    std::vector<graph_detail::UnitText> unitTexts(LayoutInput& in) const;
    /** The laid-out edges (bundled by weight, far ones as stubs) and their arrowheads into the scene. */
    void addEdges(const LayoutResult& laid, const std::vector<HierarchyCut::Edge>& edges);
    /** Boxes the first screen shows: as many as stay readable in the canvas, within OverviewBudget's bounds. */
    uint32_t overviewBudget(bool focus) const;
    QSize canvasSize() const;
    void updateHighlights();
    void updateBreadcrumbs();
    /** Shows the innermost scope after a push or pop: breadcrumbs, scene, fit, selection kept. */
    void enterScope();
    void openAround(const std::function<bool()>& change, int keepCluster);
    void selectLocal(uint32_t local);
    void showNode(int index);
    void showCluster(int cluster);
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
    QWidget* m_crumbs;
    QPlainTextEdit* m_detail;
    QPushButton* m_overview;
    QPushButton* m_neighbourhood;
    QPushButton* m_provenance;
    QSpinBox* m_hops;
    std::vector<std::unique_ptr<Scope>> m_scopes;
    std::vector<QColor> m_status;                     ///< graph node index -> status colour (invalid: none)
    std::vector<QGraphicsItem*> m_items;              ///< by index into the cut's visible list
    std::vector<std::pair<uint32_t, uint32_t>> m_shownEdges; ///< (from, to) visible indices of the drawn edges
    std::vector<QPolygonF> m_edgeLines;              ///< polyline of each drawn edge
    graph_detail::PolylineItem* m_highlight = nullptr;
    int m_arrowheads = 0;
    int m_selected = -1;                              ///< graph node index
    int m_selectedCluster = -1;
    QString m_lastSearch;
    int m_searchHit = -1;
    double m_laidOutAspect = 0;                      ///< canvas aspect the shown layout was folded for
    bool m_provenanceShown = true;
};

} // namespace ckpt::ui
