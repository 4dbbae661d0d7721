// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/diffpanel.h"

#include "ui/models/formatting.h"

#include "core/diff/diff.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace ckpt::ui {

DiffPanel::DiffPanel(QWidget* parent)
    : QWidget(parent)
    , m_summary(new QLabel(tr("Start with --diff A B to compare two records."), this))
    , m_table(new QTableWidget(this))
{
    m_summary->setWordWrap(true);
    m_table->setColumnCount(6);
    m_table->setHorizontalHeaderLabels({tr("Path"), tr("Status"), tr("max |a−b|"), tr("rel L2"), tr("cosine"), tr("differing")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setSortingEnabled(true);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
}

QString DiffPanel::summary() const
{
    return m_summary->text();
}

void DiffPanel::compare(std::shared_ptr<const Record> a, std::shared_ptr<const Record> b)
{
    const quint64 generation = ++m_generation;
    m_busy = true;
    m_summary->setText(tr("Comparing…"));
    QtConcurrent::run([a, b] { return diffRecords(*a, *b); }).then(this, [this, generation](Result<RecordDiff> d) {
        if (generation != m_generation)
            return;
        m_busy = false;
        if (!d) {
            m_summary->setText(tr("Diff failed: %1").arg(qs(d.error().message())));
            Q_EMIT finished(qs(d.error().message()));
            return;
        }
        m_summary->setText(tr("<b>A</b> %1<br><b>B</b> %2<br>added %3 · removed %4 · changed %5 · unchanged %6 · "
                              "%7 state difference(s)")
                               .arg(qs(d->a).toHtmlEscaped(), qs(d->b).toHtmlEscaped())
                               .arg(d->added).arg(d->removed).arg(d->changed).arg(d->unchanged)
                               .arg(d->state.size()));
        m_table->setSortingEnabled(false);
        m_table->setRowCount(int(d->entries.size() + d->state.size()));
        int row = 0;
        auto number = [](std::optional<double> v) {
            auto* item = new QTableWidgetItem(v ? formatNumber(*v) : QString());
            if (v)
                item->setData(Qt::EditRole, *v); // numeric sort
            return item;
        };
        for (const auto& e : d->entries) {
            m_table->setItem(row, 0, new QTableWidgetItem(qs(e.path)));
            auto* status = new QTableWidgetItem(qs(diffStatusName(e.status)));
            if (e.status != DiffStatus::Unchanged)
                status->setForeground(e.status == DiffStatus::Changed ? QColor(180, 120, 0) : QColor(200, 0, 0));
            m_table->setItem(row, 1, status);
            m_table->setItem(row, 2, number(e.maxAbs));
            m_table->setItem(row, 3, number(e.relL2));
            m_table->setItem(row, 4, number(e.cosine));
            m_table->setItem(row, 5, number(double(e.differing)));
            ++row;
        }
        for (const auto& s : d->state) {
            m_table->setItem(row, 0, new QTableWidgetItem(qs(s.path)));
            m_table->setItem(row, 1, new QTableWidgetItem(tr("state: %1 → %2").arg(s.a ? qs(*s.a) : tr("(absent)"),
                                          s.b ? qs(*s.b) : tr("(absent)"))));
            ++row;
        }
        m_table->setSortingEnabled(true);
        m_table->resizeColumnToContents(0);
        Q_EMIT finished({});
    });
}

} // namespace ckpt::ui
