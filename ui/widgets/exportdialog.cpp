// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/exportdialog.h"

#include "ui/document/checkpointdocument.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QToolButton>
#include <QVBoxLayout>

namespace ckpt::ui {

namespace {
QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }
constexpr Recorder kRecorders[] = {Recorder::NamedMpk, Recorder::NamedMpkGz, Recorder::PrettyJson, Recorder::JsonGz, Recorder::Bin, Recorder::BinGz};
constexpr Precision kPrecisions[] = {Precision::Full, Precision::Half, Precision::Double};
} // namespace

ExportDialog::ExportDialog(CheckpointDocument* doc, int record, QWidget* parent)
    : QDialog(parent)
    , m_doc(doc)
    , m_record(record)
    , m_recorder(new QComboBox(this))
    , m_precision(new QComboBox(this))
    , m_path(new QLineEdit(this))
    , m_warnings(new QListWidget(this))
    , m_acceptLoss(new QCheckBox(tr("I accept this loss of precision"), this))
    , m_status(new QLabel(this))
    , m_buttons(new QDialogButtonBox(QDialogButtonBox::Cancel, this))
{
    setObjectName(QStringLiteral("exportDialog"));
    setWindowTitle(tr("Export record"));
    const bool valid = record >= 0 && size_t(record) < doc->workspace().records.size();
    const Record* rec = valid ? doc->workspace().records[size_t(record)].record.get() : nullptr;
    for (Recorder r : kRecorders)
        m_recorder->addItem(tr("%1 (.%2)").arg(qstr(recorderName(r)), qstr(recorderExtension(r))), int(r));
    for (Precision p : kPrecisions)
        m_precision->addItem(qstr(precisionName(p)), int(p));
    if (rec) {
        m_recorder->setCurrentIndex(m_recorder->findData(int(rec->recorder)));
        m_precision->setCurrentIndex(m_precision->findData(int(rec->precision)));
        const QFileInfo info(doc->workspace().records[size_t(record)].path);
        m_path->setText(info.absoluteDir().filePath(info.completeBaseName().section(u'.', 0, 0) + QStringLiteral("-export.")
            + qstr(recorderExtension(rec->recorder))));
    }
    m_warnings->setObjectName(QStringLiteral("exportWarnings"));
    m_status->setWordWrap(true);
    auto* exportButton = m_buttons->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
    exportButton->setObjectName(QStringLiteral("exportButton"));

    auto* browse = new QToolButton(this);
    browse->setText(tr("…"));
    auto* pathRow = new QHBoxLayout;
    pathRow->addWidget(m_path, 1);
    pathRow->addWidget(browse);
    auto* form = new QFormLayout;
    form->addRow(tr("Record"), new QLabel(rec ? QFileInfo(doc->workspace().records[size_t(record)].path).fileName() : tr("(none)"), this));
    form->addRow(tr("Recorder"), m_recorder);
    form->addRow(tr("Precision"), m_precision);
    form->addRow(tr("File"), pathRow);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(new QLabel(tr("What this conversion loses:"), this));
    layout->addWidget(m_warnings, 1);
    layout->addWidget(m_acceptLoss);
    layout->addWidget(m_status);
    layout->addWidget(m_buttons);
    resize(640, 420);

    connect(browse, &QToolButton::clicked, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, tr("Export record as"), m_path->text());
        if (!path.isEmpty())
            m_path->setText(path);
    });
    connect(m_recorder, &QComboBox::currentIndexChanged, this, [this] {
        adjustExtension();
        refresh();
    });
    connect(m_precision, &QComboBox::currentIndexChanged, this, &ExportDialog::refresh);
    connect(m_acceptLoss, &QCheckBox::toggled, this, &ExportDialog::refresh);
    connect(m_path, &QLineEdit::textChanged, this, &ExportDialog::refresh);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_buttons, &QDialogButtonBox::accepted, this, [this] {
        if (const QString error = exportNow(); !error.isEmpty())
            m_status->setText(QStringLiteral("<span style='color:#c00000'>%1</span>").arg(error.toHtmlEscaped()));
    });
    refresh();
}

QPushButton* ExportDialog::exportButton() const { return findChild<QPushButton*>(QStringLiteral("exportButton")); }
Recorder ExportDialog::recorder() const { return Recorder(m_recorder->currentData().toInt()); }
Precision ExportDialog::precision() const { return Precision(m_precision->currentData().toInt()); }

void ExportDialog::adjustExtension()
{
    // Keep the file name, change its recorder extension (record.mpk.gz -> record.json).
    const QString path = m_path->text();
    const QFileInfo info(path);
    if (path.isEmpty())
        return;
    const QString base = info.fileName().section(u'.', 0, 0);
    m_path->setText(info.dir().filePath(base + QLatin1Char('.') + qstr(recorderExtension(recorder()))));
}

void ExportDialog::refresh()
{
    m_currentWarnings.clear();
    m_warnings->clear();
    auto preview = m_doc->previewExport(m_record, recorder(), precision());
    m_previewFailed = !preview;
    if (!preview) {
        m_status->setText(QStringLiteral("<span style='color:#c00000'>%1</span>").arg(QString::fromStdString(preview.error().message()).toHtmlEscaped()));
    } else {
        for (const auto& w : preview->warnings)
            m_currentWarnings << QString::fromStdString(w);
        m_status->setText(tr("%1 float tensors converted.").arg(preview->tensorsConverted));
    }
    if (m_currentWarnings.isEmpty() && !m_previewFailed)
        m_warnings->addItem(tr("Nothing: every value is kept exactly."));
    for (const QString& w : m_currentWarnings) {
        auto* item = new QListWidgetItem(w, m_warnings);
        item->setForeground(QColor(180, 100, 0));
    }
    const bool lossy = !m_currentWarnings.isEmpty();
    m_acceptLoss->setVisible(lossy);
    if (!lossy && m_acceptLoss->isChecked()) {
        const QSignalBlocker block(m_acceptLoss);
        m_acceptLoss->setChecked(false);
    }
    exportButton()->setEnabled(!m_previewFailed && !m_path->text().trimmed().isEmpty() && (!lossy || m_acceptLoss->isChecked()));
}

QString ExportDialog::exportNow()
{
    if (!exportButton()->isEnabled())
        return m_currentWarnings.isEmpty() ? tr("nothing to export") : tr("the precision loss has not been accepted");
    const QString error = m_doc->exportAs(m_record, m_path->text().trimmed(), recorder(), precision());
    if (error.isEmpty())
        accept();
    return error;
}

} // namespace ckpt::ui
