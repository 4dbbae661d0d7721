// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/graph/graphview.h"

#include "ui/models/formatting.h"

#include "core/graph/blob.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSplitter>
#include <QStyleOptionGraphicsItem>
#include <QSvgGenerator>
#include <QTimer>
#include <QVBoxLayout>
#include <QResizeEvent>
#include <QWheelEvent>

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace ckpt::ui {

namespace {

enum class Highlight { None, Provenance, Selected, Consumer };
constexpr int NodeItemType = QGraphicsItem::UserType + 1;

/** One node box; text only when the box is large enough on screen to read it. */
class NodeItem final : public QGraphicsItem
{
public:
    NodeItem(int index, const LayoutNode& n, QString label)
        : m_index(index)
        , m_rect(0, 0, n.width, n.height)
        , m_label(std::move(label))
    {
        setPos(n.x, n.y);
        setFlag(ItemIsSelectable);
    }
    int type() const override { return NodeItemType; }
    QRectF boundingRect() const override { return m_rect; }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override
    {
        const qreal lod = option->levelOfDetailFromTransform(p->worldTransform());
        QColor fill(225, 235, 245);
        if (m_highlight == Highlight::Provenance)
            fill = QColor(255, 200, 120);
        else if (m_highlight == Highlight::Consumer)
            fill = QColor(170, 220, 170);
        if (isSelected())
            fill = QColor(120, 170, 255);
        if (lod < 0.35) { // level of detail: plain rects for large graphs zoomed out
            p->fillRect(m_rect, fill);
            return;
        }
        p->setPen(QPen(QColor(60, 80, 110), 0));
        p->setBrush(fill);
        p->drawRoundedRect(m_rect, 4, 4);
        p->drawText(m_rect.adjusted(3, 0, -3, 0), Qt::AlignCenter, m_label);
    }
    int index() const { return m_index; }
    void setHighlight(Highlight h)
    {
        m_highlight = h;
        update();
    }

private:
    int m_index;
    QRectF m_rect;
    QString m_label;
    Highlight m_highlight = Highlight::None;
};

/** A collapsed chain: one opaque box over the members' bounding box, covering the chain's inner edges. */
class GroupItem final : public QGraphicsItem
{
public:
    enum { Type = UserType + 2 };
    GroupItem(int group, const LayoutGroup& g, QString label)
        : m_group(group)
        , m_rect(0, 0, g.width, g.height)
        , m_label(std::move(label))
    {
        setPos(g.x, g.y);
        setZValue(1); // above the edges and any box its bounding box touches
    }
    int type() const override { return Type; }
    QRectF boundingRect() const override { return m_rect.adjusted(-2, -2, 2, 2); }
    void paint(QPainter* p, const QStyleOptionGraphicsItem* option, QWidget*) override
    {
        const qreal lod = option->levelOfDetailFromTransform(p->worldTransform());
        const QColor fill(235, 225, 250);
        if (lod < 0.35) {
            p->fillRect(m_rect, fill);
            return;
        }
        p->setPen(QPen(QColor(110, 80, 160), 0, Qt::DashLine));
        p->setBrush(fill);
        p->drawRoundedRect(m_rect, 6, 6);
        p->setPen(QColor(60, 40, 100));
        p->drawText(m_rect.adjusted(4, 4, -4, -4), Qt::AlignCenter | Qt::TextWordWrap, m_label);
    }
    int group() const { return m_group; }

private:
    int m_group;
    QRectF m_rect;
    QString m_label;
};

} // namespace

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
    if (scene())
        fitInView(scene()->itemsBoundingRect(), Qt::KeepAspectRatio);
    Q_EMIT viewportChanged();
}

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

void GraphCanvas::wheelEvent(QWheelEvent* event)
{
    zoomBy(std::pow(1.0015, event->angleDelta().y()));
    event->accept();
}

GraphView::GraphView(QWidget* parent)
    : QWidget(parent)
    , m_scene(new QGraphicsScene(this))
    , m_canvas(new GraphCanvas(this))
    , m_minimap(nullptr)
    , m_minimapTimer(new QTimer(this))
    , m_info(new QLabel(tr("Open a GradientCheckpoint (.json) or a ckpt-train run directory with graph/step-N.json."), this))
    , m_detail(new QPlainTextEdit(this))
    , m_collapse(new QPushButton(tr("Collapse chains"), this))
    , m_expand(new QPushButton(tr("Expand all"), this))
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
    m_collapse->setToolTip(tr("Collapse every chain of single-input/single-output ops into one box (double-click a box to expand it)"));
    auto* fit = new QPushButton(tr("Fit"), this);
    auto* zoomIn = new QPushButton(tr("Zoom in"), this);
    auto* zoomOut = new QPushButton(tr("Zoom out"), this);
    auto* openCarButton = new QPushButton(tr("Open CAR…"), this);
    openCarButton->setToolTip(tr("Resolve the nodes' tensor CIDs through a CAR file"));
    auto* exportButton = new QPushButton(tr("Export PNG/SVG…"), this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_info, 1);
    for (auto* b : {fit, zoomIn, zoomOut, m_collapse, m_expand, openCarButton, exportButton})
        bar->addWidget(b);
    auto* side = new QSplitter(Qt::Vertical, this);
    side->addWidget(m_minimap);
    side->addWidget(m_detail);
    side->setStretchFactor(0, 1);
    side->setStretchFactor(1, 3);
    side->setSizes({160, 480});
    auto* split = new QSplitter(this);
    split->addWidget(m_canvas);
    split->addWidget(side);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({700, 500});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(bar);
    layout->addWidget(split, 1);
    connect(fit, &QPushButton::clicked, m_canvas, [this] {
        m_canvas->setAutoFit(true);
        m_canvas->fit();
    });
    connect(zoomIn, &QPushButton::clicked, this, [this] { m_canvas->zoomBy(1.25); });
    connect(zoomOut, &QPushButton::clicked, this, [this] { m_canvas->zoomBy(0.8); });
    connect(m_collapse, &QPushButton::clicked, this, [this] { setAllGroupsCollapsed(true); });
    connect(m_expand, &QPushButton::clicked, this, [this] { setAllGroupsCollapsed(false); });
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
        const auto items = m_scene->selectedItems();
        showNode(items.isEmpty() || items.front()->type() != NodeItemType ? -1 : static_cast<NodeItem*>(items.front())->index());
    });
    // double-click: a node of a chain collapses the chain, a collapsed chain expands
    connect(m_canvas, &GraphCanvas::itemDoubleClicked, this, [this](QGraphicsItem* item) {
        if (item->type() == GroupItem::Type)
            setGroupCollapsed(static_cast<GroupItem*>(item)->group(), false);
        else if (item->type() == NodeItemType)
            if (const int g = groupOfNode(static_cast<NodeItem*>(item)->index()); g >= 0)
                setGroupCollapsed(g, true);
    });
}

GraphView::~GraphView()
{
    // the scene (a child) dies after our members; its last selectionChanged must not reach showNode()
    disconnect(m_scene, nullptr, this, nullptr);
}

int GraphView::nodeItemCount() const
{
    return int(m_nodeItems.size());
}

int GraphView::visibleNodeItemCount() const
{
    return int(std::count_if(m_nodeItems.begin(), m_nodeItems.end(), [](QGraphicsItem* i) { return i->isVisible(); }));
}

void GraphView::setGraph(std::shared_ptr<const GraphData> graph)
{
    m_scene->clearSelection();
    m_scene->clear();
    m_nodeItems.clear();
    m_groupItems.clear();
    m_groupOf.clear();
    m_selected = -1;
    m_detail->clear();
    m_graph = std::move(graph);
    m_car = m_graph ? m_graph->car : nullptr;
    m_carPath = m_graph ? m_graph->carPath : QString();
    m_collapse->setEnabled(false);
    m_expand->setEnabled(false);
    if (!m_graph) {
        m_minimap->refresh();
        return;
    }
    const auto& layout = m_graph->layout;
    std::unordered_map<std::string, const ComputationNode*> byId;
    for (const auto& [key, node] : m_graph->checkpoint.graph.nodes)
        byId.emplace(key, &node);
    const std::unordered_set<std::string> provenance(m_graph->analysis.lossProvenanceChain.begin(),
        m_graph->analysis.lossProvenanceChain.end());
    QPainterPath edges;
    for (const auto& e : layout.edges) {
        if (e.selfLoop || e.points.empty())
            continue;
        edges.moveTo(e.points.front().first, e.points.front().second);
        for (size_t i = 1; i < e.points.size(); ++i)
            edges.lineTo(e.points[i].first, e.points[i].second);
    }
    // all edges in one path item: 100k separate items cost more than they are worth
    m_scene->addPath(edges, QPen(QColor(120, 120, 140), 0))->setZValue(-1);
    auto opOf = [&](size_t i) {
        const auto it = byId.find(m_graph->names[i]);
        return it != byId.end() ? qs(it->second->op) : tr("(phantom)");
    };
    m_nodeItems.reserve(layout.nodes.size());
    for (size_t i = 0; i < layout.nodes.size(); ++i) {
        const std::string& id = m_graph->names[i];
        auto* item = new NodeItem(int(i), layout.nodes[i], opOf(i));
        item->setToolTip(qs(id));
        if (provenance.count(id))
            item->setHighlight(Highlight::Provenance);
        m_scene->addItem(item);
        m_nodeItems.push_back(item);
    }
    // chains: hidden group boxes until collapsed
    m_groupOf.assign(layout.nodes.size(), -1);
    for (size_t g = 0; g < layout.groups.size(); ++g) {
        const LayoutGroup& group = layout.groups[g];
        QStringList ops;
        for (uint32_t n : group.nodes) {
            if (n < m_groupOf.size())
                m_groupOf[n] = int(g);
            if (ops.size() < 6)
                ops << opOf(n);
        }
        if (group.nodes.size() > 6)
            ops << QStringLiteral("…");
        auto* item = new GroupItem(int(g), group, tr("%n ops\n", "", int(group.nodes.size())) + ops.join(QStringLiteral(" → ")));
        item->setToolTip(tr("Collapsed chain of %n ops (double-click to expand)", "", int(group.nodes.size())));
        item->setVisible(false);
        m_scene->addItem(item);
        m_groupItems.push_back(item);
    }
    m_collapse->setEnabled(!m_groupItems.empty());
    m_expand->setEnabled(!m_groupItems.empty());
    updateInfo();
    m_canvas->setAutoFit(true);
    m_canvas->fit();
    m_minimap->refresh();
    showNode(-1);
}

void GraphView::updateInfo()
{
    if (!m_graph)
        return;
    const auto& layout = m_graph->layout;
    const int collapsed = int(std::count_if(m_groupItems.begin(), m_groupItems.end(), [](QGraphicsItem* i) { return i->isVisible(); }));
    m_info->setText(tr("%1 — step %2 · %3 nodes · %4 edges · %5 layers · %6 crossings · loss provenance %7 node(s)%8 · "
                       "%9 chain(s), %10 collapsed · %11")
                        .arg(m_graph->path)
                        .arg(qulonglong(m_graph->checkpoint.step))
                        .arg(layout.nodes.size())
                        .arg(layout.edges.size())
                        .arg(layout.layerCount)
                        .arg(qulonglong(layout.crossings))
                        .arg(m_graph->analysis.lossProvenanceChain.size())
                        .arg(m_graph->analysis.cycle.empty() ? QString() : tr(" · CYCLE"))
                        .arg(m_groupItems.size())
                        .arg(collapsed)
                        .arg(m_car ? tr("tensors from %1 (%2 blocks)").arg(QFileInfo(m_carPath).fileName()).arg(m_car->blocks().size())
                                   : tr("no CAR file: tensors not resolvable")));
}

int GraphView::groupCount() const
{
    return int(m_groupItems.size());
}

bool GraphView::isGroupCollapsed(int group) const
{
    return group >= 0 && group < groupCount() && m_groupItems[size_t(group)]->isVisible();
}

int GraphView::groupOfNode(int node) const
{
    return node >= 0 && size_t(node) < m_groupOf.size() ? m_groupOf[size_t(node)] : -1;
}

void GraphView::setGroupCollapsed(int group, bool collapsed)
{
    if (group < 0 || group >= groupCount() || isGroupCollapsed(group) == collapsed)
        return;
    const LayoutGroup& g = m_graph->layout.groups[size_t(group)];
    for (uint32_t n : g.nodes)
        if (n < m_nodeItems.size()) {
            if (collapsed)
                m_nodeItems[n]->setSelected(false);
            m_nodeItems[n]->setVisible(!collapsed);
        }
    m_groupItems[size_t(group)]->setVisible(collapsed);
    updateInfo();
    m_minimapTimer->start();
}

void GraphView::setAllGroupsCollapsed(bool collapsed)
{
    for (int g = 0; g < groupCount(); ++g)
        setGroupCollapsed(g, collapsed);
}

bool GraphView::selectNode(const QString& id)
{
    if (!m_graph)
        return false;
    const std::string key = id.toStdString();
    for (size_t i = 0; i < m_graph->names.size(); ++i)
        if (m_graph->names[i] == key) {
            setGroupCollapsed(groupOfNode(int(i)), false);
            m_scene->clearSelection();
            m_nodeItems[i]->setSelected(true);
            m_canvas->centerOn(m_nodeItems[i]);
            return true;
        }
    return false;
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

void GraphView::setCar(std::shared_ptr<const CarStore> car, const QString& path)
{
    m_car = std::move(car);
    m_carPath = path;
    updateInfo();
    showNode(m_selected);
}

QString GraphView::openCar(const QString& path)
{
    auto store = openCarFile(path);
    if (!store)
        return QString::fromStdString(store.error().message());
    setCar(std::move(*store), path);
    return {};
}

QString GraphView::nodeDetail() const
{
    return m_detail->toPlainText();
}

QString GraphView::tensorText(const QString& what, const std::optional<std::string>& cid, const std::string& dtype) const
{
    if (!cid || cid->empty())
        return tr("%1: (none)").arg(what);
    QStringList out{tr("%1: %2").arg(what, qs(*cid))};
    if (!m_car) {
        out << tr("  (open the CAR file with the tensor blocks to see the values)");
        return out.join(QLatin1Char('\n'));
    }
    auto bytes = m_car->resolve(*cid);
    if (!bytes) {
        out << QStringLiteral("  ") + qs(bytes.error().what);
        return out.join(QLatin1Char('\n'));
    }
    // the node's dtype metadata names the element type; f32 is what ipfrs tensors default to
    BlobView view = BlobView::F32;
    if (auto v = blobViewFromName(dtype); v && bytes->size() % blobViewWidth(*v) == 0)
        view = *v;
    else if (bytes->size() % 4 != 0)
        view = BlobView::U8;
    auto stats = blobStats(*bytes, view);
    auto values = blobValues(*bytes, view, DetailValues);
    if (!stats || !values) {
        out << QStringLiteral("  ") + qs((!stats ? stats.error() : values.error()).what);
        return out.join(QLatin1Char('\n'));
    }
    const auto& st = *stats;
    out << tr("  %1 bytes as %2: %3 values · min %4 · max %5 · mean %6 · std %7 · L2 %8%9")
               .arg(bytes->size())
               .arg(QString::fromLatin1(blobViewName(view)))
               .arg(st.count)
               .arg(formatNumber(st.min), formatNumber(st.max), formatNumber(st.mean), formatNumber(st.std), formatNumber(st.l2))
               .arg(st.nan || st.inf ? tr(" · NaN %1 · Inf %2").arg(st.nan).arg(st.inf) : QString());
    QStringList vals;
    for (double v : *values)
        vals << formatNumber(v);
    for (qsizetype i = 0; i < vals.size(); i += 8)
        out << QStringLiteral("    ") + vals.mid(i, 8).join(QStringLiteral("  "));
    if (st.count > values->size())
        out << tr("    … %1 more").arg(st.count - values->size());
    return out.join(QLatin1Char('\n'));
}

void GraphView::showNode(int index)
{
    if (!m_graph)
        return;
    m_selected = index;
    const std::unordered_set<std::string> provenance(m_graph->analysis.lossProvenanceChain.begin(),
        m_graph->analysis.lossProvenanceChain.end());
    // consumers of the selected node's output
    std::unordered_set<std::string> consumers;
    QStringList text;
    if (index >= 0 && size_t(index) < m_graph->names.size()) {
        const std::string& id = m_graph->names[size_t(index)];
        text << tr("id: %1").arg(qs(id));
        bool found = false;
        for (const auto& [key, node] : m_graph->checkpoint.graph.nodes) {
            if (key != id)
                continue;
            found = true;
            text << tr("op: %1").arg(qs(node.op));
            std::string dtype = "f32";
            for (const auto& [k, v] : node.metadata) {
                text << qs(k) + QStringLiteral(" = ") + qs(v);
                if (k == "dtype")
                    dtype = v;
            }
            for (const auto& c : node.inputCids)
                text << tr("input: %1").arg(qs(c));
            if (node.outputCid)
                for (const auto& c : findConsumers(m_graph->checkpoint.graph, *node.outputCid))
                    consumers.insert(c);
            text << tr("consumers: %1").arg(consumers.size());
            text << QString() << tensorText(tr("output"), node.outputCid, dtype);
            text << QString() << tensorText(tr("gradient"), node.gradientCid, dtype);
        }
        if (!found)
            text << tr("(phantom: named by an edge, not stored as a node)");
    } else {
        text << tr("Click a node for its details: op, metadata, consumers, and its output and gradient tensors "
                   "resolved through the CAR file.");
    }
    for (size_t i = 0; i < m_nodeItems.size(); ++i) {
        auto* node = static_cast<NodeItem*>(m_nodeItems[i]);
        const std::string& id = m_graph->names[i];
        node->setHighlight(consumers.count(id) ? Highlight::Consumer
                : provenance.count(id)         ? Highlight::Provenance
                                               : Highlight::None);
    }
    m_detail->setPlainText(text.join(QLatin1Char('\n')));
    m_minimapTimer->start();
}

QString GraphView::exportImage(const QString& path)
{
    const QRectF bounds = m_scene->itemsBoundingRect().adjusted(-10, -10, 10, 10);
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) {
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setSize(bounds.size().toSize());
        gen.setViewBox(QRectF(QPointF(0, 0), bounds.size()));
        QPainter p(&gen);
        m_scene->render(&p, QRectF(QPointF(0, 0), bounds.size()), bounds);
        return p.end() ? QString() : tr("could not write %1").arg(path);
    }
    const double scale = std::min(1.0, 8000.0 / std::max(bounds.width(), bounds.height()));
    QImage image((bounds.size() * scale).toSize().expandedTo(QSize(1, 1)), QImage::Format_ARGB32);
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing);
    m_scene->render(&p, QRectF(image.rect()), bounds);
    p.end();
    return image.save(path) ? QString() : tr("could not write %1").arg(path);
}

} // namespace ckpt::ui
