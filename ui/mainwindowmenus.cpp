// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
// MainWindow's menus and tool bar: File (with the recent files), Edit (with Surgery), View, Help.
#include "ui/mainwindow.h"

#include "ui/document/checkpointdocument.h"
#include "ui/models/formatting.h"
#include "ui/settings/settings.h"
#include "ui/widgets/aboutdialog.h"
#include "ui/widgets/exportdialog.h"
#include "ui/widgets/optimizerpanel.h"

#include "core/edit/edit.h"
#include "core/model/recorder.h"

#include <QAction>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QToolBar>
#include <QUndoStack>

#include <limits>

namespace ckpt::ui {

namespace {
Setting<QStringList> s_recent{"mainwindow/recentFiles"};
constexpr int MaxRecent = 10;
/** The names of the files the Open and Compare dialogs list: every record format's, any gzip member. */
QString recordPatterns()
{
    QStringList patterns;
    for (std::string_view ext : recordExtensions())
        patterns << QStringLiteral("*.") + qs(ext);
    patterns << QStringLiteral("*.gz");
    return patterns.join(u' ');
}
} // namespace

void MainWindow::createActions()
{
    auto* file = menuBar()->addMenu(tr("&File"));
    const QString recordsFilter = tr("Records (%1);;All files (*)").arg(recordPatterns());
    auto* open = file->addAction(tr("&Open…"), this, [this, recordsFilter] {
        const QStringList files = QFileDialog::getOpenFileNames(this, tr("Open records"), QString(), recordsFilter);
        if (!files.isEmpty())
            openPaths(files);
    });
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open Da&maged File…"), this, [this, recordsFilter] {
        // Salvage: a record the typed decoders reject is shown as far as it can be read, marked partial.
        const QString f = QFileDialog::getOpenFileName(this, tr("Open damaged record"), QString(), recordsFilter);
        if (!f.isEmpty())
            openPaths({f}, true);
    });
    file->addAction(tr("Open &Directory…"), this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Open run directory"));
        if (!dir.isEmpty())
            openPaths({dir});
    });
    file->addAction(tr("&Compare…"), this, [this] {
        // Two records or two GradientCheckpoints: picked one after the other, A first.
        const QString filter = tr("Records and GradientCheckpoints (%1);;All files (*)").arg(recordPatterns());
        const QString a = QFileDialog::getOpenFileName(this, tr("Compare: A"), QString(), filter);
        const QString b = a.isEmpty() ? QString() : QFileDialog::getOpenFileName(this, tr("Compare %1 with: B").arg(a), QString(), filter);
        if (!b.isEmpty())
            openDiff(a, b);
    });
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addSeparator();
    auto* save = file->addAction(tr("&Save"), this, [this] { saveDocument(false); });
    save->setShortcut(QKeySequence::Save);
    auto* saveAs = file->addAction(tr("Save &As…"), this, [this] { saveDocument(true); });
    saveAs->setShortcut(QKeySequence::SaveAs);
    // Another recorder or precision: the loss is listed, and must be accepted, before anything is written.
    file->addAction(tr("&Export…"), this, [this] {
        ExportDialog dialog(m_doc, m_doc->exportRecord(), this);
        dialog.exec();
    });
    file->addSeparator();
    auto* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);

    auto* edit = menuBar()->addMenu(tr("&Edit"));
    auto* undo = m_doc->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    auto* redo = m_doc->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(undo);
    edit->addAction(redo);
    edit->addSeparator();
    auto* findAction = edit->addAction(tr("&Find…"), this, [this] {
        m_search->setFocus();
        m_search->selectAll();
    });
    findAction->setShortcut(QKeySequence::Find);
    edit->addSeparator();
    buildSurgeryMenu(edit->addMenu(tr("&Surgery")));

    auto* view = menuBar()->addMenu(tr("&View"));
    for (auto* dock : findChildren<QDockWidget*>())
        view->addAction(dock->toggleViewAction());

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Checkpoint Inspector"), this, [this] { showAboutDialog(this); })
        ->setObjectName(QStringLiteral("aboutAction"));

    auto* tools = addToolBar(tr("Main"));
    tools->setObjectName(QStringLiteral("mainToolBar"));
    tools->addAction(open);
    tools->addAction(save);
    tools->addAction(undo);
    tools->addAction(redo);
    tools->addSeparator();
    m_search = new QLineEdit(this);
    m_search->setPlaceholderText(tr("Find name, id or CID (Ctrl+F, Enter for next)"));
    m_search->setClearButtonEnabled(true);
    m_search->setMaximumWidth(380);
    tools->addWidget(m_search);
    connect(m_search, &QLineEdit::returnPressed, this, [this] {
        if (!find(m_search->text()))
            m_status->setText(tr("Not found: %1").arg(m_search->text()));
    });
}

void MainWindow::addRecent(const QStringList& paths)
{
    QStringList recent = s_recent.get();
    for (const QString& p : paths) {
        const QString abs = QFileInfo(p).absoluteFilePath();
        recent.removeAll(abs);
        recent.prepend(abs);
    }
    while (recent.size() > MaxRecent)
        recent.removeLast();
    s_recent.set(recent);
    rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    for (const QString& p : s_recent.get())
        m_recentMenu->addAction(p, this, [this, p] { openPaths({p}); });
    m_recentMenu->setEnabled(!m_recentMenu->isEmpty());
}

void MainWindow::buildSurgeryMenu(QMenu* surgery)
{
    surgery->setObjectName(QStringLiteral("surgeryMenu"));
    surgery->setToolTipsVisible(true);
    auto add = [&](const QString& text, const QString& tip, auto slot) {
        QAction* a = surgery->addAction(text, this, slot);
        a->setToolTip(tip);
        return a;
    };
    add(tr("&Reset Optimizer State…"), tr("Remove the optimizer state of the parameters matching a glob; Burn re-initialises it at the next step"), [this] {
        const Workspace& ws = m_doc->workspace();
        const int record = ws.optimizerRecord();
        if (record < 0)
            return logMessage(tr("Surgery: no opened record has optimizer state."), true);
        QString glob = QStringLiteral("item[0].*");
        if (const QString id = m_optimizer->selectedParam(); !id.isEmpty())
            if (auto p = ws.findParam(id.toStdString()))
                glob = qs(ws.records[size_t(p->first)].record->params[p->second].modulePath);
        bool ok = false;
        glob = QInputDialog::getText(this, tr("Reset optimizer state"),
            tr("Parameters to reset (a glob over module paths such as item[0].fc1.weight, tensor paths or ids; * and ?):"), QLineEdit::Normal, glob, &ok);
        if (ok && !glob.isEmpty())
            m_doc->requestSurgery(record, PatchOp {PatchOp::Kind::ResetOptimizer, glob.toStdString()});
    });
    add(tr("&Zero Non-finite Moments"), tr("Set every NaN and Inf element of the optimizer moments to 0"), [this] { m_optimizer->zeroNonFiniteMoments(); });
    add(tr("Set &Scheduler Step…"), tr("Put the learning-rate scheduler where it is after N steps (rewind it, or skip ahead)"), [this] {
        const int record = m_doc->workspace().schedulerRecord();
        if (record < 0)
            return logMessage(tr("Surgery: no opened record has a scheduler."), true);
        bool ok = false;
        const int step = QInputDialog::getInt(this, tr("Set scheduler step"), tr("Scheduler steps from the start:"), 0, 0,
            std::numeric_limits<int>::max(), 1, &ok);
        if (ok) {
            PatchOp op;
            op.kind = PatchOp::Kind::SchedulerStep;
            op.step = uint64_t(step);
            m_doc->requestSurgery(record, op);
        }
    });
    add(tr("&Transplant Tensors From…"), tr("Take the tensors matching a glob from another checkpoint of the same model (shapes and dtypes checked)"), [this] {
        const int record = m_doc->exportRecord();
        if (record < 0)
            return logMessage(tr("Surgery: no record is open."), true);
        const QString from = QFileDialog::getOpenFileName(this, tr("Transplant from"), QFileInfo(m_doc->workspace().records[size_t(record)].path).path(),
            tr("Records (%1);;All files (*)").arg(recordPatterns()));
        if (from.isEmpty())
            return;
        bool ok = false;
        const QString glob = QInputDialog::getText(this, tr("Transplant tensors"), tr("Tensors to take from %1 (a glob over tensor paths):").arg(QFileInfo(from).fileName()),
            QLineEdit::Normal, QStringLiteral("item[0].*"), &ok);
        if (!ok || glob.isEmpty())
            return;
        PatchOp op;
        op.kind = PatchOp::Kind::Transplant;
        op.from = from.toStdString();
        op.glob = glob.toStdString();
        m_doc->requestSurgery(record, op);
    });
    connect(m_doc, &CheckpointDocument::surgeryFinished, this,
        [this](int, const QString& summary, const QString& readiness, const QStringList& checks, const QString& error) {
            if (!error.isEmpty())
                return logMessage(tr("Surgery failed: ") + error, true);
            logMessage(tr("Surgery: %1. Resume readiness: %2.").arg(summary, readiness));
            for (const QString& c : checks)
                logMessage(QStringLiteral("  ") + c);
            m_status->setText(tr("Surgery done (%1); resume readiness: %2. Save As writes the patched record and its provenance.").arg(summary, readiness));
        });
}

} // namespace ckpt::ui
