// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// GraphView's detail pane: a node's op, metadata and edges, and its output and gradient tensors
// resolved through the CAR file the view was given.
#include "ui/graph/graphview.h"

#include "ui/models/formatting.h"

#include "core/graph/blob.h"
#include "core/graph/car.h"
#include "core/graph/checkpointfiles.h"

#include <QPlainTextEdit>
#include <QPushButton>

namespace ckpt::ui {

void GraphView::showNode(int index)
{
    if (!m_graph)
        return;
    m_selected = index;
    m_selectedCluster = -1;
    m_neighbourhood->setEnabled(index >= 0);
    QStringList text;
    if (index >= 0 && size_t(index) < m_graph->names.size()) {
        text << tr("id: %1").arg(qs(m_graph->names[size_t(index)]));
        if (const ComputationNode* node = m_graph->nodeOf[size_t(index)]) {
            text << tr("op: %1").arg(qs(node->op));
            std::string dtype = "f32";
            for (const auto& [k, v] : node->metadata) {
                text << qs(k) + QStringLiteral(" = ") + qs(v);
                if (k == "dtype")
                    dtype = v;
            }
            for (const auto& c : node->inputCids)
                text << tr("input: %1").arg(qs(c));
            const size_t consumers = node->outputCid ? findConsumers(m_graph->checkpoint.graph, *node->outputCid).size() : 0;
            text << tr("consumers: %1").arg(consumers);
            text << tr("edges: %1 in, %2 out").arg(m_graph->inOffset[size_t(index) + 1] - m_graph->inOffset[size_t(index)]).arg(m_graph->outOffset[size_t(index) + 1] - m_graph->outOffset[size_t(index)]);
            text << QString() << tensorText(tr("output"), node->outputCid, dtype);
            text << QString() << tensorText(tr("gradient"), node->gradientCid, dtype);
        } else {
            text << tr("(phantom: named by an edge, not stored as a node)");
        }
    } else {
        text << tr("Click a box for its details: a group's ops and members; a node's op, metadata, consumers, and its output "
                   "and gradient tensors resolved through the CAR file. Double-click a group to open it.");
    }
    m_detail->setPlainText(text.join(QLatin1Char('\n')));
    updateHighlights();
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
    auto store = openCarFile(path.toStdString());
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

} // namespace ckpt::ui
