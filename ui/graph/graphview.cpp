// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/graph/graphview.h"

#include "ui/models/formatting.h"

#include <QFileDialog>
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
#include <QVBoxLayout>
#include <QResizeEvent>
#include <QWheelEvent>

#include <unordered_map>
#include <unordered_set>

namespace ckpt::ui {

namespace {

enum class Highlight { None, Provenance, Selected, Consumer };

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
}

void GraphCanvas::resizeEvent(QResizeEvent* event)
{
    QGraphicsView::resizeEvent(event);
    if (m_autoFit)
        fit();
}

void GraphCanvas::fit()
{
    if (scene())
        fitInView(scene()->itemsBoundingRect(), Qt::KeepAspectRatio);
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
    , m_info(new QLabel(tr("Open a GradientCheckpoint (.json) or a ckpt-train run directory with graph/step-N.json."), this))
    , m_detail(new QPlainTextEdit(this))
{
    m_canvas->setScene(m_scene);
    m_detail->setReadOnly(true);
    m_info->setWordWrap(true);
    auto* fit = new QPushButton(tr("Fit"), this);
    auto* zoomIn = new QPushButton(tr("Zoom in"), this);
    auto* zoomOut = new QPushButton(tr("Zoom out"), this);
    auto* exportButton = new QPushButton(tr("Export PNG/SVG…"), this);
    auto* bar = new QHBoxLayout;
    bar->addWidget(m_info, 1);
    for (auto* b : {fit, zoomIn, zoomOut, exportButton})
        bar->addWidget(b);
    auto* split = new QSplitter(this);
    split->addWidget(m_canvas);
    split->addWidget(m_detail);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    split->setSizes({900, 280});
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
    connect(exportButton, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export graph"), QString(), tr("PNG (*.png);;SVG (*.svg)"));
        if (!path.isEmpty())
            m_info->setText(exportImage(path).isEmpty() ? tr("Written %1").arg(path) : tr("Could not write %1").arg(path));
    });
    connect(m_scene, &QGraphicsScene::selectionChanged, this, [this] {
        const auto items = m_scene->selectedItems();
        showNode(items.isEmpty() ? -1 : static_cast<NodeItem*>(items.front())->index());
    });
}

GraphView::~GraphView()
{
    // the scene (a child) dies after our members; its last selectionChanged must not reach showNode()
    disconnect(m_scene, nullptr, this, nullptr);
}

int GraphView::nodeItemCount() const
{
    int n = 0;
    for (auto* item : m_scene->items())
        if (item->flags() & QGraphicsItem::ItemIsSelectable)
            ++n;
    return n;
}

void GraphView::setGraph(std::shared_ptr<const GraphData> graph)
{
    m_scene->clear();
    m_detail->clear();
    m_graph = std::move(graph);
    if (!m_graph)
        return;
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
    for (size_t i = 0; i < layout.nodes.size(); ++i) {
        const std::string& id = m_graph->names[i];
        const auto it = byId.find(id);
        const QString label = it != byId.end() ? qs(it->second->op) : tr("(phantom)");
        auto* item = new NodeItem(int(i), layout.nodes[i], label);
        item->setToolTip(qs(id));
        if (provenance.count(id))
            item->setHighlight(Highlight::Provenance);
        m_scene->addItem(item);
    }
    m_info->setText(tr("%1 — step %2 · %3 nodes · %4 edges · %5 layers · %6 crossings · loss provenance %7 node(s)%8")
                        .arg(m_graph->path)
                        .arg(qulonglong(m_graph->checkpoint.step))
                        .arg(layout.nodes.size())
                        .arg(layout.edges.size())
                        .arg(layout.layerCount)
                        .arg(qulonglong(layout.crossings))
                        .arg(m_graph->analysis.lossProvenanceChain.size())
                        .arg(m_graph->analysis.cycle.empty() ? QString() : tr(" · CYCLE")));
    m_canvas->setAutoFit(true);
    m_canvas->fit();
}

bool GraphView::selectNode(const QString& id)
{
    if (!m_graph)
        return false;
    for (auto* item : m_scene->items())
        if (item->flags() & QGraphicsItem::ItemIsSelectable && item->toolTip() == id) {
            m_scene->clearSelection();
            item->setSelected(true);
            m_canvas->centerOn(item);
            return true;
        }
    return false;
}

void GraphView::showNode(int index)
{
    if (!m_graph)
        return;
    const std::unordered_set<std::string> provenance(m_graph->analysis.lossProvenanceChain.begin(),
        m_graph->analysis.lossProvenanceChain.end());
    // consumers of the selected node's output
    std::unordered_set<std::string> consumers;
    QStringList text;
    if (index >= 0) {
        const std::string& id = m_graph->names[size_t(index)];
        text << tr("id: %1").arg(qs(id));
        for (const auto& [key, node] : m_graph->checkpoint.graph.nodes) {
            if (key != id)
                continue;
            text << tr("op: %1").arg(qs(node.op));
            for (const auto& c : node.inputCids)
                text << tr("input: %1").arg(qs(c));
            text << tr("output: %1").arg(node.outputCid ? qs(*node.outputCid) : tr("(none)"));
            text << tr("gradient: %1").arg(node.gradientCid ? qs(*node.gradientCid) : tr("(none)"));
            for (const auto& [k, v] : node.metadata)
                text << qs(k) + QStringLiteral(" = ") + qs(v);
            if (node.outputCid)
                for (const auto& c : findConsumers(m_graph->checkpoint.graph, *node.outputCid))
                    consumers.insert(c);
        }
        text << tr("consumers: %1").arg(consumers.size());
        text << tr("(tensor bytes resolve through a CAR file: not wired in this build)");
    }
    for (auto* item : m_scene->items()) {
        if (!(item->flags() & QGraphicsItem::ItemIsSelectable))
            continue;
        auto* node = static_cast<NodeItem*>(item);
        const std::string& id = m_graph->names[size_t(node->index())];
        node->setHighlight(consumers.count(id) ? Highlight::Consumer
                : provenance.count(id)         ? Highlight::Provenance
                                               : Highlight::None);
    }
    m_detail->setPlainText(text.join(QLatin1Char('\n')));
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
