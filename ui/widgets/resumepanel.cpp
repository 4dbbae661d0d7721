// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/resumepanel.h"

#include "ui/models/formatting.h"

#include "ui/widgets/resumeprofiledialog.h"

#include "core/codec/json.h"
#include "core/edit/edit.h"

#include <QComboBox>
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
#include <QSettings>
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

/** ckpt-train's continuation state blob in a GradientCheckpoint (app/train/graphcheckpoint.h, kResumeStateKey). */
constexpr const char* kResumeStateKey = "ckpt-train/resume_state";

/** A u64 at <a>.<b>.<c> of a tape. */
std::optional<uint64_t> tapeU64(const Tape& t, uint32_t node, std::initializer_list<std::string_view> path)
{
    std::optional<uint32_t> at = node;
    for (std::string_view key : path) {
        if (!at || !t.isMap(*at))
            return std::nullopt;
        at = t.find(*at, key);
    }
    return at ? t.asU64(*at) : std::nullopt;
}
} // namespace

ResumePanel::ResumePanel(QWidget* parent)
    : QWidget(parent)
    , m_source(new QComboBox(this))
    , m_profile(new QComboBox(this))
    , m_editProfiles(new QPushButton(tr("Profiles…"), this))
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
    m_source->setObjectName(QStringLiteral("resumeSource"));
    m_profile->setObjectName(QStringLiteral("resumeProfile"));
    m_profile->setToolTip(tr("How the resumption is launched: program, argument list, environment, working directory."));
    auto* profileRow = new QHBoxLayout;
    profileRow->addWidget(m_profile, 1);
    profileRow->addWidget(m_editProfiles);
    form->addRow(tr("Resume from"), m_source);
    form->addRow(tr("Run directory"), dirRow);
    form->addRow(tr("Train until step"), m_steps);
    form->addRow(tr("Profile"), profileRow);
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
    connect(m_source, &QComboBox::currentIndexChanged, this, &ResumePanel::showSource);
    connect(m_editProfiles, &QPushButton::clicked, this, &ResumePanel::editProfiles);
    connect(m_profile, &QComboBox::currentTextChanged, this, [this](const QString& name) {
        if (!name.isEmpty()) {
            QSettings settings;
            ResumeProfiles::setCurrent(settings, name);
        }
    });
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
    connect(m_runner, &ResumeRunner::jobStateChanged, this, [this](const QString& id, const QString& state) {
        m_status->setText(tr("Slurm job %1: %2").arg(id, state));
        m_log->appendPlainText(tr("— Slurm job %1: %2").arg(id, state));
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
    reloadProfiles();
    setWorkspace({});
}

void ResumePanel::reloadProfiles()
{
    QSettings settings;
    m_profiles = ResumeProfiles::load(settings);
    const QString chosen = ResumeProfiles::current(settings);
    const QSignalBlocker block(m_profile);
    m_profile->clear();
    for (const auto& p : m_profiles)
        m_profile->addItem(p.name);
    const int index = m_profile->findText(chosen);
    m_profile->setCurrentIndex(index >= 0 ? index : 0);
}

ResumeProfile ResumePanel::currentProfile() const
{
    const int i = m_profile->currentIndex();
    return i >= 0 && i < m_profiles.size() ? m_profiles[i] : ResumeProfile::defaultProfile();
}

void ResumePanel::editProfiles()
{
    ResumeProfileDialog dialog(m_profiles, this);
    dialog.setPreviewValues(ResumeRunner::placeholders(currentRequest()), m_runner->program());
    dialog.selectProfile(currentProfile().name);
    if (dialog.exec() != QDialog::Accepted)
        return;
    QSettings settings;
    ResumeProfiles::save(settings, dialog.profiles());
    ResumeProfiles::setCurrent(settings, dialog.selectedName());
    reloadProfiles();
}

ResumeRunner::Request ResumePanel::currentRequest() const
{
    ResumeRunner::Request r;
    r.record = m_record;
    r.outDir = m_outDir->text().trimmed();
    if (m_steps->value() > 0)
        r.steps = quint64(m_steps->value());
    r.profile = currentProfile();
    r.recordStep = m_recordStep;
    return r;
}

ResumePanel::Source ResumePanel::graphSource(const GraphData& graph)
{
    Source src;
    src.path = graph.path;
    src.step = graph.checkpoint.step;
    src.label = tr("GradientCheckpoint %1 (step %2)").arg(QFileInfo(graph.path).fileName()).arg(src.step);
    auto add = [&](const QString& name, bool ok, const QString& detail) {
        src.checks.push_back({name, ok ? QStringLiteral("ok") : QStringLiteral("error"), detail});
        src.blocked = src.blocked || !ok;
    };
    add(tr("car-file"), graph.car != nullptr,
        graph.car ? tr("%1: %2 blocks").arg(QFileInfo(graph.carPath).fileName()).arg(graph.car->blocks().size())
                  : (graph.carError.isEmpty() ? tr("%1 is missing: the tensors live there").arg(graph.carPath) : graph.carError));
    const auto& blobs = graph.checkpoint.optimizerState;
    const auto blob = std::find_if(blobs.begin(), blobs.end(), [](const OptimizerBlob& b) { return b.key == kResumeStateKey; });
    if (blob == blobs.end()) {
        add(tr("continuation-state"), false,
            tr("no \"%1\" entry in optimizer_state: not written by ckpt-train, so configuration, data position and updated parameters are unknown")
                .arg(QLatin1StringView(kResumeStateKey)));
        return src;
    }
    auto state = readJson(makeBytes(std::vector<uint8_t>(blob->bytes)));
    const auto caller = state && state->isMap(state->root()) ? state->find(state->root(), "caller_state") : std::nullopt;
    if (!caller) {
        add(tr("continuation-state"), false, state ? tr("the blob has no caller_state") : QString::fromStdString(state.error().message()));
        return src;
    }
    const Tape& t = *state;
    const auto step = tapeU64(t, *caller, {"progress", "step"});
    const auto dataset = tapeU64(t, *caller, {"config", "dataset_size"});
    const auto batch = tapeU64(t, *caller, {"config", "batch_size"});
    src.stepsPerEpoch = dataset && batch && *batch ? *dataset / *batch : 0;
    add(tr("continuation-state"), step == graph.checkpoint.step,
        step == graph.checkpoint.step ? tr("ckpt-train caller state at step %1").arg(*step)
                                      : tr("caller state step %1 differs from the checkpoint's step %2").arg(step.value_or(0)).arg(graph.checkpoint.step));
    if (!graph.car)
        return src;
    // Parameters and pending gradients must be in the CAR with matching hashes: the trainer reads them.
    int blocks = 0;
    QStringList bad;
    for (const char* map : {"parameters", "pending_gradients"}) {
        const auto m = t.find(t.root(), map);
        if (!m || !t.isMap(*m)) {
            bad << tr("%1 missing").arg(QLatin1StringView(map));
            continue;
        }
        t.forEachEntry(*m, [&](uint32_t key, uint32_t value) {
            ++blocks;
            const std::string cidText = t.isStr(value) ? std::string(t.str(value)) : std::string();
            const auto cid = parseCid(cidText);
            const auto index = cid ? graph.car->find(*cid) : std::nullopt;
            if (!index || graph.car->verify(*index) != BlockCheck::Ok)
                bad << QString::fromStdString(t.keyText(key));
        });
    }
    add(tr("parameter-blocks"), bad.isEmpty(),
        bad.isEmpty() ? tr("%1 parameter and gradient blocks present, hashes match").arg(blocks)
                      : tr("missing or corrupted in the CAR: %1").arg(bad.join(u", ")));
    return src;
}

QString ResumePanel::runDirectoryOf(const QString& recordPath)
{
    const QFileInfo info(recordPath);
    QDir dir = info.absoluteDir();
    const bool record = dir.dirName() == QLatin1String("checkpoint") && info.fileName().startsWith(QLatin1String("record-"));
    const bool graph = dir.dirName() == QLatin1String("graph") && info.fileName().startsWith(QLatin1String("step-"));
    if (record || graph)
        dir.cdUp();
    return dir.absolutePath();
}

void ResumePanel::setWorkspace(const Workspace& ws)
{
    m_sources.clear();
    std::vector<Check> otherChecks; // records that do not resume (a model-state record): their checks still inform
    auto checksOf = [](const Record& r, bool& errors) {
        std::vector<Check> checks;
        for (const auto& check : checkResume(r)) {
            checks.push_back({qs(check.name), qs(resumeStatusName(check.status)), qs(check.detail)});
            errors = errors || check.status == ResumeCheck::Status::Error;
        }
        return checks;
    };
    for (const auto& lr : ws.records) {
        if (lr.record->kind != RecordKind::TrainingRecord && lr.record->kind != RecordKind::ModelStateTrainingRecord)
            continue;
        bool errors = false;
        auto checks = checksOf(*lr.record, errors);
        if (lr.record->kind != RecordKind::TrainingRecord || !lr.record->stateNode) {
            otherChecks.insert(otherChecks.end(), checks.begin(), checks.end());
            continue;
        }
        Source src;
        src.path = lr.path;
        src.blocked = errors;
        src.checks = std::move(checks);
        src.step = stateU64(*lr.record, "progress", "step").value_or(0);
        const auto dataset = stateU64(*lr.record, "config", "dataset_size");
        const auto batch = stateU64(*lr.record, "config", "batch_size");
        src.stepsPerEpoch = dataset && batch && *batch ? *dataset / *batch : 0;
        src.label = tr("TrainingRecord %1 (step %2)").arg(QFileInfo(lr.path).fileName()).arg(src.step);
        m_sources.push_back(std::move(src));
    }
    if (ws.graph)
        m_sources.push_back(graphSource(*ws.graph));
    {
        const QSignalBlocker block(m_source);
        m_source->clear();
        for (const auto& src : m_sources)
            m_source->addItem(src.label, src.path);
        m_source->setEnabled(m_sources.size() > 1);
    }
    if (m_sources.empty()) {
        m_record.clear();
        m_recordStep = 0;
        m_stepsPerEpoch = 0;
        m_blocked = true;
        showChecks(otherChecks);
        m_title->setText(tr("Open a TrainingRecord (checkpoint/record-STEP.*) or a GradientCheckpoint (graph/step-STEP.json) written by "
                            "ckpt-train to resume it."));
        updateButtons();
        return;
    }
    m_source->setCurrentIndex(0);
    showSource(0);
}

void ResumePanel::showChecks(const std::vector<Check>& checks)
{
    m_checks->clear();
    for (const auto& c : checks) {
        auto* item = new QTreeWidgetItem(m_checks, {c.name, c.status, c.detail});
        item->setForeground(1, c.status == QLatin1String("ok") ? QColor(0, 128, 0)
                : c.status == QLatin1String("warning")         ? QColor(180, 120, 0)
                                                               : QColor(200, 0, 0));
    }
    if (m_checks->topLevelItemCount() == 0)
        new QTreeWidgetItem(m_checks, {tr("(nothing to resume open: resume checks apply to TrainingRecords and GradientCheckpoints)")});
    m_checks->resizeColumnToContents(0);
    m_checks->resizeColumnToContents(1);
}

void ResumePanel::showSource(int index)
{
    if (index < 0 || index >= int(m_sources.size()))
        return;
    const Source& src = m_sources[size_t(index)];
    m_record = src.path;
    m_recordStep = src.step;
    m_stepsPerEpoch = src.stepsPerEpoch;
    m_blocked = src.blocked;
    showChecks(src.checks);
    m_title->setText(tr("Resume <b>%1</b> (step %2).%3")
                         .arg(QFileInfo(m_record).fileName().toHtmlEscaped())
                         .arg(m_recordStep)
                         .arg(m_blocked ? tr(" <span style='color:#c00000'>The checklist has errors: resuming is disabled.</span>") : QString()));
    if (!m_runner->isRunning())
        m_outDir->setText(runDirectoryOf(m_record));
    m_steps->setMinimum(0);
    updateButtons();
}

void ResumePanel::start()
{
    if (m_record.isEmpty() || m_blocked || m_runner->isRunning())
        return;
    const ResumeRunner::Request r = currentRequest();
    m_failed = false;
    m_log->clear();
    // For reading, not for pasting into a shell: each argument is shown in brackets, exactly as passed.
    const ResolvedCommand cmd = m_runner->command(r);
    QString shown = QStringLiteral("[") + currentProfile().name + QStringLiteral("] ") + cmd.program;
    for (const QString& a : cmd.arguments)
        shown += a.contains(u' ') || a.contains(u'\n') || a.isEmpty() ? QString(QStringLiteral(" \u2039") + a + QStringLiteral("\u203a"))
                                                                      : QString(QLatin1Char(' ') + a);
    m_log->appendPlainText(shown);
    if (m_runner->start(r))
        m_status->setText(tr("Starting…"));
    updateButtons();
}

void ResumePanel::stop()
{
    m_runner->stop();
    m_status->setText(m_runner->jobId().isEmpty() ? tr("Stopping (the trainer writes a checkpoint first)…")
                                                  : tr("Cancelling Slurm job %1 (scancel; the trainer writes a checkpoint first)…").arg(m_runner->jobId()));
}

void ResumePanel::updateButtons()
{
    const bool running = m_runner->isRunning();
    m_start->setEnabled(!running && !m_record.isEmpty() && !m_blocked);
    m_stop->setEnabled(running);
    m_outDir->setEnabled(!running);
    m_steps->setEnabled(!running);
    m_source->setEnabled(!running && m_sources.size() > 1);
    m_profile->setEnabled(!running);
    m_editProfiles->setEnabled(!running);
}

} // namespace ckpt::ui
