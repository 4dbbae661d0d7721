// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// The one way the CLI tests run a program of the build (ckpt, ckpt-train) and collect what it said.

#include <QByteArray>
#include <QProcess>
#include <QString>
#include <QStringList>

namespace clitest {

struct Run {
    int code = -1; ///< the exit code; -1 when the program crashed or did not finish in time
    QByteArray out, err;
};

/** Runs \a program from the build's bin directory (CKPT_BIN_DIR) with \a args, without a shell. */
inline Run run(const QString& program, const QStringList& args, int timeoutMs = 120000)
{
    QProcess p;
    p.start(QStringLiteral(CKPT_BIN_DIR "/") + program, args);
    p.waitForFinished(timeoutMs);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(), p.readAllStandardError()};
}

} // namespace clitest
