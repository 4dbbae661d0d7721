// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/resumepanel.h"

#include "ui/models/formatting.h"

#include "core/edit/edit.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QSplitter>
#include <QToolButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace ckpt::ui {

namespace {
constexpr int MaxLogLines = 20000;

/** A u64 at item[4].<a>.<b> of a ckpt-train caller state. */
std::optional<uint64_t> stateU64(const Record& r, std::string_view a, std::string_view b)
{
    if (!r.stateNode || !r.tape.isMap(*r.stateNode))
        return std::nullopt;
    auto outer = r.tape.find(*r.stateNode, a);
    if (!outer || !r.tape.isMap(*outer))
        return std::nullopt;
    auto v = r.tape.find(*outer, b);
    return v ? r.tape.asU64(*v) : std::nullopt;
}
} // namespace

ResumePanel::ResumePanel(QWidget* parent)
    : QWidget(parent)
    , m_runner(new ResumeRunner(this))
    , m_title(new QLabel(this))
    , m_checks(new QTreeWidget(this))
    , m_outDir(new QLineEdit(this))
    , m_steps(new QSpinBox(this))
    , m_start(new QPushButton(tr("Resume training"), this))
    , m_stop(new QPushButton(tr("Stop"), this))
    , m_status(new QLabel(this))
    , m_log(new QPlainTextEdit(this))
{
    setObjectName(QStringLiteral("resumePanel"));
    m_title->setWordWrap(true);
    m_checks->setObjectName(QStringLiteral("resumeChecks"));
    m_checks->setHeaderLabels({tr("Check"), tr("Status"), tr("Detail")});
    m_checks->setRootIsDecorated(false);
    m_outDir->setObjectName(QStringLiteral("resumeOutDir"));
    m_steps->setRange(0, 1'000'000'000);
    m_steps->setSpecialValueText(tr("as recorded"));
    m_steps->setToolTip(tr("Total step count to reach (ckpt-train --steps); \"as recorded\" uses the record's stop step."));
    m_log->setReadOnly(true);
    m_log->setObjectName(QStringLiteral("resumeLog"));
    m_log->setMaximumBlockCount(MaxLogLines);
    m_log->setPlaceholderText(tr("The trainer's output appears here."));
    m_log->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_stop->setEnabled(false);

    auto* browse = new QToolButton(this);
    browse->setText(tr("…"));
    auto* dirRow = new QHBoxLayout;
    dirRow->addWidget(m_outDir, 1);
    dirRow->addWidget(browse);
    auto* form = new QFormLayout;
    form->addRow(tr("Run directory"), dirRow);
    form->addRow(tr("Train until step"), m_steps);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_stop);
    buttons->addWidget(m_status, 1);

    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_title);
    topLayout->addWidget(m_checks, 1);
    topLayout->addLayout(form);
    topLayout->addLayout(buttons);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(m_log);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);

    connect(browse, &QToolButton::clicked, this, [this] {
        const QString dir = QFileDialog::getExistingDirectory(this, tr("Run directory"), m_outDir->text());
        if (!dir.isEmpty())
            m_outDir->setText(dir);
    });
    connect(m_start, &QPushButton::clicked, this, &ResumePanel::start);
    connect(m_stop, &QPushButton::clicked, this, &ResumePanel::stop);
    connect(m_runner, &ResumeRunner::started, this, [this] {
        m_status->setText(tr("Running…"));
        Q_EMIT runStarted();
    });
    connect(m_runner, &ResumeRunner::outputAvailable, this, [this](const QString& line, bool isError) {
        if (isError)
            m_log->appendHtml(QStringLiteral("<span style='color:#c00000'>") + line.toHtmlEscaped() + QStringLiteral("</span>"));
        else
            m_log->appendPlainText(line);
    });
    connect(m_runner, &ResumeRunner::stepReported, this, [this](quint64 step, double loss, double lr) {
        m_status->setText(tr("step %1 · loss %2 · lr %3").arg(step).arg(formatNumber(loss), formatNumber(lr)));
        Q_EMIT stepReported(step, loss, lr);
    });
    connect(m_runner, &ResumeRunner::failed, this, [this](const QString& error) {
        m_failed = true;
        m_log->appendHtml(QStringLiteral("<b style='color:#c00000'>") + error.toHtmlEscaped() + QStringLiteral("</b>"));
        m_status->setText(error);
        Q_EMIT message(error, true);
    });
    connect(m_runner, &ResumeRunner::finished, this, [this](int exitCode, bool stopped) {
        const auto last = m_runner->lastStep();
        QString text;
        if (stopped)
            text = tr("Stopped by you%1.").arg(last ? tr(" after step %1").arg(last->step) : QString());
        else if (!m_failed)
            text = tr("Finished%1 (exit code %2).").arg(last ? tr(" at step %1").arg(last->step) : QString()).arg(exitCode);
        if (!text.isEmpty()) {
            m_status->setText(text);
            m_log->appendPlainText(QStringLiteral("— ") + text);
            Q_EMIT message(tr("Resume: %1").arg(text), false);
        }
        updateButtons();
        Q_EMIT runFinished(m_runner->request().outDir, !m_failed);
    });
    setWorkspace({});
}

QString ResumePanel::runDirectoryOf(const QString& recordPath)
{
    const QFileInfo info(recordPath);
    QDir dir = info.absoluteDir();
    if (dir.dirName() == QLatin1String("checkpoint") && info.fileName().startsWith(QLatin1String("record-")))
        dir.cdUp();
    return dir.absolutePath();
}

void ResumePanel::setWorkspace(const Workspace& ws)
{
    m_checks->clear();
    m_record.clear();
    m_recordStep = 0;
    m_stepsPerEpoch = 0;
    m_blocked = true;
    for (const auto& lr : ws.records) {
        if (lr.record->kind != RecordKind::TrainingRecord && lr.record->kind != RecordKind::ModelStateTrainingRecord)
            continue;
        bool errors = false;
        for (const auto& check : checkResume(*lr.record)) {
            auto* item = new QTreeWidgetItem(m_checks, {qs(check.name), qs(resumeStatusName(check.status)), qs(check.detail)});
            item->setForeground(1, check.status == ResumeCheck::Status::Ok ? QColor(0, 128, 0)
                    : check.status == ResumeCheck::Status::Warning       ? QColor(180, 120, 0)
                                                                         : QColor(200, 0, 0));
            errors = errors || check.status == ResumeCheck::Status::Error;
        }
        if (m_record.isEmpty() && lr.record->kind == RecordKind::TrainingRecord && lr.record->stateNode) {
            m_record = lr.path;
            m_blocked = errors;
            m_recordStep = stateU64(*lr.record, "progress", "step").value_or(0);
            const auto dataset = stateU64(*lr.record, "config", "dataset_size");
            const auto batch = stateU64(*lr.record, "config", "batch_size");
            m_stepsPerEpoch = dataset && batch && *batch ? *dataset / *batch : 0;
        }
    }
    if (m_checks->topLevelItemCount() == 0)
        new QTreeWidgetItem(m_checks, {tr("(no TrainingRecord open: resume checks apply to records that resume training)")});
    m_checks->resizeColumnToContents(0);
    m_checks->resizeColumnToContents(1);
    if (m_record.isEmpty()) {
        m_title->setText(tr("Open a TrainingRecord written by ckpt-train (checkpoint/record-STEP.*) to resume it."));
    } else {
        m_title->setText(tr("Resume <b>%1</b> (step %2) with ckpt-train.%3")
                             .arg(QFileInfo(m_record).fileName().toHtmlEscaped())
                             .arg(m_recordStep)
                             .arg(m_blocked ? tr(" <span style='color:#c00000'>The checklist has errors: resuming is disabled.</span>")
                                            : QString()));
        if (!m_runner->isRunning())
            m_outDir->setText(runDirectoryOf(m_record));
        m_steps->setMinimum(0);
    }
    updateButtons();
}

void ResumePanel::start()
{
    if (m_record.isEmpty() || m_blocked || m_runner->isRunning())
        return;
    ResumeRunner::Request r;
    r.record = m_record;
    r.outDir = m_outDir->text().trimmed();
    if (m_steps->value() > 0)
        r.steps = quint64(m_steps->value());
    m_failed = false;
    m_log->clear();
    m_log->appendPlainText(QStringLiteral("$ ") + m_runner->program() + QLatin1Char(' ') + ResumeRunner::arguments(r).join(QLatin1Char(' ')));
    if (m_runner->start(r))
        m_status->setText(tr("Starting…"));
    updateButtons();
}

void ResumePanel::stop()
{
    m_runner->stop();
    m_status->setText(tr("Stopping (the trainer writes a checkpoint first)…"));
}

void ResumePanel::updateButtons()
{
    const bool running = m_runner->isRunning();
    m_start->setEnabled(!running && !m_record.isEmpty() && !m_blocked);
    m_stop->setEnabled(running);
    m_outDir->setEnabled(!running);
    m_steps->setEnabled(!running);
}

} // namespace ckpt::ui
