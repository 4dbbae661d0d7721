// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// Graph view additions on a real ckpt-train GradientCheckpoint: the CAR beside the JSON is opened
// with it, node detail resolves tensors through it, chains collapse/expand, the minimap follows.
#include "ui/graph/graphview.h"
#include "ui/models/formatting.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <cstring>

using namespace ckpt;
using namespace ckpt::ui;

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
        QCOMPARE(carBesideGraph(QStringLiteral("/r/graph/step-12.json")), QStringLiteral("/r/graph/step-12.car"));
    }

    void nodeDetailResolvesTensors()
    {
        GraphView view;
        view.resize(1200, 700);
        view.show();
        view.setGraph(m_ws.graph);
        QCOMPARE(view.nodeItemCount(), int(m_ws.graph->layout.nodes.size()));
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

    void chainsCollapseAndExpand()
    {
        GraphView view;
        view.resize(1200, 700);
        view.show();
        view.setGraph(m_ws.graph);
        const auto& groups = m_ws.graph->layout.groups;
        QCOMPARE(view.groupCount(), int(groups.size()));
        QVERIFY2(!groups.empty(), "the MLP's matmul -> add -> layer_norm -> ... chain is a layout group");
        const int all = view.nodeItemCount();
        QCOMPARE(view.visibleNodeItemCount(), all);
        view.setGroupCollapsed(0, true);
        QVERIFY(view.isGroupCollapsed(0));
        QCOMPARE(view.visibleNodeItemCount(), all - int(groups[0].nodes.size()));
        // selecting a hidden member expands its chain
        const std::string& member = m_ws.graph->names[groups[0].nodes[1]];
        QVERIFY(view.selectNode(QString::fromStdString(member)));
        QVERIFY(!view.isGroupCollapsed(0));
        QCOMPARE(view.visibleNodeItemCount(), all);
        view.setAllGroupsCollapsed(true);
        size_t members = 0;
        for (const auto& g : groups)
            members += g.nodes.size();
        QCOMPARE(view.visibleNodeItemCount(), all - int(members));
        view.setAllGroupsCollapsed(false);
        QCOMPARE(view.visibleNodeItemCount(), all);
        QCOMPARE(view.groupOfNode(int(groups[0].nodes.front())), 0);
    }

    void minimapFollowsTheView()
    {
        GraphView view;
        view.resize(1200, 700);
        view.show();
        view.setGraph(m_ws.graph);
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(!view.minimap()->overview().isNull());
        const QRectF fitted = view.minimap()->viewRect();
        QVERIFY(!fitted.isEmpty());
        view.canvas()->zoomBy(4.0);
        const QRectF zoomed = view.minimap()->viewRect();
        QVERIFY2(zoomed.width() < fitted.width() / 2, qPrintable(QStringLiteral("%1 vs %2").arg(zoomed.width()).arg(fitted.width())));
        // clicking the minimap centres the main view there
        const QPointF target = m_ws.graph->layout.nodes.back().x < 1 ? QPointF(10, 10)
                                                                     : QPointF(m_ws.graph->layout.nodes.back().x, m_ws.graph->layout.nodes.back().y);
        QTest::mouseClick(view.minimap()->viewport(), Qt::LeftButton, {}, view.minimap()->mapFromScene(target));
        QVERIFY(view.canvas()->visibleSceneRect().contains(target));
    }
};

QTEST_MAIN(TstGraphView)
#include "tst_graphview.moc"
