// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#include "ui/process/resumeprofile.h"

#include "core/run/placeholders.h"

#include <QCoreApplication>
#include <QSettings>

#include <algorithm>

namespace ckpt::ui {

ResumeProfile ResumeProfile::defaultProfile()
{
    ResumeProfile p;
    p.name = QCoreApplication::translate("ResumeProfile", "ckpt-train (local)");
    p.program = QString::fromLatin1(kBundledTrainer);
    p.arguments = {QStringLiteral("--resume"), QStringLiteral("{record}"), QStringLiteral("--out"), QStringLiteral("{out}")};
    return p;
}

ResumeProfile ResumeProfile::slurmProfile()
{
    ResumeProfile p = defaultProfile();
    p.name = QCoreApplication::translate("ResumeProfile", "ckpt-train on Slurm (sbatch)");
    p.launcher = Launcher::Slurm;
    return p;
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

QList<ResumeProfile> load(QSettings& settings)
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
    if (list.isEmpty())
        list = ResumeProfile::defaultProfiles();
    return list;
}

void save(QSettings& settings, const QList<ResumeProfile>& profiles)
{
    settings.remove(QStringLiteral("resume/profiles"));
    settings.beginWriteArray(QStringLiteral("resume/profiles"), int(profiles.size()));
    for (int i = 0; i < profiles.size(); ++i) {
        settings.setArrayIndex(i);
        const ResumeProfile& p = profiles[i];
        settings.setValue(QStringLiteral("name"), p.name);
        settings.setValue(QStringLiteral("program"), p.program);
        settings.setValue(QStringLiteral("arguments"), p.arguments);
        settings.setValue(QStringLiteral("environment"), p.environment);
        settings.setValue(QStringLiteral("workingDirectory"), p.workingDirectory);
        settings.setValue(QStringLiteral("passSteps"), p.passSteps);
        settings.setValue(QStringLiteral("launcher"), p.launcher == ResumeProfile::Launcher::Slurm ? QStringLiteral("slurm") : QStringLiteral("local"));
        settings.setValue(QStringLiteral("slurmPartition"), p.slurm.partition);
        settings.setValue(QStringLiteral("slurmNodes"), p.slurm.nodes);
        settings.setValue(QStringLiteral("slurmGpus"), p.slurm.gpus);
        settings.setValue(QStringLiteral("slurmTime"), p.slurm.time);
    }
    settings.endArray();
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
