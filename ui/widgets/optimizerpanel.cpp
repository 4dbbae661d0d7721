// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/optimizerpanel.h"

#include "ui/async/activity.h"
#include "ui/async/continuation.h"
#include "ui/async/statsjob.h"
#include "ui/document/checkpointdocument.h"
#include "ui/models/formatting.h"
#include "ui/models/modelroles.h"
#include "ui/models/optimizerstatemodel.h"
#include "ui/plots/histogramplot.h"
#include "ui/widgets/viewsetup.h"

#include "core/optim/forensics.h"

#include <QFileInfo>
#include <QGridLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPointer>
#include <QLineEdit>
#include <QMenu>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QTreeView>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace ckpt::ui {

OptimizerPanel::OptimizerPanel(CheckpointDocument* doc, QWidget* parent)
    : QWidget(parent)
    , m_doc(doc)
    , m_model(new OptimizerStateModel(doc, this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_view(new QTreeView(this))
    , m_filter(new QLineEdit(this))
    , m_caption(new QLabel(this))
    , m_plotsHost(new QWidget(this))
    , m_plots(new QGridLayout(m_plotsHost))
{
    setupTreeView(m_view, m_model, m_proxy, m_filter);
    m_filter->setPlaceholderText(tr("Filter parameters (id or module path)…"));
    m_proxy->setFilterKeyColumn(-1);
    // The parameter's name and what the forensics say of it are read first; the module path is the record's spelling.
    m_view->setColumnWidth(OptimizerStateModel::NameColumn, 150);
    m_view->setColumnWidth(OptimizerStateModel::FlagsColumn, 110);
    m_view->setColumnWidth(OptimizerStateModel::EffectiveStepColumn, 130);
    m_view->setColumnWidth(OptimizerStateModel::ModuleColumn, 120);

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_filter);
    leftLayout->addWidget(m_view);

    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    m_caption->setWordWrap(true);
    rightLayout->addWidget(m_caption);
    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setWidget(m_plotsHost);
    rightLayout->addWidget(scroll, 1);

    auto* split = makeSplitter(Qt::Horizontal, this, {{left, 1, 350}, {right, 2, 700}});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);

    connect(m_view->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& current) {
        const QString id = current.data(ParamIdRole).toString();
        if (!id.isEmpty() && id != m_param) {
            showParam(id);
            Q_EMIT paramSelected(id);
        }
        const auto ref = TensorRef::fromKey(current.data(TensorKeyRole).toString());
        if (ref.valid())
            Q_EMIT tensorActivated(ref);
    });
    m_view->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_view, &QWidget::customContextMenuRequested, this, &OptimizerPanel::showContextMenu);
    connect(doc, &CheckpointDocument::workspaceChanged, this, [this] {
        m_param.clear();
        m_caption->setText(idleCaption());
        showParam({});
        computeForensics();
    });
    computeForensics();
}

int OptimizerPanel::optimizerRecordOf(const QString& id) const
{
    const Workspace& ws = m_doc->workspace();
    const std::string key = id.toStdString();
    for (size_t r = 0; r < ws.records.size(); ++r)
        for (const auto& oe : ws.records[r].record->optimizer)
            if (oe.paramId == key)
                return int(r);
    return -1;
}

void OptimizerPanel::showContextMenu(const QPoint& pos)
{
    const QModelIndex at = m_view->indexAt(pos);
    if (at.isValid())
        m_view->setCurrentIndex(at);
    if (m_param.isEmpty())
        return;
    QMenu menu(this);
    const auto names = m_doc->workspace().parameterNames();
    const auto name = names.find(m_param.toStdString());
    const QString label = name != names.end() ? name->second : m_param;
    QAction* reset = menu.addAction(tr("Reset Optimizer State of %1").arg(label), this, &OptimizerPanel::resetSelectedOptimizerState);
    QAction* zero = menu.addAction(tr("Zero Non-finite Moments"), this, &OptimizerPanel::zeroNonFiniteMoments);
    reset->setEnabled(!m_doc->surgeryRunning());
    zero->setEnabled(!m_doc->surgeryRunning());
    menu.exec(m_view->viewport()->mapToGlobal(pos));
}

void OptimizerPanel::resetSelectedOptimizerState()
{
    const int record = optimizerRecordOf(m_param);
    if (record < 0)
        return;
    // The parameter's own module path is a glob matching it alone (`[`/`]` are literal in core's globs);
    // an optimizer file without its model knows the parameter by id only.
    PatchOp op;
    op.kind = PatchOp::Kind::ResetOptimizer;
    op.glob = m_param.toStdString();
    if (auto p = m_doc->workspace().records[size_t(record)].record->findParam(op.glob))
        op.glob = m_doc->workspace().records[size_t(record)].record->params[*p].modulePath;
    m_doc->requestSurgery(record, op);
}

void OptimizerPanel::zeroNonFiniteMoments()
{
    int record = optimizerRecordOf(m_param);
    if (record < 0)
        record = m_doc->workspace().optimizerRecord();
    if (record < 0)
        return;
    PatchOp op;
    op.kind = PatchOp::Kind::ZeroNonFinite;
    m_doc->requestSurgery(record, op);
}

QString OptimizerPanel::idleCaption() const
{
    if (!m_model->rowCount())
        return tr("No optimizer record is open.");
    int suspects = 0, analysed = 0;
    for (int row = 0; row < m_model->rowCount(); ++row)
        if (const ParamForensics* f = m_model->forensicsAt(row)) {
            ++analysed;
            suspects += !f->flags.empty();
        }
    const QString state = analysed == 0 ? tr("Forensics: computing…")
                                        : tr("Forensics: %n suspect parameter(s)", "", suspects) + tr(" of %1 analysed.").arg(analysed);
    return tr("Select a parameter to compare its histogram with its optimizer state. ") + state;
}

void OptimizerPanel::computeForensics()
{
    const quint64 generation = ++m_workspaceGeneration;
    const Workspace& ws = m_doc->workspace();
    for (size_t r = 0; r < ws.records.size(); ++r) {
        auto record = ws.records[r].record;
        if (record->optimizer.empty())
            continue;
        ++m_pending;
        whenReady(runInBackground([record] {
            markBackgroundThread();
            const Activity activity(tr("optimizer forensics of %1").arg(QFileInfo(qs(record->file)).fileName()));
            Progress progress;
            progress.onProgress = [&activity](double) { activity.tick(); }; // one tick a parameter
            return optimizerForensics(*record, {}, progress);
        }), this,
            [this, generation, r = int(r)](Result<OptimizerForensics> f) {
                if (generation == m_workspaceGeneration && f) {
                    m_model->setForensics(r, std::move(*f));
                    if (m_param.isEmpty())
                        m_caption->setText(idleCaption());
                    else
                        showCaption(m_param);
                }
                if (--m_pending == 0)
                    Q_EMIT idle();
            });
    }
}

QString OptimizerPanel::forensicsLine(int row) const
{
    const ParamForensics* f = m_model->forensicsAt(row);
    if (!f)
        return tr("forensics: computing…");
    QStringList parts;
    if (f->mL2)
        parts << tr("‖m‖ %1").arg(formatNumber(*f->mL2));
    if (f->vL2)
        parts << tr("‖v‖ %1").arg(formatNumber(*f->vL2));
    if (f->effectiveStep)
        parts << tr("effective step %1 (max %2, %3 saturated)")
                     .arg(formatNumber(f->effectiveStep->mean), formatNumber(f->effectiveStep->max), formatNumber(f->effectiveStep->saturated));
    if (f->g2OverV)
        parts << tr("mean g²/v̂ %1").arg(formatNumber(*f->g2OverV));
    if (f->nonfinite)
        parts << tr("%1 non-finite").arg(f->nonfinite);
    QStringList flags;
    for (const auto& flag : f->flags)
        flags << qs(flag);
    parts << (flags.isEmpty() ? tr("no flag") : tr("<b>flags: %1</b>").arg(flags.join(QStringLiteral(", "))));
    return parts.join(QStringLiteral(" · "));
}

QString OptimizerPanel::caption() const
{
    return m_caption->text();
}

int OptimizerPanel::plotCount() const
{
    return m_plots->count();
}

bool OptimizerPanel::selectParam(const QString& id)
{
    const int row = m_model->rowOfParam(id);
    if (row < 0)
        return false;
    const QModelIndex src = m_model->index(row, 0);
    const QModelIndex idx = m_proxy->mapFromSource(src);
    {
        QSignalBlocker block(m_view->selectionModel());
        m_view->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
    }
    m_view->scrollTo(idx);
    showParam(id);
    return true;
}

void OptimizerPanel::showCaption(const QString& id)
{
    const int row = m_model->rowOfParam(id);
    const OptimizerEntry* e = row >= 0 ? m_model->entryAt(row) : nullptr;
    const QString name = row >= 0 ? m_model->index(row, OptimizerStateModel::NameColumn).data().toString() : QString();
    m_caption->setText(tr("<b>%1</b> (id %2) · %3 · step (time) %4%5").arg(name.isEmpty() ? id : name, id,
        e ? qs(e->optimizer) : tr("no optimizer entry"),
        e && e->time ? QString::number(qulonglong(*e->time)) : tr("—"),
        e && e->amsgrad ? tr(" · AMSGrad") : QString())
        + (row >= 0 ? QStringLiteral("<br>") + forensicsLine(row) : QString()));
}

void OptimizerPanel::showParam(const QString& id)
{
    m_param = id;
    while (auto* item = m_plots->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    // The plots just deleted may still have statistics on their way: a new generation, also when
    // nothing is shown now, keeps those results from reaching them.
    const quint64 generation = ++m_generation;
    if (id.isEmpty())
        return;
    const Workspace& ws = m_doc->workspace();
    const auto refs = ws.tensorsOfParam(id.toStdString());
    showCaption(id);
    int i = 0;
    for (const TensorRef ref : refs) {
        auto* plot = new HistogramPlot(m_plotsHost);
        plot->setMinimumHeight(200);
        const TensorEntry* t = ws.tensor(ref);
        const QString title = qs(tensorRoleName(t->role)) + (t->stateName.empty() ? QString() : QString(QStringLiteral(" ") + qs(t->stateName)));
        plot->clearStats(tr("%1: computing…").arg(title));
        m_plots->addWidget(plot, i / 2, i % 2);
        ++i;
        auto record = ws.records[size_t(ref.record)].record;
        ++m_pending;
        whenReady(runInBackground([record, index = size_t(ref.tensor)] {
            StatsOptions o;
            o.histogramBins = 64;
            return tensorStats(*record, index, o);
        }), this, [this, plot = QPointer<HistogramPlot>(plot), title, generation](TensorStats st) {
            if (generation == m_generation && plot) // the plots of an older selection are gone
                plot->setStats(st, tr("%1\nmean %2 · std %3\nmin %4 · max %5").arg(title, formatNumber(st.mean),
                    formatNumber(st.std), formatNumber(st.min), formatNumber(st.max)));
            if (--m_pending == 0)
                Q_EMIT idle();
        });
    }
}

} // namespace ckpt::ui
