// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include "ui/process/resumeprofile.h"

#include <QDialog>

class QCheckBox;
class QComboBox;
class QSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QPlainTextEdit;
class QPushButton;

namespace ckpt::ui {

/**
 * Edits the list of resume profiles: pick one on the left, change its name, program, arguments (one
 * per line), environment (NAME=VALUE per line) and working directory on the right; New, Duplicate,
 * Delete. The preview shows the argument list the selected profile would run, one argument per line.
 */
class ResumeProfileDialog : public QDialog
{
    Q_OBJECT
public:
    explicit ResumeProfileDialog(QList<ResumeProfile> profiles, QWidget* parent = nullptr);

    QList<ResumeProfile> profiles() const { return m_profiles; }
    /** Sets the values the preview expands placeholders with. */
    void setPreviewValues(const PlaceholderValues& values, const QString& bundledTrainer);
    void selectProfile(const QString& name);
    QString selectedName() const;

    QListWidget* list() const { return m_list; }
    QLineEdit* nameEdit() const { return m_name; }
    QLineEdit* programEdit() const { return m_program; }
    QPlainTextEdit* argumentsEdit() const { return m_arguments; }
    QPlainTextEdit* environmentEdit() const { return m_environment; }
    QLineEdit* workingDirectoryEdit() const { return m_workingDirectory; }
    QPushButton* newButton() const { return m_new; }
    QPushButton* duplicateButton() const { return m_duplicate; }
    QPushButton* deleteButton() const { return m_delete; }
    QPlainTextEdit* preview() const { return m_preview; }
    QComboBox* launcherBox() const { return m_launcher; }
    QLineEdit* partitionEdit() const { return m_partition; }
    QSpinBox* nodesBox() const { return m_nodes; }
    QSpinBox* gpusBox() const { return m_gpus; }
    QLineEdit* timeEdit() const { return m_time; }

private:
    void showProfile(int row);
    void storeEdits();
    void refreshList();
    void updatePreview();
    int current() const;

    QList<ResumeProfile> m_profiles;
    PlaceholderValues m_values;
    QString m_bundledTrainer;
    QListWidget* m_list;
    QLineEdit* m_name;
    QLineEdit* m_program;
    QPlainTextEdit* m_arguments;
    QPlainTextEdit* m_environment;
    QLineEdit* m_workingDirectory;
    QCheckBox* m_passSteps;
    QComboBox* m_launcher;
    QLineEdit* m_partition;
    QSpinBox* m_nodes;
    QSpinBox* m_gpus;
    QLineEdit* m_time;
    QWidget* m_slurmBox;
    QPlainTextEdit* m_preview;
    QLabel* m_problem;
    QPushButton* m_new;
    QPushButton* m_duplicate;
    QPushButton* m_delete;
    bool m_loading = false;
};

} // namespace ckpt::ui
