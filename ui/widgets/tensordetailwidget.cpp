// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/tensordetailwidget.h"

#include "ui/async/continuation.h"
#include "ui/async/deferredpaint.h"
#include "ui/async/statsjob.h"
#include "ui/document/checkpointdocument.h"
#include "ui/models/formatting.h"
#include "ui/plots/histogramplot.h"

#include <QCheckBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace ckpt::ui {

namespace {
constexpr uint64_t MaxValueCells = 20000;    // value table: beyond this a table is not readable anyway
constexpr uint64_t MaxHeatmapCells = 1 << 22; // 4 Mi cells: a slice bigger than a screen is cut
}

TensorDetailWidget::TensorDetailWidget(CheckpointDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_summary(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_hist(new HistogramPlot(this))
    , m_logCounts(new QCheckBox(tr("Log counts"), this))
    , m_logBins(new QCheckBox(tr("Bins over log10 |x|"), this))
    , m_heatPlot(new QCustomPlot(this))
    , m_sliceLayout(new QHBoxLayout)
    , m_sliceInfo(new QLabel(this))
    , m_values(new QTableWidget(this))
{
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_summary->setWordWrap(true);

    auto* histPage = new QWidget(this);
    auto* histLayout = new QVBoxLayout(histPage);
    auto* histOptions = new QHBoxLayout;
    histOptions->addWidget(m_logCounts);
    histOptions->addWidget(m_logBins);
    histOptions->addStretch();
    histLayout->addLayout(histOptions);
    histLayout->addWidget(m_hist, 1);
    m_tabs->addTab(histPage, tr("Histogram"));

    auto* heatPage = new QWidget(this);
    auto* heatLayout = new QVBoxLayout(heatPage);
    m_sliceLayout->addWidget(m_sliceInfo);
    m_sliceLayout->addStretch();
    heatLayout->addLayout(m_sliceLayout);
    heatLayout->addWidget(m_heatPlot, 1);
    m_heat = new QCPColorMap(m_heatPlot->xAxis, m_heatPlot->yAxis);
    m_heatScale = new QCPColorScale(m_heatPlot);
    m_heatPlot->plotLayout()->addElement(0, 1, m_heatScale);
    m_heat->setColorScale(m_heatScale);
    m_heat->setGradient(QCPColorGradient::gpThermal);
    m_heatPlot->yAxis->setRangeReversed(true); // row 0 at the top, as matrices are read
    m_heatPlot->xAxis->setLabel(tr("column (last dim)"));
    m_heatPlot->yAxis->setLabel(tr("row"));
    m_heatPlot->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    deferPlotRefresh(m_heatPlot);
    m_tabs->addTab(heatPage, tr("Heatmap"));

    m_values->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_values->verticalHeader()->setDefaultSectionSize(20);
    m_tabs->addTab(m_values, tr("Values"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_tabs, 1);

    connect(m_logCounts, &QCheckBox::toggled, this, [this](bool on) {
        m_hist->setLogCounts(on);
        requestStats();
    });
    connect(m_logBins, &QCheckBox::toggled, this, &TensorDetailWidget::requestStats);
    clear();
}

void TensorDetailWidget::clear()
{
    m_summary->setText(tr("Select a tensor to see its statistics, histogram, heatmap and values."));
    m_hist->clearStats(QString());
    m_heat->data()->clear();
    m_heatPlot->replot();
    m_values->clear();
    m_values->setRowCount(0);
    m_values->setColumnCount(0);
}

QString TensorDetailWidget::summaryText() const
{
    return m_summary->text();
}

void TensorDetailWidget::setTensor(TensorRef ref)
{
    if (ref == m_ref && ref.valid())
        return;
    m_ref = ref;
    ++m_statsGeneration;
    ++m_sliceGeneration;
    const TensorEntry* t = m_doc->workspace().tensor(ref);
    if (!t) {
        clear();
        return;
    }
    m_summary->setText(tr("<b>%1</b><br>%2 %3 · %4 elements · %5 · %6")
            .arg(qs(t->path).toHtmlEscaped(), qs(t->dtypeLabel()), formatShape(t->shape), formatCount(t->numel), formatBytes(t->bytes),
                qs(tensorRoleName(t->role)) + (t->paramId.empty() ? QString() : QString(QStringLiteral(" · id ") + qs(t->paramId)))));
    rebuildSlicePicker();
    requestStats();
    requestSlice();
}

void TensorDetailWidget::finishJob()
{
    if (--m_pending == 0)
        Q_EMIT idle();
}

void TensorDetailWidget::requestStats()
{
    const TensorEntry* t = m_doc->workspace().tensor(m_ref);
    if (!t)
        return;
    auto record = m_doc->workspace().records[size_t(m_ref.record)].record;
    const size_t index = size_t(m_ref.tensor);
    StatsOptions opts;
    opts.histogramBins = 128;
    opts.logHistogram = m_logBins->isChecked();
    const quint64 generation = ++m_statsGeneration;
    ++m_pending;
    m_hist->clearStats(tr("computing…"));
    whenReady(runInBackground([record, index, opts] { return tensorStats(*record, index, opts); }), this, [this, generation, opts](TensorStats st) {
            if (generation == m_statsGeneration) { // a newer request owns the widgets
                const TensorEntry* t = m_doc->workspace().tensor(m_ref);
                m_hist->setStats(st, tr("%1 — min %2 · max %3 · mean %4 · std %5 · NaN %6 · Inf %7 · zeros %8")
                    .arg(t ? qs(t->path) : QString(), formatNumber(st.min), formatNumber(st.max), formatNumber(st.mean),
                        formatNumber(st.std), formatCount(st.nan), formatCount(st.inf), formatCount(st.zeros)),
                    opts.logHistogram);
            }
            finishJob();
        });
}

void TensorDetailWidget::rebuildSlicePicker()
{
    qDeleteAll(m_sliceSpins);
    m_sliceSpins.clear();
    const TensorEntry* t = m_doc->workspace().tensor(m_ref);
    if (!t)
        return;
    const size_t dims = t->shape.size();
    for (size_t d = 0; dims > 2 && d + 2 < dims; ++d) {
        auto* spin = new QSpinBox(this);
        spin->setPrefix(tr("dim %1: ").arg(d));
        spin->setRange(0, int(std::min<uint64_t>(t->shape[d], uint64_t(INT_MAX)) - 1));
        m_sliceLayout->insertWidget(int(d) + 1, spin);
        connect(spin, &QSpinBox::valueChanged, this, &TensorDetailWidget::requestSlice);
        m_sliceSpins << spin;
    }
}

void TensorDetailWidget::requestSlice()
{
    const TensorEntry* t = m_doc->workspace().tensor(m_ref);
    if (!t)
        return;
    // the last two dims form the image; leading dims come from the picker; 0-D/1-D are one row
    const auto& shape = t->shape;
    const size_t dims = shape.size();
    uint64_t rows = dims >= 2 ? shape[dims - 2] : 1;
    const uint64_t cols = dims >= 1 ? shape[dims - 1] : 1;
    uint64_t offset = 0, stride = rows * cols;
    for (size_t d = dims >= 2 ? dims - 2 : 0; d-- > 0;) {
        offset += uint64_t(m_sliceSpins.value(int(d)) ? m_sliceSpins[int(d)]->value() : 0) * stride;
        stride *= shape[d];
    }
    if (cols > 0 && rows * cols > MaxHeatmapCells)
        rows = std::max<uint64_t>(1, MaxHeatmapCells / cols);
    m_sliceInfo->setText(dims > 2 ? tr("slice of the last two dimensions (%1 × %2) at").arg(rows).arg(cols)
                                  : tr("%1 × %2").arg(rows).arg(cols));
    auto record = m_doc->workspace().records[size_t(m_ref.record)].record;
    const size_t index = size_t(m_ref.tensor);
    const quint64 generation = ++m_sliceGeneration;
    const uint64_t count = std::min<uint64_t>(rows * cols, t->numel > offset ? t->numel - offset : 0);
    const uint64_t tableCount = std::min<uint64_t>(t->numel, MaxValueCells);
    ++m_pending;
    whenReady(runInBackground([record, index, offset, count, tableCount] {
        markBackgroundThread();
        return std::pair{record->values(record->tensors[index], offset, count),
            record->values(record->tensors[index], 0, tableCount)};
    }), this, [this, generation, rows, cols](std::pair<std::vector<double>, std::vector<double>> v) {
        if (generation == m_sliceGeneration) {
            const auto& slice = v.first;
            m_heat->data()->setSize(int(cols), int(rows));
            m_heat->data()->setRange(QCPRange(0, double(cols) - 1), QCPRange(0, double(rows) - 1));
            for (uint64_t r = 0; r < rows; ++r)
                for (uint64_t c = 0; c < cols; ++c) {
                    const uint64_t i = r * cols + c;
                    m_heat->data()->setCell(int(c), int(r), i < slice.size() ? slice[i] : std::nan(""));
                }
            m_heat->rescaleDataRange(true);
            m_heatPlot->rescaleAxes();
            m_heatPlot->replot(QCustomPlot::rpQueuedReplot);

            // value table: a matrix for 2-D, one column otherwise
            const auto* t = m_doc->workspace().tensor(m_ref);
            const auto& values = v.second;
            const bool matrix = t && t->shape.size() == 2 && t->shape[1] > 0 && t->shape[1] <= 512;
            const int columns = matrix ? int(t->shape[1]) : 1;
            const int rowsShown = int((values.size() + size_t(columns) - 1) / size_t(columns));
            m_values->clear();
            m_values->setColumnCount(columns);
            m_values->setRowCount(rowsShown);
            for (size_t i = 0; i < values.size(); ++i)
                m_values->setItem(int(i / size_t(columns)), int(i % size_t(columns)),
                    new QTableWidgetItem(formatNumber(values[i])));
            if (t && t->numel > values.size())
                m_values->setToolTip(tr("first %1 of %2 values").arg(values.size()).arg(formatCount(t->numel)));
        }
        finishJob();
    });
}

} // namespace ckpt::ui
