// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/resumeprofiledialog.h"

#include <QCheckBox>
#include <QDir>
#include <QComboBox>
#include <QSpinBox>
#include <QDialogButtonBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

namespace ckpt::ui {

namespace {
QStringList linesOf(const QPlainTextEdit* edit)
{
    QStringList lines = edit->toPlainText().split(u'\n');
    while (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}
} // namespace

ResumeProfileDialog::ResumeProfileDialog(QList<ResumeProfile> profiles, QWidget* parent)
    : QDialog(parent)
    , m_profiles(std::move(profiles))
    , m_list(new QListWidget(this))
    , m_name(new QLineEdit(this))
    , m_program(new QLineEdit(this))
    , m_arguments(new QPlainTextEdit(this))
    , m_environment(new QPlainTextEdit(this))
    , m_workingDirectory(new QLineEdit(this))
    , m_passSteps(new QCheckBox(tr("Append --steps N when a step target is set"), this))
    , m_launcher(new QComboBox(this))
    , m_partition(new QLineEdit(this))
    , m_nodes(new QSpinBox(this))
    , m_gpus(new QSpinBox(this))
    , m_time(new QLineEdit(this))
    , m_slurmBox(new QWidget(this))
    , m_preview(new QPlainTextEdit(this))
    , m_problem(new QLabel(this))
    , m_new(new QPushButton(tr("New"), this))
    , m_duplicate(new QPushButton(tr("Duplicate"), this))
    , m_delete(new QPushButton(tr("Delete"), this))
{
    setObjectName(QStringLiteral("resumeProfileDialog"));
    setWindowTitle(tr("Resume profiles"));
    if (m_profiles.isEmpty())
        m_profiles << ResumeProfile::defaultProfile();
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    for (QPlainTextEdit* e : {m_arguments, m_environment, m_preview}) {
        e->setFont(fixed);
        e->setLineWrapMode(QPlainTextEdit::NoWrap);
    }
    m_program->setFont(fixed);
    m_program->setToolTip(tr("\"%1\" is the trainer installed with the app; a bare name is looked up in PATH.")
                              .arg(QLatin1StringView(ResumeProfile::kBundledTrainer)));
    m_arguments->setPlaceholderText(tr("one argument per line"));
    m_arguments->setToolTip(tr("One argument per line, passed as they are (no shell): {record} {dir} {step} {out} are replaced."));
    m_environment->setPlaceholderText(tr("NAME=VALUE, one per line"));
    m_workingDirectory->setPlaceholderText(tr("(the app's working directory)"));
    m_preview->setReadOnly(true);
    m_preview->setObjectName(QStringLiteral("resumeProfilePreview"));
    m_problem->setStyleSheet(QStringLiteral("color:#c00000"));
    m_problem->setWordWrap(true);

    auto* left = new QVBoxLayout;
    left->addWidget(m_list, 1);
    auto* listButtons = new QHBoxLayout;
    listButtons->addWidget(m_new);
    listButtons->addWidget(m_duplicate);
    listButtons->addWidget(m_delete);
    left->addLayout(listButtons);
    m_launcher->addItem(tr("Here (a child process)"), int(ResumeProfile::Launcher::Local));
    m_launcher->addItem(tr("Slurm batch job (sbatch)"), int(ResumeProfile::Launcher::Slurm));
    m_partition->setPlaceholderText(tr("(the cluster's default)"));
    m_nodes->setRange(1, 4096);
    m_gpus->setRange(0, 64);
    m_time->setPlaceholderText(tr("(the partition's limit), e.g. 02:00:00"));
    auto* slurmForm = new QFormLayout(m_slurmBox);
    slurmForm->setContentsMargins(0, 0, 0, 0);
    slurmForm->addRow(tr("Partition"), m_partition);
    slurmForm->addRow(tr("Nodes"), m_nodes);
    slurmForm->addRow(tr("GPUs per node"), m_gpus);
    slurmForm->addRow(tr("Time limit"), m_time);
    auto* form = new QFormLayout;
    form->addRow(tr("Name"), m_name);
    form->addRow(tr("Runs"), m_launcher);
    form->addRow(QString(), m_slurmBox);
    form->addRow(tr("Program"), m_program);
    auto* placeholders = new QLabel(tr("Placeholders: <tt>{record}</tt> the checkpoint, <tt>{dir}</tt> its folder, <tt>{step}</tt> its step, "
                                       "<tt>{out}</tt> the run directory. Each line is one argument, passed without a shell."),
        this);
    placeholders->setWordWrap(true);
    form->addRow(tr("Arguments"), m_arguments);
    form->addRow(QString(), placeholders);
    form->addRow(QString(), m_passSteps);
    form->addRow(tr("Environment"), m_environment);
    form->addRow(tr("Working directory"), m_workingDirectory);
    form->addRow(tr("Runs as"), m_preview);
    form->addRow(QString(), m_problem);
    auto* columns = new QHBoxLayout;
    columns->addLayout(left, 1);
    columns->addLayout(form, 3);
    auto* box = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(columns, 1);
    layout->addWidget(box);
    m_preview->setMinimumHeight(140);
    resize(820, 700);

    connect(box, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::currentRowChanged, this, &ResumeProfileDialog::showProfile);
    connect(m_launcher, &QComboBox::currentIndexChanged, this, &ResumeProfileDialog::storeEdits);
    for (QSpinBox* b : {m_nodes, m_gpus})
        connect(b, &QSpinBox::valueChanged, this, &ResumeProfileDialog::storeEdits);
    for (QLineEdit* e : {m_name, m_program, m_workingDirectory, m_partition, m_time})
        connect(e, &QLineEdit::textChanged, this, &ResumeProfileDialog::storeEdits);
    for (QPlainTextEdit* e : {m_arguments, m_environment})
        connect(e, &QPlainTextEdit::textChanged, this, &ResumeProfileDialog::storeEdits);
    connect(m_passSteps, &QCheckBox::toggled, this, &ResumeProfileDialog::storeEdits);
    connect(m_new, &QPushButton::clicked, this, [this] {
        ResumeProfile p;
        p.name = ResumeProfiles::uniqueName(m_profiles, tr("New profile"));
        p.program = QString::fromLatin1(ResumeProfile::kBundledTrainer);
        p.arguments = ResumeProfile::defaultProfile().arguments;
        m_profiles << p;
        refreshList();
        m_list->setCurrentRow(int(m_profiles.size()) - 1);
    });
    connect(m_duplicate, &QPushButton::clicked, this, [this] {
        const int row = current();
        if (row < 0)
            return;
        ResumeProfile p = m_profiles[row];
        p.name = ResumeProfiles::uniqueName(m_profiles, tr("%1 copy").arg(p.name));
        m_profiles.insert(row + 1, p);
        refreshList();
        m_list->setCurrentRow(row + 1);
    });
    connect(m_delete, &QPushButton::clicked, this, [this] {
        const int row = current();
        if (row < 0 || m_profiles.size() <= 1)
            return; // one profile always remains
        m_profiles.removeAt(row);
        refreshList();
        m_list->setCurrentRow(std::min(row, int(m_profiles.size()) - 1));
    });
    refreshList();
    m_list->setCurrentRow(0);
}

int ResumeProfileDialog::current() const
{
    const int row = m_list->currentRow();
    return row >= 0 && row < m_profiles.size() ? row : -1;
}

void ResumeProfileDialog::setPreviewValues(const PlaceholderValues& values, const QString& bundledTrainer)
{
    m_values = values;
    m_bundledTrainer = bundledTrainer;
    updatePreview();
}

void ResumeProfileDialog::selectProfile(const QString& name)
{
    for (int i = 0; i < m_profiles.size(); ++i)
        if (m_profiles[i].name == name)
            m_list->setCurrentRow(i);
}

QString ResumeProfileDialog::selectedName() const
{
    const int row = current();
    return row < 0 ? QString() : m_profiles[row].name;
}

void ResumeProfileDialog::refreshList()
{
    m_loading = true;
    const int row = m_list->currentRow();
    m_list->clear();
    for (const auto& p : m_profiles)
        m_list->addItem(p.name);
    m_list->setCurrentRow(std::min(row, int(m_profiles.size()) - 1));
    m_delete->setEnabled(m_profiles.size() > 1);
    m_loading = false;
}

void ResumeProfileDialog::showProfile(int row)
{
    if (m_loading || row < 0 || row >= m_profiles.size())
        return;
    m_loading = true;
    const ResumeProfile& p = m_profiles[row];
    m_name->setText(p.name);
    m_program->setText(p.program);
    m_arguments->setPlainText(p.arguments.join(u'\n'));
    m_environment->setPlainText(p.environment.join(u'\n'));
    m_workingDirectory->setText(p.workingDirectory);
    m_passSteps->setChecked(p.passSteps);
    m_launcher->setCurrentIndex(m_launcher->findData(int(p.launcher)));
    m_partition->setText(p.slurm.partition);
    m_nodes->setValue(p.slurm.nodes);
    m_gpus->setValue(p.slurm.gpus);
    m_time->setText(p.slurm.time);
    m_slurmBox->setVisible(p.launcher == ResumeProfile::Launcher::Slurm);
    m_loading = false;
    updatePreview();
}

void ResumeProfileDialog::storeEdits()
{
    const int row = current();
    if (m_loading || row < 0)
        return;
    ResumeProfile& p = m_profiles[row];
    const QString name = m_name->text().trimmed();
    // Names identify profiles in the settings: keep them unique and non-empty.
    QList<ResumeProfile> others = m_profiles;
    others.removeAt(row);
    if (!name.isEmpty() && name != p.name)
        p.name = ResumeProfiles::uniqueName(others, name);
    p.program = m_program->text().trimmed();
    p.arguments = linesOf(m_arguments);
    p.environment = linesOf(m_environment);
    p.workingDirectory = m_workingDirectory->text();
    p.passSteps = m_passSteps->isChecked();
    p.launcher = ResumeProfile::Launcher(m_launcher->currentData().toInt());
    p.slurm.partition = m_partition->text().trimmed();
    p.slurm.nodes = m_nodes->value();
    p.slurm.gpus = m_gpus->value();
    p.slurm.time = m_time->text().trimmed();
    m_slurmBox->setVisible(p.launcher == ResumeProfile::Launcher::Slurm);
    if (auto* item = m_list->item(row); item && item->text() != p.name)
        item->setText(p.name);
    updatePreview();
}

void ResumeProfileDialog::updatePreview()
{
    const int row = current();
    if (row < 0)
        return;
    const ResolvedCommand c = resolveProfile(m_profiles[row], m_values, m_bundledTrainer.isEmpty() ? m_profiles[row].program : m_bundledTrainer, std::nullopt);
    QStringList lines;
    if (m_profiles[row].launcher == ResumeProfile::Launcher::Slurm) {
        lines << QStringLiteral("sbatch");
        const QDir jobs(QDir(m_values.out.isEmpty() ? QStringLiteral("{out}") : m_values.out).filePath(QStringLiteral("slurm")));
        for (const QString& a : sbatchArguments(m_profiles[row], c, jobs.filePath(QStringLiteral("resume-STAMP.sh")),
                 jobs.filePath(QStringLiteral("resume-STAMP.out")), jobs.filePath(QStringLiteral("resume-STAMP.err"))))
            lines << QStringLiteral("  ") + a;
        lines << tr("with the script:") << slurmScript(c).section(u'\n', -2, -2);
    } else {
        lines << c.program;
        for (const QString& a : c.arguments)
            lines << QStringLiteral("  ") + a;
    }
    if (m_profiles[row].passSteps)
        lines << tr("  (--steps N when a step target is set)");
    if (!c.workingDirectory.isEmpty())
        lines << tr("in %1").arg(c.workingDirectory);
    m_preview->setPlainText(lines.join(u'\n'));
    QStringList problems;
    if (m_profiles[row].program.isEmpty())
        problems << tr("The profile needs a program.");
    if (!c.badEnvironment.isEmpty())
        problems << tr("Environment entries must be NAME=VALUE: %1").arg(c.badEnvironment.join(u", "));
    m_problem->setText(problems.join(u' '));
    if (auto* ok = findChild<QDialogButtonBox*>())
        ok->button(QDialogButtonBox::Ok)->setEnabled(problems.isEmpty());
}

} // namespace ckpt::ui
