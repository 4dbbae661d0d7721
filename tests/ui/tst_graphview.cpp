// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// The graph view on a real ckpt-train GradientCheckpoint (the CAR beside the JSON is opened with it,
// node detail resolves tensors through it, groups open and close, the minimap follows) and on
// generated graphs of 10,000-20,000 nodes (chain, wide, branching, cyclic): the first screen is
// bounded, groups open in place and close again, search finds and centres a node, focus views.
#include "ui/graph/graphview.h"
#include "ui/models/formatting.h"

#include "core/graph/locate.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontMetrics>
#include <QLocale>
#include <QProcess>
#include <QGraphicsScene>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>
#include <cstring>

using namespace ckpt;
using namespace ckpt::ui;

namespace {

/** A GradientCheckpoint over \a n nodes and \a edges (producer, consumer) with ops cycling through \a ops; the loss is the last node. */
std::shared_ptr<const GraphData> generated(uint32_t n, const std::vector<std::pair<uint32_t, uint32_t>>& edges,
    std::vector<std::string> ops = {"matmul", "add", "relu"})
{
    GradientCheckpoint c;
    c.step = 7;
    c.graph.nodes.reserve(n);
    char id[32];
    for (uint32_t i = 0; i < n; ++i) {
        std::snprintf(id, sizeof id, "n%06u", i);
        ComputationNode node;
        node.id = id;
        node.op = ops[i % ops.size()];
        node.outputCid = "bafkout" + std::to_string(i);
        c.graph.nodes.emplace_back(node.id, std::move(node));
    }
    for (const auto& [a, b] : edges) {
        c.graph.nodes[b].second.inputCids.push_back(*c.graph.nodes[a].second.outputCid);
        c.graph.edges.emplace_back(c.graph.nodes[a].first, c.graph.nodes[b].first);
    }
    c.lossCid = c.graph.nodes.back().second.outputCid;
    return graphDataFor(std::move(c), QStringLiteral("generated.json"));
}

std::vector<std::pair<uint32_t, uint32_t>> chainEdges(uint32_t n)
{
    std::vector<std::pair<uint32_t, uint32_t>> e;
    for (uint32_t i = 1; i < n; ++i)
        e.push_back({i - 1, i});
    return e;
}

/** One input fanning out to \a width parallel branches of three nodes that all feed one sum. */
std::vector<std::pair<uint32_t, uint32_t>> wideEdges(uint32_t width)
{
    std::vector<std::pair<uint32_t, uint32_t>> e;
    const uint32_t sink = 3 * width + 1;
    for (uint32_t b = 0; b < width; ++b) {
        const uint32_t first = 1 + 3 * b;
        e.push_back({0, first});
        e.push_back({first, first + 1});
        e.push_back({first + 1, first + 2});
        e.push_back({first + 2, sink});
    }
    return e;
}

std::vector<std::pair<uint32_t, uint32_t>> branchingEdges(uint32_t n)
{
    std::vector<std::pair<uint32_t, uint32_t>> e;
    for (uint32_t i = 0; i < n; ++i)
        for (uint32_t c : {2 * i + 1, 2 * i + 2})
            if (c < n)
                e.push_back({i, c});
    return e;
}

/** A chain with skips, plus back edges every 97 nodes (cycles) and self loops. */
std::vector<std::pair<uint32_t, uint32_t>> cyclicEdges(uint32_t n)
{
    auto e = chainEdges(n);
    for (uint32_t i = 8; i < n; i += 13)
        e.push_back({i - 8, i});
    for (uint32_t i = 200; i < n; i += 97) {
        e.push_back({i, i - 150});
        e.push_back({i, i});
    }
    return e;
}

/** Where every node is shown: its own box (-1) or the group holding it. */
std::vector<int> shownAs(const GraphView& view)
{
    std::vector<int> out(size_t(view.nodeCount()));
    for (int v = 0; v < view.nodeCount(); ++v)
        out[size_t(v)] = view.visibleClusterOf(v);
    return out;
}

} // namespace

Q_DECLARE_METATYPE(std::shared_ptr<const ckpt::ui::GraphData>)

class TstGraphView : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    Workspace m_ws;

private Q_SLOTS:
    void initTestCase()
    {
        const QString train = QStringLiteral(CKPT_BIN_DIR "/ckpt-train");
        QVERIFY2(QFileInfo(train).isExecutable(), "ckpt-train is built with the project");
        QProcess p;
        p.start(train, {QStringLiteral("--out"), m_dir.path(), QStringLiteral("--steps"), QStringLiteral("3"),
                           QStringLiteral("--layout"), QStringLiteral("training-record,gradient-checkpoint"),
                           QStringLiteral("--hidden"), QStringLiteral("8"), QStringLiteral("--dataset-size"), QStringLiteral("256")});
        QVERIFY(p.waitForFinished(60000));
        QVERIFY2(p.exitCode() == 0, p.readAllStandardError().constData());
        m_ws = loadWorkspace({m_dir.path()}, Progress::none());
        QVERIFY2(m_ws.errors.isEmpty(), qPrintable(m_ws.errors.join(QLatin1Char('\n'))));
        QVERIFY(m_ws.graph);
    }

    void carBesideTheJsonIsOpened()
    {
        QCOMPARE(QFileInfo(m_ws.graph->path).fileName(), QStringLiteral("step-3.json"));
        QVERIFY2(m_ws.graph->car, qPrintable(m_ws.graph->carError));
        QCOMPARE(QFileInfo(m_ws.graph->carPath).fileName(), QStringLiteral("step-3.car"));
        QCOMPARE(carPathFor("/r/graph/step-12.json"), std::string("/r/graph/step-12.car"));
    }

    void nodeDetailResolvesTensors()
    {
        GraphView view;
        view.resize(1200, 700);
        view.show();
        view.setGraph(m_ws.graph);
        QCOMPARE(view.nodeCount(), int(m_ws.graph->names.size()));
        // the first matmul: x [32, 8] times w1 [8, 8] -> [32, 8], with the gradient of input.weight [8, 8]
        const ComputationNode* matmul = nullptr;
        for (const auto& [key, node] : m_ws.graph->checkpoint.graph.nodes)
            if (node.op == "matmul") {
                matmul = &node;
                break;
            }
        QVERIFY(matmul && matmul->outputCid && matmul->gradientCid);
        QVERIFY(view.selectNode(QString::fromStdString(matmul->id)));
        const QString detail = view.nodeDetail();
        QVERIFY2(detail.contains(QStringLiteral("op: matmul")), qPrintable(detail));
        QVERIFY2(detail.contains(QStringLiteral("1024 bytes as f32: 256 values")), qPrintable(detail));
        QVERIFY2(detail.contains(QStringLiteral("256 bytes as f32: 64 values")), qPrintable(detail));
        // the listed values are the block's floats
        auto bytes = m_ws.graph->car->resolve(*matmul->outputCid);
        QVERIFY(bytes && bytes->size() == 1024);
        float first = 0;
        std::memcpy(&first, bytes->data(), 4);
        QVERIFY2(detail.contains(formatNumber(first)), qPrintable(detail));
        QVERIFY(detail.contains(QStringLiteral("… 208 more")));

        // without a CAR the detail says how to get the values; a broken CAR is an error with its name
        view.setCar(nullptr, QString());
        QVERIFY(view.nodeDetail().contains(QStringLiteral("open the CAR file")));
        QTemporaryDir tmp;
        const QString bogus = QDir(tmp.path()).filePath(QStringLiteral("broken.car"));
        QFile f(bogus);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\x05not a car");
        f.close();
        const QString error = view.openCar(bogus);
        QVERIFY2(error.contains(QStringLiteral("broken.car")), qPrintable(error));
        QCOMPARE(view.openCar(m_ws.graph->carPath), QString());
        QVERIFY(view.nodeDetail().contains(QStringLiteral("256 values")));
        // the parameter cross-link: a module path selects the node that uses it
        QVERIFY(view.selectNodeForParameter(QStringLiteral("output.bias")));
        QVERIFY2(view.nodeDetail().contains(QStringLiteral("weight = output.bias")), qPrintable(view.nodeDetail()));
        QVERIFY(!view.selectNodeForParameter(QStringLiteral("no.such")));
    }

    void groupsOpenAndClose()
    {
        GraphView view;
        view.resize(1200, 700);
        view.show();
        view.setGraph(m_ws.graph);
        // a few dozen nodes fit the first screen: every group is open, every node its own box
        const int all = int(m_ws.graph->names.size());
        QCOMPARE(view.visibleNodeItemCount(), all);
        QCOMPARE(view.visibleItemCount(), all);
        QVERIFY2(view.hierarchy()->clusters.size() > 1, "the MLP's matmul -> add -> layer_norm -> ... chain is a group");
        // closing the group of a node folds it into one box; opening it restores every box
        int node = -1;
        for (int v = 0; v < all && node < 0; ++v)
            if (view.hierarchy()->parent[size_t(v)] != 0)
                node = v;
        QVERIFY(node >= 0);
        const int group = int(view.hierarchy()->parent[size_t(node)]);
        const int members = int(view.hierarchy()->clusters[size_t(group)].size());
        QVERIFY(view.collapseCluster(group));
        QVERIFY(!view.isClusterOpen(group));
        QCOMPARE(view.visibleClusterOf(node), group);
        QCOMPARE(view.visibleNodeItemCount(), all - members);
        QCOMPARE(view.visibleItemCount(), all - members + 1);
        // selecting a member opens it again
        QVERIFY(view.selectNode(QString::fromStdString(m_ws.graph->names[size_t(node)])));
        QVERIFY(view.isClusterOpen(group));
        QCOMPARE(view.visibleNodeItemCount(), all);
        QCOMPARE(view.visibleClusterOf(node), -1);
        // every drawn edge has its arrowhead
        QVERIFY(view.drawnEdgeCount() > 0);
        QCOMPARE(view.arrowheadCount(), view.drawnEdgeCount());
    }

    void minimapFollowsTheView()
    {
        GraphView view;
        view.resize(1200, 700);
        view.show();
        view.setGraph(m_ws.graph);
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QTRY_VERIFY(!view.minimap()->overview().isNull()); // drawn shortly after a re-layout, not during it
        const QRectF fitted = view.minimap()->viewRect();
        QVERIFY(!fitted.isEmpty());
        view.canvas()->zoomBy(4.0);
        const QRectF zoomed = view.minimap()->viewRect();
        QVERIFY2(zoomed.width() < fitted.width() / 2, qPrintable(QStringLiteral("%1 vs %2").arg(zoomed.width()).arg(fitted.width())));
        // clicking the minimap centres the main view there
        const QPointF target = view.itemRectOfNode(int(m_ws.graph->names.size()) - 1).center();
        QTest::mouseClick(view.minimap()->viewport(), Qt::LeftButton, {}, view.minimap()->mapFromScene(target));
        QVERIFY(view.canvas()->visibleSceneRect().contains(target));
    }

    /**
     * Fitting on a resize must not make the scroll bars come and go forever. The layout leaves a
     * margin around the boxes in the scene rectangle, so a tall graph fitted by its height can be
     * just wider than the viewport: the horizontal bar appears, the viewport loses its height, the
     * smaller fit needs no bar, the bar goes, and so on (the app spun its event loop at full CPU
     * with the Graph panel at 771x726; these are that graph's rectangles). Canvases of many
     * shapes around it settle after a few events.
     */
    void fitOnResizeSettles()
    {
        QGraphicsScene scene;
        scene.addRect(QRectF(-4, -4, 530, 606));
        scene.setSceneRect(QRectF(-60, -60, 644, 720));
        GraphCanvas canvas;
        canvas.setScene(&scene);
        canvas.resize(700, 700);
        canvas.show();
        QVERIFY(QTest::qWaitForWindowExposed(&canvas));
        int resizes = 0, worst = 0;
        QSize worstSize;
        // a loop never returns from processEvents(): past 50 resizes, stop fitting to end it
        connect(&canvas, &GraphCanvas::resized, &canvas, [&] {
            if (++resizes > 50)
                canvas.setAutoFit(false);
        });
        for (int w = 640; w <= 900; w += 5)
            for (int h = 600; h <= 840; h += 8) {
                resizes = 0;
                canvas.setAutoFit(true);
                canvas.resize(w, h);
                for (int turn = 0; turn < 20; ++turn)
                    QCoreApplication::processEvents();
                if (resizes > worst) {
                    worst = resizes;
                    worstSize = QSize(w, h);
                }
            }
        QVERIFY2(worst <= 3, qPrintable(QStringLiteral("%1 resizes after one resize to %2x%3").arg(worst).arg(worstSize.width()).arg(worstSize.height())));
    }

    void generatedGraphs_data()
    {
        QTest::addColumn<std::shared_ptr<const GraphData>>("graph");
        QTest::newRow("chain 10000") << generated(10000, chainEdges(10000));
        QTest::newRow("wide 3000 x 3") << generated(9002, wideEdges(3000), {"input", "matmul", "relu", "add"});
        QTest::newRow("branching 20000") << generated(20000, branchingEdges(20000), {"split"});
        QTest::newRow("cyclic 20000") << generated(20000, cyclicEdges(20000), {"matmul", "add", "relu", "softmax", "layernorm"});
    }

    void generatedGraphs()
    {
        QFETCH(std::shared_ptr<const GraphData>, graph);
        GraphView view;
        view.resize(1400, 900);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setGraph(graph);
        const int n = int(graph->names.size());
        QCOMPARE(view.nodeCount(), n);
        // the first screen: a bounded number of boxes, most of them groups, every node inside one of them
        const int first = view.visibleItemCount();
        QVERIFY2(first <= int(GraphView::OverviewBudget) && first >= 3, qPrintable(QString::number(first)));
        QVERIFY2(view.visibleNodeItemCount() < first, "groups, not single nodes");
        const auto before = shownAs(view);
        QVERIFY(std::count(before.begin(), before.end(), -1) == view.visibleNodeItemCount());
        // every group's box holds its bold 11 px title and count at zoom 1 (none cut to "matm…"),
        // up to the widest box there is
        {
            QFont bold = view.canvas()->scene()->font();
            bold.setPixelSize(11);
            bold.setBold(true);
            const QFontMetrics metrics(bold);
            std::vector<bool> checked(view.hierarchy()->clusters.size(), false);
            for (int v = 0; v < n; ++v) {
                const int c = before[size_t(v)];
                if (c <= 0 || checked[size_t(c)])
                    continue;
                checked[size_t(c)] = true;
                const GraphCluster& cluster = view.hierarchy()->clusters[size_t(c)];
                const QString title = QString::fromStdString(cluster.label) + QStringLiteral(" · ") + QLocale().toString(cluster.size());
                const double box = view.itemRectOfNode(v).width() - 4; // the item's bounds have 2 px either side
                QVERIFY2(box >= std::min(480.0, metrics.horizontalAdvance(title) + 10.0),
                    qPrintable(QStringLiteral("'%1' is %2 px wide in a box of %3").arg(title).arg(metrics.horizontalAdvance(title)).arg(box)));
            }
        }
        QCOMPARE(view.arrowheadCount(), view.drawnEdgeCount());
        // folded or wrapped: the boxes fill the window's shape, not one column or one row of thousands
        const QRectF bounds = view.canvas()->scene()->itemsBoundingRect();
        const double aspect = bounds.width() / bounds.height();
        QVERIFY2(aspect > 0.25 && aspect < 8, qPrintable(QString::number(aspect)));
        // open the largest shown group in place, then close it: the same boxes again
        const GraphHierarchy& h = *view.hierarchy();
        int group = -1;
        for (int c : before)
            if (c > 0 && (group < 0 || h.clusters[size_t(c)].size() > h.clusters[size_t(group)].size()))
                group = c;
        QVERIFY(group > 0);
        const int member = int(h.order[h.clusters[size_t(group)].begin]);
        // where the user looked: the group's box on screen, at this zoom
        const QPoint groupOnScreen = view.canvas()->mapFromScene(view.itemRectOfNode(member).center());
        const double zoom = view.canvas()->transform().m11();
        QVERIFY(view.expandCluster(group));
        QVERIFY(view.isClusterOpen(group));
        QCOMPARE(view.visibleItemCount(), first - 1 + int(h.clusters[size_t(group)].items.size()));
        QVERIFY(view.visibleClusterOf(member) != group);
        // the camera stays on it: the boxes it opened into are on screen
        QRectF opened;
        for (uint32_t p = h.clusters[size_t(group)].begin; p < h.clusters[size_t(group)].end; ++p)
            opened = opened.united(view.itemRectOfNode(int(h.order[p])));
        QVERIFY(view.canvas()->visibleSceneRect().intersects(opened));
        QVERIFY(view.canvas()->visibleSceneRect().contains(opened.center()));
        // ... where the group was, zoom unchanged: per axis, the middle of what it opened into lands on
        // the group's screen spot, or it was slid the least that keeps it on screen (an edge of it
        // OpenMargin pixels from the window's edge), or it is larger than the window and fills it
        QCOMPARE(view.canvas()->transform().m11(), zoom);
        const QRect port = view.canvas()->viewport()->rect();
        const QRect openedOnScreen = view.canvas()->mapFromScene(opened).boundingRect();
        const int margin = int(GraphView::OpenMargin);
        auto kept = [&](int spot, int centre, int lo, int hi, int portLo, int portHi) {
            const bool fits = hi - lo + 2 * margin <= portHi - portLo;
            if (fits && (lo < portLo + margin - 3 || hi > portHi - margin + 3))
                return false; // room for it, yet partly off screen
            return std::abs(centre - spot) <= 3 || std::abs(lo - (portLo + margin)) <= 3 || std::abs(hi - (portHi - margin)) <= 3;
        };
        QVERIFY2(kept(groupOnScreen.x(), openedOnScreen.center().x(), openedOnScreen.left(), openedOnScreen.right(), port.left(), port.right())
                && kept(groupOnScreen.y(), openedOnScreen.center().y(), openedOnScreen.top(), openedOnScreen.bottom(), port.top(), port.bottom()),
            qPrintable(QStringLiteral("group at %1,%2 on screen, opened into %3,%4 %5x%6 in %7x%8")
                           .arg(groupOnScreen.x()).arg(groupOnScreen.y()).arg(openedOnScreen.x()).arg(openedOnScreen.y())
                           .arg(openedOnScreen.width()).arg(openedOnScreen.height()).arg(port.width()).arg(port.height())));
        saveShot(view, QStringLiteral("graph-%1-expanded.png").arg(QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-'))));
        QVERIFY(view.collapseCluster(group));
        QCOMPARE(view.visibleItemCount(), first);
        QVERIFY(shownAs(view) == before);
        // search by id: the node deep inside a group is opened to, selected and centred
        const int target = int(h.order[size_t(n) * 2 / 3]);
        QVERIFY(view.search(QString::fromStdString(graph->names[size_t(target)])));
        QCOMPARE(view.selectedNode(), target);
        QCOMPARE(view.visibleClusterOf(target), -1);
        QVERIFY(view.visibleItemCount() <= first + 3 * int(HierarchyOptions{}.maxChildren) * 4);
        const QPointF centre = view.itemRectOfNode(target).center();
        QVERIFY(view.canvas()->visibleSceneRect().contains(centre));
        const QRectF seen = view.canvas()->visibleSceneRect();
        QVERIFY2(std::abs(centre.x() - seen.center().x()) < seen.width() / 4 && std::abs(centre.y() - seen.center().y()) < seen.height() / 4,
            qPrintable(QStringLiteral("%1,%2 in %3,%4 %5x%6").arg(centre.x()).arg(centre.y()).arg(seen.x()).arg(seen.y()).arg(seen.width()).arg(seen.height())));
        QVERIFY(view.nodeDetail().contains(QString::fromStdString(graph->names[size_t(target)])));
        // search by CID works too; back to the overview gives the first screen again
        QVERIFY(view.search(QStringLiteral("bafkout%1").arg(n - 1)));
        QCOMPARE(view.selectedNode(), n - 1);
        QVERIFY(!view.search(QStringLiteral("no such thing")));
        view.collapseAll();
        QVERIFY(shownAs(view) == before);
        saveShot(view, QStringLiteral("graph-%1.png").arg(QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-'))));
    }

    void focusViews()
    {
        const auto graph = generated(10000, chainEdges(10000));
        GraphView view;
        view.resize(1400, 900);
        view.show();
        view.setGraph(graph);
        QCOMPARE(view.breadcrumbs().size(), 1);
        QVERIFY(view.selectNode(QStringLiteral("n005000")));
        QVERIFY(view.showNeighbourhood(5000, 3));
        QCOMPARE(view.nodeCount(), 7); // 3 up, 3 down
        QCOMPARE(view.breadcrumbs().size(), 2);
        QVERIFY2(view.breadcrumbs().last().contains(QStringLiteral("7 nodes")), qPrintable(view.breadcrumbs().last()));
        QCOMPARE(view.visibleNodeItemCount(), 7);
        QCOMPARE(view.selectedNode(), 5000);
        QCOMPARE(view.drawnEdgeCount(), 6);
        saveShot(view, QStringLiteral("graph-neighbourhood.png"));
        // deeper focus, then the breadcrumb back to the whole graph keeps the selection
        QVERIFY(view.showNeighbourhood(5001, 1));
        QCOMPARE(view.nodeCount(), 3);
        // three boxes are not blown up to fill the canvas (the text inside would stay small)
        QVERIFY2(view.canvas()->transform().m11() <= 1.25 + 1e-9, qPrintable(QString::number(view.canvas()->transform().m11())));
        QCOMPARE(view.breadcrumbs().size(), 3);
        view.popTo(0);
        QCOMPARE(view.breadcrumbs().size(), 1);
        QCOMPARE(view.nodeCount(), 10000);
        QCOMPARE(view.selectedNode(), 5001);
        QCOMPARE(view.visibleClusterOf(5001), -1);
        // the loss's provenance on a tree: the path from the root to the last leaf
        const auto tree = generated(4095, branchingEdges(4095), {"split"});
        view.setGraph(tree);
        QCOMPARE(tree->analysis.lossProvenanceChain.size(), size_t(12));
        QVERIFY(view.showLossProvenance());
        QCOMPARE(view.nodeCount(), 12);
        QCOMPARE(view.drawnEdgeCount(), 11);
        QVERIFY(view.breadcrumbs().last().contains(QStringLiteral("Provenance")));
        QVERIFY2(view.breadcrumbs().last().contains(QStringLiteral("12 nodes")), qPrintable(view.breadcrumbs().last()));
    }

    void nodesWithContextAndStatusColours()
    {
        // a diff's view: two changed nodes far apart on a 10k chain, with one hop of context each
        const auto graph = generated(10000, chainEdges(10000));
        GraphView view;
        view.resize(1400, 900);
        view.show();
        view.setGraph(graph);
        QHash<QString, QColor> status;
        for (uint32_t i = 0; i < 10000; ++i) // every node coloured: one hash lookup each, not a search
            status.insert(QString::asprintf("n%06u", i), i == 2000 || i == 7000 ? QColor(250, 214, 110) : QColor(225, 235, 246));
        view.setNodeStatus(status);
        QVERIFY(!view.showNodes(QStringLiteral("nothing"), {-1, 10000}, 1)); // no node of the graph: no breadcrumb
        QCOMPARE(view.breadcrumbs().size(), 1);
        QVERIFY(view.showNodes(QStringLiteral("changed"), {2000, 7000, 2000}, 1));
        QCOMPARE(view.breadcrumbs().size(), 2);
        QCOMPARE(view.nodeCount(), 6); // 1999..2001, 6999..7001
        QCOMPARE(view.drawnEdgeCount(), 4);
        QVERIFY(view.showNodes(QStringLiteral("wider"), {0}, 3));
        QCOMPARE(view.nodeCount(), 4); // the first node has no producers
        view.popTo(0);
        QCOMPARE(view.nodeCount(), 10000);
        // the provenance's orange (the whole chain is the loss's provenance) steps aside for the status colours
        view.setNodeStatus({});
        QVERIFY(view.showNodes(QStringLiteral("single boxes"), {5000}, 2));
        const auto orangePixels = [&view] {
            QTest::qWait(20);
            const QImage image = view.canvas()->viewport()->grab().toImage();
            int n = 0;
            for (int y = 0; y < image.height(); ++y)
                for (int x = 0; x < image.width(); ++x)
                    n += QColor(image.pixel(x, y)) == QColor(255, 200, 120);
            return n;
        };
        QVERIFY(orangePixels() > 100);
        view.setProvenanceShown(false);
        QCOMPARE(orangePixels(), 0);
    }

private:
    /** With CKPT_SHOT_DIR set, writes a PNG of the view there (screenshots to look at, not a check). */
    static void saveShot(GraphView& view, const QString& name)
    {
        const QString dir = qEnvironmentVariable("CKPT_SHOT_DIR");
        if (dir.isEmpty())
            return;
        QDir().mkpath(dir);
        QTest::qWait(300); // the minimap is drawn shortly after a re-layout
        QVERIFY(view.grab().save(QDir(dir).filePath(name)));
    }
};

QTEST_MAIN(TstGraphView)
#include "tst_graphview.moc"
