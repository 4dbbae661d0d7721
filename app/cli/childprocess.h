// SPDX-FileCopyrightText: 2026 Checkpoint Inspector developers
// SPDX-License-Identifier: GPL-3.0-or-later
#pragma once

// Child processes of ckpt (the resumption of verify-resume, sbatch/squeue/scontrol of a cluster scan):
// started as an argument vector with posix_spawnp, never through a shell.

#include <array>
#include <csignal>
#include <string>
#include <vector>

namespace ckpt::cli {

struct ChildResult {
    bool started = false;
    std::string startError;
    int exitCode = -1;  ///< when it exited
    int signal = 0;     ///< when a signal ended it
    bool ok() const { return started && exitCode == 0; }
};

/**
 * Runs \a argv (argv[0] looked up in PATH when it has no '/') with stdin from /dev/null and stdout
 * and stderr into \a logPath, ckpt's environment with \a extraEnv (NAME=VALUE) over it, in
 * \a workingDirectory (empty: ckpt's own), and waits for it. A stop signal noted by StopSignals
 * while it runs is passed on to it.
 */
ChildResult runChild(const std::vector<std::string>& argv, const std::string& logPath, const std::vector<std::string>& extraEnv = {},
    const std::string& workingDirectory = {});

/** runChild with stdout and stderr captured (into a private temporary file, read back; at most \a maxBytes kept). */
ChildResult captureChild(const std::vector<std::string>& argv, std::string& output, size_t maxBytes = size_t(1) << 20);

/** A child's log (or output) file as text; empty when it cannot be read. */
std::string readChildLog(const std::string& path);

/** The last \a maxLines lines of \a text, trailing line breaks left out: what a failure message quotes of a log. */
std::string lastLines(const std::string& text, size_t maxLines);

/** The stop signal (SIGINT, SIGTERM, SIGHUP) that arrived while StopSignals was installed, 0 if none. */
int stopSignalReceived();

/**
 * While installed, a stop signal does not kill ckpt on the spot: it is noted (stopSignalReceived)
 * and passed on to the child runChild waits for, so that ckpt can clean up after it and then die of
 * the same signal (a caller sees the signal, as without the handler). Ctrl-C reaches the child from
 * the terminal too.
 */
class StopSignals {
public:
    StopSignals();
    ~StopSignals();
    StopSignals(const StopSignals&) = delete;
    StopSignals& operator=(const StopSignals&) = delete;

    static constexpr std::array<int, 3> kSignals = {SIGINT, SIGTERM, SIGHUP};

private:
    std::array<struct sigaction, 3> m_old {};
};

/** Ends ckpt by \a sig with its default action (after the caller cleaned up). */
[[noreturn]] void dieOfSignal(int sig);

} // namespace ckpt::cli
