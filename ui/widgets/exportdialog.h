// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "core/model/recorder.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QListWidget;

namespace ckpt::ui {

class CheckpointDocument;

/**
 * Export the (edited) record to any recorder and precision. What the conversion would lose is
 * computed first, from core's convertRecord warnings, and listed; when there is a loss, Export stays
 * disabled until the user ticks that they accept it. The edits stay unsaved in the opened file.
 */
class ExportDialog : public QDialog
{
    Q_OBJECT
public:
    ExportDialog(CheckpointDocument* doc, int record, QWidget* parent = nullptr);

    QComboBox* recorderBox() const { return m_recorder; }
    QComboBox* precisionBox() const { return m_precision; }
    QLineEdit* pathEdit() const { return m_path; }
    QListWidget* warningList() const { return m_warnings; }
    QCheckBox* acceptLossBox() const { return m_acceptLoss; }
    QPushButton* exportButton() const;
    Recorder recorder() const;
    Precision precision() const;
    /** The warnings of the current choice (empty: lossless). */
    QStringList warnings() const { return m_currentWarnings; }
    /** Writes the export; the error text, or "" (the dialog then accepts). */
    QString exportNow();

private:
    void refresh();
    void adjustExtension();
    CheckpointDocument* m_doc;
    int m_record;
    QComboBox* m_recorder;
    QComboBox* m_precision;
    QLineEdit* m_path;
    QListWidget* m_warnings;
    QCheckBox* m_acceptLoss;
    QLabel* m_status;
    QDialogButtonBox* m_buttons;
    QStringList m_currentWarnings;
    bool m_previewFailed = false;
};

} // namespace ckpt::ui
