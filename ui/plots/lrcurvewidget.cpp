// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/plots/lrcurvewidget.h"
#include "ui/plots/axisscale.h"

#include "ui/async/deferredpaint.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

#include <qcustomplot.h>

namespace ckpt::ui {

namespace {
QString number(double v) { return QString::number(v, 'g', 6); }
}

LearningRateCurveWidget::LearningRateCurveWidget(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_log(new QCheckBox(tr("Log scale"), this))
    , m_plot(new QCustomPlot(this))
{
    setObjectName(QStringLiteral("lrCurve"));
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_log, 0, Qt::AlignTop);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(top);
    layout->addWidget(m_plot, 1);
    m_plot->setMinimumHeight(160);
    deferPlotRefresh(m_plot);
    m_plot->xAxis->setLabel(tr("step (micro-batch)"));
    m_plot->yAxis->setLabel(tr("learning rate"));
    m_plot->legend->setVisible(true);
    // bottom left: the curves start high on the left and the cosine restart is on the right
    m_plot->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignLeft);
    m_plot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    connect(m_log, &QCheckBox::toggled, this, &LearningRateCurveWidget::rebuild);
    setRecord(nullptr);
}

void LearningRateCurveWidget::setRecord(const Record* record)
{
    m_schedule.reset();
    if (!record) {
        m_summary->setText(tr("No record with a scheduler is open."));
        rebuild();
        return;
    }
    // Peek at the position first: the curve reaches to the run's stop step (or a default span).
    auto probe = learningRateSchedule(*record, 0, 0);
    if (!probe) {
        m_summary->setText(tr("Learning-rate curve: %1").arg(QString::fromStdString(probe.error().what)));
        rebuild();
        return;
    }
    const uint64_t ahead = std::min<uint64_t>(probe->stopStep > probe->step ? probe->stopStep - probe->step : DefaultAhead, MaxPoints);
    auto schedule = learningRateSchedule(*record, ahead, MaxPoints);
    if (!schedule) {
        m_summary->setText(tr("Learning-rate curve: %1").arg(QString::fromStdString(schedule.error().what)));
        rebuild();
        return;
    }
    m_schedule = std::move(*schedule);
    const auto& s = *m_schedule;
    const auto& c = s.config;
    QString params;
    switch (c.kind) {
    case LrSchedulerKind::Constant: params = tr("lr %1").arg(number(c.initialLr)); break;
    case LrSchedulerKind::Step: params = tr("lr %1 × %2 every %3 steps").arg(number(c.initialLr), number(c.gamma)).arg(c.stepSize); break;
    case LrSchedulerKind::Linear: params = tr("%1 → %2 over %3 steps").arg(number(c.initialLr), number(c.finalLr)).arg(c.numIters); break;
    case LrSchedulerKind::Cosine: params = tr("%1 → %2, period %3 steps").arg(number(c.initialLr), number(c.finalLr)).arg(c.numIters + 1); break;
    case LrSchedulerKind::Exponential: params = tr("lr %1 × %2 per step").arg(number(c.initialLr), number(c.gamma)); break;
    case LrSchedulerKind::Noam: params = tr("factor %1, warm-up %2, embedding %3").arg(number(c.initialLr)).arg(c.warmupSteps).arg(c.embeddingSize); break;
    }
    m_summary->setText(tr("<b>%1</b> scheduler (%2)%3 — at step %4 (%5), lr %6; curve to step %7 as a resumed ckpt-train applies it "
                          "(one scheduler step per %8 micro-batch window).")
                           .arg(QString::fromLatin1(lrSchedulerName(c.kind)), params.toHtmlEscaped(),
                               s.pendingMicroBatches ? tr(", window begun %1 micro-batches ago").arg(s.pendingMicroBatches) : QString())
                           .arg(s.step)
                           .arg(QString::fromStdString(lrSchedulerPosition(c, s.state)).toHtmlEscaped(), number(s.currentLr))
                           .arg(s.ahead.empty() ? s.step : s.ahead.back().first)
                           .arg(s.gradAccum));
    rebuild();
}

QString LearningRateCurveWidget::message() const { return m_summary->text(); }
int LearningRateCurveWidget::aheadCount() const { return m_schedule ? int(m_schedule->ahead.size()) : 0; }
int LearningRateCurveWidget::behindCount() const { return m_schedule ? int(m_schedule->behind.size()) : 0; }

void LearningRateCurveWidget::rebuild()
{
    m_plot->clearGraphs();
    m_plot->clearItems();
    m_hasCurve = m_schedule.has_value();
    m_plot->setVisible(m_hasCurve);
    m_log->setVisible(m_hasCurve);
    if (!m_hasCurve) {
        m_plot->replot();
        return;
    }
    const auto& s = *m_schedule;
    const bool log = m_log->isChecked();
    auto series = [&](const std::vector<std::pair<uint64_t, double>>& pts, const QString& name, const QPen& pen) {
        QVector<double> x, y;
        x.reserve(qsizetype(pts.size()));
        y.reserve(qsizetype(pts.size()));
        for (const auto& [step, lr] : pts) {
            x << double(step);
            y << lr;
        }
        auto* g = m_plot->addGraph();
        g->setName(name);
        g->setPen(pen);
        g->setLineStyle(QCPGraph::lsStepLeft);
        g->setData(x, y, true);
        return g;
    };
    if (!s.behind.empty())
        series(s.behind, tr("before the record (replayed from step 0)"), QPen(QColor(150, 150, 150), 1.5, Qt::DashLine));
    series(s.ahead, tr("from the record"), QPen(QColor(31, 119, 180), 2));

    // the record's position: its step and the lr of its current window
    auto* here = m_plot->addGraph();
    here->setName(tr("record: step %1, lr %2").arg(s.step).arg(number(s.currentLr)));
    here->setLineStyle(QCPGraph::lsNone);
    here->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(214, 39, 40), 2), QColor(214, 39, 40), 9));
    here->setData({double(s.step)}, {s.currentLr});
    auto* line = new QCPItemStraightLine(m_plot);
    line->setPen(QPen(QColor(214, 39, 40), 1, Qt::DotLine));
    line->point1->setCoords(double(s.step), 0);
    line->point2->setCoords(double(s.step), 1);

    setAxisLogScale(m_plot->yAxis, log);
    m_plot->rescaleAxes();
    // keep a flat curve (constant lr) visible and leave room around it
    const QCPRange y = m_plot->yAxis->range();
    if (!log) {
        const double pad = y.size() > 0 ? y.size() * 0.08 : std::abs(y.upper) * 0.1 + 1e-12;
        m_plot->yAxis->setRange(std::max(0.0, y.lower - pad), y.upper + pad);
    }
    const QCPRange x = m_plot->xAxis->range();
    m_plot->xAxis->setRange(x.lower - std::max(1.0, x.size() * 0.02), x.upper + std::max(1.0, x.size() * 0.02));
    m_plot->replot();
}

} // namespace ckpt::ui
