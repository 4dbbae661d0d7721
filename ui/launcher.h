// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

#include <QObject>
#include <QProcess>
#include <QString>
#include <QStringList>

class QApplication;

namespace ckpt::ui {

class MainWindow;

/**
 * Parses the command line (cli-contract.md, `checkpoint-inspector`), shows the window and runs the
 * event loop: `[FILE|RUN_DIR ...]`, `--diff A B`, `--demo`, `--screenshot OUT.png [--panel NAME]`.
 */
int runInspector(QApplication& app);

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

/**
 * Waits until the window is idle (loaded, statistics and selections computed), raises \a panel,
 * grabs the window to \a outPng and quits the application (exit 0, or 1 if writing failed or the
 * wait timed out).
 */
void scheduleScreenshot(MainWindow* window, const QString& outPng, const QString& panel, bool expectLoad);

} // namespace ckpt::ui
