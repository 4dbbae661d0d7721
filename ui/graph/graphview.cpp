// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/graph/graphview.h"

#include "ui/graph/graphexport.h"
#include "ui/graph/graphitems.h"
#include "ui/models/formatting.h"
#include "ui/widgets/viewsetup.h"

#include "core/graph/blob.h"
#include "core/graph/checkpointfiles.h"
#include "core/graph/hierarchy.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QScopeGuard>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QSvgGenerator>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <array>
#include <map>
#include <unordered_map>
#include <unordered_set>

namespace ckpt::ui {

using namespace graph_detail;

namespace {

QString shortCid(const std::string& cid)
{
    return cid.size() > 20 ? qs(std::string_view(cid).substr(0, 10)) + QStringLiteral("…") + qs(std::string_view(cid).substr(cid.size() - 6)) : qs(cid);
}

const char* kindName(GraphCluster::Kind kind)
{
    switch (kind) {
    case GraphCluster::Kind::Root: return "graph";
    case GraphCluster::Kind::Module: return "module";
    case GraphCluster::Kind::Chain: return "chain";
    case GraphCluster::Kind::Run: return "run";
    case GraphCluster::Kind::Block: return "block";
    }
    return "";
}

} // namespace

struct GraphView::Scope {
    QString title;
    std::vector<uint32_t> global; ///< local node -> graph node, ascending; empty: the whole graph (identity)
    std::shared_ptr<const GraphHierarchyInput> input;
    std::shared_ptr<const GraphHierarchy> hierarchy;
    HierarchyCut cut;
    uint32_t layers = 0, columns = 0, farEdges = 0;
    uint32_t budget = 0;  ///< boxes the overview cut was made for; 0 once the user opened or closed a group
    bool focus = false;
    uint64_t crossings = 0;

    /** Local index of graph node \a g, UINT32_MAX if it is not in this view. */
    uint32_t localOf(uint32_t g) const
    {
        if (global.empty())
            return g < input->nodeCount ? g : UINT32_MAX;
        const auto it = std::lower_bound(global.begin(), global.end(), g);
        return it != global.end() && *it == g ? uint32_t(it - global.begin()) : UINT32_MAX;
    }
};

GraphView::GraphView(QWidget* parent)
    : QWidget(parent)
    , m_scene(new QGraphicsScene(this))
    , m_canvas(new GraphCanvas(this))
    , m_minimap(nullptr)
    , m_minimapTimer(new QTimer(this))
    , m_info(new QLabel(tr("Open a GradientCheckpoint (.json) or a ckpt-train run directory with graph/step-N.json."), this))
    , m_crumbs(new QWidget(this))
    , m_detail(new QPlainTextEdit(this))
    , m_overview(new QPushButton(tr("Overview"), this))
    , m_neighbourhood(new QPushButton(tr("Neighbourhood"), this))
    , m_provenance(new QPushButton(tr("Loss provenance"), this))
    , m_hops(new QSpinBox(this))
{
    m_canvas->setScene(m_scene);
    m_minimap = new GraphMinimap(m_scene, m_canvas, this);
    m_minimapTimer->setSingleShot(true);
    m_minimapTimer->setInterval(150);
    connect(m_minimapTimer, &QTimer::timeout, m_minimap, &GraphMinimap::refresh);
    m_detail->setReadOnly(true);
    m_detail->setObjectName(QStringLiteral("graphNodeDetail"));
    m_detail->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_detail->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_info->setWordWrap(true);
    m_overview->setToolTip(tr("Close every group again: back to the overview (double-click a group to open it, a node to close its group)"));
    m_neighbourhood->setToolTip(tr("Show the selected node with everything up to the given number of edges above and below it"));
    m_provenance->setToolTip(tr("Show the nodes the loss was computed from (provenance_chain of the loss CID)"));
    m_hops->setRange(1, 50);
    m_hops->setValue(2);
    m_hops->setPrefix(tr("k = "));
    m_hops->setToolTip(tr("Hops up and down for the neighbourhood"));
    auto* fit = new QPushButton(tr("Fit"), this);
    auto* zoomIn = new QPushButton(tr("Zoom in"), this);
    auto* zoomOut = new QPushButton(tr("Zoom out"), this);
    auto* openCarButton = new QPushButton(tr("Open CAR…"), this);
    openCarButton->setToolTip(tr("Resolve the nodes' tensor CIDs through a CAR file"));
    auto* exportButton = new QPushButton(tr("Export PNG/SVG…"), this);
    auto* bar = new QHBoxLayout;
    bar->addStretch(1);
    for (QWidget* w : std::initializer_list<QWidget*>{fit, zoomIn, zoomOut, m_overview, m_neighbourhood, m_hops, m_provenance, openCarButton, exportButton})
        bar->addWidget(w);
    auto* crumbLayout = new QHBoxLayout(m_crumbs);
    crumbLayout->setContentsMargins(0, 0, 0, 0);
    m_crumbs->setObjectName(QStringLiteral("graphBreadcrumbs"));
    auto* side = makeSplitter(Qt::Vertical, this, {{m_minimap, 1, 220}, {m_detail, 3, 420}});
    auto* split = makeSplitter(Qt::Horizontal, this, {{m_canvas, 3, 800}, {side, 1, 400}});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(m_info);
    layout->addWidget(m_crumbs);
    layout->addWidget(split, 1);
    connect(fit, &QPushButton::clicked, m_canvas, [this] {
        m_canvas->setAutoFit(true);
        m_canvas->fit();
    });
    connect(zoomIn, &QPushButton::clicked, this, [this] { m_canvas->zoomBy(1.25); });
    connect(zoomOut, &QPushButton::clicked, this, [this] { m_canvas->zoomBy(0.8); });
    connect(m_overview, &QPushButton::clicked, this, &GraphView::collapseAll);
    connect(m_neighbourhood, &QPushButton::clicked, this, [this] {
        if (m_selected >= 0)
            showNeighbourhood(m_selected, m_hops->value());
    });
    connect(m_provenance, &QPushButton::clicked, this, &GraphView::showLossProvenance);
    connect(openCarButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open CAR file"), m_carPath, tr("CAR files (*.car);;All files (*)"));
        if (path.isEmpty())
            return;
        const QString error = openCar(path);
        if (!error.isEmpty())
            m_detail->setPlainText(error);
    });
    connect(exportButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export graph"), QString(), tr("PNG (*.png);;SVG (*.svg)"));
        if (!path.isEmpty())
            m_info->setText(exportImage(path).isEmpty() ? tr("Written %1").arg(path) : tr("Could not write %1").arg(path));
    });
    connect(m_scene, &QGraphicsScene::selectionChanged, this, [this] {
        if (m_scopes.empty())
            return;
        const auto items = m_scene->selectedItems();
        if (items.isEmpty() || items.front()->type() != UnitItemType)
            return; // a re-layout or a click on empty space keeps the detail
        const HierarchyItem item = static_cast<UnitItem*>(items.front())->item();
        if (item.cluster)
            showCluster(int(item.index));
        else
            showNode(int(globalOf(item.index)));
    });
    // double-click: a group opens in place, a node closes the group it belongs to
    connect(m_canvas, &GraphCanvas::itemDoubleClicked, this, [this](QGraphicsItem* item) {
        if (item->type() != UnitItemType || m_scopes.empty())
            return;
        const HierarchyItem unit = static_cast<UnitItem*>(item)->item();
        if (unit.cluster)
            expandCluster(int(unit.index));
        else if (const uint32_t parent = scope().hierarchy->parent[unit.index]; parent != 0)
            collapseCluster(int(parent));
    });
    m_neighbourhood->setEnabled(false);
    m_provenance->setEnabled(false);
    m_overview->setEnabled(false);
    // while the view fits the whole graph, a new canvas shape folds the layers anew
    connect(m_canvas, &GraphCanvas::resized, this, [this] {
        const QSize port = canvasSize();
        if (m_scopes.empty() || !m_canvas->autoFit() || port.height() < 50)
            return;
        const double aspect = std::clamp(double(port.width()) / port.height(), 0.5, 4.0);
        Scope& sc = scope();
        // an overview nobody has opened into yet shows as many boxes as the new size holds
        const uint32_t budget = sc.budget ? overviewBudget(sc.focus) : 0;
        const bool regroup = budget && std::abs(std::log(double(budget) / sc.budget)) > 0.2;
        if (regroup) {
            sc.budget = budget;
            sc.cut = HierarchyCut(*sc.hierarchy, budget);
        }
        if (regroup || std::abs(std::log(aspect / m_laidOutAspect)) > 0.25)
            rebuildScene();
    });
}

QSize GraphView::canvasSize() const
{
    // the canvas without its frame, scroll bars included: the size must not change when they come
    // and go, or a fit that makes them appear would lay the graph out anew, and again
    const int frame = 2 * m_canvas->frameWidth();
    return m_canvas->size() - QSize(frame, frame);
}

uint32_t GraphView::overviewBudget(bool focus) const
{
    // a box stays readable at about 150 x 56 pixels; with its share of the gaps, the folds and the
    // room long edges take (screenshots: at 14,000 px² a box the labels were cut to a few letters)
    // that is some 24,000 px² of the canvas; a focus view may be denser
    const QSize port = canvasSize();
    const double area = port.width() < 200 || port.height() < 150 ? 1000.0 * 700.0 : double(port.width()) * port.height();
    return uint32_t(std::clamp(area / (focus ? 14000.0 : 24000.0), 16.0, double(OverviewBudget)));
}

GraphView::~GraphView()
{
    // the scene (a child) dies after our members; its last selectionChanged must not reach them
    disconnect(m_scene, nullptr, this, nullptr);
}

GraphView::Scope& GraphView::scope() const
{
    return *m_scopes.back();
}

uint32_t GraphView::globalOf(uint32_t local) const
{
    return scope().global.empty() ? local : scope().global[local];
}

int GraphView::nodeCount() const
{
    return m_scopes.empty() ? 0 : int(scope().input->nodeCount);
}

int GraphView::visibleItemCount() const
{
    return int(m_items.size());
}

int GraphView::visibleNodeItemCount() const
{
    if (m_scopes.empty())
        return 0;
    const auto& v = scope().cut.visible();
    return int(std::count_if(v.begin(), v.end(), [](const HierarchyItem& i) { return !i.cluster; }));
}

const GraphHierarchy* GraphView::hierarchy() const
{
    return m_scopes.empty() ? nullptr : scope().hierarchy.get();
}

int GraphView::nodeIndex(const QString& id) const
{
    if (!m_graph)
        return -1;
    const std::string key = id.toStdString();
    const auto it = std::find(m_graph->names.begin(), m_graph->names.end(), key);
    return it == m_graph->names.end() ? -1 : int(it - m_graph->names.begin());
}

void GraphView::setGraph(std::shared_ptr<const GraphData> graph)
{
    m_scene->clearSelection();
    m_scene->clear();
    m_items.clear();
    m_highlight = nullptr;
    m_scopes.clear();
    m_selected = m_selectedCluster = -1;
    m_lastSearch.clear();
    m_detail->clear();
    m_graph = std::move(graph);
    m_car = m_graph ? m_graph->car : nullptr;
    m_carPath = m_graph ? m_graph->carPath : QString();
    m_neighbourhood->setEnabled(false);
    m_provenance->setEnabled(false);
    m_overview->setEnabled(false);
    if (!m_graph) {
        updateBreadcrumbs();
        m_minimap->refresh();
        return;
    }
    const size_t n = m_graph->names.size();
    m_status.assign(n, QColor());

    auto whole = std::make_unique<Scope>();
    whole->title = tr("Whole graph (%n nodes)", "", int(n));
    whole->input = std::shared_ptr<const GraphHierarchyInput>(m_graph, &m_graph->grouping);
    whole->hierarchy = std::shared_ptr<const GraphHierarchy>(m_graph, &m_graph->hierarchy);
    whole->budget = overviewBudget(false);
    whole->cut = HierarchyCut(*whole->hierarchy, whole->budget);
    m_scopes.push_back(std::move(whole));
    m_provenance->setEnabled(!m_graph->analysis.lossProvenanceChain.empty());
    m_overview->setEnabled(true);
    updateBreadcrumbs();
    rebuildScene();
    m_canvas->setAutoFit(true);
    m_canvas->fit();
    showNode(-1);
}

void GraphView::pushScope(QString title, std::vector<uint32_t> nodes)
{
    auto sub = std::make_unique<Scope>();
    sub->title = std::move(title);
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    sub->global = std::move(nodes);
    auto input = std::make_shared<GraphHierarchyInput>();
    input->nodeCount = uint32_t(sub->global.size());
    input->op.reserve(sub->global.size());
    input->modulePath.reserve(sub->global.size());
    for (uint32_t g : sub->global) {
        input->op.push_back(m_graph->grouping.op[g]);
        input->modulePath.push_back(m_graph->grouping.modulePath[g]);
    }
    sub->input = input; // localOf needs it
    for (uint32_t l = 0; l < sub->global.size(); ++l) {
        const uint32_t g = sub->global[l];
        for (uint32_t i = m_graph->outOffset[g]; i < m_graph->outOffset[g + 1]; ++i)
            if (const uint32_t t = sub->localOf(m_graph->out[i]); t != UINT32_MAX)
                input->edges.push_back({l, t});
    }
    sub->hierarchy = std::make_shared<GraphHierarchy>(buildGraphHierarchy(*input));
    sub->focus = true;
    sub->budget = overviewBudget(true);
    sub->cut = HierarchyCut(*sub->hierarchy, sub->budget);
    m_scopes.push_back(std::move(sub));
    enterScope();
}

bool GraphView::showNeighbourhood(int node, int hops)
{
    if (!m_graph || node < 0 || size_t(node) >= m_graph->nodeOf.size() || hops < 1)
        return false;
    std::vector<uint32_t> nodes{uint32_t(node)};
    // up and down separately: the producers of the producers, and the consumers of the consumers
    for (const bool down : {false, true}) {
        const auto& offset = down ? m_graph->outOffset : m_graph->inOffset;
        const auto& target = down ? m_graph->out : m_graph->in;
        std::unordered_set<uint32_t> seen{uint32_t(node)};
        std::vector<uint32_t> frontier{uint32_t(node)};
        for (int k = 0; k < hops && !frontier.empty(); ++k) {
            std::vector<uint32_t> next;
            for (uint32_t v : frontier)
                for (uint32_t i = offset[v]; i < offset[v + 1]; ++i)
                    if (seen.insert(target[i]).second)
                        next.push_back(target[i]);
            nodes.insert(nodes.end(), next.begin(), next.end());
            frontier = std::move(next);
        }
    }
    m_selected = node;
    // the title first: the order in which arguments are evaluated is unspecified, and one of them moves the nodes
    QString title = tr("Neighbourhood of %1 (k = %2, %n nodes)", "", int(nodes.size())).arg(qs(m_graph->names[size_t(node)]).left(24)).arg(hops);
    pushScope(std::move(title), std::move(nodes));
    return true;
}

bool GraphView::showLossProvenance()
{
    if (!m_graph || m_graph->analysis.lossProvenanceChain.empty())
        return false;
    std::vector<uint32_t> nodes;
    for (uint32_t v = 0; v < m_graph->onProvenance.size(); ++v)
        if (m_graph->onProvenance[v])
            nodes.push_back(v);
    if (nodes.empty())
        return false;
    QString title = tr("Provenance of the loss (%n nodes)", "", int(nodes.size()));
    pushScope(std::move(title), std::move(nodes));
    return true;
}

bool GraphView::showNodes(const QString& title, const std::vector<int>& nodes, int contextHops)
{
    if (!m_graph)
        return false;
    const size_t n = m_graph->names.size();
    std::vector<uint8_t> in(n, 0);
    std::vector<uint32_t> frontier;
    for (int v : nodes)
        if (v >= 0 && size_t(v) < n && !in[size_t(v)]) {
            in[size_t(v)] = 1;
            frontier.push_back(uint32_t(v));
        }
    if (frontier.empty())
        return false;
    // the context: up and down from every seed at once, a breadth-first sweep per hop
    std::vector<uint32_t> all = frontier;
    for (int k = 0; k < contextHops && !frontier.empty(); ++k) {
        std::vector<uint32_t> next;
        for (uint32_t v : frontier)
            for (const bool down : {false, true}) {
                const auto& offset = down ? m_graph->outOffset : m_graph->inOffset;
                const auto& target = down ? m_graph->out : m_graph->in;
                for (uint32_t i = offset[v]; i < offset[v + 1]; ++i)
                    if (!in[target[i]]) {
                        in[target[i]] = 1;
                        next.push_back(target[i]);
                    }
            }
        all.insert(all.end(), next.begin(), next.end());
        frontier = std::move(next);
    }
    pushScope(title, std::move(all));
    return true;
}

QStringList GraphView::breadcrumbs() const
{
    QStringList out;
    for (const auto& s : m_scopes)
        out << s->title;
    return out;
}

void GraphView::popTo(int depth)
{
    if (depth < 0 || size_t(depth) + 1 >= m_scopes.size())
        return;
    m_scopes.resize(size_t(depth) + 1);
    enterScope();
}

void GraphView::enterScope()
{
    updateBreadcrumbs();
    rebuildScene();
    m_canvas->setAutoFit(true);
    m_canvas->fit();
    // the selection stays where the new scope still shows it
    if (m_selected >= 0 && scope().localOf(uint32_t(m_selected)) != UINT32_MAX)
        selectLocal(scope().localOf(uint32_t(m_selected)));
}

void GraphView::updateBreadcrumbs()
{
    auto* layout = static_cast<QHBoxLayout*>(m_crumbs->layout());
    while (QLayoutItem* item = layout->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    for (size_t i = 0; i < m_scopes.size(); ++i) {
        if (i)
            layout->addWidget(new QLabel(QStringLiteral("›"), m_crumbs));
        auto* crumb = new QPushButton(m_scopes[i]->title, m_crumbs);
        crumb->setFlat(true);
        crumb->setEnabled(i + 1 < m_scopes.size());
        connect(crumb, &QPushButton::clicked, this, [this, i] { popTo(int(i)); });
        layout->addWidget(crumb);
    }
    layout->addStretch(1);
    m_crumbs->setVisible(m_scopes.size() > 1);
}

void GraphView::rebuildScene()
{
    m_scene->blockSignals(true);
    m_scene->clear();
    m_scene->blockSignals(false);
    m_items.clear();
    m_shownEdges.clear();
    m_arrowheads = 0;
    m_edgeLines.clear();
    m_highlight = nullptr;
    if (m_scopes.empty())
        return;
    Scope& sc = scope();
    const GraphHierarchy& h = *sc.hierarchy;
    const auto& visible = sc.cut.visible();
    LayoutInput in;
    std::vector<UnitText> texts = unitTexts(in);
    const auto edges = sc.cut.visibleEdges(sc.input->edges);
    in.edges.reserve(edges.size());
    for (const auto& e : edges)
        in.edges.push_back({e.from, e.to});
    LayoutOptions options;
    options.maxDummySpan = FarEdgeSpan;
    const QSize port = canvasSize();
    options.foldAspect = port.height() > 50 ? std::clamp(double(port.width()) / port.height(), 0.5, 4.0) : 1.6;
    m_laidOutAspect = options.foldAspect;
    options.foldMinCount = 12; // a dozen boxes in a row or a column read best as they are
    auto laid = layoutGraph(in, options);
    if (!laid) {
        m_info->setText(qs(laid.error().message()));
        return;
    }
    sc.layers = laid->layerCount;
    sc.columns = laid->columns;
    sc.crossings = laid->crossings;
    addEdges(*laid, edges);
    m_items.reserve(visible.size());
    for (size_t u = 0; u < visible.size(); ++u) {
        auto* item = new UnitItem(uint32_t(u), visible[u], laid->nodes[u], std::move(texts[u]));
        if (visible[u].cluster) {
            const GraphCluster& c = h.clusters[visible[u].index];
            item->setToolTip(tr("%1 %2: %n nodes (double-click to open)", "", int(c.size())).arg(QLatin1String(kindName(c.kind)), qs(c.label)));
        } else {
            item->setToolTip(qs(m_graph->names[globalOf(visible[u].index)]));
        }
        m_scene->addItem(item);
        m_items.push_back(item);
    }
    m_scene->setSceneRect(QRectF(0, 0, laid->width, laid->height).adjusted(-60, -60, 60, 60));
    updateHighlights();
    updateInfo();
    m_minimapTimer->start();
    Q_EMIT relaidOut();
}

std::vector<UnitText> GraphView::unitTexts(LayoutInput& in) const
{
    const Scope& sc = scope();
    const GraphHierarchy& h = *sc.hierarchy;
    const auto& visible = sc.cut.visible();
    in.nodes.resize(visible.size());
    std::vector<UnitText> texts(visible.size());
    // Boxes as wide as their text at zoom 1 (UnitItem draws it at 11 px whatever the zoom): the bold
    // title with a group's count, and the line under it (a node's id), so that nothing readable is
    // cut to "layer_no…" by the box. 5 px of padding each side, as paint() leaves, and a little air.
    QFont titleFont = m_scene->font(), lineFont = m_scene->font();
    titleFont.setPixelSize(11);
    titleFont.setBold(true);
    lineFont.setPixelSize(11);
    const QFontMetrics titleMetrics(titleFont), lineMetrics(lineFont);
    auto widthFor = [&](const UnitText& t, double least, double most) {
        const QString title = t.count.isEmpty() ? t.title : t.title + QStringLiteral(" · ") + t.count;
        int text = titleMetrics.horizontalAdvance(title);
        if (!t.lines.isEmpty())
            text = std::max(text, lineMetrics.horizontalAdvance(t.lines.front()));
        return std::clamp(double(text) + 18.0, least, most);
    };
    for (size_t u = 0; u < visible.size(); ++u) {
        const HierarchyItem item = visible[u];
        UnitText& t = texts[u];
        if (item.cluster) {
            const GraphCluster& c = h.clusters[item.index];
            t.title = qs(c.label);
            t.count = QLocale().toString(c.size());
            t.lines << tr("%1 nodes · %2").arg(t.count, QLatin1String(kindName(c.kind))) << tr("double-click to open");
            in.nodes[u] = {widthFor(t, 130.0, 480.0), ClusterHeight};
        } else {
            const uint32_t g = globalOf(item.index);
            const ComputationNode* node = m_graph->nodeOf[g];
            t.title = node ? qs(node->op) : tr("(phantom)");
            t.lines << qs(m_graph->names[g]);
            if (node) {
                QStringList meta;
                for (const auto& [k, v] : node->metadata)
                    if (k == "shape" || k == "dtype")
                        meta << qs(v);
                if (!meta.isEmpty())
                    t.lines << meta.join(QLatin1Char(' '));
                if (node->outputCid)
                    t.lines << tr("out %1").arg(shortCid(*node->outputCid));
                if (node->gradientCid)
                    t.lines << tr("grad %1").arg(shortCid(*node->gradientCid));
            }
            in.nodes[u] = {widthFor(t, 90.0, 360.0), NodeHeight};
        }
    }
    return texts;
}

void GraphView::addEdges(const LayoutResult& laid, const std::vector<HierarchyCut::Edge>& edges)
{
    Scope& sc = scope();
    // edges: single ones thin, bundles thicker with their count; arrowheads filled at the target
    const double widths[] = {0, 2, 3.5, 5};
    std::array<PolylineItem*, 4> byWeight{};
    for (size_t w = 0; w < byWeight.size(); ++w) {
        QPen pen(w ? QColor(170, 170, 190) : QColor(110, 110, 135), widths[w]); // opaque: blending is slower
        pen.setCosmetic(true);
        byWeight[w] = new PolylineItem(pen);
    }
    QPen stubPen(QColor(200, 160, 110), 1);
    stubPen.setCosmetic(true);
    auto* stubs = new PolylineItem(stubPen);
    QPainterPath heads;
    sc.farEdges = 0;
    m_arrowheads = 0;
    for (size_t e = 0; e < edges.size(); ++e) {
        const LayoutEdge& le = laid.edges[e];
        if (le.selfLoop || le.points.size() < 2)
            continue;
        QPolygonF line;
        line.reserve(qsizetype(le.points.size()));
        for (const auto& [x, y] : le.points)
            line << QPointF(x, y);
        const uint32_t count = edges[e].count;
        const QPointF tip = line.back();
        QPointF from = line[line.size() - 2];
        if (le.straight) {
            // a far edge: drawn whole only on a highlighted path; otherwise a stub at each end says it is there
            ++sc.farEdges;
            const double dir = le.reversed ? -1 : 1;
            from = tip - QPointF(0, 18 * dir);
            stubs->add(QPolygonF{line.front(), line.front() + QPointF(0, 10 * dir)});
            stubs->add(QPolygonF{from, tip});
        } else {
            byWeight[count >= 64 ? 3 : count >= 8 ? 2 : count >= 2 ? 1 : 0]->add(line);
        }
        m_shownEdges.push_back({edges[e].from, edges[e].to});
        m_edgeLines.push_back(std::move(line));
        const QLineF dir(tip, from);
        if (dir.length() < 1e-9)
            continue;
        QLineF side = dir.unitVector();
        side.setLength(9);
        const QPointF back = side.p2() - tip;
        const QPointF normal(-back.y() * 0.45, back.x() * 0.45);
        heads.moveTo(tip);
        heads.lineTo(tip + back + normal);
        heads.lineTo(tip + back - normal);
        heads.closeSubpath();
        ++m_arrowheads;
    }
    for (PolylineItem* layer : byWeight) {
        layer->commit();
        layer->setZValue(-1);
        m_scene->addItem(layer);
    }
    stubs->commit();
    stubs->setZValue(-1);
    m_scene->addItem(stubs);
    m_scene->addPath(heads, Qt::NoPen, QColor(90, 90, 115))->setZValue(-0.5);
    QPen highlight(QColor(30, 100, 230), 3);
    highlight.setCosmetic(true);
    m_highlight = new PolylineItem(highlight);
    m_highlight->setZValue(0);
    m_scene->addItem(m_highlight);
}

void GraphView::updateHighlights()
{
    if (m_scopes.empty())
        return;
    const Scope& sc = scope();
    const GraphHierarchy& h = *sc.hierarchy;
    const auto& visible = sc.cut.visible();
    // looks: provenance and status of the members
    for (size_t u = 0; u < m_items.size(); ++u) {
        bool provenance = false;
        QColor status;
        auto look = [&](uint32_t local) {
            const uint32_t g = globalOf(local);
            provenance = provenance || (m_provenanceShown && m_graph->onProvenance[g]);
            if (!status.isValid() && m_status[g].isValid())
                status = m_status[g];
        };
        if (visible[u].cluster) {
            const GraphCluster& c = h.clusters[visible[u].index];
            for (uint32_t p = c.begin; p < c.end; ++p)
                look(h.order[p]);
        } else {
            look(visible[u].index);
        }
        static_cast<UnitItem*>(m_items[u])->setLook(provenance, status);
    }
    // the paths through the selection: everything upstream of it and everything downstream
    uint32_t selected = UINT32_MAX;
    if (m_selected >= 0)
        if (const uint32_t l = sc.localOf(uint32_t(m_selected)); l != UINT32_MAX)
            selected = sc.cut.visibleIndexOf(l);
    if (m_selectedCluster >= 0)
        for (uint32_t u = 0; u < visible.size(); ++u)
            if (visible[u] == HierarchyItem{uint32_t(m_selectedCluster), true})
                selected = u;
    std::vector<QPolygonF> path;
    if (selected != UINT32_MAX && m_highlight) {
        std::vector<uint8_t> up(visible.size(), 0), down(visible.size(), 0);
        up[selected] = down[selected] = 1;
        for (bool changed = true; changed;) { // a few hundred boxes: fixpoint sweeps are cheap
            changed = false;
            for (const auto& [a, b] : m_shownEdges) {
                if (up[b] && !up[a])
                    up[a] = 1, changed = true;
                if (down[a] && !down[b])
                    down[b] = 1, changed = true;
            }
        }
        for (size_t e = 0; e < m_shownEdges.size(); ++e) {
            const auto [a, b] = m_shownEdges[e];
            if ((up[a] && up[b]) || (down[a] && down[b]))
                path.push_back(m_edgeLines[e]);
        }
    }
    if (m_highlight)
        m_highlight->setLines(std::move(path));
}

void GraphView::setNodeStatus(const QHash<QString, QColor>& colourById)
{
    if (!m_graph)
        return;
    m_status.assign(m_graph->names.size(), QColor());
    // by name through one hash: nodeIndex is a linear search, once per id it would be quadratic at 100k nodes
    std::unordered_map<std::string_view, uint32_t> index;
    index.reserve(m_graph->names.size() * 2);
    for (uint32_t i = 0; i < m_graph->names.size(); ++i)
        index.try_emplace(m_graph->names[i], i);
    for (auto it = colourById.begin(); it != colourById.end(); ++it)
        if (const auto found = index.find(it.key().toStdString()); found != index.end())
            m_status[found->second] = it.value();
    updateHighlights();
    m_minimapTimer->start();
}

void GraphView::setProvenanceShown(bool on)
{
    m_provenanceShown = on;
    updateHighlights();
    m_minimapTimer->start();
}

void GraphView::openAround(const std::function<bool()>& change, int keepCluster)
{
    // the camera stays on the group: its members land where the group's box was on screen
    const QRectF view = m_canvas->visibleSceneRect();
    QPointF anchor = view.center();
    for (auto* item : m_items)
        if (static_cast<UnitItem*>(item)->item() == HierarchyItem{uint32_t(keepCluster), true})
            anchor = item->sceneBoundingRect().center();
    const QPointF offset = view.center() - anchor;
    if (!change())
        return;
    rebuildScene();
    const GraphCluster& c = scope().hierarchy->clusters[size_t(keepCluster)];
    QRectF members;
    for (auto* item : m_items) {
        const HierarchyItem unit = static_cast<UnitItem*>(item)->item();
        const uint32_t begin = unit.cluster ? scope().hierarchy->clusters[unit.index].begin : scope().hierarchy->position[unit.index];
        if (begin >= c.begin && begin < c.end)
            members = members.united(item->sceneBoundingRect());
    }
    m_canvas->setAutoFit(false);
    if (!members.isEmpty()) {
        // The members' middle where the group was on screen, slid the least that brings them all on
        // screen (a group in a corner would otherwise open mostly off it); contents larger than the
        // window fill it instead. Per axis, with a margin of OpenMargin pixels.
        QPointF target = members.center() + offset;
        const QRectF room = members.adjusted(-OpenMargin / m_canvas->transform().m11(), -OpenMargin / m_canvas->transform().m22(),
            OpenMargin / m_canvas->transform().m11(), OpenMargin / m_canvas->transform().m22());
        auto slide = [](double t, double lo, double hi, double half) {
            return hi - lo <= 2 * half ? std::clamp(t, hi - half, lo + half) : std::clamp(t, lo + half, hi - half);
        };
        target.setX(slide(target.x(), room.left(), room.right(), view.width() / 2));
        target.setY(slide(target.y(), room.top(), room.bottom(), view.height() / 2));
        // room around the target, or a group near the graph's edge would be pushed inwards by the scroll bars' limits
        m_scene->setSceneRect(m_scene->sceneRect().united(QRectF(target - QPointF(view.width(), view.height()) / 2, view.size())));
        m_canvas->centerOn(target);
    }
    Q_EMIT m_canvas->viewportChanged();
}

bool GraphView::isClusterOpen(int cluster) const
{
    return !m_scopes.empty() && cluster >= 0 && size_t(cluster) < scope().hierarchy->clusters.size() && scope().cut.isOpen(uint32_t(cluster));
}

bool GraphView::expandCluster(int cluster)
{
    if (m_scopes.empty() || cluster < 0 || size_t(cluster) >= scope().hierarchy->clusters.size())
        return false;
    bool opened = false;
    openAround([&] { return opened = scope().cut.open(uint32_t(cluster)); }, cluster);
    if (opened)
        scope().budget = 0;
    return opened;
}

bool GraphView::collapseCluster(int cluster)
{
    if (m_scopes.empty() || cluster <= 0 || size_t(cluster) >= scope().hierarchy->clusters.size())
        return false;
    bool closed = false;
    openAround([&] { return closed = scope().cut.close(uint32_t(cluster)); }, cluster);
    if (closed)
        scope().budget = 0;
    return closed;
}

void GraphView::collapseAll()
{
    if (m_scopes.empty())
        return;
    scope().budget = overviewBudget(scope().focus);
    scope().cut = HierarchyCut(*scope().hierarchy, scope().budget);
    rebuildScene();
    m_canvas->setAutoFit(true);
    m_canvas->fit();
}

int GraphView::visibleClusterOf(int node) const
{
    if (m_scopes.empty() || node < 0)
        return -1;
    const uint32_t l = scope().localOf(uint32_t(node));
    if (l == UINT32_MAX)
        return -1;
    const HierarchyItem item = scope().cut.visible()[scope().cut.visibleIndexOf(l)];
    return item.cluster ? int(item.index) : -1;
}

QRectF GraphView::itemRectOfNode(int node) const
{
    if (m_scopes.empty() || node < 0)
        return {};
    const uint32_t l = scope().localOf(uint32_t(node));
    if (l == UINT32_MAX)
        return {};
    const uint32_t u = scope().cut.visibleIndexOf(l);
    return u < m_items.size() ? m_items[u]->sceneBoundingRect() : QRectF();
}

void GraphView::selectLocal(uint32_t local)
{
    Scope& sc = scope();
    if (sc.cut.reveal(local)) {
        sc.budget = 0;
        rebuildScene();
    }
    const uint32_t u = sc.cut.visibleIndexOf(local);
    m_scene->clearSelection();
    if (u < m_items.size()) {
        m_items[u]->setSelected(true);
        m_canvas->setAutoFit(false);
        // room around the box, so that one near the edge of the graph can still be centred
        const QRectF seen = m_canvas->visibleSceneRect();
        const QPointF centre = m_items[u]->sceneBoundingRect().center();
        m_scene->setSceneRect(m_scene->sceneRect().united(QRectF(centre - QPointF(seen.width(), seen.height()) / 2, seen.size())));
        m_canvas->centerOn(centre);
        Q_EMIT m_canvas->viewportChanged();
    }
    showNode(int(globalOf(local)));
}

bool GraphView::selectNode(const QString& id)
{
    const int v = nodeIndex(id);
    if (v < 0 || m_scopes.empty())
        return false;
    if (scope().localOf(uint32_t(v)) == UINT32_MAX)
        popTo(0);
    selectLocal(scope().localOf(uint32_t(v)));
    return true;
}

bool GraphView::search(const QString& text)
{
    if (!m_graph || text.isEmpty())
        return false;
    const std::string needle = text.toLower().toStdString();
    auto contains = [&](std::string_view s) {
        return std::search(s.begin(), s.end(), needle.begin(), needle.end(),
                   [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; })
            != s.end();
    };
    if (text != m_lastSearch) {
        m_lastSearch = text;
        m_searchHit = -1;
    }
    // the next hit after the last one, wrapping: names, ids, metadata values, CIDs
    const size_t n = m_graph->names.size();
    for (size_t step = 1; step <= n; ++step) {
        const size_t v = (size_t(m_searchHit + 1) + step - 1) % n;
        const ComputationNode* node = m_graph->nodeOf[v];
        bool hit = contains(m_graph->names[v]);
        if (!hit && node) {
            hit = (node->outputCid && contains(*node->outputCid)) || (node->gradientCid && contains(*node->gradientCid));
            for (const auto& c : node->inputCids)
                hit = hit || contains(c);
            for (const auto& [k, value] : node->metadata)
                hit = hit || contains(value);
        }
        if (!hit)
            continue;
        m_searchHit = int(v);
        return selectNode(qs(m_graph->names[v]));
    }
    return false;
}

void GraphView::updateInfo()
{
    if (!m_graph || m_scopes.empty())
        return;
    const Scope& sc = scope();
    const auto& visible = sc.cut.visible();
    const auto groups = std::count_if(visible.begin(), visible.end(), [](const HierarchyItem& i) { return i.cluster; });
    m_info->setText(tr("%1 — step %2 · %3 nodes · %4 edges · loss provenance %5 node(s)%6 · showing %7 boxes (%8 groups) in %9 layers, "
                       "%10 column(s), %11 crossings%12 · %13")
                        .arg(QFileInfo(m_graph->path).fileName())
                        .arg(qulonglong(m_graph->checkpoint.step))
                        .arg(sc.input->nodeCount)
                        .arg(sc.input->edges.size())
                        .arg(m_graph->analysis.lossProvenanceChain.size())
                        .arg(m_graph->analysis.cycle.empty() ? QString() : tr(" · CYCLE"))
                        .arg(visible.size())
                        .arg(groups)
                        .arg(sc.layers)
                        .arg(sc.columns)
                        .arg(qulonglong(sc.crossings))
                        .arg(sc.farEdges ? tr(" · %n far edge(s) as stubs (select a box to follow them)", "", int(sc.farEdges)) : QString())
                        .arg(m_car ? tr("tensors from %1 (%2 blocks)").arg(QFileInfo(m_carPath).fileName()).arg(m_car->blocks().size())
                                   : tr("no CAR file: tensors not resolvable")));
}

void GraphView::showCluster(int cluster)
{
    if (m_scopes.empty())
        return;
    const GraphHierarchy& h = *scope().hierarchy;
    const GraphCluster& c = h.clusters[size_t(cluster)];
    m_selected = -1;
    m_selectedCluster = cluster;
    m_neighbourhood->setEnabled(false);
    QStringList text{tr("%1: %2").arg(QLatin1String(kindName(c.kind)), qs(c.label)), tr("nodes: %1").arg(c.size())};
    QStringList path;
    for (uint32_t p = c.parent; p != UINT32_MAX && p != 0; p = h.clusters[p].parent)
        path.prepend(qs(h.clusters[p].label));
    if (!path.isEmpty())
        text << tr("inside: %1").arg(path.join(QStringLiteral(" › ")));
    std::map<std::string, uint32_t> ops;
    for (uint32_t p = c.begin; p < c.end; ++p)
        ++ops[scope().input->op[h.order[p]]];
    std::vector<std::pair<uint32_t, std::string>> top;
    for (const auto& [op, k] : ops)
        top.push_back({k, op});
    std::stable_sort(top.begin(), top.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    text << tr("ops:");
    for (size_t i = 0; i < top.size() && i < 12; ++i)
        text << QStringLiteral("  %1 ×%2").arg(qs(top[i].second)).arg(top[i].first);
    text << tr("first members:");
    for (uint32_t p = c.begin; p < c.end && p < c.begin + 12; ++p)
        text << QStringLiteral("  ") + qs(m_graph->names[globalOf(h.order[p])]);
    text << QString() << tr("Double-click to open the group in place.");
    m_detail->setPlainText(text.join(QLatin1Char('\n')));
    updateHighlights();
}

bool GraphView::selectNodeForParameter(const QString& modulePath)
{
    if (!m_graph || modulePath.isEmpty())
        return false;
    const std::string path = modulePath.toStdString();
    for (const auto& [key, node] : m_graph->checkpoint.graph.nodes)
        for (const auto& [k, v] : node.metadata)
            if (k == "weight" && v == path)
                return selectNode(qs(key));
    return false;
}

QString GraphView::exportImage(const QString& path)
{
    return exportGraphImage(*m_scene, path);
}

} // namespace ckpt::ui
