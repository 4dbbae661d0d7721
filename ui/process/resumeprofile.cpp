// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/process/resumeprofile.h"

#include "core/run/placeholders.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QSettings>

#include <algorithm>

namespace ckpt::ui {

namespace {

QStringList toQt(const std::vector<std::string>& list)
{
    QStringList out;
    for (const auto& s : list)
        out << QString::fromStdString(s);
    return out;
}

std::vector<std::string> toStd(const QStringList& list)
{
    std::vector<std::string> out;
    for (const QString& s : list)
        out.push_back(s.toStdString());
    return out;
}

/// core's default profiles (the one copy), their names shown in the app's language.
ResumeProfile defaultAt(size_t i)
{
    ResumeProfile p = fromSpec(ckpt::defaultResumeProfiles().at(i));
    const std::string name = p.name.toStdString();
    p.name = QCoreApplication::translate("ResumeProfile", name.c_str());
    return p;
}

} // namespace

ResumeProfile fromSpec(const ckpt::ResumeProfileSpec& s)
{
    ResumeProfile p;
    p.name = QString::fromStdString(s.name);
    p.launcher = s.launcher == ckpt::ResumeProfileSpec::Launcher::Slurm ? ResumeProfile::Launcher::Slurm : ResumeProfile::Launcher::Local;
    p.slurm = {QString::fromStdString(s.slurm.partition), s.slurm.nodes, s.slurm.gpus, QString::fromStdString(s.slurm.time)};
    p.program = QString::fromStdString(s.program);
    p.arguments = toQt(s.arguments);
    p.environment = toQt(s.environment);
    p.workingDirectory = QString::fromStdString(s.workingDirectory);
    p.passSteps = s.passSteps;
    return p;
}

ckpt::ResumeProfileSpec toSpec(const ResumeProfile& p)
{
    ckpt::ResumeProfileSpec s;
    s.name = p.name.toStdString();
    s.launcher = p.launcher == ResumeProfile::Launcher::Slurm ? ckpt::ResumeProfileSpec::Launcher::Slurm : ckpt::ResumeProfileSpec::Launcher::Local;
    s.slurm = {p.slurm.partition.toStdString(), p.slurm.nodes, p.slurm.gpus, p.slurm.time.toStdString()};
    s.program = p.program.toStdString();
    s.arguments = toStd(p.arguments);
    s.environment = toStd(p.environment);
    s.workingDirectory = p.workingDirectory.toStdString();
    s.passSteps = p.passSteps;
    return s;
}

ResumeProfile ResumeProfile::defaultProfile()
{
    return defaultAt(0);
}

ResumeProfile ResumeProfile::slurmProfile()
{
    return defaultAt(1);
}

QString shellQuote(const QString& s)
{
    return QString::fromStdString(ckpt::shellWord(s.toStdString()));
}

QString slurmScript(const ResolvedCommand& command)
{
    QString script = QStringLiteral("#!/bin/sh\n"
                                    "# Written by checkpoint-inspector: runs one resumption. Every argument is one single-quoted\n"
                                    "# word, so nothing in a path or value is expanded by the shell. exec: scancel's SIGTERM\n"
                                    "# reaches the trainer itself, which then writes a checkpoint and exits.\n"
                                    "exec");
    for (const QString& word : QStringList{command.program} + command.arguments)
        script += QLatin1Char(' ') + shellQuote(word);
    return script + QLatin1Char('\n');
}

QStringList sbatchArguments(const ResumeProfile& profile, const ResolvedCommand& command, const QString& scriptPath, const QString& outputPath,
    const QString& errorPath)
{
    QStringList a{QStringLiteral("--parsable"), QStringLiteral("--job-name=ckpt-resume"), QStringLiteral("--output=") + outputPath,
        QStringLiteral("--error=") + errorPath};
    if (!profile.slurm.partition.isEmpty())
        a << QStringLiteral("--partition=") + profile.slurm.partition;
    a << QStringLiteral("--nodes=%1").arg(std::max(1, profile.slurm.nodes));
    if (profile.slurm.gpus > 0)
        a << QStringLiteral("--gres=gpu:%1").arg(profile.slurm.gpus);
    if (!profile.slurm.time.isEmpty())
        a << QStringLiteral("--time=") + profile.slurm.time;
    if (!command.workingDirectory.isEmpty())
        a << QStringLiteral("--chdir=") + command.workingDirectory;
    a << scriptPath;
    return a;
}

QString expandPlaceholders(const QString& text, const PlaceholderValues& values)
{
    // core's one-pass expansion (shared with `ckpt verify-resume`) over UTF-8: the placeholders are
    // ASCII, so matching bytes is matching characters
    const ckpt::PlaceholderValues v{values.record.toStdString(), values.dir.toStdString(), values.step.toStdString(),
        values.out.toStdString()};
    return QString::fromStdString(ckpt::expandPlaceholders(text.toStdString(), v));
}

ResolvedCommand resolveProfile(const ResumeProfile& profile, const PlaceholderValues& values, const QString& bundledTrainer,
    std::optional<quint64> steps)
{
    ResolvedCommand c;
    c.program = profile.program == QLatin1StringView(ResumeProfile::kBundledTrainer) ? bundledTrainer : profile.program;
    for (const QString& a : profile.arguments)
        c.arguments << expandPlaceholders(a, values);
    if (profile.passSteps && steps)
        c.arguments << QStringLiteral("--steps") << QString::number(*steps);
    c.environment = QProcessEnvironment::systemEnvironment();
    for (const QString& entry : profile.environment) {
        const qsizetype eq = entry.indexOf(u'=');
        if (eq <= 0) {
            c.badEnvironment << entry;
            continue;
        }
        c.environment.insert(entry.left(eq), expandPlaceholders(entry.mid(eq + 1), values));
    }
    c.workingDirectory = expandPlaceholders(profile.workingDirectory, values);
    return c;
}

namespace ResumeProfiles {

namespace {

/// The profile list an older version kept in QSettings ("resume/profiles"), read by Qt itself.
QList<ResumeProfile> legacySettingsProfiles(QSettings& settings)
{
    QList<ResumeProfile> list;
    const int n = settings.beginReadArray(QStringLiteral("resume/profiles"));
    for (int i = 0; i < n; ++i) {
        settings.setArrayIndex(i);
        ResumeProfile p;
        p.name = settings.value(QStringLiteral("name")).toString();
        p.program = settings.value(QStringLiteral("program")).toString();
        p.arguments = settings.value(QStringLiteral("arguments")).toStringList();
        p.environment = settings.value(QStringLiteral("environment")).toStringList();
        p.workingDirectory = settings.value(QStringLiteral("workingDirectory")).toString();
        p.passSteps = settings.value(QStringLiteral("passSteps"), true).toBool();
        p.launcher = settings.value(QStringLiteral("launcher")).toString() == QLatin1String("slurm") ? ResumeProfile::Launcher::Slurm
                                                                                                   : ResumeProfile::Launcher::Local;
        p.slurm.partition = settings.value(QStringLiteral("slurmPartition")).toString();
        p.slurm.nodes = std::max(1, settings.value(QStringLiteral("slurmNodes"), 1).toInt());
        p.slurm.gpus = std::max(0, settings.value(QStringLiteral("slurmGpus"), 0).toInt());
        p.slurm.time = settings.value(QStringLiteral("slurmTime")).toString();
        if (!p.name.isEmpty() && !p.program.isEmpty())
            list << p;
    }
    settings.endArray();
    return list;
}

std::vector<ckpt::ResumeProfileSpec> toSpecs(const QList<ResumeProfile>& profiles)
{
    std::vector<ckpt::ResumeProfileSpec> specs;
    for (const ResumeProfile& p : profiles)
        specs.push_back(toSpec(p));
    return specs;
}

/**
 * Moves a profile list an older version kept in QSettings into the store, once: the store is written
 * first, and only then is the QSettings copy removed, so a failed write loses nothing.
 */
void migrateSettingsProfiles(QSettings& settings, const QString& store)
{
    const QList<ResumeProfile> legacy = legacySettingsProfiles(settings);
    if (legacy.isEmpty())
        return;
    if (auto saved = ckpt::saveResumeProfiles(store.toStdString(), toSpecs(legacy)); !saved) {
        qWarning("resume profiles: %s", saved.error().message().c_str());
        return;
    }
    settings.remove(QStringLiteral("resume/profiles"));
}

} // namespace

QString storePath(const QSettings& settings)
{
    return QFileInfo(settings.fileName()).absoluteDir().filePath(QString::fromUtf8(ckpt::kResumeProfilesFileName));
}

QList<ResumeProfile> load(QSettings& settings)
{
    const QString store = storePath(settings);
    if (!QFileInfo::exists(store))
        migrateSettingsProfiles(settings, store);
    if (!QFileInfo::exists(store)) // the store could not be written: the profiles are still where they were
        if (QList<ResumeProfile> legacy = legacySettingsProfiles(settings); !legacy.isEmpty())
            return legacy;
    auto stored = ckpt::loadResumeProfiles(store.toStdString());
    if (!stored)
        qWarning("%s", stored.error().message().c_str()); // shown as the defaults, as an unreadable settings file was
    if (!stored || *stored == ckpt::defaultResumeProfiles())
        return ResumeProfile::defaultProfiles(); // their names in the app's language
    QList<ResumeProfile> list;
    for (const auto& s : *stored)
        list << fromSpec(s);
    return list;
}

void save(QSettings& settings, const QList<ResumeProfile>& profiles)
{
    const QString store = storePath(settings);
    if (auto saved = ckpt::saveResumeProfiles(store.toStdString(), toSpecs(profiles)); !saved)
        qWarning("resume profiles: %s", saved.error().message().c_str());
    else
        settings.remove(QStringLiteral("resume/profiles")); // an older copy would otherwise be migrated over a lost store
}

QString current(QSettings& settings) { return settings.value(QStringLiteral("resume/current")).toString(); }
void setCurrent(QSettings& settings, const QString& name) { settings.setValue(QStringLiteral("resume/current"), name); }

QString uniqueName(const QList<ResumeProfile>& profiles, const QString& base)
{
    auto taken = [&](const QString& n) { return std::any_of(profiles.begin(), profiles.end(), [&](const ResumeProfile& p) { return p.name == n; }); };
    if (!taken(base))
        return base;
    for (int i = 2;; ++i)
        if (const QString n = QStringLiteral("%1 (%2)").arg(base).arg(i); !taken(n))
            return n;
}

} // namespace ResumeProfiles

} // namespace ckpt::ui
