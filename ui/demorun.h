// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace ckpt::ui {

/**
 * Trains the demo run with the sibling `ckpt-train` into AppLocalDataLocation/demo-run (argument
 * list, never a shell), streaming its output, then reports the run directory.
 */
class DemoRunner : public QObject
{
    Q_OBJECT
public:
    explicit DemoRunner(QObject* parent = nullptr);
    static QString trainerPath();
    static QString demoDirectory();
    static QStringList demoArguments(const QString& outDir);
    void start();

Q_SIGNALS:
    void output(const QString& line);
    void finished(const QString& runDirectory);
    void failed(const QString& message);

private:
    QProcess m_process;
    QString m_dir;
};

} // namespace ckpt::ui
