// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/record/record.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace ckpt::ui {

/** Differences of two records (core/diff): summary, per-tensor status and deltas, state changes. */
class DiffPanel : public QWidget
{
    Q_OBJECT
public:
    explicit DiffPanel(QWidget* parent = nullptr);
    /** Computes the diff in a worker; a newer request drops an older result. */
    void compare(std::shared_ptr<const Record> a, std::shared_ptr<const Record> b);
    bool isBusy() const { return m_busy; }
    QTableWidget* table() const { return m_table; }
    QString summary() const;

Q_SIGNALS:
    void finished(const QString& error);

private:
    QLabel* m_summary;
    QTableWidget* m_table;
    quint64 m_generation = 0;
    bool m_busy = false;
};

} // namespace ckpt::ui
