// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/lossplotwidget.h"
#include "ui/plots/axisscale.h"

#include "ui/async/deferredpaint.h"
#include "ui/models/formatting.h"

#include <QCheckBox>
#include <QFile>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSaveFile>
#include <QSlider>
#include <QSvgGenerator>
#include <QTextStream>
#include <QTimer>
#include <QVBoxLayout>

#include <qcustomplot.h>

namespace ckpt::ui {

namespace {
QColor curveColor(int i)
{
    static const QColor palette[] = {QColor(31, 119, 180), QColor(255, 127, 14), QColor(44, 160, 44),
        QColor(214, 39, 40), QColor(148, 103, 189), QColor(140, 86, 75), QColor(227, 119, 194), QColor(127, 127, 127)};
    return palette[i % 8];
}
}

LossPlotWidget::LossPlotWidget(QWidget* parent)
    : QWidget(parent)
    , m_plot(new QCustomPlot(this))
    , m_curves(new QListWidget(this))
    , m_smoothing(new QSlider(Qt::Horizontal, this))
    , m_log(new QCheckBox(tr("Log scale"), this))
    , m_hover(new QLabel(this))
    , m_replotTimer(new QTimer(this))
{
    deferPlotRefresh(m_plot);
    m_replotTimer->setSingleShot(true);
    m_replotTimer->setInterval(100);
    connect(m_replotTimer, &QTimer::timeout, this, [this] {
        m_plot->rescaleAxes();
        m_plot->replot(QCustomPlot::rpQueuedReplot);
    });
    m_smoothing->setRange(0, 99);
    m_smoothing->setToolTip(tr("EMA smoothing"));
    m_curves->setMaximumWidth(220);
    auto* png = new QPushButton(tr("PNG…"), this);
    auto* svg = new QPushButton(tr("SVG…"), this);
    auto* csv = new QPushButton(tr("CSV…"), this);
    auto* controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Smoothing"), this));
    controls->addWidget(m_smoothing, 1);
    controls->addWidget(m_log);
    controls->addWidget(m_hover, 2);
    controls->addWidget(png);
    controls->addWidget(svg);
    controls->addWidget(csv);
    auto* body = new QHBoxLayout;
    body->addWidget(m_curves);
    body->addWidget(m_plot, 1);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addLayout(body, 1);

    m_plot->legend->setVisible(true);
    m_plot->xAxis->setLabel(tr("epoch"));
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    m_plot->setMouseTracking(true);

    connect(m_smoothing, &QSlider::valueChanged, this, &LossPlotWidget::rebuild);
    connect(m_log, &QCheckBox::toggled, this, &LossPlotWidget::rebuild);
    connect(m_curves, &QListWidget::itemChanged, this, &LossPlotWidget::rebuild);
    connect(m_plot, &QCustomPlot::mouseMove, this, &LossPlotWidget::showHover);
    auto ask = [this](const QString& filter, auto fn) {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export"), QString(), filter);
        if (path.isEmpty())
            return;
        const QString error = fn(path);
        m_hover->setText(error.isEmpty() ? tr("Written %1").arg(path) : error);
    };
    connect(png, &QPushButton::clicked, this, [=, this] { ask(tr("PNG image (*.png)"), [this](const QString& p) { return exportPng(p); }); });
    connect(svg, &QPushButton::clicked, this, [=, this] { ask(tr("SVG image (*.svg)"), [this](const QString& p) { return exportSvg(p); }); });
    connect(csv, &QPushButton::clicked, this, [=, this] { ask(tr("CSV (*.csv)"), [this](const QString& p) { return exportCsv(p); }); });
}

void LossPlotWidget::setHistory(const LossHistory& history)
{
    m_history = history;
    QSignalBlocker block(m_curves);
    m_curves->clear();
    for (const auto& c : m_history.curves) {
        auto* item = new QListWidgetItem(c.split + QLatin1Char('/') + c.metric, m_curves);
        item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
        // losses first: other metrics live on other scales and are opt-in
        item->setCheckState(c.metric.contains(QLatin1String("Loss"), Qt::CaseInsensitive) ? Qt::Checked : Qt::Unchecked);
    }
    rebuild();
}

void LossPlotWidget::beginLiveCurve(const QString& name)
{
    m_live = {};
    m_live.split = QStringLiteral("live");
    m_live.metric = name;
    rebuild();
}

void LossPlotWidget::appendLivePoint(double x, double y)
{
    if (m_live.metric.isEmpty())
        beginLiveCurve(tr("live"));
    m_live.x << x;
    m_live.y << y;
    if (m_liveGraph)
        m_liveGraph->addData(x, y);
    if (!m_replotTimer->isActive())
        m_replotTimer->start();
}

int LossPlotWidget::curveCount() const
{
    return int(m_history.curves.size());
}

int LossPlotWidget::visibleCurveCount() const
{
    return m_plot->graphCount();
}

void LossPlotWidget::setSmoothing(int percent)
{
    m_smoothing->setValue(percent);
}

void LossPlotWidget::setLogScale(bool on)
{
    m_log->setChecked(on);
}

void LossPlotWidget::rebuild()
{
    m_plot->clearGraphs();
    const double alpha = m_smoothing->value() / 100.0;
    for (int i = 0; i < m_history.curves.size(); ++i) {
        if (m_curves->item(i)->checkState() != Qt::Checked)
            continue;
        const LossCurve& c = m_history.curves[i];
        auto* g = m_plot->addGraph();
        g->setName(c.split + QLatin1Char('/') + c.metric);
        QPen pen(curveColor(i));
        pen.setWidthF(c.split == QLatin1String("valid") ? 2.0 : 1.2);
        if (c.split == QLatin1String("valid"))
            pen.setStyle(Qt::DashLine);
        g->setPen(pen);
        g->setData(c.x, smoothEma(c.y, alpha), true);
    }
    m_liveGraph = nullptr;
    if (!m_live.metric.isEmpty()) {
        m_liveGraph = m_plot->addGraph();
        m_liveGraph->setName(m_live.metric);
        m_liveGraph->setPen(QPen(QColor(214, 39, 40), 1.6));
        m_liveGraph->setData(m_live.x, m_live.y, true);
    }
    const bool log = m_log->isChecked();
    setAxisLogScale(m_plot->yAxis, log);
    m_plot->rescaleAxes();
    m_plot->replot(QCustomPlot::rpQueuedReplot);
}

void LossPlotWidget::showHover(QMouseEvent* event)
{
    const double x = m_plot->xAxis->pixelToCoord(event->position().x());
    QStringList parts{tr("epoch %1").arg(x, 0, 'f', 3)};
    for (int i = 0; i < m_plot->graphCount(); ++i) {
        auto* g = m_plot->graph(i);
        auto it = g->data()->findBegin(x);
        if (it != g->data()->constEnd())
            parts << g->name() + QStringLiteral(" = ") + formatNumber(it->value);
    }
    m_hover->setText(parts.join(QStringLiteral(" · ")));
}

QString LossPlotWidget::exportPng(const QString& path)
{
    return m_plot->savePng(path, 1200, 700) ? QString() : tr("could not write %1").arg(path);
}

QString LossPlotWidget::exportSvg(const QString& path)
{
    QSvgGenerator gen;
    gen.setFileName(path);
    gen.setSize(QSize(1200, 700));
    gen.setViewBox(QRect(0, 0, 1200, 700));
    QCPPainter painter;
    if (!painter.begin(&gen))
        return tr("could not write %1").arg(path);
    m_plot->toPainter(&painter, 1200, 700);
    painter.end();
    return {};
}

QString LossPlotWidget::exportCsv(const QString& path) const
{
    QSaveFile f(path);
    if (!f.open(QIODevice::WriteOnly | QIODevice::Text))
        return tr("could not write %1: %2").arg(path, f.errorString());
    QTextStream out(&f);
    out << "split,metric,epoch_position,value\n";
    for (const auto& c : m_history.curves)
        for (qsizetype i = 0; i < c.x.size(); ++i)
            out << c.split << ',' << c.metric << ',' << QString::number(c.x[i], 'g', 17) << ','
                << QString::number(c.y[i], 'g', 17) << '\n';
    out.flush();
    return f.commit() ? QString() : tr("could not write %1: %2").arg(path, f.errorString());
}

} // namespace ckpt::ui
