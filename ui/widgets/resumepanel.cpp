// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/widgets/resumepanel.h"

#include "ui/models/formatting.h"

#include "ui/widgets/resumeprofiledialog.h"

#include "core/codec/json.h"
#include "core/edit/edit.h"
#include "core/run/timeline.h"

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
#include <QTimer>
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

/** The checklist's colours, for the verdict too: ok, warning, error. */
const QColor kOkColour(0, 128, 0);
const QColor kWarningColour(180, 120, 0);
const QColor kErrorColour(200, 0, 0);

/** For reading, not for pasting into a shell: each argument is shown in brackets when it has spaces, exactly as passed. */
QString shownCommand(const QString& program, const QStringList& arguments)
{
    QString shown = program;
    for (const QString& a : arguments)
        shown += a.contains(u' ') || a.contains(u'\n') || a.isEmpty() ? QString(QStringLiteral(" \u2039") + a + QStringLiteral("\u203a"))
                                                                      : QString(QLatin1Char(' ') + a);
    return shown;
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
    , m_verifyRunner(new VerifyRunner(this))
    , m_verify(new QPushButton(tr("Verify resume…"), this))
    , m_cancelVerify(new QPushButton(tr("Cancel"), this))
    , m_against(new QComboBox(this))
    , m_tolerance(new QComboBox(this))
    , m_verdict(new QLabel(this))
    , m_differences(new QTreeWidget(this))
    , m_verifyTicker(new QTimer(this))
{
    setUpControls();
    auto* browse = new QToolButton(this);
    browse->setText(tr("…"));
    QFormLayout* form = createForm(browse);
    QHBoxLayout* buttons = createButtonRow();
    layOut(form, buttons);
    connectControls(browse);
    connectRunner();
    connectVerifier();
    reloadProfiles();
    setWorkspace({});
}

void ResumePanel::setUpControls()
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
}

QFormLayout* ResumePanel::createForm(QToolButton* browse)
{
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
    m_verify->setObjectName(QStringLiteral("verifyResume"));
    m_verify->setToolTip(tr("Resume from this checkpoint through the profile, in a temporary directory, up to the step of the checkpoint "
                            "chosen under \"Verify against\", and compare the two (ckpt verify-resume)."));
    m_cancelVerify->setObjectName(QStringLiteral("cancelVerifyResume"));
    m_cancelVerify->setEnabled(false);
    m_against->setObjectName(QStringLiteral("verifyAgainst"));
    m_against->setPlaceholderText(tr("(no later checkpoint in this run)"));
    m_against->setToolTip(tr("A later checkpoint of the same run: the resumption must reproduce it."));
    m_against->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_tolerance->setObjectName(QStringLiteral("verifyTolerance"));
    m_tolerance->addItem(tr("exact"), QStringLiteral("exact"));
    m_tolerance->addItem(tr("strict (rel L2 ≤ 1e-6)"), QStringLiteral("strict"));
    m_tolerance->addItem(tr("relaxed (rel L2 ≤ 1e-3)"), QStringLiteral("relaxed"));
    m_tolerance->setToolTip(tr("exact: byte-identical tensors and equal state; strict: rel L2 ≤ 1e-6; relaxed: rel L2 ≤ 1e-3, numbers in "
                               "state within 1e-3, metadata ignored. A NaN against a number always differs."));
    auto* verifyRow = new QHBoxLayout;
    verifyRow->addWidget(m_against, 1);
    verifyRow->addWidget(new QLabel(tr("Tolerance"), this));
    verifyRow->addWidget(m_tolerance);
    form->addRow(tr("Verify against"), verifyRow);
    return form;
}

QHBoxLayout* ResumePanel::createButtonRow()
{
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_stop);
    buttons->addSpacing(12);
    buttons->addWidget(m_verify);
    buttons->addWidget(m_cancelVerify);
    buttons->addWidget(m_status, 1);
    m_verdict->setObjectName(QStringLiteral("verifyVerdict"));
    m_verdict->setWordWrap(true);
    m_verdict->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_verdict->hide();
    m_differences->setObjectName(QStringLiteral("verifyDifferences"));
    m_differences->setHeaderLabels({tr("Tensor or state field"), tr("max |Δ|"), tr("rel L2"), tr("Status")});
    m_differences->setRootIsDecorated(false);
    m_differences->hide();
    m_verifyTicker->setInterval(1000);
    return buttons;
}

void ResumePanel::layOut(QFormLayout* form, QHBoxLayout* buttons)
{
    auto* top = new QWidget(this);
    auto* topLayout = new QVBoxLayout(top);
    topLayout->setContentsMargins(0, 0, 0, 0);
    topLayout->addWidget(m_title);
    topLayout->addWidget(m_checks, 1);
    topLayout->addLayout(form);
    topLayout->addLayout(buttons);
    topLayout->addWidget(m_verdict);
    topLayout->addWidget(m_differences, 1);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top);
    split->addWidget(m_log);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addWidget(split);
}

void ResumePanel::connectControls(QToolButton* browse)
{
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
        updateButtons(); // a Slurm profile cannot verify
    });
    connect(m_stop, &QPushButton::clicked, this, &ResumePanel::stop);
}

void ResumePanel::connectRunner()
{
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
}

void ResumePanel::connectVerifier()
{
    connect(m_verify, &QPushButton::clicked, this, &ResumePanel::startVerify);
    connect(m_cancelVerify, &QPushButton::clicked, this, &ResumePanel::cancelVerify);
    connect(m_against, &QComboBox::currentIndexChanged, this, [this] {
        m_against->setToolTip(m_against->currentData().toString());
        updateButtons();
    });
    connect(m_verifyTicker, &QTimer::timeout, this, [this] {
        m_status->setText(tr("Verifying: resuming in a temporary directory, then comparing… %1 s").arg(m_verifyClock.elapsed() / 1000));
    });
    connect(m_verifyRunner, &VerifyRunner::started, this, [this] { m_verifyTicker->start(); });
    connect(m_verifyRunner, &VerifyRunner::outputAvailable, this, [this](const QString& line) {
        m_log->appendHtml(QStringLiteral("<span style='color:#c00000'>") + line.toHtmlEscaped() + QStringLiteral("</span>"));
    });
    connect(m_verifyRunner, &VerifyRunner::verified, this, &ResumePanel::showVerifyReport);
    connect(m_verifyRunner, &VerifyRunner::failed, this, &ResumePanel::showVerifyFailure);
    connect(m_verifyRunner, &VerifyRunner::finished, this, [this](bool ok, bool cancelled) {
        m_verifyTicker->stop();
        if (cancelled) {
            const QString text = tr("Verification cancelled.");
            m_status->setText(text);
            m_log->appendPlainText(QStringLiteral("— ") + text);
            m_verdict->setText(text);
            m_verdict->show();
            m_differences->clear();
            m_differences->hide();
        }
        updateButtons();
        Q_EMIT verifyFinished(ok);
    });
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
    for (size_t recordIndex = 0; recordIndex < ws.records.size(); ++recordIndex) {
        const LoadedRecord& lr = ws.records[recordIndex];
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
        // A resumption of the same run keeps the parameter ids, so the later checkpoint's paths are these.
        const std::vector<QString> names = ws.tensorNames(int(recordIndex));
        for (size_t t = 0; t < names.size() && t < lr.record->tensors.size(); ++t)
            src.tensorNames.insert(qs(lr.record->tensors[t].path), names[t]);
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
        refreshAgainst();
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
    refreshAgainst();
    updateButtons();
}

void ResumePanel::start()
{
    if (m_record.isEmpty() || m_blocked || m_runner->isRunning())
        return;
    const ResumeRunner::Request r = currentRequest();
    m_failed = false;
    m_log->clear();
    const ResolvedCommand cmd = m_runner->command(r);
    m_log->appendPlainText(QStringLiteral("[") + currentProfile().name + QStringLiteral("] ") + shownCommand(cmd.program, cmd.arguments));
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
    // One child at a time: a resumption and a verification share the source and profile choices.
    const bool verifying = m_verifyRunner->isRunning();
    const bool running = m_runner->isRunning() || verifying;
    const bool slurm = currentProfile().launcher == ResumeProfile::Launcher::Slurm;
    m_start->setEnabled(!running && !m_record.isEmpty() && !m_blocked);
    m_stop->setEnabled(m_runner->isRunning());
    m_outDir->setEnabled(!running);
    m_steps->setEnabled(!running);
    m_source->setEnabled(!running && m_sources.size() > 1);
    m_profile->setEnabled(!running);
    m_editProfiles->setEnabled(!running);
    m_verify->setEnabled(!running && !m_record.isEmpty() && !m_blocked && m_against->count() > 0 && !slurm);
    m_verify->setToolTip(slurm ? tr("Verification runs the resumption here, with ckpt: choose a local profile.")
                               : tr("Resume from this checkpoint through the profile, in a temporary directory, up to the step of the "
                                    "checkpoint chosen under \"Verify against\", and compare the two (ckpt verify-resume)."));
    m_cancelVerify->setEnabled(verifying);
    m_against->setEnabled(!running);
    m_tolerance->setEnabled(!running);
}

void ResumePanel::refreshAgainst()
{
    const QString previous = m_against->currentData().toString();
    {
        const QSignalBlocker block(m_against);
        m_against->clear();
        // Core's reading of the run (the names and order ckpt timeline uses), not a pattern of our own.
        const CheckpointPlace place = m_record.isEmpty() ? CheckpointPlace{} : checkpointPlaceOf(m_record.toStdString());
        const quint64 from = m_recordStep ? m_recordStep : place.step.value_or(0);
        if (!place.runDirectory.empty())
            if (auto run = listRunCheckpoints(place.runDirectory)) {
                const QDir runDir(qs(place.runDirectory));
                for (const RunPoint& point : run->points)
                    if (point.step && *point.step > from)
                        m_against->addItem(tr("%1 (step %2)").arg(qs(point.file)).arg(*point.step), runDir.filePath(qs(point.file)));
            }
        // The same file again after a reload, else the nearest later checkpoint: the shortest resumption.
        const int keep = m_against->findData(previous);
        m_against->setCurrentIndex(keep >= 0 ? keep : (m_against->count() > 0 ? 0 : -1));
    }
    m_against->setToolTip(m_against->currentData().toString());
}

VerifyRunner::Request ResumePanel::currentVerifyRequest() const
{
    VerifyRunner::Request r;
    r.record = m_record;
    r.against = m_against->currentData().toString();
    r.profile = currentProfile().name;
    r.tolerance = m_tolerance->currentData().toString();
    return r;
}

void ResumePanel::startVerify()
{
    if (m_record.isEmpty() || m_blocked || m_runner->isRunning() || m_verifyRunner->isRunning() || m_against->count() == 0)
        return;
    const VerifyRunner::Request r = currentVerifyRequest();
    {
        // ckpt reads the profile by name from the settings file: what this process changed must be
        // on disk first. (With none stored, ckpt offers the same default profile as the app.)
        QSettings settings;
        settings.sync();
    }
    m_verdict->hide();
    m_differences->clear();
    m_differences->hide();
    m_log->appendPlainText(QStringLiteral("— ") + tr("Verify resume: %1").arg(shownCommand(m_verifyRunner->program(), VerifyRunner::arguments(r))));
    m_log->appendPlainText(QStringLiteral("— ") + tr("resuming %1 through \"%2\" in a temporary directory up to the step of %3, then comparing "
                                                     "the two (tolerance %4)…")
                                                      .arg(QFileInfo(r.record).fileName(), r.profile, QFileInfo(r.against).fileName(), r.tolerance));
    m_verifyClock.start();
    if (m_verifyRunner->start(r))
        m_status->setText(tr("Verifying…"));
    updateButtons();
}

void ResumePanel::cancelVerify()
{
    m_verifyRunner->cancel();
}

void ResumePanel::showVerifyReport(const VerifyRunner::Report& report)
{
    const VerifyRunner::Request& r = m_verifyRunner->request();
    QString verdict;
    QColor colour;
    if (report.verdict == QLatin1String("identical")) {
        verdict = tr("Identical");
        colour = kOkColour;
    } else if (report.verdict == QLatin1String("within_tolerance")) {
        verdict = tr("Within tolerance");
        colour = kWarningColour;
    } else {
        verdict = tr("Diverged");
        colour = kErrorColour;
    }
    qsizetype above = 0;
    for (const auto& d : report.differences)
        above += d.aboveTolerance ? 1 : 0;
    QString detail = report.differences.isEmpty() ? tr("every tensor and state field matches")
                                                  : tr("%n difference(s)", nullptr, int(report.differences.size()));
    if (above < report.differences.size())
        detail += tr(", %1 beyond the tolerance").arg(above);
    // One arg() call: a file name holding "%4" must not be substituted again.
    m_verdict->setText(tr("<b style='color:%1'>%2</b>: %3 resumed for %4 steps to step %5 and compared with %6 (tolerance %7): %8.")
                           .arg(colour.name(), verdict, QFileInfo(r.record).fileName().toHtmlEscaped(), QString::number(report.steps),
                               QString::number(report.step), QFileInfo(r.against).fileName().toHtmlEscaped(), report.tolerance.toHtmlEscaped(),
                               detail));
    m_verdict->setToolTip(r.against);
    m_verdict->show();
    m_differences->clear();
    const auto source = std::find_if(m_sources.begin(), m_sources.end(), [&](const Source& src) { return src.path == r.record; });
    const QHash<QString, QString> noNames;
    const QHash<QString, QString>& names = source != m_sources.end() ? source->tensorNames : noNames;
    for (qsizetype i = 0; i < report.differences.size() && i < MaxDifferencesShown; ++i) {
        const auto& d = report.differences[i];
        const auto number = [](const std::optional<double>& v) { return v ? formatNumber(*v) : QStringLiteral("—"); };
        QString status = d.status;
        if (d.isState)
            status += QStringLiteral(": %1 → %2").arg(d.later.isEmpty() ? tr("(absent)") : d.later, d.resumed.isEmpty() ? tr("(absent)") : d.resumed);
        if (!d.aboveTolerance)
            status += tr(" (within tolerance)");
        // The module's name where the source record knows the path (same run), else the path as ckpt gives it.
        auto* item = new QTreeWidgetItem(m_differences, {names.value(d.path, d.path), number(d.maxAbs), number(d.relL2), status});
        item->setData(0, Qt::UserRole, d.path);
        item->setToolTip(0, d.path);
        item->setToolTip(3, status);
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
        item->setTextAlignment(2, Qt::AlignRight | Qt::AlignVCenter);
        item->setForeground(3, d.aboveTolerance ? kErrorColour : kWarningColour);
    }
    if (report.differences.size() > MaxDifferencesShown)
        new QTreeWidgetItem(m_differences, {tr("… and %1 more (ckpt verify-resume lists them all)").arg(report.differences.size() - MaxDifferencesShown)});
    m_differences->setVisible(!report.differences.isEmpty());
    for (int c = 0; c < 3; ++c)
        m_differences->resizeColumnToContents(c);
    const QString line = tr("%1: %2 resumed to step %3 and compared with %4 (tolerance %5), %6 difference(s).")
                             .arg(verdict, QFileInfo(r.record).fileName(), QString::number(report.step), QFileInfo(r.against).fileName(),
                                 report.tolerance, QString::number(report.differences.size()));
    m_status->setText(verdict);
    m_log->appendPlainText(QStringLiteral("— ") + line);
    Q_EMIT message(tr("Verify resume: %1").arg(line), report.verdict == QLatin1String("diverged"));
}

void ResumePanel::showVerifyFailure(const QString& error)
{
    const QString text = tr("Verification failed: %1").arg(error);
    m_verdict->setText(QStringLiteral("<b style='color:%1'>%2</b>").arg(kErrorColour.name(), text.toHtmlEscaped()));
    m_verdict->setToolTip(QString());
    m_verdict->show();
    m_differences->clear();
    m_differences->hide();
    m_log->appendHtml(QStringLiteral("<b style='color:#c00000'>") + text.toHtmlEscaped() + QStringLiteral("</b>"));
    m_status->setText(tr("Verification failed."));
    Q_EMIT message(text, true);
}

} // namespace ckpt::ui
