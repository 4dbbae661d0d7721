// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// ckpt-bench-graph-gui FILE.json [LIMIT_SECONDS] [--shots DIR]: the desktop app on a GradientCheckpoint, as a user
// meets it. The real MainWindow (offscreen platform) opens FILE through openPaths (File > Open:
// parse, grouping and analysis on a worker thread, then the graph view's first layout on the GUI
// thread). Measured, in one process:
//   first_screen_s  openPaths -> the graph canvas has painted its first fitted overview
//   expand_ms       open the largest shown group in place and repaint (median of the groups tried; max too)
//   frame_ms        one pan or zoom step and its repaint, at the fitted overview and zoomed in until
//                   node text and details are drawn (median and max over all steps)
//   stall_ms        the longest gap of a 1 ms timer between openPaths and the first screen
//   *_cpu_ms        the GUI thread's CPU time for the same steps: on a shared, loaded machine the wall
//                   figures include waiting for a core; these do not
// Prints one JSON line; exits non-zero if the first screen never comes within the time limit.
// --shots DIR: after the measurements, PNGs of the window for people to look at (tests/ui/screenshots.cmake):
// graph-<N>-overview.png (the first screen again), graph-<N>-expanded.png (its largest group opened in
// place) and graph-<N>-neighbourhood.png (k = 2 around a node of that group), N the node count ("10k").
#include "ui/graph/graphview.h"
#include "ui/mainwindow.h"

#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QScrollBar>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <vector>

namespace {

double median(std::vector<double> v)
{
    if (v.empty())
        return -1;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double maxOf(const std::vector<double>& v)
{
    return v.empty() ? -1 : *std::max_element(v.begin(), v.end());
}

/** Paint events of the canvas reach us here: the first one after the overview is laid out ends the clock. */
class PaintWatch : public QObject
{
public:
    std::function<void()> onPaint;
    bool eventFilter(QObject* o, QEvent* e) override
    {
        const bool r = QObject::eventFilter(o, e);
        if (e->type() == QEvent::Paint && onPaint)
            QTimer::singleShot(0, this, [this] { // after the paint has run
                // a copy: the handler may clear onPaint, which would destroy it while it runs
                if (const std::function<void()> handler = onPaint)
                    handler();
            });
        return r;
    }
};

} // namespace

int main(int argc, char** argv)
{
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    if (argc < 2) {
        std::fprintf(stderr, "usage: ckpt-bench-graph-gui FILE.json [LIMIT_SECONDS]\n");
        return 2;
    }
    const QString file = QString::fromLocal8Bit(argv[1]);
    int limitSeconds = 300;
    QString shots;
    for (int i = 2; i < argc; ++i) {
        if (std::strcmp(argv[i], "--shots") == 0 && i + 1 < argc)
            shots = QString::fromLocal8Bit(argv[++i]);
        else
            limitSeconds = std::atoi(argv[i]);
    }

    ckpt::ui::MainWindow window;
    window.resize(1600, 1000);
    window.show();
    window.raisePanel(QStringLiteral("graph"));
    ckpt::ui::GraphView* view = window.graphView();
    ckpt::ui::GraphCanvas* canvas = view->canvas();

    QElapsedTimer clock;
    qint64 last = -1, stall = 0;
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    tick.setInterval(1);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const qint64 now = clock.nsecsElapsed();
        if (last >= 0)
            stall = std::max(stall, now - last);
        last = now;
    });

    double firstScreen = -1;
    int boxes = 0;
    bool laidOut = false;
    QEventLoop loop;
    PaintWatch watch;
    canvas->viewport()->installEventFilter(&watch);
    QObject::connect(view, &ckpt::ui::GraphView::relaidOut, [&] { laidOut = view->nodeCount() > 0; });
    watch.onPaint = [&] {
        if (!laidOut || firstScreen >= 0)
            return;
        firstScreen = double(clock.nsecsElapsed()) / 1e9;
        boxes = view->visibleItemCount();
        tick.stop();
        watch.onPaint = nullptr;
        QTimer::singleShot(0, &loop, &QEventLoop::quit);
    };
    QTimer::singleShot(limitSeconds * 1000, &loop, &QEventLoop::quit);
    QTimer::singleShot(200, [&] { // the empty window has painted; the clock starts with File > Open
        clock.start();
        tick.start();
        window.openPaths({file});
    });
    loop.exec(); // not app.exec(): QCoreApplication::quit would close the window before the frames are measured
    if (firstScreen < 0) {
        std::fprintf(stderr, "ckpt-bench-graph-gui: no graph on screen within %d s\n", limitSeconds);
        return 1;
    }
    QCoreApplication::processEvents();

    // wall time of the GUI thread's work, and its CPU time (the same work without the other processes' share of the cores)
    std::vector<double> cpuOf;
    auto timed = [&cpuOf](auto&& work) {
        const double c0 = threadCpuMs();
        QElapsedTimer t;
        t.start();
        work();
        const double wall = double(t.nsecsElapsed()) / 1e6;
        cpuOf.push_back(threadCpuMs() - c0);
        return wall;
    };
    auto repaint = [&] { canvas->viewport()->repaint(); };

    // expand: the largest shown groups one after another, each opened, painted, and closed again
    std::vector<double> expand, expandCpu, frameCpu;
    const ckpt::GraphHierarchy* h = view->hierarchy();
    std::vector<int> groups;
    for (int v = 0; v < view->nodeCount(); v += std::max(1, view->nodeCount() / 4096)) {
        const int c = view->visibleClusterOf(v);
        if (c > 0 && std::find(groups.begin(), groups.end(), c) == groups.end())
            groups.push_back(c);
    }
    std::sort(groups.begin(), groups.end(), [&](int a, int b) { return h->clusters[size_t(a)].size() > h->clusters[size_t(b)].size(); });
    groups.resize(std::min<size_t>(groups.size(), 8));
    for (int c : groups) {
        expand.push_back(timed([&] {
            view->expandCluster(c);
            repaint();
        }));
        expandCpu.push_back(cpuOf.back());
        view->collapseCluster(c);
    }

    // pan and zoom frames: at the fitted overview, then zoomed in step by step into the text levels
    view->collapseAll();
    repaint();
    std::vector<double> frames;
    for (int zoomStep = 0; zoomStep < 4; ++zoomStep) {
        for (int i = 0; i < 10; ++i) {
            frames.push_back(timed([&] {
                canvas->horizontalScrollBar()->setValue(canvas->horizontalScrollBar()->value() + (i % 2 ? -40 : 40));
                canvas->verticalScrollBar()->setValue(canvas->verticalScrollBar()->value() + (i % 2 ? -25 : 25));
                repaint();
            }));
            frameCpu.push_back(cpuOf.back());
            frames.push_back(timed([&] {
                canvas->zoomBy(i % 2 ? 1 / 1.1 : 1.1);
                repaint();
            }));
            frameCpu.push_back(cpuOf.back());
        }
        canvas->zoomBy(2.5);
    }

    const int nodes = view->nodeCount(); // before the shots, which end in a focus view
    int shotsFailed = 0;
    if (!shots.isEmpty()) {
        QDir().mkpath(shots);
        const QString tag = nodes % 1000 == 0 ? QStringLiteral("%1k").arg(nodes / 1000) : QString::number(nodes);
        auto shoot = [&](const QString& what) {
            QEventLoop settle; // the minimap is re-rendered shortly after a re-layout
            QTimer::singleShot(400, &settle, &QEventLoop::quit);
            settle.exec();
            const QString path = QDir(shots).filePath(QStringLiteral("graph-%1-%2.png").arg(tag, what));
            if (!window.grab().save(path)) {
                std::fprintf(stderr, "ckpt-bench-graph-gui: could not write %s\n", qPrintable(path));
                ++shotsFailed;
            }
        };
        view->collapseAll();
        shoot(QStringLiteral("overview"));
        if (!groups.empty()) {
            view->expandCluster(groups.front());
            shoot(QStringLiteral("expanded"));
            // the member with the largest k = 2 neighbourhood among a few spread over the group (an
            // end of a chain has a neighbourhood of three nodes, which shows little)
            const ckpt::GraphCluster& c = h->clusters[size_t(groups.front())];
            int member = -1, best = 0;
            for (uint32_t i = 0; i < 16; ++i) {
                const int candidate = int(h->order[c.begin + c.size() * i / 16]);
                if (view->showNeighbourhood(candidate, 2) && view->nodeCount() > best)
                    best = view->nodeCount(), member = candidate;
                view->popTo(0);
            }
            if (member >= 0 && view->showNeighbourhood(member, 2))
                shoot(QStringLiteral("neighbourhood"));
            else
                ++shotsFailed;
        }
    }

    std::printf("{\"first_screen_s\": %.4f, \"boxes\": %d, \"nodes\": %d, \"stall_ms\": %.3f, \"expand_ms\": %.3f, "
                "\"expand_max_ms\": %.3f, \"expand_cpu_ms\": %.3f, \"expands\": %zu, \"frame_ms\": %.3f, \"frame_max_ms\": %.3f, "
                "\"frame_cpu_ms\": %.3f, \"frames\": %zu, \"viewport\": \"%dx%d\"}\n",
        firstScreen, boxes, nodes, double(stall) / 1e6, median(expand), maxOf(expand), median(expandCpu), expand.size(),
        median(frames), maxOf(frames), median(frameCpu), frames.size(), canvas->viewport()->width(), canvas->viewport()->height());
    return shotsFailed ? 1 : 0;
}
