// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The reference trainer this build made (CKPT_BIN_DIR/ckpt-train, a compile definition of every
// test), run for the tests that need records and runs a real writer produced.

#include <QProcess>
#include <QString>
#include <QStringList>
#include <QtGlobal>

namespace ckpt::testing {

inline QString trainerPath()
{
    return QStringLiteral(CKPT_BIN_DIR "/ckpt-train");
}

/**
 * Runs ckpt-train with \a args and waits for it (5 minutes at most); \a output, if given, receives
 * what it printed on stdout. A failure is said with the arguments and what the trainer wrote on
 * stderr, so that the test's own message need not repeat them.
 */
inline bool runTrainer(const QStringList& args, QString* output = nullptr)
{
    QProcess p;
    p.start(trainerPath(), args);
    const bool finished = p.waitForFinished(300000);
    if (output)
        *output = QString::fromUtf8(p.readAllStandardOutput());
    if (!finished || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning("ckpt-train %s failed: %s", qPrintable(args.join(u' ')), p.readAllStandardError().constData());
        return false;
    }
    return true;
}

} // namespace ckpt::testing
